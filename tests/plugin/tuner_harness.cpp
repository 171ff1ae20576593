// The tuner plugin library as NCCL sees it, without NCCL or a GPU: dlopen the
// built libnccl-tuner-railyard.so (RTLD_NOW | RTLD_LOCAL, as NCCL's
// plugin_open.cc), resolve ncclTunerPlugin_v6, _v5, _v4, _v3 with dlsym in
// NCCL's probe order, and drive init -> many getCollInfo -> finalize/destroy
// with NCCL-shaped cost tables (float[numAlgo][numProto] passed as float**,
// numAlgo 6 and 7, -1 entries, regBuff 0 and 1).
//
// This executable also links the shared Abseil (through railyard), as a PyTorch
// process has its own Abseil: the plugin, which contains no Abseil at all, must
// work beside it.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <stdlib.h>

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "railyard/plugin/nccl_tuner_abi.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/tune/model.hpp"
#include "railyard/tune/nccl_model.hpp"

#ifndef RAILYARD_TUNER_LIBRARY
#error "RAILYARD_TUNER_LIBRARY must name the built libnccl-tuner-railyard.so"
#endif

namespace {

namespace nccl = railyard::plugin::nccl;

// ---- NCCL's logger, captured -------------------------------------------------
struct LogRecord {
  nccl::LogLevel level;
  unsigned long flags;
  std::string text;
};
std::vector<LogRecord>& log_records() {
  static std::vector<LogRecord> records;
  return records;
}
extern "C" void capture_log(nccl::LogLevel level, unsigned long flags, const char* /*file*/,
                            int /*line*/, const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  log_records().push_back({level, flags, buf});
}
bool logged(nccl::LogLevel level, const std::string& needle) {
  for (const LogRecord& r : log_records())
    if (r.level == level && (r.flags & nccl::kLogTuning) != 0 &&
        r.text.find(needle) != std::string::npos)
      return true;
  return false;
}

// ---- environment -------------------------------------------------------------
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---- the library, opened as NCCL opens it ------------------------------------
class Library {
 public:
  Library() : handle_(dlopen(RAILYARD_TUNER_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) FAIL("dlopen(" RAILYARD_TUNER_LIBRARY "): ", dlerror());
  }
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  [[nodiscard]] void* symbol(const char* name) const { return dlsym(handle_, name); }

 private:
  void* handle_;
};

// One versioned tuner behind one interface (NCCL's own adapters do the same).
struct Tuner {
  int version = 0;
  const void* table = nullptr;

