#include "railyard/export/launchers.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_export_launchers_test {

using namespace railyard;
using placement::Device;
using placement::JobPlacement;

namespace {

topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

placement::ParallelPlan plan_of(std::string_view text) {
  auto plan = placement::parse_plan(text);
  REQUIRE_MESSAGE(plan.ok(), text, ": ", plan.status().message());
  return *plan;
}

std::vector<std::string> names_of(const topology::ClusterDescriptor<>& d,
                                  std::string_view pattern) {
  auto namer = topology::NodeNamer::parse(pattern);
  REQUIRE(namer.ok());
  return namer->names(d);
}

std::string text_of(const railyard::StatusOr<std::string>& s) {
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  return *s;
}

// Non-comment, non-empty lines.
std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  CHECK((text.empty() || text.back() == '\n'));
  for (std::string_view line : split(text, '\n'))
    if (!line.empty() && line.front() != '#') out.emplace_back(line);
  return out;
}

int64_t to_int(std::string_view s) {
  REQUIRE_FALSE(s.empty());
  int64_t v = 0;
  for (char c : s) {
    REQUIRE_MESSAGE((c >= '0' && c <= '9'), "not a number: ", s);
    v = v * 10 + (c - '0');
  }
  return v;
}

// Inverse of the name table.
std::map<std::string, HostId> host_ids(const std::vector<std::string>& names) {
  std::map<std::string, HostId> out;
  for (size_t h = 0; h < names.size(); ++h) out[names[h]] = HostId{static_cast<int32_t>(h)};
  return out;
}

// A device map read back from a launcher file, checked rank by rank.
void check_devices(const JobPlacement& job, const std::vector<std::optional<Device>>& read) {
  REQUIRE(static_cast<int64_t>(read.size()) == job.plan.world());
  for (int64_t r = 0; r < job.plan.world(); ++r) {
    REQUIRE_MESSAGE(read[static_cast<size_t>(r)].has_value(), "rank ", r, " missing");
    const Device want = job.device(r);
    const Device got = *read[static_cast<size_t>(r)];
    CHECK_MESSAGE(got.host == want.host, "rank ", r, ": host ", got.host.value(), " vs ",
                  want.host.value());
    CHECK_MESSAGE(got.gpu == want.gpu, "rank ", r, ": gpu ", got.gpu.value(), " vs ",
                  want.gpu.value());
  }
}

// Open MPI seq mapper / srun -m arbitrary: line k is rank k; the GPU is the
// local rank, i.e. how many earlier lines name the same host.
std::vector<std::optional<Device>> read_per_rank_hostfile(std::string_view text,
                                                          const std::vector<std::string>& names) {
  const auto ids = host_ids(names);
  std::map<std::string, int32_t> seen;
  std::vector<std::optional<Device>> out;
  for (const std::string& line : lines_of(text)) {
    REQUIRE_MESSAGE(ids.count(line), "unknown host line: ", line);
    out.push_back(Device{ids.at(line), GpuIndex{seen[line]++}});
  }
  return out;
}

// `host slots=G` lines filled by slot: each host takes its G ranks in turn.
std::vector<std::optional<Device>> read_slots_hostfile(std::string_view text,
                                                       const std::vector<std::string>& names) {
  const auto ids = host_ids(names);
  std::vector<std::optional<Device>> out;
  for (const std::string& line : lines_of(text)) {
    const auto parts = split(line, ' ');
    REQUIRE(parts.size() == 2);
    REQUIRE(parts[1].substr(0, 6) == "slots=");
    const int64_t slots = to_int(parts[1].substr(6));
    REQUIRE(ids.count(std::string(parts[0])));
    for (int64_t s = 0; s < slots; ++s)
      out.push_back(Device{ids.at(std::string(parts[0])), GpuIndex{static_cast<int32_t>(s)}});
  }
  return out;
}

