// Fuzz targets for the text that describes jobs: parallelism plans and order
// strings (placement/plan.hpp), job traces and `--jobs` lists
// (placement/replay.hpp).
//
// Accepted inputs are read a second time by a minimal splitter here (sizes,
// order, bytes, CSV fields, job items) and must agree with the parser; they are
// formatted back and must re-parse to the same value. Small plans are also
// placed on a 64-host cluster: the placement must be a bijection of ranks onto
// the job's GPUs, no worse than the naive one, and its traffic must add up to
// the closed-form bytes of the plan; small traces are replayed, and the jobs
// rejected must be exactly those the documented rules reject.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "fuzz_target.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the fuzz targets compile in
// one unity batch (tests/fuzz/CMakeLists.txt).
namespace railyard_fuzz_jobs_fuzz {

namespace {

using railyard::fuzz::contains;
using railyard::fuzz::decimal;
using railyard::fuzz::kMaxInput;
using railyard::fuzz::message;

using railyard::placement::Dim;
using railyard::placement::kDimCount;
using railyard::placement::kDimNames;
using railyard::placement::ParallelPlan;



// ---------------------------------------------------------------------------
// parallel_plan
// ---------------------------------------------------------------------------

// The order string as the five names it must be a permutation of.
std::optional<std::array<Dim, kDimCount>> read_order(std::string_view text) {
  const std::vector<std::string_view> parts = railyard::split(text, '-');
  if (parts.size() != kDimCount) return std::nullopt;
  std::array<Dim, kDimCount> order{};
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto at = std::find(kDimNames.begin(), kDimNames.end(), parts[i]);
    if (at == kDimNames.end()) return std::nullopt;
    order[i] = static_cast<Dim>(at - kDimNames.begin());
  }
  std::array<Dim, kDimCount> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int d = 0; d < kDimCount; ++d)
    if (sorted[static_cast<size_t>(d)] != static_cast<Dim>(d)) return std::nullopt;
  return order;
}

// Reads the written keys back and compares them with the parsed plan; the
// world must be the overflow-checked product of the sizes, at most 2^24.
void check_plan_as_written(std::string_view text, const ParallelPlan& plan) {
  ParallelPlan expected;
  std::set<std::string_view> keys;
  for (std::string_view item : railyard::split(text, ',')) {
    const size_t eq = item.find('=');
    RAILYARD_FUZZ_CHECK(eq != std::string_view::npos && eq > 0 && eq + 1 < item.size(),
                        "every accepted item is key=value");
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    RAILYARD_FUZZ_CHECK(keys.insert(key).second, "no key accepted twice");
    bool known = false;
    for (int d = 0; d < kDimCount; ++d) {
      const std::string_view name = kDimNames[static_cast<size_t>(d)];
      if (key == name) {
        auto n = decimal(value);
        RAILYARD_FUZZ_CHECK(n && *n >= 1 && *n <= (1 << 20), "sizes are 1..2^20");
        expected.sizes[static_cast<size_t>(d)] = static_cast<int32_t>(*n);
        known = true;
      } else if (key.size() == name.size() + 6 && key.starts_with(name) &&
                 key.ends_with("_bytes")) {
        auto bytes = railyard::parse_size(key, value);
        RAILYARD_FUZZ_CHECK(bytes.ok() && *bytes <= (uint64_t{1} << 53),
                            "bytes are sizes of at most 2^53 (exact as a double)");
        expected.bytes_per_step[static_cast<size_t>(d)] = static_cast<double>(*bytes);
        expected.bytes_given = true;
        known = true;
      }
    }
    if (key == "order") {
      auto order = read_order(value);
      RAILYARD_FUZZ_CHECK(order.has_value(), "an accepted order is a permutation of the dims");
      expected.order = *order;
      known = true;
    }
    RAILYARD_FUZZ_CHECK(known, "only documented keys are accepted");
  }
  RAILYARD_FUZZ_CHECK(plan.sizes == expected.sizes && plan.order == expected.order &&
                          plan.bytes_per_step == expected.bytes_per_step &&
                          plan.bytes_given == expected.bytes_given,
                      "the plan holds the values written, defaults elsewhere");
  int64_t world = 1;
  for (int32_t s : plan.sizes)
    RAILYARD_FUZZ_CHECK(
        !__builtin_mul_overflow(world, int64_t{s}, &world) && world <= (int64_t{1} << 24),
        "accepted worlds are at most 2^24 ranks");
  RAILYARD_FUZZ_CHECK(plan.world() == world, "world is the product of the sizes");
}

