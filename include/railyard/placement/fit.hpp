// railyard/placement/fit.hpp — the one check that a job fits a cluster.
//
// Jobs take whole hosts. Every entry point that sizes a job — the allocator,
// `--jobs` lists, job traces, a parallelism plan on given hosts — asks the same
// two questions here, so they accept and reject the same jobs:
//
//   auto d = railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   railyard::placement::check_job_gpus(256, d->gpus_per_host(), d->hosts());  // ok
//   railyard::placement::check_job_gpus(12, 8, 128);
//   //   "gpus=12: not a multiple of gpus_per_host=8 (jobs take whole hosts)", field gpus
//   railyard::placement::check_plan_fits(*d, *railyard::placement::parse_plan("tp=16,dp=4"));
//   //   "tp=16: larger than the 8-GPU NVLink domain", field tp
#pragma once

#include <cstdint>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::placement {

// Why a GPU count does not fit, if it does not.
enum class SizeProblem : uint8_t { kNone, kNotPositive, kNotWholeHosts, kLargerThanCluster };

// The predicate itself: positive, a multiple of gpus_per_host, at most the cluster.
[[nodiscard]] constexpr SizeProblem size_problem(int64_t gpus, int32_t gpus_per_host,
                                                 int32_t hosts) {
  if (gpus <= 0) return SizeProblem::kNotPositive;
  if (gpus % gpus_per_host != 0) return SizeProblem::kNotWholeHosts;
  if (gpus > int64_t{hosts} * gpus_per_host) return SizeProblem::kLargerThanCluster;
  return SizeProblem::kNone;
}

// A job of `gpus` GPUs on a cluster of `hosts` hosts of `gpus_per_host` GPUs.
// InvalidArgument with field "gpus" when it does not fit.
RAILYARD_LAZY
[[nodiscard]] Status check_job_gpus(int64_t gpus, int32_t gpus_per_host, int32_t hosts) {
  const std::string value = str_cat(gpus);
  switch (size_problem(gpus, gpus_per_host, hosts)) {
    case SizeProblem::kNone:
      return ok_status();
    case SizeProblem::kNotPositive:
      return invalid_field("gpus", value, "must be positive");
    case SizeProblem::kNotWholeHosts:
      return invalid_field("gpus", value,
                           str_cat("not a multiple of gpus_per_host=", gpus_per_host,
                                   " (jobs take whole hosts)"));
    case SizeProblem::kLargerThanCluster:
      return invalid_field("gpus", value,
                           str_cat("larger than the cluster (", int64_t{hosts} * gpus_per_host,
                                   " GPUs, ", hosts, " hosts)"));
  }
  return ok_status();
}

// A parallelism plan on the cluster: its world fits as above (reported as the
// plan, field "job", which is what the user typed), and TP stays inside one
// NVLink domain and divides it (field "tp"), or TP groups would straddle domains.
RAILYARD_LAZY
[[nodiscard]] Status check_plan_fits(const topology::ClusterDescriptor<>& d,
                                            const ParallelPlan& plan) {
  const int64_t gpus_per_host = d.gpus_per_host();
  const int64_t domain_gpus = int64_t{d.hosts_per_domain()} * gpus_per_host;
  const int32_t tp = plan.size(Dim::kTp);
  if (tp > domain_gpus)
    return invalid_field("tp", str_cat(tp),
                         str_cat("larger than the ", domain_gpus, "-GPU NVLink domain"));
  if (domain_gpus % tp != 0)
    return invalid_field("tp", str_cat(tp),
                         str_cat("must divide the ", domain_gpus,
                                 " GPUs of an NVLink domain, or TP groups would straddle domains"));
  const int64_t world = plan.world();
  switch (size_problem(world, d.gpus_per_host(), d.hosts())) {
    case SizeProblem::kNone:
      return ok_status();
    case SizeProblem::kNotPositive:  // a valid plan has at least one rank
    case SizeProblem::kNotWholeHosts:
      return invalid_field(
          "job", plan.to_string(),
          str_cat(world, " ranks is not a whole number of ", gpus_per_host, "-GPU hosts"));
    case SizeProblem::kLargerThanCluster:
      return invalid_field("job", plan.to_string(),
                           str_cat(world, " GPUs is more than the cluster's ", d.gpus()));
  }
  return ok_status();
}

}  // namespace railyard::placement
