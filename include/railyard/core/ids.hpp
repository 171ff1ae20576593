// railyard/core/ids.hpp — strong integer ids.
//
// Every index that crosses an API (a host, a rail, a fabric node, a link) has its
// own type, so a rail cannot be passed where a host is expected:
//
//   railyard::HostId host{12};
//   railyard::RailId rail{3};
//   auto leaf = descriptor.leaf_of(host, rail, railyard::PlaneId{0});
//   int32_t raw = host.value();
//
// Ids are trivially copyable, totally ordered, hashable with absl::Hash and usable
// in constexpr code. A default-constructed id is invalid (value -1).
#pragma once

#include <compare>
#include <cstdint>
#include <utility>

namespace railyard {

// A typed wrapper around a signed integer index. `Tag` only distinguishes types.
template <class Tag, class Rep = int32_t>
class StrongId {
 public:
  using rep_type = Rep;

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : value_(value) {}

  [[nodiscard]] constexpr Rep value() const { return value_; }
  [[nodiscard]] constexpr bool valid() const { return value_ >= 0; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;
  friend constexpr bool operator==(StrongId, StrongId) = default;

  template <class H>
  friend H AbslHashValue(H h, StrongId id) {
    return H::combine(std::move(h), id.value_);
  }

 private:
  Rep value_ = -1;
};

struct HostTag {};
struct GpuTag {};
struct NicTag {};
struct RailTag {};
struct PlaneTag {};
struct SuTag {};
struct PodTag {};
struct NodeTag {};
struct LinkTag {};
struct SwitchTag {};

using HostId = StrongId<HostTag>;         // host index, SU-major: SU = host / hosts_per_su
using GpuIndex = StrongId<GpuTag>;        // GPU index inside its host (0..gpus_per_host-1)
using NicIndex = StrongId<NicTag>;        // NIC index inside its host (0..nics_per_host-1)
using RailId = StrongId<RailTag>;         // rail = NIC index when NICs form rails
using PlaneId = StrongId<PlaneTag>;       // plane = port index of a multi-plane NIC
using SuId = StrongId<SuTag>;             // scalable unit (leaf group)
using PodId = StrongId<PodTag>;           // pod (spine group) of a 3-tier fabric
using NodeId = StrongId<NodeTag>;         // node of the explicit Fabric graph
using LinkId = StrongId<LinkTag>;         // directed link of the Fabric graph
using SwitchIndex = StrongId<SwitchTag>;  // switch index inside its tier

// One GPU of the cluster: host and GPU index inside it (a rank's device, a flow's
// end point).
struct GpuEndpoint {
  HostId host;
  GpuIndex gpu;
  friend constexpr bool operator==(const GpuEndpoint&, const GpuEndpoint&) = default;
  friend constexpr auto operator<=>(const GpuEndpoint&, const GpuEndpoint&) = default;
};

// One port of a back-end NIC: the unit that paths connect. `plane` is the port
// index of a multi-plane NIC (0 for single-plane NICs).
struct NicPort {
  HostId host;
  NicIndex nic;
  PlaneId plane{0};

  friend constexpr bool operator==(const NicPort&, const NicPort&) = default;
  friend constexpr auto operator<=>(const NicPort&, const NicPort&) = default;
};

}  // namespace railyard
