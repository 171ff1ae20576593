// railyard/placement/replay.hpp — drive an Allocator with a job trace (an event
// simulation that compares placement policies) or with a `--jobs` list.
//
//   auto desc = railyard::topology::make_descriptor(
//       *railyard::topology::parse_cluster("h100-1024-2to1"));
//   auto trace = railyard::placement::parse_job_trace(csv_text);     // StatusOr
//   auto reports = railyard::placement::replay_policies(*desc, *trace);
//   std::cout << railyard::placement::format_replay_reports(*reports);
//
//   auto placed = railyard::placement::place_jobs(*desc, "a:gpus=256;b:gpus=64,tenant=t2",
//                                                 railyard::placement::Policy::kBestFit);
//   // placed->placed[0].hosts, placed->unplaced, placed->free_hosts
//
// Trace format (CSV, the dialect of core/csv.hpp): a header line
// `time,name,gpus,duration`, then one job per line. time = arrival, duration =
// run time, both in seconds (non-negative decimals, at most 1e12); name unique;
// gpus a non-negative integer. Fields may be padded with spaces or tabs; lines
// end in LF or CRLF; blank lines and lines starting with '#' are skipped, and so
// is a UTF-8 byte-order mark at the very start (spreadsheets write one). Errors
// name the line and the token.
//
// Simulation (replay()): jobs arrive at `time` and join one FIFO queue; the job
// at the head starts as soon as the free hosts can hold it, and nothing behind it
// may overtake it (no backfilling: a large job at the head blocks smaller ones,
// as in a strict FIFO batch scheduler). A job leaves at start + duration. Events
// at the same instant: departures first, then arrivals, then starts. Each job is
// its own tenant. Jobs that can never run on the cluster (gpus zero, not a
// multiple of gpus_per_host, or larger than the cluster) are rejected on
// arrival and listed; they do not block the queue.
//
// Figures (ReplayReport): makespan = last departure - first arrival;
// utilization = GPU-seconds of the jobs run / (cluster GPUs x makespan);
// queueing delay = start - arrival over the jobs run (mean, p95 by nearest rank,
// max); split counts = jobs whose hosts span more than one SU / pod, and the
// avoidable ones (jobs of at most hosts_per_su hosts that were split anyway).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "railyard/core/csv.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::placement {

// One line of a job trace.
struct TraceJob {
  double time_s = 0;  // arrival
  std::string name;
  int64_t gpus = 0;
  double duration_s = 0;
  int32_t line = 0;  // 1-based line in the CSV text
};

// What replaying a trace under one policy gave.
struct ReplayReport {
  Policy policy = Policy::kBestFit;
  int32_t jobs = 0;                   // lines in the trace
  int32_t completed = 0;              // jobs that ran (every job that is not rejected)
  std::vector<std::string> rejected;  // names of jobs that can never run here
  double makespan_s = 0;
  double utilization = 0;  // in [0, 1]
  double mean_queue_delay_s = 0;
  double p95_queue_delay_s = 0;
  double max_queue_delay_s = 0;
  int32_t max_queue_length = 0;
  int32_t split_across_sus = 0;
  int32_t avoidable_su_splits = 0;  // split although at most hosts_per_su hosts
  int32_t split_across_pods = 0;
};

namespace detail {

[[nodiscard]] inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Longest time or duration a trace may give (about 31,700 years): sums and
// GPU-seconds of any trace stay finite, so replay()'s figures are numbers
// (1e308-second jobs made makespan infinite and utilization NaN).
inline constexpr double kMaxTraceSeconds = 1e12;

// A non-negative finite decimal such as 12, 0.5 or 3600.25 (no sign, no exponent
// letters other than what from_chars's fixed format accepts: none), at most
// kMaxTraceSeconds.
[[nodiscard]] inline StatusOr<double> parse_seconds(std::string_view field,
                                                          std::string_view text) {
  if (text.empty()) return invalid_field(field, text, "expected seconds, got nothing");
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || text.front() == '-' || text.front() == '+' ||
      !std::isfinite(value))
    return invalid_field(field, text, "expected non-negative seconds such as 3600 or 0.5");
  if (value > kMaxTraceSeconds)
    return invalid_field(field, text, "at most 1e12 seconds");
  return value;
}

}  // namespace detail

