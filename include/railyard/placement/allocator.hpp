// railyard/placement/allocator.hpp — multi-tenant cluster state: which hosts each
// job holds, placed so that jobs stay inside the smallest fabric level that holds
// them, with fragmentation metrics and one partition id (IB pkey / VLAN id) per
// tenant.
//
//   auto desc = railyard::topology::make_descriptor(
//       *railyard::topology::parse_cluster("h100-1024-2to1"));
//   railyard::placement::Allocator alloc(*desc);                  // best_fit
//   auto a = alloc.allocate({.name = "llm", .tenant = "acme", .gpus = 256});
//   if (!a.ok()) { std::cerr << a.status().message() << "\n"; return 2; }
//   // a->hosts: 32 hosts, all in one SU (a->sus.size() == 1); a->partition_id == 1
//   auto frag = alloc.fragmentation();   // free hosts per SU, largest placeable job, ...
//   (void)alloc.release(a->job);
//
// Jobs ask for whole hosts: `gpus` must be a positive multiple of gpus_per_host.
// allocate() either places the whole job or changes nothing; it fails when the
// request is invalid, the name is already live, the job is larger than the
// cluster or than what is free, or the tenant needs a partition id and none is
// left. With enough free hosts every policy succeeds: no policy refuses a job
// that the free hosts could hold.
//
// Policies (Policy):
// * best_fit (default) — the smallest level that holds the job:
//   1. a job of at most hosts_per_su hosts goes into one SU when some SU has room:
//      the SU with the fewest free hosts that still fits (ties: lowest id). Such a
//      job is never split across SUs while one SU could hold it.
//   2. otherwise one pod: the pod with the fewest free hosts that fits (ties:
//      lowest id), filled with as few SUs as possible — its fullest-free SUs are
//      taken whole and the remainder goes to the SU with the fewest free hosts
//      that holds it (ties: lowest id).
//   3. otherwise across pods: as few pods as possible (the pods with the most
//      free hosts, taken whole), the remainder in the pod with the fewest free
//      hosts that holds it, filled as in 2.
//   Inside an SU the lowest free host ids are taken. A partial last SU or pod
//   (shape.hpp) is a unit with fewer hosts: it holds a job only when the job fits
//   its real free hosts, and best_fit, preferring the fullest unit that fits,
//   fills it with jobs small enough for it.
// * first_fit — the lowest free host ids, in id order.
// * random — hosts drawn uniformly among the free ones (without replacement)
//   from a generator seeded by AllocatorOptions::seed.
// Every policy is deterministic: the same options and the same sequence of calls
// give the same hosts.
//
// Partition ids: each tenant gets one id when its first live job is placed; every
// job of the tenant carries it; it is freed when the tenant's last job is
// released and is never given to another tenant while allocated. New tenants get
// the lowest free id of AllocatorOptions::partitions:
// * kIbPkeyRange = 0x0001..0x7ffe. An InfiniBand P_Key is 16 bits: bit 15 is the
//   membership type (full/limited), the low 15 bits name the partition. Base
//   0x0000 is the invalid P_Key and 0x7fff the default partition every port is in
//   (IBA spec vol. 1, ch. 10.9; NVIDIA WinOF-2 "PKey valid values 0x1-0x7fff,
//   default 0x7fff"), so tenants get 0x0001..0x7ffe; the caller ORs 0x8000 for
//   full membership.
// * kVlanRange = 2..4094 (IEEE 802.1Q: VID 0 means priority-tagged, 4095 is
//   reserved, 1 is the default VLAN of most switches).
//
// Complexity, for H hosts in U SUs of S hosts and D pods, a job of k hosts:
// allocate is O(U + D log D + k log k + H/64) at worst (word-wise scans of a
// free-host bitset, no per-host scan of the cluster), O(U + S/64 + k log k) for
// a job that fits one SU; release is O(k). Memory O(H).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/fit.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::placement {

struct JobTag {};
// A placed job. Ids are handed out in allocation order (0, 1, 2, ...) and never
// reused by one Allocator.
using JobId = StrongId<JobTag>;

enum class Policy : uint8_t { kBestFit, kFirstFit, kRandom };
inline constexpr std::array<std::string_view, 3> kPolicyNames = {"best_fit", "first_fit", "random"};
inline constexpr std::array<Policy, 3> kAllPolicies = {Policy::kBestFit, Policy::kFirstFit,
                                                       Policy::kRandom};

