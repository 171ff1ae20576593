// railyard/cc/derive.hpp — congestion-control settings derived from the fabric
// and the traffic: base RTT and BDP per path class, ECN marking per egress tier,
// PFC headroom, DCQCN reaction/notification-point parameters (ConnectX names),
// HPCC and UEC NSCC constants, the NCCL environment, and per-QP rate limits that
// hold tenants to their share of an oversubscribed spine. Every value carries its
// inputs and a one-line reason.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   railyard::cc::CcInputs in;
//   in.incast = 8;                                    // senders into one port at once
//   railyard::StatusOr<railyard::cc::CcPlan> plan = railyard::cc::derive_cc(*cluster, in);
//   // plan->ecn[t].kmin_bytes / kmax_bytes / pmax per egress tier, plan->dcqcn (the
//   // values), plan->dcqcn_settings[...] {name (rp_*/np_*), value, unit, reason}:
//   // the recommendation (vendor defaults until cc/recommend.hpp's search says
//   // otherwise); plan->derived_ecn / derived_dcqcn: the rule-derived candidate;
//   // plan->nccl_env[...] {name, value, reason}, plan->pfc {priority, headroom, ...}
//
// Model and rules (assumptions are named; change them in CcInputs):
// * Path classes: same leaf (1 switch), via a spine (3), via a core (5). One way =
//   cables at 5 ns/m (descriptor lengths by tier and medium) + switch_ns per switch
//   + nic_ns at each end + one frame's serialization; RTT = 2 × one way (the CNP
//   or ACK returns the same way); BDP = link rate × RTT.
// * ECN per egress tier (leaf->host, leaf->spine, spine->leaf, spine->core,
//   core->spine), using the longest RTT of the paths that cross it:
//     Kmin = max(0.17 × BDP, 2 frames) — the refined DCTCP threshold (Alizadeh et
//            al., SIGMETRICS'11; docs/constants.md#cc), so a rate cut never drains the queue;
//     Kmax = Kmin + 2 × BDP — the ramp spans two BDPs (capped at the usable
//            buffer; both rounded up to whole KB);
//     Pmax = 2 p*, clamped to [0.01, 1], where p* is the marking probability at
//            which N DCQCN flows sharing the port are in equilibrium (the fixed
//            point of the fluid model below, solved in closed form for α and the
//            rate gap and by bisection for p): the standing queue then sits in the
//            middle of the ramp, Kmin + BDP, for any incast N.
//   An incast of N line-rate senders puts ≈ (N−1) × BDP into the queue before the
//   first CNP acts (docs/models.md#cc); the tier "fits" when Kmin + (N−1) × BDP ≤ buffer
//   − PFC headroom (a lower bound on the peak: validate.hpp runs the whole
//   transient). When it does not, the plan says so and recommends a per-QP rate
//   limit of link / N for that traffic (or accepting PFC pauses).
// * Buffer per port (assumption unless --buffer-mb): the switch's shared buffer
//   (160 MB per 51.2 Tb/s, docs/constants.md#cc, scaled to radix × link rate) under dynamic
//   thresholds with α = 1, where one congested port may hold half of it.
// * PFC headroom (docs/constants.md#pfc): 2 (C·cable + C·interface) + 2 MTU + C·response,
//   with the IEEE 802.3 bounds in bit times — response 201,728 (100G) and 463,360
//   (400G), interface 122,880 (100G) — as tabulated in "How to compute headroom
//   for lossless Ethernet links" (Cisco Press, Storage Networking, ch. 7). A speed
//   between two tabulated ones takes the slower one's time (more headroom); a
//   speed outside 100–400 Gb/s has no published bound here and is an error.
// * The recommendation (plan->ecn, plan->dcqcn, plan->dcqcn_settings) is the
//   vendor defaults: ConnectX DCQCN (docs/constants.md#dcqcn, parameter names of
//   the mlx5 driver's cc_params: rp_* reaction point, np_* notification point)
//   and the switch ECN curve 150 KB / 1,500 KB / 100 % on every tier. On the NIC
//   model (cc/dcqcn_nic.hpp, cc/packet_incast.hpp, validated in
//   docs/cc-validation.md) the defaults absorb an 8:1 line-rate burst without a
//   PFC pause; formula-derived settings can do worse, so they never replace the
//   defaults without the search (cc/recommend.hpp, `railyard cc --simulate`).
// * The rule-derived candidate (plan->derived_ecn, plan->derived_dcqcn): ECN per
//   tier as above; DCQCN with the rate-decrease period 3 base RTTs (≥ 4 µs), the
//   increase timer 20 µs and the additive step 100 Mb/s (50 from incast 32 on),
//   hyper 10× additive — chosen once with the paper's fluid model, whose
//   vendor-default collapse the NIC model does not reproduce.
// * HPCC (Li et al., SIGCOMM'19): η 0.95, maxStage 5, W_init = BDP of the longest
//   path, W_AI = W_init (1 − η) / N, where N is the number of flows sharing a link;
//   railyard takes the incast N, the flows that share the bottleneck port.
// * UEC NSCC (reference simulator uet-htsim, `UecSrc::initNsccParams`,
//   docs/constants.md#nscc): a = BDP / 150 KB; the target is a *queueing*-delay target,
//   by default the network's base RTT (0.75 × it with packet trimming, which RoCE
//   does not have), so target = the longest base RTT and b = target / 12 µs;
//   maxwnd 1.5 BDP, fair increase 5 MSS · a; γ = 0.8 scales the delay excess of a
//   multiplicative decrease, cwnd × max(1 − γ (delay − target) / delay, 0.5), at
//   most once per base RTT.
// * Cables: the descriptor's lengths by tier, or every cable CcInputs::cable_m long
//   (an upper bound: give the longest run) for the RTTs and the PFC headroom alike.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/routing/isolation.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/topology/cluster.hpp"