  [[nodiscard]] const char* name() const { return *static_cast<const char* const*>(table); }
  nccl::Result init(void** ctx, size_t ranks, size_t nodes, nccl::NvlDomainInfoV5* nvl,
                    nccl::TunerConstantsV5* constants, uint64_t comm_id = 0x1234) const {
    switch (version) {
      case 6:
        return static_cast<const nccl::TunerV6*>(table)->init(ctx, comm_id, ranks, nodes,
                                                              capture_log, nvl, constants);
      case 5:
        return static_cast<const nccl::TunerV5*>(table)->init(ctx, comm_id, ranks, nodes,
                                                              capture_log, nvl, constants);
      case 4:
        return static_cast<const nccl::TunerV4*>(table)->init(ranks, nodes, capture_log, ctx);
      default:
        return static_cast<const nccl::TunerV3*>(table)->init(ranks, nodes, capture_log, ctx);
    }
  }
  nccl::Result get(void* ctx, nccl::Func coll, size_t bytes, int pipe_ops, float* cost_table,
                   int num_algo, int num_proto, int reg_buff, int* channels) const {
    auto** t = reinterpret_cast<float**>(cost_table);  // NCCL's (float**)collCostTable
    switch (version) {
      case 6:
        return static_cast<const nccl::TunerV6*>(table)->get_coll_info(
            ctx, coll, bytes, pipe_ops, t, num_algo, num_proto, reg_buff, channels);
      case 5:
        return static_cast<const nccl::TunerV5*>(table)->get_coll_info(
            ctx, coll, bytes, pipe_ops, t, num_algo, num_proto, reg_buff, channels);
      case 4:
        return static_cast<const nccl::TunerV4*>(table)->get_coll_info(
            ctx, coll, bytes, pipe_ops, t, num_algo, num_proto, reg_buff, channels);
      default:
        return static_cast<const nccl::TunerV3*>(table)->get_coll_info(
            ctx, coll, bytes, pipe_ops, t, num_algo, num_proto, channels);
    }
  }
  nccl::Result finalize(void* ctx) const {
    switch (version) {
      case 6:
        return static_cast<const nccl::TunerV6*>(table)->finalize(ctx);
      case 5:
        return static_cast<const nccl::TunerV5*>(table)->finalize(ctx);
      case 4:
        return static_cast<const nccl::TunerV4*>(table)->destroy(ctx);
      default:
        return static_cast<const nccl::TunerV3*>(table)->destroy(ctx);
    }
  }
};

Tuner resolve(const Library& lib, int version) {
  const char* symbol = version == 6   ? nccl::kTunerSymbolV6
                       : version == 5 ? nccl::kTunerSymbolV5
                       : version == 4 ? nccl::kTunerSymbolV4
                                      : nccl::kTunerSymbolV3;
  Tuner t{version, lib.symbol(symbol)};
  REQUIRE_MESSAGE(t.table != nullptr, symbol, " not found");
  return t;
}

// ---- NCCL-shaped cost tables -------------------------------------------------
// Which entries NCCL allows, roughly as its tuning model does: ring everywhere;
// tree only for all-reduce; collnet never (no SHARP here); nvls/nvls_tree simple
// only; PAT simple for all-gather/reduce-scatter; then some entries switched off
// at random (NCCL_ALGO/NCCL_PROTO, LL128 off on a platform). Allowed entries hold
// NCCL's own estimate: a random positive time.
struct CostTable {
  int num_algo = 7;
  int num_proto = nccl::kNumProtocols;
  std::array<float, nccl::kNumAlgorithms * nccl::kNumProtocols> cells{};
  float& at(int a, int p) { return cells[static_cast<size_t>(a * num_proto + p)]; }
  [[nodiscard]] float at(int a, int p) const {
    return cells[static_cast<size_t>(a * num_proto + p)];
  }
};

CostTable nccl_like_table(std::mt19937_64& rng, int num_algo, nccl::Func coll) {
  CostTable t;
  t.num_algo = num_algo;
  std::uniform_real_distribution<float> cost(1.0f, 1e5f);
  std::uniform_int_distribution<int> coin(0, 5);
  const int c = static_cast<int>(coll);
  for (int a = 0; a < num_algo; ++a)
    for (int p = 0; p < t.num_proto; ++p) {
      bool allowed = a == nccl::kAlgoRing ||
                     (a == nccl::kAlgoTree && coll == nccl::Func::kAllReduce) ||
                     ((a == nccl::kAlgoNvls || a == nccl::kAlgoNvlsTree) &&
                      p == nccl::kProtoSimple && coll == nccl::Func::kAllReduce) ||
                     (a == nccl::kAlgoPat && p == nccl::kProtoSimple && (c == 2 || c == 3));
      if (allowed && !(a == nccl::kAlgoRing && p == nccl::kProtoSimple) && coin(rng) == 0)
        allowed = false;  // switched off; ring/simple always stays
      t.at(a, p) = allowed ? cost(rng) : nccl::kAlgoProtoIgnore;
    }
  return t;
}

// The entry NCCL would pick: lowest non-negative cost, first on ties.
std::pair<int, int> pick(const CostTable& t) {
  std::pair<int, int> best{-1, -1};
  float low = 0;
  for (int a = 0; a < t.num_algo; ++a)
    for (int p = 0; p < t.num_proto; ++p) {
      const float v = t.at(a, p);
      if (v < 0) continue;
      if (best.first < 0 || v < low) best = {a, p}, low = v;
    }
  return best;
}

constexpr std::array<int, 4> kVersions = {6, 5, 4, 3};

// init -> `calls` getCollInfo -> finalize; checks every call. Returns how many
// allowed entries the plugin changed.
int64_t drive(const Tuner& tuner, void* ctx, int calls, uint64_t seed, bool expect_untouched) {
  std::mt19937_64 rng(seed);
  int64_t changed = 0;
  for (int i = 0; i < calls; ++i) {
    const auto coll = static_cast<nccl::Func>(i % 8);  // 5..7: send/recv, not tuned
    const int num_algo = i % 3 == 0 ? 6 : 7;           // before / after NCCL 2.23
    const size_t bytes = size_t{1} << (i % 36);        // 1 B .. 32 GiB
    const int reg_buff = (i / 8) % 2;
    const CostTable before = nccl_like_table(rng, num_algo, coll);
    CostTable after = before;
    int channels = 0;
    REQUIRE(tuner.get(ctx, coll, bytes, 1 + i % 4, after.cells.data(), num_algo, after.num_proto,
                      reg_buff, &channels) == nccl::Result::kSuccess);
    CHECK(channels == 0);  // no rule: NCCL decides
    if (expect_untouched || static_cast<int>(coll) >= nccl::kNumTunedFunctions) {
      REQUIRE(std::memcmp(before.cells.data(), after.cells.data(), sizeof before.cells) == 0);
      continue;
    }
    for (int a = 0; a < num_algo; ++a)
      for (int p = 0; p < before.num_proto; ++p) {
        const float b = before.at(a, p), v = after.at(a, p);
        if (b < 0) {
          REQUIRE(std::memcmp(&b, &v, sizeof b) == 0);  // -1 stays -1, bit for bit
        } else {
          REQUIRE(std::isfinite(v));
          REQUIRE(v > 0.0f);  // a prediction, never "not allowed", never forced
          changed += v != b;
        }
      }
    // Untouched beyond numAlgo x numProto.
    for (size_t k = static_cast<size_t>(num_algo * before.num_proto); k < before.cells.size(); ++k)
      REQUIRE(std::memcmp(&before.cells[k], &after.cells[k], sizeof(float)) == 0);
    const auto [a, p] = pick(after);
    REQUIRE(a >= 0);
    CHECK(before.at(a, p) >= 0.0f);  // NCCL ends up on an allowed entry
  }
  return changed;
}

constexpr const char* kCluster = "h100-1024-2to1";

// NCCL 2.30's default constants, as NCCL hands them to a v5/v6 init.
nccl::TunerConstantsV5 nccl_constants() {
  const railyard::tune::NcclConstants k =
      railyard::tune::nccl_release_constants(railyard::tune::NcclRelease::k2_30);
  nccl::TunerConstantsV5 out;
  static_assert(sizeof out == sizeof k);
  std::memcpy(&out, &k, sizeof out);
  return out;
}

}  // namespace