[[nodiscard]] constexpr std::string_view policy_name(Policy p) {
  return kPolicyNames[static_cast<size_t>(p)];
}

// "best_fit", "first_fit" or "random"; the error names the value and the choices.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Policy> parse_policy(std::string_view text) {
  for (Policy p : kAllPolicies)
    if (text == policy_name(p)) return p;
  return invalid_field("policy", text, "unknown policy (policies: best_fit, first_fit, random)");
}

// An inclusive range of partition ids.
struct PartitionRange {
  int32_t first = 1;
  int32_t last = 0x7ffe;
  [[nodiscard]] constexpr int32_t size() const { return last - first + 1; }
  friend constexpr bool operator==(const PartitionRange&, const PartitionRange&) = default;
};
inline constexpr PartitionRange kIbPkeyRange{0x0001, 0x7ffe};
inline constexpr PartitionRange kVlanRange{2, 4094};

struct AllocatorOptions {
  Policy policy = Policy::kBestFit;
  uint64_t seed = 1;  // for Policy::kRandom
  // Precondition: 1 <= first <= last <= 0xffff (checked by make_allocator()).
  PartitionRange partitions = kIbPkeyRange;
};

// What a job asks for. An empty tenant means the job is its own tenant (tenant =
// name).
struct JobRequest {
  std::string name;
  std::string tenant;
  int64_t gpus = 0;
};

// Where a job went. hosts, sus and pods are ascending and duplicate-free; sus and
// pods are the SUs and pods the hosts lie in.
struct Allocation {
  JobId job;
  std::string name;
  std::string tenant;
  int64_t gpus = 0;
  std::vector<HostId> hosts;
  std::vector<SuId> sus;
  std::vector<PodId> pods;
  int32_t partition_id = 0;

  [[nodiscard]] bool split_across_sus() const { return sus.size() > 1; }
  [[nodiscard]] bool split_across_pods() const { return pods.size() > 1; }
  friend bool operator==(const Allocation&, const Allocation&) = default;
};

// A snapshot of how fragmented the free hosts are. Sizes are in hosts (multiply
// by gpus_per_host for GPUs).
struct Fragmentation {
  std::vector<int32_t> free_hosts_per_su;  // index = SU id
  int32_t free_hosts = 0;
  // Largest job that fits inside one SU right now (max of free_hosts_per_su).
  int32_t largest_unsplit_hosts = 0;
  // Largest job that can be placed at all right now (= free_hosts: every policy
  // places any job the free hosts can hold).
  int32_t largest_placeable_hosts = 0;
  int32_t live_jobs = 0;
  int32_t jobs_split_across_sus = 0;
  int32_t jobs_split_across_pods = 0;
  friend bool operator==(const Fragmentation&, const Fragmentation&) = default;
};

namespace detail {
// Uniform integer in [0, bound) from a 64-bit generator: Lemire-style rejection
// on the modulo, so the result is exact and the same on every platform (unlike
// std::uniform_int_distribution, whose algorithm the standard leaves open).
RAILYARD_LAZY
[[nodiscard]] uint64_t uniform_below(std::mt19937_64& rng, uint64_t bound) {
  assert(bound > 0);
  const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t x = rng();
    if (x >= threshold) return x % bound;
  }
}

}  // namespace detail

class Allocator {
 public:
  // Precondition: options.partitions is valid (see make_allocator()).
  explicit Allocator(const topology::ClusterDescriptor<>& desc, AllocatorOptions options = {})
      : options_(options),
        hosts_(desc.hosts()),
        gpus_per_host_(desc.gpus_per_host()),
        hosts_per_su_(desc.hosts_per_su()),
        sus_(desc.sus()),
        sus_per_pod_(desc.shape().sus_per_pod),
        pods_(desc.pods()),
        rng_(options.seed),
        owner_(static_cast<size_t>(hosts_), -1),
        free_bits_((static_cast<size_t>(hosts_) + 63) / 64, ~uint64_t{0}),
        free_in_su_(static_cast<size_t>(sus_), hosts_per_su_),
        free_in_pod_(static_cast<size_t>(pods_), 0),
        free_total_(hosts_),
        next_partition_(options.partitions.first) {
    // A partial last SU (or pod) starts with only the hosts it has (shape.hpp).
    assert(hosts_ > (sus_ - 1) * hosts_per_su_ && hosts_ <= sus_ * hosts_per_su_);
    assert(sus_ > (pods_ - 1) * sus_per_pod_ && sus_ <= pods_ * sus_per_pod_);
    free_in_su_.back() = desc.hosts_in_su(sus_ - 1);
    for (int32_t su = 0; su < sus_; ++su)
      free_in_pod_[idx(su / sus_per_pod_)] += free_in_su_[idx(su)];
    assert(options.partitions.first >= 1 && options.partitions.first <= options.partitions.last);
    if (hosts_ % 64 != 0) free_bits_.back() = (uint64_t{1} << (hosts_ % 64)) - 1;
    order_.reserve(static_cast<size_t>(sus_per_pod_));
    pod_order_.reserve(static_cast<size_t>(pods_));
  }

