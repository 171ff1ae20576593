// railyard/cc/dcqcn_nic.hpp — DCQCN as a ConnectX NIC runs it: the reaction
// point (sender) state machine of one flow, event by event, with every
// documented knob, and the notification point's CNP pacing.
//
//   railyard::cc::DcqcnParams p = railyard::cc::connectx_default_dcqcn();
//   railyard::cc::ReactionPoint rp(p, railyard::cc::NicReadings{}, /*line_gbps=*/400);
//   rp.on_cnp(10.0);                       // t = 10 µs: a CNP arrives (flags only)
//   double when = rp.next_event_us();      // the next timer, α tick or cut check
//   rp.advance_to(when);                   // runs every NIC event up to `when`
//   rp.on_bytes_sent(when, 4158);          // byte counter; may raise the rate
//   double gbps = rp.rate_gbps();          // the rate limiter's current rate
//
// The state machine (docs/models.md#dcqcn-nic, sources there):
// * Until its first CNP a flow has no rate limiter: it sends at its start rate
//   and its counters and timers do not run. The first CNP allocates the limiter:
//   α = initial_alpha_value/1024, current and target rate = rate_to_set_on_first_cnp
//   (0: unchanged), and starts three periodic clocks anchored at that instant:
//   the α clock (dce_tcp_rtt), the rate-decrease clock (rate_reduce_monitor_period)
//   and the increase timer (rpg_time_reset).
// * A CNP only sets two flags. At each α tick α ← (1 − g)·α + g·[a CNP arrived
//   since the last tick] (the first CNP feeds no sample). At each rate-decrease
//   tick with a CNP since the last one, the rate is cut: first the target rate
//   is clamped to the current rate — always with clamp_tgt_rate; otherwise only
//   if the rate rose since the last cut, by the byte counter, or by the timer
//   when clamp_tgt_rate_after_time_inc — then R_C ← R_C·(1 − α·1024/2^rpg_gd),
//   never below rpg_min_dec_fac of the old rate nor below rpg_min_rate. A cut
//   resets both stage counters and the byte count and restarts the increase
//   timer.
// * Increase events: the timer every rpg_time_reset, the byte counter every
//   rpg_byte_reset bytes sent (0 disables it). With b, t the byte and timer
//   stages completed before the event (F = rpg_threshold): fast recovery while
//   b < F and t < F (R_C ← (R_T + R_C)/2); hyper increase when b ≥ F and t ≥ F
//   (R_T += i·rpg_hai_rate, i = min(b, t) − F + 1, or i = 1 with
//   HyperStep::kConstant); additive increase otherwise (R_T += rpg_ai_rate).
//   With the byte counter off the timer alone decides: fast recovery while
//   t < F, additive at t = F, hyper above;
//   after the target moves, R_C ← (R_T + R_C)/2. Rates never exceed the flow's
//   ceiling (line rate, or its share of the NIC).
// * The notification point sends a CNP for a marked packet when at least
//   min_time_between_cnps has passed since its last CNP — per flow or per port
//   (NicReadings::cnp_pacing; vendor texts disagree).
//
// Readings where vendor text is ambiguous are NicReadings fields; the report
// names the ones used. PaperSemantics switches to the CoNEXT'16 fluid model's
// rules (target clamped on every cut, no hyper increase, counters reset by every
// marked packet) so that this model can be checked against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "railyard/cc/derive.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"

