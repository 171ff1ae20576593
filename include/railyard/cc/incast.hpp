// railyard/cc/incast.hpp — how many senders reach one NIC port at once: the
// incast a collective, or a whole training step of a placed job, puts on the
// network. The one rule `railyard cc` and `railyard plan` (and anything that
// derives congestion-control settings) use.
//
//   auto incast = railyard::cc::collective_incast(Collective::kAllToAll, Algorithm::kPairwise,
//                                                 railyard::sim::job_groups(job, Dim::kEp));
//   // incast->senders == hosts in the largest EP group - 1
//   railyard::cc::Incast step = railyard::cc::job_incast(job);  // the largest of its step
//   railyard::cc::StartRate start = railyard::cc::start_rate(*incast);  // 1 / senders
//
// The rule, per collective run at once in its groups (GPUs in rank order):
//   nothing leaves a host       1 ("no network incast")
//   all-to-all (pairwise or rail-aligned)
//                               H - 1, H = the most distinct hosts in one group:
//                               NCCL posts every peer's send at once, so each NIC
//                               on a rail hears the same rail of every other host
//                               of its group together
//   ring (and hierarchical, whose inter-host phase is a ring)
//                               1: each NIC receives from one neighbour
//   double binary tree          2: a node receives from its two children
// A job's step takes the largest over the collectives its parallel dimensions
// run (sim::step_collectives), each in its own groups.
//
// The senders' starting rate (start_rate; the fluid model of cc/validate.hpp
// starts them there): line rate, the worst case of a synchronized burst, unless
// the incast comes from an all-to-all, whose senders each split their NIC over
// the N peers they send to at once, so each flow starts at 1/N of line rate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/sim/collective_sim.hpp"

namespace railyard::cc {

struct Incast {
  int32_t senders = 1;      // line-rate senders into one port at once (>= 1)
  bool network = false;     // some group spans hosts
  std::string source;       // why, one line
  bool all_to_all = false;  // the senders come from an all-to-all (see start_rate)
};

// The most distinct hosts any one group spans.
RAILYARD_LAZY
[[nodiscard]] int32_t most_hosts_per_group(
    std::span<const std::vector<routing::GpuEndpoint>> groups) {
  int32_t most = 0;
  std::vector<HostId> hosts;
  for (const auto& g : groups) {
    hosts.clear();
    for (const routing::GpuEndpoint& e : g) hosts.push_back(e.host);
    std::sort(hosts.begin(), hosts.end());
    most = std::max(most,
                    static_cast<int32_t>(std::unique(hosts.begin(), hosts.end()) - hosts.begin()));
  }
  return most;
}

// The incast of `kind` run by `algo` in every group at once (the rule above).
// Errors: an algorithm that does not run `kind` (collective::check_supported).
RAILYARD_LAZY
[[nodiscard]] StatusOr<Incast> collective_incast(
    collective::Collective kind, collective::Algorithm algo,
    std::span<const std::vector<routing::GpuEndpoint>> groups) {
  using collective::Algorithm;
  RAILYARD_RETURN_IF_ERROR(collective::check_supported(kind, algo));
  const std::string name(collective::collective_name(kind));
  const int32_t hosts = most_hosts_per_group(groups);
  if (hosts <= 1) return Incast{1, false, str_cat(name, " inside one host: no network incast")};
  switch (algo) {
    case Algorithm::kPairwise:
    case Algorithm::kRailAligned:
      return Incast{hosts - 1, true,
                    str_cat(name, " over ", hosts,
                            " hosts per group: every other host's NIC on the rail sends at once"),
                    true};
    case Algorithm::kDoubleBinaryTree:
      return Incast{2, true, str_cat(name, " tree: a node receives from its 2 children")};
    case Algorithm::kHierarchical:
      return Incast{1, true,
                    str_cat(name, " hierarchical: the inter-host phase is a ring, 1 sender")};
    case Algorithm::kRing:
      break;
  }
  return Incast{1, true, str_cat(name, " ring: each NIC receives from one neighbour")};
}

// The incast of one training step of `job`: the largest over the collectives its
// parallel dimensions run (sim::step_collectives), each in its own groups; ties
// go to the first (network-heavy dimensions first).
RAILYARD_LAZY
[[nodiscard]] Incast job_incast(const placement::JobPlacement& job) {
  Incast best{1, false, "nothing leaves a host: no network incast"};
  for (const sim::StepCollective& c : sim::step_collectives(job.plan)) {
    const auto groups = sim::job_groups(job, c.dim);
    StatusOr<Incast> one = collective_incast(c.kind, c.algorithm, groups);
    if (!one.ok() || !one->network) continue;  // step collectives are always supported
    if (!best.network || one->senders > best.senders) {
      best = *std::move(one);
      best.source = str_cat(placement::to_string(c.dim), " ", best.source);
    }
  }
  return best;
}

// Where the senders of `incast` start, as a fraction of line rate (the rule in
// the overview), with the reason when it is not line rate.
struct StartRate {
  double fraction = 1;
  std::string reason;  // empty at line rate
};

RAILYARD_LAZY
[[nodiscard]] StartRate start_rate(const Incast& incast) {
  if (!incast.all_to_all || incast.senders <= 1) return {};
  return {1.0 / incast.senders,
          str_cat("senders start at 1/", incast.senders, " of line rate")};
}

}  // namespace railyard::cc