  // Places a whole job or nothing. Errors (the state is unchanged):
  // InvalidArgument — empty name, gpus not a positive multiple of gpus_per_host,
  //   job larger than the cluster;
  // AlreadyExists — a live job has this name;
  // ResourceExhausted — fewer free hosts than the job needs (the message names
  //   gpus= and the free count), or no partition id left for a new tenant.
  [[nodiscard]] StatusOr<Allocation> allocate(const JobRequest& request);

  // Places a job on exactly `hosts` (any order, none twice): a job that is
  // already running there, e.g. the busy background of a cluster. request.gpus
  // may be 0 (then hosts x gpus_per_host) or must equal that. Errors (the state
  // is unchanged): InvalidArgument — empty name, no hosts, a host outside the
  // cluster or listed twice, gpus that disagree with the hosts; AlreadyExists —
  // the name is live; FailedPrecondition — a host is held by another job (the
  // message names it and its job); ResourceExhausted — no partition id left.
  // O(k log k) for k hosts.
  [[nodiscard]] StatusOr<Allocation> reserve(const JobRequest& request,
                                             std::span<const HostId> hosts);

  // Takes hosts out of service with no job on them (an imported fabric's hosts
  // with a missing or miswired cable, topology/import/cable_fit.hpp): no
  // allocate() or reserve() gets them, and they count as neither free nor held
  // by a job. Already drained hosts are skipped. Errors (the state is
  // unchanged): InvalidArgument for a host outside the cluster,
  // FailedPrecondition for a host a job holds. O(k) for k hosts.
  Status drain(std::span<const HostId> hosts);
  [[nodiscard]] bool is_drained(HostId h) const { return owner_[idx(h.value())] == kDrained; }

  // Frees the job's hosts and, with the tenant's last job, its partition id.
  // NotFound if no live job has this id. O(hosts of the job).
  Status release(JobId job);
  // The same, by job name.
  Status release(std::string_view name);

  // The live job with this id or name; nullptr / invalid id if none.
  [[nodiscard]] const Allocation* find(JobId job) const;
  [[nodiscard]] JobId job_named(std::string_view name) const;
  // Ids of the live jobs, ascending.
  [[nodiscard]] std::vector<JobId> jobs() const;
  [[nodiscard]] int32_t live_jobs() const { return static_cast<int32_t>(jobs_.size()); }
  // The job holding a host (invalid id if the host is free).
  [[nodiscard]] JobId owner_of(HostId h) const { return JobId{owner_[idx(h.value())]}; }
  [[nodiscard]] bool is_free(HostId h) const { return owner_[idx(h.value())] == -1; }
  // The partition id of a tenant with live jobs.
  [[nodiscard]] std::optional<int32_t> partition_of(std::string_view tenant) const;
  [[nodiscard]] int32_t live_tenants() const { return static_cast<int32_t>(tenants_.size()); }

  [[nodiscard]] int32_t free_hosts() const { return free_total_; }
  [[nodiscard]] int32_t free_hosts_in_su(SuId su) const { return free_in_su_[idx(su.value())]; }
  [[nodiscard]] int32_t free_hosts_in_pod(PodId pod) const {
    return free_in_pod_[idx(pod.value())];
  }
  // O(SUs); allocates the per-SU vector.
  [[nodiscard]] Fragmentation fragmentation() const;
  [[nodiscard]] int32_t jobs_split_across_sus() const { return split_sus_; }
  [[nodiscard]] int32_t jobs_split_across_pods() const { return split_pods_; }