bool same_plan(const ParallelPlan& a, const ParallelPlan& b) {
  return a.sizes == b.sizes && a.order == b.order && a.bytes_per_step == b.bytes_per_step &&
         a.bytes_given == b.bytes_given;
}

// Bytes per step the traffic model must account for, from the plan alone and
// nccl-tests' bus-bandwidth factors (a group of n moves n x busbw-factor x S):
// dp and tp all-reduce 2(n-1)·S per group, cp all-gather and ep all-to-all
// (n-1)·S, pp point to point 2(n-1)·S (each stage to both neighbours); there
// are world/n groups.
double closed_form_bytes(const ParallelPlan& plan) {
  double total = 0;
  const auto world = static_cast<double>(plan.world());
  for (int d = 0; d < kDimCount; ++d) {
    const auto dim = static_cast<Dim>(d);
    const double n = plan.size(dim);
    if (n == 1) continue;
    const double factor = dim == Dim::kCp || dim == Dim::kEp ? 1.0 : 2.0;
    total += world / n * factor * (n - 1) * plan.bytes(dim);
  }
  return total;
}

// Places a small plan on a 64-host rail fat tree (2 SUs of 32, 8 GPUs per
// host, NVLink domain = host) on `hosts`; checks the error or the placement.
void check_placement(const railyard::topology::ClusterDescriptor<>& d, const ParallelPlan& plan,
                     const std::vector<railyard::HostId>& hosts) {
  using railyard::placement::Tier;
  auto placed = railyard::placement::order_ranks(d, plan, hosts);
  const int64_t world = plan.world();
  const int32_t tp = plan.size(Dim::kTp);
  const bool expect_ok = tp <= 8 && 8 % tp == 0 && world % 8 == 0;
  RAILYARD_FUZZ_CHECK(placed.ok() == expect_ok,
                      "placed exactly when TP divides a domain and the job is whole hosts");
  if (!placed.ok()) {
    RAILYARD_FUZZ_CHECK(placed.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string m = message(placed.status());
    RAILYARD_FUZZ_CHECK(m.starts_with("tp=") || m.starts_with("job="), "the error names tp or job");
    return;
  }
  const railyard::placement::JobPlacement& p = *placed;
  RAILYARD_FUZZ_CHECK(p.gpus_per_host == 8 && static_cast<int64_t>(p.hosts.size()) * 8 == world);
  std::vector<int32_t> got;
  for (railyard::HostId h : p.hosts) got.push_back(h.value());
  std::vector<int32_t> want;
  for (railyard::HostId h : hosts) want.push_back(h.value());
  if (want.empty()) {
    want.resize(static_cast<size_t>(world / 8));
    std::iota(want.begin(), want.end(), 0);
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  RAILYARD_FUZZ_CHECK(got == want, "the placement uses exactly the job's hosts");
  RAILYARD_FUZZ_CHECK(p.plan.sizes == plan.sizes && p.plan.bytes_per_step == plan.bytes_per_step,
                      "only the order string may change");
  RAILYARD_FUZZ_CHECK(p.plan.order == plan.order || p.plan.order[0] == Dim::kTp,
                      "the user's order or one with TP innermost");

  // Bijection: every rank on its own (host, GPU), every GPU of the job used once.
  const std::vector<railyard::placement::Device> devices = p.devices();
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(devices.size()) == world);
  std::vector<int64_t> slots;
  for (const auto& dev : devices) {
    RAILYARD_FUZZ_CHECK(dev.gpu.value() >= 0 && dev.gpu.value() < 8);
    slots.push_back(int64_t{dev.host.value()} * 8 + dev.gpu.value());
  }
  std::sort(slots.begin(), slots.end());
  RAILYARD_FUZZ_CHECK(std::adjacent_find(slots.begin(), slots.end()) == slots.end(),
                      "no two ranks on one GPU");
  for (int64_t r = 0; r < world; ++r)
    RAILYARD_FUZZ_CHECK(p.plan.rank_of(p.plan.coords(r)) == r, "coords and rank_of invert");

  const railyard::placement::TrafficReport ours = railyard::placement::traffic(d, p);
  RAILYARD_FUZZ_CHECK(ours.tp_within_domain, "TP groups stay inside an NVLink domain");
  const double expected = closed_form_bytes(plan);
  const double total = ours.bytes_at_or_above(Tier::kNvlink);
  RAILYARD_FUZZ_CHECK(std::abs(total - expected) <= 1e-9 * std::max(1.0, expected),
                      "the traffic adds up to the plan's bytes");
  auto naive = railyard::placement::naive_order(d, plan, hosts);
  RAILYARD_FUZZ_CHECK(naive.ok());
  const railyard::placement::TrafficReport theirs = railyard::placement::traffic(d, *naive);
  if (theirs.tp_within_domain)
    RAILYARD_FUZZ_CHECK(
        railyard::placement::ordering_cost(ours) <= railyard::placement::ordering_cost(theirs),
        "never worse than the naive order");
}

}  // namespace

