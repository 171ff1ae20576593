// railyard/routing/isolation.hpp — which links tenants share, and a spine
// partition that keeps their cross-leaf traffic apart.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   const auto& desc = cluster->descriptor;
//   const auto& fabric = cluster->fabric;
//   auto placed = railyard::placement::place_jobs(desc,
//   "a:gpus=384,tenant=t1;b:gpus=384,tenant=t2",
//                                                 {});
//   std::vector<std::vector<railyard::routing::Flow>> flows;
//   for (const auto& job : placed->placed)
//     flows.push_back(railyard::routing::ring_flows(job, desc, 64e6));
//   railyard::routing::UniformRandomHash hash(1);                       // routing/hash.hpp
//   auto ecmp = railyard::routing::route_jobs_ecmp(desc, fabric, flows, hash);
//   auto shared = railyard::routing::isolation_report(fabric, placed->placed, flows, *ecmp);
//   // shared->shared: links both tenants use; shared->tenants[t].shared_fraction
//   auto part = railyard::routing::partition_spines(desc, placed->placed, flows);
//   if (part.ok) {
//     auto routes = railyard::routing::route_jobs_partitioned(desc, fabric, placed->placed,
//                                                             flows, part);
//     // isolation_report(fabric, placed->placed, flows, *routes)->isolated() == true
//   }
//
// Tenants. A job's tenant is Allocation::tenant (the job's name when empty).
// Tenants are listed in the order their first job appears. Hosts belong to one
// job, so host-leaf links are never shared: sharing happens on leaf-spine and
// spine-core links.
//
// Spine lanes. Leaf uplink j reaches spine s = spine_of_uplink(leaf, j); among the
// parallel cables from one leaf to s, cable c is the c-th in uplink order. Lane
// (s, c) is "cable c to spine s" on every leaf. Lanes that exist on every leaf
// (c below the fewest parallel cables any leaf has to s) are divided; with U a
// multiple of S, as in every preset, that is all U uplinks. A tenant owning
// lane (s, c) owns that cable on every leaf, in both directions, so a flow of
// the tenant from leaf a to leaf b can go up lane (s, c) and come down any lane
// (s, c') it owns: its traffic never touches another tenant's cable. The core
// tier (3 tiers, traffic between pods) is divided the same way per spine index:
// core lane (s, g, c) is cable c from spine index s of every pod to core g of
// group s, divided among the tenants that own a leaf lane on s.
//
// Division (partition_spines): tenants with traffic between different leaves get
// one lane each, and the remaining lanes in proportion to those bytes (largest
// remainder, ties by tenant order); lanes are handed out in blocks in the order
// (s=0,c=0), (1,0), ..., (S-1,0), (0,1), ..., so a tenant's first S lanes are on
// distinct spines. It cannot when more tenants need lanes than there are lanes
// (more tenants than spine uplinks per leaf), and says why.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/flow.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::routing {

// The tenant a job belongs to: its tenant, or its name when that is empty.
RAILYARD_LAZY
[[nodiscard]] std::string_view tenant_of(const placement::Allocation& job) {
  return job.tenant.empty() ? std::string_view(job.name) : std::string_view(job.tenant);
}

// One ring step over the job's hosts (in Allocation::hosts order) on every rail
// and plane: host i sends `bytes` to host i+1 (the last to the first) from NIC n
// to NIC n. Rail by rail, then plane, then ring position. No flows for a job of
// fewer than two hosts.
RAILYARD_LAZY
[[nodiscard]] std::vector<Flow> ring_flows(const placement::Allocation& job,
                                           const topology::ClusterDescriptor<>& desc,
                                           double bytes) {
  std::vector<Flow> flows;
  const size_t k = job.hosts.size();
  if (k < 2) return flows;
  flows.reserve(k * static_cast<size_t>(desc.nics_per_host() * desc.planes()));
  for (int32_t n = 0; n < desc.nics_per_host(); ++n)
    for (int32_t p = 0; p < desc.planes(); ++p)
      for (size_t i = 0; i < k; ++i)
        flows.push_back({NicPort{job.hosts[i], NicIndex{n}, PlaneId{p}},
                         NicPort{job.hosts[(i + 1) % k], NicIndex{n}, PlaneId{p}}, bytes});
  return flows;
}