  [[nodiscard]] int32_t hosts() const { return hosts_; }
  [[nodiscard]] int32_t gpus_per_host() const { return gpus_per_host_; }
  [[nodiscard]] int32_t hosts_per_su() const { return hosts_per_su_; }
  [[nodiscard]] int32_t sus() const { return sus_; }
  [[nodiscard]] int32_t sus_per_pod() const { return sus_per_pod_; }
  [[nodiscard]] int32_t pods() const { return pods_; }
  // SUs of a pod: sus_per_pod, fewer in a partial last pod.
  [[nodiscard]] int32_t sus_in_pod(int32_t pod) const {
    return std::min(sus_per_pod_, sus_ - pod * sus_per_pod_);
  }
  [[nodiscard]] const AllocatorOptions& options() const { return options_; }
  [[nodiscard]] SuId su_of(HostId h) const { return SuId{h.value() / hosts_per_su_}; }
  [[nodiscard]] PodId pod_of(HostId h) const {
    return PodId{h.value() / hosts_per_su_ / sus_per_pod_};
  }

 private:
  struct Tenant {
    int32_t partition_id = 0;
    int32_t live_jobs = 0;
  };

  static size_t idx(int32_t i) { return static_cast<size_t>(i); }

  // Host picking. Each appends to picked_ and leaves the state untouched; the
  // caller has checked that `count` hosts are free where it asks for them.
  void pick_lowest_in_su(int32_t su, int32_t count);
  void pick_best_fit(int32_t count);
  void pick_in_pod(int32_t pod, int32_t count);
  void pick_first_fit(int32_t count);
  void pick_random(int32_t count);

  // Index (among [first, first + n)) of the unit with the fewest free hosts that
  // still holds `count`, lowest id on ties; -1 if none.
  static int32_t best_fit_unit(const std::vector<int32_t>& free, int32_t first, int32_t n,
                               int32_t count);

  StatusOr<int32_t> acquire_partition(std::string_view tenant) const;
  // The partition id `tenant` holds or would get (ResourceExhausted if none is left).
  StatusOr<int32_t> partition_for(std::string_view name, std::string_view tenant) const;
  // Records a job on picked_ (sorted, free hosts) and returns it. Cannot fail.
  Allocation commit(std::string_view name, std::string_view tenant, int64_t gpus,
                    int32_t partition);
  std::string free_summary() const;

  AllocatorOptions options_;
  int32_t hosts_;
  int32_t gpus_per_host_;
  int32_t hosts_per_su_;
  int32_t sus_;
  int32_t sus_per_pod_;
  int32_t pods_;
  std::mt19937_64 rng_;

  static constexpr int32_t kDrained = -2;
  std::vector<int32_t> owner_;        // per host: job id value, -1 when free, kDrained
  std::vector<uint64_t> free_bits_;   // bit h set <=> host h free
  std::vector<int32_t> free_in_su_;   // per SU
  std::vector<int32_t> free_in_pod_;  // per pod
  int32_t free_total_;
  int32_t split_sus_ = 0;
  int32_t split_pods_ = 0;

  std::map<int32_t, Allocation> jobs_;  // by job id value
  std::map<std::string, int32_t, std::less<>> by_name_;
  std::map<std::string, Tenant, std::less<>> tenants_;
  int32_t next_job_ = 0;

  // Partition ids below next_partition_ that were freed, as a min-heap: the
  // lowest free id is its top, or next_partition_ when it is empty.
  std::vector<int32_t> freed_partitions_;
  int32_t next_partition_;

  // Scratch reused across calls (no allocation once warm).
  std::vector<int32_t> picked_;
  std::vector<int32_t> order_;
  std::vector<int32_t> pod_order_;
  std::vector<int64_t> ranks_;
  std::vector<uint64_t> rank_seen_;
};

// Checks the options against the cluster and builds an Allocator. Errors name
// the field: partitions must satisfy 1 <= first <= last <= 65535.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Allocator> make_allocator(const topology::ClusterDescriptor<>& desc,
                                                       AllocatorOptions options = {}) {
  const PartitionRange r = options.partitions;
  if (r.first < 1 || r.last > 0xffff || r.first > r.last)
    return invalid_field("partitions", str_cat(r.first, "..", r.last),
                         "need 1 <= first <= last <= 65535");
  return Allocator(desc, options);
}

// ---------------------------------------------------------------------------
// Implementation.
// ---------------------------------------------------------------------------

