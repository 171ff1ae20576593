// railyard/placement/jobs.hpp — tenant job lists: the one grammar `railyard
// place`, `railyard cc --jobs` and `railyard plan --jobs` read, and placing such
// a list on an empty cluster.
//
//   auto jobs = railyard::placement::parse_job_list("llm:tp=8,pp=2,dp=8,tenant=lab1;ft:gpus=64");
//   // (*jobs)[0].gpus == 128, (*jobs)[0].plan->size(Dim::kPp) == 2; (*jobs)[1].plan empty
//   auto placed = railyard::placement::place_jobs(desc, "a:gpus=256;b:gpus=64,tenant=t2",
//                                                 railyard::placement::Policy::kBestFit);
//   // placed->placed[0].hosts, placed->unplaced, placed->free_hosts
//
// Grammar: jobs separated by ';', each `name:key=value,...`; spaces around items,
// keys and values are ignored and empty items skipped. Keys:
//   gpus      the job's size (whole hosts: a multiple of GPUs per host)
//   tenant    who owns it (default: the job's name); one partition id per tenant
//   tp, cp, ep, dp, pp, order, <dim>_bytes
//             a parallelism plan (placement/plan.hpp); its world is the job's size
// A job gives gpus, a plan, or both (then they must agree). A job given as gpus
// only runs TP across a host and DP across hosts when a plan is needed
// (plan_or_default). Job and tenant names are letters, digits, '.', '_' and '-' (they name files
// and appear in hostfiles); no name twice, no key twice in one job. Errors are
// InvalidArgument, name the job and carry the key as the error field:
// "job 'b': foo=1: unknown key (keys: gpus, tenant, tp, cp, ep, dp, pp, order,
// <dim>_bytes)".
//
// Whether a job fits a cluster is placement/fit.hpp's one check (check_job_fits).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/fit.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::placement {

// One job of a list.
struct JobSpec {
  std::string name;
  std::string tenant;                // never empty (the name by default)
  int64_t gpus = 0;                  // the plan's world when a plan is given
  std::optional<ParallelPlan> plan;  // when any plan key was given

  [[nodiscard]] JobRequest request() const { return {name, tenant, gpus}; }
};

inline constexpr std::string_view kJobListKeys =
    "gpus, tenant, tp, cp, ep, dp, pp, order, <dim>_bytes";

namespace detail {

RAILYARD_LAZY
std::string_view job_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

RAILYARD_LAZY
bool job_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '.' || c == '_' ||
         c == '-';
}

RAILYARD_LAZY
bool is_plan_key(std::string_view key) {
  for (std::string_view k : kDimNames)
    if (key == k || (key.size() == k.size() + 6 && key.starts_with(k) && key.ends_with("_bytes")))
      return true;
  return key == "order";
}

}  // namespace detail

// Parses a job list (grammar above). Does not look at a cluster: check_job_fits()
// does. At least one job is required.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<JobSpec>> parse_job_list(std::string_view text) {
  std::vector<JobSpec> out;
  int32_t index = 0;
  for (std::string_view raw : split(text, ';')) {
    const std::string_view item = detail::job_trim(raw);
    if (item.empty()) continue;
    ++index;
    const size_t colon = item.find(':');
    const std::string_view name = detail::job_trim(item.substr(0, colon));
    if (name.empty())
      return with_field(invalid_argument_error(str_cat(
                            "job ", index, " ('", item,
                            "'): name is empty (expected name:gpus=N or name:tp=8,dp=4)")),
                        "name", "");
    const std::string context = str_cat("job '", name, "'");
    if (!std::all_of(name.begin(), name.end(), [](char c) { return detail::job_name_char(c); }))
      return with_context(
          invalid_field("name", name, "only letters, digits, '.', '_' and '-' (it names files)"),
          context);
    for (const JobSpec& other : out)
      if (other.name == name) return with_context(invalid_field("name", name, "duplicate job name"), context);
    JobSpec job;
    job.name = std::string(name);
    std::optional<int64_t> gpus;
    std::string plan_text;
    std::vector<std::pair<std::string, std::string>> seen;  // key, value
    if (colon != std::string_view::npos) {
      for (std::string_view raw_kv : split(item.substr(colon + 1), ',')) {
        const std::string_view kv = detail::job_trim(raw_kv);
        if (kv.empty()) continue;
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos)
          return with_context(
              with_field(invalid_argument_error(
                             str_cat(kv, ": expected key=value (keys: ", kJobListKeys, ")")),
                         kv, ""),
              context);
        const std::string key(detail::job_trim(kv.substr(0, eq)));
        const std::string_view value = detail::job_trim(kv.substr(eq + 1));
        for (const auto& [seen_key, seen_value] : seen)
          if (seen_key == key)
            return with_context(invalid_field(key, value,
                                              str_cat("key given twice (", key, "=", seen_value,
                                                      ", then ", key, "=", value, ")")),
                                context);
        seen.emplace_back(key, value);
        if (key == "gpus") {
          auto n = parse_int("gpus", value);
          if (!n.ok()) return with_context(n.status(), context);
          gpus = *n;
        } else if (key == "tenant") {
          if (value.empty())
            return with_context(invalid_field("tenant", "", "tenant name is empty"), context);
          // Tenants name partitions in reports, labels and files, as job names do.
          if (!std::all_of(value.begin(), value.end(),
                           [](char c) { return detail::job_name_char(c); }))
            return with_context(
                invalid_field("tenant", value,
                              "only letters, digits, '.', '_' and '-' (as job names)"),
                context);
          job.tenant = std::string(value);
        } else if (detail::is_plan_key(key)) {
          str_append(plan_text, plan_text.empty() ? "" : ",", key, "=", value);
        } else {
          return with_context(
              invalid_field(key, value, str_cat("unknown key (keys: ", kJobListKeys, ")")),
              context);
        }
      }
    }
    if (job.tenant.empty()) job.tenant = job.name;
    if (!plan_text.empty()) {
      auto plan = parse_plan(plan_text);
      if (!plan.ok()) return with_context(plan.status(), context);
      job.plan = *plan;
      if (gpus && *gpus != plan->world())
        return with_context(invalid_field("gpus", str_cat(*gpus),
                                          str_cat("the plan ", plan->to_string(), " has ",
                                                  plan->world(), " ranks")),
                            context);
      job.gpus = plan->world();
    } else if (gpus) {
      job.gpus = *gpus;
    } else {
      return with_context(
          invalid_field("gpus", "", "missing: give gpus=N or a plan (e.g. tp=8,dp=4)"),
          context);
    }
    out.push_back(std::move(job));
  }
  if (out.empty())
    return with_field(
        invalid_argument_error("no jobs in the list (expected name:gpus=N or name:tp=8,dp=4;...)"),
        "jobs", text);
  return out;
}