// A link used by more than one tenant.
struct SharedLink {
  LinkId link;
  topology::LinkTier tier = topology::LinkTier::kLeafSpine;
  std::vector<std::string> tenants;  // in tenant order
  double bytes = 0;                  // all tenants' bytes on the link
};

struct TenantShare {
  std::string tenant;
  int64_t flows = 0;
  double bytes = 0;
  double shared_bytes = 0;     // bytes of its flows that cross at least one shared link
  double shared_fraction = 0;  // shared_bytes / bytes (0 with no bytes)
  int32_t shared_links = 0;    // shared links it uses
};

struct IsolationReport {
  std::vector<SharedLink> shared;    // ascending link id
  std::vector<TenantShare> tenants;  // tenant order
  [[nodiscard]] bool isolated() const { return shared.empty(); }
  [[nodiscard]] int64_t shared_in(topology::LinkTier tier) const {
    return std::count_if(shared.begin(), shared.end(),
                         [&](const SharedLink& s) { return s.tier == tier; });
  }
};

namespace detail {

// Tenant names in first-appearance order and each job's tenant index.
RAILYARD_LAZY
std::pair<std::vector<std::string>, std::vector<int32_t>> tenant_index(
    std::span<const placement::Allocation> jobs) {
  std::vector<std::string> names;
  std::vector<int32_t> of_job;
  for (const placement::Allocation& j : jobs) {
    const std::string_view t = tenant_of(j);
    auto it = std::find(names.begin(), names.end(), t);
    if (it == names.end()) {
      names.emplace_back(t);
      it = names.end() - 1;
    }
    of_job.push_back(static_cast<int32_t>(it - names.begin()));
  }
  return {std::move(names), std::move(of_job)};
}

RAILYARD_LAZY
Status check_job_spans(size_t jobs, size_t flows, size_t routes) {
  if (flows != jobs)
    return invalid_argument_error(
        str_cat("flows: ", flows, " flow lists for ", jobs, " jobs (want one per job)"));
  if (routes != jobs)
    return invalid_argument_error(
        str_cat("routes: ", routes, " route lists for ", jobs, " jobs (want one per job)"));
  return ok_status();
}

}  // namespace detail

// Every link two tenants share under the given routes, and each tenant's
// exposure. routes[j][i] is the route of flows[j][i]. Errors (InvalidArgument):
// list counts that differ from the job count or from each other.
// O(total route links * log).
RAILYARD_LAZY
[[nodiscard]] StatusOr<IsolationReport> isolation_report(
    const topology::Fabric& fabric, std::span<const placement::Allocation> jobs,
    std::span<const std::vector<Flow>> flows, std::span<const std::vector<Route>> routes) {
  RAILYARD_RETURN_IF_ERROR(detail::check_job_spans(jobs.size(), flows.size(), routes.size()));
  for (size_t j = 0; j < jobs.size(); ++j)
    if (flows[j].size() != routes[j].size())
      return invalid_argument_error(str_cat("routes: job '", jobs[j].name, "' has ",
                                                flows[j].size(), " flows but ", routes[j].size(),
                                                " routes"));
  auto [names, of_job] = detail::tenant_index(jobs);
  // (link, tenant, bytes) for every hop, then grouped by link.
  struct Use {
    int32_t link;
    int32_t tenant;
    double bytes;
  };
  std::vector<Use> uses;
  for (size_t j = 0; j < jobs.size(); ++j)
    for (size_t i = 0; i < flows[j].size(); ++i) {
      const topology::Path path =
          fabric.route_links(flows[j][i].src, flows[j][i].dst, routes[j][i]);
      for (LinkId l : path.view()) uses.push_back({l.value(), of_job[j], flows[j][i].bytes});
    }
  std::stable_sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) {
    return a.link != b.link ? a.link < b.link : a.tenant < b.tenant;
  });
  IsolationReport rep;
  std::vector<char> shared_link(static_cast<size_t>(fabric.link_count()), 0);
  for (size_t b = 0; b < uses.size();) {
    size_t e = b;
    double bytes = 0;
    std::vector<int32_t> ts;
    for (; e < uses.size() && uses[e].link == uses[b].link; ++e) {
      bytes += uses[e].bytes;
      if (ts.empty() || ts.back() != uses[e].tenant) ts.push_back(uses[e].tenant);
    }
    if (ts.size() > 1) {
      SharedLink s;
      s.link = LinkId{uses[b].link};
      s.tier = fabric.tier(s.link);
      s.bytes = bytes;
      for (int32_t t : ts) s.tenants.push_back(names[static_cast<size_t>(t)]);
      rep.shared.push_back(std::move(s));
      shared_link[static_cast<size_t>(uses[b].link)] = 1;
    }
    b = e;
  }
  rep.tenants.resize(names.size());
  for (size_t t = 0; t < names.size(); ++t) rep.tenants[t].tenant = names[t];
  for (const SharedLink& s : rep.shared)
    for (const std::string& name : s.tenants)
      ++rep.tenants[static_cast<size_t>(std::find(names.begin(), names.end(), name) -
                                        names.begin())]
            .shared_links;
  for (size_t j = 0; j < jobs.size(); ++j) {
    TenantShare& t = rep.tenants[static_cast<size_t>(of_job[j])];
    for (size_t i = 0; i < flows[j].size(); ++i) {
      ++t.flows;
      t.bytes += flows[j][i].bytes;
      const topology::Path path =
          fabric.route_links(flows[j][i].src, flows[j][i].dst, routes[j][i]);
      for (LinkId l : path.view())
        if (shared_link[static_cast<size_t>(l.value())]) {
          t.shared_bytes += flows[j][i].bytes;
          break;
        }
    }
  }
  for (TenantShare& t : rep.tenants) t.shared_fraction = t.bytes > 0 ? t.shared_bytes / t.bytes : 0;
  return rep;
}