// `rank N=host slot=A[-B]`: every rank once; GPU = first core / cores per rank.
std::vector<std::optional<Device>> read_rankfile(std::string_view text,
                                                 const std::vector<std::string>& names,
                                                 int64_t world, int32_t cores_per_rank) {
  const auto ids = host_ids(names);
  std::vector<std::optional<Device>> out(static_cast<size_t>(world));
  std::set<std::pair<int32_t, int64_t>> cores_used;  // (host, core): no overlap
  for (const std::string& line : lines_of(text)) {
    const auto parts = split(line, ' ');
    REQUIRE_MESSAGE(parts.size() == 3, line);
    REQUIRE(parts[0] == "rank");
    const auto eq = split(parts[1], '=');
    REQUIRE(eq.size() == 2);
    const int64_t rank = to_int(eq[0]);
    REQUIRE(rank < world);
    CHECK_MESSAGE(!out[static_cast<size_t>(rank)].has_value(), "rank ", rank, " twice");
    REQUIRE(ids.count(std::string(eq[1])));
    REQUIRE(parts[2].substr(0, 5) == "slot=");
    const auto range = split(parts[2].substr(5), '-');
    const int64_t first = to_int(range[0]);
    const int64_t last = range.size() == 2 ? to_int(range[1]) : first;
    CHECK(last - first + 1 == cores_per_rank);
    CHECK(first % cores_per_rank == 0);
    const HostId host = ids.at(std::string(eq[1]));
    for (int64_t c = first; c <= last; ++c) CHECK(cores_used.insert({host.value(), c}).second);
    out[static_cast<size_t>(rank)] =
        Device{host, GpuIndex{static_cast<int32_t>(first / cores_per_rank)}};
  }
  return out;
}

// `host K=V ...` lines: the GPU is LOCAL_RANK; RANK must follow torchrun's rule.
std::vector<std::optional<Device>> read_rank_env(std::string_view text, const JobPlacement& job,
                                                 const std::vector<std::string>& names,
                                                 int32_t port) {
  const auto ids = host_ids(names);
  const int64_t world = job.plan.world();
  std::vector<std::optional<Device>> out(static_cast<size_t>(world));
  for (const std::string& line : lines_of(text)) {
    const auto parts = split(line, ' ');
    REQUIRE(parts.size() == 10);
    std::map<std::string, std::string> env;
    for (size_t i = 1; i < parts.size(); ++i) {
      const auto kv = split(parts[i], '=');
      REQUIRE(kv.size() == 2);
      CHECK(env.emplace(std::string(kv[0]), std::string(kv[1])).second);
    }
    const int64_t rank = to_int(env.at("RANK"));
    const int64_t local = to_int(env.at("LOCAL_RANK"));
    const int64_t local_world = to_int(env.at("LOCAL_WORLD_SIZE"));
    const int64_t group = to_int(env.at("GROUP_RANK"));
    CHECK(rank == group * local_world + local);
    CHECK(local < local_world);
    CHECK(local_world == job.gpus_per_host);
    CHECK(to_int(env.at("WORLD_SIZE")) == world);
    CHECK(to_int(env.at("ROLE_RANK")) == rank);
    CHECK(to_int(env.at("ROLE_WORLD_SIZE")) == world);
    CHECK(env.at("MASTER_ADDR") == names[static_cast<size_t>(job.hosts[0].value())]);
    CHECK(to_int(env.at("MASTER_PORT")) == port);
    REQUIRE(rank < world);
    CHECK_MESSAGE(!out[static_cast<size_t>(rank)].has_value(), "rank ", rank, " twice");
    REQUIRE(ids.count(std::string(parts[0])));
    out[static_cast<size_t>(rank)] =
        Device{ids.at(std::string(parts[0])), GpuIndex{static_cast<int32_t>(local)}};
  }
  return out;
}

