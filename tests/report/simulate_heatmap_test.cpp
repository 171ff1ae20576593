// simulate_heatmap_svg: the title and legend say which metric a map shows;
// parse_heatmap_metric names the field and value it rejects.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "railyard/report/simulate_report.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_simulate_heatmap_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::report::HeatmapMetric;
using railyard::report::simulate_heatmap_svg;
using railyard::routing::GpuEndpoint;

std::vector<std::vector<GpuEndpoint>> two_hosts() {
  std::vector<std::vector<GpuEndpoint>> g(1);
  for (int32_t h = 0; h < 2; ++h)
    for (int32_t i = 0; i < 8; ++i) g[0].push_back({HostId{h}, GpuIndex{i}});
  return g;
}

}  // namespace

TEST_CASE("simulate_heatmap_svg: average and peak maps say which they are") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  railyard::sim::CollectiveSimOptions o;
  o.algorithm = railyard::collective::Algorithm::kHierarchical;
  auto r = railyard::sim::simulate_collective(
      *cluster, two_hosts(), railyard::collective::Collective::kAllReduce, int64_t{1} << 28, o);
  REQUIRE(r.ok());
  auto average = simulate_heatmap_svg(cluster->fabric, *r);
  REQUIRE(average.ok());
  CHECK(average->find("<title>allreduce hierarchical, ecmp routing, 1 x 16 ranks, 256 MiB: ") !=
        std::string::npos);
  CHECK(average->find(" us, link utilization averaged over the run</title>") != std::string::npos);
  CHECK(average->find("values: average over the run: per link, bytes / (capacity x " +
                      railyard::fixed(r->time_us, 1) + " us, the whole collective)") !=
        std::string::npos);
  auto peak = simulate_heatmap_svg(cluster->fabric, *r, HeatmapMetric::kPeak);
  REQUIRE(peak.ok());
  CHECK(peak->find(" us, peak link utilization (busiest step)</title>") != std::string::npos);
  CHECK(peak->find("values: peak: per link, its busiest step&#39;s bytes / (capacity x that "
                   "step&#39;s transfer time)") != std::string::npos);
  // The NICs idle through the NVLink phases: the peak map's top is higher.
  const double avg_top = railyard::report::heatmap_busiest(cluster->fabric, r->link_utilization);
  const double peak_top =
      railyard::report::heatmap_busiest(cluster->fabric, r->link_peak_utilization);
  CHECK(peak_top > avg_top);
  CHECK(peak->find("scale: darkest #800026 = " + railyard::report::percent(peak_top)) !=
        std::string::npos);

  r->link_peak_utilization.clear();
  auto missing = simulate_heatmap_svg(cluster->fabric, *r, HeatmapMetric::kPeak);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(missing.status().message() ==
        "the report keeps no per-link peak utilization (CollectiveSimOptions::keep_links)");
}

TEST_CASE("parse_heatmap_metric") {
  CHECK(*railyard::report::parse_heatmap_metric("svg-metric", "average") ==
        HeatmapMetric::kAverage);
  CHECK(*railyard::report::parse_heatmap_metric("svg-metric", "peak") == HeatmapMetric::kPeak);
  auto bad = railyard::report::parse_heatmap_metric("svg-metric", "max");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "svg-metric=max: must be average or peak");
  CHECK(railyard::report::heatmap_metric_name(HeatmapMetric::kPeak) == "peak");
  CHECK(railyard::report::heatmap_metric_name(HeatmapMetric::kAverage) == "average");
}

}  // namespace railyard_test_report_simulate_heatmap_test
