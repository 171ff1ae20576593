// railyard/cc/dcqcn_fluid.hpp — the DCQCN fluid model: N senders into one
// bottleneck port, integrated as delay-differential equations, to check
// congestion-control parameters (queue peak, utilization, fairness, settling)
// before they reach a fabric.
//
//   using namespace railyard::cc;
//   const FluidScenario s{.senders = 8, .line_gbps = 400, .bottleneck_gbps = 400,
//                         .feedback_delay_us = 10, .duration_us = 20'000};
//   const DcqcnModelParams cc = vendor_default_dcqcn();
//   const RedMarking red = vendor_default_red();
//   railyard::StatusOr<FluidResult> r = simulate_dcqcn(cc, red, s);
//   // r->peak_queue_bytes, r->second_half.utilization, r->convergence_us, r->trace
//   railyard::StatusOr<DcqcnFixedPoint> eq = dcqcn_fixed_point(cc, red, s);  // eq->queue_bytes
//
// The model (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015; its delay-differential form in Zhu, Ghobadi, Misra, Padhye,
// "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT
// 2016). The papers' text was not available to check; the equations below were
// checked term by term against the MATLAB fluid model in co-author J. Padhye's
// repository, github.com/jitupadhye-zz/rdma, fluidmodel/dcqcn/dcqcn2.m and
// fluid2_test.m (dde23 over the same right-hand side). Per flow i: current rate
// R_C, target rate R_T, α; one queue q; p = RED(q(t − τ*)), R' = R_C^i(t − τ*):
//
//   a   = 1 − (1 − p)^{τ·R'}         P(a CNP in one rate-decrease period τ)
//   evB = R'·p / ((1 − p)^{−B} − 1)   byte-counter increase events per µs
//   evT = R'·p / ((1 − p)^{−T·R'} − 1) timer increase events per µs
//   dα/dt   = (g/τ')·((1 − (1 − p)^{τ'·R'}) − α)
//   dR_T/dt = −(R_T − R_C)·a/τ + R_AI·(evB·(1 − p)^{F·B} + evT·(1 − p)^{F·T·R'})
//   dR_C/dt = −R_C·δ·a/τ + ((R_T − R_C)/2)·(evB + evT),   δ = min(α/2, c_max)
//   dq/dt   = Σ_i R_C^i − C            (q ≥ 0: at q = 0 the queue stays empty)
//
// (1 − p)^{F·B} is the chance that the byte counter got through its F
// fast-recovery stages unmarked, so the R_AI terms are additive increase after
// fast recovery. δ is the cut per decrease event, α/2 in the papers; c_max
// (DcqcnModelParams::max_cut_fraction, ConnectX rpg_min_dec_fac) bounds it as
// the NIC does, and at its default 0.5 never binds (α ≤ 1), leaving the
// published model. That model has no hyper-increase term: R_HAI is kept in
// DcqcnModelParams as part of a vendor profile but does not enter the equations.
//
// Units. Marks are per packet, so the exponents count packets: internally
// rates are packets/µs, B and q are packets (bytes / packet_bytes), times µs.
// At the API rates are Gb/s (Mb/s for R_AI, R_HAI, the minimum rate), sizes
// bytes (KB = 1000 bytes), times µs. packet_bytes matters: at a fixed byte
// rate the fixed-point marking probability scales with it.
//
// Numerics. With L = −log1p(−p), (1 − p)^n = exp(−n·L); a, 1 − (1 − p)^{τ'R'}
// use expm1, and the 0/0 forms are rewritten as evB = R'·ψ(p)·φ(B·L)/B and
// evT = ψ(p)·φ(T·R'·L)/T with ψ(p) = p/L and φ(y) = y/expm1(y), both → 1 (so
// evB → R'/B and evT → 1/T as p → 0, and evT stays finite as R' → 0); p = 0
// and p = 1 are exact special cases (detail::dcqcn_coefficients). Integration
// is Heun's method (explicit trapezoid, 2nd order) on a fixed step dt that
// divides τ* exactly, so both stages read the delayed R_C and q from a ring
// buffer of the last τ*/dt + 1 grid points without interpolation; the
// coefficients at t_{n+1} computed for stage 2 are reused as stage 1 of the
// next step. After each stage R_C, R_T are clamped to [min rate, line rate]
// and α to [0, 1]. The automatic step is dt = min(0.1/λ, τ*/10), λ = the
// fastest relaxation rate of the equations, max(1/τ, g/τ', (R_line/B + 1/T)/2);
// e.g. 0.13 µs for the vendor defaults at 400 Gb/s with 4 KB packets.
//
// Bytes. Each flow sends the trapezoid of its rate over a step; the queue is
// q_{n+1} = max(0, q_n + sent − C·dt) and delivered = q_n + sent − q_{n+1} (≤ C·dt),
// so sent = delivered + final queue exactly (up to rounding). The queue is not
// capped: PFC pauses and drops are not modelled; buffer_bytes is only compared
// with the queue (exceeded_buffer). Before t = 0 nothing was sent and the queue
// was empty (so the first CNPs arrive after τ*). A flow starts at the first
// grid time ≥ its start offset with R_C = R_T = start fraction · line rate
// and α = initial_alpha (a new QP starts at line rate: fraction 1).
//
// Flows with the same start offset and start rate follow the same trajectory
// exactly, so by default they are integrated once, weighted by their count
// (FluidScenario::merge_identical_flows); N identical senders cost one flow.
// Cost: O(steps · distinct flows) with 3 expm1 per distinct flow per step
// while marking (p > 0); memory O((τ*/dt) · distinct flows + trace). Measured
// (Release, one core): 8:1 incast at 400 Gb/s for 20 ms (154,000 steps) takes
// 4 ms; 256 senders with 256 distinct starts, 20 ms: 0.41 s, 0.65 s when
// marking never stops.
//
// Not modelled: PFC (pauses and drops), hyper increase, ConnectX's
// clamp_tgt_rate(_after_time_inc), more than one bottleneck, per-packet
// burstiness. Because ConnectX uses F = 1 its recovery after deep cuts relies
// on hyper increase in hardware, so for the vendor profile the model's
// recovery is slower than a NIC's (a pessimistic bound on utilization after a
// collapse).
//
// Errors (absl::InvalidArgumentError) name the field and value, e.g.
// "senders=0: must be in [1, 1048576]", "kmin_bytes=300000: must be <=
// kmax_bytes=200000", "pmax=1.5: must be in (0, 1]", "dt_us=-1: must be a finite
// number > 0", "duration_us=1000000000: needs 10000000000 steps of 0.1 us, more
// than 200000000".
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"