// The torchrun table: each node's command, expanded the way torchrun's static
// rendezvous numbers workers (RANK = node_rank * nproc + local_rank).
std::vector<std::optional<Device>> read_torchrun(std::string_view text, const JobPlacement& job,
                                                 const std::vector<std::string>& names) {
  const auto ids = host_ids(names);
  const int64_t world = job.plan.world();
  std::vector<std::optional<Device>> out(static_cast<size_t>(world));
  int64_t row = 0;
  for (const std::string& line : lines_of(text)) {
    const auto cols = split(line, '\t');
    REQUIRE(cols.size() == 4);
    CHECK(to_int(cols[0]) == row);
    std::map<std::string, std::string> flags;
    const auto words = split(cols[3], ' ');
    REQUIRE(words[0] == "torchrun");
    for (size_t i = 1; i < words.size(); ++i) {
      const auto kv = split(words[i], '=');
      REQUIRE(kv.size() == 2);
      flags[std::string(kv[0])] = std::string(kv[1]);
    }
    CHECK(flags.at("--rdzv_backend") == "static");
    CHECK(to_int(flags.at("--nnodes")) == static_cast<int64_t>(job.hosts.size()));
    CHECK(flags.at("--master_addr") == names[static_cast<size_t>(job.hosts[0].value())]);
    const int64_t node_rank = to_int(flags.at("--node_rank"));
    const int64_t nproc = to_int(flags.at("--nproc_per_node"));
    CHECK(node_rank == to_int(cols[0]));
    CHECK(cols[2] == str_cat(node_rank * nproc, "-", node_rank * nproc + nproc - 1));
    REQUIRE(ids.count(std::string(cols[1])));
    for (int64_t local = 0; local < nproc; ++local) {
      const int64_t rank = node_rank * nproc + local;
      REQUIRE(rank < world);
      CHECK(!out[static_cast<size_t>(rank)].has_value());
      out[static_cast<size_t>(rank)] =
          Device{ids.at(std::string(cols[1])), GpuIndex{static_cast<int32_t>(local)}};
    }
    ++row;
  }
  return out;
}

// Output and exit status of a shell command.
std::pair<std::string, int> run_shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// The torchrun script, run by /bin/sh once per job host (RAILYARD_NODE = the
// host) with a stub `torchrun` first on PATH that prints its arguments one per
// line: the node rank each host really starts with, expanded the way torchrun's
// static rendezvous numbers workers (RANK = node_rank * nproc + local_rank).
std::vector<std::optional<Device>> run_torchrun_script(const std::string& script,
                                                       const JobPlacement& job,
                                                       const std::vector<std::string>& names,
                                                       int32_t port) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / str_cat("railyard-torchrun-", getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "torchrun.sh") << script;
  {
    std::ofstream stub(dir / "torchrun");
    stub << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n";
  }
  fs::permissions(dir / "torchrun", fs::perms::owner_all);
  const auto ids = host_ids(names);
  const int64_t world = job.plan.world();
  std::vector<std::optional<Device>> out(static_cast<size_t>(world));
  for (HostId host : job.hosts) {
    const std::string& name = names[static_cast<size_t>(host.value())];
    const auto [printed, status] =
        run_shell(str_cat("RAILYARD_NODE=", name, " PATH=", dir.string(), ":/usr/bin:/bin sh ",
                          (dir / "torchrun.sh").string(), " train.py --lr 0.1"));
    REQUIRE(status == 0);
    std::map<std::string, std::string> flags;
    std::vector<std::string> rest;
    for (const std::string& arg : lines_of(printed)) {
      const size_t eq = arg.find('=');
      if (arg.starts_with("--") && eq != std::string::npos && rest.empty())
        flags[arg.substr(0, eq)] = arg.substr(eq + 1);
      else
        rest.push_back(arg);
    }
    CHECK(rest == std::vector<std::string>{"train.py", "--lr", "0.1"});  // arguments passed on
    CHECK(flags.at("--rdzv_backend") == "static");
    CHECK(to_int(flags.at("--nnodes")) == static_cast<int64_t>(job.hosts.size()));
    CHECK(flags.at("--master_addr") == names[static_cast<size_t>(job.hosts[0].value())]);
    CHECK(to_int(flags.at("--master_port")) == port);
    const int64_t node_rank = to_int(flags.at("--node_rank"));
    const int64_t nproc = to_int(flags.at("--nproc_per_node"));
    for (int64_t local = 0; local < nproc; ++local) {
      const int64_t rank = node_rank * nproc + local;
      REQUIRE(rank < world);
      CHECK(!out[static_cast<size_t>(rank)].has_value());
      out[static_cast<size_t>(rank)] = Device{ids.at(name), GpuIndex{static_cast<int32_t>(local)}};
    }
  }
  // A host outside the job: exit status 2 and a message naming it.
  const auto [printed, status] =
      run_shell(str_cat("RAILYARD_NODE=stranger PATH=", dir.string(), ":/usr/bin:/bin sh ",
                        (dir / "torchrun.sh").string(), " train.py 2>&1"));
  CHECK(status == 2);
  CHECK(printed.find("host 'stranger' is not in this job") != std::string::npos);
  fs::remove_all(dir);
  return out;
}