// Parses a job trace (format above; the CSV dialect of core/csv.hpp). Errors:
// "line N: <field>=<token>: problem", the field attached (error_field()); the
// field is time, name, gpus or duration, or header / row for the whole line.
[[nodiscard]] inline StatusOr<std::vector<TraceJob>> parse_job_trace(std::string_view csv) {
  static constexpr std::string_view kColumns[] = {"time", "name", "gpus", "duration"};
  std::vector<TraceJob> jobs;
  std::map<std::string, int32_t, std::less<>> first_line;  // lookup only
  bool header = false;
  CsvReader reader(csv);
  CsvRecord row;
  while (reader.next(row)) {
    const auto line = static_cast<int32_t>(row.line);
    if (!header) {
      if (!std::ranges::equal(row.fields, kColumns))
        return csv_error(line, "header", row.text, "expected the header time,name,gpus,duration");
      header = true;
      continue;
    }
    if (row.fields.size() != 4)
      return csv_error(
          line, "row", row.text,
          str_cat("expected 4 fields (time,name,gpus,duration), got ", row.fields.size()));
    TraceJob job;
    job.line = line;
    RAILYARD_ASSIGN_OR_RETURN(job.time_s,
                              csv_at_line(line, detail::parse_seconds("time", row.fields[0])));
    if (row.fields[1].empty()) return csv_error(line, "name", "", "a job needs a name");
    job.name = std::string(row.fields[1]);
    RAILYARD_ASSIGN_OR_RETURN(job.gpus, csv_at_line(line, parse_int("gpus", row.fields[2])));
    RAILYARD_ASSIGN_OR_RETURN(job.duration_s,
                              csv_at_line(line, detail::parse_seconds("duration", row.fields[3])));
    auto [it, inserted] = first_line.emplace(job.name, line);
    if (!inserted)
      return csv_error(line, "name", job.name,
                       str_cat("duplicate job name (first on line ", it->second, ")"));
    jobs.push_back(std::move(job));
  }
  if (!header)
    return invalid_argument_error(
        "job trace: no header line (expected time,name,gpus,duration)");
  return jobs;
}

// Replays `jobs` through an Allocator built with `options` (simulation above).
// Jobs that cannot run on this cluster are reported in `rejected`, not as
// errors. Errors: invalid options (make_allocator()), or more jobs running at
// once than options.partitions has ids (each job is its own tenant).
[[nodiscard]] inline StatusOr<ReplayReport> replay(const topology::ClusterDescriptor<>& desc,
                                                  std::span<const TraceJob> jobs,
                                                  AllocatorOptions options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(Allocator alloc, make_allocator(desc, options));
  ReplayReport report;
  report.policy = options.policy;
  report.jobs = static_cast<int32_t>(jobs.size());
  const int64_t cluster_gpus = desc.gpus();

  std::vector<size_t> arrivals(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) arrivals[i] = i;
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [&](size_t a, size_t b) { return jobs[a].time_s < jobs[b].time_s; });

  // Departures: (end time, start sequence, job index, allocator id), earliest first.
  using Departure = std::tuple<double, int64_t, size_t, int32_t>;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> running;
  std::deque<size_t> queue;
  std::vector<double> delays;
  delays.reserve(jobs.size());
  double gpu_seconds = 0;
  double first_arrival = jobs.empty() ? 0 : jobs[arrivals.front()].time_s;
  double last_departure = first_arrival;
  int64_t starts = 0;
  size_t next = 0;
  constexpr double kNever = std::numeric_limits<double>::infinity();

  while (next < arrivals.size() || !running.empty()) {
    const double t_arrival = next < arrivals.size() ? jobs[arrivals[next]].time_s : kNever;
    const double t_departure = running.empty() ? kNever : std::get<0>(running.top());
    const double now = std::min(t_arrival, t_departure);
    while (!running.empty() && std::get<0>(running.top()) <= now) {
      RAILYARD_RETURN_IF_ERROR(alloc.release(JobId{std::get<3>(running.top())}));
      last_departure = std::max(last_departure, std::get<0>(running.top()));
      running.pop();
    }
    while (next < arrivals.size() && jobs[arrivals[next]].time_s <= now) {
      const TraceJob& job = jobs[arrivals[next]];
      if (job.gpus <= 0 || job.gpus % alloc.gpus_per_host() != 0 || job.gpus > cluster_gpus)
        report.rejected.push_back(job.name);
      else
        queue.push_back(arrivals[next]);
      ++next;
    }
    report.max_queue_length = std::max(report.max_queue_length, static_cast<int32_t>(queue.size()));
    while (!queue.empty()) {
      const TraceJob& job = jobs[queue.front()];
      if (job.gpus / alloc.gpus_per_host() > alloc.free_hosts()) break;  // strict FIFO
      RAILYARD_ASSIGN_OR_RETURN(Allocation a, alloc.allocate({job.name, job.name, job.gpus}));
      const bool split_sus = a.split_across_sus();
      report.split_across_sus += split_sus ? 1 : 0;
      report.avoidable_su_splits +=
          split_sus && static_cast<int32_t>(a.hosts.size()) <= alloc.hosts_per_su() ? 1 : 0;
      report.split_across_pods += a.split_across_pods() ? 1 : 0;
      delays.push_back(now - job.time_s);
      gpu_seconds += static_cast<double>(job.gpus) * job.duration_s;
      running.emplace(now + job.duration_s, starts++, queue.front(), a.job.value());
      queue.pop_front();
    }
  }
  if (!queue.empty())  // cannot happen: an empty cluster holds every accepted job
    return internal_error(str_cat("replay: ", queue.size(), " jobs left queued"));

  report.completed = static_cast<int32_t>(delays.size());
  report.makespan_s = last_departure - first_arrival;
  if (report.makespan_s > 0)
    report.utilization = gpu_seconds / (static_cast<double>(cluster_gpus) * report.makespan_s);
  if (!delays.empty()) {
    double sum = 0;
    for (double d : delays) sum += d;
    report.mean_queue_delay_s = sum / static_cast<double>(delays.size());
    std::sort(delays.begin(), delays.end());
    const auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(delays.size())));
    report.p95_queue_delay_s = delays[std::max<size_t>(rank, 1) - 1];
    report.max_queue_delay_s = delays.back();
  }
  return report;
}