namespace railyard::cc {

// Switch ECN marking, the RED curve: probability 0 for q ≤ kmin, rising
// linearly to pmax at kmax, 1 above kmax. kmin == kmax gives a step (DCTCP-
// style threshold). Defaults: vendor_default_red().
struct RedMarking {
  double kmin_bytes = 150'000;
  double kmax_bytes = 1'500'000;
  double pmax = 1.0;  // in (0, 1]
};

// Reaction-point (sender NIC) parameters as the fluid model uses them.
// Defaults: vendor_default_dcqcn(). (derive.hpp's DcqcnParams carries the same
// settings under ConnectX names plus the notification point; model_params()
// converts.)
struct DcqcnModelParams {
  double g = 5.0 / 1024;                 // α gain: α ← (1 − g)α + g on a CNP
  double alpha_period_us = 1;            // τ': α update period
  double rate_decrease_period_us = 4;    // τ: at most one decrease (CNP) per τ
  double rate_increase_timer_us = 300;   // T
  double byte_counter_bytes = 32'767;    // B
  int32_t fast_recovery_steps = 1;       // F
  double rai_mbps = 5;                   // additive increase step R_AI
  double rhai_mbps = 50;                 // hyper increase step (not in the model)
  double min_rate_mbps = 1;              // rates never fall below this
  double initial_alpha = 1023.0 / 1024;  // α of a new flow
  double max_cut_fraction = 0.5;         // c_max: largest cut per decrease, (0, 1]
};

// NVIDIA ConnectX (CX-4 and later) firmware defaults, docs/constants.md#dcqcn, as the
// fluid model's parameters:
//   g = 1 − dce_tcp_g/1024 = 5/1024 ≈ 1/205 (α ← (dce_tcp_g/1024)·α + (1 − dce_tcp_g/1024)
//     on a CNP), τ' = dce_tcp_rtt = 1 µs, initial α = initial_alpha_value/1024 =
//     1023/1024, τ = rate_reduce_monitor_period = 4 µs, min rate rpg_min_rate =
//     1 Mb/s; rpg_gd = 11 (decrease by α/2) and rpg_min_dec_fac = 50 (the new
//     rate is at least 50% of the old: c_max = 1 − 50/100 = 0.5, which α/2 ≤ 0.5
//     never exceeds).
//     Confirmed: https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters
//   T = rpg_time_reset = 300 µs, B = rpg_byte_reset = 32,767 B, F =
//     rpg_threshold = 1, R_AI = rpg_ai_rate = 5 Mb/s, R_HAI = rpg_hai_rate =
//     50 Mb/s. Confirmed only in an `mlxconfig -q` listing of a ConnectX NIC's
//     firmware defaults quoted in a public mailing-list thread (the DOCA
//     page's rate-increase table was not in the stored copy). That listing
//     has min_time_between_cnps = 2 µs (derive.hpp uses 4): either way the RP
//     decreases at most once per rate_reduce_monitor_period = 4 µs, so τ = 4 µs.
//   Not modelled: clamp_tgt_rate_after_time_inc (default on) and hyper increase.
RAILYARD_LAZY
[[nodiscard]] DcqcnModelParams vendor_default_dcqcn() { return DcqcnModelParams{}; }

// The SIGCOMM'15 parameter set (40 Gb/s): g = 1/256, τ' = 55 µs, τ = 50 µs,
// T = 55 µs, B = 10 MB, F = 5, R_AI = 40 Mb/s; α starts at 1 (docs/constants.md#dcqcn);
// confirmed against the authors' MATLAB fluid model
// (github.com/jitupadhye-zz/rdma, fluidmodel/dcqcn/dcqcn2.m: tau = 50e-6,
// tauprime = 55e-6, timer = 55e-6, B = 10 MB, F = 5, Rai = 40 Mb/s, g = 1/256,
// initial α = 1). R_HAI is not part of that model; 0 here. The minimum rate
// is not given there; 1 Mb/s as on ConnectX.
RAILYARD_LAZY
[[nodiscard]] DcqcnModelParams paper_dcqcn() {
  return DcqcnModelParams{.g = 1.0 / 256,
                          .alpha_period_us = 55,
                          .rate_decrease_period_us = 50,
                          .rate_increase_timer_us = 55,
                          .byte_counter_bytes = 10e6,
                          .fast_recovery_steps = 5,
                          .rai_mbps = 40,
                          .rhai_mbps = 0,
                          .min_rate_mbps = 1,
                          .initial_alpha = 1.0,
                          .max_cut_fraction = 0.5};
}

struct DcqcnParams;  // railyard/cc/derive.hpp: the same settings under ConnectX names

// The fluid model's parameters from a derived DCQCN configuration (derive.hpp's
// DcqcnParams, e.g. CcPlan::dcqcn or connectx_default_dcqcn()): τ is the longer
// of the RP's rate-decrease period and the NP's minimum CNP spacing (a flow
// gets at most one CNP per spacing); c_max = min_dec_factor, which derive.hpp
// documents as the largest cut per CNP. A template only so that this header
// does not need derive.hpp: call it with derive.hpp included.
template <class Derived>
requires std::same_as<Derived, DcqcnParams>
[[nodiscard]] DcqcnModelParams model_params(const Derived& p) {
  DcqcnModelParams m;
  m.g = p.g;
  m.alpha_period_us = p.alpha_period_us;
  m.rate_decrease_period_us = std::max(p.decrease_period_us, p.min_time_between_cnps_us);
  m.rate_increase_timer_us = p.increase_timer_us;
  m.byte_counter_bytes = p.byte_counter_bytes;
  m.fast_recovery_steps = p.fast_recovery;
  m.rai_mbps = p.ai_mbps;
  m.rhai_mbps = p.hai_mbps;
  m.min_rate_mbps = p.min_rate_mbps;
  m.initial_alpha = p.initial_alpha;
  m.max_cut_fraction = p.min_dec_factor;
  return m;
}

// NVIDIA switch ECN defaults for the RoCE traffic class: Kmin 150 KB, Kmax
// 1,500 KB (docs/constants.md#dcqcn; Onyx "show roce": "Mode: ecn, absolute  Min: 150
// Max: 1500", docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands),
// and Pmax = 1.0: Cumulus Linux on Spectrum ships default_ecn_conf with
// min_threshold_bytes = 150000, max_threshold_bytes = 1500000, probability =
// 100 (percent; "The default is 100", Cumulus Linux user guide, Quality of
// Service, docs.nvidia.com/networking-ethernet-software/). Onyx exposes no
// probability at all. With Pmax = 1 the curve is continuous at Kmax.
RAILYARD_LAZY
[[nodiscard]] RedMarking vendor_default_red() { return RedMarking{}; }

// The SIGCOMM'15 switch setting: Kmin 5 KB, Kmax 200 KB, Pmax 1% (same MATLAB
// model as paper_dcqcn()).
RAILYARD_LAZY
[[nodiscard]] RedMarking paper_red() {
  return RedMarking{.kmin_bytes = 5'000, .kmax_bytes = 200'000, .pmax = 0.01};
}

// Marking probability of the RED curve at queue `q_bytes` (any units, as long
// as `red` uses the same). Precondition: `red` valid (validate_red()).
RAILYARD_LAZY
[[nodiscard]] double red_probability(const RedMarking& red, double q_bytes) {
  if (q_bytes <= red.kmin_bytes) return 0.0;
  if (q_bytes <= red.kmax_bytes) {
    return red.pmax * (q_bytes - red.kmin_bytes) / (red.kmax_bytes - red.kmin_bytes);
  }
  return 1.0;
}

// One bottleneck port shared by `senders` flows (one per sender NIC).
struct FluidScenario {
  int32_t senders = 8;
  double line_gbps = 400;         // each sender's NIC: R_C, R_T ≤ line rate
  double bottleneck_gbps = 400;   // C
  double feedback_delay_us = 10;  // τ*: mark → CNP → sender, about the base RTT
  double buffer_bytes = std::numeric_limits<double>::infinity();  // only reported
  double packet_bytes = 4096;  // bytes per marked unit (RoCE MTU)
  double duration_us = 10'000;
  std::optional<double> dt_us = {};  // integration step; empty = automatic
  double start_rate_fraction = 1.0;  // R_C(0) = R_T(0) as a fraction of line rate, (0, 1]
  // Optional per-flow start offsets (µs, ≥ 0) and start rate fractions; empty
  // = every flow at t = 0 with start_rate_fraction. Sizes must equal senders.
  std::vector<double> start_us = {};
  std::vector<double> start_rate_fractions = {};
  int32_t trace_points = 1000;  // samples in FluidResult::trace: 0 or >= 2
  int32_t traced_flows = 4;     // flows 0..traced_flows-1 get a rate trace
  // Integrate flows with equal (start offset, start rate) once (exact).
  bool merge_identical_flows = true;
};

// Sampled trajectory: trace_points instants evenly spaced over the run (grid
// times nearest to i·duration/(points − 1)), instantaneous values.
struct FluidTrace {
  std::vector<double> t_us;
  std::vector<double> queue_bytes;
  std::vector<double> total_gbps;              // Σ R_C
  std::vector<int32_t> flows;                  // traced flow indices
  std::vector<std::vector<double>> flow_gbps;  // [traced flow][sample] R_C
};

struct FluidAverages {
  double queue_bytes = 0;          // time average of q
  double utilization = 0;          // delivered / (C · time)
  double alpha = 0;                // time and flow average of α (unstarted flows: 0)
  double marking_probability = 0;  // time average of p(q(t))
  double jain_fairness = 0;        // (Σx)² / (N Σx²) over the flows' mean rates
  std::vector<double> flow_gbps;   // per flow: mean R_C (bytes sent / time)
};

struct FluidResult {
  double dt_us = 0;   // step used (divides τ* exactly)
  int64_t steps = 0;  // simulated time = steps · dt_us
  double simulated_us = 0;
  int32_t distinct_flows = 0;  // trajectories integrated
  double peak_queue_bytes = 0;
  double peak_queue_us = 0;  // first time the peak is reached
  double final_queue_bytes = 0;
  bool exceeded_buffer = false;  // q > buffer_bytes at some grid time
  double sent_bytes = 0;         // = delivered_bytes + final_queue_bytes
  double delivered_bytes = 0;
  double utilization = 0;      // delivered / (C · simulated_us), whole run
  double marked_fraction = 0;  // marked / sent packets (marked on arrival at p(q(t)))
  double fair_share_gbps = 0;  // min(line rate, C / senders)
  // Settling time: the first grid time from which every flow's R_C stays
  // within ±5% of fair_share_gbps until the end of the run (0 if it always
  // was; empty if the last grid time is still outside the band, including
  // flows not yet started).
  std::optional<double> convergence_us;
  FluidAverages second_half;  // averages over [simulated_us/2, simulated_us]
  FluidTrace trace;
};

// The model's equilibrium for `scenario` with every flow at R_C = fair share:
// dα/dt = 0 gives α* = 1 − (1 − p)^{τ'R*}; dR_T/dt = 0 and dR_C/dt = 0 give
// R_T* − R* = τ·R_AI·(evB·(1−p)^{FB} + evT·(1−p)^{FTR*})/a and
// 2R*·δ·a = τ·(R_T* − R*)·(evB + evT), δ = min(α*/2, c_max); eliminating R_T*
// leaves one equation in p, increasing in p, solved by bisection; q* inverts
// the RED slope. Assumes the R_T ≤ line-rate cap does not bind at R_T*.
struct DcqcnFixedPoint {
  bool congested = false;     // senders·line > C; otherwise p* = 0, q* = 0
  bool on_red_slope = false;  // p* ≤ pmax: q* in [kmin, kmax]; else q* = kmax
  double marking_probability = 0;
  double queue_bytes = 0;
  double alpha = 0;
  double rate_gbps = 0;         // R_C* = fair share
  double target_rate_gbps = 0;  // R_T*
};

namespace detail {

inline constexpr int64_t kDcqcnMaxSteps = 200'000'000;
inline constexpr int64_t kDcqcnMaxDelayEntries = int64_t{1} << 24;  // ring buffer doubles
inline constexpr int32_t kDcqcnMaxTracePoints = 1'000'000;
inline constexpr int32_t kDcqcnMaxSenders = 1 << 20;
inline constexpr double kDcqcnBand = 0.05;  // convergence band, ±5%

// Bytes per µs carried by one Mb/s.
inline constexpr double kBytesPerUsPerMbps = 0.125;

// The model's parameters in packets and µs.
struct DcqcnUnits {
  double pkt = 0;                       // bytes per packet
  double cap = 0;                       // C, packets/µs
  double line = 0;                      // packets/µs
  double min_rate = 0;                  // packets/µs
  double rai = 0;                       // packets/µs per increase event
  double b = 0;                         // byte counter, packets
  double kmin = 0, kmax = 0, pmax = 0;  // packets, packets, probability
  double tau = 0, tau_p = 0, timer = 0, g = 0;
  double max_cut = 0.5;
  int32_t f = 0;
};

RAILYARD_LAZY
DcqcnUnits dcqcn_units(const DcqcnModelParams& p, const RedMarking& red,
                              const FluidScenario& s) {
  DcqcnUnits u;
  u.pkt = s.packet_bytes;
  u.cap = gbps_to_bytes_per_us(s.bottleneck_gbps) / u.pkt;
  u.line = gbps_to_bytes_per_us(s.line_gbps) / u.pkt;
  u.min_rate = p.min_rate_mbps * kBytesPerUsPerMbps / u.pkt;
  u.rai = p.rai_mbps * kBytesPerUsPerMbps / u.pkt;
  u.b = p.byte_counter_bytes / u.pkt;
  u.kmin = red.kmin_bytes / u.pkt;
  u.kmax = red.kmax_bytes / u.pkt;
  u.pmax = red.pmax;
  u.tau = p.rate_decrease_period_us;
  u.tau_p = p.alpha_period_us;
  u.timer = p.rate_increase_timer_us;
  u.g = p.g;
  u.max_cut = p.max_cut_fraction;
  u.f = p.fast_recovery_steps;
  return u;
}

// y / expm1(y) for y ≥ 0 (→ 1 at 0, → 0 at +inf), given m = −expm1(−y).
RAILYARD_LAZY
double dcqcn_phi(double y, double m) {
  if (y < 1e-8) return 1.0 - 0.5 * y;
  return y * (1.0 - m) / m;  // y·e^{−y}/(1 − e^{−y})
}

RAILYARD_LAZY
double dcqcn_pow_int(double x, int32_t n) {
  double r = 1.0;
  for (; n > 0; n >>= 1, x *= x)
    if (n & 1) r *= x;
  return r;
}

// What one flow's right-hand side needs from the marking probability p and its
// delayed rate R' (packets/µs): the four coefficients
//   a = 1 − (1−p)^{τR'}, alpha_target = 1 − (1−p)^{τ'R'},
//   ev_sum = evB + evT, ev_ai = evB·(1−p)^{FB} + evT·(1−p)^{FTR'}.
struct DcqcnCoef {
  double a = 0, alpha_target = 0, ev_sum = 0, ev_ai = 0;
};

// The parts that depend on p only (shared by every flow at one instant).
struct DcqcnShared {
  double p = 0;
  double l = 0;           // −log1p(−p)
  double psi = 1;         // p / l
  double ev_b_per_r = 0;  // evB / R'
  double fr_b = 1;        // (1 − p)^{F·B}
};

RAILYARD_LAZY
DcqcnShared dcqcn_shared(const DcqcnUnits& u, double p) {
  DcqcnShared s;
  s.p = p;
  if (p <= 0) {
    s.ev_b_per_r = 1.0 / u.b;
    return s;
  }
  if (p >= 1) {
    s.l = std::numeric_limits<double>::infinity();
    s.psi = 0;
    s.ev_b_per_r = 0;
    s.fr_b = 0;
    return s;
  }
  s.l = -std::log1p(-p);
  s.psi = p / s.l;
  const double yb = u.b * s.l;
  s.ev_b_per_r = s.psi * dcqcn_phi(yb, -std::expm1(-yb)) / u.b;
  s.fr_b = std::exp(-static_cast<double>(u.f) * yb);
  return s;
}

RAILYARD_LAZY
DcqcnCoef dcqcn_coefficients(const DcqcnUnits& u, const DcqcnShared& s, double r) {
  DcqcnCoef c;
  if (s.p <= 0) {
    c.ev_sum = c.ev_ai = r / u.b + 1.0 / u.timer;
    return c;
  }
  if (s.p >= 1) {
    c.a = c.alpha_target = r > 0 ? 1.0 : 0.0;
    return c;
  }
  const double x = r * s.l;
  c.a = -std::expm1(-u.tau * x);
  c.alpha_target = -std::expm1(-u.tau_p * x);
  const double y = u.timer * x;
  const double m = -std::expm1(-y);  // 1 − e^{−y}
  const double ev_b = r * s.ev_b_per_r;
  const double ev_t = s.psi * dcqcn_phi(y, m) / u.timer;
  c.ev_sum = ev_b + ev_t;
  c.ev_ai = ev_b * s.fr_b + ev_t * dcqcn_pow_int(1.0 - m, u.f);
  return c;
}


RAILYARD_LAZY
Status dcqcn_positive(std::string_view key, double v) {
  if (!(v > 0) || !std::isfinite(v)) {
    return invalid_field(key, number_text(v), "must be a finite number > 0");
  }
  return ok_status();
}
RAILYARD_LAZY
Status dcqcn_non_negative(std::string_view key, double v) {
  if (!(v >= 0) || !std::isfinite(v)) {
    return invalid_field(key, number_text(v), "must be a finite number >= 0");
  }
  return ok_status();
}

// The automatic step before snapping to τ*/m.
RAILYARD_LAZY
double dcqcn_auto_dt(const DcqcnUnits& u, double feedback_delay_us) {
  const double lambda =
      std::max({1.0 / u.tau, u.g / u.tau_p, 0.5 * (u.line / u.b + 1.0 / u.timer)});
  return std::min(0.1 / lambda, feedback_delay_us / 10.0);
}

}  // namespace detail

// One flow's state and the model's right-hand side for it, in API units.
struct DcqcnFlowState {
  double rc_gbps = 0;  // R_C
  double rt_gbps = 0;  // R_T
  double alpha = 0;
};
struct DcqcnDerivatives {
  double rc_gbps_per_us = 0;  // dR_C/dt
  double rt_gbps_per_us = 0;  // dR_T/dt
  double alpha_per_us = 0;    // dα/dt
};

// The equations of the overview at one instant: marking probability `p` (of
// the delayed queue) and the flow's delayed rate R' = `delayed_rc_gbps`, with
// marks counted per `packet_bytes`. No clamping. Preconditions: `params` valid
// (validate_dcqcn()), packet_bytes > 0, p in [0, 1], rates ≥ 0. O(1).
RAILYARD_LAZY
[[nodiscard]] DcqcnDerivatives dcqcn_derivatives(const DcqcnModelParams& params,
                                                        double packet_bytes,
                                                        const DcqcnFlowState& now,
                                                        double delayed_rc_gbps, double p) {
  FluidScenario s;
  s.packet_bytes = packet_bytes;
  const detail::DcqcnUnits u = detail::dcqcn_units(params, RedMarking{}, s);
  const double to_pkt = gbps_to_bytes_per_us(1.0) / packet_bytes;  // Gb/s → packets/µs
  const detail::DcqcnCoef c =
      detail::dcqcn_coefficients(u, detail::dcqcn_shared(u, p), delayed_rc_gbps * to_pkt);
  const double rc = now.rc_gbps * to_pkt, rt = now.rt_gbps * to_pkt;
  DcqcnDerivatives d;
  const double cut = std::min(0.5 * now.alpha, u.max_cut);
  d.rc_gbps_per_us = (-rc * cut * c.a / u.tau + 0.5 * (rt - rc) * c.ev_sum) / to_pkt;
  d.rt_gbps_per_us = (-(rt - rc) * c.a / u.tau + u.rai * c.ev_ai) / to_pkt;
  d.alpha_per_us = u.g / u.tau_p * (c.alpha_target - now.alpha);
  return d;
}

// Validation of each input: every field, the message naming the field and its
// value. simulate_dcqcn() and dcqcn_fixed_point() call all three.
RAILYARD_LAZY
[[nodiscard]] Status validate_red(const RedMarking& red) {
  namespace d = detail;
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_non_negative("kmin_bytes", red.kmin_bytes));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_non_negative("kmax_bytes", red.kmax_bytes));
  if (red.kmin_bytes > red.kmax_bytes) {
    return invalid_field("kmin_bytes", number_text(red.kmin_bytes),
                         str_cat("must be <= kmax_bytes=", number_text(red.kmax_bytes)));
  }
  if (!(red.pmax > 0 && red.pmax <= 1)) {
    return invalid_field("pmax", number_text(red.pmax), "must be in (0, 1]");
  }
  return ok_status();
}