void check_all_formats(const JobPlacement& job, const std::vector<std::string>& names) {
  check_devices(job, read_per_rank_hostfile(text_of(exports::hostfile_seq(job, names)), names));
  check_devices(job, read_per_rank_hostfile(text_of(exports::slurm_hostfile(job, names)), names));
  check_devices(job, read_slots_hostfile(text_of(exports::hostfile_slots(job, names)), names));
  check_devices(
      job, read_rankfile(text_of(exports::openmpi_rankfile(job, names)), names, job.plan.world(), 1));
  exports::LaunchOptions opts;
  opts.cores_per_rank = 4;
  opts.master_port = 31337;
  check_devices(job, read_rankfile(text_of(exports::openmpi_rankfile(job, names, opts)), names,
                                   job.plan.world(), 4));
  check_devices(job, read_rank_env(text_of(exports::rank_env(job, names)), job, names, 29500));
  check_devices(job, read_rank_env(text_of(exports::rank_env(job, names, opts)), job, names, 31337));
  check_devices(job, read_torchrun(text_of(exports::torchrun_table(job, names)), job, names));
  check_devices(job, run_torchrun_script(text_of(exports::torchrun_script(job, names, opts)), job,
                                         names, 31337));
  // The per-node files: torchrun.sh is the script; node k's file runs node rank k.
  auto files = exports::torchrun_files(job, names, opts);
  REQUIRE(files.ok());
  REQUIRE(files->size() == job.hosts.size() + 1);
  CHECK((*files)[0].path == "torchrun.sh");
  CHECK((*files)[0].content == text_of(exports::torchrun_script(job, names, opts)));
  for (size_t k = 0; k < job.hosts.size(); ++k) {
    const exports::LaunchFile& f = (*files)[k + 1];
    CHECK(f.path == str_cat("torchrun-node-", k, ".sh"));
    CHECK(f.content.find(str_cat("run on ", names[static_cast<size_t>(job.hosts[k].value())], " ")) !=
          std::string::npos);
    CHECK(f.content.find(str_cat(" --node_rank=", k, " ")) != std::string::npos);
  }
}

struct Case {
  const char* cluster;
  std::vector<int32_t> hosts;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      // 8 hosts of 8 GPUs spread over three SUs, out of order.
      {"h100-1024", {70, 40, 41, 8, 9, 100, 101, 12}},
      // 16 hosts of 4 GPUs in three NVL72 racks, out of order.
      {"gb200-nvl72-576", {40, 41, 42, 43, 3, 4, 5, 6, 130, 131, 132, 133, 20, 21, 22, 23}},
  };
  return c;
}

}  // namespace

TEST_CASE("launchers: every format reproduces rank -> (host, gpu) for railyard and naive orders") {
  const auto plan = plan_of("tp=8,pp=2,dp=4");
  for (const Case& c : cases()) {
    CAPTURE(c.cluster);
    const auto d = cluster(c.cluster);
    for (std::string_view pattern :
         {topology::kDefaultNodePattern, std::string_view("gpu-{su:02}-{slot:03}")}) {
      const auto names = names_of(d, pattern);
      auto ours = placement::order_ranks(d, plan, testing::host_ids(c.hosts));
      REQUIRE_MESSAGE(ours.ok(), ours.status().message());
      auto naive = placement::naive_order(d, plan, testing::host_ids(c.hosts));
      REQUIRE(naive.ok());
      check_all_formats(*ours, names);
      check_all_formats(*naive, names);
      // The naive order keeps the given host order: line 0 names the first given host.
      CHECK(lines_of(text_of(exports::hostfile_seq(*naive, names)))[0] ==
            names[static_cast<size_t>(c.hosts[0])]);
    }
  }
}

