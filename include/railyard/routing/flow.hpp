// railyard/routing/flow.hpp — what ECMP sees of a RoCEv2 flow, and the hashing
// decisions a flow meets on its way between two NIC ports.
//
//   auto desc =
//   railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   railyard::NicPort a{railyard::HostId{0}, railyard::NicIndex{0}};
//   railyard::NicPort b{railyard::HostId{40}, railyard::NicIndex{0}};
//   railyard::routing::FiveTuple t = railyard::routing::rocev2_tuple(*desc, a, b, 0xC123, 0x51);
//   auto hops = railyard::routing::ecmp_hops(*desc, a, b);   // leaf: 32 uplinks, ...
//   uint16_t sport = railyard::routing::sport_from_flow_label(0x1234);  // 0xD234
//
// Model. A flow is the 5-tuple (src IP, dst IP, UDP src port, UDP dst port 4791,
// protocol 17) plus the destination QP number, which some switches also hash
// (docs/constants.md#ecmp). Between two NIC ports of one plane a flow meets up to four ECMP
// decisions, one per switch where several next hops lead to the destination
// (descriptor.hpp's Route names them):
//   1. source leaf  -> which of its U uplinks (spines)          Route::src_leaf_uplink
//   2. (3 tiers, other pod) spine -> which of its Us uplinks     Route::src_spine_uplink
//   3. (3 tiers) core -> which parallel cable down to the
//      destination pod's spine                                   Route::dst_spine_uplink
//   4. spine -> which parallel cable down to the destination leaf Route::dst_leaf_uplink
// A hop with one candidate is no decision. IP addresses are synthetic but unique
// and stable: 10.0.0.0/8 plus the port index ((host * nics_per_host + nic) *
// planes + plane) in the low 24 bits (see nic_ipv4), so hash models see
// realistic, distinct tuples.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::routing {

inline constexpr uint16_t kRoceV2Port = 4791;  // IANA RoCEv2 UDP destination port
inline constexpr uint8_t kUdpProtocol = 17;
// RoCEv2 source ports span 0xC000..0xFFFF: 14 bits of entropy (Linux include/rdma/ib_verbs.h).
inline constexpr uint16_t kSportBase = 0xC000;
inline constexpr int kSportBits = 14;
inline constexpr int kSportCount = 1 << kSportBits;

struct FiveTuple {
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
  uint16_t src_port = kSportBase;
  uint16_t dst_port = kRoceV2Port;
  uint8_t protocol = kUdpProtocol;
  uint32_t dst_qp = 0;  // 24-bit destination QP number (hashed by QP-aware switches)
  friend constexpr bool operator==(const FiveTuple&, const FiveTuple&) = default;
};

// Linux's RoCEv2 source port for a GRH flow label: the 20-bit label folded to 14
// bits, 0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) (include/rdma/ib_verbs.h). A label
// below 0x4000 gives 0xC000 | fl, so every source port has such a label.
[[nodiscard]] constexpr uint16_t sport_from_flow_label(uint32_t flow_label) {
  return static_cast<uint16_t>(kSportBase |
                               ((flow_label & 0x3FFF) ^ ((flow_label & 0xFC000) >> 14)));
}
// The flow label below 0x4000 that produces `sport` (precondition: sport >= 0xC000).
[[nodiscard]] constexpr uint32_t flow_label_for_sport(uint16_t sport) {
  return static_cast<uint32_t>(sport - kSportBase);
}

// The synthetic IPv4 address of a NIC port: 10.<plane*16 + nic/16>.<host/256 ...>.
// Unique for up to 2^16 hosts x 16 NICs x 16 planes; stable across runs.
[[nodiscard]] constexpr uint32_t nic_ipv4(const topology::ClusterDescriptor<>& d, NicPort p) {
  const uint32_t index =
      (static_cast<uint32_t>(p.host.value()) * static_cast<uint32_t>(d.nics_per_host()) +
       static_cast<uint32_t>(p.nic.value())) *
          static_cast<uint32_t>(d.planes()) +
      static_cast<uint32_t>(p.plane.value());
  return (10u << 24) | (index & 0xFFFFFFu);
}