inline int32_t Allocator::best_fit_unit(const std::vector<int32_t>& free, int32_t first, int32_t n,
                                        int32_t count) {
  int32_t best = -1;
  int32_t best_free = std::numeric_limits<int32_t>::max();
  for (int32_t i = 0; i < n; ++i) {
    const int32_t f = free[idx(first + i)];
    if (f >= count && f < best_free) {
      best = i;
      best_free = f;
    }
  }
  return best;
}

inline void Allocator::pick_lowest_in_su(int32_t su, int32_t count) {
  int32_t begin = su * hosts_per_su_;
  const int32_t end = std::min(begin + hosts_per_su_, hosts_);  // a partial SU ends early
  while (count > 0 && begin < end) {
    const int32_t w = begin / 64;
    uint64_t word = free_bits_[idx(w)] & (~uint64_t{0} << (begin % 64));
    const int32_t word_end = std::min(end, (w + 1) * 64);
    if (word_end - w * 64 < 64) word &= (uint64_t{1} << (word_end - w * 64)) - 1;
    while (word != 0 && count > 0) {
      picked_.push_back(w * 64 + std::countr_zero(word));
      word &= word - 1;
      --count;
    }
    begin = word_end;
  }
  assert(count == 0);
}

inline void Allocator::pick_in_pod(int32_t pod, int32_t count) {
  const int32_t first = pod * sus_per_pod_;
  const int32_t one = best_fit_unit(free_in_su_, first, sus_in_pod(pod), count);
  if (one >= 0) {
    pick_lowest_in_su(first + one, count);
    return;
  }
  // Fewest SUs: the SUs with the most free hosts, taken whole, then the
  // remainder best-fit among the rest.
  order_.clear();
  for (int32_t i = 0; i < sus_in_pod(pod); ++i)
    if (free_in_su_[idx(first + i)] > 0) order_.push_back(first + i);
  std::sort(order_.begin(), order_.end(), [this](int32_t a, int32_t b) {
    const int32_t fa = free_in_su_[idx(a)], fb = free_in_su_[idx(b)];
    return fa != fb ? fa > fb : a < b;
  });
  size_t whole = 0;
  int32_t remaining = count;
  while (free_in_su_[idx(order_[whole])] < remaining) {
    remaining -= free_in_su_[idx(order_[whole])];
    ++whole;
  }
  int32_t last = -1;
  int32_t last_free = std::numeric_limits<int32_t>::max();
  for (size_t i = whole; i < order_.size(); ++i) {
    const int32_t f = free_in_su_[idx(order_[i])];
    if (f >= remaining && (f < last_free || (f == last_free && order_[i] < last))) {
      last = order_[i];
      last_free = f;
    }
  }
  for (size_t i = 0; i < whole; ++i) pick_lowest_in_su(order_[i], free_in_su_[idx(order_[i])]);
  pick_lowest_in_su(last, remaining);
}

inline void Allocator::pick_best_fit(int32_t count) {
  if (count <= hosts_per_su_) {
    const int32_t su = best_fit_unit(free_in_su_, 0, sus_, count);
    if (su >= 0) {
      pick_lowest_in_su(su, count);
      return;
    }
  }
  const int32_t pod = best_fit_unit(free_in_pod_, 0, pods_, count);
  if (pod >= 0) {
    pick_in_pod(pod, count);
    return;
  }
  // Fewest pods: the pods with the most free hosts, taken whole, then the
  // remainder best-fit among the other pods. (A list apart from order_, which
  // pick_in_pod reuses.)
  std::vector<int32_t>& pods = pod_order_;
  pods.clear();
  for (int32_t p = 0; p < pods_; ++p)
    if (free_in_pod_[idx(p)] > 0) pods.push_back(p);
  std::sort(pods.begin(), pods.end(), [this](int32_t a, int32_t b) {
    const int32_t fa = free_in_pod_[idx(a)], fb = free_in_pod_[idx(b)];
    return fa != fb ? fa > fb : a < b;
  });
  size_t whole = 0;
  int32_t remaining = count;
  while (free_in_pod_[idx(pods[whole])] < remaining) {
    remaining -= free_in_pod_[idx(pods[whole])];
    ++whole;
  }
  int32_t last = -1;
  int32_t last_free = std::numeric_limits<int32_t>::max();
  for (size_t i = whole; i < pods.size(); ++i) {
    const int32_t f = free_in_pod_[idx(pods[i])];
    if (f >= remaining && (f < last_free || (f == last_free && pods[i] < last))) {
      last = pods[i];
      last_free = f;
    }
  }
  for (size_t i = 0; i < whole; ++i) {
    const int32_t first = pods[i] * sus_per_pod_;
    for (int32_t s = first; s < first + sus_in_pod(pods[i]); ++s)
      if (free_in_su_[idx(s)] > 0) pick_lowest_in_su(s, free_in_su_[idx(s)]);
  }
  pick_in_pod(last, remaining);
}