TEST_CASE("launchers: output is deterministic and the dispatcher matches the functions") {
  const auto d = cluster("h100-1024");
  const auto names = names_of(d, topology::kDefaultNodePattern);
  const auto plan = plan_of("tp=8,pp=2,dp=4");
  auto job = placement::order_ranks(d, plan, testing::host_ids(cases()[0].hosts));
  REQUIRE(job.ok());
  const JobPlacement copy = *job;
  for (std::string_view format : exports::kLauncherFormats) {
    CAPTURE(format);
    const std::string a = text_of(exports::launcher_file(format, *job, names));
    const std::string b = text_of(exports::launcher_file(format, copy, names));
    CHECK(a == b);
    CHECK_FALSE(a.empty());
  }
  CHECK(text_of(exports::launcher_file("hostfile", *job, names)) ==
        text_of(exports::hostfile_seq(*job, names)));
  CHECK(text_of(exports::launcher_file("slurm-hostfile", *job, names)) ==
        text_of(exports::slurm_hostfile(*job, names)));
  CHECK(text_of(exports::launcher_file("hostfile-slots", *job, names)) ==
        text_of(exports::hostfile_slots(*job, names)));
  CHECK(text_of(exports::launcher_file("rankfile", *job, names)) ==
        text_of(exports::openmpi_rankfile(*job, names)));
  CHECK(text_of(exports::launcher_file("rank-env", *job, names)) == text_of(exports::rank_env(*job, names)));
  CHECK(text_of(exports::launcher_file("torchrun", *job, names)) ==
        text_of(exports::torchrun_script(*job, names)));
  CHECK(text_of(exports::launcher_file("megatron", *job, names)) == exports::megatron_args(job->plan));
}

TEST_CASE("launchers: exact small outputs") {
  const auto d = cluster("h100-1024");
  const auto names = names_of(d, "node{host}");
  auto job = placement::naive_order(d, plan_of("tp=8,dp=2"), testing::host_ids({9, 3}));
  REQUIRE(job.ok());
  CHECK(text_of(exports::hostfile_slots(*job, names)) == "node9 slots=8\nnode3 slots=8\n");
  const std::string seq = text_of(exports::hostfile_seq(*job, names));
  CHECK(seq.substr(0, 12) == "node9\nnode9\n");
  CHECK(lines_of(seq).size() == 16);
  CHECK(lines_of(seq)[8] == "node3");
  const auto rankfile = lines_of(text_of(exports::openmpi_rankfile(*job, names)));
  CHECK(rankfile[0] == "rank 0=node9 slot=0");
  CHECK(rankfile[15] == "rank 15=node3 slot=7");
  exports::LaunchOptions opts;
  opts.cores_per_rank = 12;
  CHECK(lines_of(text_of(exports::openmpi_rankfile(*job, names, opts)))[9] == "rank 9=node3 slot=12-23");
  CHECK(lines_of(text_of(exports::rank_env(*job, names)))[10] ==
        "node3 RANK=10 LOCAL_RANK=2 WORLD_SIZE=16 LOCAL_WORLD_SIZE=8 GROUP_RANK=1 ROLE_RANK=10 "
        "ROLE_WORLD_SIZE=16 MASTER_ADDR=node9 MASTER_PORT=29500");
  CHECK(
      lines_of(text_of(exports::torchrun_table(*job, names)))[1] ==
      "1\tnode3\t8-15\ttorchrun --nnodes=2 --nproc_per_node=8 --node_rank=1 --rdzv_backend=static "
      "--master_addr=node9 --master_port=29500");
}

