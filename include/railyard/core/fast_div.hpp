// railyard/core/fast_div.hpp — division and remainder by a run-time constant
// with one multiplication each, for per-query hot paths; and a remainder that is
// never negative (positive_mod).
//
// A hardware 32-bit divide costs tens of cycles; a descriptor answering "how many
// paths join these two NICs" needs several. FastDivisor precomputes
// M = ceil(2^64 / d) once and then
//   n / d = (M * n) >> 64            n % d = ((M * n mod 2^64) * d) >> 64
// which is exact for every 32-bit n and d (Lemire, Kaser, Kurz, "Faster
// Remainder by Direct Computation", Software: Practice and Experience 2019).
//
//   constexpr railyard::FastDivisor by32(32);
//   static_assert(by32.div(100) == 3 && by32.mod(100) == 4);
#pragma once

#include <cstdint>

namespace railyard {

class FastDivisor {
 public:
  constexpr FastDivisor() = default;
  // Precondition: d >= 1.
  constexpr explicit FastDivisor(uint32_t d)
      : divisor_(d), magic_(d == 1 ? 0 : UINT64_MAX / d + 1) {}

  [[nodiscard]] constexpr uint32_t divisor() const { return divisor_; }

  [[nodiscard]] constexpr uint32_t div(uint32_t n) const {
    if (divisor_ == 1) return n;  // M would be 2^64
    return static_cast<uint32_t>((static_cast<Wide>(magic_) * n) >> 64);
  }
  [[nodiscard]] constexpr uint32_t mod(uint32_t n) const {
    if (divisor_ == 1) return 0;
    const uint64_t low = magic_ * n;
    return static_cast<uint32_t>((static_cast<Wide>(low) * divisor_) >> 64);
  }

 private:
  __extension__ using Wide = unsigned __int128;
  uint32_t divisor_ = 1;
  uint64_t magic_ = 0;
};

// a mod m in [0, m) for any sign of a (C++'s % keeps the sign of a). m > 0.
[[nodiscard]] constexpr int64_t positive_mod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

}  // namespace railyard