// Every job's flows under ECMP (ecmp_paths, default source ports and QPs per job).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<std::vector<Route>>> route_jobs_ecmp(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const std::vector<Flow>> flows, const HashModel& model,
    const topology::FailureOverlay* failures = nullptr) {
  std::vector<std::vector<Route>> out;
  for (const std::vector<Flow>& job : flows) {
    RAILYARD_ASSIGN_OR_RETURN(std::vector<Route> r,
                              ecmp_paths(desc, fabric, job, model, {}, failures));
    out.push_back(std::move(r));
  }
  return out;
}

// Every job's flows planned together by assign_paths (no isolation: tenants
// share links whenever that lowers the maximum load).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<std::vector<Route>>> route_jobs_planned(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const std::vector<Flow>> flows, const topology::FailureOverlay* failures = nullptr,
    AssignOptions options = {}) {
  std::vector<Flow> all;
  for (const std::vector<Flow>& job : flows) all.insert(all.end(), job.begin(), job.end());
  RAILYARD_ASSIGN_OR_RETURN(PathPlan plan, assign_paths(desc, fabric, all, failures, options));
  std::vector<std::vector<Route>> out;
  size_t at = 0;
  for (const std::vector<Flow>& job : flows) {
    out.emplace_back(plan.routes.begin() + static_cast<ptrdiff_t>(at),
                     plan.routes.begin() + static_cast<ptrdiff_t>(at + job.size()));
    at += job.size();
  }
  return out;
}

// Cable c from a leaf to spine index s (the same on every leaf).
struct SpineLane {
  int32_t spine = 0;
  int32_t cable = 0;
  friend constexpr bool operator==(const SpineLane&, const SpineLane&) = default;
};
// Cable c from spine index s (of every pod) to core g of core group s.
struct CoreLane {
  int32_t spine = 0;
  int32_t core = 0;
  int32_t cable = 0;
  friend constexpr bool operator==(const CoreLane&, const CoreLane&) = default;
};

struct TenantLanes {
  std::string tenant;
  double cross_leaf_bytes = 0;  // bytes of its flows between different leaves
  double cross_pod_bytes = 0;   // of those, between different pods
  std::vector<SpineLane> spine_lanes;
  std::vector<CoreLane> core_lanes;
};

// The division of spine (and core) uplinks between tenants.
struct SpinePartition {
  bool ok = true;
  std::string reason;                // why not, when !ok
  int32_t spine_lanes = 0;           // leaf lanes divided (uplinks per leaf that every leaf has)
  std::vector<TenantLanes> tenants;  // tenant order, also those that need no lane
};