inline void Allocator::pick_first_fit(int32_t count) {
  for (int32_t su = 0; su < sus_ && count > 0; ++su) {
    const int32_t take = std::min(count, free_in_su_[idx(su)]);
    if (take > 0) pick_lowest_in_su(su, take);
    count -= take;
  }
}

inline void Allocator::pick_random(int32_t count) {
  // Floyd's algorithm draws `count` distinct ranks among the free hosts with
  // exactly `count` draws; rank r is the r-th free host in id order.
  const int64_t n = free_total_;
  ranks_.clear();
  rank_seen_.assign((static_cast<size_t>(n) + 63) / 64, 0);
  auto seen = [this](int64_t r) {
    return (rank_seen_[idx(static_cast<int32_t>(r / 64))] >> (r % 64)) & 1;
  };
  auto mark = [this](int64_t r) {
    rank_seen_[idx(static_cast<int32_t>(r / 64))] |= uint64_t{1} << (r % 64);
    ranks_.push_back(r);
  };
  for (int64_t j = n - count; j < n; ++j) {
    const auto t = static_cast<int64_t>(detail::uniform_below(rng_, static_cast<uint64_t>(j + 1)));
    mark(seen(t) ? j : t);
  }
  std::sort(ranks_.begin(), ranks_.end());
  // Walk the free-host bitset word by word, skipping words without a drawn rank.
  size_t next = 0;
  int64_t base = 0;  // free hosts before the current word
  for (size_t w = 0; w < free_bits_.size() && next < ranks_.size(); ++w) {
    uint64_t word = free_bits_[w];
    const int64_t in_word = std::popcount(word);
    if (ranks_[next] >= base + in_word) {
      base += in_word;
      continue;
    }
    int64_t r = base;
    while (word != 0 && next < ranks_.size()) {
      if (ranks_[next] == r) {
        picked_.push_back(static_cast<int32_t>(w) * 64 + std::countr_zero(word));
        ++next;
      }
      word &= word - 1;
      ++r;
    }
    base += in_word;
  }
  assert(next == ranks_.size());
}

inline StatusOr<int32_t> Allocator::acquire_partition(std::string_view tenant) const {
  if (!freed_partitions_.empty()) return freed_partitions_.front();
  if (next_partition_ <= options_.partitions.last) return next_partition_;
  return resource_exhausted_error(
      str_cat("tenant '", tenant, "': no free partition id in ", options_.partitions.first, "..",
              options_.partitions.last, " (", tenants_.size(), " tenants hold one each)"));
}

inline std::string Allocator::free_summary() const {
  int32_t largest = 0;
  for (int32_t f : free_in_su_) largest = std::max(largest, f);
  return str_cat(free_total_, " of ", hosts_, " hosts free (",
                 int64_t{free_total_} * gpus_per_host_, " GPUs; at most ", largest, " in one SU)");
}

inline StatusOr<int32_t> Allocator::partition_for(std::string_view name,
                                                  std::string_view tenant) const {
  if (const auto it = tenants_.find(tenant); it != tenants_.end()) return it->second.partition_id;
  StatusOr<int32_t> p = acquire_partition(tenant);
  if (!p.ok()) return with_context(p.status(), str_cat("job '", name, "'"));
  return p;
}

