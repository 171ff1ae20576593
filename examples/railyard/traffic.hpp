// railyard CLI — simulate's traffic-matrix mode (--traffic FILE / --generate KIND).
#pragma once

#include "cli.hpp"

namespace railyard::cli {

// Runs `simulate` with --traffic or --generate given (traffic.cpp).
[[nodiscard]] Outcome run_simulate_traffic(const Invocation& inv);

}  // namespace railyard::cli