// parse_plan and parse_order: errors are InvalidArgument naming a key or the
// text; an accepted plan holds the values written, its world is the product of
// its sizes, it re-parses from to_string(); plans of at most 512 ranks are
// placed (order_ranks) as a bijection or rejected with tp/job named.
RAILYARD_FUZZ_TARGET(parallel_plan) {
  if (input.size() > kMaxInput) return;

  // The whole input as an order string, too.
  auto order = railyard::placement::parse_order(input);
  const auto expected_order = read_order(input);
  RAILYARD_FUZZ_CHECK(order.ok() == expected_order.has_value(),
                      "an order is accepted exactly when it is a permutation of the dims");
  if (order.ok()) {
    RAILYARD_FUZZ_CHECK(*order == *expected_order);
    ParallelPlan with_order;
    with_order.order = *order;
    RAILYARD_FUZZ_CHECK(with_order.order_string() == input, "order_string() spells the order");
  } else {
    RAILYARD_FUZZ_CHECK(order.status().code() == absl::StatusCode::kInvalidArgument &&
                            message(order.status()).starts_with("order="),
                        "a bad order names the key");
  }

  auto plan = railyard::placement::parse_plan(input);
  if (!plan.ok()) {
    RAILYARD_FUZZ_CHECK(plan.status().code() == absl::StatusCode::kInvalidArgument,
                        "bad plans are InvalidArgument");
    const std::string m = message(plan.status());
    bool named = contains(m, "job") || contains(m, "order");
    for (std::string_view key : kDimNames) named = named || contains(m, key);
    for (std::string_view item : railyard::split(input, ','))
      named = named || (!item.empty() && contains(m, item.substr(0, item.find('=')))) ||
              contains(m, railyard::str_cat("'", item, "'"));  // an empty entry: ''
    RAILYARD_FUZZ_CHECK(named, "the error names a key or the text");
    return;
  }
  check_plan_as_written(input, *plan);
  const std::string canonical = plan->to_string();
  auto again = railyard::placement::parse_plan(canonical);
  RAILYARD_FUZZ_CHECK(again.ok() && same_plan(*again, *plan), "to_string() round-trips");
  RAILYARD_FUZZ_CHECK(again->to_string() == canonical, "to_string() is a fixed point");

  if (plan->world() > 512) return;
  static const railyard::topology::ClusterDescriptor<> cluster = [] {
    auto spec = railyard::topology::parse_cluster("rail_fat_tree:hosts=64");
    RAILYARD_FUZZ_CHECK(spec.ok());
    auto desc = railyard::topology::make_descriptor(*spec);
    RAILYARD_FUZZ_CHECK(desc.ok());
    return *desc;
  }();
  // The first world/8 hosts, and the same number scattered over both SUs
  // (every third host from the end: the grouping has work to do).
  check_placement(cluster, *plan, {});
  if (plan->world() % 8 == 0 && plan->world() > 0) {
    std::vector<railyard::HostId> scattered;
    for (int32_t start : {63, 62, 61})
      for (int32_t h = start; h >= 0; h -= 3)
        if (static_cast<int64_t>(scattered.size()) * 8 < plan->world())
          scattered.push_back(railyard::HostId{h});
    check_placement(cluster, *plan, scattered);
  }
}