RAILYARD_LAZY
[[nodiscard]] Status validate_dcqcn(const DcqcnModelParams& p) {
  namespace d = detail;
  if (!(p.g > 0 && p.g <= 1)) return invalid_field("g", number_text(p.g), "must be in (0, 1]");
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("alpha_period_us", p.alpha_period_us));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("rate_decrease_period_us", p.rate_decrease_period_us));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("rate_increase_timer_us", p.rate_increase_timer_us));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("byte_counter_bytes", p.byte_counter_bytes));
  if (p.fast_recovery_steps < 0 || p.fast_recovery_steps > 1000) {
    return invalid_field("fast_recovery_steps", str_cat(p.fast_recovery_steps),
                         "must be in [0, 1000]");
  }
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_non_negative("rai_mbps", p.rai_mbps));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_non_negative("rhai_mbps", p.rhai_mbps));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("min_rate_mbps", p.min_rate_mbps));
  if (!(p.initial_alpha >= 0 && p.initial_alpha <= 1)) {
    return invalid_field("initial_alpha", number_text(p.initial_alpha), "must be in [0, 1]");
  }
  if (!(p.max_cut_fraction > 0 && p.max_cut_fraction <= 1)) {
    return invalid_field("max_cut_fraction", number_text(p.max_cut_fraction), "must be in (0, 1]");
  }
  return ok_status();
}

