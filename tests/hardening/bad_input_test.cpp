// The bad-input tour of railyard's library boundaries: one table row per
// malformed input, across every parser and option struct a user's text or
// numbers reach (cluster specs, host lists, sizes, ratios, job plans and
// orders, job lists and traces, failure specs, Slurm topology.conf, CSV
// topologies, hostlists, node-name patterns, measured hash tables, routing and
// policy names, congestion-control inputs, tuner rules and options, the path
// advisor). Each row states the status code the input must give and substrings
// the message must contain: the field it names and the offending value. A row
// fails if the input is accepted, gives another code, or the message loses the
// field or the value; every row is checked (CHECK, not REQUIRE), and CAPTURE
// names the boundary and the input of a failing one. The last test cases pin
// inputs the tour found mishandled that are not errors (a byte-order mark, a
// report of huge figures): they are compared with their plain form or checked
// for readable output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "railyard/cc/derive.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/failure_spec.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/report/place_report.hpp"
#include "railyard/plugin/advisor.hpp"
#include "railyard/plugin/tuner.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_hardening_bad_input_test {

namespace {

namespace ry = railyard;
using absl::StatusCode;

// ---------------------------------------------------------------------------
// Fixtures, built once: the rows only read them.
// ---------------------------------------------------------------------------

const ry::topology::Cluster& default_cluster() {  // h100-1024-2to1: 128 hosts, 2 tiers
  static const ry::topology::Cluster cluster = *ry::topology::make_cluster("h100-1024-2to1");
  return cluster;
}

ry::plugin::PathAdvisor& advisor() {  // h100-1024: 8 rails, one plane
  static const std::unique_ptr<ry::plugin::PathAdvisor> adv = [] {
    ry::plugin::AdvisorOptions o;
    o.cluster = "h100-1024";
    return *ry::plugin::PathAdvisor::create(o);
  }();
  return *adv;
}

// Two leaves under one spine, read from CSV: a fabric with no descriptor.
const ry::topology::SwitchTree& small_tree() {
  static const ry::topology::SwitchTree tree =
      *ry::topology::csv_topology_from_text("host,leaf,spine\nn0,l0,s0\nn1,l1,s0\n");
  return tree;
}

// ---------------------------------------------------------------------------
// One adapter per boundary: the row's input in, the boundary's Status out.
// ---------------------------------------------------------------------------

using Boundary = absl::Status (*)(const std::string&);

absl::Status cluster_spec(const std::string& in) {
  return ry::topology::parse_cluster(in).status();
}
// A ClusterSpec written in code (no parse_cluster()): make_descriptor() checks it.
absl::Status spec_hosts(const std::string& in) {
  ry::topology::ClusterSpec spec;
  spec.hosts = std::stoi(in);
  return ry::topology::make_descriptor(spec).status();
}
absl::Status spec_oversub_up(const std::string& in) {
  ry::topology::ClusterSpec spec;
  spec.hosts = 64;
  spec.oversub = {2, std::stoi(in)};
  return ry::topology::make_descriptor(spec).status();
}
absl::Status host_list(const std::string& in) {
  return ry::parse_host_list("hosts", in, 128).status();
}
absl::Status byte_size(const std::string& in) { return ry::parse_size("bytes", in).status(); }
absl::Status ratio(const std::string& in) { return ry::parse_ratio("oversub", in).status(); }
absl::Status job_plan(const std::string& in) { return ry::placement::parse_plan(in).status(); }
absl::Status order_string(const std::string& in) { return ry::placement::parse_order(in).status(); }
absl::Status job_list(const std::string& in) { return ry::placement::parse_job_list(in).status(); }
absl::Status place_jobs(const std::string& in) {
  return ry::placement::place_jobs(default_cluster().descriptor, in).status();
}
absl::Status plan_jobs(const std::string& in) {
  return ry::pipeline::parse_plan_jobs(in, default_cluster().descriptor).status();
}
absl::Status policy(const std::string& in) { return ry::placement::parse_policy(in).status(); }
absl::Status job_trace(const std::string& in) {
  return ry::placement::parse_job_trace(in).status();
}
absl::Status failures(const std::string& in) {
  ry::topology::FailureOverlay overlay(default_cluster().fabric);
  return ry::topology::apply_failures(default_cluster().fabric, in, overlay);
}
absl::Status failures_on_imported_fabric(const std::string& in) {
  const ry::topology::Fabric fabric = *ry::topology::fabric_from_tree(small_tree(), {});
  ry::topology::FailureOverlay overlay(fabric);
  return ry::topology::apply_failures(fabric, in, overlay);
}
absl::Status tree_host_gbps(const std::string& in) {
  ry::topology::LinkSpeeds speeds;
  speeds.host_gbps = std::stod(in);
  return ry::topology::fabric_from_tree(small_tree(), speeds).status();
}
absl::Status tree_leaf_up_gbps(const std::string& in) {
  ry::topology::LinkSpeeds speeds;
  speeds.leaf_up_gbps = std::stod(in);
  return ry::topology::fabric_from_tree(small_tree(), speeds).status();
}
absl::Status slurm_conf(const std::string& in) {
  return ry::topology::slurm_topology_from_conf(in).status();
}
absl::Status csv_topology(const std::string& in) {
  return ry::topology::csv_topology_from_text(in).status();
}
absl::Status hostlist(const std::string& in) { return ry::expand_hostlist(in).status(); }
absl::Status node_pattern(const std::string& in) { return ry::topology::NodeNamer::parse(in).status(); }
absl::Status node_pattern_names(const std::string& in) {
  auto namer = ry::topology::NodeNamer::parse(in);
  if (!namer.ok()) return namer.status();
  return namer->check(default_cluster().descriptor);
}
absl::Status hash_table(const std::string& in) {
  return ry::routing::MeasuredTableHash::parse(in).status();
}
absl::Status routing(const std::string& in) { return ry::sim::parse_routing(in).status(); }

absl::Status cc_with(const ry::cc::CcInputs& in) {
  return ry::cc::derive_cc(default_cluster(), in).status();
}
absl::Status cc_incast(const std::string& in) {
  ry::cc::CcInputs cc;
  cc.incast = std::stoi(in);
  return cc_with(cc);
}
absl::Status cc_buffer_bytes(const std::string& in) {
  ry::cc::CcInputs cc;
  cc.buffer_bytes_per_port = std::stod(in);
  return cc_with(cc);
}
absl::Status cc_mtu_bytes(const std::string& in) {
  ry::cc::CcInputs cc;
  cc.mtu_bytes = std::stod(in);
  return cc_with(cc);
}
absl::Status cc_qps_per_nic(const std::string& in) {
  ry::cc::CcInputs cc;
  cc.qps_per_nic = std::stoi(in);
  return cc_with(cc);
}
absl::Status cc_on_cluster(const std::string& in) {
  auto cluster = ry::topology::make_cluster(in);
  if (!cluster.ok()) return cluster.status();
  return ry::cc::derive_cc(*cluster, {}).status();
}

// parse_tuning_rules never fails: a bad line is a warning and is skipped. The
// adapter turns "exactly one warning, every other line kept as a rule" into
// InvalidArgument with the warning as message, and anything else into Internal
// (a failed row).
absl::Status tuner_rule(const std::string& in) {
  const ry::tune::TuningRules rules = ry::tune::parse_tuning_rules(in);
  if (rules.warnings.empty()) return absl::OkStatus();
  const auto lines = static_cast<size_t>(std::count(in.begin(), in.end(), '\n') + 1);
  if (rules.warnings.size() != 1 || rules.rules.size() != lines - 1)
    return absl::InternalError(ry::str_cat(rules.warnings.size(), " warnings, ", rules.rules.size(),
                                           " rules kept of ", lines, " lines"));
  return absl::InvalidArgumentError(rules.warnings.front());
}
absl::Status tuner_create(std::string_view cluster, int64_t ranks, int64_t nodes) {
  ry::tune::TunerOptions o;
  o.cluster = cluster;
  o.ranks = ranks;
  o.nodes = nodes;
  return ry::tune::TunerCore::create(o).status();
}
absl::Status tuner_cluster(const std::string& in) { return tuner_create(in, 16, 2); }
absl::Status tuner_ranks(const std::string& in) {
  return tuner_create("h100-1024", std::stoll(in), 2);
}
absl::Status tuner_nodes(const std::string& in) {
  return tuner_create("h100-1024", 1024, std::stoll(in));
}
absl::Status tuner_hosts(const std::string& in) {  // the node -> host list, 2 nodes
  ry::tune::TunerOptions o;
  o.cluster = "h100-1024";
  o.ranks = 16;
  o.nodes = 2;
  for (std::string_view h : ry::split(in, ',')) o.hosts.push_back(ry::HostId{std::stoi(std::string(h))});
  return ry::tune::TunerCore::create(o).status();
}

absl::Status advisor_cluster(const std::string& in) {
  ry::plugin::AdvisorOptions o;
  o.cluster = in;
  return ry::plugin::PathAdvisor::create(o).status();
}
absl::Status advisor_hash_model(const std::string& in) {
  ry::plugin::AdvisorOptions o;
  o.cluster = "h100-1024";
  o.hash_model = in;
  return ry::plugin::PathAdvisor::create(o).status();
}
absl::Status advisor_nic_busids(const std::string& in) {
  ry::plugin::AdvisorOptions o;
  o.cluster = "h100-1024";
  for (std::string_view id : ry::split(in, ',')) o.nic_busids.emplace_back(id);
  return ry::plugin::PathAdvisor::create(o).status();
}
absl::Status advisor_nic_name(const std::string& in) { return advisor().rail_plane(in).status(); }
absl::Status advisor_port(const std::string& in) {
  return advisor().rail_plane("mlx5_0", std::stoi(in)).status();
}
absl::Status advisor_qp_budget(const std::string& in) {
  const ry::plugin::NicRef local{.host = 0, .rail = 0, .plane = 0};
  const ry::plugin::NicRef remote{.host = 40, .rail = 0, .plane = 0};
  return advisor().connect(local, remote, std::stoi(in)).status();
}
absl::Status advisor_remote_host(const std::string& in) {
  const ry::plugin::NicRef local{.host = 0, .rail = 0, .plane = 0};
  const ry::plugin::NicRef remote{.host = std::stoi(in), .rail = 0, .plane = 0};
  return advisor().connect(local, remote, 4).status();
}
absl::Status advisor_remote_rail(const std::string& in) {
  const ry::plugin::NicRef local{.host = 0, .rail = 0, .plane = 0};
  const ry::plugin::NicRef remote{.host = 40, .rail = std::stoi(in), .plane = 0};
  return advisor().connect(local, remote, 4).status();
}

// ---------------------------------------------------------------------------
// The table.
// ---------------------------------------------------------------------------

struct Row {
  std::string_view boundary;
  Boundary run;
  std::string input;
  StatusCode code;
  std::vector<std::string> expect;  // substrings: the field and the offending value
};

constexpr auto kInvalid = StatusCode::kInvalidArgument;

// Rows: boundary, adapter, input, expected code, substrings of the message
// (long rows wrap before the code).
const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      // clang-format off
      // Cluster spec strings (topology/parse_cluster.hpp).
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,foo=1", kInvalid, {"foo=1", "unknown key"}},
      {"cluster", cluster_spec, "rail_fat_tree:gpus_per_host=8", kInvalid, {"hosts", "missing"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts", kInvalid, {"'hosts'", "key=value"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,=3", kInvalid, {"'=3'", "key=value"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=abc", kInvalid, {"hosts=abc"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=-64", kInvalid, {"hosts=-64"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=0", kInvalid, {"hosts=0", "positive"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=2097152", kInvalid, {"hosts=2097152"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,switch_radix=1",
       kInvalid, {"switch_radix=1", "between 2 and 65536"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,switch_radix=65537",
       kInvalid, {"switch_radix=65537", "between 2 and 65536"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=4096",
       kInvalid, {"switch_radix=64", "too small"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,oversub=1:2", kInvalid, {"oversub=1:2"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,oversub=2:0", kInvalid, {"oversub=2:0"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,oversub=two", kInvalid, {"oversub=two"}},
      {"cluster", cluster_spec, "h200-9999", kInvalid, {"'h200-9999'", "unknown"}},
      {"cluster", cluster_spec, "dragonfly:hosts=64", kInvalid, {"'dragonfly'", "unknown"}},
      {"cluster", cluster_spec, "", kInvalid, {"spec ''", "missing kind"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,hosts=32",
       kInvalid, {"hosts", "given twice", "hosts=32"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=2048,tiers=3,sus_per_pod=64",
       kInvalid, {"sus_per_pod=64", "single pod"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=2048,tiers=3",
       kInvalid, {"sus_per_pod", "tiers=3"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,tiers=4", kInvalid, {"tiers=4"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,sus_per_pod=2",
       kInvalid, {"sus_per_pod=2", "tiers=3"}},
      {"cluster", cluster_spec, "rail_only:hosts=20,tiers=1,hosts_per_su=32",
       kInvalid, {"hosts_per_su=32", "tiers=1", "no partial SU"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,nics_per_host=3",
       kInvalid, {"nics_per_host=3"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,planes=17", kInvalid, {"planes=17"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,switch_layout=fancy",
       kInvalid, {"switch_layout=fancy"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,scale_up=12",
       kInvalid, {"scale_up=12", "gpus_per_host=8"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=64,pod_oversub=2:1",
       kInvalid, {"pod_oversub=2:1", "tiers=3"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=128,hosts_per_su=64",
       kInvalid, {"hosts_per_su=64", "switch_radix=64"}},
      {"cluster", cluster_spec, "tor_fat_tree:hosts=64,switch_radix=4",
       kInvalid, {"switch_radix=4", "8 NICs"}},
      {"cluster", cluster_spec, "rail_fat_tree:hosts=2048,tiers=3,sus_per_pod=65",
       kInvalid, {"sus_per_pod=65", "64 SUs"}},
      {"cluster", spec_hosts, "-64", kInvalid, {"hosts=-64", "out of range"}},
      {"cluster", spec_oversub_up, "0", kInvalid, {"oversub=2:0", "out of range"}},

      // Host lists, sizes, ratios (core/parse.hpp).
      {"host list", host_list, "5-3", kInvalid, {"hosts=5-3", "backwards"}},
      {"host list", host_list, "0-128", kInvalid, {"hosts=0-128", "out of range"}},
      {"host list", host_list, "1,2,1", kInvalid, {"hosts=1,2,1", "host 1"}},
      {"host list", host_list, "1,,2", kInvalid, {"hosts=1,,2"}},
      {"host list", host_list, "", kInvalid, {"hosts=", "empty"}},
      {"size", byte_size, "1.5GiB", kInvalid, {"bytes=1.5GiB"}},
      {"size", byte_size, "1GiBs", kInvalid, {"bytes=1GiBs", "'GiBs'"}},
      {"size", byte_size, "99999999999TiB", kInvalid, {"bytes=99999999999TiB", "too large"}},
      {"size", byte_size, "-1", kInvalid, {"bytes=-1"}},
      {"ratio", ratio, "1001:1", kInvalid, {"oversub=1001:1", "1000"}},
      {"ratio", ratio, "2:1:1", kInvalid, {"oversub=2:1:1"}},

      // Job plans and order strings (placement/plan.hpp).
      {"plan", job_plan, "tp=8,xp=2", kInvalid, {"xp=2", "unknown key"}},
      {"plan", job_plan, "tp=0", kInvalid, {"tp=0"}},
      {"plan", job_plan, "tp=8,dp=many", kInvalid, {"dp=many"}},
      {"plan", job_plan, "tp=8,tp_bytes=1.5GiB", kInvalid, {"tp_bytes=1.5GiB"}},
      {"plan", job_plan, "tp=1024,dp=1024,pp=1024",
       kInvalid, {"job=tp=1024,dp=1024,pp=1024", "too large"}},
      {"plan", job_plan, "", kInvalid, {"job=", "empty plan"}},

      // 8 x 2^60 ranks wraps int64 to 0: this plan was accepted, then crashed `order`.
      {"plan", job_plan, "tp=8,cp=1048576,ep=1048576,dp=1048576",
       kInvalid, {"job=tp=8,cp=1048576,ep=1048576,dp=1048576", "too large"}},
      {"plan", job_plan, "tp=8,order=tp-cp-ep-dp-zz", kInvalid, {"order=tp-cp-ep-dp-zz", "'zz'"}},
      {"order", order_string, "tp-tp-ep-dp-pp", kInvalid, {"order=tp-tp-ep-dp-pp", "twice"}},
      {"order", order_string, "tp-cp", kInvalid, {"order=tp-cp"}},

      // Job lists, plan job lists and traces (placement/replay.hpp, io/plan_scenario.hpp).
      {"jobs", job_list, "a:gpus=abc", kInvalid, {"job 'a'", "gpus=abc"}},
      {"jobs", job_list, "a:gpu=8", kInvalid, {"job 'a'", "gpu=8", "unknown key"}},
      {"jobs", job_list, "a:gpus", kInvalid, {"job 'a'", "gpus", "key=value"}},
      {"jobs", job_list, ":gpus=8", kInvalid, {"':gpus=8'", "name is empty"}},
      {"jobs", job_list, "a:gpus=8;a:gpus=16", kInvalid, {"job 'a'", "duplicate"}},
      {"jobs", job_list, "a:gpus=8,gpus=16", kInvalid, {"job 'a'", "given twice", "gpus=16"}},
      {"jobs", place_jobs, "a:gpus=7", kInvalid, {"job 'a'", "gpus=7", "gpus_per_host=8"}},
      {"jobs", place_jobs, "a:gpus=4096", kInvalid, {"job 'a'", "gpus=4096", "1024 GPUs"}},
      {"jobs", place_jobs, "a:gpus=0", kInvalid, {"job 'a'", "gpus=0", "positive"}},
      {"plan jobs", plan_jobs, "a:tp=16,dp=4", kInvalid, {"job 'a'", "tp=16", "NVLink"}},
      {"plan jobs", plan_jobs, "a:tp=8,dp=3,gpus=64", kInvalid, {"job 'a'", "gpus=64"}},
      {"plan jobs", plan_jobs, "a b:gpus=8", kInvalid, {"job 'a b'", "name"}},
      {"plan jobs", plan_jobs, "a:tp=8,tp=4", kInvalid, {"job 'a'", "given twice", "tp=4"}},
      {"policy", policy, "worst_fit", kInvalid, {"policy=worst_fit"}},
      {"trace", job_trace, "time,name,gpus\n0,a,8\n",
       kInvalid, {"line 1", "header=time,name,gpus:"}},
      {"trace", job_trace, "time,name,gpus,duration\nsoon,a,8,10\n",
       kInvalid, {"line 2", "time=soon"}},
      {"trace", job_trace, "time,name,gpus,duration\n0,a,eight,10\n",
       kInvalid, {"line 2", "gpus=eight"}},
      {"trace", job_trace, "time,name,gpus,duration\n0,a,8,-10\n",
       kInvalid, {"line 2", "duration=-10"}},
      {"trace", job_trace, "time,name,gpus,duration\n0,a,8,1e3\n",
       kInvalid, {"line 2", "duration=1e3"}},
      {"trace", job_trace, "time,name,gpus,duration\n0,,8,10\n", kInvalid, {"line 2", "name="}},
      {"trace", job_trace, "time,name,gpus,duration\n0,a,8,10\n5,a,8,10\n",
       kInvalid, {"line 3", "name=a", "line 2"}},
      {"trace", job_trace, "time,name,gpus,duration\n0,a,8\n",
       kInvalid, {"line 2", "row=0,a,8:", "4 fields"}},
      {"trace", job_trace, "# only a comment\n", kInvalid, {"no header"}},

      // Failure specs (io/failure_spec.hpp) on the default cluster: 32 leaves, 16 uplinks each.
      {"down", failures, "leaf99/0", kInvalid, {"down=leaf99/0", "32 leaf"}},
      {"down", failures, "leaf0/16", kInvalid, {"down=leaf0/16", "0..15"}},
      {"down", failures, "router3", kInvalid, {"down=router3", "unknown switch kind"}},
      {"down", failures, "leaf0@1.5", kInvalid, {"down=leaf0@1.5", "fraction"}},
      {"down", failures, "leaf0@", kInvalid, {"down=leaf0@", "fraction"}},
      {"down", failures, "core0", kInvalid, {"down=core0", "0 core"}},
      {"down", failures, "leaf", kInvalid, {"down=leaf"}},
      {"down", failures, "leaf0,,leaf1", kInvalid, {"down="}},
      {"down", failures, "spine0/0", kInvalid, {"down=spine0/0", "no uplinks"}},
      {"down", failures, "leaf0/1@0x0.8", kInvalid, {"down=leaf0/1@0x0.8", "fraction"}},
      {"down", failures, "leaf0/1@ 0.5", kInvalid, {"down=leaf0/1@ 0.5", "fraction"}},
      {"down", failures_on_imported_fabric, "leaf0", kInvalid, {"down=leaf0", "cluster spec"}},

      // Link speeds for fabrics built from scheduler files (io/switch_tree.hpp).
      {"link speeds", tree_host_gbps, "0", kInvalid, {"host_gbps=0"}},
      {"link speeds", tree_leaf_up_gbps, "-400", kInvalid, {"leaf_up_gbps=-400"}},

      // Slurm topology.conf (io/slurm_import.hpp).
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n[0-1] Bogus=1",
       kInvalid, {"line 1", "Bogus=1", "unknown key"}},
      {"topology.conf", slurm_conf, "SwitchName=s0",
       kInvalid, {"line 1", "SwitchName=s0", "empty"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n[1-]",
       kInvalid, {"line 1", "Nodes=n[1-]", "hostlist"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n0\nSwitchName=s0 Nodes=n1",
       kInvalid, {"line 2", "SwitchName=s0", "line 1"}},
      {"topology.conf", slurm_conf, "SwitchName=s1 Switches=s9",
       kInvalid, {"line 1", "Switches=s9", "'s9'"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n0 LinkSpeed=fast",
       kInvalid, {"line 1", "LinkSpeed=fast"}},
      {"topology.conf", slurm_conf, "BlockName=b0 Nodes=n0",
       kInvalid, {"line 1", "BlockName=b0", "topology/block"}},
      {"topology.conf", slurm_conf, "SwitchName=a Switches=b\nSwitchName=b Switches=a",
       kInvalid, {"Switches=", "cycle"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n0\nSwitchName=s1 Nodes=n0",
       kInvalid, {"line 2", "Nodes=n0", "node n0"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n0 Switches=s1",
       kInvalid, {"line 1", "Switches=s1", "both"}},
      {"topology.conf", slurm_conf, "SwitchName=s\xff Nodes=n0",
       kInvalid, {"line 1", "SwitchName=s\\xFF", "UTF-8"}},
      {"topology.conf", slurm_conf, "SwitchName=\"s0 Nodes=n0",
       kInvalid, {"line 1", "SwitchName=\"s0", "unterminated"}},
      {"topology.conf", slurm_conf, "# nothing\n", kInvalid, {"topology.conf", "no switches"}},
      {"topology.conf", slurm_conf, "Include /etc/slurm/more.conf\n",
       kInvalid, {"line 1", "Include", "/etc/slurm/more.conf"}},
      {"topology.conf", slurm_conf, "SwitchName=" + std::string(65, 's') + " Nodes=n0",
       kInvalid, {"line 1", "SwitchName=" + std::string(65, 's'), "64 characters"}},
      {"topology.conf", slurm_conf,
       "SwitchName=l Nodes=n0\nSwitchName=s Switches=l\nSwitchName=c Switches=s\n"
       "SwitchName=top Switches=c\n",
       kInvalid, {"line 4", "Switches=c", "switch top", "level 4"}},
      {"topology.conf", slurm_conf, "SwitchName=s0 Nodes=n0 LinkSpeed=1 LinkSpeed=2",
       kInvalid, {"line 1", "LinkSpeed=2", "twice"}},

      // CSV topologies (io/csv_topology.hpp).
      {"csv", csv_topology, "host,leaf\nn0,l0\n", kInvalid, {"line 1", "row=host,leaf:", "2 fields"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,l0,s0\nn0,l1,s0\n",
       kInvalid, {"line 3", "host=n0:", "line 2"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,l0,s0\nn1,l0,s1\n",
       kInvalid, {"line 3", "leaf=l0:", "'s1'", "'s0'"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,,s0\n", kInvalid, {"line 2", "leaf=:", "empty"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,l0,s0,c0\n",
       kInvalid, {"line 2", "row=n0,l0,s0,c0:", "4 fields"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,l 0,s0\n",
       kInvalid, {"line 2", "leaf=l 0:", "space"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,n0,s0\n",
       kInvalid, {"line 2", "leaf=n0:", "same name"}},
      {"csv", csv_topology, "host,leaf,spine\n", kInvalid, {"line ", "no host rows"}},
      {"csv", csv_topology, "host,leaf,spine\nn0,l0,s0\nhost,leaf,spine\n",
       kInvalid, {"line 3", "host=host:", "header row after line 1"}},
      {"csv", csv_topology, "host,leaf,spine\nn\xff,l0,s0\n",
       kInvalid, {"line 2", "host=n\\xff:", "UTF-8"}},

      // Slurm hostlists (io/hostlist.hpp) and node-name patterns (io/node_names.hpp).
      {"hostlist", hostlist, "n[1-]", kInvalid, {"\"n[1-]\"", "'1-'"}},
      {"hostlist", hostlist, "n[3-1]", kInvalid, {"\"n[3-1]\"", "backwards"}},
      {"hostlist", hostlist, "n[1-2", kInvalid, {"\"n[1-2\"", "without ']'"}},
      {"hostlist", hostlist, "n1-2]", kInvalid, {"\"n1-2]\"", "without '['"}},
      {"hostlist", hostlist, "n[1-2]-ib", kInvalid, {"\"n[1-2]-ib\"", "'-ib'"}},
      {"hostlist", hostlist, "n[0-70000]", kInvalid, {"\"n[0-70000]\"", "65536"}},
      {"hostlist", hostlist, "n[[1]]", kInvalid, {"\"n[[1]]\"", "nested"}},
      {"node pattern", node_pattern, "node{rack}", kInvalid, {"node_pattern=node{rack}", "{rack}"}},
      {"node pattern", node_pattern, "node{host", kInvalid, {"node_pattern=node{host", "'{'"}},
      {"node pattern", node_pattern, "node", kInvalid, {"node_pattern=node", "placeholder"}},
      {"node pattern", node_pattern, "n{host:4}", kInvalid, {"node_pattern=n{host:4}", "'4'"}},
      {"node pattern", node_pattern, "n!{host}", kInvalid, {"node_pattern=n!{host}", "'!'"}},
      {"node pattern", node_pattern_names, "n{su}", kInvalid, {"node_pattern=n{su}", "n0"}},

      // Measured spraying hash tables (routing/hash.hpp).
      {"hash table", hash_table, "src_leaf_up 3 0xC001\n", kInvalid, {"line 1", "got 3"}},
      {"hash table", hash_table, "bogus 3 0xC001 1\n", kInvalid, {"line 1", "(kind) 'bogus'"}},
      {"hash table", hash_table, "src_leaf_up x 0xC001 1\n",
       kInvalid, {"line 1", "(switch_index) 'x'"}},
      {"hash table", hash_table, "# ok\nsrc_leaf_up 3 0x1000 1\n",
       kInvalid, {"line 2", "(sport) '0x1000'", "0xC000"}},
      {"hash table", hash_table, "src_leaf_up 3 0xC001 -1\n",
       kInvalid, {"line 1", "(uplink) '-1'"}},
      {"hash table", hash_table, "src_leaf_up 3 0xC001 1 extra\n",
       kInvalid, {"line 1", "token 5 'extra'"}},
      {"hash table", hash_table, "core_down 0 49153 1\ncore_down 0 0xC001 2\n",
       kInvalid, {"line 2", "duplicate", "line 1"}},

      // Routing and policy names.
      {"routing", routing, "oracle", kInvalid, {"routing=oracle"}},
      {"routing", routing, "", kInvalid, {"routing="}},

      // Congestion-control inputs (cc/derive.hpp) on h100-1024-2to1.
      {"cc", cc_incast, "0", kInvalid, {"incast=0"}},
      {"cc", cc_incast, "100000", kInvalid, {"incast=100000"}},
      {"cc", cc_buffer_bytes, "1000", kInvalid, {"buffer_bytes=1000", "BDP"}},
      {"cc", cc_buffer_bytes, "-5", kInvalid, {"buffer_bytes=-5"}},
      {"cc", cc_mtu_bytes, "100", kInvalid, {"mtu_bytes=100"}},
      {"cc", cc_qps_per_nic, "-1", kInvalid, {"qps_per_nic=-1"}},
      {"cc", cc_on_cluster, "rail_fat_tree:hosts=128,nic_gbps=800",
       kInvalid, {"nic_gbps=800", "PFC"}},
      {"cc", cc_on_cluster, "rail_fat_tree:hosts=128,nic_gbps=50", kInvalid, {"nic_gbps=50"}},

      // Tuner rules (plugin/tuner.hpp): warnings naming the line and the token.
      {"tuner rules", tuner_rule,
       "allreduce,0,65536,tree,ll,-1,-1,-1\nalreduce,0,1,ring,ll,-1,-1,-1",
       kInvalid, {"line 2", "token 'alreduce'", "(coll)"}},
      {"tuner rules", tuner_rule, "allreduce,0,many,tree,ll,-1,-1,-1",
       kInvalid, {"line 1", "token 'many'", "(max_bytes)"}},
      {"tuner rules", tuner_rule, "allreduce,100,10,tree,ll,-1,-1,-1",
       kInvalid, {"line 1", "token '10'", "(max_bytes)", "min_bytes"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,bush,ll,-1,-1,-1",
       kInvalid, {"line 1", "token 'bush'", "(algo)"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,tree,ll64,-1,-1,-1",
       kInvalid, {"line 1", "token 'll64'", "(proto)"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,tree,ll,65,-1,-1",
       kInvalid, {"line 1", "token '65'", "(channels)"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,tree,ll,-1,0,-1",
       kInvalid, {"line 1", "token '0'", "(nNodes)"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,tree,ll,-1,-1,-1,-1,2",
       kInvalid, {"line 1", "token '2'", "(regBuff)"}},
      {"tuner rules", tuner_rule, "allreduce,0,1,tree", kInvalid, {"line 1", "4 fields"}},
      {"tuner options", tuner_cluster, "h200-9999", kInvalid, {"'h200-9999'"}},
      {"tuner options", tuner_cluster, "h100-1024\nh100-1024-tor",
       kInvalid, {"cluster=h100-1024-tor", "one spec line"}},
      {"tuner options", tuner_ranks, "0", kInvalid, {"nRanks=0"}},
      {"tuner options", tuner_ranks, "2048", kInvalid, {"nRanks=2048", "GPUs per host"}},
      {"tuner options", tuner_nodes, "256", kInvalid, {"nNodes=256", "128 hosts"}},
      {"tuner options", tuner_hosts, "0,200", kInvalid, {"hosts=200", "128 hosts"}},
      {"tuner options", tuner_hosts, "0,1,2", kInvalid, {"hosts=0-2", "2 nodes"}},

      // The path advisor (plugin/advisor.hpp) on h100-1024.
      {"advisor", advisor_cluster, "rail_fat_tree:hosts=abc",
       kInvalid, {"cluster 'rail_fat_tree:hosts=abc'", "hosts=abc"}},
      {"advisor", advisor_hash_model, "md5", kInvalid, {"hash_model=md5"}},
      {"advisor", advisor_nic_busids, "0000:01:00.0",
       kInvalid, {"nic_busids=0000:01:00.0", "expected 8"}},
      {"advisor", advisor_nic_busids,
       "0000:01:00.0,0000:02:00.0,0000:03:00.0,zz,0000:05:00.0,0000:06:00.0,0000:07:00.0,"
       "0000:08:00.0",
       kInvalid, {"nic_busids[3]=zz"}},
      {"advisor", advisor_nic_busids,
       "0000:01:00.0,0000:02:00.0,0000:03:00.0,0000:01:00.0,0000:05:00.0,0000:06:00.0,"
       "0000:07:00.0,0000:08:00.0",
       kInvalid, {"nic_busids[3]=0000:01:00.0", "twice"}},
      {"advisor", advisor_nic_name, "mlx5_99",
       StatusCode::kNotFound, {"nic_name_or_pci=mlx5_99", "no such NIC"}},
      {"advisor", advisor_nic_name, "eth0", kInvalid, {"nic_name_or_pci=eth0"}},
      {"advisor", advisor_nic_name, "0000:99:00.0",
       StatusCode::kNotFound, {"nic_name_or_pci=0000:99:00.0", "no NIC"}},
      {"advisor", advisor_nic_name, "mlx5_0:2", kInvalid, {"nic_name_or_pci=mlx5_0:2"}},
      {"advisor", advisor_port, "5", kInvalid, {"port=5"}},
      {"advisor", advisor_qp_budget, "0", kInvalid, {"qp_budget=0"}},
      {"advisor", advisor_remote_host, "128", kInvalid, {"remote.host=128"}},
      {"advisor", advisor_remote_rail, "8", kInvalid, {"remote.rail=8"}},
      // clang-format on
  };
  return table;
}

std::string code_name(StatusCode code) { return absl::StatusCodeToString(code); }

}  // namespace

TEST_CASE("bad_input: every malformed input gives its error class, field and value") {
  const std::vector<Row>& table = rows();
  CHECK(table.size() >= 50);
  for (const Row& row : table) {
    CAPTURE(row.boundary);
    CAPTURE(row.input);
    const absl::Status status = row.run(row.input);
    const std::string message(status.message());
    CAPTURE(message);
    CHECK_FALSE(status.ok());
    CHECK(code_name(status.code()) == code_name(row.code));
    for (const std::string& part : row.expect) {
      CAPTURE(part);
      CHECK(message.find(part) != std::string::npos);
    }
  }
}

TEST_CASE("bad_input: the table covers every boundary the tour lists") {
  // A boundary dropped from the table by mistake shows up here.
  const std::vector<std::string_view> boundaries = {
      "cluster",       "host list",   "size",          "ratio",  "plan",
      "order",         "jobs",        "plan jobs",     "policy", "trace",
      "down",          "link speeds", "topology.conf", "csv",    "hostlist",
      "node pattern",  "hash table",  "routing",       "cc",     "tuner rules",
      "tuner options", "advisor"};
  for (std::string_view b : boundaries) {
    CAPTURE(b);
    int count = 0;
    for (const Row& row : rows()) count += row.boundary == b ? 1 : 0;
    CHECK(count >= 1);
  }
}

// Inputs the tour found mishandled that are not errors: they must now give the
// same result as their plain form, or a readable report.
TEST_CASE("bad_input: a job trace with a UTF-8 byte-order mark reads like one without") {
  const std::string plain = "time,name,gpus,duration\n0,a,8,10\n5,b,16,20\n";
  const auto without = ry::placement::parse_job_trace(plain);
  const auto with = ry::placement::parse_job_trace("\xEF\xBB\xBF" + plain);
  REQUIRE(without.ok());
  REQUIRE_MESSAGE(with.ok(), std::string(with.status().message()));
  REQUIRE(with->size() == without->size());
  for (size_t i = 0; i < with->size(); ++i) {
    CHECK((*with)[i].name == (*without)[i].name);
    CHECK((*with)[i].time_s == (*without)[i].time_s);
    CHECK((*with)[i].gpus == (*without)[i].gpus);
    CHECK((*with)[i].line == (*without)[i].line);
  }
}

TEST_CASE("bad_input: replay reports of huge but finite figures print every byte readable") {
  // A makespan of ~1e296 hours has ~300 integer digits; the table once wrote a
  // 64-byte buffer's uninitialized contents in its place. (Traces now cap times
  // at kMaxTraceSeconds, so the report is built by hand: report::replay_text
  // is public and takes any report.)
  ry::placement::ReplayReport report;
  report.jobs = report.completed = 2;
  report.makespan_s = 1e300;
  report.mean_queue_delay_s = 3e299;
  report.p95_queue_delay_s = 7e299;
  report.utilization = 1e-300;
  const std::vector<ry::placement::ReplayReport> reports = {report};
  const std::string table = ry::report::replay_text(reports);
  for (char c : table) {
    CAPTURE(static_cast<int>(static_cast<unsigned char>(c)));
    CHECK(((c >= 0x20 && c < 0x7f) || c == '\n'));
  }
  for (double hours : {report.makespan_s / 3600, report.mean_queue_delay_s / 3600}) {
    const std::string digits = ry::fixed(hours, 0);
    CAPTURE(digits);
    CHECK(digits.size() > 290);  // the whole number, not a truncation
    CHECK(table.find(digits) != std::string::npos);
  }
}

}  // namespace railyard_test_hardening_bad_input_test