TEST_CASE("launchers: torchrun warns when c10d's lexicographic node order differs") {
  const auto d = cluster("h100-1024");
  const auto plan = plan_of("tp=8,pp=2,dp=4");
  const auto plain = names_of(d, "node{host}");
  auto has_warning = [](const std::string& text) {
    return text.find("# WARNING: ") != std::string::npos;
  };
  // node8 node9 node10 ...: lexicographically node10 < node8.
  auto crossing = placement::naive_order(d, plan, testing::host_ids({6, 7, 8, 9, 10, 11, 12, 13}));
  REQUIRE(crossing.ok());
  const std::string warned = text_of(exports::torchrun_table(*crossing, plain));
  CHECK(has_warning(warned));
  CHECK(warned.find("node rank 0 is node6 here, node10 under c10d") != std::string::npos);
  // Same hosts, zero-padded names sort in launch order: no warning.
  const auto padded = names_of(d, topology::kDefaultNodePattern);
  CHECK_FALSE(has_warning(text_of(exports::torchrun_table(*crossing, padded))));
  // Two-digit ids only: lexicographic = numeric.
  auto tidy = placement::naive_order(d, plan, testing::host_ids({10, 11, 12, 13, 14, 15, 16, 17}));
  REQUIRE(tidy.ok());
  CHECK_FALSE(has_warning(text_of(exports::torchrun_table(*tidy, plain))));
  // A launch order that is not sorted warns even with padded names.
  auto shuffled =
      placement::naive_order(d, plan, testing::host_ids({11, 10, 12, 13, 14, 15, 16, 17}));
  REQUIRE(shuffled.ok());
  CHECK(has_warning(text_of(exports::torchrun_table(*shuffled, padded))));
  // Warnings are comments: the table still parses and reproduces the placement.
  check_devices(*crossing, read_torchrun(warned, *crossing, plain));
}

TEST_CASE("launchers: megatron arguments and order") {
  auto args_line = [](const std::string& text) {
    const auto lines = lines_of(text);
    REQUIRE(lines.size() == 1);
    return lines[0];
  };
  auto warns = [](const std::string& text) {
    return text.find("# WARNING: ") != std::string::npos;
  };

  // Default order: no flag, sizes as planned.
  const std::string def = exports::megatron_args(plan_of("tp=8,pp=2,dp=4"));
  CHECK(args_line(def) ==
        "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 2 --context-parallel-size 1 "
        "--expert-model-parallel-size 1");
  CHECK_FALSE(warns(def));
  // Size-1 dimensions do not matter: tp-dp-pp-cp-ep numbers like tp-cp-ep-dp-pp here.
  CHECK(args_line(exports::megatron_args(plan_of("tp=8,pp=2,dp=4,order=tp-dp-pp-cp-ep"))) ==
        args_line(def));
  // pp before dp: Megatron's --use-tp-pp-dp-mapping.
  const std::string pp_dp = exports::megatron_args(plan_of("tp=8,pp=2,dp=4,order=tp-pp-dp-cp-ep"));
  CHECK(args_line(pp_dp).ends_with(" --use-tp-pp-dp-mapping"));
  CHECK_FALSE(warns(pp_dp));
  // EP next to DP: Megatron's DP group is railyard's ep x dp, EP groups match.
  const std::string moe = exports::megatron_args(plan_of("tp=2,ep=4,dp=2,pp=2"));
  CHECK_FALSE(warns(moe));
  CHECK(args_line(moe).find("--expert-model-parallel-size 4") != std::string::npos);
  // dp before ep: Megatron's EP groups are consecutive TP blocks, so they differ.
  const std::string dp_ep = exports::megatron_args(plan_of("tp=2,ep=4,dp=2,order=tp-dp-ep-cp-pp"));
  CHECK(warns(dp_ep));
  CHECK(dp_ep.find("expert-parallel groups differ") != std::string::npos);
  // cp between tp and dp in another order: neither accepted order matches,
  // but initialize_model_parallel(order=...) does.
  const std::string odd = exports::megatron_args(plan_of("tp=2,cp=2,dp=2,order=tp-dp-cp-ep-pp"));
  CHECK(warns(odd));
  CHECK(odd.find("initialize_model_parallel(order=\"tp-dp-cp-ep-pp\")") != std::string::npos);
  // CP and EP together: Megatron folds EP over CP ranks; nothing reproduces it.
  const std::string folded = exports::megatron_args(plan_of("tp=2,cp=2,ep=2,dp=2"));
  CHECK(warns(folded));
  CHECK(folded.find("no Megatron order reproduces") != std::string::npos);
  // The flag form with pp > 1 and cp != ep is rejected by Megatron's assertion.
  const std::string asserted =
      exports::megatron_args(plan_of("tp=2,ep=2,dp=2,pp=2,order=tp-cp-ep-pp-dp"));
  CHECK(warns(asserted));
  // Megatron's own docstring example (16 GPUs, tp=2, pp=4): groups match.
  CHECK_FALSE(warns(exports::megatron_args(plan_of("tp=2,pp=4,dp=2"))));
  // The order railyard picks for a real placement is one Megatron accepts.
  const auto d = cluster("h100-1024");
  auto job = placement::order_ranks(d, plan_of("tp=8,pp=2,dp=4"), testing::host_ids(cases()[0].hosts));
  REQUIRE(job.ok());
  CHECK_FALSE(warns(exports::megatron_args(job->plan)));
}

