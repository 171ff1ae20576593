// railyard/core/units.hpp — unit conventions and conversions.
//
// railyard keeps units in names rather than in a units library: bandwidth is
// `*_gbps` (gigabits per second, 10^9 bit/s), time is `*_us` or `*_ns`, data is
// `*_bytes`. These helpers convert between them in one place:
//
//   double t_us = railyard::transfer_time_us(256 * railyard::kMiB, 400.0);
//   double bdp  = railyard::bandwidth_delay_bytes(400.0, 10.0);  // 500'000 bytes
//
// All functions are constexpr and allocation-free.
#pragma once

#include <cstdint>

namespace railyard {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
inline constexpr uint64_t kTiB = 1024 * kGiB;
// Decimal megabytes, the unit switch buffers are quoted in.
inline constexpr double kBytesPerMB = 1e6;

inline constexpr double kBitsPerByte = 8.0;

// Signal propagation in fibre and copper cable: about 5 ns per metre (docs/constants.md#fabric).
inline constexpr double kCableNsPerMetre = 5.0;

// Bytes per microsecond carried by a link of `gbps` gigabits per second.
[[nodiscard]] constexpr double gbps_to_bytes_per_us(double gbps) {
  return gbps * 1e3 / kBitsPerByte;
}

// Time in microseconds to push `bytes` through `gbps` (serialization only).
[[nodiscard]] constexpr double transfer_time_us(double bytes, double gbps) {
  return bytes / gbps_to_bytes_per_us(gbps);
}

// Bandwidth-delay product in bytes of a `gbps` link with round-trip `rtt_us`.
[[nodiscard]] constexpr double bandwidth_delay_bytes(double gbps, double rtt_us) {
  return gbps_to_bytes_per_us(gbps) * rtt_us;
}

// Gigabits per second to gigabytes per second (nccl-tests reports GB/s).
[[nodiscard]] constexpr double gbps_to_gBps(double gbps) { return gbps / kBitsPerByte; }

}  // namespace railyard
