// A derived congestion-control plan checked as an engineer would: the search on
// the NIC model against the vendor defaults, the paper's fluid model beside it,
// the sensitivity of the verdict, and the recommendation put into the plan.
#include "railyard/cc/validate.hpp"

#include <doctest/doctest.h>

#include <string>

#include "railyard/report/cc_report.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_validate_test {

namespace {

railyard::cc::CcPlan plan_for(const char* preset, int32_t incast) {
  auto cluster = railyard::topology::make_cluster(preset);
  REQUIRE(cluster.ok());
  railyard::cc::CcInputs in;
  in.incast = incast;
  auto plan = railyard::cc::derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  return *plan;
}

railyard::cc::CcValidation check(const char* preset, int32_t incast, double start,
                                 bool sensitivity = false) {
  railyard::cc::CcValidateOptions o;
  o.duration_us = 2'000;
  o.sensitivity = sensitivity;
  auto v = railyard::cc::validate_cc(plan_for(preset, incast), start, o);
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("cc validate: on the NIC model the rule-derived set is worse than the defaults at 8:1") {
  const auto v = check("h100-1024-2to1", 8, 1.0, true);
  const auto& s = v.search;
  REQUIRE(s.candidates.size() >= 2);
  CHECK(s.candidates[0].candidate.name == "vendor");
  CHECK(s.candidates[1].candidate.name == "derived");
  REQUIRE(s.scenarios.size() == 3);  // burst, fairness, tenants (start rate 1: no job scenario)
  CHECK(s.scenarios[0].name == "burst");
  const auto& vendor = s.candidates[0].metrics[0];
  const auto& derived = s.candidates[1].metrics[0];
  // The defaults recover (no pause); the derived set (23 µs decrease period,
  // 20 µs timer, 100/1000 Mb/s AI/HAI) pins the queue at the PFC threshold.
  CHECK(vendor.pauses == 0);
  CHECK(vendor.steady_utilization > 0.9);
  CHECK(derived.pauses > 0);
  CHECK(derived.peak_queue_bytes > vendor.peak_queue_bytes);
  CHECK_FALSE(s.candidates[1].no_worse);
  // Whatever is recommended is no worse than the defaults anywhere.
  for (size_t i = 0; i < s.scenarios.size(); ++i)
    CHECK(railyard::cc::no_worse(s.candidates[s.recommended].metrics[i], s.candidates[0].metrics[i]));
  // The paper's fluid model: the defaults never recover from the same burst
  // (no hyper increase, target clamped on every cut) — the artefact the NIC
  // model removes.
  CHECK(v.fluid_vendor.steady_utilization < 0.5);
  // Sensitivity: seven variants, each naming a candidate.
  REQUIRE(v.sensitivity.size() == 7);
  for (const auto& row : v.sensitivity) CHECK_FALSE(row.recommended_name.empty());
}

TEST_CASE("cc validate: a 64-way line-rate burst pauses senders under every candidate") {
  const auto v = check("h100-1024-2to1", 64, 1.0);
  for (const auto& c : v.search.candidates) {
    CAPTURE(c.candidate.name);
    CHECK(c.metrics.front().pauses > 0);  // the burst scenario
    CHECK(c.metrics.front().drops == 0);  // the headroom holds
  }
  REQUIRE_FALSE(v.warnings.empty());
  CHECK(v.warnings.front().find("limit each sender to 6.25 Gb/s") != std::string::npos);
}

TEST_CASE("cc validate: an all-to-all's start rate adds the job scenario") {
  const auto v = check("h100-1024", 8, 1.0 / 8);
  REQUIRE(v.search.scenarios.size() == 4);
  CHECK(v.search.scenarios[1].name == "job");
  CHECK(v.search.scenarios[1].scenario.start_fraction == doctest::Approx(0.125));
}

TEST_CASE("cc validate: the recommendation goes into the plan") {
  auto plan = plan_for("h100-1024-2to1", 8);
  railyard::cc::CcSearchOptions o;
  o.duration_us = 1'000;
  auto s = railyard::cc::search_cc(plan, o);
  REQUIRE(s.ok());
  // Force a pick to see it applied: the first grid candidate with derived ECN.
  railyard::cc::CcSearch forced = *s;
  size_t with_ecn = 0;
  for (size_t i = 2; i < forced.candidates.size(); ++i)
    if (forced.candidates[i].candidate.derived_ecn) {
      with_ecn = i;
      break;
    }
  REQUIRE(with_ecn > 0);
  forced.recommended = with_ecn;
  railyard::cc::apply_recommendation(plan, forced);
  CHECK(plan.dcqcn.increase_timer_us == forced.candidates[with_ecn].candidate.dcqcn.increase_timer_us);
  CHECK(plan.ecn.front().kmin_bytes == plan.derived_ecn.front().kmin_bytes);
  CHECK(plan.recommendation.find(forced.candidates[with_ecn].candidate.name) == 0);
  bool named = false;
  for (const auto& v : plan.dcqcn_settings)
    named = named || (v.name == "rp_time_reset" && v.reason.find("searched") == 0);
  CHECK(named);
  // The defaults picked: the plan keeps its defaults.
  auto kept = plan_for("h100-1024-2to1", 8);
  forced.recommended = 0;
  railyard::cc::apply_recommendation(kept, forced);
  CHECK(kept.dcqcn.increase_timer_us == 300);
  CHECK(kept.ecn.front().kmin_bytes == 150000);
  CHECK(kept.recommendation.find("vendor defaults") == 0);
}

TEST_CASE("cc validate: bad input names the field and value") {
  const auto plan = plan_for("h100-1024", 1);
  auto a = railyard::cc::validate_cc(plan, 0.0);
  REQUIRE_FALSE(a.ok());
  CHECK(std::string(a.status().message()).find("start_fraction=0") != std::string::npos);
  auto b = railyard::cc::validate_cc(plan, 1.5);
  REQUIRE_FALSE(b.ok());
  railyard::cc::CcValidateOptions o;
  o.duration_us = 0;
  auto c = railyard::cc::validate_cc(plan, 1.0, o);
  REQUIRE_FALSE(c.ok());
  CHECK(std::string(c.status().message()).find("duration_us=0") != std::string::npos);
  const railyard::cc::CcPlan empty;
  auto d = railyard::cc::validate_cc(empty, 1.0);
  REQUIRE_FALSE(d.ok());
  CHECK(std::string(d.status().message()).find("plan=empty") != std::string::npos);
}

TEST_CASE("cc validate: the fluid run's scenario is kept, and plots as the derived run") {
  const auto v = check("h100-1024", 8, 0.5);
  CHECK(v.scenario.senders == 8);
  CHECK(v.scenario.start_rate_fraction == 0.5);
  CHECK(v.scenario.line_gbps == v.link_gbps);
  CHECK(v.scenario.buffer_bytes == v.buffer_bytes);
  CHECK(v.scenario.duration_us == v.duration_us);
  auto svg = railyard::report::cc_fluid_svg(v);
  REQUIRE(svg.ok());
  CHECK(svg->find("8 DCQCN senders into one 400 Gb/s port (derived settings") != std::string::npos);
  CHECK(svg->find("</svg>") != std::string::npos);
}

}  // namespace railyard_test_cc_validate_test
