// railyard/cc/validate.hpp — a derived congestion-control plan run through the
// DCQCN fluid model next to the vendor defaults, on the plan's own incast.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto plan = railyard::cc::derive_cc(*cluster, {.incast = 8});
//   auto check = railyard::cc::validate_cc(*plan);          // senders start at line rate
//   // check->derived.peak_queue_bytes, .utilization, .steady_utilization, .convergence_us
//   // check->vendor (ConnectX defaults + switch ECN 150 KB / 1,500 KB / 100 %)
//   // check->derived_ok(): steady utilization >= 95 % and the queue under the buffer
//
// Scenario. `incast` senders, each at the link rate, into one port of the same
// rate (the leaf->host egress, where incast meets the receiver), feedback delay
// = the longest path's base RTT, packets of one RoCE frame, for `duration_us`
// (20 ms). Senders start at `start_fraction` of line rate: 1 is the worst case
// (a synchronized burst, e.g. the first step of a many-to-one transfer); a
// collective whose senders each talk to k peers at once starts its flows at
// 1/k (NCCL's all-to-all: k = the incast). The buffer is the plan's usable
// buffer per port (buffer − PFC headroom); a queue above it means PFC pauses.
//
// Figures: peak queue, whole-run utilization, steady utilization (the second
// half of the run), settling time (flows within ±5 % of the fair share for
// good), mean queue in steady state. derived_ok() is the acceptance test the
// plan is held to: steady utilization >= 0.95 and a peak under the buffer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::cc {

struct FluidSummary {
  std::string profile;  // "derived" or "vendor"
  RedMarking red;
  DcqcnModelParams dcqcn;
  double peak_queue_bytes = 0;
  double utilization = 0;         // whole run
  double steady_utilization = 0;  // second half
  double steady_queue_bytes = 0;  // second half, mean
  double marked_fraction = 0;
  std::optional<double> convergence_us;
  bool under_buffer = true;
  FluidResult result;  // the full run (trace for plots)
};

struct CcValidation {
  int32_t senders = 1;
  double start_fraction = 1;
  double link_gbps = 0;
  double feedback_delay_us = 0;
  double buffer_bytes = 0;  // usable: buffer - PFC headroom
  double duration_us = 0;
  FluidScenario scenario;  // what both profiles ran (for plots: report::cc_fluid_svg)
  FluidSummary derived;
  FluidSummary vendor;
  // What the run shows that the plan's first-RTT estimate did not (e.g. a burst
  // that overflows the buffer), with the remedy.
  std::vector<std::string> warnings;

  [[nodiscard]] bool derived_ok() const {
    return derived.steady_utilization >= 0.95 && derived.under_buffer;
  }
};

// Runs the plan's leaf->host ECN and DCQCN, and the vendor defaults, through
// the fluid model. Errors: start_fraction outside (0, 1], duration outside
// (0, 1 s], and the model's own (named) errors.
RAILYARD_LAZY
[[nodiscard]] StatusOr<CcValidation> validate_cc(const CcPlan& plan,
                                                              double start_fraction = 1.0,
                                                              double duration_us = 20'000) {
  if (!(start_fraction > 0 && start_fraction <= 1))
    return invalid_field("start_fraction", str_cat(start_fraction), "must be in (0, 1]");
  if (!(duration_us > 0 && duration_us <= 1e6))
    return invalid_field("duration_us", str_cat(duration_us), "must be in (0, 1e6]");
  if (plan.ecn.empty() || plan.paths.empty())
    return invalid_field("plan", "empty", "derive_cc() first");
  CcValidation v;
  v.senders = plan.incast;
  v.start_fraction = start_fraction;
  v.link_gbps = plan.link_gbps;
  v.feedback_delay_us = plan.paths.back().rtt_us;
  v.buffer_bytes = plan.ecn.front().usable_bytes;
  v.duration_us = duration_us;
  FluidScenario s;
  s.senders = plan.incast;
  s.line_gbps = plan.link_gbps;
  s.bottleneck_gbps = plan.link_gbps;
  s.feedback_delay_us = v.feedback_delay_us;
  s.buffer_bytes = v.buffer_bytes;
  s.packet_bytes = plan.frame_bytes;
  s.duration_us = duration_us;
  s.start_rate_fraction = start_fraction;
  v.scenario = s;
  auto run = [&](std::string profile, const RedMarking& red,
                 const DcqcnModelParams& q) -> StatusOr<FluidSummary> {
    RAILYARD_ASSIGN_OR_RETURN(FluidResult r, simulate_dcqcn(q, red, s));
    FluidSummary out;
    out.profile = std::move(profile);
    out.red = red;
    out.dcqcn = q;
    out.peak_queue_bytes = r.peak_queue_bytes;
    out.utilization = r.utilization;
    out.steady_utilization = r.second_half.utilization;
    out.steady_queue_bytes = r.second_half.queue_bytes;
    out.marked_fraction = r.marked_fraction;
    out.convergence_us = r.convergence_us;
    out.under_buffer = !r.exceeded_buffer;
    out.result = std::move(r);
    return out;
  };
  const EcnTier& edge = plan.ecn.front();  // leaf->host
  RAILYARD_ASSIGN_OR_RETURN(v.derived,
                            run("derived", RedMarking{edge.kmin_bytes, edge.kmax_bytes, edge.pmax},
                                model_params(plan.dcqcn)));
  RAILYARD_ASSIGN_OR_RETURN(
      v.vendor, run("vendor", vendor_default_red(), model_params(connectx_default_dcqcn())));
  if (!v.derived.under_buffer)
    v.warnings.push_back(str_cat(
        "fluid model: ", v.senders, " senders starting at ", detail::num(start_fraction * 100),
        "% of line rate peak at ", detail::num(v.derived.peak_queue_bytes / 1e6), " MB, over the ",
        detail::num(v.buffer_bytes / 1e6), " MB a port holds before PFC; limit each sender to ",
        detail::num(plan.link_gbps / v.senders),
        " Gb/s for this traffic (per-QP rate limit; check with --start-rate 1/", v.senders,
        ") or expect pauses"));
  return v;
}

}  // namespace railyard::cc