TEST_CASE("tuner_harness: NCCL's probe order finds v6 first, and every version is exported") {
  Library lib;
  const void* first = nullptr;
  for (const char* symbol : nccl::kTunerSymbolsInProbeOrder) {
    void* s = lib.symbol(symbol);
    CHECK_MESSAGE(s != nullptr, symbol);
    if (first == nullptr) first = s;
  }
  CHECK(first == lib.symbol("ncclTunerPlugin_v6"));
  CHECK(lib.symbol("ncclTunerPlugin_v2") == nullptr);
  for (int v : kVersions) {
    const Tuner t = resolve(lib, v);
    CHECK(std::string(t.name()) == "railyard");
  }
  // v6's getChunkSize is optional; railyard leaves chunking to NCCL.
  const bool no_chunk_size =
      static_cast<const nccl::TunerV6*>(lib.symbol("ncclTunerPlugin_v6"))->get_chunk_size ==
      nullptr;
  CHECK(no_chunk_size);
  CHECK(absl::StrCat("host ", 3) == "host 3");  // this process's own Abseil still works
}

TEST_CASE("tuner_harness: every version scales allowed entries and never touches -1 ones") {
  Library lib;
  ScopedEnv cluster("RAILYARD_CLUSTER", kCluster);
  ScopedEnv file("RAILYARD_CLUSTER_FILE", std::nullopt);
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", std::nullopt);
  ScopedEnv hosts("RAILYARD_HOSTS", std::nullopt);
  ScopedEnv digest("RAILYARD_TUNER_DIGEST", std::nullopt);
  for (int v : kVersions) {
    CAPTURE(v);
    log_records().clear();
    const Tuner t = resolve(lib, v);
    void* ctx = nullptr;
    nccl::NvlDomainInfoV5 nvl{64, 8, 8};
    nccl::TunerConstantsV5 constants = nccl_constants();
    const nccl::TunerConstantsV5 constants_before = constants;
    // 512 ranks on hosts 0-63: two SUs, so rings and trees cross the spine.
    REQUIRE(t.init(&ctx, 512, 64, &nvl, &constants) == nccl::Result::kSuccess);
    REQUIRE(ctx != nullptr);
    CHECK(std::memcmp(&constants, &constants_before, sizeof constants) == 0);
    CHECK(logged(nccl::LogLevel::kInfo, "railyard tuner: comm"));
    CHECK(logged(nccl::LogLevel::kInfo, kCluster));
    CHECK(logged(nccl::LogLevel::kInfo,
                 v >= 5 ? "NCCL's constants" : v == 4 ? "NCCL 2.27 default" : "NCCL 2.23 default"));
    CHECK_FALSE(logged(nccl::LogLevel::kWarn, ""));
    const int64_t changed = drive(t, ctx, 4000, 17 + static_cast<uint64_t>(v), false);
    CHECK(changed > 1000);
    CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
  }
}

