// railyard/cc/validate.hpp — a congestion-control plan checked the way an
// engineer would before touching a fleet: the settings searched on the NIC and
// switch model (cc/recommend.hpp) against the vendor defaults, the paper's
// fluid model beside it, and how the verdict moves when the model's uncertain
// readings and constants change.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto plan = railyard::cc::derive_cc(*cluster, {.incast = 8});
//   auto check = railyard::cc::validate_cc(*plan);          // senders start at line rate
//   // check->search.candidates[0] (vendor), [1] (derived), [check->search.recommended]
//   // check->fluid_vendor / fluid_derived: the paper's fluid model, same burst
//   // check->sensitivity[i] {variant, recommended_name, holds}
//   railyard::cc::apply_recommendation(*plan, check->search);
//
// The paper's fluid model (cc/dcqcn_fluid.hpp) runs the burst scenario: `incast`
// senders at the start fraction into the leaf->host port, feedback delay = the
// longest base RTT, no PFC (its queue is only compared with the usable buffer).
// Sensitivity: the search again under each ambiguous reading (dce_tcp_g as the
// new sample's weight, CNP pacing per port, a constant hyper step) and with the
// RTT and the buffer at 0.5× and 1.5×; `holds` when the recommendation under
// the variant is the same one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/recommend.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::cc {

struct FluidSummary {
  std::string profile;  // "vendor" or "derived"
  RedMarking red;
  DcqcnModelParams dcqcn;
  double peak_queue_bytes = 0;
  double utilization = 0;         // whole run
  double steady_utilization = 0;  // second half
  double steady_queue_bytes = 0;  // second half, mean
  double jain_fairness = 1;       // second half
  std::optional<double> convergence_us;
  bool under_buffer = true;
  FluidResult result;  // the full run (trace for plots)
};

struct SensitivityRow {
  std::string variant;
  std::string recommended_name;  // the search's pick under the variant
  bool holds = true;             // the same pick as without the variant
};

struct CcValidateOptions {
  double duration_us = 5'000;  // per scenario of the search (and the fluid run)
  bool sensitivity = true;
  NicReadings readings;
};

struct CcValidation {
  int32_t senders = 1;
  double start_fraction = 1;
  double link_gbps = 0;
  double feedback_delay_us = 0;
  double buffer_bytes = 0;  // usable: buffer - PFC headroom
  double duration_us = 0;
  CcSearch search;          // the NIC model
  FluidScenario scenario;   // what the fluid runs ran (for plots)
  FluidSummary fluid_vendor;
  FluidSummary fluid_derived;
  std::vector<SensitivityRow> sensitivity;
  std::vector<std::string> warnings;
};

// Errors (InvalidArgument naming the value): start_fraction outside (0, 1],
// duration outside (0, 1 s], an empty plan, and the models' own.
RAILYARD_LAZY
[[nodiscard]] StatusOr<CcValidation> validate_cc(const CcPlan& plan, double start_fraction = 1.0,
                                                 const CcValidateOptions& options = {}) {
  if (!(start_fraction > 0 && start_fraction <= 1))
    return invalid_field("start_fraction", str_cat(start_fraction), "must be in (0, 1]");
  if (!(options.duration_us > 0 && options.duration_us <= 1e6))
    return invalid_field("duration_us", str_cat(options.duration_us), "must be in (0, 1e6]");
  if (plan.ecn.empty() || plan.derived_ecn.empty() || plan.paths.empty())
    return invalid_field("plan", "empty", "derive_cc() first");
  CcValidation v;
  v.senders = plan.incast;
  v.start_fraction = start_fraction;
  v.link_gbps = plan.link_gbps;
  v.feedback_delay_us = plan.paths.back().rtt_us;
  v.buffer_bytes = plan.ecn.front().usable_bytes;
  v.duration_us = options.duration_us;

  CcSearchOptions so;
  so.duration_us = options.duration_us;
  so.start_fraction = start_fraction;
  so.readings = options.readings;
  RAILYARD_ASSIGN_OR_RETURN(v.search, search_cc(plan, so));

  // The paper's fluid model on the burst.
  FluidScenario s;
  s.senders = plan.incast;
  s.line_gbps = plan.link_gbps;
  s.bottleneck_gbps = plan.link_gbps;
  s.feedback_delay_us = v.feedback_delay_us;
  s.buffer_bytes = v.buffer_bytes;
  s.packet_bytes = plan.frame_bytes;
  s.duration_us = options.duration_us;
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
    out.jain_fairness = r.second_half.jain_fairness;
    out.convergence_us = r.convergence_us;
    out.under_buffer = !r.exceeded_buffer;
    out.result = std::move(r);
    return out;
  };
  RAILYARD_ASSIGN_OR_RETURN(v.fluid_vendor,
                            run("vendor", v.search.candidates[0].candidate.red,
                                model_params(connectx_default_dcqcn())));
  RAILYARD_ASSIGN_OR_RETURN(v.fluid_derived, run("derived", v.search.candidates[1].candidate.red,
                                                 model_params(plan.derived_dcqcn)));

  if (options.sensitivity) {
    const std::string& pick = v.search.candidates[v.search.recommended].candidate.name;
    struct Variant {
      std::string name;
      CcSearchOptions o;
    };
    std::vector<Variant> variants;
    auto add = [&](std::string name, auto&& change) {
      CcSearchOptions o = so;
      change(o);
      variants.push_back({std::move(name), o});
    };
    add("dce_tcp_g weighs the new sample",
        [](CcSearchOptions& o) { o.readings.alpha_gain = AlphaGainReading::kNewSampleWeight; });
    add("CNP pacing per port", [](CcSearchOptions& o) { o.readings.cnp_pacing = CnpPacing::kPerPort; });
    add("constant hyper step", [](CcSearchOptions& o) { o.readings.hyper_step = HyperStep::kConstant; });
    add("RTT x 0.5", [](CcSearchOptions& o) { o.rtt_scale = 0.5; });
    add("RTT x 1.5", [](CcSearchOptions& o) { o.rtt_scale = 1.5; });
    add("buffer x 0.5", [](CcSearchOptions& o) { o.buffer_scale = 0.5; });
    add("buffer x 1.5", [](CcSearchOptions& o) { o.buffer_scale = 1.5; });
    for (const Variant& var : variants) {
      RAILYARD_ASSIGN_OR_RETURN(const CcSearch alt, search_cc(plan, var.o));
      const std::string& alt_pick = alt.candidates[alt.recommended].candidate.name;
      v.sensitivity.push_back({var.name, alt_pick, alt_pick == pick});
    }
  }

  // Pauses under the recommendation: the synchronized burst, and the job's own start.
  const CandidateScore& pick = v.search.candidates[v.search.recommended];
  for (size_t i = 0; i < v.search.scenarios.size(); ++i) {
    const CcScenario& sc = v.search.scenarios[i];
    if (sc.name != "burst" && sc.name != "job") continue;
    const IncastMetrics& m = pick.metrics[i];
    if (m.pauses == 0) continue;
    v.warnings.push_back(str_cat(
        "NIC model, ", sc.name, " scenario: ", v.senders, " senders starting at ",
        detail::num(sc.scenario.start_fraction * 100), "% of line rate trigger ", m.pauses,
        " PFC pauses (a sender paused ", detail::num(m.paused_us_max),
        " us) under the recommended settings; limit each sender to ",
        detail::num(plan.link_gbps / v.senders),
        " Gb/s for this traffic (per-QP rate limit) or accept the pauses"));
  }
  return v;
}

}  // namespace railyard::cc
