// libFuzzer driver for every railyard fuzz target (built by clang with
// -fsanitize=fuzzer when RAILYARD_FUZZ=ON). The target is chosen by the
// environment variable RAILYARD_FUZZ_TARGET, so one binary serves all of them
// and is compiled once:
//
//   RAILYARD_FUZZ_TARGET=cluster_spec ./railyard_fuzz -max_total_time=60 corpus/ seeds/
//
// cmake/fuzz.sh runs every target this way with its seed corpus;
// RAILYARD_FUZZ_TARGET=--list prints the targets.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_target.hpp"

namespace {
const railyard::fuzz::Target* g_target = nullptr;

void list_targets() {
  for (const auto& t : railyard::fuzz::registry()) std::fprintf(stderr, "  %s\n", t.name);
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* name = std::getenv("RAILYARD_FUZZ_TARGET");
  if (name != nullptr && std::string_view(name) == "--list") {  // for cmake/fuzz.sh
    for (const auto& t : railyard::fuzz::registry()) std::printf("%s\n", t.name);
    std::exit(0);
  }
  if (name == nullptr || *name == '\0') {
    std::fprintf(stderr, "railyard_fuzz: set RAILYARD_FUZZ_TARGET to one of:\n");
    list_targets();
    std::exit(2);
  }
  g_target = railyard::fuzz::find_target(name);
  if (g_target == nullptr) {
    std::fprintf(stderr, "railyard_fuzz: unknown RAILYARD_FUZZ_TARGET '%s'; targets:\n", name);
    list_targets();
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