inline StatusOr<Allocation> Allocator::allocate(const JobRequest& request) {
  const std::string_view name = request.name;
  if (name.empty()) return invalid_field("name", "", "a job needs a name");
  const std::string_view tenant = request.tenant.empty() ? name : std::string_view(request.tenant);
  const int64_t gpus = request.gpus;
  const auto size = size_problem(gpus, gpus_per_host_, hosts_);
  if (size == SizeProblem::kNotPositive || size == SizeProblem::kNotWholeHosts)
    return with_context(check_job_gpus(gpus, gpus_per_host_, hosts_), str_cat("job '", name, "'"));
  if (by_name_.contains(name))
    return already_exists_error(str_cat("job '", name, "': a live job already has this name"));
  if (size == SizeProblem::kLargerThanCluster)
    return with_context(check_job_gpus(gpus, gpus_per_host_, hosts_), str_cat("job '", name, "'"));
  const auto count = static_cast<int32_t>(gpus / gpus_per_host_);
  if (count > free_total_)
    return with_field(resource_exhausted_error(str_cat("job '", name, "': gpus=", gpus, " (", count,
                                                       " hosts) does not fit: ", free_summary())),
                      "gpus", str_cat(gpus));
  RAILYARD_ASSIGN_OR_RETURN(const int32_t partition, partition_for(name, tenant));

  // Choose, then commit: nothing below can fail.
  picked_.clear();
  switch (options_.policy) {
    case Policy::kBestFit:
      pick_best_fit(count);
      break;
    case Policy::kFirstFit:
      pick_first_fit(count);
      break;
    case Policy::kRandom:
      pick_random(count);
      break;
  }
  assert(static_cast<int32_t>(picked_.size()) == count);
  std::sort(picked_.begin(), picked_.end());
  return commit(name, tenant, gpus, partition);
}

inline StatusOr<Allocation> Allocator::reserve(const JobRequest& request,
                                               std::span<const HostId> hosts) {
  const std::string_view name = request.name;
  if (name.empty()) return invalid_field("name", "", "a job needs a name");
  const std::string_view tenant = request.tenant.empty() ? name : std::string_view(request.tenant);
  auto job_error = [&](Status s) { return with_context(s, str_cat("job '", name, "'")); };
  if (hosts.empty()) return job_error(invalid_field("hosts", "", "a job needs at least one host"));
  const int64_t gpus = static_cast<int64_t>(hosts.size()) * gpus_per_host_;
  if (request.gpus != 0 && request.gpus != gpus)
    return job_error(invalid_field("gpus", str_cat(request.gpus),
                                   str_cat("the ", hosts.size(), " hosts given hold ", gpus,
                                           " GPUs")));
  picked_.clear();
  for (HostId h : hosts) {
    if (h.value() < 0 || h.value() >= hosts_)
      return job_error(invalid_field(
          "hosts", str_cat(h.value()),
          str_cat("out of range (the cluster has hosts 0..", hosts_ - 1, ")")));
    picked_.push_back(h.value());
  }
  std::sort(picked_.begin(), picked_.end());
  for (size_t i = 1; i < picked_.size(); ++i)
    if (picked_[i] == picked_[i - 1])
      return job_error(invalid_field("hosts", str_cat(picked_[i]), "listed twice"));
  if (by_name_.contains(name))
    return already_exists_error(str_cat("job '", name, "': a live job already has this name"));
  for (int32_t h : picked_) {
    if (owner_[idx(h)] == kDrained)
      return with_field(failed_precondition_error(str_cat("job '", name, "': host ", h,
                                                          " is drained (out of service)")),
                        "hosts", str_cat(h));
    if (owner_[idx(h)] >= 0)
      return with_field(
          failed_precondition_error(str_cat("job '", name, "': host ", h, " is held by job '",
                                            jobs_.at(owner_[idx(h)]).name, "'")),
          "hosts", str_cat(h));
  }
  RAILYARD_ASSIGN_OR_RETURN(const int32_t partition, partition_for(name, tenant));
  return commit(name, tenant, gpus, partition);
}

inline Allocation Allocator::commit(std::string_view name, std::string_view tenant, int64_t gpus,
                                    int32_t partition) {
  const auto tenant_it = tenants_.find(tenant);
  Allocation a;
  a.job = JobId{next_job_++};
  a.name = std::string(name);
  a.tenant = std::string(tenant);
  a.gpus = gpus;
  a.partition_id = partition;
  a.hosts.reserve(picked_.size());
  for (int32_t h : picked_) {
    owner_[idx(h)] = a.job.value();
    free_bits_[idx(h / 64)] &= ~(uint64_t{1} << (h % 64));
    const int32_t su = h / hosts_per_su_;
    const int32_t pod = su / sus_per_pod_;
    --free_in_su_[idx(su)];
    --free_in_pod_[idx(pod)];
    a.hosts.push_back(HostId{h});
    if (a.sus.empty() || a.sus.back().value() != su) a.sus.push_back(SuId{su});
    if (a.pods.empty() || a.pods.back().value() != pod) a.pods.push_back(PodId{pod});
  }
  free_total_ -= static_cast<int32_t>(picked_.size());
  if (a.split_across_sus()) ++split_sus_;
  if (a.split_across_pods()) ++split_pods_;

  if (tenant_it != tenants_.end()) {
    ++tenant_it->second.live_jobs;
  } else {
    if (!freed_partitions_.empty()) {
      std::pop_heap(freed_partitions_.begin(), freed_partitions_.end(), std::greater<>());
      freed_partitions_.pop_back();
    } else {
      ++next_partition_;
    }
    tenants_.emplace(a.tenant, Tenant{partition, 1});
  }
  by_name_.emplace(a.name, a.job.value());
  auto [it, inserted] = jobs_.emplace(a.job.value(), a);
  assert(inserted);
  (void)inserted;
  return it->second;
}