TEST_CASE("tuner_harness: a broken or missing input fails init, loudly, on every version") {
  Library lib;
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", std::nullopt);
  ScopedEnv hosts("RAILYARD_HOSTS", std::nullopt);
  ScopedEnv digest("RAILYARD_TUNER_DIGEST", std::nullopt);
  struct Case {
    std::optional<std::string> cluster, file;
    size_t ranks, nodes;
    std::string warning;  // part of the WARN line
  };
  const Case cases[] = {
      {"rail_fat_tree:hosts=banana", std::nullopt, 64, 8, "hosts=banana"},
      {"no-such-preset", std::nullopt, 64, 8, "no-such-preset"},
      {std::nullopt, "/nonexistent/railyard-cluster.txt", 64, 8, "cannot open"},
      {std::nullopt, std::nullopt, 64, 8, "neither RAILYARD_CLUSTER nor RAILYARD_CLUSTER_FILE"},
      {kCluster, std::nullopt, 2048, 256, "exceed the cluster's 128 hosts"},
      {kCluster, std::nullopt, 640, 8, "ranks per node exceed"},
  };
  for (const Case& c : cases) {
    ScopedEnv cluster("RAILYARD_CLUSTER", c.cluster);
    ScopedEnv file("RAILYARD_CLUSTER_FILE", c.file);
    for (int v : kVersions) {
      CAPTURE(v);
      CAPTURE(c.warning);
      log_records().clear();
      const Tuner t = resolve(lib, v);
      void* ctx = nullptr;
      nccl::NvlDomainInfoV5 nvl{static_cast<int>(c.nodes), 8, 8};
      nccl::TunerConstantsV5 constants = nccl_constants();
      CHECK(t.init(&ctx, c.ranks, c.nodes, &nvl, &constants) == nccl::Result::kInvalidUsage);
      REQUIRE(ctx != nullptr);  // NCCL may still call finalize
      CHECK(logged(nccl::LogLevel::kWarn, c.warning));
      CHECK(logged(nccl::LogLevel::kWarn, "failing this communicator's init"));
      CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
    }
  }
}