namespace detail {

// Lane counts per target: for members m of a round-robin wiring (member m's port
// p reaches target (m*per + p) mod mod), the fewest cables any member has to
// each target.
RAILYARD_LAZY
std::vector<int32_t> min_parallel(int32_t members, int32_t per, int32_t mod) {
  std::vector<int32_t> best(static_cast<size_t>(mod), per);
  std::vector<int32_t> count(static_cast<size_t>(mod));
  for (int32_t m = 0; m < members; ++m) {
    std::fill(count.begin(), count.end(), 0);
    for (int32_t p = 0; p < per; ++p) ++count[static_cast<size_t>((int64_t{m} * per + p) % mod)];
    for (size_t t = 0; t < best.size(); ++t) best[t] = std::min(best[t], count[t]);
  }
  return best;
}

// Lane quotas: one each, the rest by largest remainder of `weight`.
RAILYARD_LAZY
std::vector<int32_t> quotas(const std::vector<double>& weight, int32_t lanes) {
  const auto n = static_cast<int32_t>(weight.size());
  std::vector<int32_t> q(weight.size(), 1);
  const int32_t rest = lanes - n;
  double total = 0;
  for (double w : weight) total += w;
  if (rest <= 0 || n == 0) return q;
  std::vector<std::pair<double, int32_t>> frac;
  int32_t given = 0;
  for (int32_t t = 0; t < n; ++t) {
    const double share =
        total > 0 ? rest * weight[static_cast<size_t>(t)] / total : static_cast<double>(rest) / n;
    const auto whole = static_cast<int32_t>(std::floor(share));
    q[static_cast<size_t>(t)] += whole;
    given += whole;
    frac.emplace_back(share - whole, t);
  }
  std::stable_sort(frac.begin(), frac.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int32_t k = 0; k < rest - given; ++k)
    ++q[static_cast<size_t>(frac[static_cast<size_t>(k)].second)];
  return q;
}

}  // namespace detail

