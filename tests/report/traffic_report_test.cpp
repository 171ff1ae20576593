// The traffic report's per-flow dump: one row per input flow, in input order,
// with the simulator's figures; CSV and JSON carry the same numbers.
#include "railyard/report/traffic_report.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "railyard/core/strings.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_traffic_report_test {

TEST_CASE("traffic report: per-flow CSV and JSON, text summary") {
  // k=4 fat tree at 100 Gb/s; two hosts into host 0, 125 kB each: 20 us fluid.
  auto c = railyard::topology::make_cluster(
      "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,nic_gbps=100,hosts_per_su=2,"
      "switch_radix=4,tiers=3,sus_per_pod=2");
  REQUIRE(c.ok());
  using railyard::GpuEndpoint;
  const std::vector<railyard::sim::TrafficFlow> flows = {
      {GpuEndpoint{railyard::HostId{1}, railyard::GpuIndex{0}}, GpuEndpoint{railyard::HostId{0}, railyard::GpuIndex{0}}, 125000},
      {GpuEndpoint{railyard::HostId{2}, railyard::GpuIndex{0}}, GpuEndpoint{railyard::HostId{0}, railyard::GpuIndex{0}}, 125000, 3.5}};
  railyard::sim::TrafficSimOptions o;
  o.queueing.enabled = false;
  auto r = railyard::sim::simulate_traffic(*c, flows, o);
  REQUIRE(r.ok());
  const std::string csv = railyard::report::traffic_flows_csv(flows, *r);
  const auto lines = railyard::split(csv, '\n');
  REQUIRE(lines.size() == 4);  // header, two rows, trailing empty
  CHECK(lines[0] == "flow,src,dst,bytes,start_us,fct_us,transfer_us,queue_us,latency_us,ideal_us");
  for (size_t i = 0; i < 2; ++i) {
    const auto f = railyard::split(lines[i + 1], ',');
    REQUIRE(f.size() == 10);
    CHECK(f[0] == std::to_string(i));
    CHECK(f[1] == (i == 0 ? "1:0" : "2:0"));
    CHECK(f[2] == "0:0");
    CHECK(f[4] == railyard::fixed(flows[i].start_us, 3));
    CHECK(f[5] == railyard::fixed(r->flows[i].fct_us, 3));
    CHECK(f[6] == railyard::fixed(r->flows[i].transfer_us, 3));
    CHECK(f[8] == railyard::fixed(r->flows[i].latency_us, 3));
    // fct = transfer + queue + latency, to the printed precision.
    CHECK(std::stod(std::string(f[5])) ==
          doctest::Approx(std::stod(std::string(f[6])) + std::stod(std::string(f[7])) +
                          std::stod(std::string(f[8])))
              .epsilon(1e-4));
  }
  const std::string json = railyard::report::traffic_flows_json(flows, *r);
  CHECK(json.find("{\"flow\":0,\"src\":\"1:0\",\"dst\":\"0:0\",\"bytes\":125000,\"start_us\":0,") == 0 + 1);
  CHECK(json.find("\"start_us\":3.5,") != std::string::npos);
  const std::string text = railyard::report::traffic_text(flows, *r, o);
  CHECK(text.find("traffic: 2 flows (2 simulator flows), routing ecmp (seed 1)\n") == 0);
  CHECK(text.find("queueing: off") != std::string::npos);
  CHECK(text.find(railyard::str_cat("max ", railyard::fixed(r->max_fct_us, 3))) != std::string::npos);
}

TEST_CASE("traffic report: steered names its hash, and says when it cannot steer") {
  auto c = railyard::topology::make_cluster(
      "rail_fat_tree:hosts=16,gpus_per_host=1,nics_per_host=1,nic_gbps=100,hosts_per_su=2,"
      "switch_radix=4,tiers=3,sus_per_pod=2");
  REQUIRE(c.ok());
  using railyard::GpuEndpoint;
  const std::vector<railyard::sim::TrafficFlow> flows = {
      {GpuEndpoint{railyard::HostId{1}, railyard::GpuIndex{0}},
       GpuEndpoint{railyard::HostId{9}, railyard::GpuIndex{0}}, 125000, 0.0, 2}};
  railyard::sim::TrafficSimOptions o;
  o.routing = railyard::sim::TrafficRouting::kSteered;
  o.seed = 3;
  auto r = railyard::sim::simulate_traffic(*c, flows, o);
  REQUIRE(r.ok());
  CHECK(railyard::report::traffic_text(flows, *r, o)
            .find("traffic: 1 flows (2 simulator flows), routing steered (hash crc32, seed 3)\n") == 0);
  std::string json = railyard::report::traffic_json(flows, *r, o, 0);
  CHECK(json.find("\"routing\":\"steered\",\"hash_model\":\"crc32\",\"steerable\":true,") !=
        std::string::npos);
  const railyard::routing::UniformRandomHash unknown(3);
  o.switch_hash = &unknown;
  r = railyard::sim::simulate_traffic(*c, flows, o);
  REQUIRE(r.ok());
  CHECK(railyard::report::traffic_text(flows, *r, o)
            .find("routing steered (hash random: not steerable, QPs land where it puts them; "
                  "seed 3)\n") != std::string::npos);
  json = railyard::report::traffic_json(flows, *r, o, 0);
  CHECK(json.find("\"hash_model\":\"random\",\"steerable\":false,") != std::string::npos);
  // Adaptive hashes nothing: no hash in the report.
  o.routing = railyard::sim::TrafficRouting::kAdaptive;
  o.switch_hash = nullptr;
  r = railyard::sim::simulate_traffic(*c, flows, o);
  REQUIRE(r.ok());
  CHECK(railyard::report::traffic_text(flows, *r, o).find("routing adaptive\n") != std::string::npos);
  CHECK(railyard::report::traffic_json(flows, *r, o, 0).find("hash_model") == std::string::npos);
}

}  // namespace railyard_test_report_traffic_report_test
