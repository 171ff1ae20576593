// railyard/placement/replay.hpp — drive an Allocator with a job trace: an event
// simulation that compares placement policies (`--jobs` lists are jobs.hpp).
//
//   auto desc = railyard::topology::make_descriptor(
//       *railyard::topology::parse_cluster("h100-1024-2to1"));
//   auto trace = railyard::placement::parse_job_trace(csv_text);     // StatusOr
//   auto reports = railyard::placement::replay_policies(*desc, *trace);
//   std::cout << railyard::report::replay_text(*reports);
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
#include "railyard/core/lazy.hpp"
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

RAILYARD_LAZY
[[nodiscard]] std::string_view trim(std::string_view s) {
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
RAILYARD_LAZY
[[nodiscard]] StatusOr<double> parse_seconds(std::string_view field,
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
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<TraceJob>> parse_job_trace(std::string_view csv) {
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

// The simulation above, event by event: replay() runs a whole trace; `railyard
// plan` runs one up to an instant and takes the jobs still running as its busy
// background. Each job is its own tenant.
class TraceReplay {
 public:
  // Errors: invalid allocator options (make_allocator()).
  [[nodiscard]] static StatusOr<TraceReplay> create(const topology::ClusterDescriptor<>& desc,
                                                    std::span<const TraceJob> jobs,
                                                    AllocatorOptions options) {
    RAILYARD_ASSIGN_OR_RETURN(Allocator alloc, make_allocator(desc, options));
    return TraceReplay(std::move(alloc), jobs);
  }

  // Processes every event at or before `until_s` (all of them for +infinity):
  // at one instant departures, then arrivals, then starts. Errors: more jobs
  // running at once than the allocator has partition ids.
  Status run_until(double until_s) {
    constexpr double kNever = std::numeric_limits<double>::infinity();
    while (next_ < arrivals_.size() || !running_.empty()) {
      const double t_arrival = next_ < arrivals_.size() ? jobs_[arrivals_[next_]].time_s : kNever;
      const double t_departure = running_.empty() ? kNever : std::get<0>(running_.top());
      const double now = std::min(t_arrival, t_departure);
      if (now > until_s) break;
      while (!running_.empty() && std::get<0>(running_.top()) <= now) {
        RAILYARD_RETURN_IF_ERROR(alloc_.release(JobId{std::get<2>(running_.top())}));
        last_departure_ = std::max(last_departure_, std::get<0>(running_.top()));
        ++finished_;
        running_.pop();
      }
      while (next_ < arrivals_.size() && jobs_[arrivals_[next_]].time_s <= now) {
        const TraceJob& job = jobs_[arrivals_[next_]];
        if (size_problem(job.gpus, alloc_.gpus_per_host(), alloc_.hosts()) != SizeProblem::kNone)
          rejected_.push_back(job.name);
        else
          queue_.push_back(arrivals_[next_]);
        ++next_;
      }
      max_queue_length_ = std::max(max_queue_length_, static_cast<int32_t>(queue_.size()));
      while (!queue_.empty()) {
        const TraceJob& job = jobs_[queue_.front()];
        if (job.gpus / alloc_.gpus_per_host() > alloc_.free_hosts()) break;  // strict FIFO
        RAILYARD_ASSIGN_OR_RETURN(Allocation a, alloc_.allocate({job.name, job.name, job.gpus}));
        const bool split_sus = a.split_across_sus();
        split_across_sus_ += split_sus ? 1 : 0;
        avoidable_su_splits_ +=
            split_sus && static_cast<int32_t>(a.hosts.size()) <= alloc_.hosts_per_su() ? 1 : 0;
        split_across_pods_ += a.split_across_pods() ? 1 : 0;
        delays_.push_back(now - job.time_s);
        gpu_seconds_ += static_cast<double>(job.gpus) * job.duration_s;
        running_.emplace(now + job.duration_s, starts_++, a.job.value());
        queue_.pop_front();
      }
    }
    return ok_status();
  }

  [[nodiscard]] const Allocator& allocator() const { return alloc_; }
  // The jobs holding hosts now, in the order they started.
  [[nodiscard]] std::vector<Allocation> running() const {
    std::vector<Allocation> out;
    for (JobId id : alloc_.jobs()) out.push_back(*alloc_.find(id));
    return out;
  }
  [[nodiscard]] int32_t finished() const { return finished_; }  // ran and left
  [[nodiscard]] int32_t queued() const { return static_cast<int32_t>(queue_.size()); }
  [[nodiscard]] const std::vector<std::string>& rejected() const { return rejected_; }
  [[nodiscard]] double last_arrival_s() const {
    return arrivals_.empty() ? 0 : jobs_[arrivals_.back()].time_s;
  }

  // The figures of the whole run (call after run_until(+infinity)).
  [[nodiscard]] ReplayReport report(Policy policy, int64_t cluster_gpus) const {
    ReplayReport r;
    r.policy = policy;
    r.jobs = static_cast<int32_t>(jobs_.size());
    r.rejected = rejected_;
    r.max_queue_length = max_queue_length_;
    r.split_across_sus = split_across_sus_;
    r.avoidable_su_splits = avoidable_su_splits_;
    r.split_across_pods = split_across_pods_;
    r.completed = static_cast<int32_t>(delays_.size());
    const double first_arrival = arrivals_.empty() ? 0 : jobs_[arrivals_.front()].time_s;
    r.makespan_s = std::max(last_departure_, first_arrival) - first_arrival;
    if (r.makespan_s > 0)
      r.utilization = gpu_seconds_ / (static_cast<double>(cluster_gpus) * r.makespan_s);
    if (!delays_.empty()) {
      std::vector<double> delays = delays_;
      double sum = 0;
      for (double d : delays) sum += d;
      r.mean_queue_delay_s = sum / static_cast<double>(delays.size());
      std::sort(delays.begin(), delays.end());
      const auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(delays.size())));
      r.p95_queue_delay_s = delays[std::max<size_t>(rank, 1) - 1];
      r.max_queue_delay_s = delays.back();
    }
    return r;
  }

 private:
  TraceReplay(Allocator alloc, std::span<const TraceJob> jobs)
      : alloc_(std::move(alloc)), jobs_(jobs), arrivals_(jobs.size()) {
    for (size_t i = 0; i < jobs.size(); ++i) arrivals_[i] = i;
    std::stable_sort(arrivals_.begin(), arrivals_.end(),
                     [&](size_t a, size_t b) { return jobs_[a].time_s < jobs_[b].time_s; });
    delays_.reserve(jobs.size());
  }

  Allocator alloc_;
  std::span<const TraceJob> jobs_;
  std::vector<size_t> arrivals_;  // job indices by arrival time (stable)
  size_t next_ = 0;               // next arrival
  // Departures: (end time, start sequence, allocator id), earliest first.
  using Departure = std::tuple<double, int64_t, int32_t>;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> running_;
  std::deque<size_t> queue_;
  std::vector<std::string> rejected_;
  std::vector<double> delays_;
  double gpu_seconds_ = 0;
  double last_departure_ = 0;
  int64_t starts_ = 0;
  int32_t finished_ = 0;
  int32_t max_queue_length_ = 0;
  int32_t split_across_sus_ = 0;
  int32_t avoidable_su_splits_ = 0;
  int32_t split_across_pods_ = 0;
};

// Replays `jobs` through an Allocator built with `options` (simulation above).
// Jobs that cannot run on this cluster are reported in `rejected`, not as
// errors. Errors: invalid options (make_allocator()), or more jobs running at
// once than options.partitions has ids (each job is its own tenant).
RAILYARD_LAZY
[[nodiscard]] StatusOr<ReplayReport> replay(const topology::ClusterDescriptor<>& desc,
                                                   std::span<const TraceJob> jobs,
                                                   AllocatorOptions options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(TraceReplay run, TraceReplay::create(desc, jobs, options));
  RAILYARD_RETURN_IF_ERROR(run.run_until(std::numeric_limits<double>::infinity()));
  if (run.queued() != 0)  // cannot happen: an empty cluster holds every accepted job
    return internal_error(str_cat("replay: ", run.queued(), " jobs left queued"));
  return run.report(options.policy, desc.gpus());
}

// replay() under best_fit, first_fit and random (in that order), the same seed.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<ReplayReport>> replay_policies(
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

}  // namespace railyard::placement