// Divides the spine uplinks (and, for traffic between pods, the spine-core
// uplinks) between the tenants of `jobs` so that their flows between different
// leaves share no link (see the overview). flows[j] are job j's flows; bytes
// weigh the shares. Never fails on valid input: when the lanes do not suffice,
// ok is false and reason says why (tenants still lists each tenant's demand).
// Preconditions: flows.size() == jobs.size(), ports valid for desc.
RAILYARD_LAZY
[[nodiscard]] SpinePartition partition_spines(const topology::ClusterDescriptor<>& desc,
                                              std::span<const placement::Allocation> jobs,
                                              std::span<const std::vector<Flow>> flows) {
  SpinePartition part;
  auto [names, of_job] = detail::tenant_index(jobs);
  part.tenants.resize(names.size());
  std::vector<int32_t> need_leaf(names.size(), 0), need_pod(names.size(), 0);
  for (size_t t = 0; t < names.size(); ++t) part.tenants[t].tenant = names[t];
  for (size_t j = 0; j < jobs.size() && j < flows.size(); ++j)
    for (const Flow& f : flows[j]) {
      const SwitchIndex la = desc.leaf_of(f.src);
      const SwitchIndex lb = desc.leaf_of(f.dst);
      if (la == lb) continue;
      const auto t = static_cast<size_t>(of_job[j]);
      part.tenants[t].cross_leaf_bytes += f.bytes;
      need_leaf[t] = 1;
      if (desc.pod_of_leaf(la) != desc.pod_of_leaf(lb)) {
        part.tenants[t].cross_pod_bytes += f.bytes;
        need_pod[t] = 1;
      }
    }
  const topology::ClosShape& c = desc.shape();
  std::vector<size_t> needy;
  std::vector<double> weight;
  for (size_t t = 0; t < names.size(); ++t)
    if (need_leaf[t]) {
      needy.push_back(t);
      weight.push_back(part.tenants[t].cross_leaf_bytes);
    }
  if (needy.empty()) return part;
  // Leaf lanes, c-major; a lane exists when every leaf of a pod has that cable.
  const std::vector<int32_t> par =
      detail::min_parallel(c.leaves_per_pod, c.leaf_up_ports, c.spines_per_pod);
  std::vector<SpineLane> lanes;
  for (int32_t cable = 0; cable < c.leaf_up_ports; ++cable)
    for (int32_t s = 0; s < c.spines_per_pod; ++s)
      if (cable < par[static_cast<size_t>(s)]) lanes.push_back({s, cable});
  part.spine_lanes = static_cast<int32_t>(lanes.size());
  if (needy.size() > lanes.size()) {
    part.ok = false;
    part.reason =
        str_cat(needy.size(), " tenants send traffic between leaves but a leaf has only ",
                lanes.size(), " spine uplinks to divide (each tenant needs at least one)");
    return part;
  }
  const std::vector<int32_t> q = detail::quotas(weight, static_cast<int32_t>(lanes.size()));
  size_t at = 0;
  for (size_t k = 0; k < needy.size(); ++k)
    for (int32_t n = 0; n < q[k]; ++n) part.tenants[needy[k]].spine_lanes.push_back(lanes[at++]);
  // Core lanes per spine index, for tenants with traffic between pods.
  if (c.pods > 1 && c.spine_up_ports > 0) {
    const std::vector<int32_t> cpar =
        detail::min_parallel(c.pods, c.spine_up_ports, c.cores_per_group);
    std::vector<CoreLane> group;
    for (int32_t s = 0; s < c.spines_per_pod; ++s) {
      std::vector<size_t> users;
      std::vector<double> w;
      for (size_t t : needy) {
        if (!need_pod[t]) continue;
        const auto& sl = part.tenants[t].spine_lanes;
        const auto on_s =
            std::count_if(sl.begin(), sl.end(), [&](const SpineLane& l) { return l.spine == s; });
        if (on_s == 0) continue;
        users.push_back(t);
        w.push_back(part.tenants[t].cross_pod_bytes * static_cast<double>(on_s));
      }
      if (users.empty()) continue;
      group.clear();
      for (int32_t cable = 0; cable < c.spine_up_ports; ++cable)
        for (int32_t g = 0; g < c.cores_per_group; ++g)
          if (cable < cpar[static_cast<size_t>(g)]) group.push_back({s, g, cable});
      if (users.size() > group.size()) {
        part.ok = false;
        part.reason =
            str_cat(users.size(), " tenants send traffic between pods through spine ", s,
                    " of each pod but it has only ", group.size(), " core uplinks to divide");
        return part;
      }
      const std::vector<int32_t> cq = detail::quotas(w, static_cast<int32_t>(group.size()));
      size_t g_at = 0;
      for (size_t k = 0; k < users.size(); ++k)
        for (int32_t n = 0; n < cq[k]; ++n)
          part.tenants[users[k]].core_lanes.push_back(group[g_at++]);
    }
  }
  return part;
}

// The same with ring_flows(job, desc, 1) of every job as the demand.
RAILYARD_LAZY
[[nodiscard]] SpinePartition partition_spines(const topology::ClusterDescriptor<>& desc,
                                              std::span<const placement::Allocation> jobs) {
  std::vector<std::vector<Flow>> flows;
  for (const placement::Allocation& j : jobs) flows.push_back(ring_flows(j, desc, 1.0));
  return partition_spines(desc, jobs, flows);
}