namespace {

// ---------------------------------------------------------------------------
// job_trace
// ---------------------------------------------------------------------------

// Spaces, tabs and CRs around `s` removed (what a --jobs list ignores).
std::string_view trim(std::string_view s, std::string_view blanks = " \t\r") {
  const size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

// A trace line as core/csv.hpp reads it: one CR before the LF (or the end) is
// the line ending, then spaces and tabs around are ignored; any other CR is data.
std::string_view trace_trim_line(std::string_view line) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  return trim(line, " \t");
}

// Seconds as the trace documents them: digits with at most one '.', at least
// one digit; the value by strtod (a different code path from from_chars).
std::optional<double> seconds(std::string_view text) {
  size_t digits = 0, dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9')
      ++digits;
    else if (c == '.')
      ++dots;
    else
      return std::nullopt;
  }
  if (digits == 0 || dots > 1) return std::nullopt;
  const std::string copy(text);
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

// Shortest fixed-notation text that reads back to the same double.
std::string fixed_seconds(double v) {
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  RAILYARD_FUZZ_CHECK(ec == std::errc());
  return std::string(buf, end);
}

bool same_jobs(const std::vector<railyard::placement::TraceJob>& a,
               const std::vector<railyard::placement::TraceJob>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].time_s != b[i].time_s || a[i].name != b[i].name || a[i].gpus != b[i].gpus ||
        a[i].duration_s != b[i].duration_s)
      return false;
  return true;
}