RAILYARD_LAZY
[[nodiscard]] Status validate_scenario(const FluidScenario& s) {
  namespace d = detail;
  if (s.senders < 1 || s.senders > d::kDcqcnMaxSenders) {
    return invalid_field("senders", str_cat(s.senders),
                         str_cat("must be in [1, ", d::kDcqcnMaxSenders, "]"));
  }
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("line_gbps", s.line_gbps));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("bottleneck_gbps", s.bottleneck_gbps));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("feedback_delay_us", s.feedback_delay_us));
  if (!(s.buffer_bytes > 0)) {
    return invalid_field("buffer_bytes", number_text(s.buffer_bytes),
                         "must be > 0 (infinity = no limit)");
  }
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("packet_bytes", s.packet_bytes));
  RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("duration_us", s.duration_us));
  if (s.dt_us) RAILYARD_RETURN_IF_ERROR(d::dcqcn_positive("dt_us", *s.dt_us));
  if (!(s.start_rate_fraction > 0 && s.start_rate_fraction <= 1)) {
    return invalid_field("start_rate_fraction", number_text(s.start_rate_fraction),
                         "must be in (0, 1]");
  }
  const auto n = static_cast<size_t>(s.senders);
  if (!s.start_us.empty() && s.start_us.size() != n) {
    return invalid_field("start_us", str_cat(s.start_us.size(), " values"),
                         str_cat("need one per sender (", n, ") or none"));
  }
  for (size_t i = 0; i < s.start_us.size(); ++i) {
    RAILYARD_RETURN_IF_ERROR(d::dcqcn_non_negative(str_cat("start_us[", i, "]"), s.start_us[i]));
  }
  if (!s.start_rate_fractions.empty() && s.start_rate_fractions.size() != n) {
    return invalid_field("start_rate_fractions", str_cat(s.start_rate_fractions.size(), " values"),
                         str_cat("need one per sender (", n, ") or none"));
  }
  for (size_t i = 0; i < s.start_rate_fractions.size(); ++i) {
    const double f = s.start_rate_fractions[i];
    if (!(f > 0 && f <= 1)) {
      return invalid_field(str_cat("start_rate_fractions[", i, "]"), number_text(f),
                           "must be in (0, 1]");
    }
  }
  if (s.trace_points != 0 && (s.trace_points < 2 || s.trace_points > d::kDcqcnMaxTracePoints)) {
    return invalid_field("trace_points", str_cat(s.trace_points),
                         str_cat("must be 0 or in [2, ", d::kDcqcnMaxTracePoints, "]"));
  }
  if (s.traced_flows < 0) {
    return invalid_field("traced_flows", str_cat(s.traced_flows), "must be >= 0");
  }
  return ok_status();
}

