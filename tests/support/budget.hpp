// tests/support/budget.hpp — how many random cases a sweeping test runs.
//
// Property tests that sweep hundreds of random fabrics run every case in the
// warnings-as-errors pass and a quarter of them (at least one) in the
// ASan+UBSan pass, where unoptimized instrumented code runs 15-20× slower. The
// sanitizers look for memory and undefined-behaviour errors, which the first
// cases of a sweep reach as well as the last; the full sweep, which checks the
// property itself, always runs in the optimized pass.
//
//   for (int k = 0; k < railyard::testing::cases(240); ++k) { ... }
#pragma once

namespace railyard::testing {

#ifdef RAILYARD_SANITIZED_BUILD
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// The number of cases to run out of `full`.
[[nodiscard]] constexpr int cases(int full) {
  return kSanitizedBuild ? (full + 3) / 4 : full;
}

}  // namespace railyard::testing