TEST_CASE("launchers: bad input names the value") {
  const auto d = cluster("h100-1024");
  auto names = names_of(d, topology::kDefaultNodePattern);
  auto job = placement::naive_order(d, plan_of("tp=8,dp=2"), testing::host_ids({9, 3}));
  REQUIRE(job.ok());
  auto message = [](const railyard::StatusOr<std::string>& s) {
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(s.status().message());
  };
  // Too few names for host 9.
  const std::vector<std::string> short_names(names.begin(), names.begin() + 5);
  CHECK(message(exports::hostfile_seq(*job, short_names)).find("hosts=9") != std::string::npos);
  // A name that would break the formats.
  auto spaced = names;
  spaced[3] = "node 3";
  CHECK(message(exports::openmpi_rankfile(*job, spaced)).find("host_name=node 3") != std::string::npos);
  auto empty = names;
  empty[9] = "";
  CHECK(message(exports::torchrun_table(*job, empty)).find("hosts=9") != std::string::npos);
  // Unknown format, bad options.
  CHECK(message(exports::launcher_file("pbs", *job, names)).find("format=pbs") != std::string::npos);
  exports::LaunchOptions opts;
  opts.master_port = 0;
  CHECK(message(exports::rank_env(*job, names, opts)).find("master_port=0") != std::string::npos);
  CHECK(message(exports::torchrun_table(*job, names, opts)).find("master_port=0") != std::string::npos);
  opts = {};
  opts.cores_per_rank = 0;
  CHECK(message(exports::openmpi_rankfile(*job, names, opts)).find("cores_per_rank=0") !=
        std::string::npos);
  // The bounds, checked up front as the plan files do.
  const exports::LaunchOptions widest{.master_port = 65535, .cores_per_rank = 4096};
  const exports::LaunchOptions bad_port{.master_port = 70000, .cores_per_rank = 1};
  const exports::LaunchOptions bad_cores{.master_port = 29500, .cores_per_rank = 5000};
  const exports::LaunchOptions negative{.master_port = -1, .cores_per_rank = 1};
  CHECK(exports::check_launch_options(exports::LaunchOptions{}).ok());
  CHECK(exports::check_launch_options(widest).ok());
  CHECK(railyard::message_of(exports::check_launch_options(bad_port)) ==
        "master_port=70000: must be in [1, 65535]");
  CHECK(railyard::message_of(exports::check_launch_options(bad_cores)) ==
        "cores_per_rank=5000: must be in [1, 4096]");
  CHECK(railyard::has_field(exports::check_launch_options(negative), "master_port"));
  // A placement that is not whole, or repeats a host.
  JobPlacement broken = *job;
  broken.hosts.pop_back();
  CHECK(message(exports::hostfile_slots(broken, names)).find("job=") != std::string::npos);
  JobPlacement twice = *job;
  twice.hosts[1] = twice.hosts[0];
  CHECK(message(exports::slurm_hostfile(twice, names)).find("hosts=9") != std::string::npos);
}

}  // namespace railyard_test_export_launchers_test
