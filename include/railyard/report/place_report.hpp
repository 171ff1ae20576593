// railyard/report/place_report.hpp — multi-tenant placements and trace replays as
// JSON and text (what `railyard place` and `railyard replay` print).
//
//   auto placed = railyard::placement::place_jobs(desc, "a:gpus=256;b:gpus=64");
//   std::string json = railyard::report::place_json(*placed);
//
// place JSON keys (docs/cli.md#json-output): jobs[] {name, tenant, gpus, hosts[], sus[], pods[],
// partition_id}, unplaced[] {name, gpus, reason}, free_hosts, drained[] (host
// ids out of service; only when there are some), and fragmentation
// {free_hosts_per_su[], largest_unsplit_hosts, jobs_split_across_sus,
// jobs_split_across_pods}. replay JSON: policies[] with the ReplayReport fields.
#pragma once

#include <span>
#include <string>

#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/json.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::report {

RAILYARD_LAZY
[[nodiscard]] std::string place_json(const placement::PlaceResult& r, int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("jobs").begin_array();
  for (const placement::Allocation& a : r.placed) {
    w.begin_object();
    w.key("name").value(a.name);
    w.key("tenant").value(a.tenant);
    w.key("gpus").value(a.gpus);
    w.key("hosts").begin_array();
    for (HostId h : a.hosts) w.value(h.value());
    w.end_array();
    w.key("sus").begin_array();
    for (SuId s : a.sus) w.value(s.value());
    w.end_array();
    w.key("pods").begin_array();
    for (PodId p : a.pods) w.value(p.value());
    w.end_array();
    w.key("partition_id").value(a.partition_id);
    w.end_object();
  }
  w.end_array();
  w.key("unplaced").begin_array();
  for (const placement::UnplacedJob& u : r.unplaced) {
    w.begin_object();
    w.key("name").value(u.name);
    w.key("gpus").value(u.gpus);
    w.key("reason").value(u.reason);
    w.end_object();
  }
  w.end_array();
  w.key("free_hosts").value(r.free_hosts);
  if (!r.drained.empty()) {  // only for an imported fabric with bad host cables
    w.key("drained").begin_array();
    for (HostId h : r.drained) w.value(h.value());
    w.end_array();
  }
  w.key("fragmentation").begin_object();
  w.key("free_hosts_per_su").begin_array();
  for (int32_t f : r.fragmentation.free_hosts_per_su) w.value(f);
  w.end_array();
  w.key("largest_unsplit_hosts").value(r.fragmentation.largest_unsplit_hosts);
  w.key("jobs_split_across_sus").value(r.fragmentation.jobs_split_across_sus);
  w.key("jobs_split_across_pods").value(r.fragmentation.jobs_split_across_pods);
  w.end_object();
  w.end_object();
  return std::move(w).line();
}

// Four hex digits, as pkeys are written.
RAILYARD_LAZY
[[nodiscard]] std::string partition_hex(int32_t id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(4, '0');
  for (int i = 3; i >= 0; --i, id >>= 4) out[static_cast<size_t>(i)] = kHex[id & 15];
  return out;
}