// Simulates the DCQCN fluid model (see the overview) for scenario.duration_us.
// Deterministic. Errors: invalid fields, min_rate_mbps above the line rate,
// too many steps (> 2·10^8) or too large a delay buffer ((τ*/dt + 1) ·
// distinct flows > 2^24 values).
RAILYARD_LAZY
[[nodiscard]] StatusOr<FluidResult> simulate_dcqcn(const DcqcnModelParams& params,
                                                                const RedMarking& red,
                                                                const FluidScenario& scenario) {
  namespace d = detail;
  RAILYARD_RETURN_IF_ERROR(validate_dcqcn(params));
  RAILYARD_RETURN_IF_ERROR(validate_red(red));
  RAILYARD_RETURN_IF_ERROR(validate_scenario(scenario));
  if (params.min_rate_mbps > scenario.line_gbps * 1e3) {
    return invalid_field(
        "min_rate_mbps", number_text(params.min_rate_mbps),
        str_cat("must be <= the line rate, line_gbps=", number_text(scenario.line_gbps)));
  }
  const d::DcqcnUnits u = d::dcqcn_units(params, red, scenario);
  const auto n_flows = static_cast<size_t>(scenario.senders);

  // Step: τ* = m·dt exactly.
  const double tau_star = scenario.feedback_delay_us;
  const double want_dt = scenario.dt_us ? *scenario.dt_us : d::dcqcn_auto_dt(u, tau_star);
  const double m_real = std::ceil(tau_star / want_dt - 1e-9);
  if (!(m_real <= 1e12)) {
    return invalid_field("dt_us", number_text(want_dt),
                         str_cat("is too small for feedback_delay_us=", number_text(tau_star)));
  }
  const auto m = std::max<int64_t>(1, static_cast<int64_t>(m_real));
  const double dt = tau_star / static_cast<double>(m);
  const double steps_real = std::round(scenario.duration_us / dt);
  if (steps_real > static_cast<double>(d::kDcqcnMaxSteps)) {
    return invalid_field("duration_us", number_text(scenario.duration_us),
                         str_cat("needs ", number_text(steps_real), " steps of ", number_text(dt),
                                 " us, more than ", d::kDcqcnMaxSteps));
  }
  const int64_t steps = std::max<int64_t>(1, static_cast<int64_t>(steps_real));

  // Flows → distinct trajectories (classes), in order of first flow.
  auto start_of = [&](size_t i) { return scenario.start_us.empty() ? 0.0 : scenario.start_us[i]; };
  auto frac_of = [&](size_t i) {
    return scenario.start_rate_fractions.empty() ? scenario.start_rate_fraction
                                                 : scenario.start_rate_fractions[i];
  };
  // Sorting by (start, rate, index) groups equal flows with their first flow
  // leading; classes are then numbered in order of that first flow.
  std::vector<int32_t> class_of(n_flows);
  std::vector<size_t> rep;  // first flow of each class
  {
    std::vector<size_t> order(n_flows);
    for (size_t i = 0; i < n_flows; ++i) order[i] = i;
    if (scenario.merge_identical_flows) {
      std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        if (start_of(x) != start_of(y)) return start_of(x) < start_of(y);
        if (frac_of(x) != frac_of(y)) return frac_of(x) < frac_of(y);
        return x < y;
      });
    }
    std::vector<size_t> leader(n_flows);
    for (size_t k = 0; k < n_flows; ++k) {
      const size_t i = order[k];
      const bool same = scenario.merge_identical_flows && k > 0 &&
                        start_of(order[k - 1]) == start_of(i) &&
                        frac_of(order[k - 1]) == frac_of(i);
      leader[i] = same ? leader[order[k - 1]] : i;
    }
    std::vector<int32_t> id(n_flows, -1);
    for (size_t i = 0; i < n_flows; ++i) {
      if (leader[i] == i) {
        id[i] = static_cast<int32_t>(rep.size());
        rep.push_back(i);
      }
      class_of[i] = id[leader[i]];
    }
  }
  const size_t nk = rep.size();
  if (static_cast<double>(m + 1) * static_cast<double>(nk) >
      static_cast<double>(d::kDcqcnMaxDelayEntries)) {
    return invalid_field("feedback_delay_us", number_text(tau_star),
                         str_cat("needs a delay buffer of ", m + 1, " steps x ", nk,
                                 " flows, more than ", d::kDcqcnMaxDelayEntries, " values"));
  }
  std::vector<double> weight(nk, 0.0);
  for (size_t i = 0; i < n_flows; ++i) weight[static_cast<size_t>(class_of[i])] += 1.0;
  std::vector<int64_t> start_step(nk);
  std::vector<double> start_rate(nk);
  for (size_t k = 0; k < nk; ++k) {
    const double s = start_of(rep[k]) / dt;
    start_step[k] =
        s >= static_cast<double>(steps) + 1 ? steps + 1 : static_cast<int64_t>(std::ceil(s - 1e-9));
    start_rate[k] = std::max(u.min_rate, frac_of(rep[k]) * u.line);
  }

  FluidResult out;
  out.dt_us = dt;
  out.steps = steps;
  out.simulated_us = static_cast<double>(steps) * dt;
  out.distinct_flows = static_cast<int32_t>(nk);
  const double fair = std::min(u.line, u.cap / static_cast<double>(n_flows));
  out.fair_share_gbps = fair * u.pkt * kBitsPerByte * 1e-3;

  // State.
  std::vector<double> rc(nk, 0.0), rt(nk, 0.0), al(nk, params.initial_alpha);
  std::vector<char> active(nk, 0);
  std::vector<double> rc_p(nk), rt_p(nk), al_p(nk);
  std::vector<double> k1_rc(nk), k1_rt(nk), k1_al(nk);
  const auto ring = static_cast<size_t>(m + 1);
  std::vector<double> rc_hist(ring * nk, 0.0), q_hist(ring, 0.0);
  std::vector<d::DcqcnCoef> coef_now(nk), coef_next(nk);
  std::vector<double> sent_half(nk, 0.0);
  double q = 0;

  // j mod (m+1) for j ≥ −m; slots of negative j hold the zero history.
  auto ring_slot = [&](int64_t j) -> size_t {
    const int64_t r = j % (m + 1);
    return static_cast<size_t>(r < 0 ? r + m + 1 : r);
  };

  auto start_flows = [&](int64_t n) {
    for (size_t k = 0; k < nk; ++k) {
      if (!active[k] && start_step[k] == n) {
        active[k] = 1;
        rc[k] = rt[k] = start_rate[k];
        al[k] = params.initial_alpha;
      }
    }
  };
  auto record_hist = [&](int64_t n) {
    const size_t s = ring_slot(n);
    std::copy(rc.begin(), rc.end(), rc_hist.begin() + static_cast<std::ptrdiff_t>(s * nk));
    q_hist[s] = q;
  };
  // Coefficients at grid time t_j from the delayed values at t_{j−m}; for every
  // class, so that flows starting at t_j have theirs too (their R' is 0).
  const RedMarking red_pk{u.kmin, u.kmax, u.pmax};
  auto coefficients = [&](int64_t j, std::vector<d::DcqcnCoef>& c) {
    const int64_t jd = j - m;
    const size_t s = ring_slot(jd);
    const d::DcqcnShared sh = d::dcqcn_shared(u, red_probability(red_pk, q_hist[s]));
    const double* rd = rc_hist.data() + s * nk;
    for (size_t k = 0; k < nk; ++k) c[k] = d::dcqcn_coefficients(u, sh, rd[k]);
  };
  const double inv_tau = 1.0 / u.tau, g_tp = u.g / u.tau_p;
  auto rhs = [&](const d::DcqcnCoef& c, double r, double t, double al, double& drc, double& drt,
                 double& dal) {
    drc = -r * std::min(0.5 * al, u.max_cut) * c.a * inv_tau + 0.5 * (t - r) * c.ev_sum;
    drt = -(t - r) * c.a * inv_tau + u.rai * c.ev_ai;
    dal = g_tp * (c.alpha_target - al);
  };
  auto clamp_rate = [&](double r) { return std::clamp(r, u.min_rate, u.line); };

  // Trace sampling.
  std::vector<int64_t> trace_at;
  if (scenario.trace_points > 0) {
    const int64_t pts = std::min<int64_t>(scenario.trace_points, steps + 1);
    for (int64_t i = 0; i < pts; ++i) {
      trace_at.push_back(static_cast<int64_t>(std::llround(
          static_cast<double>(i) * static_cast<double>(steps) / static_cast<double>(pts - 1))));
    }
    const auto nt = static_cast<size_t>(std::min<int64_t>(scenario.traced_flows, scenario.senders));
    out.trace.flows.resize(nt);
    for (size_t i = 0; i < nt; ++i) out.trace.flows[i] = static_cast<int32_t>(i);
    out.trace.flow_gbps.assign(nt, {});
    for (auto& v : out.trace.flow_gbps) v.reserve(trace_at.size());
    out.trace.t_us.reserve(trace_at.size());
    out.trace.queue_bytes.reserve(trace_at.size());
    out.trace.total_gbps.reserve(trace_at.size());
  }
  const double to_gbps = u.pkt * kBitsPerByte * 1e-3;  // packets/µs → Gb/s
  size_t next_trace = 0;
  auto total_rate = [&] {
    double s = 0;
    for (size_t k = 0; k < nk; ++k) s += weight[k] * rc[k];
    return s;
  };
  const double band_lo = (1 - d::kDcqcnBand) * fair, band_hi = (1 + d::kDcqcnBand) * fair;
  int64_t last_bad = -1;
  auto observe = [&](int64_t n, double total) {
    bool ok = true;
    for (size_t k = 0; k < nk && ok; ++k) ok = active[k] && rc[k] >= band_lo && rc[k] <= band_hi;
    if (!ok) last_bad = n;
    const double q_bytes = q * u.pkt;
    if (q_bytes > out.peak_queue_bytes) {
      out.peak_queue_bytes = q_bytes;
      out.peak_queue_us = static_cast<double>(n) * dt;
    }
    if (q_bytes > scenario.buffer_bytes) out.exceeded_buffer = true;
    while (next_trace < trace_at.size() && trace_at[next_trace] == n) {
      out.trace.t_us.push_back(static_cast<double>(n) * dt);
      out.trace.queue_bytes.push_back(q_bytes);
      out.trace.total_gbps.push_back(total * to_gbps);
      for (size_t i = 0; i < out.trace.flows.size(); ++i) {
        out.trace.flow_gbps[i].push_back(rc[static_cast<size_t>(class_of[i])] * to_gbps);
      }
      ++next_trace;
    }
  };

  // Kahan-compensated running sums keep sent − delivered − queue at rounding level.
  struct Sum {
    double s = 0, c = 0;
    void add(double v) {
      const double y = v - c;
      const double t = s + y;
      c = (t - s) - y;
      s = t;
    }
  };
  Sum sent, delivered, marked;
  const int64_t half_step = steps / 2;
  double h_q = 0, h_del = 0, h_alpha = 0, h_p = 0;

  start_flows(0);
  record_hist(0);
  double total_now = total_rate();
  observe(0, total_now);
  coefficients(0, coef_now);
  double p_now = red_probability(red_pk, q);
  double alpha_now = 0;
  for (size_t k = 0; k < nk; ++k) alpha_now += active[k] ? weight[k] * al[k] : 0.0;

  for (int64_t n = 0; n < steps; ++n) {
    // Stage 1 at t_n, predictor to t_{n+1}.
    for (size_t k = 0; k < nk; ++k) {
      if (!active[k]) continue;
      rhs(coef_now[k], rc[k], rt[k], al[k], k1_rc[k], k1_rt[k], k1_al[k]);
      rc_p[k] = clamp_rate(rc[k] + dt * k1_rc[k]);
      rt_p[k] = clamp_rate(rt[k] + dt * k1_rt[k]);
      al_p[k] = std::clamp(al[k] + dt * k1_al[k], 0.0, 1.0);
    }
    // Stage 2 at t_{n+1} (delayed values at t_{n+1−m} are already in the ring).
    coefficients(n + 1, coef_next);
    double step_sent = 0;
    for (size_t k = 0; k < nk; ++k) {
      if (!active[k]) continue;
      double k2_rc, k2_rt, k2_al;
      rhs(coef_next[k], rc_p[k], rt_p[k], al_p[k], k2_rc, k2_rt, k2_al);
      const double r_new = clamp_rate(rc[k] + 0.5 * dt * (k1_rc[k] + k2_rc));
      const double flow_sent = 0.5 * dt * (rc[k] + r_new);
      step_sent += weight[k] * flow_sent;
      if (n >= half_step) sent_half[k] += flow_sent;
      rc[k] = r_new;
      rt[k] = clamp_rate(rt[k] + 0.5 * dt * (k1_rt[k] + k2_rt));
      al[k] = std::clamp(al[k] + 0.5 * dt * (k1_al[k] + k2_al), 0.0, 1.0);
    }
    const double q_old = q;
    q = std::max(0.0, q_old + step_sent - u.cap * dt);
    sent.add(step_sent);
    delivered.add(q_old + step_sent - q);
    const double total_next = total_rate();  // flows starting at t_{n+1} not yet counted
    const double p_next = red_probability(red_pk, q);
    marked.add(0.5 * dt * (total_now * p_now + total_next * p_next));
    double alpha_next = 0;
    for (size_t k = 0; k < nk; ++k) alpha_next += active[k] ? weight[k] * al[k] : 0.0;
    if (n >= half_step) {
      h_q += 0.5 * dt * (q_old + q);
      h_del += q_old + step_sent - q;
      h_alpha += 0.5 * dt * (alpha_now + alpha_next);
      h_p += 0.5 * dt * (p_now + p_next);
    }
    start_flows(n + 1);
    record_hist(n + 1);
    total_now = total_rate();
    p_now = p_next;
    alpha_now = 0;
    for (size_t k = 0; k < nk; ++k) alpha_now += active[k] ? weight[k] * al[k] : 0.0;
    observe(n + 1, total_now);
    std::swap(coef_now, coef_next);
  }

  const double n_d = static_cast<double>(n_flows);
  out.final_queue_bytes = q * u.pkt;
  out.sent_bytes = sent.s * u.pkt;
  out.delivered_bytes = delivered.s * u.pkt;
  out.utilization = delivered.s / (u.cap * out.simulated_us);
  out.marked_fraction = sent.s > 0 ? marked.s / sent.s : 0.0;
  if (last_bad < 0) {
    out.convergence_us = 0.0;
  } else if (last_bad < steps) {
    out.convergence_us = static_cast<double>(last_bad + 1) * dt;
  }
  const double half_t = static_cast<double>(steps - half_step) * dt;
  FluidAverages& h = out.second_half;
  h.queue_bytes = h_q / half_t * u.pkt;
  h.utilization = h_del / (u.cap * half_t);
  h.alpha = h_alpha / half_t / n_d;
  h.marking_probability = h_p / half_t;
  h.flow_gbps.resize(n_flows);
  double sx = 0, sxx = 0;
  for (size_t i = 0; i < n_flows; ++i) {
    const double x = sent_half[static_cast<size_t>(class_of[i])] / half_t * to_gbps;
    h.flow_gbps[i] = x;
    sx += x;
    sxx += x * x;
  }
  h.jain_fairness = sxx > 0 ? sx * sx / (n_d * sxx) : 0.0;
  return out;
}