inline Status Allocator::drain(std::span<const HostId> hosts) {
  for (HostId host : hosts) {
    const int32_t h = host.value();
    if (h < 0 || h >= hosts_)
      return invalid_field("hosts", str_cat(h),
                           str_cat("out of range (the cluster has hosts 0..", hosts_ - 1, ")"));
    if (owner_[idx(h)] >= 0)
      return failed_precondition_error(
          str_cat("host ", h, " is held by job '", jobs_.at(owner_[idx(h)]).name, "'"));
  }
  for (HostId host : hosts) {
    const int32_t h = host.value();
    if (owner_[idx(h)] == kDrained) continue;
    owner_[idx(h)] = kDrained;
    free_bits_[idx(h / 64)] &= ~(uint64_t{1} << (h % 64));
    const int32_t su = h / hosts_per_su_;
    --free_in_su_[idx(su)];
    --free_in_pod_[idx(su / sus_per_pod_)];
    --free_total_;
  }
  return ok_status();
}

inline Status Allocator::release(JobId job) {
  const auto it = jobs_.find(job.value());
  if (it == jobs_.end())
    return not_found_error(str_cat("job id ", job.value(), ": no live job has this id"));
  const Allocation& a = it->second;
  for (HostId host : a.hosts) {
    const int32_t h = host.value();
    owner_[idx(h)] = -1;
    free_bits_[idx(h / 64)] |= uint64_t{1} << (h % 64);
    const int32_t su = h / hosts_per_su_;
    ++free_in_su_[idx(su)];
    ++free_in_pod_[idx(su / sus_per_pod_)];
  }
  free_total_ += static_cast<int32_t>(a.hosts.size());
  if (a.split_across_sus()) --split_sus_;
  if (a.split_across_pods()) --split_pods_;
  const auto t = tenants_.find(a.tenant);
  assert(t != tenants_.end());
  if (--t->second.live_jobs == 0) {
    freed_partitions_.push_back(t->second.partition_id);
    std::push_heap(freed_partitions_.begin(), freed_partitions_.end(), std::greater<>());
    tenants_.erase(t);
  }
  by_name_.erase(a.name);
  jobs_.erase(it);
  return ok_status();
}

inline Status Allocator::release(std::string_view name) {
  const JobId id = job_named(name);
  if (!id.valid())
    return not_found_error(str_cat("job '", name, "': no live job has this name"));
  return release(id);
}

inline const Allocation* Allocator::find(JobId job) const {
  const auto it = jobs_.find(job.value());
  return it == jobs_.end() ? nullptr : &it->second;
}

inline JobId Allocator::job_named(std::string_view name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? JobId{} : JobId{it->second};
}

inline std::vector<JobId> Allocator::jobs() const {
  std::vector<JobId> ids;
  ids.reserve(jobs_.size());
  for (const auto& [id, a] : jobs_) ids.push_back(JobId{id});
  std::sort(ids.begin(), ids.end());  // hash order must not reach the caller
  return ids;
}

inline std::optional<int32_t> Allocator::partition_of(std::string_view tenant) const {
  const auto it = tenants_.find(tenant);
  if (it == tenants_.end()) return std::nullopt;
  return it->second.partition_id;
}

inline Fragmentation Allocator::fragmentation() const {
  Fragmentation f;
  f.free_hosts_per_su = free_in_su_;
  f.free_hosts = free_total_;
  for (int32_t v : free_in_su_) f.largest_unsplit_hosts = std::max(f.largest_unsplit_hosts, v);
  f.largest_placeable_hosts = free_total_;
  f.live_jobs = live_jobs();
  f.jobs_split_across_sus = split_sus_;
  f.jobs_split_across_pods = split_pods_;
  return f;
}

}  // namespace railyard::placement