namespace railyard::cc {

// dce_tcp_g = 1019: the vendor's texts give it as the weight of the old α
// (g = 5/1024, α decays with a 205 µs time constant) or of the new sample
// (g = 1019/1024: α ≈ the last period's CNP indicator).
enum class AlphaGainReading { kOldAlphaWeight, kNewSampleWeight };
// min_time_between_cnps: between two CNPs of one flow (QP), or of the whole port.
enum class CnpPacing { kPerFlow, kPerPort };
// Hyper increase step: i·R_HAI with i growing per stage (DCQCN paper, QCN,
// ns3-rdma) or a constant R_HAI (the HPCC simulator's Mellanox model).
enum class HyperStep { kGrowing, kConstant };

struct NicReadings {
  AlphaGainReading alpha_gain = AlphaGainReading::kOldAlphaWeight;
  CnpPacing cnp_pacing = CnpPacing::kPerFlow;
  HyperStep hyper_step = HyperStep::kGrowing;
  // The CoNEXT'16 fluid model's rules instead of the NIC's: R_T ← R_C on every
  // cut, no hyper increase, and every marked packet (not only a cut) resets the
  // byte counter and timer stages. Used to check this model against that one.
  bool paper_semantics = false;
};

RAILYARD_LAZY
[[nodiscard]] std::string describe(const NicReadings& r) {
  if (r.paper_semantics) return "paper rules (clamp on every cut, no hyper increase, counters reset per mark)";
  return str_cat(r.alpha_gain == AlphaGainReading::kOldAlphaWeight
                     ? "dce_tcp_g weighs the old alpha (g = 1 - G/1024)"
                     : "dce_tcp_g weighs the new sample (g = G/1024)",
                 "; CNP pacing per ", r.cnp_pacing == CnpPacing::kPerFlow ? "flow" : "port",
                 "; hyper step ", r.hyper_step == HyperStep::kGrowing ? "i x HAI" : "HAI");
}

// The α gain the reading gives for `p` (whose g holds 1 − dce_tcp_g/1024).
RAILYARD_LAZY
[[nodiscard]] double alpha_gain(const DcqcnParams& p, AlphaGainReading reading) {
  return reading == AlphaGainReading::kOldAlphaWeight ? p.g : 1.0 - p.g;
}

// Checks a DCQCN setting for the NIC model. Errors name the field.
RAILYARD_LAZY
[[nodiscard]] Status validate_nic_params(const DcqcnParams& p) {
  auto positive = [](std::string_view name, double v) -> Status {
    if (!(v > 0) || !std::isfinite(v)) return invalid_field(name, str_cat(v), "must be > 0");
    return ok_status();
  };
  RAILYARD_RETURN_IF_ERROR(positive("dce_tcp_rtt_us", p.alpha_period_us));
  RAILYARD_RETURN_IF_ERROR(positive("rate_reduce_monitor_period_us", p.decrease_period_us));
  RAILYARD_RETURN_IF_ERROR(positive("rpg_time_reset_us", p.increase_timer_us));
  RAILYARD_RETURN_IF_ERROR(positive("rpg_min_rate_mbps", p.min_rate_mbps));
  if (!(p.g > 0 && p.g < 1)) return invalid_field("g", str_cat(p.g), "must be in (0, 1)");
  if (!(p.byte_counter_bytes >= 0) || !std::isfinite(p.byte_counter_bytes))
    return invalid_field("rpg_byte_reset", str_cat(p.byte_counter_bytes), "must be >= 0 (0: off)");
  if (p.fast_recovery < 0 || p.fast_recovery > 64)
    return invalid_field("rpg_threshold", str_cat(p.fast_recovery), "must be in [0, 64]");
  if (!(p.ai_mbps >= 0) || !(p.hai_mbps >= 0) || !std::isfinite(p.ai_mbps + p.hai_mbps))
    return invalid_field("rpg_ai_rate", str_cat(p.ai_mbps, "/", p.hai_mbps), "must be >= 0");
  if (!(p.min_dec_factor >= 0 && p.min_dec_factor <= 1))
    return invalid_field("rpg_min_dec_fac", str_cat(p.min_dec_factor), "must be in [0, 1]");
  if (!(p.initial_alpha >= 0 && p.initial_alpha <= 1))
    return invalid_field("initial_alpha", str_cat(p.initial_alpha), "must be in [0, 1]");
  if (p.rate_reduce_gd < 10 || p.rate_reduce_gd > 11)
    return invalid_field("rpg_gd", str_cat(p.rate_reduce_gd), "must be 10 or 11");
  if (!(p.min_time_between_cnps_us >= 0) || !std::isfinite(p.min_time_between_cnps_us))
    return invalid_field("min_time_between_cnps_us", str_cat(p.min_time_between_cnps_us),
                         "must be >= 0");
  if (!(p.rate_on_first_cnp_mbps >= 0) || !std::isfinite(p.rate_on_first_cnp_mbps))
    return invalid_field("rate_to_set_on_first_cnp", str_cat(p.rate_on_first_cnp_mbps),
                         "must be >= 0 (0: keep the rate)");
  return ok_status();
}

// One flow's reaction point. Times in µs, rates in Gb/s. Events must be fed in
// time order; advance_to(t) runs the NIC's own clocks (α ticks, rate-decrease
// ticks, increase timer) up to and including t.
class ReactionPoint {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // Precondition: validate_nic_params(p) is OK, ceiling_gbps > 0.
  ReactionPoint(const DcqcnParams& p, const NicReadings& r, double ceiling_gbps,
                double start_gbps = -1)
      : p_(p), r_(r), ceiling_(ceiling_gbps), g_(alpha_gain(p, r.alpha_gain)) {
    rc_ = rt_ = start_gbps > 0 ? std::min(start_gbps, ceiling_gbps) : ceiling_gbps;
    alpha_ = p.initial_alpha;
  }