namespace railyard::cc {

// Published switch buffer: 160 MB shared per 51.2 Tb/s (unconfirmed: docs/constants.md#cc).
inline constexpr double kSharedBufferBytesPerTbps = 160e6 / 51.2;
inline constexpr double kMaxIncast = 65536;
// The largest buffer one port may be given: 10^12 bytes (10^6 MB), thousands of
// times any switch's whole buffer, so only a typo reaches it.
inline constexpr double kMaxBufferBytesPerPort = 1e12;

struct CcInputs {
  int32_t incast = 1;                // line-rate senders into one port at once (>= 1)
  double buffer_bytes_per_port = 0;  // 0 = derived (see the overview)
  double mtu_bytes = 4096;           // RoCE payload MTU
  double frame_overhead_bytes = 62;  // Eth + IP + UDP + BTH + ICRC + FCS (RoCEv2)
  double switch_mtu_bytes = 9216;    // switch port MTU: largest frame in flight (PFC headroom)
  double cable_m = 0;                // > 0: every cable this long (m); 0 = descriptor lengths
  double dt_alpha = 1.0;             // switch dynamic-threshold α (buffer default)
  collective::LatencyModel latency;  // switch / NIC latencies (the one model)
  // Bytes a connection moves per message (e.g. a ring chunk), for the QP count;
  // 0 = NCCL's default buffer (4 MiB).
  double message_bytes = 0;
  // Tenants for per-QP rate limits (optional): placed jobs and the QPs each NIC
  // runs at once.
  std::span<const placement::Allocation> tenants{};
  int32_t qps_per_nic = 0;  // 0 = the QP count derived for NCCL
};

// One derived number with its unit and why.
struct Value {
  std::string name;
  double value = 0;
  std::string unit;
  std::string reason;
};

// One NCCL environment variable.
struct EnvVar {
  std::string name;
  std::string value;
  std::string reason;
  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

struct PathRtt {
  std::string path;  // same_leaf, via_spine, via_core
  int32_t switches = 0;
  double cable_m = 0;  // one way
  double one_way_us = 0;
  double rtt_us = 0;
  double bdp_bytes = 0;
};

struct EcnTier {
  std::string tier;  // egress: leaf->host, leaf->spine, spine->leaf, spine->core, core->spine
  double rtt_us = 0;
  double bdp_bytes = 0;
  double kmin_bytes = 0;
  double kmax_bytes = 0;
  double pmax = 0;
  double equilibrium_p = 0;       // p* for `incast` flows (0: none needed; 1: none exists)
  double incast_burst_bytes = 0;  // (N-1) × BDP
  double buffer_bytes = 0;
  double usable_bytes = 0;  // buffer - PFC headroom
  bool fits = true;
  std::string reason;
};

struct DcqcnParams {
  // Reaction point (sender NIC).
  double g = 0;                   // α gain (dce_tcp_g: g = (1024 - value) / 1024)
  double alpha_period_us = 0;     // dce_tcp_rtt
  double decrease_period_us = 0;  // rate_reduce_monitor_period
  double increase_timer_us = 0;   // rpg_time_reset
  double byte_counter_bytes = 0;  // rpg_byte_reset
  int32_t fast_recovery = 0;      // rpg_threshold
  double ai_mbps = 0;             // rpg_ai_rate
  double hai_mbps = 0;            // rpg_hai_rate
  double min_dec_factor = 0;      // rpg_min_dec_fac (fraction): largest cut per CNP
  double min_rate_mbps = 0;       // rpg_min_rate
  double initial_alpha = 0;       // initial_alpha_value / 1023
  // Target-rate clamping on a cut (ConnectX: clamp_tgt_rate = 0,
  // clamp_tgt_rate_after_time_inc = 1): with clamp_tgt_rate the target rate
  // becomes the current rate on every cut (the paper's rule); otherwise only on
  // the first cut after an increase event when clamp_tgt_rate_after_time_inc.
  bool clamp_tgt_rate = false;                // rp_clamp_tgt_rate
  bool clamp_tgt_rate_after_time_inc = true;  // rp_clamp_tgt_rate_ati
  double rate_on_first_cnp_mbps = 0;          // rate_to_set_on_first_cnp (0: keep the rate)
  int32_t rate_reduce_gd = 11;                // rpg_gd: a cut is α·1024/2^gd (11: α/2)
  // Notification point (receiver NIC).
  double min_time_between_cnps_us = 0;
  int32_t cnp_dscp = 0;
  int32_t cnp_prio = 0;
};

// Priority flow control on the lossless class, per ingress port: the switch
// sends XOFF when the port's bytes of this priority exceed the dynamic threshold
// alpha x (free shared buffer), XON when they fall xon_offset below it; the
// headroom absorbs what is in flight after XOFF.
struct PfcSettings {
  int32_t priority = 3;            // 802.1p priority of RoCE data (DSCP 26)
  double headroom_bytes = 0;       // per ingress port and lossless priority
  double xon_offset_bytes = 0;     // hysteresis between XOFF and XON
  double dynamic_alpha = 1;        // ingress dynamic-threshold alpha
  double shared_buffer_bytes = 0;  // the switch's shared buffer the threshold divides
  double pause_delay_us = 0;       // XOFF leaves the switch -> the upstream port stops
  double last_hop_us = 0;          // the cable: what is on it still arrives
  double cable_m = 0;              // the longest cable the headroom counts (m)
  std::string reason;
};

struct CcPlan {
  double link_gbps = 0;
  int32_t incast = 1;
  double mtu_bytes = 0;
  double frame_bytes = 0;
  std::vector<PathRtt> paths;
  std::vector<EcnTier> ecn;
  double buffer_bytes_per_port = 0;
  std::string buffer_reason;
  double pfc_headroom_bytes = 0;
  std::string pfc_reason;
  PfcSettings pfc;
  // The recommendation: what to configure (ConnectX defaults unless
  // cc/recommend.hpp's search found settings no worse on every metric).
  DcqcnParams dcqcn;
  std::vector<Value> dcqcn_settings;  // ConnectX names with values and reasons
  // The candidates derived by rule from the fabric (ECN per tier, DCQCN), which
  // the search evaluates against the defaults.
  std::vector<EcnTier> derived_ecn;
  DcqcnParams derived_dcqcn;
  std::string recommendation = "vendor defaults (not simulated: railyard cc --simulate searches)";
  std::vector<Value> hpcc;
  std::vector<Value> nscc;
  std::vector<EnvVar> nccl_env;
  std::vector<Value> rate_limits;  // per tenant: kbps per QP (0: no limit needed)
  std::vector<std::string> warnings;
};

// ---------------------------------------------------------------------------
// Defaults and the DCQCN equilibrium.
// ---------------------------------------------------------------------------

// NVIDIA ConnectX defaults (docs/constants.md#dcqcn).
RAILYARD_LAZY
[[nodiscard]] DcqcnParams connectx_default_dcqcn() {
  DcqcnParams p;
  p.g = (1024.0 - 1019.0) / 1024.0;
  p.alpha_period_us = 1;
  p.decrease_period_us = 4;
  p.increase_timer_us = 300;
  p.byte_counter_bytes = 32767;
  p.fast_recovery = 1;
  p.ai_mbps = 5;
  p.hai_mbps = 50;
  p.min_dec_factor = 0.5;
  p.min_rate_mbps = 1;
  p.initial_alpha = 1023.0 / 1024;  // initial_alpha_value 1023 in 1/1024 units
  p.min_time_between_cnps_us = 4;
  p.cnp_dscp = 48;
  p.cnp_prio = 6;
  return p;
}

namespace detail {

// 1 - (1-p)^n for n >= 0, stable for small p.
RAILYARD_LAZY
double any_mark(double p, double n) { return -std::expm1(n * std::log1p(-p)); }
// p / ((1-p)^-n - 1): the rate of increase events per unit of the counter n;
// tends to 1/n as p -> 0.
RAILYARD_LAZY
double event_factor(double p, double n) {
  if (n <= 0) return 0;
  const double denom = std::expm1(-n * std::log1p(-p));
  return denom > 0 ? p / denom : 1.0 / n;
}

}  // namespace detail

// The marking probability p* at which `flows` DCQCN flows sharing a port of
// `link_gbps` hold their rates (fluid model fixed point: dα = dR_T = dR_C = 0 with
// R_C = link / flows). Rates in packets of `packet_bytes`. 0 for one flow (a
// sender at the port's own rate builds no queue); nullopt when no p < 1 balances
// the flows' increases (marking saturates).
RAILYARD_LAZY
[[nodiscard]] std::optional<double> dcqcn_equilibrium_p(const DcqcnParams& q,
                                                               double link_gbps, int32_t flows,
                                                               double packet_bytes) {
  const double R = gbps_to_bytes_per_us(link_gbps) / packet_bytes / static_cast<double>(flows);  // pkts/µs
  const double B = q.byte_counter_bytes / packet_bytes;                            // pkts
  const double T = q.increase_timer_us;
  const double tau = q.decrease_period_us;
  const double tau_a = q.alpha_period_us;
  const double rai = q.ai_mbps * 0.125 / packet_bytes;  // pkts/µs
  const double F = q.fast_recovery;
  // Residual of dR_C = 0 after eliminating α (dα = 0) and the gap R_T - R_C
  // (dR_T = 0); decreasing in p on (0, 1).
  auto residual = [&](double p) {
    const double x = 1 - p;
    const double cut = detail::any_mark(p, tau * R);
    const double alpha = detail::any_mark(p, tau_a * R);
    const double eb = detail::event_factor(p, B), et = detail::event_factor(p, T * R);
    const double up = rai * R * (std::pow(x, F * B) * eb + std::pow(x, F * T * R) * et);
    const double gap = cut > 0 ? tau * up / cut : 0;
    const double increase = 0.5 * gap * R * (eb + et);
    const double decrease = R * alpha / (2 * tau) * cut;
    return increase - decrease;
  };
  if (flows <= 1) return 0.0;
  double lo = 1e-12, hi = 0.999;
  if (residual(lo) <= 0) return lo;
  if (residual(hi) >= 0) return std::nullopt;
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(lo * hi);
    (residual(mid) > 0 ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

namespace detail {

struct PfcBound {
  double gbps;
  double response_bits;
  double interface_bits;
};
// IEEE 802.3 bounds as tabulated (see the overview); interface delay at 400G is
// not tabulated: the 100G time is used (longer, so more headroom).
inline constexpr std::array<PfcBound, 2> kPfcBounds = {
    {{100, 201728, 122880}, {400, 463360, 122880.0 * 4}}};

RAILYARD_LAZY
StatusOr<std::pair<double, double>> pfc_times_ns(double gbps) {
  if (gbps > 400 || gbps < 100)
    return invalid_field("nic_gbps", str_cat(gbps),
                         "no published PFC response bound for this speed (known: 100 to 400 Gb/s)");
  // Slower tabulated speed's time when between entries (more headroom).
  const PfcBound& b = gbps > 100 ? (gbps == 400 ? kPfcBounds[1] : kPfcBounds[0]) : kPfcBounds[0];
  return std::pair<double, double>{b.response_bits / b.gbps, b.interface_bits / b.gbps};
}

RAILYARD_LAZY
std::string kb(double bytes) { return str_cat(std::llround(bytes / 1000.0), " KB"); }
// Four significant digits, for reasons people read.
RAILYARD_LAZY
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace detail

// The DCQCN settings under the names of the mlx5 driver's cc_params
// (debugfs; the same names without rp_/np_ in mlxconfig and sysfs), each with
// `why` as its reason.
RAILYARD_LAZY
[[nodiscard]] std::vector<Value> dcqcn_settings(const DcqcnParams& q, std::string_view why) {
  const std::string w(why);
  return {
      {"rp_rate_reduce_monitor_period", q.decrease_period_us, "us",
       w + ": at most one cut per period, at its end, if a CNP arrived in it"},
      {"rp_time_reset", q.increase_timer_us, "us", w + ": increase timer"},
      {"rp_byte_reset", q.byte_counter_bytes, "bytes", w + ": increase every this many bytes sent"},
      {"rp_threshold", static_cast<double>(q.fast_recovery), "stages",
       w + ": fast-recovery stages of each counter before additive/hyper increase"},
      {"rp_ai_rate", q.ai_mbps, "Mb/s", w + ": additive increase step"},
      {"rp_hai_rate", q.hai_mbps, "Mb/s", w + ": hyper increase step"},
      {"rp_dce_tcp_g", std::round(1024 * (1 - q.g)), "1/1024",
       w + str_cat(": alpha gain g = ", detail::num(q.g), " (reading: weight of the old alpha)")},
      {"rp_dce_tcp_rtt", q.alpha_period_us, "us", w + ": alpha update period"},
      {"rp_initial_alpha_value", std::round(1024 * q.initial_alpha), "1/1024",
       w + ": alpha of a flow's first cut"},
      {"rp_gd", static_cast<double>(q.rate_reduce_gd), "log2",
       w + ": a cut is alpha x 1024 / 2^gd of the rate (11: alpha/2)"},
      {"rp_min_dec_fac", q.min_dec_factor * 100, "%", w + ": a cut keeps at least this much of the rate"},
      {"rp_min_rate", q.min_rate_mbps, "Mb/s", w + ": lowest rate"},
      {"rp_rate_to_set_on_first_cnp", q.rate_on_first_cnp_mbps, "Mb/s",
       w + ": 0 keeps the rate at the first CNP"},
      {"rp_clamp_tgt_rate", q.clamp_tgt_rate ? 1.0 : 0.0, "bool",
       w + ": 0 = the target rate follows the current rate only after an increase"},
      {"rp_clamp_tgt_rate_ati", q.clamp_tgt_rate_after_time_inc ? 1.0 : 0.0, "bool",
       w + ": 1 = a timer increase also counts"},
      {"np_min_time_between_cnps", q.min_time_between_cnps_us, "us",
       w + ": CNP pacing at the receiver (2 us on some firmware)"},
      {"np_cnp_dscp", static_cast<double>(q.cnp_dscp), "", w + ": CNPs on their own class"},
      {"np_cnp_prio", static_cast<double>(q.cnp_prio), "", w + ": 802.1p priority of CNPs"}};
}
// Bounds of the inputs people type (`railyard cc --cable-m/--mtu/--switch-mtu/--switch-ns`).
// Cable length: NVUE's `nv set qos pfc ... cable-length` takes 1..100000 m (docs/cc-config.md).
inline constexpr double kMaxCableM = 100000;
// A switch port MTU above 16 KiB is not an Ethernet switch's (9216 B is the usual most).
inline constexpr double kMaxSwitchMtuBytes = 16384;
// The RoCE MTUs a NIC takes (the InfiniBand path MTUs, IBTA Vol. 1 §7.7.9).
inline constexpr std::array<int32_t, 5> kRoceMtus = {256, 512, 1024, 2048, 4096};

// Derives the plan. Errors (InvalidArgument naming the value): incast < 1 or
// absurd, a buffer smaller than one BDP, an MTU outside [256, 9000], a switch MTU
// below the RoCE frame or above 16384, a cable length outside [0, 100000] m, a
// switch latency outside [0, 100000] ns, a link speed without a PFC bound,
// qps_per_nic < 0.
RAILYARD_LAZY
[[nodiscard]] StatusOr<CcPlan> derive_cc(const topology::Cluster& cluster,
                                                      const CcInputs& in) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  const topology::ClusterSpec& spec = d.spec();
  if (in.incast < 1 || in.incast > kMaxIncast)
    return invalid_field("incast", str_cat(in.incast), "must be in [1, 65536]");
  if (!(in.mtu_bytes >= 256 && in.mtu_bytes <= 9000))
    return invalid_field("mtu_bytes", str_cat(in.mtu_bytes), "must be in [256, 9000]");
  if (in.buffer_bytes_per_port < 0 || !std::isfinite(in.buffer_bytes_per_port))
    return invalid_field("buffer_bytes", str_cat(in.buffer_bytes_per_port), "must be >= 0");
  if (in.buffer_bytes_per_port > kMaxBufferBytesPerPort)
    return invalid_field("buffer_bytes", str_cat(in.buffer_bytes_per_port),
                         "more than 10^12 bytes per port is not a switch buffer");
  if (!(in.dt_alpha > 0 && in.dt_alpha <= 64))
    return invalid_field("dt_alpha", str_cat(in.dt_alpha), "must be in (0, 64]");
  if (in.qps_per_nic < 0)
    return invalid_field("qps_per_nic", str_cat(in.qps_per_nic), "must be >= 0");
  if (!(in.switch_mtu_bytes >= in.mtu_bytes + in.frame_overhead_bytes &&
        in.switch_mtu_bytes <= kMaxSwitchMtuBytes))
    return invalid_field("switch_mtu_bytes", str_cat(in.switch_mtu_bytes),
                         str_cat("must be at least the RoCE frame (", in.mtu_bytes + in.frame_overhead_bytes,
                                 " bytes) and at most ", kMaxSwitchMtuBytes));
  if (!(in.cable_m >= 0 && in.cable_m <= kMaxCableM))
    return invalid_field("cable_m", str_cat(in.cable_m), "must be in [0, 100000] m (0: the cluster's)");
  RAILYARD_RETURN_IF_ERROR(collective::check_latency_model(in.latency));
  if (!(in.message_bytes >= 0) || !std::isfinite(in.message_bytes))
    return invalid_field("message_bytes", str_cat(in.message_bytes), "must be >= 0");
  const double C = spec.nic_gbps;  // every network link runs at the NIC rate
  RAILYARD_ASSIGN_OR_RETURN(const auto pfc_ns, detail::pfc_times_ns(C));

  CcPlan plan;
  plan.link_gbps = C;
  plan.incast = in.incast;
  plan.mtu_bytes = in.mtu_bytes;
  plan.frame_bytes = in.mtu_bytes + in.frame_overhead_bytes;
  const double bytes_per_us = gbps_to_bytes_per_us(C);

  // 1. Path classes.
  auto cable = [&](topology::LinkTier t) { return in.cable_m > 0 ? in.cable_m : d.cable_length_m(t); };
  const double host_leaf_m = cable(topology::LinkTier::kHostLeaf);
  const double leaf_spine_m = cable(topology::LinkTier::kLeafSpine);
  const double spine_core_m = cable(topology::LinkTier::kSpineCore);
  const bool has_spines = cluster.fabric.node_count() > 0 && d.shape().total_spines() > 0;
  const bool has_cores = d.tiers() >= 3 && d.shape().total_cores() > 0;
  auto add_path = [&](std::string name, int32_t switches, double cable_m) {
    PathRtt p;
    p.path = std::move(name);
    p.switches = switches;
    p.cable_m = cable_m;
    p.one_way_us = collective::network_path_latency_us(switches, cable_m, in.latency) +
                   plan.frame_bytes / bytes_per_us;
    p.rtt_us = 2 * p.one_way_us;
    p.bdp_bytes = bytes_per_us * p.rtt_us;
    plan.paths.push_back(std::move(p));
  };
  add_path("same_leaf", 1, 2 * host_leaf_m);
  if (has_spines) add_path("via_spine", 3, 2 * (host_leaf_m + leaf_spine_m));
  if (has_cores) add_path("via_core", 5, 2 * (host_leaf_m + leaf_spine_m + spine_core_m));
  const PathRtt& longest = plan.paths.back();

  // 2. Buffer and PFC headroom.
  const double frame_bits = in.switch_mtu_bytes * 8;
  const double cable_ns_max =
      std::max({host_leaf_m, has_spines ? leaf_spine_m : 0.0, has_cores ? spine_core_m : 0.0}) *
      kCableNsPerMetre;
  plan.pfc_headroom_bytes =
      (2 * (C * cable_ns_max + C * pfc_ns.second) + 2 * frame_bits + C * pfc_ns.first) / 8.0;
  plan.pfc_reason =
      str_cat("2(C*cable + C*interface) + 2 switch MTU + C*response = 2(", C, "Gb/s * ",
              cable_ns_max, " ns + ", C, "Gb/s * ", pfc_ns.second, " ns) + 2 * ",
              in.switch_mtu_bytes, " B (switch MTU) + ", C, "Gb/s * ", pfc_ns.first,
              " ns (IEEE 802.3 bounds; longest cable ", cable_ns_max / kCableNsPerMetre,
              in.cable_m > 0 ? " m, --cable-m)" : " m)");
  if (in.buffer_bytes_per_port > 0) {
    plan.buffer_bytes_per_port = in.buffer_bytes_per_port;
    plan.buffer_reason = "given";
  } else {
    const double tbps = spec.switch_radix * C / 1000.0;
    const double shared = kSharedBufferBytesPerTbps * tbps;
    plan.buffer_bytes_per_port = shared * in.dt_alpha / (1 + in.dt_alpha);
    plan.buffer_reason = str_cat("shared buffer 160 MB per 51.2 Tb/s scaled to ", spec.switch_radix,
                                 " x ", C, " Gb/s = ", detail::kb(shared),
                                 "; one congested port holds alpha/(1+alpha) of it at dynamic "
                                 "threshold alpha=",
                                 in.dt_alpha, " (assumption: set --buffer-mb to your switch)");
  }
  plan.pfc.headroom_bytes = plan.pfc_headroom_bytes;
  plan.pfc.cable_m = cable_ns_max / kCableNsPerMetre;
  plan.pfc.xon_offset_bytes = 2 * in.switch_mtu_bytes;
  plan.pfc.dynamic_alpha = in.dt_alpha;
  plan.pfc.last_hop_us = cable_ns_max / 1000.0;
  plan.pfc.pause_delay_us = (cable_ns_max + pfc_ns.second + pfc_ns.first) / 1000.0;
  plan.pfc.shared_buffer_bytes =
      plan.buffer_bytes_per_port * (1 + in.dt_alpha) / in.dt_alpha;
  plan.pfc.reason = str_cat(
      "lossless priority 3; XOFF when an ingress port holds more than alpha=", in.dt_alpha,
      " x the free shared buffer, XON ", std::llround(plan.pfc.xon_offset_bytes),
      " B (2 switch MTUs) below; headroom ", std::llround(plan.pfc.headroom_bytes),
      " B per port absorbs what is in flight after XOFF");
  if (plan.buffer_bytes_per_port < longest.bdp_bytes)
    return invalid_field("buffer_bytes", str_cat(std::llround(plan.buffer_bytes_per_port)),
                         str_cat("smaller than one BDP (", std::llround(longest.bdp_bytes),
                                 " bytes at ", C, " Gb/s x ", longest.rtt_us, " us)"));
  const double usable = plan.buffer_bytes_per_port - plan.pfc_headroom_bytes;

  // 3. DCQCN: the recommendation is the ConnectX defaults; the rule-derived
  // set is a candidate that search_cc (cc/recommend.hpp) must show to be no
  // worse on the NIC model before it replaces them.
  const DcqcnParams v = connectx_default_dcqcn();
  const double n = in.incast;
  DcqcnParams q = v;
  q.decrease_period_us = std::max(v.decrease_period_us, std::ceil(3 * longest.rtt_us));
  q.increase_timer_us = 20;
  q.ai_mbps = n >= 32 ? 50 : 100;
  q.hai_mbps = 10 * q.ai_mbps;
  plan.derived_dcqcn = q;
  plan.dcqcn = v;
  plan.dcqcn_settings = dcqcn_settings(v, "ConnectX default");

  // 4. ECN per egress tier: the recommendation is the switch vendor's default
  // curve on every tier; the rule-derived curve per tier is a candidate.
  const int32_t flows = in.incast;
  const std::optional<double> p_eq = dcqcn_equilibrium_p(q, C, flows, plan.frame_bytes);
  const double p_star = p_eq.value_or(1.0);
  const std::string pmax_why =
      !p_eq        ? str_cat("Pmax = 1: no marking level balances ", flows,
                             " flows' increases (the fluid model has no equilibrium)")
      : flows <= 1 ? std::string("Pmax = 0.01 (floor): one line-rate sender needs no marking")
                   : str_cat("Pmax = 2 p* (p* = ", detail::num(p_star), " for ", flows,
                             " flows) so the queue settles mid-ramp");
  auto fit = [&](EcnTier& e, const PathRtt& path) {
    e.rtt_us = path.rtt_us;
    e.bdp_bytes = path.bdp_bytes;
    e.incast_burst_bytes = (n - 1) * path.bdp_bytes;
    e.buffer_bytes = plan.buffer_bytes_per_port;
    e.usable_bytes = usable;
    e.fits = e.kmin_bytes + e.incast_burst_bytes <= usable;
  };
  auto add_tier = [&](std::string tier, const PathRtt& path) {
    EcnTier e;
    e.tier = tier;
    e.kmin_bytes =
        std::ceil(std::max(0.17 * path.bdp_bytes, 2 * plan.frame_bytes) / 1000.0) * 1000.0;
    e.kmax_bytes = std::ceil((e.kmin_bytes + 2 * path.bdp_bytes) / 1000.0) * 1000.0;
    e.equilibrium_p = p_star;
    e.pmax = std::clamp(2 * p_star, 0.01, 1.0);
    fit(e, path);
    std::string kmax_why = "Kmax = Kmin + 2 BDP";
    if (e.kmax_bytes > usable) {
      e.kmax_bytes = std::max(e.kmin_bytes + plan.frame_bytes, usable);
      kmax_why =
          str_cat("Kmax = the usable buffer ", detail::kb(usable), " (Kmin + 2 BDP does not fit)");
      e.fits = e.kmin_bytes + e.incast_burst_bytes <= usable;
    }
    e.reason =
        str_cat("candidate: Kmin = max(0.17 BDP, 2 frames), BDP ", detail::kb(path.bdp_bytes), " (",
                path.path, " RTT ", detail::num(path.rtt_us),
                " us, the longest path through this tier); ", kmax_why, "; ", pmax_why,
                "; burst (N-1) BDP = ", detail::kb(e.incast_burst_bytes),
                e.fits ? " fits " : " does NOT fit ", detail::kb(usable), " usable");
    plan.derived_ecn.push_back(e);
    // The recommendation on this tier: the vendor curve.
    const RedMarking vendor = vendor_default_red();
    EcnTier r;
    r.tier = std::move(tier);
    r.kmin_bytes = vendor.kmin_bytes;
    r.kmax_bytes = std::min(vendor.kmax_bytes, std::max(vendor.kmin_bytes + plan.frame_bytes, usable));
    r.pmax = vendor.pmax;
    fit(r, path);
    r.reason = str_cat("NVIDIA switch default (Kmin 150 KB, Kmax 1,500 KB, 100 %); burst (N-1) BDP = ",
                       detail::kb(r.incast_burst_bytes), r.fits ? " fits " : " does NOT fit ",
                       detail::kb(usable), " usable");
    plan.ecn.push_back(std::move(r));
  };
  add_tier("leaf->host", longest);
  if (has_spines) {
    add_tier("leaf->spine", longest);
    add_tier("spine->leaf", longest);
  }
  if (has_cores) {
    add_tier("spine->core", plan.paths.back());
    add_tier("core->spine", plan.paths.back());
  }
  for (const EcnTier& e : plan.ecn)
    if (!e.fits) {
      plan.warnings.push_back(
          str_cat(e.tier, ": an incast of ", in.incast, " line-rate senders (",
                  detail::kb(e.incast_burst_bytes), " in the first RTT) exceeds the ",
                  detail::kb(e.usable_bytes), " a port can hold before PFC; limit each sender to ",
                  C / n,
                  " Gb/s for this traffic (a per-QP rate limit: ibv_modify_qp_rate_limit, "
                  "ibv_qp_rate_limit_attr.rate_limit in kb/s, set by the program that owns the "
                  "QP; NCCL has no variable for it) or expect pauses"));
      break;
    }

  // 5. HPCC and NSCC.
  const double bdp = longest.bdp_bytes;
  plan.hpcc = {{"eta", 0.95, "", "HPCC paper: target 95% utilization"},
               {"max_stage", 5, "", "HPCC paper"},
               {"w_init", bdp, "bytes", str_cat("BDP of the longest path (", longest.path, ")")},
               {"w_ai", bdp * (1 - 0.95) / n, "bytes",
                str_cat("W_init (1 - eta) / N, N = flows sharing a link: the incast ", in.incast,
                        " (the flows on the bottleneck port)")}};
  // uet-htsim UecSrc::initNsccParams: _target_Qdelay = the network RTT (x 0.75 with
  // trimming) unless configured; _scaling_factor_b = _target_Qdelay / 12 us.
  const double target_us = longest.rtt_us;
  const double a = bdp / 150e3;
  plan.nscc = {
      {"a", a, "", "BDP / 150 KB (UEC reference network: 100 Gb/s x 12 us)"},
      {"target_delay", target_us, "us",
       str_cat("queueing-delay target = base RTT of ", longest.path,
               " (uet-htsim initNsccParams default; 0.75 x RTT only with packet trimming)")},
      {"b", target_us / 12.0, "", "target queueing delay / 12 us (reference RTT)"},
      {"maxwnd", 1.5 * bdp, "bytes", "1.5 BDP"},
      {"fair_increase", 5 * in.mtu_bytes * a, "bytes", "5 MSS x a"},
      {"md_factor", 0.8, "",
       "gamma: a decrease cuts cwnd x max(1 - 0.8 (delay - target) / delay, 0.5), at most once "
       "per base RTT (uet-htsim multiplicative_decrease); 0.8 is not the cut itself"}};

  // 6. NCCL environment.
  const int32_t uplinks = d.shape().leaf_up_ports;
  const bool multipath = has_spines && uplinks > 1;
  const double message = in.message_bytes > 0 ? in.message_bytes : 4.0 * (1 << 20);
  const int32_t by_size = static_cast<int32_t>(std::max(1.0, std::floor(message / (512.0 * 1024))));
  const int32_t qps = multipath ? std::clamp(std::min(uplinks, by_size), 1, 16) : 1;
  auto env = [&](std::string name, std::string value, std::string reason) {
    plan.nccl_env.push_back({std::move(name), std::move(value), std::move(reason)});
  };
  env("NCCL_IB_QPS_PER_CONNECTION", str_cat(qps),
      multipath ? str_cat("spread each connection over min(", uplinks, " leaf uplinks, message ",
                          std::llround(message), " B / 512 KB per QP) paths, at most 16")
                : "one path between NICs: more QPs cannot add paths");
  env("NCCL_IB_SPLIT_DATA_ON_QPS", qps > 1 ? "1" : "0",
      qps > 1 ? "every message spread over all QPs (with 0 a message rides one QP)"
              : "one QP per connection");
  env("NCCL_IB_ADAPTIVE_ROUTING", multipath ? "1" : "0",
      multipath ? "several equal paths between leaves: let switches with adaptive routing use "
                  "them (needs AR on the switches)"
                : "no alternative paths");
  env("NCCL_IB_TC", "106",
      "DSCP 26 (the lossless RoCE class, priority 3) << 2 | ECT(0); CNPs use DSCP 48");
  env("NCCL_CROSS_NIC", spec.kind == topology::Kind::kTorFatTree ? "2" : "0",
      spec.kind == topology::Kind::kTorFatTree
          ? "all NICs share one ToR: rings may change NICs freely (NCCL default)"
      : spec.kind == topology::Kind::kRailOnly
          ? "rail-only: rails never meet in the network; keep each ring on one rail"
          : "rail-optimized: keep each ring on one rail; rails meet only at the spine");
  {
    std::string hca = "=";
    for (int32_t nic = 0; nic < d.nics_per_host(); ++nic)
      for (int32_t p = 0; p < d.planes(); ++p)
        str_append(hca, hca.size() > 1 ? "," : "", "mlx5_", nic * d.planes() + p, ":", p + 1, ":",
                   nic, ":", p);
    env("NCCL_IB_HCA", hca,
        "exact NIC list name:port:rail:plane (NCCL >= 2.30), names as in railyard's topology XML");
  }
  env("NCCL_MIN_NCHANNELS", str_cat(d.nics_per_host() * d.planes()),
      "one ring per NIC port so that every NIC carries a ring (as railyard's simulator assumes)");

  // 7. Per-QP rate limits for tenants.
  if (!in.tenants.empty()) {
    std::vector<std::vector<routing::Flow>> jflows;
    for (const placement::Allocation& job : in.tenants)
      jflows.push_back(routing::ring_flows(job, d, 64e6));
    const routing::SpinePartition part = routing::partition_spines(d, in.tenants, jflows);
    if (!part.ok) {
      plan.warnings.push_back(str_cat("no spine partition for the tenants: ", part.reason));
    } else {
      const int32_t per_nic = in.qps_per_nic > 0 ? in.qps_per_nic : qps;
      for (const routing::TenantLanes& t : part.tenants) {
        if (t.spine_lanes.empty()) continue;
        // The tenant owns |lanes| uplinks on every leaf; its NICs on a leaf share them.
        std::unordered_map<int32_t, int32_t> nics_on_leaf;
        int32_t most = 0;
        for (const placement::Allocation& job : in.tenants) {
          if (routing::tenant_of(job) != t.tenant) continue;
          for (HostId h : job.hosts)
            for (int32_t r = 0; r < d.rails(); ++r)
              most = std::max(most, ++nics_on_leaf[d.leaf_of(h, RailId{r}, PlaneId{0}).value()]);
        }
        const int32_t nics = std::max(1, most);
        const double share = static_cast<double>(t.spine_lanes.size()) * C / nics;
        if (share >= C) {
          plan.rate_limits.push_back(
              {t.tenant, 0, "kbps",
               str_cat(t.spine_lanes.size(), " spine lanes x ", C, " Gb/s over up to ", nics,
                       " NICs per leaf >= line rate: no limit needed")});
          continue;
        }
        const double per_qp_kbps = std::floor(share * 1e6 / per_nic);
        plan.rate_limits.push_back(
            {t.tenant, per_qp_kbps, "kbps",
             str_cat(t.spine_lanes.size(), " spine lanes x ", C, " Gb/s over up to ", nics,
                     " NICs per leaf = ", detail::num(share), " Gb/s per NIC, / ", per_nic,
                     " QPs sending at once per NIC; set per QP with ibv_modify_qp_rate_limit "
                     "(ibv_qp_rate_limit_attr.rate_limit, kb/s) by the program that owns the QP "
                     "(NCCL has no variable for it); set qps_per_nic to QPs x peers for "
                     "all-to-all")});
      }
    }
  }
  return plan;
}

}  // namespace railyard::cc