void check_trace(std::string_view csv) {
  // A UTF-8 byte-order mark at the very start is documented as skipped.
  const std::string_view body = csv.starts_with("\xEF\xBB\xBF") ? csv.substr(3) : csv;
  const std::vector<std::string_view> lines = railyard::split(body, '\n');
  auto jobs = railyard::placement::parse_job_trace(csv);
  if (!jobs.ok()) {
    RAILYARD_FUZZ_CHECK(jobs.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string m = message(jobs.status());
    if (m.starts_with("job trace: no header line")) return;
    RAILYARD_FUZZ_CHECK(m.starts_with("line "), "the error names the line");
    const size_t colon = m.find(": ");
    auto line = decimal(std::string_view(m).substr(5, colon - 5));
    RAILYARD_FUZZ_CHECK(colon != std::string::npos && line && *line >= 1 &&
                            *line <= static_cast<int64_t>(lines.size()),
                        "the line number is in the text");
    const std::string_view rest = std::string_view(m).substr(colon + 2);
    bool named = false;
    for (std::string_view field : {"header=", "row=", "time=", "name=", "gpus=", "duration="})
      named = named || rest.starts_with(field);
    RAILYARD_FUZZ_CHECK(named, "the error names the field (header or row: the whole line)");
    const auto field = railyard::error_field(jobs.status());
    RAILYARD_FUZZ_CHECK(field && rest.starts_with(railyard::str_cat(field->field, "=")),
                        "the field travels with the error");
    return;
  }

  // Independent reading: after the header, each non-blank line not starting
  // with '#' is one job, its four fields trimmed.
  size_t data_lines = 0;
  bool header_seen = false;
  std::set<std::string> names;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = trace_trim_line(lines[i]);
    if (line.empty() || line.front() == '#') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    RAILYARD_FUZZ_CHECK(data_lines < jobs->size(), "every data line is a job");
    const railyard::placement::TraceJob& job = (*jobs)[data_lines++];
    RAILYARD_FUZZ_CHECK(job.line == static_cast<int32_t>(i + 1), "jobs remember their line");
    std::vector<std::string_view> fields = railyard::split(line, ',');
    RAILYARD_FUZZ_CHECK(fields.size() == 4, "an accepted line has four fields");
    for (auto& f : fields) f = trim(f, " \t");
    const auto time = seconds(fields[0]);
    const auto gpus = decimal(fields[2]);
    const auto duration = seconds(fields[3]);
    RAILYARD_FUZZ_CHECK(time && *time >= 0 && *time <= 1e12 && job.time_s == *time,
                        "time is the decimal written, in [0, 1e12]");
    RAILYARD_FUZZ_CHECK(
        duration && *duration >= 0 && *duration <= 1e12 && job.duration_s == *duration,
        "duration is the decimal written, in [0, 1e12]");
    RAILYARD_FUZZ_CHECK(gpus && job.gpus == *gpus && job.gpus >= 0, "gpus is the integer written");
    RAILYARD_FUZZ_CHECK(!job.name.empty() && job.name == fields[1], "the name as written");
    RAILYARD_FUZZ_CHECK(names.insert(job.name).second, "names are unique");
  }
  RAILYARD_FUZZ_CHECK(header_seen && data_lines == jobs->size(), "no job without a line");

  // Written back as CSV, the trace reads the same.
  std::string text = "time,name,gpus,duration\n";
  for (const auto& job : *jobs)
    railyard::str_append(text, fixed_seconds(job.time_s), ",", job.name, ",", job.gpus, ",",
                         fixed_seconds(job.duration_s), "\n");
  auto again = railyard::placement::parse_job_trace(text);
  RAILYARD_FUZZ_CHECK(again.ok() && same_jobs(*again, *jobs), "the trace round-trips");

  // Replayed on a 32-host cluster (256 GPUs): every job runs or is rejected,
  // and the rejected ones are those the documented rules reject.
  if (jobs->size() > 64) return;
  static const railyard::topology::ClusterDescriptor<> cluster = [] {
    auto spec = railyard::topology::parse_cluster("rail_fat_tree:hosts=32,hosts_per_su=8");
    RAILYARD_FUZZ_CHECK(spec.ok());
    auto desc = railyard::topology::make_descriptor(*spec);
    RAILYARD_FUZZ_CHECK(desc.ok());
    return *desc;
  }();
  auto report = railyard::placement::replay(cluster, *jobs);
  RAILYARD_FUZZ_CHECK(report.ok(), "a parsed trace replays");
  std::vector<size_t> arrival(jobs->size());
  std::iota(arrival.begin(), arrival.end(), 0);
  std::stable_sort(arrival.begin(), arrival.end(),
                   [&](size_t a, size_t b) { return (*jobs)[a].time_s < (*jobs)[b].time_s; });
  std::vector<std::string> rejected;
  for (size_t i : arrival) {
    const int64_t g = (*jobs)[i].gpus;
    if (g <= 0 || g % 8 != 0 || g > 256) rejected.push_back((*jobs)[i].name);
  }
  RAILYARD_FUZZ_CHECK(report->rejected == rejected, "rejected: zero, partial-host or too large");
  RAILYARD_FUZZ_CHECK(report->jobs == static_cast<int32_t>(jobs->size()) &&
                          report->completed + static_cast<int32_t>(rejected.size()) == report->jobs,
                      "every job runs or is rejected");
  RAILYARD_FUZZ_CHECK(report->utilization >= 0 && report->utilization <= 1 + 1e-9,
                      "utilization is a fraction");
  RAILYARD_FUZZ_CHECK(report->makespan_s >= 0);
  RAILYARD_FUZZ_CHECK(0 <= report->p95_queue_delay_s &&
                          report->p95_queue_delay_s <= report->max_queue_delay_s &&
                          report->mean_queue_delay_s <= report->max_queue_delay_s * (1 + 1e-12),
                      "queueing delays are ordered");
}