// A FailureOverlay (a copy of `base`, if any) in which every leaf-spine and
// spine-core cable tenant `tenant_index` of `part` does not own is down.
RAILYARD_LAZY
[[nodiscard]] topology::FailureOverlay tenant_overlay(
    const topology::Fabric& fabric, const SpinePartition& part, size_t tenant_index,
    const topology::FailureOverlay* base = nullptr) {
  topology::FailureOverlay out = base != nullptr ? *base : topology::FailureOverlay(fabric);
  const topology::ClusterDescriptor<>& d = fabric.descriptor();
  const topology::ClosShape& c = d.shape();
  const TenantLanes& t = part.tenants[tenant_index];
  std::vector<char> own_leaf(static_cast<size_t>(c.spines_per_pod * std::max(1, c.leaf_up_ports)),
                             0);
  for (const SpineLane& l : t.spine_lanes)
    own_leaf[static_cast<size_t>(l.spine * c.leaf_up_ports + l.cable)] = 1;
  std::vector<int32_t> seen;
  for (int64_t leaf = 0; leaf < c.total_leaves(); ++leaf) {
    const SwitchIndex li{static_cast<int32_t>(leaf)};
    seen.assign(static_cast<size_t>(c.spines_per_pod), 0);
    for (int32_t j = 0; j < c.leaf_up_ports; ++j) {
      const int32_t s = d.spine_of_uplink(li, j);
      const int32_t cable = seen[static_cast<size_t>(s)]++;
      if (!own_leaf[static_cast<size_t>(s * c.leaf_up_ports + cable)])
        out.set_cable_down(fabric.leaf_uplink(li, j));
    }
  }
  if (c.spine_up_ports > 0) {
    const int32_t groups = c.cores_per_group;
    std::vector<char> own_core(
        static_cast<size_t>(c.spines_per_pod) * static_cast<size_t>(groups * c.spine_up_ports), 0);
    for (const CoreLane& l : t.core_lanes)
      own_core[static_cast<size_t>((l.spine * groups + l.core) * c.spine_up_ports + l.cable)] = 1;
    for (int64_t sp = 0; sp < c.total_spines(); ++sp) {
      const SwitchIndex si{static_cast<int32_t>(sp)};
      const int32_t s = si.value() % c.spines_per_pod;
      seen.assign(static_cast<size_t>(groups), 0);
      for (int32_t k = 0; k < c.spine_up_ports; ++k) {
        const int32_t g = d.core_above(si, k).value() % groups;
        const int32_t cable = seen[static_cast<size_t>(g)]++;
        if (!own_core[static_cast<size_t>((s * groups + g) * c.spine_up_ports + cable)])
          out.set_cable_down(fabric.spine_uplink(si, k));
      }
    }
  }
  return out;
}

// Each tenant's flows planned by assign_paths inside its partition only (its
// jobs together). Errors: a partition that is not ok (FailedPrecondition with
// its reason), a partition made for other jobs (InvalidArgument), and those of
// assign_paths().
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<std::vector<Route>>> route_jobs_partitioned(
    const topology::ClusterDescriptor<>& desc, const topology::Fabric& fabric,
    std::span<const placement::Allocation> jobs, std::span<const std::vector<Flow>> flows,
    const SpinePartition& part, const topology::FailureOverlay* failures = nullptr,
    AssignOptions options = {}) {
  if (!part.ok) return failed_precondition_error(str_cat("partition: ", part.reason));
  RAILYARD_RETURN_IF_ERROR(detail::check_job_spans(jobs.size(), flows.size(), jobs.size()));
  auto [names, of_job] = detail::tenant_index(jobs);
  if (names.size() != part.tenants.size())
    return invalid_argument_error(str_cat("partition: made for ", part.tenants.size(),
                                              " tenants, the jobs have ", names.size()));
  for (size_t t = 0; t < names.size(); ++t)
    if (names[t] != part.tenants[t].tenant)
      return invalid_argument_error(str_cat("partition: tenant ", t, " is '",
                                                part.tenants[t].tenant, "', the jobs have '",
                                                names[t], "'"));
  std::vector<std::vector<Route>> out(jobs.size());
  for (size_t t = 0; t < names.size(); ++t) {
    std::vector<Flow> mine;
    for (size_t j = 0; j < jobs.size(); ++j)
      if (static_cast<size_t>(of_job[j]) == t)
        mine.insert(mine.end(), flows[j].begin(), flows[j].end());
    if (mine.empty()) continue;
    const topology::FailureOverlay overlay = tenant_overlay(fabric, part, t, failures);
    auto plan = assign_paths(desc, fabric, mine, &overlay, options);
    if (!plan.ok())
      return make_status(
          plan.status().code(),
          str_cat("tenant '", names[t], "': ", message_of(plan.status())));
    size_t at = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (static_cast<size_t>(of_job[j]) != t) continue;
      out[j].assign(plan->routes.begin() + static_cast<ptrdiff_t>(at),
                    plan->routes.begin() + static_cast<ptrdiff_t>(at + flows[j].size()));
      at += flows[j].size();
    }
  }
  return out;
}

}  // namespace railyard::routing