// The equilibrium of the model for `scenario` (see DcqcnFixedPoint). Uses
// senders, line_gbps, bottleneck_gbps and packet_bytes of the scenario.
RAILYARD_LAZY
[[nodiscard]] StatusOr<DcqcnFixedPoint> dcqcn_fixed_point(
    const DcqcnModelParams& params, const RedMarking& red, const FluidScenario& scenario) {
  namespace d = detail;
  RAILYARD_RETURN_IF_ERROR(validate_dcqcn(params));
  RAILYARD_RETURN_IF_ERROR(validate_red(red));
  RAILYARD_RETURN_IF_ERROR(validate_scenario(scenario));
  const d::DcqcnUnits u = d::dcqcn_units(params, red, scenario);
  const double n = static_cast<double>(scenario.senders);
  DcqcnFixedPoint fp;
  const double to_gbps = u.pkt * kBitsPerByte * 1e-3;
  if (n * u.line <= u.cap) {
    fp.rate_gbps = fp.target_rate_gbps = u.line * to_gbps;
    fp.on_red_slope = true;
    return fp;
  }
  fp.congested = true;
  const double r = u.cap / n;
  // f(p) = 2R·δ(α(p))·a(p)² − τ²·R_AI·ev_ai(p)·ev_sum(p): increasing from < 0
  // at p = 0 to > 0 at p = 1.
  auto f = [&](double p) {
    const d::DcqcnCoef c = d::dcqcn_coefficients(u, d::dcqcn_shared(u, p), r);
    const double cut = std::min(0.5 * c.alpha_target, u.max_cut);
    return 2 * r * cut * c.a * c.a - u.tau * u.tau * u.rai * c.ev_ai * c.ev_sum;
  };
  double lo = 0, hi = 1;
  for (int it = 0; it < 200 && hi - lo > 1e-17; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  const double p = 0.5 * (lo + hi);
  const d::DcqcnCoef c = d::dcqcn_coefficients(u, d::dcqcn_shared(u, p), r);
  fp.marking_probability = p;
  fp.alpha = c.alpha_target;
  fp.rate_gbps = r * to_gbps;
  fp.target_rate_gbps = (r + (c.a > 0 ? u.tau * u.rai * c.ev_ai / c.a : 0.0)) * to_gbps;
  fp.on_red_slope = p <= red.pmax;
  fp.queue_bytes = fp.on_red_slope
                       ? red.kmin_bytes + p / red.pmax * (red.kmax_bytes - red.kmin_bytes)
                       : red.kmax_bytes;
  return fp;
}

}  // namespace railyard::cc