// N ranks of one communicator, each with its own environment, run in turn
// through the library as NCCL runs them: init, then the same sequence of
// getCollInfo calls on the same NCCL tables. Every rank's picks are recorded.
struct RankRun {
  bool init_ok = false;
  std::vector<std::pair<int, int>> picks;
  std::vector<float> costs;  // every table as the rank handed it back to NCCL
};
struct RankEnv {
  std::optional<std::string> cluster, cluster_file, rules_file, hosts, digest;
};
RankRun run_rank(const Library& lib, const RankEnv& e) {
  ScopedEnv cluster("RAILYARD_CLUSTER", e.cluster);
  ScopedEnv file("RAILYARD_CLUSTER_FILE", e.cluster_file);
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", e.rules_file);
  ScopedEnv hosts("RAILYARD_HOSTS", e.hosts);
  ScopedEnv digest("RAILYARD_TUNER_DIGEST", e.digest);
  const Tuner t = resolve(lib, 6);
  void* ctx = nullptr;
  nccl::NvlDomainInfoV5 nvl{64, 8, 8};
  nccl::TunerConstantsV5 constants = nccl_constants();
  RankRun run;
  run.init_ok = t.init(&ctx, 512, 64, &nvl, &constants) == nccl::Result::kSuccess;
  if (run.init_ok) {
    std::mt19937_64 rng(7);  // NCCL's tables: the same on every rank
    for (int i = 0; i < 600; ++i) {
      const auto coll = static_cast<nccl::Func>(i % 5);
      CostTable table = nccl_like_table(rng, 7, coll);
      int channels = 0;
      REQUIRE(t.get(ctx, coll, size_t{1} << (i % 34), 1 + i % 3, table.cells.data(), 7, 3, 0,
                    &channels) == nccl::Result::kSuccess);
      run.picks.push_back(pick(table));
      run.costs.insert(run.costs.end(), table.cells.begin(), table.cells.end());
    }
  }
  CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
  return run;
}

TEST_CASE("tuner_harness: eight ranks, one misconfigured: they never disagree silently") {
  Library lib;
  const std::string cluster_path = "tuner_harness_cluster.txt";
  const std::string other_cluster_path = "tuner_harness_cluster_other.txt";
  const std::string rules_path = "tuner_harness_ranks.conf";
  const std::string other_rules_path = "tuner_harness_ranks_other.conf";
  const std::string bad_rules_path = "tuner_harness_ranks_bad.conf";
  std::ofstream(cluster_path) << "# the job's cluster\nh100-1024-2to1\n";
  std::ofstream(other_cluster_path) << "rail_fat_tree:hosts=128,tiers=3,sus_per_pod=1\n";
  const std::string rules = "allreduce,0,65536,tree,ll,-1,-1,-1\n";
  std::ofstream(rules_path) << rules;
  std::ofstream(other_rules_path) << "allreduce,0,65536,ring,ll,-1,-1,-1\n";
  std::ofstream(bad_rules_path) << rules << "allreduce,0,65536,tree,ll,-1,-1\n";
  const std::string hosts = "0-31,64-95";
  auto spec = railyard::topology::parse_cluster("h100-1024-2to1");
  REQUIRE(spec.ok());
  auto digest = railyard::tune::tuner_input_digest(railyard::topology::to_spec_string(*spec),
                                                   hosts, rules);
  REQUIRE(digest.ok());
  // What every rank is given, as `railyard plan --out` writes it (nccl.env).
  const RankEnv good{std::nullopt, cluster_path, rules_path, hosts,
                     railyard::tune::format_digest(*digest)};
  struct Broken {
    std::string what;
    RankEnv env;
  };
  std::vector<Broken> broken;
  auto with = [&](std::string what, auto change) {
    RankEnv e = good;
    change(e);
    broken.push_back({std::move(what), e});
  };
  with("cluster file missing on the node", [](RankEnv& e) { e.cluster_file = "/nonexistent/c"; });
  with("no cluster variable", [](RankEnv& e) { e.cluster_file.reset(); });
  with("another cluster in the node's file",
       [&](RankEnv& e) { e.cluster_file = other_cluster_path; });
  with("another cluster in the environment", [](RankEnv& e) {
    e.cluster_file.reset();
    e.cluster = "h100-1024";
  });
  with("rules file missing", [](RankEnv& e) { e.rules_file = "/nonexistent/rules"; });
  with("other rules", [&](RankEnv& e) { e.rules_file = other_rules_path; });
  with("a rule line NCCL's example tuner would skip",
       [&](RankEnv& e) { e.rules_file = bad_rules_path; });
  with("no rules file", [](RankEnv& e) { e.rules_file.reset(); });
  with("other hosts", [](RankEnv& e) { e.hosts = "0-63"; });
  with("no host list", [](RankEnv& e) { e.hosts.reset(); });
  with("a malformed host list", [](RankEnv& e) { e.hosts = "0-31,x"; });
  with("another digest", [](RankEnv& e) { e.digest = "0000000000000000"; });
  with("a malformed digest", [](RankEnv& e) { e.digest = "railyard"; });

  const RankRun reference = run_rank(lib, good);
  REQUIRE(reference.init_ok);
  for (const Broken& b : broken) {
    CAPTURE(b.what);
    std::vector<RankRun> ranks;
    for (int r = 0; r < 8; ++r) ranks.push_back(run_rank(lib, r == 3 ? b.env : good));
    bool any_failed = false, all_agree = true;
    for (const RankRun& r : ranks) {
      any_failed = any_failed || !r.init_ok;
      if (r.init_ok)
        all_agree = all_agree && r.picks == reference.picks && r.costs == reference.costs;
    }
    // Loud (NCCL fails the communicator) or in agreement: never silent divergence.
    CHECK((any_failed || all_agree));
    CHECK(any_failed);  // each of these is a misconfiguration the digest or a check catches
  }
  // Without RAILYARD_TUNER_DIGEST a node whose cluster file says something else
  // hands NCCL other costs (and, where NCCL's own are close, other picks); that
  // is why the deployment (plan --out) sets it.
  RankEnv no_digest = good;
  no_digest.digest.reset();
  RankEnv other = no_digest;
  other.cluster_file = other_cluster_path;
  const RankRun a = run_rank(lib, no_digest), b = run_rank(lib, other);
  CHECK((a.init_ok && b.init_ok));
  CHECK(a.costs != b.costs);
  for (const std::string& p :
       {cluster_path, other_cluster_path, rules_path, other_rules_path, bad_rules_path})
    std::remove(p.c_str());
}

