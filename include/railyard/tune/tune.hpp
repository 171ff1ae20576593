// railyard/tune/tune.hpp — umbrella header for the tuning layer: NCCL's numbering
// of collectives, algorithms and protocols (nccl.hpp), tuning rules in NCCL's
// example-tuner format, written and read (rules.hpp), railyard's per-communicator
// NCCL cost model (model.hpp), and rules from simulations (simulated_rules.hpp).
// The NCCL plugin ABI and adapters around the model are plugin/.
//
//   #include "railyard/tune/tune.hpp"
//   railyard::tune::TuningRules r = railyard::tune::parse_tuning_rules(file_text);
#pragma once

#include "railyard/tune/model.hpp"
#include "railyard/tune/nccl_graphs.hpp"
#include "railyard/tune/nccl_model.hpp"
#include "railyard/tune/nccl.hpp"
#include "railyard/tune/rules.hpp"
#include "railyard/tune/simulated_rules.hpp"