  [[nodiscard]] double rate_gbps() const { return rc_; }
  [[nodiscard]] double target_gbps() const { return rt_; }
  [[nodiscard]] double alpha() const { return alpha_; }
  [[nodiscard]] bool limited() const { return active_; }
  [[nodiscard]] int32_t byte_stage() const { return byte_stage_; }
  [[nodiscard]] int32_t timer_stage() const { return timer_stage_; }
  [[nodiscard]] int64_t cuts() const { return cuts_; }
  [[nodiscard]] int64_t increases() const { return increases_; }

  // The next instant at which the NIC's own clocks change something.
  [[nodiscard]] double next_event_us() const {
    if (!active_) return kNever;
    return std::min({next_alpha_, cnp_for_cut_ ? next_decrease_ : kNever, next_timer_});
  }

  // The next instant at which the rate may change (a cut or the increase
  // timer); α ticks only matter at a cut and run lazily inside advance_to.
  [[nodiscard]] double next_rate_event_us() const {
    if (!active_) return kNever;
    return std::min(cnp_for_cut_ ? next_decrease_ : kNever, next_timer_);
  }

  // Runs the clocks' events in time order up to `t`; ties: α first, then the
  // cut (so a cut sees the α of its own instant), then the increase timer.
  void advance_to(double t) {
    while (active_) {
      const double e = next_event_us();
      if (e > t) break;
      if (next_alpha_ <= e) {
        alpha_tick();
      } else if (cnp_for_cut_ && next_decrease_ <= e) {
        decrease_tick();
      } else {
        next_timer_ += p_.increase_timer_us;
        increase(Source::kTimer);
      }
    }
    // Decrease ticks without a CNP change nothing: skip them lazily.
    if (active_ && !cnp_for_cut_ && next_decrease_ <= t) {
      const double k = std::floor((t - next_decrease_) / p_.decrease_period_us) + 1;
      next_decrease_ += k * p_.decrease_period_us;
    }
  }

  // A CNP arrives at `t` (after advance_to(t)).
  void on_cnp(double t) {
    advance_to(t);
    if (!active_) {
      active_ = true;
      alpha_ = p_.initial_alpha;
      if (p_.rate_on_first_cnp_mbps > 0) rc_ = rt_ = std::min(ceiling_, p_.rate_on_first_cnp_mbps / 1000);
      next_alpha_ = t + p_.alpha_period_us;
      next_decrease_ = t + p_.decrease_period_us;
      next_timer_ = t + p_.increase_timer_us;
      cnp_for_cut_ = true;  // the first CNP asks for a cut at the next tick
      return;
    }
    cnp_for_alpha_ = true;
    cnp_for_cut_ = true;
  }

