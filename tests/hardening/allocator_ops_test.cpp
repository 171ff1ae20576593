// Allocator under long seeded operation sequences, checked after every step
// against a shadow model the test keeps itself: which job holds which host,
// each tenant's partition id (predicted as the lowest id no live tenant holds),
// the next job id, and whether a call must fail (and with which code). Every
// accessor and fragmentation metric is recounted from that shadow from scratch.
// best_fit and first_fit placements are compared with a reference written from
// the header's documented rules; a twin Allocator that sees only the calls that
// succeeded must give the same answers, so failed calls leave no hidden trace
// (random generator, job and partition counters).
//
// The Allocator has no failed-host or failed-link operations (allocator.hpp
// has allocate/release only), so the sequences are allocate/release.
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
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/topology/descriptor.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_hardening_allocator_ops_test {

using namespace railyard;
using namespace railyard::placement;

namespace {

struct ShadowJob {
  std::string name;
  std::string tenant;
  std::vector<int32_t> hosts;  // ascending
  int32_t partition = 0;
};

// What the allocator should hold, maintained only from the test's own view of
// each call.
class Shadow {
 public:
  Shadow(const topology::ClusterDescriptor<>& d, PartitionRange partitions)
      : hosts_(d.hosts()),
        per_su_(d.hosts_per_su()),
        sus_per_pod_(d.shape().sus_per_pod),
        sus_(d.sus()),
        pods_(d.pods()),
        gpus_per_host_(d.gpus_per_host()),
        partitions_(partitions),
        owner_(static_cast<size_t>(d.hosts()), -1) {}

  int32_t hosts() const { return hosts_; }
  int32_t per_su() const { return per_su_; }
  int32_t pod_hosts() const { return per_su_ * sus_per_pod_; }
  int32_t gpus_per_host() const { return gpus_per_host_; }
  int32_t su_of(int32_t h) const { return h / per_su_; }
  int32_t pod_of(int32_t h) const { return h / per_su_ / sus_per_pod_; }
  int32_t owner(int32_t h) const { return owner_[static_cast<size_t>(h)]; }
  int32_t next_job() const { return next_job_; }
  const std::map<int32_t, ShadowJob>& jobs() const { return jobs_; }
  bool live_name(const std::string& name) const { return by_name_.contains(name); }
  int32_t job_named(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? -1 : it->second;
  }
  bool live_tenant(const std::string& tenant) const { return tenants_.contains(tenant); }

  std::vector<int32_t> free_per_su() const {
    std::vector<int32_t> f(static_cast<size_t>(sus_), 0);
    for (int32_t h = 0; h < hosts_; ++h)
      if (owner(h) < 0) ++f[static_cast<size_t>(su_of(h))];
    return f;
  }
  std::vector<int32_t> free_per_pod() const {
    std::vector<int32_t> f(static_cast<size_t>(pods_), 0);
    for (int32_t h = 0; h < hosts_; ++h)
      if (owner(h) < 0) ++f[static_cast<size_t>(pod_of(h))];
    return f;
  }
  int32_t free_hosts() const {
    int32_t held = 0;
    for (const auto& [id, j] : jobs_) held += static_cast<int32_t>(j.hosts.size());
    return hosts_ - held;
  }
  // The lowest id of the range that no live tenant holds; 0 when all are held.
  int32_t lowest_free_partition() const {
    std::set<int32_t> held;
    for (const auto& [t, p] : tenants_) held.insert(p.first);
    for (int32_t id = partitions_.first; id <= partitions_.last; ++id)
      if (!held.contains(id)) return id;
    return 0;
  }
  int32_t partition_of(const std::string& tenant) const {
    auto it = tenants_.find(tenant);
    return it == tenants_.end() ? 0 : it->second.first;
  }

  void add(int32_t id, ShadowJob job) {
    REQUIRE(id == next_job_);
    ++next_job_;
    // The caller has checked that every host was free.
    for (int32_t h : job.hosts) owner_[static_cast<size_t>(h)] = id;
    auto [it, fresh] = tenants_.try_emplace(job.tenant, job.partition, 0);
    if (!fresh) REQUIRE(it->second.first == job.partition);
    ++it->second.second;
    by_name_[job.name] = id;
    jobs_.emplace(id, std::move(job));
  }
  void remove(int32_t id) {
    const ShadowJob& job = jobs_.at(id);
    for (int32_t h : job.hosts) owner_[static_cast<size_t>(h)] = -1;
    auto t = tenants_.find(job.tenant);
    if (--t->second.second == 0) tenants_.erase(t);
    by_name_.erase(job.name);
    jobs_.erase(id);
  }

 private:
  int32_t hosts_, per_su_, sus_per_pod_, sus_, pods_, gpus_per_host_;
  PartitionRange partitions_;
  std::vector<int32_t> owner_;
  std::map<int32_t, ShadowJob> jobs_;
  std::map<std::string, int32_t> by_name_;
  std::map<std::string, std::pair<int32_t, int32_t>> tenants_;  // partition, live jobs
  int32_t next_job_ = 0;
};

// Among units [0, n) (given their free counts), the one with the fewest free
// hosts that still holds `count`, lowest id on ties; -1 if none. `skip` marks
// units already used.
int32_t fewest_that_hold(const std::vector<int32_t>& free, int32_t count,
                         const std::vector<char>* skip = nullptr) {
  int32_t best = -1;
  for (size_t u = 0; u < free.size(); ++u) {
    if (skip != nullptr && (*skip)[u]) continue;
    if (free[u] >= count && (best < 0 || free[u] < free[static_cast<size_t>(best)]))
      best = static_cast<int32_t>(u);
  }
  return best;
}

// Units by free hosts, most first, lowest id on ties; only units with room.
std::vector<int32_t> fullest_first(const std::vector<int32_t>& free) {
  std::vector<int32_t> order;
  for (size_t u = 0; u < free.size(); ++u)
    if (free[u] > 0) order.push_back(static_cast<int32_t>(u));
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return free[static_cast<size_t>(a)] > free[static_cast<size_t>(b)];
  });
  return order;
}

