// A deterministic, test-only ECMP hash: splitmix64 rounds over the switch and
// the whole tuple. `steer` says whether plans may steer it (false stands in for
// an unknown vendor hash).
#pragma once

#include <cstdint>
#include <string_view>

#include "railyard/routing/flow.hpp"

namespace railyard::testing {

class TestHash final : public routing::HashModel {
 public:
  explicit TestHash(uint64_t seed, bool steer = true) : seed_(seed), steer_(steer) {}
  [[nodiscard]] int32_t pick(const routing::EcmpHop& hop,
                             const routing::FiveTuple& t) const override {
    uint64_t h = mix(seed_ ^ (uint64_t{static_cast<uint8_t>(hop.kind)} << 40) ^
                     static_cast<uint64_t>(hop.switch_index.value()));
    h = mix(h ^ ((uint64_t{t.src_ip} << 32) | t.dst_ip));
    h = mix(h ^ ((uint64_t{t.src_port} << 32) | t.dst_qp));
    return static_cast<int32_t>(h % static_cast<uint64_t>(hop.candidates));
  }
  [[nodiscard]] std::string_view name() const override { return steer_ ? "test" : "test-random"; }
  [[nodiscard]] bool steerable() const override { return steer_; }

 private:
  static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t seed_;
  bool steer_;
};

}  // namespace railyard::testing