  // A marked packet was seen by the receiver (paper semantics only): the
  // counters restart as in the fluid model's event rates.
  void on_mark(double t) {
    advance_to(t);
    if (!r_.paper_semantics || !active_) return;
    byte_stage_ = timer_stage_ = 0;
    bytes_ = 0;
    next_timer_ = t + p_.increase_timer_us;
  }

  // `bytes` left the NIC at `t` (after advance_to(t)).
  void on_bytes_sent(double t, double bytes) {
    advance_to(t);
    if (!active_ || p_.byte_counter_bytes <= 0) return;
    bytes_ += bytes;
    while (bytes_ >= p_.byte_counter_bytes) {
      bytes_ -= p_.byte_counter_bytes;
      increase(Source::kBytes);
    }
  }

 private:
  enum class Source { kTimer, kBytes };

  void alpha_tick() {
    alpha_ = (1 - g_) * alpha_ + (cnp_for_alpha_ ? g_ : 0.0);
    cnp_for_alpha_ = false;
    next_alpha_ += p_.alpha_period_us;
  }

  void decrease_tick() {
    const double t = next_decrease_;
    next_decrease_ += p_.decrease_period_us;
    cnp_for_cut_ = false;
    const bool clamp = r_.paper_semantics || p_.clamp_tgt_rate || rose_by_bytes_ ||
                       (p_.clamp_tgt_rate_after_time_inc && rose_by_timer_);
    if (clamp) rt_ = rc_;
    // α is held in 1/1024 units; the cut is α_int / 2^gd of the rate.
    const double cut = alpha_ * 1024.0 / std::ldexp(1.0, p_.rate_reduce_gd);
    const double factor = std::max(1.0 - cut, p_.min_dec_factor);
    rc_ = std::max(rc_ * factor, p_.min_rate_mbps / 1000);
    byte_stage_ = timer_stage_ = 0;
    bytes_ = 0;
    rose_by_bytes_ = rose_by_timer_ = false;
    next_timer_ = t + p_.increase_timer_us;
    ++cuts_;
  }

  void increase(Source source) {
    const int32_t f = p_.fast_recovery;
    const int32_t b = byte_stage_, tm = timer_stage_;
    (source == Source::kBytes ? byte_stage_ : timer_stage_) += 1;
    (source == Source::kBytes ? rose_by_bytes_ : rose_by_timer_) = true;
    ++increases_;
    // With the byte counter off (rpg_byte_reset = 0) the timer alone sets the
    // phase: fast recovery below F, one additive step at F, hyper above (as
    // the HPCC simulator's Mellanox model does).
    const bool bytes_off = p_.byte_counter_bytes <= 0;
    const bool fast = bytes_off ? tm < f : (b < f && tm < f);
    const bool hyper = bytes_off ? tm > f : (b >= f && tm >= f);
    if (fast) {
      // fast recovery: halfway back to the target
    } else if (hyper && !r_.paper_semantics) {
      const double i = r_.hyper_step == HyperStep::kGrowing ? std::min(b, tm) - f + 1 : 1;
      rt_ = std::min(ceiling_, rt_ + i * p_.hai_mbps / 1000);
    } else {
      rt_ = std::min(ceiling_, rt_ + p_.ai_mbps / 1000);
    }
    rc_ = std::min(ceiling_, (rt_ + rc_) / 2);
  }

  DcqcnParams p_;
  NicReadings r_;
  double ceiling_;
  double g_;
  double rc_ = 0, rt_ = 0, alpha_ = 1;
  bool active_ = false;
  bool cnp_for_alpha_ = false, cnp_for_cut_ = false;
  bool rose_by_bytes_ = false, rose_by_timer_ = false;
  double next_alpha_ = kNever, next_decrease_ = kNever, next_timer_ = kNever;
  double bytes_ = 0;
  int32_t byte_stage_ = 0, timer_stage_ = 0;
  int64_t cuts_ = 0, increases_ = 0;
};

}  // namespace railyard::cc