// The one fits-check for a listed job (placement/fit.hpp): its size, and its
// plan's TP against the NVLink domain. Errors name the job.
RAILYARD_LAZY
[[nodiscard]] Status check_job_fits(const JobSpec& job,
                                           const topology::ClusterDescriptor<>& d) {
  // A plan is checked as the plan the user wrote (its world is the job's size).
  const Status s = job.plan ? check_plan_fits(d, *job.plan)
                            : check_job_gpus(job.gpus, d.gpus_per_host(), d.hosts());
  return s.ok() ? s : with_context(s, str_cat("job '", job.name, "'"));
}

// The job's plan, or — for a job given as gpus only — TP across one host and DP
// across its hosts. Precondition: check_job_fits(job, d) is ok.
RAILYARD_LAZY
[[nodiscard]] ParallelPlan plan_or_default(const JobSpec& job,
                                                  const topology::ClusterDescriptor<>& d) {
  if (job.plan) return *job.plan;
  ParallelPlan p;
  p.sizes[static_cast<size_t>(Dim::kTp)] = d.gpus_per_host();
  p.sizes[static_cast<size_t>(Dim::kDp)] = static_cast<int32_t>(job.gpus / d.gpus_per_host());
  return p;
}

// A job place_jobs() could not fit in what was left free.
struct UnplacedJob {
  std::string name;
  std::string tenant;
  int64_t gpus = 0;
  std::string reason;  // the allocator's message (names gpus= and the free count)
};

struct PlaceResult {
  std::vector<Allocation> placed;     // in input order
  std::vector<UnplacedJob> unplaced;  // in input order
  int32_t free_hosts = 0;
  Fragmentation fragmentation;
  std::vector<HostId> drained;  // hosts out of service (no job, not free), as given
};

// Places already-parsed jobs in order on an empty cluster. A job that does not
// fit in what is still free is listed in `unplaced` (and later jobs may still
// fit). Errors: a job check_job_fits() rejects, invalid allocator options.
// `drained` hosts (out of service: Allocator::drain) get no job.
RAILYARD_LAZY
[[nodiscard]] StatusOr<PlaceResult> place_jobs(const topology::ClusterDescriptor<>& desc,
                                                      std::span<const JobSpec> jobs,
                                                      AllocatorOptions options,
                                                      std::span<const HostId> drained = {}) {
  for (const JobSpec& job : jobs) RAILYARD_RETURN_IF_ERROR(check_job_fits(job, desc));
  RAILYARD_ASSIGN_OR_RETURN(Allocator alloc, make_allocator(desc, options));
  RAILYARD_RETURN_IF_ERROR(alloc.drain(drained));
  PlaceResult result;
  result.drained.assign(drained.begin(), drained.end());
  for (const JobSpec& job : jobs) {
    StatusOr<Allocation> a = alloc.allocate(job.request());
    if (a.ok()) {
      result.placed.push_back(*std::move(a));
    } else if (a.status().code() == StatusCode::kResourceExhausted) {
      result.unplaced.push_back(
          {job.name, job.tenant, job.gpus, std::string(message_of(a.status()))});
    } else {
      return a.status();
    }
  }
  result.free_hosts = alloc.free_hosts();
  result.fragmentation = alloc.fragmentation();
  return result;
}

// parse_job_list() then place_jobs().
RAILYARD_LAZY
[[nodiscard]] StatusOr<PlaceResult> place_jobs(const topology::ClusterDescriptor<>& desc,
                                                      std::string_view jobs_text,
                                                      AllocatorOptions options,
                                                      std::span<const HostId> drained = {}) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<JobSpec> jobs, parse_job_list(jobs_text));
  return place_jobs(desc, jobs, options, drained);
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<PlaceResult> place_jobs(const topology::ClusterDescriptor<>& desc,
                                                      std::string_view jobs_text,
                                                      Policy policy = Policy::kBestFit) {
  AllocatorOptions options;
  options.policy = policy;
  return place_jobs(desc, jobs_text, options);
}

}  // namespace railyard::placement
