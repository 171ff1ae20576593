#include "railyard/placement/replay.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/report/place_report.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_replay_test {

using namespace railyard;
using namespace railyard::placement;

namespace {

topology::ClusterDescriptor<> descriptor(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

std::string message(const absl::Status& s) { return railyard::testing::message_text(s); }

// tests/data/job_trace.csv, found next to this file (no working-directory assumption).
std::string shipped_trace() {
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of('/'));
  path += "/../data/job_trace.csv";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("replay: parse_job_trace reads the format and names line and token on errors") {
  auto ok = parse_job_trace(
      "# a comment\n"
      "time,name,gpus,duration\r\n"
      "0,a,8,3600\n"
      "\n"
      " 10.5 , b , 16 , 0.25 \n");
  REQUIRE(ok.ok());
  REQUIRE(ok->size() == 2);
  CHECK((*ok)[1].time_s == 10.5);
  CHECK((*ok)[1].name == "b");
  CHECK((*ok)[1].gpus == 16);
  CHECK((*ok)[1].duration_s == 0.25);
  CHECK((*ok)[1].line == 5);

  struct Bad {
    std::string_view text;
    std::string_view expect;
  };
  const Bad bad[] = {
      {"0,a,8,1\n", "line 1: header=0,a,8,1: expected the header"},
      {"", "no header"},
      {"time,name,gpus,duration\n0,a,eight,1\n", "line 2: gpus=eight"},
      {"time,name,gpus,duration\n-5,a,8,1\n", "line 2: time=-5"},
      {"time,name,gpus,duration\n0,a,8,1h\n", "line 2: duration=1h"},
      {"time,name,gpus,duration\n0,a,8\n", "line 2: row=0,a,8: expected 4 fields"},
      {"time,name,gpus,duration\n0,,8,1\n", "line 2: name="},
      {"time,name,gpus,duration\n0,a,8,1\n1,a,8,1\n",
       "line 3: name=a: duplicate job name (first on line 2)"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    auto r = parse_job_trace(b.text);
    REQUIRE(!r.ok());
    CHECK(message(r.status()).find(b.expect) != std::string::npos);
  }

  // The field travels with the error: the column, or header / row for a line.
  auto bad_gpus = parse_job_trace("time,name,gpus,duration\r\n0,a,eight,1\r\n");
  REQUIRE_FALSE(bad_gpus.ok());
  CHECK(message(bad_gpus.status()) == "line 2: gpus=eight: expected a non-negative integer");
  REQUIRE(error_field(bad_gpus.status()).has_value());
  CHECK(error_field(bad_gpus.status())->field == "gpus");
  CHECK(error_field(bad_gpus.status())->value == "eight");
  auto bad_row = parse_job_trace("time,name,gpus,duration\n 0,a,8 \n");
  REQUIRE_FALSE(bad_row.ok());
  CHECK(message(bad_row.status()) ==
        "line 2: row=0,a,8: expected 4 fields (time,name,gpus,duration), got 3");
  CHECK(error_field(bad_row.status())->field == "row");
  CHECK(error_field(bad_row.status())->value == "0,a,8");
}

TEST_CASE("replay: FIFO without backfilling, known answers") {
  // 4 SUs of 8 hosts, 256 GPUs.
  const auto desc = descriptor("rail_fat_tree:hosts=32,hosts_per_su=8");
  auto trace = parse_job_trace(
      "time,name,gpus,duration\n"
      "0,x,128,100\n"     // 16 hosts, 0..100
      "1,y,256,100\n"     // whole cluster: waits for x, 100..200
      "2,z,8,10\n"        // would fit at 2, but may not overtake y: 200..210
      "3,huge,2048,10\n"  // larger than the cluster: rejected, does not block
      "4,odd,12,10\n");   // not whole hosts: rejected
  REQUIRE(trace.ok());
  auto r = replay(desc, *trace);
  REQUIRE(r.ok());
  CHECK(r->jobs == 5);
  CHECK(r->completed == 3);
  CHECK(r->rejected == std::vector<std::string>{"huge", "odd"});
  CHECK(r->makespan_s == 210);
  CHECK(r->utilization == doctest::Approx((128.0 * 100 + 256.0 * 100 + 8.0 * 10) / (256.0 * 210)));
  CHECK(r->mean_queue_delay_s == doctest::Approx((0.0 + 99 + 198) / 3));
  CHECK(r->p95_queue_delay_s == 198);
  CHECK(r->max_queue_delay_s == 198);
  CHECK(r->max_queue_length == 2);
  CHECK(r->split_across_sus == 2);  // x (16 hosts) and y (32) need 2 and 4 SUs
  CHECK(r->avoidable_su_splits == 0);

  // A departure and an arrival at the same instant: the departure comes first.
  auto same = parse_job_trace("time,name,gpus,duration\n0,a,256,50\n50,b,256,50\n");
  REQUIRE(same.ok());
  auto r2 = replay(desc, *same);
  REQUIRE(r2.ok());
  CHECK(r2->mean_queue_delay_s == 0);
  CHECK(r2->utilization == doctest::Approx(1.0));
}

TEST_CASE("replay: the shipped trace — best_fit splits fewer jobs than first_fit and random") {
  auto trace = parse_job_trace(shipped_trace());
  REQUIRE_MESSAGE(trace.ok(), message(trace.status()));
  CHECK(trace->size() == 700);

  struct Case {
    std::string_view spec;
    bool pods;  // several pods: compare pod splits too
  };
  for (const Case c :
       {Case{"h100-1024-2to1", false},
        Case{"rail_fat_tree:hosts=128,hosts_per_su=16,tiers=3,sus_per_pod=2", true}}) {
    CAPTURE(c.spec);
    const auto desc = descriptor(c.spec);
    auto reports = replay_policies(desc, *trace);
    REQUIRE(reports.ok());
    REQUIRE(reports->size() == 3);
    MESSAGE("replay of tests/data/job_trace.csv on ", std::string(c.spec), "\n",
            railyard::report::replay_text(*reports));
    const ReplayReport& best = (*reports)[0];
    const ReplayReport& first = (*reports)[1];
    const ReplayReport& random = (*reports)[2];
    CHECK(best.policy == Policy::kBestFit);
    for (const ReplayReport& r : *reports) {
      CHECK(r.completed == 700);
      CHECK(r.rejected.empty());
      CHECK(r.utilization > 0);
      CHECK(r.utilization <= 1);
      CHECK(r.p95_queue_delay_s <= r.max_queue_delay_s);
    }
    CHECK(best.split_across_sus < first.split_across_sus);
    CHECK(best.split_across_sus < random.split_across_sus);
    CHECK(best.avoidable_su_splits < first.avoidable_su_splits);
    if (c.pods) {
      CHECK(best.split_across_pods < first.split_across_pods);
      CHECK(best.split_across_pods < random.split_across_pods);
    }
    // Placement does not change when a job can start (every policy places any job
    // the free hosts hold), so the queueing figures agree across policies.
    CHECK(best.mean_queue_delay_s == first.mean_queue_delay_s);
    CHECK(best.makespan_s == random.makespan_s);
  }
  // Deterministic: the same seed gives the same report.
  const auto desc = descriptor("h100-1024-2to1");
  AllocatorOptions options;
  options.policy = Policy::kRandom;
  auto a = replay(desc, *trace, options);
  auto b = replay(desc, *trace, options);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->split_across_sus == b->split_across_sus);
}

TEST_CASE("replay: place_jobs places a --jobs list in order") {
  const auto desc = descriptor("h100-1024-2to1");
  auto r = place_jobs(desc, "a:gpus=256; b:gpus=64,tenant=t2 ;c : gpus = 8 , tenant = t2;",
                      Policy::kBestFit);
  REQUIRE_MESSAGE(r.ok(), message(r.status()));
  REQUIRE(r->placed.size() == 3);
  CHECK(r->unplaced.empty());
  CHECK(r->placed[0].name == "a");
  CHECK(r->placed[0].tenant == "a");
  CHECK(r->placed[0].sus == std::vector<SuId>{SuId{0}});
  CHECK(r->placed[1].sus == std::vector<SuId>{SuId{1}});
  CHECK(r->placed[1].hosts.front() == HostId{32});
  CHECK(r->placed[2].sus == std::vector<SuId>{SuId{1}});  // SU1 has 24 free: best fit
  CHECK(r->placed[0].partition_id == 1);
  CHECK(r->placed[1].partition_id == 2);
  CHECK(r->placed[2].partition_id == 2);
  CHECK(r->free_hosts == 128 - 32 - 8 - 1);

  auto full = place_jobs(desc, "a:gpus=1004;b:gpus=8", Policy::kFirstFit);
  REQUIRE(!full.ok());  // 1004 is not whole hosts
  CHECK(message(full.status()) ==
        "job 'a': gpus=1004: not a multiple of gpus_per_host=8 (jobs take whole hosts)");

  auto partly = place_jobs(desc, "a:gpus=1016;b:gpus=16;c:gpus=8");
  REQUIRE(partly.ok());
  REQUIRE(partly->placed.size() == 2);
  REQUIRE(partly->unplaced.size() == 1);
  CHECK(partly->unplaced[0].name == "b");
  CHECK(partly->unplaced[0].reason.find("gpus=16") != std::string::npos);
  CHECK(partly->unplaced[0].reason.find("1 of 128 hosts free") != std::string::npos);
  CHECK(partly->free_hosts == 0);
}

TEST_CASE("replay: place_jobs errors name the job and the key") {
  const auto desc = descriptor("h100-1024-2to1");
  struct Bad {
    std::string_view jobs;
    std::string_view expect;
  };
  const Bad bad[] = {
      {"a", "job 'a': gpus=: missing"},
      {"a:tenant=t", "job 'a': gpus=: missing"},
      {"a:gpus=abc", "job 'a': gpus=abc: expected a non-negative integer"},
      {"a:gpu=8", "job 'a': gpu=8: unknown key (keys: gpus, tenant, tp, cp, ep, dp, pp"},
      {"a:gpus", "job 'a': gpus: expected key=value"},
      {"a:gpus=8,gpus=16", "job 'a': gpus=16: key given twice"},
      {"a:gpus=8,tenant=", "job 'a': tenant=: tenant name is empty"},
      {"a:gpus=8;a:gpus=8", "job 'a': name=a: duplicate job name"},
      {":gpus=8", "job 1 (':gpus=8'): name is empty"},
      {"a:gpus=0", "job 'a': gpus=0: must be positive"},
      {"a:gpus=2048", "job 'a': gpus=2048: larger than the cluster (1024 GPUs"},
      {"a:gpus=12", "job 'a': gpus=12: not a multiple of gpus_per_host=8"},
      {"a:tp=16,dp=2", "job 'a': tp=16: larger than the 8-GPU NVLink domain"},
      {"x y:gpus=8", "job 'x y': name=x y: only letters"},
      {"a:gpus=8,tenant=lab 2", "job 'a': tenant=lab 2: only letters, digits"},
      {"a:gpus=8,tenant=t\r\n", "job 'a': tenant=t\r\n: only letters, digits"},
      {" ; ", "no jobs in the list"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.jobs);
    auto r = place_jobs(desc, b.jobs);
    REQUIRE(!r.ok());
    CHECK_MESSAGE(message(r.status()).find(b.expect) != std::string::npos, message(r.status()));
    CHECK(railyard::error_field(r.status()).has_value());
  }
  // The field travels with the status: gpus, not the message, says what was wrong.
  auto wrong = place_jobs(desc, "a:gpus=12");
  REQUIRE(railyard::error_field(wrong.status()).has_value());
  CHECK(railyard::error_field(wrong.status())->field == "gpus");
  CHECK(railyard::error_field(wrong.status())->value == "12");
}

TEST_CASE("replay: place_jobs takes plans: gpus is the plan's world") {
  const auto desc = descriptor("h100-1024-2to1");
  auto r = place_jobs(desc, "llm:tp=8,pp=2,dp=8,tenant=lab;ft:gpus=64;both:tp=8,dp=2,gpus=16");
  REQUIRE(r.ok());
  REQUIRE(r->placed.size() == 3);
  CHECK(r->placed[0].gpus == 128);
  CHECK(r->placed[0].tenant == "lab");
  CHECK(r->placed[1].gpus == 64);
  CHECK(r->placed[2].gpus == 16);
  CHECK(r->free_hosts == 128 - 16 - 8 - 2);
}

}  // namespace railyard_test_placement_replay_test