void check_job_list(std::string_view text) {
  auto jobs = railyard::placement::parse_job_list(text);
  if (!jobs.ok()) {
    RAILYARD_FUZZ_CHECK(jobs.status().code() == absl::StatusCode::kInvalidArgument);
    RAILYARD_FUZZ_CHECK(message(jobs.status()).starts_with("job ") ||
                            message(jobs.status()).starts_with("no jobs"),
                        "the error names the job");
    RAILYARD_FUZZ_CHECK(railyard::error_field(jobs.status()).has_value(),
                        "the error carries its field");
    return;
  }
  // Independent reading: non-blank ';' items, each `name[:key=value,...]`.
  std::vector<std::string_view> items;
  for (std::string_view raw : railyard::split(text, ';'))
    if (!trim(raw).empty()) items.push_back(trim(raw));
  RAILYARD_FUZZ_CHECK(items.size() == jobs->size() && !items.empty(), "one job per item");
  std::set<std::string> names;
  auto is_plan_key = [](std::string_view key) {
    for (std::string_view dim : {"tp", "cp", "ep", "dp", "pp"})
      if (key == dim || key == railyard::str_cat(dim, "_bytes")) return true;
    return key == "order";
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const railyard::placement::JobSpec& job = (*jobs)[i];
    RAILYARD_FUZZ_CHECK(
        job.name == trim(items[i].substr(0, items[i].find(':'))) && !job.name.empty(),
        "the name is the text before ':'");
    RAILYARD_FUZZ_CHECK(names.insert(job.name).second, "names are unique");
    RAILYARD_FUZZ_CHECK(job.gpus >= 0 && !job.tenant.empty());
    std::optional<int64_t> gpus;
    bool plan_given = false;
    std::string tenant = job.name;
    const size_t colon = items[i].find(':');
    RAILYARD_FUZZ_CHECK(colon != std::string_view::npos, "gpus or a plan is required");
    for (std::string_view kv : railyard::split(items[i].substr(colon + 1), ',')) {
      kv = trim(kv);
      if (kv.empty()) continue;
      const size_t eq = kv.find('=');
      RAILYARD_FUZZ_CHECK(eq != std::string_view::npos, "accepted entries are key=value");
      const std::string_view key = trim(kv.substr(0, eq));
      const std::string_view value = trim(kv.substr(eq + 1));
      if (key == "gpus")
        gpus = decimal(value);
      else if (key == "tenant")
        tenant = std::string(value);
      else if (is_plan_key(key))
        plan_given = true;
      else
        RAILYARD_FUZZ_CHECK(false, "only gpus, tenant and plan keys are accepted");
    }
    RAILYARD_FUZZ_CHECK(plan_given == job.plan.has_value(), "a plan exactly when plan keys are");
    RAILYARD_FUZZ_CHECK(plan_given || (gpus && *gpus == job.gpus), "gpus as written");
    RAILYARD_FUZZ_CHECK(!plan_given || job.gpus == job.plan->world(), "gpus = the plan's world");
    RAILYARD_FUZZ_CHECK(!gpus || *gpus == job.gpus, "gpus agree with the plan");
    RAILYARD_FUZZ_CHECK(job.tenant == tenant, "the tenant as written, else the name");
    for (char c : job.tenant)
      RAILYARD_FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-',
                          "tenant names are letters, digits, '.', '_' and '-'");
  }
  // Written back, the list reads the same.
  std::string again_text;
  for (const auto& job : *jobs) {
    railyard::str_append(again_text, again_text.empty() ? "" : ";", job.name, ":gpus=", job.gpus);
    if (job.tenant != job.name) railyard::str_append(again_text, ",tenant=", job.tenant);
    if (job.plan) railyard::str_append(again_text, ",", job.plan->to_string());
  }
  auto again = railyard::placement::parse_job_list(again_text);
  RAILYARD_FUZZ_CHECK(again.ok() && again->size() == jobs->size(), "the list round-trips");
  for (size_t i = 0; i < jobs->size(); ++i)
    RAILYARD_FUZZ_CHECK((*again)[i].name == (*jobs)[i].name &&
                            (*again)[i].tenant == (*jobs)[i].tenant &&
                            (*again)[i].gpus == (*jobs)[i].gpus &&
                            (*again)[i].plan.has_value() == (*jobs)[i].plan.has_value() &&
                            (!(*again)[i].plan ||
                             (*again)[i].plan->to_string() == (*jobs)[i].plan->to_string()),
                        "the list round-trips");
}

}  // namespace

// parse_job_trace and parse_job_list, both on every input: rejections name the
// line or job and the field; accepted rows hold the values written
// (non-negative finite seconds, non-negative gpus, unique names) and
// round-trip; small traces replay with the documented rejections.
RAILYARD_FUZZ_TARGET(job_trace) {
  if (input.size() > kMaxInput) return;
  check_trace(input);
  check_job_list(input);
}

}  // namespace railyard_fuzz_jobs_fuzz