// replay() under best_fit, first_fit and random (in that order), the same seed.
[[nodiscard]] inline StatusOr<std::vector<ReplayReport>> replay_policies(
    const topology::ClusterDescriptor<>& desc, std::span<const TraceJob> jobs,
    uint64_t seed = 1) {
  std::vector<ReplayReport> reports;
  for (Policy p : kAllPolicies) {
    AllocatorOptions options;
    options.policy = p;
    options.seed = seed;
    RAILYARD_ASSIGN_OR_RETURN(ReplayReport r, replay(desc, jobs, options));
    reports.push_back(std::move(r));
  }
  return reports;
}

// A fixed-width table, one row per report: policy, utilization (%), mean / p95
// queueing delay (hours), jobs split across SUs (avoidable ones), across pods,
// makespan (hours).
[[nodiscard]] inline std::string format_replay_reports(std::span<const ReplayReport> reports) {
  auto pad = [](std::string s, size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  };
  std::string out = str_cat(pad(std::string("policy"), 10), pad(std::string("util%"), 8),
                            pad(std::string("mean_wait_h"), 13), pad(std::string("p95_wait_h"), 12),
                            pad(std::string("su_splits"), 11), pad(std::string("avoidable"), 11),
                            pad(std::string("pod_splits"), 12), pad(std::string("makespan_h"), 12),
                            pad(std::string("jobs"), 7), "\n");
  for (const ReplayReport& r : reports) {
    str_append(out, pad(std::string(policy_name(r.policy)), 10),
               pad(fixed(100 * r.utilization, 1), 8),
               pad(fixed(r.mean_queue_delay_s / 3600, 2), 13),
               pad(fixed(r.p95_queue_delay_s / 3600, 2), 12), pad(str_cat(r.split_across_sus), 11),
               pad(str_cat(r.avoidable_su_splits), 11), pad(str_cat(r.split_across_pods), 12),
               pad(fixed(r.makespan_s / 3600, 1), 12), pad(str_cat(r.completed), 7), "\n");
  }
  return out;
}

// ---------------------------------------------------------------------------
// `--jobs` lists.
// ---------------------------------------------------------------------------