TEST_CASE("tuner_harness: two communicators in one process keep separate state") {
  Library lib;
  ScopedEnv cluster("RAILYARD_CLUSTER", kCluster);
  ScopedEnv file("RAILYARD_CLUSTER_FILE", std::nullopt);
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", std::nullopt);
  ScopedEnv hosts("RAILYARD_HOSTS", std::nullopt);
  ScopedEnv digest("RAILYARD_TUNER_DIGEST", std::nullopt);
  for (int v : kVersions) {
    CAPTURE(v);
    const Tuner t = resolve(lib, v);
    void *small = nullptr, *large = nullptr;
    nccl::NvlDomainInfoV5 nvl_small{2, 8, 8}, nvl_large{64, 8, 8};
    REQUIRE(t.init(&small, 16, 2, &nvl_small, nullptr, 1) == nccl::Result::kSuccess);
    auto tree_cost = [&](void* ctx) {
      CostTable table;
      table.cells.fill(100.0f);
      int channels = 0;
      REQUIRE(t.get(ctx, nccl::Func::kAllReduce, size_t{1} << 20, 1, table.cells.data(), 7, 3, 0,
                    &channels) == nccl::Result::kSuccess);
      return std::pair<float, float>{table.at(nccl::kAlgoTree, nccl::kProtoSimple),
                                     table.at(nccl::kAlgoRing, nccl::kProtoSimple)};
    };
    const auto small_alone = tree_cost(small);
    REQUIRE(t.init(&large, 512, 64, &nvl_large, nullptr, 2) == nccl::Result::kSuccess);
    REQUIRE(small != large);
    const auto large_cost = tree_cost(large);
    const auto small_again = tree_cost(small);
    CHECK(small_again == small_alone);              // the second communicator changed nothing
    CHECK(large_cost.first > small_alone.first);    // more tree levels
    CHECK(large_cost.second > small_alone.second);  // more ring steps
    CHECK(t.finalize(large) == nccl::Result::kSuccess);
    CHECK(tree_cost(small) == small_alone);
    CHECK(t.finalize(small) == nccl::Result::kSuccess);
  }
}