// best_fit as allocator.hpp documents it, on the shadow's free map.
std::vector<int32_t> reference_best_fit(const Shadow& s, int32_t k) {
  std::vector<int32_t> out;
  const std::vector<int32_t> su_free = s.free_per_su();
  auto lowest_in_su = [&](int32_t su, int32_t count) {
    for (int32_t h = su * s.per_su(); count > 0; ++h)
      if (s.owner(h) < 0) {
        out.push_back(h);
        --count;
      }
  };
  // "filled with as few SUs as possible — its fullest-free SUs are taken whole
  // and the remainder goes to the SU with the fewest free hosts that holds it".
  auto fill_pod = [&](int32_t pod, int32_t count) {
    const int32_t per_pod = s.pod_hosts() / s.per_su();
    const std::vector<int32_t> local(su_free.begin() + pod * per_pod,
                                     su_free.begin() + (pod + 1) * per_pod);
    std::vector<char> taken(local.size(), 0);
    for (int32_t u : fullest_first(local)) {
      if (local[static_cast<size_t>(u)] >= count) break;
      lowest_in_su(pod * per_pod + u, local[static_cast<size_t>(u)]);
      count -= local[static_cast<size_t>(u)];
      taken[static_cast<size_t>(u)] = 1;
    }
    const int32_t last = fewest_that_hold(local, count, &taken);
    REQUIRE(last >= 0);
    lowest_in_su(pod * per_pod + last, count);
  };
  if (k <= s.per_su()) {
    const int32_t su = fewest_that_hold(su_free, k);
    if (su >= 0) {
      lowest_in_su(su, k);
      return out;
    }
  }
  const std::vector<int32_t> pod_free = s.free_per_pod();
  const int32_t pod = fewest_that_hold(pod_free, k);
  if (pod >= 0) {
    fill_pod(pod, k);
  } else {
    std::vector<char> taken(pod_free.size(), 0);
    for (int32_t p : fullest_first(pod_free)) {
      if (pod_free[static_cast<size_t>(p)] >= k) break;
      fill_pod(p, pod_free[static_cast<size_t>(p)]);
      k -= pod_free[static_cast<size_t>(p)];
      taken[static_cast<size_t>(p)] = 1;
    }
    const int32_t last = fewest_that_hold(pod_free, k, &taken);
    REQUIRE(last >= 0);
    fill_pod(last, k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int32_t> reference_first_fit(const Shadow& s, int32_t k) {
  std::vector<int32_t> out;
  for (int32_t h = 0; static_cast<int32_t>(out.size()) < k; ++h)
    if (s.owner(h) < 0) out.push_back(h);
  return out;
}

// Every accessor of the allocator against a recount from the shadow.
void check_against_shadow(const Allocator& a, const Shadow& s) {
  int32_t held = 0, split_sus = 0, split_pods = 0, first_wrong_job = -1;
  std::vector<JobId> ids;
  for (const auto& [id, job] : s.jobs()) {
    ids.push_back(JobId{id});
    const Allocation* got = a.find(JobId{id});
    if (got == nullptr) {
      if (first_wrong_job < 0) first_wrong_job = id;
      continue;
    }
    std::set<int32_t> sus, pods;
    for (int32_t h : job.hosts) {
      sus.insert(s.su_of(h));
      pods.insert(s.pod_of(h));
    }
    // Compared as whole records, one CHECK for all jobs (a CHECK per job would
    // dominate the sanitizer build's run time).
    Allocation expected;
    expected.job = JobId{id};
    expected.name = job.name;
    expected.tenant = job.tenant;
    expected.gpus = static_cast<int64_t>(job.hosts.size()) * s.gpus_per_host();
    for (int32_t h : job.hosts) expected.hosts.push_back(HostId{h});
    for (int32_t su : sus) expected.sus.push_back(SuId{su});
    for (int32_t p : pods) expected.pods.push_back(PodId{p});
    expected.partition_id = job.partition;
    if (first_wrong_job < 0 && (!(*got == expected) || a.job_named(job.name) != JobId{id} ||
                                a.partition_of(job.tenant) != job.partition))
      first_wrong_job = id;
    held += static_cast<int32_t>(job.hosts.size());
    split_sus += sus.size() > 1;
    split_pods += pods.size() > 1;
  }
  CHECK_MESSAGE(first_wrong_job == -1, "job ", first_wrong_job,
                ": its record, or its lookup by name or tenant, differs from the shadow");
  CHECK(a.jobs() == ids);
  CHECK(a.live_jobs() == static_cast<int32_t>(ids.size()));
  // Partition ids: one per live tenant, distinct, inside the range.
  std::map<std::string, int32_t> tenant_partition;
  for (const auto& [id, job] : s.jobs()) tenant_partition[job.tenant] = job.partition;
  std::set<int32_t> distinct;
  bool in_range = true;
  for (const auto& [t, p] : tenant_partition) {
    in_range = in_range && p >= a.options().partitions.first && p <= a.options().partitions.last;
    distinct.insert(p);
  }
  CHECK(in_range);
  CHECK(distinct.size() == tenant_partition.size());
  CHECK(a.live_tenants() == static_cast<int32_t>(tenant_partition.size()));

  // One CHECK for all hosts (a CHECK per host would dominate the run time).
  int32_t first_wrong_host = -1;
  for (int32_t h = 0; h < s.hosts() && first_wrong_host < 0; ++h)
    if (a.owner_of(HostId{h}).value() != s.owner(h) || a.is_free(HostId{h}) != (s.owner(h) < 0))
      first_wrong_host = h;
  CHECK_MESSAGE(first_wrong_host == -1, "host ", first_wrong_host, ": allocator says owner ",
                a.owner_of(HostId{std::max(first_wrong_host, 0)}).value(), ", shadow says ",
                s.owner(std::max(first_wrong_host, 0)));
  const std::vector<int32_t> su_free = s.free_per_su();
  const std::vector<int32_t> pod_free = s.free_per_pod();
  std::vector<int32_t> got_su_free, got_pod_free;
  for (size_t su = 0; su < su_free.size(); ++su)
    got_su_free.push_back(a.free_hosts_in_su(SuId{static_cast<int32_t>(su)}));
  for (size_t p = 0; p < pod_free.size(); ++p)
    got_pod_free.push_back(a.free_hosts_in_pod(PodId{static_cast<int32_t>(p)}));
  CHECK(got_su_free == su_free);
  CHECK(got_pod_free == pod_free);
  CHECK(a.free_hosts() == s.hosts() - held);
  CHECK(a.free_hosts() == s.free_hosts());
  CHECK(a.jobs_split_across_sus() == split_sus);
  CHECK(a.jobs_split_across_pods() == split_pods);

  Fragmentation expected;
  expected.free_hosts_per_su = su_free;
  expected.free_hosts = s.hosts() - held;
  expected.largest_unsplit_hosts = *std::max_element(su_free.begin(), su_free.end());
  expected.largest_placeable_hosts = expected.free_hosts;
  expected.live_jobs = static_cast<int32_t>(ids.size());
  expected.jobs_split_across_sus = split_sus;
  expected.jobs_split_across_pods = split_pods;
  CHECK(a.fragmentation() == expected);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

struct RunConfig {
  std::string_view spec;
  Policy policy = Policy::kBestFit;
  uint32_t seed = 1;
  int steps = 0;
  PartitionRange partitions = kIbPkeyRange;
};

// What a sequence exercised, so that the test cases can insist on coverage.
struct Tally {
  int placed = 0;
  int refused = 0;
  int refused_for_partitions = 0;
  int split_across_pods = 0;
  void add(const Tally& t) {
    placed += t.placed;
    refused += t.refused;
    refused_for_partitions += t.refused_for_partitions;
    split_across_pods += t.split_across_pods;
  }
};

// One seeded sequence.
Tally run_sequence(const RunConfig& cfg) {
  const topology::ClusterDescriptor<> desc = railyard::testing::descriptor_of(cfg.spec);
  AllocatorOptions options;
  options.policy = cfg.policy;
  options.seed = cfg.seed * 0x9E3779B9u + 17;
  options.partitions = cfg.partitions;
  auto made = make_allocator(desc, options);
  REQUIRE(made.ok());
  Allocator alloc = *made;
  Allocator twin = *made;  // sees only the calls that succeed
  Shadow shadow(desc, cfg.partitions);
  std::mt19937 rng(cfg.seed * 1000003u + static_cast<uint32_t>(cfg.spec.size()));
  auto below = [&rng](int32_t n) { return static_cast<int32_t>(rng() % static_cast<uint32_t>(n)); };
  const int32_t hosts = shadow.hosts();
  const int32_t gph = shadow.gpus_per_host();
  Tally tally;
  int names = 0;
  std::vector<std::string> released_names;

  for (int step = 0; step < cfg.steps; ++step) {
    CAPTURE(step);
    const int32_t dice = below(100);
    const auto& live = shadow.jobs();
    if (dice < 55 || live.empty()) {
      // Sizes in hosts, spread over the levels the policies distinguish.
      int32_t k = 1;
      switch (below(8)) {
        case 0:
        case 1:
          k = 1 + below(std::max(1, shadow.per_su() / 2));
          break;
        case 2:
        case 3:
          k = 1 + below(shadow.per_su());
          break;
        case 4:
          k = shadow.per_su() + below(std::max(1, shadow.pod_hosts() - shadow.per_su() + 1));
          break;
        case 5:
          k = 1 + below(hosts);
          break;
        case 6:
          k = std::max(1, shadow.free_hosts() + below(3) - 1);  // just fits or just does not
          break;
        default:
          k = below(4) == 0 ? hosts + 1 : 1 + below(std::max(1, shadow.free_hosts()));
          break;
      }
      JobRequest req;
      req.name = str_cat("job", names++);
      if (below(10) == 0 && !live.empty()) {  // a live name
        auto it = live.begin();
        std::advance(it, below(static_cast<int32_t>(live.size())));
        req.name = it->second.name;
      } else if (below(8) == 0 && !released_names.empty()) {  // a name free again
        req.name =
            released_names[static_cast<size_t>(below(static_cast<int32_t>(released_names.size())))];
      }
      if (below(40) == 0) req.name.clear();
      req.tenant = below(4) == 0 ? std::string() : str_cat("tenant", below(10));
      // A live job's name as the tenant: that job's own tenant when it named none.
      if (below(20) == 0 && !live.empty()) req.tenant = live.rbegin()->second.name;
      req.gpus = int64_t{k} * gph;
      if (below(25) == 0) req.gpus = gph > 1 ? req.gpus - 1 : -req.gpus;  // not whole hosts
      if (below(40) == 0) req.gpus = 0;
      CAPTURE(req.name);
      CAPTURE(req.tenant);
      CAPTURE(req.gpus);

      // Which failures the request must meet, from the shadow alone.
      const std::string tenant = req.tenant.empty() ? req.name : req.tenant;
      std::set<absl::StatusCode> must;
      bool partitions_out = false;
      if (req.name.empty() || req.gpus <= 0 || req.gpus % gph != 0 ||
          req.gpus > int64_t{hosts} * gph)
        must.insert(absl::StatusCode::kInvalidArgument);
      if (!req.name.empty() && shadow.live_name(req.name))
        must.insert(absl::StatusCode::kAlreadyExists);
      const int64_t count = req.gpus / gph;
      if (req.gpus > 0 && count > shadow.free_hosts())
        must.insert(absl::StatusCode::kResourceExhausted);
      if (!shadow.live_tenant(tenant) && shadow.lowest_free_partition() == 0) {
        must.insert(absl::StatusCode::kResourceExhausted);
        partitions_out = true;
      }

      auto got = alloc.allocate(req);
      if (!must.empty()) {
        ++tally.refused;
        REQUIRE_MESSAGE(!got.ok(), "allocation succeeded although it must fail");
        CHECK(must.contains(got.status().code()));
        const std::string msg = railyard::testing::message_text(got.status());
        if (got.status().code() == absl::StatusCode::kResourceExhausted) {
          if (contains(msg, "partition id")) {
            CHECK(partitions_out);
            ++tally.refused_for_partitions;
          } else {
            // Names the request and what was free.
            CHECK(contains(msg, str_cat("gpus=", req.gpus)));
            CHECK(contains(msg, str_cat(shadow.free_hosts(), " of ", hosts, " hosts free")));
          }
        }
        if (!req.name.empty()) CHECK(contains(msg, str_cat("'", req.name, "'")));
      } else {
        ++tally.placed;
        REQUIRE_MESSAGE(got.ok(), "allocation failed although it need not: ",
                        railyard::testing::message_text(got.status()));
        CHECK(got->job == JobId{shadow.next_job()});
        const int32_t partition = shadow.live_tenant(tenant) ? shadow.partition_of(tenant)
                                                             : shadow.lowest_free_partition();
        CHECK(got->partition_id == partition);
        tally.split_across_pods += got->split_across_pods();
        std::vector<int32_t> picked;
        for (HostId h : got->hosts) picked.push_back(h.value());
        REQUIRE(static_cast<int64_t>(picked.size()) == count);
        REQUIRE(std::is_sorted(picked.begin(), picked.end()));
        REQUIRE(std::adjacent_find(picked.begin(), picked.end()) == picked.end());
        REQUIRE(picked.front() >= 0);
        REQUIRE(picked.back() < hosts);
        // No host in two jobs.
        CHECK(std::all_of(picked.begin(), picked.end(),
                          [&](int32_t h) { return shadow.owner(h) == -1; }));
        if (cfg.policy == Policy::kBestFit)
          CHECK(picked == reference_best_fit(shadow, static_cast<int32_t>(count)));
        if (cfg.policy == Policy::kFirstFit)
          CHECK(picked == reference_first_fit(shadow, static_cast<int32_t>(count)));
        auto again = twin.allocate(req);
        REQUIRE(again.ok());
        CHECK(*again == *got);
        shadow.add(got->job.value(), ShadowJob{req.name, tenant, picked, got->partition_id});
      }
    } else if (dice < 95) {
      auto it = live.begin();
      std::advance(it, below(static_cast<int32_t>(live.size())));
      const int32_t id = it->first;
      const std::string name = it->second.name;
      const std::vector<int32_t> freed = it->second.hosts;
      const int32_t free_before = shadow.free_hosts();
      const bool by_name = dice >= 85;
      CAPTURE(id);
      CHECK((by_name ? alloc.release(std::string_view(name)) : alloc.release(JobId{id})).ok());
      CHECK(twin.release(JobId{id}).ok());
      shadow.remove(id);
      released_names.push_back(name);
      // Released capacity returns exactly.
      CHECK(alloc.free_hosts() == free_before + static_cast<int32_t>(freed.size()));
      CHECK(std::all_of(freed.begin(), freed.end(),
                        [&](int32_t h) { return alloc.is_free(HostId{h}); }));
      CHECK(alloc.release(JobId{id}).code() == absl::StatusCode::kNotFound);
      CHECK(alloc.release(std::string_view(name)).code() == absl::StatusCode::kNotFound);
    } else {
      // Releases of ids and names no live job has change nothing.
      const int32_t ghost = shadow.next_job() + below(3);
      CHECK(alloc.release(JobId{ghost}).code() == absl::StatusCode::kNotFound);
      CHECK(alloc.release(JobId{-1}).code() == absl::StatusCode::kNotFound);
      CHECK(alloc.release(std::string_view("no-such-job")).code() == absl::StatusCode::kNotFound);
    }
    check_against_shadow(alloc, shadow);
  }
  // Draining returns the whole cluster and every partition id.
  for (const auto& [id, job] : std::map<int32_t, ShadowJob>(shadow.jobs())) {
    CHECK(alloc.release(JobId{id}).ok());
    shadow.remove(id);
  }
  check_against_shadow(alloc, shadow);
  CHECK(alloc.free_hosts() == hosts);
  CHECK(alloc.live_tenants() == 0);
  return tally;
}

// 2-tier (one pod) and 3-tier presets, rail-only and ToR, 4-GPU hosts, pods of
// 3 and 4 SUs, and a 16,384-host cluster (steps limited there).
struct Shape {
  std::string_view spec;
  int steps;
};
constexpr Shape kShapes[] = {
    {"h100-1024-2to1", 250},
    {"h100-1024-tor", 150},
    {"h100-1024-railonly", 150},
    {"gb200-nvl72-576", 250},
    {"h100-16k-3tier", 150},
    {"rail_fat_tree:hosts=48,hosts_per_su=4,tiers=3,sus_per_pod=3", 300},
    {"tor_fat_tree:hosts=60,hosts_per_su=5,tiers=3,sus_per_pod=4", 300},
    {"rail_only:hosts=24,hosts_per_su=6,gpus_per_host=4,nics_per_host=4,switch_radix=16", 300},
};

}  // namespace

TEST_CASE("allocator_ops: seeded allocate/release sequences agree with a shadow model") {
  Tally tally;
  for (const Shape& shape : kShapes)
    for (Policy policy : kAllPolicies)
      for (uint32_t seed = 1; seed <= 2; ++seed) {
        CAPTURE(shape.spec);
        CAPTURE(policy_name(policy));
        CAPTURE(seed);
        tally.add(run_sequence({shape.spec, policy, seed, shape.steps, kIbPkeyRange}));
      }
  // Both outcomes and multi-pod placements must have been exercised, or the
  // checks above proved little.
  INFO("placed ", tally.placed, ", refused ", tally.refused, ", split across pods ",
       tally.split_across_pods);
  CHECK(tally.placed > 1000);
  CHECK(tally.refused > 200);
  CHECK(tally.split_across_pods > 50);
}

TEST_CASE("allocator_ops: a small partition range runs out and recovers as the shadow predicts") {
  // Three partition ids for ten tenants: new tenants are refused while three
  // tenants are live, and get the lowest freed id afterwards.
  Tally tally;
  for (Policy policy : kAllPolicies)
    for (uint32_t seed = 3; seed <= 5; ++seed) {
      CAPTURE(policy_name(policy));
      CAPTURE(seed);
      tally.add(run_sequence({"rail_fat_tree:hosts=64,hosts_per_su=8,tiers=3,sus_per_pod=2", policy,
                              seed, 300, PartitionRange{40, 42}}));
      tally.add(run_sequence({"h100-1024", policy, seed, 200, PartitionRange{0xfffe, 0xffff}}));
    }
  INFO("refused for partitions ", tally.refused_for_partitions);
  CHECK(tally.refused_for_partitions > 50);
}

TEST_CASE("allocator_ops: a 131,072-GPU cluster keeps its counts through a short sequence") {
  for (Policy policy : kAllPolicies) {
    CAPTURE(policy_name(policy));
    run_sequence({"h100-128k-3tier", policy, 9, 40, kIbPkeyRange});
  }
}

}  // namespace railyard_test_hardening_allocator_ops_test
