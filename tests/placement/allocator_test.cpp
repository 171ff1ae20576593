#include "railyard/placement/allocator.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_allocator_test {

using namespace railyard;
using namespace railyard::placement;

namespace {

topology::ClusterDescriptor<> descriptor(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

std::string message(const absl::Status& s) { return railyard::testing::message_text(s); }

// Small clusters of every layout the allocator distinguishes: one SU, several SUs
// in one pod (2-tier), several pods (3-tier), 4-GPU hosts, odd SU sizes.
const std::vector<std::string_view> kClusters = {
    "rail_fat_tree:hosts=8,hosts_per_su=8",
    "rail_fat_tree:hosts=32,hosts_per_su=8",
    "h100-1024-2to1",
    "rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2",
    "rail_fat_tree:hosts=48,hosts_per_su=4,tiers=3,sus_per_pod=3",
    "rail_fat_tree:hosts=24,hosts_per_su=6,gpus_per_host=4,nics_per_host=4",
    "tor_fat_tree:hosts=40,hosts_per_su=5",
};

// Everything observable about an Allocator, for "a failed call changed nothing".
struct State {
  std::vector<int32_t> owners;
  Fragmentation fragmentation;
  std::vector<Allocation> jobs;
  std::map<std::string, int32_t> partitions;
  friend bool operator==(const State&, const State&) = default;
};

State state_of(const Allocator& a) {
  State s;
  for (int32_t h = 0; h < a.hosts(); ++h) s.owners.push_back(a.owner_of(HostId{h}).value());
  s.fragmentation = a.fragmentation();
  for (JobId id : a.jobs()) {
    s.jobs.push_back(*a.find(id));
    s.partitions[s.jobs.back().tenant] = *a.partition_of(s.jobs.back().tenant);
  }
  return s;
}

// Recounts every invariant from the live allocations alone and compares with
// what the allocator reports.
void check_invariants(const Allocator& a, const topology::ClusterDescriptor<>& desc) {
  std::vector<int32_t> holder(static_cast<size_t>(a.hosts()), -1);
  std::vector<int32_t> free_su(static_cast<size_t>(desc.sus()), desc.hosts_per_su());
  int32_t split_sus = 0, split_pods = 0, held = 0;
  std::map<std::string, int32_t> tenant_pid;
  std::set<int32_t> pids;
  const std::vector<JobId> ids = a.jobs();
  REQUIRE(std::is_sorted(ids.begin(), ids.end()));
  for (JobId id : ids) {
    const Allocation* job = a.find(id);
    REQUIRE(job != nullptr);
    CHECK(job->job == id);
    CHECK(a.job_named(job->name) == id);
    REQUIRE(!job->hosts.empty());
    CHECK(job->gpus == static_cast<int64_t>(job->hosts.size()) * desc.gpus_per_host());
    CHECK(std::adjacent_find(job->hosts.begin(), job->hosts.end(),
                             [](HostId x, HostId y) { return !(x < y); }) == job->hosts.end());
    std::set<SuId> sus;
    std::set<PodId> pods;
    for (HostId h : job->hosts) {
      REQUIRE(h.value() >= 0);
      REQUIRE(h.value() < a.hosts());
      // No host in two jobs.
      CHECK(holder[static_cast<size_t>(h.value())] == -1);
      holder[static_cast<size_t>(h.value())] = id.value();
      CHECK(a.owner_of(h) == id);
      --free_su[static_cast<size_t>(desc.su_of(h).value())];
      sus.insert(desc.su_of(h));
      pods.insert(desc.pod_of(h));
      ++held;
    }
    CHECK(std::vector<SuId>(sus.begin(), sus.end()) == job->sus);
    CHECK(std::vector<PodId>(pods.begin(), pods.end()) == job->pods);
    split_sus += sus.size() > 1 ? 1 : 0;
    split_pods += pods.size() > 1 ? 1 : 0;
    // One partition id per tenant, distinct between tenants, inside the range.
    const PartitionRange range = a.options().partitions;
    CHECK(job->partition_id >= range.first);
    CHECK(job->partition_id <= range.last);
    auto [it, inserted] = tenant_pid.emplace(job->tenant, job->partition_id);
    if (inserted) {
      CHECK(pids.insert(job->partition_id).second);
    } else {
      CHECK(it->second == job->partition_id);
    }
    CHECK(a.partition_of(job->tenant) == job->partition_id);
  }
  CHECK(a.live_tenants() == static_cast<int32_t>(tenant_pid.size()));
  for (int32_t h = 0; h < a.hosts(); ++h)
    CHECK(a.is_free(HostId{h}) == (holder[static_cast<size_t>(h)] == -1));

  const Fragmentation f = a.fragmentation();
  CHECK(f.free_hosts_per_su == free_su);
  CHECK(f.free_hosts == a.hosts() - held);
  CHECK(a.free_hosts() == f.free_hosts);
  CHECK(f.largest_unsplit_hosts == *std::max_element(free_su.begin(), free_su.end()));
  CHECK(f.largest_placeable_hosts == f.free_hosts);
  CHECK(f.live_jobs == static_cast<int32_t>(ids.size()));
  CHECK(f.jobs_split_across_sus == split_sus);
  CHECK(f.jobs_split_across_pods == split_pods);
  for (int32_t p = 0; p < desc.pods(); ++p) {
    int32_t sum = 0;
    for (int32_t s = p * desc.shape().sus_per_pod; s < (p + 1) * desc.shape().sus_per_pod; ++s)
      sum += free_su[static_cast<size_t>(s)];
    CHECK(a.free_hosts_in_pod(PodId{p}) == sum);
  }
}

// Smallest number of units (SUs or pods) whose free counts sum to at least k.
int32_t fewest_units(std::vector<int32_t> free, int32_t k) {
  std::sort(free.rbegin(), free.rend());
  int32_t n = 0;
  for (int32_t f : free) {
    if (k <= 0) break;
    k -= f;
    ++n;
  }
  return n;
}

// Brute-force checks of best_fit's rules against the free map before the call.
void check_best_fit_choice(const Allocation& job, const State& before,
                           const topology::ClusterDescriptor<>& desc) {
  const auto k = static_cast<int32_t>(job.hosts.size());
  const std::vector<int32_t>& free_su = before.fragmentation.free_hosts_per_su;
  const int32_t per_pod = desc.shape().sus_per_pod;
  std::vector<int32_t> free_pod(static_cast<size_t>(desc.pods()), 0);
  for (size_t s = 0; s < free_su.size(); ++s)
    free_pod[s / static_cast<size_t>(per_pod)] += free_su[s];

  int32_t best_su = -1;
  for (size_t s = 0; s < free_su.size(); ++s)
    if (free_su[s] >= k && (best_su < 0 || free_su[s] < free_su[static_cast<size_t>(best_su)]))
      best_su = static_cast<int32_t>(s);
  if (k <= desc.hosts_per_su() && best_su >= 0) {
    // Never split an SU-sized job while an SU can hold it; best fit, lowest id.
    REQUIRE(job.sus.size() == 1);
    CHECK(job.sus[0].value() == best_su);
    // The lowest free hosts of that SU.
    std::vector<HostId> lowest;
    for (int32_t h = best_su * desc.hosts_per_su(); static_cast<int32_t>(lowest.size()) < k; ++h)
      if (before.owners[static_cast<size_t>(h)] == -1) lowest.push_back(HostId{h});
    CHECK(job.hosts == lowest);
    return;
  }
  int32_t best_pod = -1;
  for (size_t p = 0; p < free_pod.size(); ++p)
    if (free_pod[p] >= k && (best_pod < 0 || free_pod[p] < free_pod[static_cast<size_t>(best_pod)]))
      best_pod = static_cast<int32_t>(p);
  if (best_pod >= 0) {
    REQUIRE(job.pods.size() == 1);
    CHECK(job.pods[0].value() == best_pod);
    const auto first = free_su.begin() + best_pod * per_pod;
    CHECK(static_cast<int32_t>(job.sus.size()) ==
          fewest_units(std::vector<int32_t>(first, first + per_pod), k));
    return;
  }
  CHECK(static_cast<int32_t>(job.pods.size()) == fewest_units(free_pod, k));
}

}  // namespace

TEST_CASE("allocator: header example — 256 GPUs land in one SU with partition id 1") {
  const auto desc = descriptor("h100-1024-2to1");
  Allocator alloc(desc);
  auto a = alloc.allocate({.name = "llm", .tenant = "acme", .gpus = 256});
  REQUIRE(a.ok());
  CHECK(a->hosts.size() == 32);
  CHECK(a->sus.size() == 1);
  CHECK(a->pods.size() == 1);
  CHECK(a->partition_id == 1);
  CHECK(alloc.free_hosts() == 96);
  CHECK(alloc.release(a->job).ok());
  CHECK(alloc.free_hosts() == 128);
  CHECK(alloc.live_tenants() == 0);
}

TEST_CASE("allocator: best_fit known answers on 4 SUs of 32 hosts") {
  const auto desc = descriptor("h100-1024-2to1");
  Allocator alloc(desc);
  auto su_of = [](const railyard::StatusOr<Allocation>& a) {
    REQUIRE(a.ok());
    REQUIRE(a->sus.size() == 1);
    return a->sus[0].value();
  };
  CHECK(su_of(alloc.allocate({"a", "", 16 * 8})) == 0);  // all SUs empty: lowest id
  CHECK(su_of(alloc.allocate({"b", "", 8 * 8})) == 0);   // SU0 has 16 free: fewest that fit
  CHECK(su_of(alloc.allocate({"c", "", 20 * 8})) == 1);  // SU0 has 8: too few
  CHECK(su_of(alloc.allocate({"d", "", 12 * 8})) == 1);  // SU1 has exactly 12
  CHECK(su_of(alloc.allocate({"e", "", 8 * 8})) == 0);   // SU0 has exactly 8
  // SUs free: 0, 0, 32, 32. A 48-host job takes SU2 whole and 16 of SU3.
  auto big = alloc.allocate({"f", "", 48 * 8});
  REQUIRE(big.ok());
  CHECK(big->sus == std::vector<SuId>{SuId{2}, SuId{3}});
  CHECK(big->hosts.front() == HostId{64});
  CHECK(big->hosts.back() == HostId{111});
  CHECK(alloc.fragmentation().jobs_split_across_sus == 1);
  CHECK(alloc.fragmentation().largest_unsplit_hosts == 16);
  // Release b and d: SU0 has 8 free, SU1 12, SU3 16. A 10-host job goes to SU1.
  CHECK(alloc.release(std::string_view("b")).ok());
  CHECK(alloc.release(std::string_view("d")).ok());
  CHECK(su_of(alloc.allocate({"g", "", 10 * 8})) == 1);
  // 20 hosts: no SU holds them (8, 2, 0, 16): split over the fewest SUs, SU3 whole
  // (16) then 4 into the SU with the fewest free that holds 4 (SU0 with 8, not SU1 with 2).
  auto split = alloc.allocate({"h", "", 20 * 8});
  REQUIRE(split.ok());
  CHECK(split->sus == std::vector<SuId>{SuId{0}, SuId{3}});
  check_invariants(alloc, desc);
}

TEST_CASE("allocator: best_fit prefers one pod, then the fewest pods (3-tier)") {
  // 8 SUs of 8 hosts, pods of 2 SUs (16 hosts).
  const auto desc = descriptor("rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2");
  Allocator alloc(desc);
  // One 5-host job per SU leaves 3 free hosts in each: no SU holds 6, every pod does.
  for (int s = 0; s < 8; ++s) {
    auto fill = alloc.allocate({str_cat("fill", s), "", 5 * 8});
    REQUIRE(fill.ok());
    CHECK(fill->sus == std::vector<SuId>{SuId{s}});
  }
  auto six = alloc.allocate({"six", "", 6 * 8});
  REQUIRE(six.ok());
  CHECK(six->pods == std::vector<PodId>{PodId{0}});
  CHECK(six->sus.size() == 2);
  // Pod 0 is full now; pods 1..3 have 6 free each. A 14-host job needs 3 pods.
  auto wide = alloc.allocate({"wide", "", 14 * 8});
  REQUIRE(wide.ok());
  CHECK(wide->pods.size() == 3);
  CHECK(alloc.free_hosts() == 4);
  check_invariants(alloc, desc);
}

TEST_CASE("allocator: first_fit takes the lowest free host ids") {
  const auto desc = descriptor("rail_fat_tree:hosts=32,hosts_per_su=8");
  AllocatorOptions options;
  options.policy = Policy::kFirstFit;
  Allocator alloc(desc, options);
  REQUIRE(alloc.allocate({"a", "", 6 * 8}).ok());
  REQUIRE(alloc.allocate({"b", "", 4 * 8}).ok());  // hosts 6..9: split although SU1 was empty
  const Allocation* b = alloc.find(alloc.job_named("b"));
  REQUIRE(b != nullptr);
  CHECK(b->hosts == std::vector<HostId>{HostId{6}, HostId{7}, HostId{8}, HostId{9}});
  CHECK(b->split_across_sus());
}

TEST_CASE("allocator: errors name the job, gpus= and what was free, state unchanged") {
  const auto desc = descriptor("h100-1024-2to1");
  Allocator alloc(desc);
  REQUIRE(alloc.allocate({"a", "t", 100 * 8}).ok());
  const State before = state_of(alloc);

  auto not_multiple = alloc.allocate({"x", "", 12});
  REQUIRE(!not_multiple.ok());
  CHECK(not_multiple.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(message(not_multiple.status()).find("gpus=12") != std::string::npos);
  CHECK(message(not_multiple.status()).find("gpus_per_host=8") != std::string::npos);

  auto zero = alloc.allocate({"x", "", 0});
  CHECK(message(zero.status()).find("gpus=0") != std::string::npos);

  auto too_big = alloc.allocate({"x", "", 2048});
  CHECK(too_big.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(message(too_big.status()).find("gpus=2048") != std::string::npos);
  CHECK(message(too_big.status()).find("larger than the cluster") != std::string::npos);

  auto no_room = alloc.allocate({"x", "", 32 * 8});
  CHECK(no_room.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(message(no_room.status()).find("job 'x'") != std::string::npos);
  CHECK(message(no_room.status()).find("gpus=256") != std::string::npos);
  CHECK(message(no_room.status()).find("28 of 128 hosts free") != std::string::npos);

  auto dup = alloc.allocate({"a", "", 8});
  CHECK(dup.status().code() == absl::StatusCode::kAlreadyExists);
  CHECK(message(dup.status()).find("job 'a'") != std::string::npos);

  auto unnamed = alloc.allocate({"", "", 8});
  CHECK(unnamed.status().code() == absl::StatusCode::kInvalidArgument);

  CHECK(alloc.release(JobId{99}).code() == absl::StatusCode::kNotFound);
  CHECK(alloc.release(std::string_view("nope")).code() == absl::StatusCode::kNotFound);
  CHECK(state_of(alloc) == before);
}

TEST_CASE("allocator: partition ids — lowest free, shared by a tenant, freed with its last job") {
  const auto desc = descriptor("rail_fat_tree:hosts=32,hosts_per_su=8");
  SUBCASE("IB pkey range starts at 0x0001, VLAN range at 2") {
    Allocator ib(desc);
    CHECK(ib.allocate({"a", "", 8})->partition_id == 0x0001);
    AllocatorOptions vlan;
    vlan.partitions = kVlanRange;
    Allocator eth(desc, vlan);
    CHECK(eth.allocate({"a", "", 8})->partition_id == 2);
    CHECK(kIbPkeyRange.size() == 0x7ffe);
    CHECK(kVlanRange.last == 4094);
  }
  SUBCASE("exhaustion, reuse after release, never two live tenants on one id") {
    AllocatorOptions options;
    options.partitions = {5, 7};
    auto alloc = make_allocator(desc, options);
    REQUIRE(alloc.ok());
    CHECK(alloc->allocate({"a1", "A", 8})->partition_id == 5);
    CHECK(alloc->allocate({"b1", "B", 8})->partition_id == 6);
    CHECK(alloc->allocate({"a2", "A", 8})->partition_id == 5);  // same tenant, same id
    CHECK(alloc->allocate({"c1", "C", 8})->partition_id == 7);
    const State before = state_of(*alloc);
    auto d = alloc->allocate({"d1", "D", 8});
    CHECK(d.status().code() == absl::StatusCode::kResourceExhausted);
    CHECK(message(d.status()).find("5..7") != std::string::npos);
    CHECK(state_of(*alloc) == before);
    CHECK(alloc->allocate({"b2", "B", 8}).ok());  // an existing tenant still gets hosts
    CHECK(alloc->release(std::string_view("a1")).ok());
    CHECK(alloc->partition_of("A") == 5);  // a2 still holds it
    CHECK(alloc->release(std::string_view("a2")).ok());
    CHECK(!alloc->partition_of("A").has_value());
    CHECK(alloc->allocate({"d1", "D", 8})->partition_id == 5);  // lowest free id
    check_invariants(*alloc, desc);
  }
  SUBCASE("make_allocator rejects a bad range, naming it") {
    AllocatorOptions options;
    options.partitions = {0, 10};
    auto bad = make_allocator(desc, options);
    REQUIRE(!bad.ok());
    CHECK(message(bad.status()).find("partitions=0..10") != std::string::npos);
  }
}

TEST_CASE("allocator: reserve holds exactly the hosts given, or changes nothing") {
  const auto desc = descriptor("rail_fat_tree:hosts=32,hosts_per_su=8");
  Allocator alloc(desc);
  const std::vector<HostId> given = testing::host_ids({9, 3, 17});
  auto a = alloc.reserve({"bg", "acme", 0}, given);
  REQUIRE_MESSAGE(a.ok(), message(a.status()));
  CHECK(a->hosts == testing::host_ids({3, 9, 17}));  // ascending, as allocate() gives them
  CHECK(a->gpus == 24);
  CHECK(a->sus == std::vector<SuId>{SuId{0}, SuId{1}, SuId{2}});
  CHECK(a->partition_id == 1);
  CHECK(alloc.free_hosts() == 29);
  CHECK(alloc.owner_of(HostId{9}) == a->job);
  check_invariants(alloc, desc);
  // A later allocate works around the reserved hosts; the tenant keeps its id.
  auto b = alloc.allocate({"next", "acme", 64});
  REQUIRE(b.ok());
  CHECK(b->partition_id == 1);
  for (HostId h : b->hosts) CHECK(std::find(given.begin(), given.end(), h) == given.end());

  const State before = state_of(alloc);
  struct Bad {
    JobRequest request;
    std::vector<HostId> hosts;
    StatusCode code;
    std::string_view field;
    std::string_view needle;
  };
  const Bad bad[] = {
      {{"x", "", 0}, testing::host_ids({3}), StatusCode::kFailedPrecondition, "hosts",
       "host 3 is held by job 'bg'"},
      {{"x", "", 0}, testing::host_ids({20, 20}), StatusCode::kInvalidArgument, "hosts",
       "listed twice"},
      {{"x", "", 0}, testing::host_ids({32}), StatusCode::kInvalidArgument, "hosts", "out of range"},
      {{"x", "", 16}, testing::host_ids({20}), StatusCode::kInvalidArgument, "gpus",
       "gpus=16: the 1 hosts given hold 8 GPUs"},
      {{"x", "", 0}, {}, StatusCode::kInvalidArgument, "hosts", "at least one host"},
      {{"", "", 0}, testing::host_ids({20}), StatusCode::kInvalidArgument, "name", "needs a name"},
  };
  for (const Bad& c : bad) {
    auto r = alloc.reserve(c.request, c.hosts);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == c.code);
    CHECK_MESSAGE(message(r.status()).find(c.needle) != std::string::npos, message(r.status()));
    REQUIRE(railyard::error_field(r.status()).has_value());
    CHECK(railyard::error_field(r.status())->field == c.field);
  }
  auto twice = alloc.reserve({"bg", "", 0}, testing::host_ids({20}));
  CHECK(twice.status().code() == StatusCode::kAlreadyExists);
  CHECK(state_of(alloc) == before);
  // Released, the hosts are free again.
  REQUIRE(alloc.release(std::string_view("bg")).ok());
  CHECK(alloc.is_free(HostId{3}));
  check_invariants(alloc, desc);
}

TEST_CASE("allocator: one size check for allocate, job lists and traces (fit.hpp)") {
  // The predicate against a brute force over small clusters.
  for (int32_t per_host : {4, 8})
    for (int32_t hosts : {1, 3, 16})
      for (int64_t gpus = -8; gpus <= int64_t{hosts} * per_host + 16; ++gpus) {
        const bool fits = gpus > 0 && gpus % per_host == 0 && gpus / per_host <= hosts;
        CHECK((size_problem(gpus, per_host, hosts) == SizeProblem::kNone) == fits);
        CHECK(check_job_gpus(gpus, per_host, hosts).ok() == fits);
        Allocator alloc(descriptor(str_cat("rail_fat_tree:hosts=", hosts, ",hosts_per_su=", hosts,
                                           ",gpus_per_host=", per_host,
                                           ",nics_per_host=", per_host)));
        CHECK(alloc.allocate({"j", "", gpus}).ok() == fits);
      }
}

TEST_CASE("allocator: parse_policy and policy_name round-trip") {
  for (Policy p : kAllPolicies) CHECK(*parse_policy(policy_name(p)) == p);
  auto bad = parse_policy("worst_fit");
  REQUIRE(!bad.ok());
  CHECK(message(bad.status()).find("policy=worst_fit") != std::string::npos);
}

TEST_CASE("allocator: randomized allocate/release sequences keep every invariant") {
  for (std::string_view spec : kClusters) {
    const auto desc = descriptor(spec);
    for (Policy policy : kAllPolicies) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        CAPTURE(spec);
        CAPTURE(policy_name(policy));
        CAPTURE(seed);
        AllocatorOptions options;
        options.policy = policy;
        options.seed = seed;
        options.partitions = {1, 6};  // small enough to run out now and then
        Allocator alloc(desc, options);
        std::mt19937 rng(seed * 7919u + static_cast<uint32_t>(spec.size()));
        const int32_t hosts = desc.hosts();
        const int32_t per_su = desc.hosts_per_su();
        int next_name = 0;
        for (int step = 0; step < 300; ++step) {
          const std::vector<JobId> live = alloc.jobs();
          const uint32_t dice = rng() % 100;
          const State before = state_of(alloc);
          if (dice < 55 || live.empty()) {
            // Sizes: mostly within an SU, some SU-sized, some larger, a few over
            // what is free or over the cluster.
            int32_t k = 0;
            const uint32_t kind = rng() % 10;
            if (kind < 5)
              k = 1 + static_cast<int32_t>(rng() % std::max(1, per_su / 2));
            else if (kind < 7)
              k = 1 + static_cast<int32_t>(rng() % per_su);
            else if (kind < 9)
              k = 1 + static_cast<int32_t>(rng() % hosts);
            else
              k = hosts + 1;
            JobRequest req;
            req.name = str_cat("j", next_name++);
            if (rng() % 4 == 0 && !live.empty())
              req.name = alloc.find(live[rng() % live.size()])->name;
            req.tenant = rng() % 3 == 0 ? std::string() : str_cat("t", rng() % 8);
            req.gpus = int64_t{k} * desc.gpus_per_host();
            if (rng() % 20 == 0) req.gpus += 1;  // not whole hosts
            const bool duplicate = alloc.job_named(req.name).valid();
            const bool must_fail = duplicate || req.gpus % desc.gpus_per_host() != 0 ||
                                   k > before.fragmentation.free_hosts;
            auto a = alloc.allocate(req);
            if (!a.ok()) {
              // Failure leaves the state unchanged, and happens only for a reason.
              CHECK(state_of(alloc) == before);
              const bool out_of_pkeys =
                  a.status().code() == absl::StatusCode::kResourceExhausted &&
                  message(a.status()).find("partition id") != std::string::npos;
              CHECK((must_fail || out_of_pkeys));
              if (a.status().code() == absl::StatusCode::kResourceExhausted && !out_of_pkeys) {
                CHECK(message(a.status()).find(str_cat("gpus=", req.gpus)) != std::string::npos);
                CHECK(message(a.status()).find(str_cat(before.fragmentation.free_hosts, " of ")) !=
                      std::string::npos);
              }
            } else {
              CHECK(!must_fail);
              CHECK(static_cast<int32_t>(a->hosts.size()) == k);
              CHECK(alloc.free_hosts() == before.fragmentation.free_hosts - k);
              for (HostId h : a->hosts) CHECK(before.owners[static_cast<size_t>(h.value())] == -1);
              if (policy == Policy::kBestFit) check_best_fit_choice(*a, before, desc);
              if (policy == Policy::kFirstFit) {
                std::vector<HostId> lowest;
                for (int32_t h = 0; static_cast<int32_t>(lowest.size()) < k; ++h)
                  if (before.owners[static_cast<size_t>(h)] == -1) lowest.push_back(HostId{h});
                CHECK(a->hosts == lowest);
              }
            }
          } else {
            const JobId victim = live[rng() % live.size()];
            const Allocation job = *alloc.find(victim);
            REQUIRE(alloc.release(victim).ok());
            // Released capacity returns exactly: those hosts, nothing else.
            CHECK(alloc.free_hosts() ==
                  before.fragmentation.free_hosts + static_cast<int32_t>(job.hosts.size()));
            for (HostId h : job.hosts) CHECK(alloc.is_free(h));
            for (int32_t h = 0; h < hosts; ++h)
              if (before.owners[static_cast<size_t>(h)] != victim.value())
                CHECK(alloc.owner_of(HostId{h}).value() == before.owners[static_cast<size_t>(h)]);
            CHECK(alloc.release(victim).code() == absl::StatusCode::kNotFound);
          }
          check_invariants(alloc, desc);
        }
      }
    }
  }
}

TEST_CASE("allocator: every policy is deterministic for a given seed") {
  const auto desc = descriptor("rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2");
  auto run = [&desc](Policy policy, uint64_t seed) {
    AllocatorOptions options;
    options.policy = policy;
    options.seed = seed;
    Allocator alloc(desc, options);
    std::mt19937 rng(42);
    std::vector<std::vector<HostId>> out;
    for (int i = 0; i < 200; ++i) {
      const std::vector<JobId> live = alloc.jobs();
      if (rng() % 2 == 0 || live.empty()) {
        auto a = alloc.allocate(
            {str_cat("j", i), "", int64_t{1 + static_cast<int32_t>(rng() % 12)} * 8});
        out.push_back(a.ok() ? a->hosts : std::vector<HostId>{});
      } else {
        REQUIRE(alloc.release(live[rng() % live.size()]).ok());
      }
    }
    return out;
  };
  for (Policy p : kAllPolicies) CHECK(run(p, 7) == run(p, 7));
  CHECK(run(Policy::kRandom, 7) != run(Policy::kRandom, 8));
}

TEST_CASE("allocator: random spreads uniformly over the free hosts") {
  // One host out of 32, 32,000 times: each host ~1,000 times.
  const auto desc = descriptor("rail_fat_tree:hosts=32,hosts_per_su=8");
  AllocatorOptions options;
  options.policy = Policy::kRandom;
  Allocator alloc(desc, options);
  REQUIRE(alloc.allocate({"hold", "", 8 * 8}).ok());  // some hosts busy, so ranks != ids
  std::vector<int> hits(32, 0);
  for (int i = 0; i < 32000; ++i) {
    auto a = alloc.allocate({"probe", "", 8});
    REQUIRE(a.ok());
    ++hits[static_cast<size_t>(a->hosts[0].value())];
    REQUIRE(alloc.release(a->job).ok());
  }
  const Allocation* hold = alloc.find(alloc.job_named("hold"));
  for (int32_t h = 0; h < 32; ++h) {
    const bool held = std::binary_search(hold->hosts.begin(), hold->hosts.end(), HostId{h});
    if (held) {
      CHECK(hits[static_cast<size_t>(h)] == 0);
    } else {
      CHECK(hits[static_cast<size_t>(h)] > 1200 * 3 / 4);  // expected 32000 / 24 = 1333
      CHECK(hits[static_cast<size_t>(h)] < 1333 * 5 / 4);
    }
  }
}

}  // namespace railyard_test_placement_allocator_test