TEST_CASE("tuner_harness: NCCL_TUNER_CONFIG_FILE rules force entries and set channels") {
  const std::string path = "tuner_harness_rules.conf";
  {
    std::ofstream out(path);
    out << "# railyard harness rules\n"
           "allreduce,0,65536,tree,ll,4,-1,-1\n"
           "allgather,0,-1,ring,simple,-1,64,512,-1,1\n";
  }
  Library lib;
  ScopedEnv cluster("RAILYARD_CLUSTER", kCluster);
  ScopedEnv file("RAILYARD_CLUSTER_FILE", std::nullopt);
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", path);
  ScopedEnv hosts("RAILYARD_HOSTS", std::nullopt);
  for (int v : kVersions) {
    CAPTURE(v);
    log_records().clear();
    const Tuner t = resolve(lib, v);
    void* ctx = nullptr;
    nccl::NvlDomainInfoV5 nvl{64, 8, 8};
    nccl::TunerConstantsV5 constants = nccl_constants();
    REQUIRE(t.init(&ctx, 512, 64, &nvl, &constants) == nccl::Result::kSuccess);
    CHECK(logged(nccl::LogLevel::kInfo, "2 of 2 rules"));
    CostTable table;
    table.cells.fill(50.0f);
    int channels = 0;
    REQUIRE(t.get(ctx, nccl::Func::kAllReduce, 4096, 1, table.cells.data(), 7, 3, 1, &channels) ==
            nccl::Result::kSuccess);
    CHECK(table.at(nccl::kAlgoTree, nccl::kProtoLl) == 0.0f);
    CHECK(channels == 4);
    CHECK(pick(table) == std::pair<int, int>{nccl::kAlgoTree, nccl::kProtoLl});
    // Tree/LL not allowed by NCCL: the rule cannot apply, the -1 stays.
    table.cells.fill(50.0f);
    table.at(nccl::kAlgoTree, nccl::kProtoLl) = nccl::kAlgoProtoIgnore;
    channels = 0;
    REQUIRE(t.get(ctx, nccl::Func::kAllReduce, 4096, 1, table.cells.data(), 7, 3, 1, &channels) ==
            nccl::Result::kSuccess);
    CHECK(table.at(nccl::kAlgoTree, nccl::kProtoLl) == nccl::kAlgoProtoIgnore);
    CHECK(channels == 0);
    // regBuff=1 rule: applies on v4+ with regBuff 1; v3 has no regBuff (unknown).
    table.cells.fill(50.0f);
    REQUIRE(t.get(ctx, nccl::Func::kAllGather, size_t{1} << 30, 1, table.cells.data(), 7, 3, 1,
                  &channels) == nccl::Result::kSuccess);
    CHECK((table.at(nccl::kAlgoRing, nccl::kProtoSimple) == 0.0f) == (v != 3));
    CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
  }
  // A line NCCL's example tuner would skip fails init: another node's file
  // without it would make the ranks disagree.
  {
    std::ofstream out(path, std::ios::app);
    out << "alreduce,0,65536,ring,ll,4,-1,-1\n";
  }
  for (int v : kVersions) {
    log_records().clear();
    const Tuner t = resolve(lib, v);
    void* ctx = nullptr;
    CHECK(t.init(&ctx, 512, 64, nullptr, nullptr) == nccl::Result::kInvalidUsage);
    CHECK(logged(nccl::LogLevel::kWarn, "line 4: token 'alreduce'"));
    CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
  }
  std::remove(path.c_str());
}

TEST_CASE("tuner_harness: the library survives NCCL's unload and reload") {
  ScopedEnv cluster("RAILYARD_CLUSTER", kCluster);
  ScopedEnv file("RAILYARD_CLUSTER_FILE", std::nullopt);
  ScopedEnv rules("NCCL_TUNER_CONFIG_FILE", std::nullopt);
  ScopedEnv hosts("RAILYARD_HOSTS", std::nullopt);
  for (int round = 0; round < 3; ++round) {
    Library lib;
    const Tuner t = resolve(lib, 6);
    void* ctx = nullptr;
    REQUIRE(t.init(&ctx, 64, 8, nullptr, nullptr) == nccl::Result::kSuccess);
    drive(t, ctx, 200, static_cast<uint64_t>(round), false);
    CHECK(t.finalize(ctx) == nccl::Result::kSuccess);
  }
}