// Parses "a:gpus=256;b:gpus=64,tenant=t2": jobs separated by ';', each
// `name:key=value,...` with keys gpus (required, a non-negative integer) and
// tenant (default: the job's name). Spaces around items are ignored, empty items
// skipped. Errors name the job and the key: "job 'b': foo=1: unknown key (keys:
// gpus, tenant)", "job 'a': gpus: required key is missing", duplicate names or
// keys. Does not check gpus against a cluster (place_jobs() does).
[[nodiscard]] inline StatusOr<std::vector<JobRequest>> parse_job_list(std::string_view text) {
  std::vector<JobRequest> out;
  std::map<std::string, int32_t, std::less<>> seen;  // lookup only
  int32_t index = 0;
  for (std::string_view raw : split(text, ';')) {
    const std::string_view item = detail::trim(raw);
    if (item.empty()) continue;
    ++index;
    const size_t colon = item.find(':');
    const std::string_view name = detail::trim(item.substr(0, colon));
    if (name.empty())
      return invalid_argument_error(
          str_cat("job ", index, " ('", item, "'): name is empty (expected name:gpus=N)"));
    auto job_error = [&name](std::string_view what) {
      return invalid_argument_error(str_cat("job '", name, "': ", what));
    };
    JobRequest job;
    job.name = std::string(name);
    bool has_gpus = false;
    bool has_tenant = false;
    if (colon != std::string_view::npos) {
      for (std::string_view raw_kv : split(item.substr(colon + 1), ',')) {
        const std::string_view kv = detail::trim(raw_kv);
        if (kv.empty()) continue;
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos)
          return job_error(str_cat(kv, ": expected key=value (keys: gpus, tenant)"));
        const std::string_view key = detail::trim(kv.substr(0, eq));
        const std::string_view value = detail::trim(kv.substr(eq + 1));
        if (key == "gpus") {
          if (has_gpus)
            return job_error(
                str_cat("gpus: key given twice (gpus=", job.gpus, ", then gpus=", value, ")"));
          auto gpus = parse_int("gpus", value);
          if (!gpus.ok()) return job_error(message_of(gpus.status()));
          job.gpus = *gpus;
          has_gpus = true;
        } else if (key == "tenant") {
          if (has_tenant)
            return job_error(str_cat("tenant: key given twice (tenant=", job.tenant,
                                     ", then tenant=", value, ")"));
          if (value.empty()) return job_error("tenant=: tenant name is empty");
          job.tenant = std::string(value);
          has_tenant = true;
        } else {
          return job_error(str_cat(key, "=", value, ": unknown key (keys: gpus, tenant)"));
        }
      }
    }
    if (!has_gpus) return job_error("gpus: required key is missing (expected name:gpus=N)");
    if (job.tenant.empty()) job.tenant = job.name;
    if (!seen.emplace(job.name, index).second) return job_error("duplicate job name");
    out.push_back(std::move(job));
  }
  return out;
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
};

// Places the jobs of a `--jobs` list in order on an empty cluster. A job that
// does not fit in what is still free is listed in `unplaced` (and later jobs may
// still fit). Errors (Status; exit 2 in the CLI), naming the job and the key:
// anything parse_job_list() rejects, gpus not a positive multiple of
// gpus_per_host, a job larger than the whole cluster.
[[nodiscard]] inline StatusOr<PlaceResult> place_jobs(const topology::ClusterDescriptor<>& desc,
                                                     std::string_view jobs_text,
                                                     AllocatorOptions options) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<JobRequest> jobs, parse_job_list(jobs_text));
  for (const JobRequest& job : jobs) {
    if (job.gpus <= 0)
      return invalid_argument_error(
          str_cat("job '", job.name, "': gpus=", job.gpus, ": must be positive"));
    if (job.gpus % desc.gpus_per_host() != 0)
      return invalid_argument_error(str_cat(
          "job '", job.name, "': gpus=", job.gpus,
          ": not a multiple of gpus_per_host=", desc.gpus_per_host(), " (jobs take whole hosts)"));
    if (job.gpus > desc.gpus())
      return invalid_argument_error(str_cat("job '", job.name, "': gpus=", job.gpus,
                                                ": larger than the cluster (", desc.gpus(),
                                                " GPUs)"));
  }
  RAILYARD_ASSIGN_OR_RETURN(Allocator alloc, make_allocator(desc, options));
  PlaceResult result;
  for (const JobRequest& job : jobs) {
    StatusOr<Allocation> a = alloc.allocate(job);
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

[[nodiscard]] inline StatusOr<PlaceResult> place_jobs(const topology::ClusterDescriptor<>& desc,
                                                     std::string_view jobs_text,
                                                     Policy policy = Policy::kBestFit) {
  AllocatorOptions options;
  options.policy = policy;
  return place_jobs(desc, jobs_text, options);
}

}  // namespace railyard::placement