// One line per job (hosts as compact ranges, SUs), then a map of the SUs: one
// character per host, the job's letter (a, b, ... in input order) or '.' free.
RAILYARD_LAZY
[[nodiscard]] std::string place_text(const topology::ClusterDescriptor<>& d,
                                     const placement::PlaceResult& r) {
  std::string out;
  std::vector<char> mark(static_cast<size_t>(d.hosts()), '.');
  constexpr std::string_view kLetters =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (size_t j = 0; j < r.placed.size(); ++j) {
    const placement::Allocation& a = r.placed[j];
    const char letter = kLetters[j % kLetters.size()];
    for (HostId h : a.hosts) mark[static_cast<size_t>(h.value())] = letter;
    str_append(out, letter, "  ", a.name, ": ", a.gpus, " GPUs on hosts ", format_host_list(a.hosts),
               " (SU ", format_id_list(a.sus), a.sus.size() > 1 ? ", split" : "", "; tenant ",
               a.tenant, ", partition 0x", partition_hex(a.partition_id), ")\n");
  }
  for (const placement::UnplacedJob& u : r.unplaced)
    str_append(out, "-  ", u.name, ": ", u.gpus, " GPUs NOT PLACED: ", u.reason, "\n");
  for (HostId h : r.drained) mark[static_cast<size_t>(h.value())] = 'x';
  str_append(out, "\nSU map (one character per host; '.' free",
             r.drained.empty() ? "" : ", 'x' drained", "):\n");
  for (int32_t su = 0; su < d.sus(); ++su) {
    str_append(out, "  su", su < 10 ? "0" : "", su, " ");
    const int32_t first = d.first_host_of_su(su);
    out.append(mark.begin() + first, mark.begin() + first + d.hosts_in_su(su));
    // A partial last SU (shape.hpp): blanks for its missing hosts keep the column.
    out.append(static_cast<size_t>(d.hosts_per_su() - d.hosts_in_su(su)), ' ');
    str_append(out, "  ", r.fragmentation.free_hosts_per_su[static_cast<size_t>(su)], " free\n");
    if (su == 63 && d.sus() > 64) {
      str_append(out, "  ... ", d.sus() - 64, " more SUs\n");
      break;
    }
  }
  str_append(out, "\nfree hosts ", r.free_hosts, ", largest job without splitting an SU ",
             r.fragmentation.largest_unsplit_hosts, " hosts, jobs split across SUs ",
             r.fragmentation.jobs_split_across_sus, ", across pods ",
             r.fragmentation.jobs_split_across_pods, "\n");
  return out;
}

RAILYARD_LAZY
[[nodiscard]] std::string replay_json(std::span<const placement::ReplayReport> reports,
                                             int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("policies").begin_array();
  for (const placement::ReplayReport& r : reports) {
    w.begin_object();
    w.key("policy").value(placement::policy_name(r.policy));
    w.key("jobs").value(r.jobs);
    w.key("completed").value(r.completed);
    w.key("rejected").begin_array();
    for (const std::string& name : r.rejected) w.value(name);
    w.end_array();
    w.key("makespan_s").value(r.makespan_s);
    w.key("utilization").value(r.utilization);
    w.key("mean_queue_delay_s").value(r.mean_queue_delay_s);
    w.key("p95_queue_delay_s").value(r.p95_queue_delay_s);
    w.key("max_queue_delay_s").value(r.max_queue_delay_s);
    w.key("max_queue_length").value(r.max_queue_length);
    w.key("split_across_sus").value(r.split_across_sus);
    w.key("avoidable_su_splits").value(r.avoidable_su_splits);
    w.key("split_across_pods").value(r.split_across_pods);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).line();
}

// A fixed-width table, one row per report: policy, utilization (%), mean / p95
// queueing delay (hours), jobs split across SUs (avoidable ones), across pods,
// makespan (hours).
RAILYARD_LAZY
[[nodiscard]] std::string replay_text(std::span<const placement::ReplayReport> reports) {
  auto pad = [](std::string s, size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
  };
  std::string out = str_cat(pad(std::string("policy"), 10), pad(std::string("util%"), 8),
                            pad(std::string("mean_wait_h"), 13), pad(std::string("p95_wait_h"), 12),
                            pad(std::string("su_splits"), 11), pad(std::string("avoidable"), 11),
                            pad(std::string("pod_splits"), 12), pad(std::string("makespan_h"), 12),
                            pad(std::string("jobs"), 7), "\n");
  for (const placement::ReplayReport& r : reports) {
    str_append(out, pad(std::string(placement::policy_name(r.policy)), 10),
               pad(fixed(100 * r.utilization, 1), 8),
               pad(fixed(r.mean_queue_delay_s / 3600, 2), 13),
               pad(fixed(r.p95_queue_delay_s / 3600, 2), 12), pad(str_cat(r.split_across_sus), 11),
               pad(str_cat(r.avoidable_su_splits), 11), pad(str_cat(r.split_across_pods), 12),
               pad(fixed(r.makespan_s / 3600, 1), 12), pad(str_cat(r.completed), 7), "\n");
  }
  return out;
}

}  // namespace railyard::report