[[nodiscard]] constexpr FiveTuple rocev2_tuple(const topology::ClusterDescriptor<>& d, NicPort src,
                                               NicPort dst, uint16_t sport, uint32_t dst_qp) {
  return {nic_ipv4(d, src), nic_ipv4(d, dst), sport, kRoceV2Port, kUdpProtocol, dst_qp & 0xFFFFFFu};
}

// Where an ECMP decision happens and what it chooses among.
enum class HopKind : uint8_t { kSrcLeafUp, kSrcSpineUp, kCoreDown, kSpineDown };

struct EcmpHop {
  HopKind kind;
  SwitchIndex switch_index;  // global index of the deciding switch in its tier
  int32_t candidates;        // next hops the hash picks among (> 1)
};

// The ECMP decisions, in path order, for flows from port a to port b (empty when
// the two share a leaf or have no network path). The decisions are independent
// of one another: each uplink choice leads to a spine (or core) from which the
// later candidate counts are the same (the wiring is round-robin, see shape.hpp),
// except that the spine and core met depend on the earlier choices — given here
// for the first candidate; use for_each_route for the full set of paths.
RAILYARD_LAZY
[[nodiscard]] std::vector<EcmpHop> ecmp_hops(const topology::ClusterDescriptor<>& d, NicPort a,
                                             NicPort b) {
  std::vector<EcmpHop> hops;
  if (d.path_count(a, b) <= 1) return hops;
  const SwitchIndex la = d.leaf_of(a);
  const SwitchIndex lb = d.leaf_of(b);
  const topology::ClosShape& c = d.shape();
  hops.push_back({HopKind::kSrcLeafUp, la, c.leaf_up_ports});
  const bool cross_pod = d.pod_of_leaf(la) != d.pod_of_leaf(lb);
  const SwitchIndex spine = d.spine_above(la, 0);
  // The spine of the same index above the destination leaf (the same switch
  // unless the flow changes pod).
  const SwitchIndex dst_spine = d.spine_index(d.plane_of_leaf(lb), d.partition_of_leaf(lb),
                                              d.pod_of_leaf(lb), spine.value() % c.spines_per_pod);
  if (cross_pod) {
    hops.push_back({HopKind::kSrcSpineUp, spine, c.spine_up_ports});
    const SwitchIndex core = d.core_above(spine, 0);
    // Parallel cables from that core down to dst_spine.
    int32_t parallel = 0;
    for (int32_t k = 0; k < c.spine_up_ports; ++k) parallel += d.core_above(dst_spine, k) == core;
    if (parallel > 1) hops.push_back({HopKind::kCoreDown, core, parallel});
  }
  // Parallel cables from dst_spine down to the destination leaf.
  int32_t parallel = 0;
  const int32_t s = d.spine_of_uplink(la, 0);
  for (int32_t j = 0; j < c.leaf_up_ports; ++j) parallel += d.spine_of_uplink(lb, j) == s;
  if (parallel > 1) hops.push_back({HopKind::kSpineDown, dst_spine, parallel});
  return hops;
}

// An ECMP hash: which candidate a switch picks for a flow. Implementations
// (hash.hpp): a uniform-random stand-in for unknown vendor hashes, CRC-style
// 5-tuple hashes with per-switch seeds, QP-aware hashing, and measured tables.
// pick() must be deterministic, allocation-free and never throw.
class HashModel {
 public:
  virtual ~HashModel() = default;
  // Index in [0, hop.candidates) chosen at `hop` for the flow `t`.
  [[nodiscard]] virtual int32_t pick(const EcmpHop& hop, const FiveTuple& t) const = 0;
  // A short name for reports ("random", "crc32", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Whether source ports can be chosen to land on a given uplink (false for the
  // random model, which only has expected statistics).
  [[nodiscard]] virtual bool steerable() const = 0;
};

}  // namespace railyard::routing
