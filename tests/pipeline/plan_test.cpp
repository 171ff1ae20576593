#include "railyard/export/plan_files.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/plugin/tuner.hpp"
#include "railyard/report/plan_report.hpp"
#include "railyard/tune/model.hpp"
#include "railyard/tune/rules.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/xml_parser.hpp"
#include "../support/yaml_lines.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_pipeline_plan_test {

using namespace railyard;
using railyard::pipeline::PlanSide;

namespace {

// ---------------------------------------------------------------------------
// A strict JSON reader (RFC 8259), written for this test: railyard only writes
// JSON, so plan.json is checked by parsing it independently.
// ---------------------------------------------------------------------------
struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  [[nodiscard]] const Json* get(std::string_view key) const {
    for (const auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view in) : in_(in) {}
  // The document, or an error message in `error`.
  Json read(std::string& error) {
    Json v;
    try {
      v = value();
      space();
      if (at_ != in_.size()) fail("text after the value");
    } catch (const std::string& e) {
      error = e;
    }
    return v;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw "offset " + std::to_string(at_) + ": " + std::string(what);
  }
  void space() {
    while (at_ < in_.size() &&
           (in_[at_] == ' ' || in_[at_] == '\n' || in_[at_] == '\r' || in_[at_] == '\t'))
      ++at_;
  }
  bool eat(char c) {
    space();
    if (at_ < in_.size() && in_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  void literal(std::string_view word) {
    if (in_.substr(at_, word.size()) != word) fail("bad literal");
    at_ += word.size();
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (at_ >= in_.size()) fail("unterminated string");
      const char c = in_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= in_.size()) fail("unterminated escape");
      const char e = in_[at_++];
      const std::string_view simple = "\"\\/bfnrt";
      if (simple.find(e) != std::string_view::npos) {
        out += e;
      } else if (e == 'u') {
        for (int i = 0; i < 4; ++i)
          if (at_ >= in_.size() || !std::isxdigit(static_cast<unsigned char>(in_[at_++])))
            fail("bad \\u escape");
        out += '?';
      } else {
        fail("bad escape");
      }
    }
  }
  Json value() {
    space();
    if (at_ >= in_.size()) fail("expected a value");
    Json v;
    const char c = in_[at_];
    if (c == '{') {
      ++at_;
      v.kind = Json::Kind::kObject;
      if (eat('}')) return v;
      do {
        space();
        std::string key = string();
        for (const auto& [k, unused] : v.members)
          if (k == key) fail("duplicate key " + key);
        expect(':');
        v.members.emplace_back(std::move(key), value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++at_;
      v.kind = Json::Kind::kArray;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::kString;
      v.text = string();
    } else if (c == 't' || c == 'f') {
      v.kind = Json::Kind::kBool;
      v.boolean = c == 't';
      literal(c == 't' ? "true" : "false");
    } else if (c == 'n') {
      literal("null");
    } else {
      const size_t start = at_;
      if (in_[at_] == '-') ++at_;
      auto digits = [&] {
        const size_t from = at_;
        while (at_ < in_.size() && is_digit(in_[at_])) ++at_;
        if (at_ == from) fail("expected digits");
      };
      if (at_ < in_.size() && in_[at_] == '0')
        ++at_;
      else
        digits();
      if (at_ < in_.size() && in_[at_] == '.') {
        ++at_;
        digits();
      }
      if (at_ < in_.size() && (in_[at_] == 'e' || in_[at_] == 'E')) {
        ++at_;
        if (at_ < in_.size() && (in_[at_] == '+' || in_[at_] == '-')) ++at_;
        digits();
      }
      v.kind = Json::Kind::kNumber;
      v.number = std::stod(std::string(in_.substr(start, at_ - start)));
    }
    return v;
  }

  std::string_view in_;
  size_t at_ = 0;
};

Json parse_json(std::string_view text) {
  std::string error;
  Json v = JsonReader(text).read(error);
  REQUIRE_MESSAGE(error.empty(), error);
  return v;
}

// ---------------------------------------------------------------------------
// The default scenario, run once per test process.
// ---------------------------------------------------------------------------
struct DefaultRun {
  topology::Cluster cluster;
  pipeline::PlanScenario scenario;
  pipeline::PlanResult result;
};

DefaultRun run_default() {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  auto scenario = pipeline::default_plan_scenario(cluster->descriptor);
  REQUIRE(scenario.ok());
  auto result = pipeline::run_plan(*cluster, *scenario);
  REQUIRE_MESSAGE(result.ok(), testing::message_text(result.status()));
  return {std::move(*cluster), std::move(*scenario), std::move(*result)};
}

const DefaultRun& default_run() {
  static const DefaultRun run = run_default();
  return run;
}

const pipeline::PlanJobResult& job_named(const pipeline::PlanResult& r, std::string_view name) {
  for (const pipeline::PlanJobResult& j : r.jobs)
    if (j.job.name == name) return j;
  FAIL("no job named ", std::string(name));
  return r.jobs.front();
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view l : split(text, '\n')) out.emplace_back(l);
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A directory under the system's temporary directory, removed at the end.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(std::string_view tag)
      : path(std::filesystem::temp_directory_path() /
             str_cat("railyard_", tag, "_", static_cast<int64_t>(getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace

// ---------------------------------------------------------------------------
// Job lists.
// ---------------------------------------------------------------------------

TEST_CASE("plan: parse_plan_jobs reads plans, gpus and tenants") {
  const auto d = testing::descriptor_of("h100-1024-2to1");
  auto jobs = pipeline::parse_plan_jobs(
      " llm:tp=8,pp=2,dp=8,tenant=lab1 ; ft:gpus=64 ;; "
      "moe:tp=4,ep=8,dp=8,gpus=256,order=tp-ep-dp-cp-pp",
      d);
  REQUIRE_MESSAGE(jobs.ok(), testing::message_text(jobs.status()));
  REQUIRE(jobs->size() == 3);
  CHECK((*jobs)[0].name == "llm");
  CHECK((*jobs)[0].tenant == "lab1");
  CHECK((*jobs)[0].gpus() == 128);
  CHECK((*jobs)[0].plan.size(placement::Dim::kPp) == 2);
  // gpus only: one TP group per host, the rest data parallel.
  CHECK((*jobs)[1].tenant == "ft");
  CHECK((*jobs)[1].plan.size(placement::Dim::kTp) == 8);
  CHECK((*jobs)[1].plan.size(placement::Dim::kDp) == 8);
  CHECK((*jobs)[2].gpus() == 256);
  CHECK((*jobs)[2].plan.order_string() == "tp-ep-dp-cp-pp");

  // The default mix is valid on the default cluster and as documented.
  auto mix = pipeline::parse_plan_jobs(pipeline::kDefaultPlanJobs, d);
  REQUIRE(mix.ok());
  std::vector<std::pair<std::string, int64_t>> names;
  for (const pipeline::PlanJob& j : *mix) names.emplace_back(j.name, j.gpus());
  CHECK(names == std::vector<std::pair<std::string, int64_t>>{
                     {"ft-a", 64}, {"ft-b", 32}, {"ft-c", 16}, {"moe", 256}, {"pretrain", 512}});
}

TEST_CASE("plan: parse_plan_jobs errors name the job and the key") {
  const auto d = testing::descriptor_of("h100-1024-2to1");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a:tp=8,dp=3,gpus=64", "job 'a': gpus=64: the plan tp=8,cp=1,ep=1,dp=3,pp=1"},
      {"a:foo=1", "job 'a': foo=1: unknown key"},
      {"a:gpus=12", "job 'a': gpus=12: not a multiple of gpus_per_host=8"},
      {"a:tenant=x", "job 'a': gpus=: missing: give gpus=N or a plan"},
      {"a b:gpus=8", "job 'a b': name=a b: only letters"},
      {"a:gpus=8;a:gpus=16", "job 'a': name=a: duplicate job name"},
      {"a:tp=16,dp=2", "job 'a': tp=16: larger than the 8-GPU NVLink domain"},
      {"a:tp=3,dp=8", "job 'a': tp=3: must divide the 8 GPUs"},
      {"a:tp=2,dp=3", "6 ranks is not a whole number of 8-GPU hosts"},
      {"a:tp=8,dp=256", "2048 GPUs is more than the cluster's 1024"},
      {"a:gpus=8,gpus=16", "job 'a': gpus=16: key given twice"},
      {"a:tp", "job 'a': tp: expected key=value"},
      {":gpus=8", "job 1 (':gpus=8'): name is empty"},
      {"a:tp=8,dp=x", "job 'a': dp=x"},
      {" ; ", "no jobs"},
  };
  for (const auto& [text, expected] : cases) {
    CAPTURE(text);
    auto jobs = pipeline::parse_plan_jobs(text, d);
    REQUIRE_FALSE(jobs.ok());
    CHECK(absl::IsInvalidArgument(jobs.status()));
    CHECK_MESSAGE(testing::message_text(jobs.status()).find(expected) != std::string::npos,
                  testing::message_text(jobs.status()));
  }
}

// ---------------------------------------------------------------------------
// The background.
// ---------------------------------------------------------------------------

TEST_CASE("plan: replay_background keeps what runs at the last arrival (hand-worked)") {
  const auto d = testing::descriptor_of("h100-1024-2to1");
  // a (2 hosts) runs 0..10; b (1 host) from 5; at 20, a has left (departures
  // first), c arrives and takes the lowest free host 0; d needs the whole
  // cluster and waits (strict FIFO); e is not whole hosts and never runs.
  auto trace = placement::parse_job_trace(
      "time,name,gpus,duration\n0,a,16,10\n5,b,8,100\n20,c,8,5\n20,d,1024,5\n20,e,4,5\n");
  REQUIRE(trace.ok());
  auto bg = pipeline::replay_background(d, *trace);
  REQUIRE(bg.ok());
  CHECK(bg->trace_jobs == 5);
  CHECK(bg->finished == 1);
  CHECK(bg->queued == 1);
  CHECK(bg->rejected == 1);
  CHECK(bg->end_s == 20);
  REQUIRE(bg->jobs.size() == 2);
  CHECK(bg->jobs[0].name == "b");
  CHECK(bg->jobs[0].hosts == std::vector<HostId>{HostId{2}});
  CHECK(bg->jobs[1].name == "c");
  CHECK(bg->jobs[1].hosts == std::vector<HostId>{HostId{0}});
  CHECK(bg->busy_hosts == 2);
  std::vector<HostId> busy;
  for (int32_t h = 0; h < d.hosts(); ++h)
    if (bg->busy[static_cast<size_t>(h)]) busy.push_back(HostId{h});
  CHECK(busy == testing::host_ids({0, 2}));

  auto empty = pipeline::replay_background(d, {});
  REQUIRE(empty.ok());
  CHECK(empty->busy_hosts == 0);
  CHECK(empty->jobs.empty());
}

TEST_CASE("plan: the default background is 16 hosts of 10 jobs over three SUs") {
  // Worked out by an independent replay of the 40 embedded lines (a Python
  // model of replay.hpp's strict FIFO under first_fit, stopped at t = 12501 s).
  const auto d = testing::descriptor_of("h100-1024-2to1");
  auto trace = placement::parse_job_trace(pipeline::kDefaultPlanTrace);
  REQUIRE(trace.ok());
  CHECK(trace->size() == 40);
  CHECK(trace->front().name == "job0029");
  CHECK(trace->back().name == "job0068");
  auto bg = pipeline::replay_background(d, *trace);
  REQUIRE(bg.ok());
  CHECK(bg->jobs.size() == 10);
  CHECK(bg->busy_hosts == 16);
  CHECK(bg->queued == 0);
  CHECK(bg->rejected == 0);
  std::vector<HostId> busy;
  for (int32_t h = 0; h < d.hosts(); ++h)
    if (bg->busy[static_cast<size_t>(h)]) busy.push_back(HostId{h});
  CHECK(format_host_list(busy) == "0-8,40-43,45,54,64");
}

// ---------------------------------------------------------------------------
// The default scenario.
// ---------------------------------------------------------------------------

TEST_CASE("plan: default scenario places every job both ways on the same busy hosts") {
  const DefaultRun& run = default_run();
  const pipeline::PlanResult& r = run.result;
  const auto& d = run.cluster.descriptor;
  REQUIRE(r.jobs.size() == 5);
  CHECK(r.placed_jobs() == 5);
  CHECK(r.background.busy_hosts == 16);

  for (PlanSide s : pipeline::kPlanSides) {
    CAPTURE(pipeline::side_name(s));
    const std::vector<int32_t>& owner = r.owner[pipeline::side_index(s)];
    REQUIRE(owner.size() == static_cast<size_t>(d.hosts()));
    // Background hosts are the same on both sides; every mix job holds exactly
    // the hosts its allocation lists, and no host is held twice.
    std::vector<int32_t> held(owner.size(), 0);
    for (size_t j = 0; j < r.jobs.size(); ++j) {
      const pipeline::PlanJobSide& side = r.jobs[j].at(s);
      CHECK(static_cast<int64_t>(side.allocation.hosts.size()) * d.gpus_per_host() ==
            r.jobs[j].job.gpus());
      for (HostId h : side.allocation.hosts) {
        CHECK_FALSE(r.background.busy[static_cast<size_t>(h.value())]);
        CHECK(owner[static_cast<size_t>(h.value())] == static_cast<int32_t>(j));
        ++held[static_cast<size_t>(h.value())];
      }
      // The numbering is a permutation of the allocated hosts.
      std::vector<HostId> launch = side.placement.hosts;
      std::sort(launch.begin(), launch.end());
      CHECK(launch == side.allocation.hosts);
    }
    for (size_t h = 0; h < owner.size(); ++h) {
      CHECK(held[h] <= 1);
      CHECK((owner[h] == -2) == (r.background.busy[h] != 0));
      CHECK((owner[h] >= 0) == (held[h] == 1));
    }
  }

  // naive = first_fit: each job takes the lowest free host ids at its turn
  // (checked against a direct simulation), numbered in that order with the
  // plan's own order string.
  std::vector<char> free_host(static_cast<size_t>(d.hosts()), 1);
  for (size_t h = 0; h < free_host.size(); ++h) free_host[h] = r.background.busy[h] ? 0 : 1;
  for (const pipeline::PlanJobResult& j : r.jobs) {
    std::vector<HostId> lowest;
    for (int32_t h = 0; h < d.hosts() && static_cast<int64_t>(lowest.size()) * 8 < j.job.gpus();
         ++h)
      if (free_host[static_cast<size_t>(h)]) lowest.push_back(HostId{h});
    for (HostId h : lowest) free_host[static_cast<size_t>(h.value())] = 0;
    const pipeline::PlanJobSide& nv = j.at(PlanSide::kNaive);
    CHECK(nv.allocation.hosts == lowest);
    CHECK(nv.placement.hosts == lowest);
    CHECK(nv.placement.plan.order_string() == j.job.plan.order_string());
  }

  // railyard = best_fit: a job that fits one SU is in one SU whenever an SU had
  // room at its turn. With the fine-tunes first, the moe job finds SU3 whole;
  // first_fit splits it over SU0 and SU1.
  const pipeline::PlanJobResult& moe = job_named(r, "moe");
  CHECK(moe.at(PlanSide::kRailyard).allocation.sus == std::vector<SuId>{SuId{3}});
  CHECK(moe.at(PlanSide::kNaive).allocation.sus.size() == 2);
  for (const char* name : {"ft-a", "ft-b", "ft-c"})
    CHECK(job_named(r, name).at(PlanSide::kRailyard).allocation.sus.size() == 1);
}

TEST_CASE("plan: default scenario simulates each job's collectives both ways") {
  const DefaultRun& run = default_run();
  const pipeline::PlanResult& r = run.result;
  for (const pipeline::PlanJobResult& j : r.jobs) {
    CAPTURE(j.job.name);
    // One collective per dimension of size > 1 other than pp.
    std::set<placement::Dim> dims;
    for (const pipeline::PlanCollective& c : j.collectives) dims.insert(c.dim);
    for (placement::Dim dim :
         {placement::Dim::kTp, placement::Dim::kCp, placement::Dim::kEp, placement::Dim::kDp})
      CHECK(dims.count(dim) == (j.job.plan.size(dim) > 1 ? 1u : 0u));
    CHECK(dims.count(placement::Dim::kPp) == 0);
    for (const pipeline::PlanCollective& c : j.collectives) {
      CAPTURE(c.label());
      CHECK(c.bytes == static_cast<int64_t>(j.job.plan.bytes(c.dim)));
      CHECK((c.kind == collective::Collective::kAllToAll) == (c.dim == placement::Dim::kEp));
      for (PlanSide s : pipeline::kPlanSides) {
        const sim::CollectiveReport& rep = c.at(s);
        CHECK(rep.time_us > 0);
        CHECK(rep.busbw_gbps > 0);
        CHECK(rep.ranks == j.job.plan.size(c.dim));
        CHECK(rep.groups * rep.ranks == j.job.gpus());
        CHECK(rep.lower_bound_us <= rep.time_us * (1 + 1e-9));
        CHECK(rep.link_utilization.empty());  // folded into peak_utilization
      }
      CHECK(c.at(PlanSide::kNaive).routing == sim::Routing::kEcmp);
      CHECK(c.at(PlanSide::kNaive).qps == 1);
      // Railyard's side is deployable (steered, with the QP budget its NCCL
      // environment sets); the bound is the same placement with planned paths.
      CHECK(c.at(PlanSide::kRailyard).routing == sim::Routing::kSteered);
      CHECK(c.at(PlanSide::kRailyard).qps == j.qps);
      CHECK(c.at(PlanSide::kRailyard).steerable);
      CHECK(c.bound.routing == sim::Routing::kPlanned);
      CHECK(c.bound.qps == j.qps);
      CHECK(c.bound.groups == c.at(PlanSide::kRailyard).groups);
      CHECK(c.bound.lower_bound_us ==
            doctest::Approx(c.at(PlanSide::kRailyard).lower_bound_us).epsilon(1e-12));
      // The oracle is never slower than what deploys on the same placement
      // (1e-6: the planner's tolerance on equal loads).
      CHECK(c.bound.time_us <= c.at(PlanSide::kRailyard).time_us * (1 + 1e-6));
      CHECK(c.bound_speedup() >= c.speedup() * (1 - 1e-6));
    }
    REQUIRE(j.cc.has_value());
    CHECK(j.cc->incast == j.incast);
    // The QP budget is the one railyard's NCCL environment sets.
    const auto qps_env = std::find_if(j.cc->nccl_env.begin(), j.cc->nccl_env.end(), [](const auto& v) {
      return v.name == "NCCL_IB_QPS_PER_CONNECTION";
    });
    REQUIRE(qps_env != j.cc->nccl_env.end());
    CHECK(qps_env->value == std::to_string(j.qps));
  }
  // The big job's data-parallel all-reduce is never slower railyard's way; the
  // moe job, kept in one SU, gains the most.
  auto dp = [&](std::string_view name) {
    for (const pipeline::PlanCollective& c : job_named(r, name).collectives)
      if (c.dim == placement::Dim::kDp) return c;
    FAIL("no dp collective");
    return pipeline::PlanCollective{};
  };
  CHECK(dp("pretrain").speedup() >= 1.0);
  CHECK(dp("moe").speedup() > 2.0);
  CHECK(r.total_time_us(PlanSide::kRailyard) < r.total_time_us(PlanSide::kNaive));
  CHECK(r.total_bound_us() <= r.total_time_us(PlanSide::kRailyard) * (1 + 1e-6));
  // The moe job's all-to-all spans its EP groups' hosts: that is the incast.
  const pipeline::PlanJobResult& moe = job_named(r, "moe");
  for (const pipeline::PlanCollective& c : moe.collectives)
    if (c.dim == placement::Dim::kEp) CHECK(moe.incast == c.hosts_per_group - 1);
  // Tenants never share a link inside the spine partition.
  CHECK(r.isolation[pipeline::side_index(PlanSide::kRailyard)].shared_leaf_spine == 0);
  // Peak utilization is over every link of the fabric, in [0, 1.000001].
  for (PlanSide s : pipeline::kPlanSides) {
    const auto& peak = r.peak_utilization[pipeline::side_index(s)];
    CHECK(peak.size() == static_cast<size_t>(run.cluster.fabric.link_count()));
    CHECK(*std::max_element(peak.begin(), peak.end()) > 0);
    CHECK(*std::max_element(peak.begin(), peak.end()) <= 1 + 1e-6);
  }
}

TEST_CASE("plan: tuner rules cover 4 MiB upwards without gaps") {
  const pipeline::PlanResult& r = default_run().result;
  for (const pipeline::PlanJobResult& j : r.jobs) {
    CAPTURE(j.job.name);
    // Every job of the default mix has a data-parallel all-reduce across hosts.
    REQUIRE_FALSE(j.tuner.empty());
    std::map<std::pair<int32_t, int32_t>, std::vector<const tune::NotedRule*>> by_comm;
    for (const tune::NotedRule& t : j.tuner) by_comm[{t.rule.nodes, t.rule.ranks}].push_back(&t);
    for (const auto& [comm, rules] : by_comm) {
      CHECK(comm.first >= 2);
      CHECK(rules.front()->rule.min_bytes ==
            static_cast<uint64_t>(tune::kSimulatedRuleSizes.front()));
      CHECK(rules.back()->rule.max_bytes == std::numeric_limits<uint64_t>::max());
      for (size_t i = 0; i < rules.size(); ++i) {
        CHECK(rules[i]->rule.min_bytes <= rules[i]->rule.max_bytes);
        CHECK_FALSE(rules[i]->notes.empty());
        if (i > 0) {
          CHECK(rules[i]->rule.min_bytes == rules[i - 1]->rule.max_bytes + 1);
          CHECK(rules[i]->rule.algo != rules[i - 1]->rule.algo);  // merged otherwise
        }
      }
    }
  }
}

TEST_CASE("plan: the report and plan.json are deterministic and complete") {
  const DefaultRun& run = default_run();
  const std::string text = report::plan_text(run.cluster.descriptor, run.result);
  const std::string json = report::plan_json(run.cluster.descriptor, run.result);
  // A second run from scratch prints the same bytes.
  auto again = pipeline::run_plan(run.cluster, run.scenario);
  REQUIRE(again.ok());
  CHECK(report::plan_text(run.cluster.descriptor, *again) == text);
  CHECK(report::plan_json(run.cluster.descriptor, *again) == json);

  // Text: the map shows every SU with a character per host, and every job.
  const std::vector<std::string> lines = lines_of(text);
  CHECK(lines.front().rfind("railyard plan on h100-1024-2to1: 128 hosts x 8 GPUs", 0) == 0);
  int map_rows = 0;
  for (const std::string& l : lines)
    if (l.rfind("  su", 0) == 0) {
      ++map_rows;
      CHECK(l.size() == 2 + 7 + 34 + 32);
    }
  CHECK(map_rows == 4);
  for (const char* needle : {"A  ft-a", "D  moe", "E  pretrain", "dp allreduce 1 GiB",
                             "ep alltoall 2 GiB", "\ntotal     5 of 5 jobs placed", "\ntenants  "})
    CHECK_MESSAGE(text.find(needle) != std::string::npos, needle);

  // JSON: parses, and carries what the text shows.
  const Json doc = parse_json(json);
  REQUIRE(doc.kind == Json::Kind::kObject);
  for (const char* key : {"cluster", "hosts", "background", "configurations", "seed", "jobs",
                          "su_map", "fragmentation", "isolation", "totals"})
    CHECK_MESSAGE(doc.get(key) != nullptr, key);
  CHECK(doc.get("cluster")->text == "h100-1024-2to1");
  CHECK(doc.get("background")->get("busy_hosts")->number == 16);
  const Json& jobs = *doc.get("jobs");
  REQUIRE(jobs.items.size() == 5);
  for (size_t j = 0; j < jobs.items.size(); ++j) {
    const Json& job = jobs.items[j];
    CHECK(job.get("name")->text == run.result.jobs[j].job.name);
    CHECK(job.get("placed")->boolean);
    for (const char* key : {"naive", "railyard", "collectives", "cc", "tuner"})
      CHECK_MESSAGE(job.get(key) != nullptr, key);
    const Json& colls = *job.get("collectives");
    REQUIRE(colls.items.size() == run.result.jobs[j].collectives.size());
    for (const Json& c : colls.items) {
      CHECK(c.get("naive")->get("busbw_gbps")->number > 0);
      CHECK(c.get("railyard")->get("leaf_spine_bytes") != nullptr);
      CHECK(c.get("speedup")->kind == Json::Kind::kNumber);
    }
    CHECK(job.get("cc")->get("nccl_env")->items.size() == run.result.jobs[j].cc->nccl_env.size());
    CHECK(job.get("railyard")->get("hosts")->items.size() * 8 ==
          static_cast<size_t>(run.result.jobs[j].job.gpus()));
  }
  CHECK(doc.get("su_map")->get("naive")->items.size() == 4);
  CHECK(doc.get("totals")->get("placed_jobs")->number == 5);
}

TEST_CASE("plan: a job that does not fit is reported, the others still run") {
  auto cluster = topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  pipeline::PlanScenario s;
  s.cluster = "h100-1024-2to1";
  auto trace = placement::parse_job_trace(pipeline::kDefaultPlanTrace);
  REQUIRE(trace.ok());
  s.background = *trace;
  s.background_source = "test";
  auto jobs = pipeline::parse_plan_jobs("huge:tp=8,dp=128;small:tp=8,dp=2", cluster->descriptor);
  REQUIRE(jobs.ok());
  s.jobs = *jobs;
  auto r = pipeline::run_plan(*cluster, s);
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 2);
  CHECK_FALSE(r->jobs[0].placed);
  CHECK(r->jobs[0].unplaced_reason.find("gpus=1024") != std::string::npos);
  CHECK(r->jobs[0].collectives.empty());
  CHECK(r->jobs[1].placed);
  CHECK(r->placed_jobs() == 1);
  const std::string text = report::plan_text(cluster->descriptor, *r);
  CHECK(text.find("NOT PLACED: job 'huge': gpus=1024") != std::string::npos);
  CHECK(text.find("1 of 2 jobs placed") != std::string::npos);
  const Json doc = parse_json(report::plan_json(cluster->descriptor, *r));
  CHECK_FALSE(doc.get("jobs")->items[0].get("placed")->boolean);
  CHECK(doc.get("jobs")->items[0].get("unplaced_reason") != nullptr);
  auto files = exports::plan_files(*cluster, *r);
  REQUIRE(files.ok());
  for (const exports::PlanFile& f : *files) CHECK(f.path.rfind("jobs/huge/", 0) != 0);
}

// ---------------------------------------------------------------------------
// The files.
// ---------------------------------------------------------------------------

TEST_CASE("plan: --out writes every artifact and each one is valid") {
  const DefaultRun& run = default_run();
  const auto& d = run.cluster.descriptor;
  auto files = exports::plan_files(run.cluster, run.result);
  REQUIRE_MESSAGE(files.ok(), testing::message_text(files.status()));
  TempDir dir("plan_files");
  REQUIRE(exports::write_plan_files(dir.path.string(), *files).ok());
  // Writing again over the old files works (truncating them).
  REQUIRE(exports::write_plan_files(dir.path.string(), *files).ok());

  std::set<std::string> paths;
  for (const exports::PlanFile& f : *files) CHECK(paths.insert(f.path).second);  // no duplicates
  const std::vector<std::string> job_files = {"hostfile",          "rankfile", "rank-env.txt",
                                              "megatron-args.txt", "nccl.env", "nccl_tuner.conf"};
  std::vector<std::string> expected = {
      "README.txt",      "plan.json",         "slurm/topology.conf", "slurm/topology.yaml",
      "k8s/labels.yaml", "heatmap/naive.svg", "heatmap/railyard.svg"};
  auto namer = topology::NodeNamer::parse(topology::kDefaultNodePattern);
  REQUIRE(namer.ok());
  const std::vector<std::string> names = namer->names(d);
  CHECK(names[7] == "node0007");
  for (int32_t h = 0; h < d.hosts(); ++h)
    expected.push_back(str_cat("topo/", names[static_cast<size_t>(h)], ".xml"));
  for (const pipeline::PlanJobResult& j : run.result.jobs)
    for (const std::string& f : job_files) expected.push_back(str_cat("jobs/", j.job.name, "/", f));
  CHECK(paths == std::set<std::string>(expected.begin(), expected.end()));
  // What is on disk is what plan_files returned.
  for (const exports::PlanFile& f : *files) CHECK(read_file(dir.path / f.path) == f.content);
  // The report's line about them counts the host files and the jobs.
  CHECK(exports::plan_files_summary("out", *files) ==
        str_cat("files     ", files->size(), " written to out: README.txt, plan.json, topo/<host>.xml (",
                d.hosts(), "), slurm/topology.{conf,yaml}, k8s/labels.yaml, jobs/<job>/{hostfile,"
                "rankfile,rank-env.txt,megatron-args.txt,nccl.env,nccl_tuner.conf} (",
                run.result.jobs.size(), " jobs), heatmap/{naive,railyard}.svg\n"));

  // NCCL topology files: well-formed XML skeletons.
  for (int32_t h = 0; h < d.hosts(); h += 37) {
    const std::string xml =
        read_file(dir.path / str_cat("topo/", names[static_cast<size_t>(h)], ".xml"));
    const auto doc = test::parse_xml(xml);
    REQUIRE_MESSAGE(doc.ok, doc.error);
    CHECK(doc.root.name == "system");
    std::vector<std::pair<const test::XmlElement*, const test::XmlElement*>> all;
    test::walk(doc.root, nullptr, all);
    // The VM skeleton (the hosts' bus ids are unknown here): one bare GPU and one
    // bare NIC function per device, placeholder ids in domain ffff, no <gpu>/<net>.
    auto leaves = [&](std::string_view class_prefix) {
      return std::count_if(all.begin(), all.end(), [&](const auto& e) {
        const std::string c = e.first->attr("class").value_or("");
        return e.first->name == "pci" && c.starts_with(class_prefix) &&
               e.first->attr("busid").value_or("").starts_with("ffff:") &&
               e.first->children.empty();
      });
    };
    CHECK(leaves("0x03") == d.gpus_per_host());
    CHECK(leaves("0x02") == d.nics_per_host());
    CHECK(std::none_of(all.begin(), all.end(), [](const auto& e) {
      return e.first->name == "gpu" || e.first->name == "net";
    }));
  }

  // Slurm: topology.conf reads back through railyard's importer, every host
  // under one leaf-level switch; topology.yaml is valid block YAML.
  {
    auto tree = topology::slurm_topology_from_conf(read_file(dir.path / "slurm/topology.conf"));
    REQUIRE_MESSAGE(tree.ok(), testing::message_text(tree.status()));
    CHECK(tree->hosts.size() == static_cast<size_t>(d.hosts()));
    std::vector<railyard::testing::YamlNode> docs;
    REQUIRE_NOTHROW(docs = railyard::testing::parse_yaml_documents(
                        read_file(dir.path / "slurm/topology.yaml")));
    REQUIRE(docs.size() == 1);
    REQUIRE(docs[0].kind == railyard::testing::YamlNode::Kind::kSeq);
    CHECK(docs[0].seq.size() == 2);
    std::vector<railyard::testing::YamlNode> k8s;
    REQUIRE_NOTHROW(
        k8s = railyard::testing::parse_yaml_documents(read_file(dir.path / "k8s/labels.yaml")));
    CHECK_FALSE(k8s.empty());
  }

  // Per job: launcher files follow railyard's numbering; env and tuner lines.
  for (const pipeline::PlanJobResult& j : run.result.jobs) {
    CAPTURE(j.job.name);
    const placement::JobPlacement& p = j.at(PlanSide::kRailyard).placement;
    const std::filesystem::path jd = dir.path / "jobs" / j.job.name;
    auto name = [&](HostId h) { return names[static_cast<size_t>(h.value())]; };
    const auto hostfile = lines_of(read_file(jd / "hostfile"));
    REQUIRE(static_cast<int64_t>(hostfile.size()) == j.job.gpus());
    for (size_t k = 0; k < hostfile.size(); ++k)
      CHECK(hostfile[k] == name(p.hosts[k / static_cast<size_t>(d.gpus_per_host())]));
    const auto rankfile = lines_of(read_file(jd / "rankfile"));
    REQUIRE(static_cast<int64_t>(rankfile.size()) == j.job.gpus());
    for (size_t k = 0; k < rankfile.size(); ++k)
      CHECK(rankfile[k].rfind(str_cat("rank ", k, "=", hostfile[k], " slot="), 0) == 0);
    int64_t env_ranks = 0;
    for (const std::string& l : lines_of(read_file(jd / "rank-env.txt")))
      if (l.empty() || l[0] != '#') {
        CHECK(l.find(str_cat(" RANK=", env_ranks, " ")) != std::string::npos);
        ++env_ranks;
      }
    CHECK(env_ranks == j.job.gpus());
    CHECK(read_file(jd / "megatron-args.txt").find("--tensor-model-parallel-size ") !=
          std::string::npos);

    std::set<std::string> env_names;
    for (const std::string& l : lines_of(read_file(jd / "nccl.env"))) {
      if (!l.empty() && l[0] == '#') continue;
      const size_t eq = l.find('=');
      REQUIRE_MESSAGE(eq != std::string::npos, l);
      const std::string n = l.substr(0, eq);
      const bool good_name = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
      });
      CHECK_MESSAGE(good_name, l);
      env_names.insert(n);
    }
    for (const cc::EnvVar& v : j.cc->nccl_env) CHECK(env_names.count(v.name) == 1);
    // What railyard's tuner plugin reads, as every rank of the job gets it: the
    // plugin's init accepts it (the digest matches the files), and refuses a
    // rank without the rule file.
    {
      std::map<std::string, std::string> env;
      for (const std::string& l : lines_of(read_file(jd / "nccl.env")))
        if (!l.empty() && l[0] != '#') env[l.substr(0, l.find('='))] = l.substr(l.find('=') + 1);
      CHECK(env["NCCL_TUNER_PLUGIN"] == "railyard");
      railyard::plugin::TunerEnvironment te;
      te.cluster = env["RAILYARD_CLUSTER"];
      te.hosts = env["RAILYARD_HOSTS"];
      te.digest = env["RAILYARD_TUNER_DIGEST"];
      te.rules_file = (jd / "nccl_tuner.conf").string();
      const auto nodes = static_cast<size_t>(j.job.gpus() / 8);
      void* ctx = nullptr;
      CHECK(railyard::plugin::tuner_init(&ctx, 1, static_cast<size_t>(j.job.gpus()), nodes,
                                         nullptr, nullptr, nullptr, tune::NcclRelease::k2_30,
                                         te) == railyard::plugin::nccl::Result::kSuccess);
      railyard::plugin::tuner_finalize(ctx);
      te.rules_file.reset();
      CHECK(railyard::plugin::tuner_init(&ctx, 1, static_cast<size_t>(j.job.gpus()), nodes,
                                         nullptr, nullptr, nullptr, tune::NcclRelease::k2_30,
                                         te) == railyard::plugin::nccl::Result::kInvalidUsage);
      railyard::plugin::tuner_finalize(ctx);
    }

    // The file loads in railyard's tuner (the plugin's own parser) without a
    // warning, and every rule is one of the job's.
    const std::string tuner_conf = read_file(jd / "nccl_tuner.conf");
    const tune::TuningRules loaded = tune::parse_tuning_rules(tuner_conf);
    CHECK_MESSAGE(loaded.warnings.empty(), join(loaded.warnings, "; "));
    REQUIRE(loaded.rules.size() == j.tuner.size());
    for (size_t i = 0; i < loaded.rules.size(); ++i) CHECK(same_rule(loaded.rules[i], j.tuner[i].rule));
    {
      tune::TunerOptions o;
      o.cluster = "h100-1024-2to1";
      o.ranks = j.job.gpus();
      o.nodes = j.job.gpus() / 8;
      o.rules = tuner_conf;
      auto core = tune::TunerCore::create(o);
      REQUIRE_MESSAGE(core.ok(), core.status().message());
      CHECK(core->warnings().empty());
      CHECK(core->rules_parsed() == static_cast<int32_t>(j.tuner.size()));
    }
    int rules = 0;
    for (const std::string& l : lines_of(tuner_conf)) {
      CHECK(l.size() < 255);  // NCCL's example tuner reads 255 characters per line
      if (l.empty() || l[0] == '#') continue;
      const auto f = split(l, ',');
      REQUIRE(f.size() == 8);
      CHECK(std::set<std::string_view>{"broadcast", "reduce", "allgather", "reducescatter",
                                       "allreduce"}
                .count(f[0]) == 1);
      CHECK(std::set<std::string_view>{"tree", "ring", "collnet_direct", "collnet_chain", "nvls",
                                       "nvls_tree", "pat"}
                .count(f[3]) == 1);
      CHECK(std::set<std::string_view>{"ll", "ll128", "simple"}.count(f[4]) == 1);
      for (size_t k : {1u, 2u, 5u, 6u, 7u}) {
        const std::string_view v = f[k].substr(f[k].front() == '-' ? 1 : 0);
        const bool number = !v.empty() && std::all_of(v.begin(), v.end(), is_digit);
        CHECK_MESSAGE(number, l);
      }
      CHECK((f[2] == "-1" || std::stoull(std::string(f[1])) <= std::stoull(std::string(f[2]))));
      ++rules;
    }
    CHECK(rules == static_cast<int>(j.tuner.size()));
  }

  // Heat maps: whole SVG documents.
  for (const char* svg : {"heatmap/naive.svg", "heatmap/railyard.svg"}) {
    const std::string text = read_file(dir.path / svg);
    CHECK((text.rfind("<?xml", 0) == 0 || text.rfind("<svg", 0) == 0));
    CHECK(text.size() >= 7);
    CHECK(text.find("</svg>", text.size() - 8) != std::string::npos);
    CHECK(test::parse_xml(text).ok);
  }

  // plan.json is plan_json(), and the README names every kind of file.
  CHECK(read_file(dir.path / "plan.json") == report::plan_json(d, run.result));
  parse_json(read_file(dir.path / "plan.json"));
  const std::string readme = read_file(dir.path / "README.txt");
  for (const char* p :
       {"plan.json", "topo/", "slurm/topology.conf", "slurm/topology.yaml", "k8s/labels.yaml",
        "hostfile", "rankfile", "rank-env.txt", "megatron-args.txt", "nccl.env", "nccl_tuner.conf",
        "heatmap/naive.svg", "heatmap/railyard.svg"})
    CHECK_MESSAGE(readme.find(p) != std::string::npos, p);
}

TEST_CASE("plan: write_plan_files names what it cannot create") {
  TempDir dir("plan_unwritable");
  std::filesystem::create_directories(dir.path);
  { std::ofstream(dir.path / "blocker") << "a file, not a directory\n"; }
  const std::vector<exports::PlanFile> files = {{"a/b.txt", "x\n"}};
  const absl::Status s = exports::write_plan_files((dir.path / "blocker" / "out").string(), files);
  REQUIRE_FALSE(s.ok());
  CHECK(absl::IsInvalidArgument(s));
  CHECK(testing::message_text(s).find("cannot create directory") != std::string::npos);
  CHECK(testing::message_text(s).find("blocker: a file of that name is in the way") !=
        std::string::npos);
  // A file where a directory must go, inside the output directory.
  { std::ofstream(dir.path / "a") << "in the way\n"; }
  const absl::Status t = exports::write_plan_files(dir.path.string(), files);
  REQUIRE_FALSE(t.ok());
  CHECK(testing::message_text(t).find("/a") != std::string::npos);
}

}  // namespace railyard_test_pipeline_plan_test
