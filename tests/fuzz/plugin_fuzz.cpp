// Fuzz targets for railyard's plugin boundaries, called in process the way
// NCCL and a net plugin call them: the tuner's rule file (tuner_rules), the
// tuner's C-ABI entry points v3..v6 (tuner_abi) and the path advisor's C API
// (advisor).
//
// The input is decoded into arguments (extreme values included) by a small
// byte reader. Each call's result is checked against the documented contract
// and against a prediction made here: which communicators get a model, which
// cost-table cells change and to what, which rule wins, which advisor calls
// fail and with which field named. Cost tables keep every negative (disabled)
// cell bit for bit; written cells are finite and non-negative; init/destroy
// pairs leak nothing (ASan's leak checker runs with the fuzzer).
//
// No process-wide state changes between inputs: the cluster reaches the tuner
// through TunerEnvironment (not setenv), and the v3/v5 adapters that read the
// real environment are only checked for properties that hold whatever it is.
#define RAILYARD_ADVISOR_IMPLEMENTATION
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fuzz_target.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/plugin/advisor.hpp"
#include "railyard/plugin/nccl_tuner_abi.hpp"
#include "railyard/plugin/tuner.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace {

using railyard::fuzz::kMaxInput;

namespace rp = railyard::plugin;
namespace nccl = railyard::plugin::nccl;
namespace rt = railyard::tune;
namespace topology = railyard::topology;
using railyard::str_cat;

// Clusters above this many GPUs are skipped: the advisor materializes the
// fabric and the tuner walks every node of the communicator.
constexpr int64_t kMaxGpus = 4096;

// Reads arguments off the fuzzer's bytes; past the end everything is zero.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  [[nodiscard]] bool empty() const { return bytes_.empty(); }
  uint8_t u8() {
    if (bytes_.empty()) return 0;
    const auto b = static_cast<uint8_t>(bytes_.front());
    bytes_.remove_prefix(1);
    return b;
  }
  uint32_t u32() { return static_cast<uint32_t>(u16()) << 16 | u16(); }
  uint64_t u64() { return static_cast<uint64_t>(u32()) << 32 | u32(); }
  // Mostly small values in [0, small), sometimes the edges of the type.
  int64_t signed_value(int64_t small) {
    const uint8_t shape = u8();
    switch (shape % 8) {
      case 0:
        return -1;
      case 1:
        return static_cast<int32_t>(u32());  // any int32
      case 2:
        return shape & 0x80 ? std::numeric_limits<int32_t>::max()
                            : std::numeric_limits<int32_t>::min();
      case 3:
        return -static_cast<int64_t>(u8());
      default:
        return small > 0 ? static_cast<int64_t>(u16() % static_cast<uint64_t>(small)) : 0;
    }
  }
  int32_t int32(int64_t small) { return static_cast<int32_t>(signed_value(small)); }
  // Sizes NCCL passes: 0, small, powers of two, huge, SIZE_MAX.
  size_t size(size_t small) {
    const uint8_t shape = u8();
    switch (shape % 6) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<size_t>::max() - (shape >> 3);
      case 2:
        return size_t{1} << (shape >> 2);  // up to 2^63
      case 3:
        return u64();
      default:
        return small > 0 ? u16() % small : 0;
    }
  }
  // Up to `max` bytes of text, length first.
  std::string text(size_t max) {
    const size_t n = std::min<size_t>({u8(), max, bytes_.size()});
    std::string out(bytes_.substr(0, n));
    bytes_.remove_prefix(n);
    return out;
  }

 private:
  uint16_t u16() { return static_cast<uint16_t>(u8() << 8 | u8()); }
  std::string_view bytes_;
};

// The GPUs of a spec, or nullopt when it is no valid cluster.
std::optional<int64_t> gpus_of(std::string_view spec) {
  const auto s = topology::parse_cluster(spec);
  if (!s.ok()) return std::nullopt;
  const auto d = topology::make_descriptor(*s);
  if (!d.ok()) return std::nullopt;
  return d->gpus();
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Small clusters of every kind (rail, ToR, rail-only, multi-plane, 3 tiers,
// NVLink domains across hosts) the ABI targets pick from.
constexpr std::array<const char*, 7> kSmallClusters = {
    "rail_fat_tree:hosts=16,hosts_per_su=4",
    "tor_fat_tree:hosts=8,hosts_per_su=4",
    "rail_fat_tree:hosts=8,gpus_per_host=4,nics_per_host=4,hosts_per_su=4,scale_up=8",
    "rail_fat_tree:hosts=16,hosts_per_su=2,tiers=3,sus_per_pod=2,nic_gbps=200,planes=2",
    "rail_only:hosts=8,hosts_per_su=8,switch_radix=8",
    "rail_fat_tree:hosts=32,hosts_per_su=8,oversub=2:1,gpus_per_host=2,nics_per_host=2",
    "h100-1024-2to1",
};
constexpr std::array<const char*, 4> kBadClusters = {
    "rail_fat_tree:hosts=0", "", "# two specs\nh100-1024\nh100-1024-tor\n", "banana"};

// ---- the tuner's cost-table contract ------------------------------------------

// A rule that parse_tuning_rules accepted, as fill_cost_table must apply it.
bool rule_matches(const rt::TuningRule& r, int coll, size_t bytes, int pipe_ops, int reg_buff) {
  return r.coll == coll && bytes >= r.min_bytes && bytes <= r.max_bytes &&
         (r.pipe_ops == -1 || r.pipe_ops == pipe_ops) &&
         (r.reg_buff == -1 || r.reg_buff == reg_buff);
}

// Checks one fill_cost_table call against the contract: cells NCCL disabled
// (negative) and cells outside the first min(algos, 7) x min(protos, 3) keep
// their bits; a modeled cell becomes alpha + bytes x beta; the first matching
// rule whose cell is allowed forces it to 0 and sets *nChannels (unless -1).
void check_fill(const rt::TunerCore* core, const std::vector<rt::TuningRule>& rules, int coll,
                size_t bytes, int pipe_ops, int reg_buff, int num_algo, int num_proto,
                const std::vector<float>& before, const std::vector<float>& after,
                int channels_before, int channels_after) {
  RAILYARD_FUZZ_CHECK(before.size() == after.size());
  const bool tuned = core != nullptr && coll >= 0 && coll < nccl::kNumTunedFunctions &&
                     num_algo > 0 && num_proto > 0 && !before.empty();
  int forced = -1;
  int expected_channels = channels_before;
  if (tuned)
    for (const rt::TuningRule& r : rules) {
      if (!rule_matches(r, coll, bytes, pipe_ops, reg_buff) || r.algo >= num_algo ||
          r.proto >= num_proto)
        continue;
      const int cell = r.algo * num_proto + r.proto;
      if (before[static_cast<size_t>(cell)] < 0.0f) continue;
      forced = cell;
      if (r.channels != -1) expected_channels = r.channels;
      break;
    }
  RAILYARD_FUZZ_CHECK(channels_after == expected_channels,
                      "*nChannels is set by the winning rule only");
  for (size_t i = 0; i < before.size(); ++i) {
    const int a = num_proto > 0 ? static_cast<int>(i) / num_proto : 0;
    const int p = num_proto > 0 ? static_cast<int>(i) % num_proto : 0;
    if (before[i] < 0.0f) {
      RAILYARD_FUZZ_CHECK(same_bits(before[i], after[i]), "disabled cells stay disabled");
      continue;
    }
    if (!same_bits(before[i], after[i]))
      RAILYARD_FUZZ_CHECK(std::isfinite(after[i]) && after[i] >= 0.0f,
                          "written costs are finite and non-negative");
    if (static_cast<int>(i) == forced) {
      RAILYARD_FUZZ_CHECK(after[i] == 0.0f, "the winning rule forces its cell");
      continue;
    }
    const bool in_model = tuned && a < std::min(num_algo, nccl::kNumAlgorithms) &&
                          p < std::min(num_proto, nccl::kNumProtocols);
    const float scale = in_model ? core->scale(coll, a, p, bytes, pipe_ops) : 1.0f;
    if (in_model && before[i] > 0.0f && std::isfinite(before[i]) && scale != 1.0f) {
      const float scaled = before[i] * scale;
      RAILYARD_FUZZ_CHECK(
          same_bits(after[i], std::isfinite(scaled) ? scaled : std::numeric_limits<float>::max()),
          "an allowed cell is NCCL's cost times railyard's ratio (at most FLT_MAX)");
    } else {
      RAILYARD_FUZZ_CHECK(same_bits(before[i], after[i]),
                          "forced, unscaled and uncovered cells keep NCCL's value");
    }
  }
}

// Every ratio the model applies is finite and positive, whatever NCCL's
// constants were.
void check_model(const rt::TunerCore& core) {
  for (int c = 0; c < nccl::kNumTunedFunctions; ++c)
    for (int a = 0; a < nccl::kNumAlgorithms; ++a)
      for (int p = 0; p < nccl::kNumProtocols; ++p)
        for (size_t bytes : {size_t{0}, size_t{1} << 10, size_t{1} << 30})
          for (int ops : {1, 9}) {
            const float r = core.scale(c, a, p, bytes, ops);
            RAILYARD_FUZZ_CHECK(std::isfinite(r) && r > 0.0f, "ratios are finite and positive");
          }
}

}  // namespace

// parse_tuning_rules: every non-blank, non-comment line is a rule or one
// warning naming the line and (for a bad field) a token of that line; rules
// have their fields in the documented ranges and read back from their own
// line; then TunerCore applies exactly those rules over small NCCL tables with
// disabled cells (first matching allowed rule wins, -1 cells untouched).
RAILYARD_FUZZ_TARGET(tuner_rules) {
  if (input.size() > kMaxInput) return;
  const rt::TuningRules parsed = rt::parse_tuning_rules(input);
  const std::vector<std::string_view> lines = railyard::split(input, '\n');
  std::vector<int32_t> content_lines;  // 1-based numbers of lines that are not blank or comments
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = rt::detail::rule_trim(lines[i]);
    if (!t.empty() && t.front() != '#') content_lines.push_back(static_cast<int32_t>(i + 1));
  }
  RAILYARD_FUZZ_CHECK(parsed.rules.size() + parsed.warnings.size() == content_lines.size(),
                      "each line is a rule or a warning");
  std::vector<int32_t> seen;
  for (const rt::TuningRule& r : parsed.rules) seen.push_back(r.line);
  for (const std::string& w : parsed.warnings) {
    const size_t colon = w.find(':');
    RAILYARD_FUZZ_CHECK(w.rfind("line ", 0) == 0 && colon != std::string::npos);
    int32_t n = 0;
    for (size_t i = 5; i < colon && n < (1 << 28); ++i) {
      RAILYARD_FUZZ_CHECK(railyard::is_digit(w[i]), "warnings start with the line number");
      n = n * 10 + (w[i] - '0');
    }
    seen.push_back(n);
    RAILYARD_FUZZ_CHECK(w.size() >= 14 && w.substr(w.size() - 14) == "; line ignored");
    RAILYARD_FUZZ_CHECK(n >= 1 && static_cast<size_t>(n) <= lines.size());
    if (w.compare(colon, 9, ": token '") == 0) {
      const size_t close_quote = w.find("' (", colon + 9);
      RAILYARD_FUZZ_CHECK(close_quote != std::string::npos);
      const std::string token = w.substr(colon + 9, close_quote - colon - 9);
      RAILYARD_FUZZ_CHECK(lines[static_cast<size_t>(n - 1)].find(token) != std::string_view::npos,
                          "the token is quoted from its line");
    }
  }
  std::sort(seen.begin(), seen.end());
  RAILYARD_FUZZ_CHECK(seen == content_lines, "rules and warnings cover each line once");

  for (const rt::TuningRule& r : parsed.rules) {
    RAILYARD_FUZZ_CHECK(r.coll >= 0 && r.coll < nccl::kNumTunedFunctions);
    RAILYARD_FUZZ_CHECK(r.algo >= 0 && r.algo < nccl::kNumAlgorithms);
    RAILYARD_FUZZ_CHECK(r.proto >= 0 && r.proto < nccl::kNumProtocols);
    RAILYARD_FUZZ_CHECK(r.min_bytes <= r.max_bytes);
    RAILYARD_FUZZ_CHECK(r.channels >= -1 && r.channels <= 64);
    RAILYARD_FUZZ_CHECK(r.nodes == -1 || r.nodes >= 1);
    RAILYARD_FUZZ_CHECK(r.ranks == -1 || r.ranks >= 1);
    RAILYARD_FUZZ_CHECK(r.pipe_ops >= -1);
    RAILYARD_FUZZ_CHECK(r.reg_buff >= -1 && r.reg_buff <= 1);
    const rt::TuningRules again = rt::parse_tuning_rules(rt::format_tuning_rule(r));
    RAILYARD_FUZZ_CHECK(again.warnings.empty() && again.rules.size() == 1);
    rt::TuningRule expected = r;
    expected.line = 1;
    RAILYARD_FUZZ_CHECK(again.rules[0] == expected, "a rule reads back from its own line");
  }

  // Two communicators of a small cluster: rules for other nNodes/nRanks drop out.
  struct Comm {
    int64_t ranks, nodes;
  };
  for (const Comm comm : {Comm{32, 4}, Comm{8, 1}}) {
    rt::TunerOptions o;
    o.cluster = kSmallClusters[0];
    o.ranks = comm.ranks;
    o.nodes = comm.nodes;
    o.rules = input;
    const auto core = rt::TunerCore::create(o);
    RAILYARD_FUZZ_CHECK(core.ok(), "rules never make create fail");
    RAILYARD_FUZZ_CHECK(core->rules_parsed() == static_cast<int32_t>(parsed.rules.size()));
    RAILYARD_FUZZ_CHECK(core->warnings() == parsed.warnings);
    std::vector<rt::TuningRule> applicable;
    for (const rt::TuningRule& r : parsed.rules)
      if ((r.nodes == -1 || r.nodes == comm.nodes) && (r.ranks == -1 || r.ranks == comm.ranks))
        applicable.push_back(r);
    RAILYARD_FUZZ_CHECK(core->rules() == applicable, "rules for this communicator, in file order");
    check_model(*core);

    // Per collective: byte counts at and around the bounds of its first
    // rules, and the extremes; numPipeOps 1 and the first rule's; regBuff
    // -1, 0, 1 and the pattern of disabled cells varying with the round.
    int round = 0;
    for (int coll = 0; coll < nccl::kNumTunedFunctions; ++coll) {
      std::vector<size_t> sizes = {0, 4096, std::numeric_limits<size_t>::max()};
      int pipe_ops_second = 2;
      int used = 0;
      for (const rt::TuningRule& r : applicable) {
        if (r.coll != coll || used == 2) continue;
        ++used;
        for (uint64_t b : {r.min_bytes, r.max_bytes}) sizes.insert(sizes.end(), {b - 1, b, b + 1});
        if (used == 1) pipe_ops_second = std::max(r.pipe_ops, 0);
      }
      for (size_t bytes : sizes)
        for (int pipe_ops : {1, pipe_ops_second}) {
          const int reg_buff = round % 3 - 1;
          const int num_algo = round % 2 == 0 ? 7 : 6;
          std::vector<float> table(static_cast<size_t>(num_algo * 3));
          for (size_t i = 0; i < table.size(); ++i) {
            const bool off = round % 5 == 1 ? i % 2 == 0 : round % 5 == 3 ? i % 5 != 0 : false;
            table[i] = off ? nccl::kAlgoProtoIgnore : 1000.0f + static_cast<float>(i);
          }
          const std::vector<float> before = table;
          int channels = 0;
          core->fill_cost_table(static_cast<nccl::Func>(coll), bytes, pipe_ops, table.data(),
                                num_algo, 3, reg_buff, &channels);
          check_fill(&*core, applicable, coll, bytes, pipe_ops, reg_buff, num_algo, 3, before,
                     table, 0, channels);
          ++round;
        }
    }
  }
}

namespace {

// ---- tuner_abi --------------------------------------------------------------------

// NCCL's logger, captured per input (cleared at the start of each input).
struct LogLine {
  nccl::LogLevel level;
  unsigned long flags;
  std::string text;
};
std::vector<LogLine>& tuner_log() {
  static std::vector<LogLine> lines;
  return lines;
}
extern "C" void capture_tuner_log(nccl::LogLevel level, unsigned long flags, const char* /*file*/,
                                  int /*line*/, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tuner_log().push_back({level, flags, buf});
}

// The one spec line of a cluster file's text (blank lines and '#' lines
// skipped), or nullopt when there is not exactly one.
std::optional<std::string> spec_line(std::string_view text) {
  std::optional<std::string> line;
  for (std::string_view raw : railyard::split(text, '\n')) {
    const std::string_view t = rt::detail::rule_trim(raw);
    if (t.empty() || t.front() == '#') continue;
    if (line) return std::nullopt;
    line = std::string(t);
  }
  return line;
}

// Whether TunerCore::create accepts this communicator, predicted from its
// documented rules: one spec line, nRanks in [1, 2^30] (NCCL's size_t is
// clamped to 2^40 first), nNodes in [1, nRanks]; ranks per node (raised to
// NCCL's max ranks per NVLink domain when given) at most a host's GPUs, or with
// multi-node NVLink at most one NVLink domain, whose hosts the nodes then take;
// RAILYARD_HOSTS, when it has one entry per host the nodes take, inside the
// cluster and each node's hosts in one NVLink domain (another length: ignored).
bool tuner_should_model(const std::optional<std::string>& cluster,
                        const std::optional<std::string>& hosts_env, size_t n_ranks,
                        size_t n_nodes, const nccl::NvlDomainInfoV5* nvl) {
  if (!cluster) return false;
  const std::optional<std::string> line = spec_line(*cluster);
  if (!line) return false;
  const auto spec = topology::parse_cluster(*line);
  if (!spec.ok()) return false;
  const auto d = topology::make_descriptor(*spec);
  if (!d.ok()) return false;
  const auto ranks = static_cast<int64_t>(std::min<size_t>(n_ranks, size_t{1} << 40));
  const auto nodes = static_cast<int64_t>(std::min<size_t>(n_nodes, size_t{1} << 40));
  if (ranks < 1 || ranks > (int64_t{1} << 30) || nodes < 1 || nodes > ranks) return false;
  int64_t per_node = (ranks + nodes - 1) / nodes;
  if (nvl != nullptr && nvl->max_ranks_per_nvl_domain > per_node)
    per_node = nvl->max_ranks_per_nvl_domain;
  int64_t hosts_per_node = 1, stride = 1;
  if (per_node > d->gpus_per_host()) {
    if (per_node > spec->scale_up) return false;
    hosts_per_node = (per_node + d->gpus_per_host() - 1) / d->gpus_per_host();
    stride = d->hosts_per_domain();
  }
  if (nodes * hosts_per_node > d->hosts()) return false;
  std::optional<std::vector<railyard::HostId>> hosts;
  if (hosts_env) {
    auto parsed = railyard::parse_host_list("RAILYARD_HOSTS", *hosts_env);
    if (!parsed.ok()) return false;
    if (static_cast<int64_t>(parsed->size()) == nodes * hosts_per_node) hosts = *parsed;
  }
  if (!hosts) return nodes * stride <= d->hosts();
  for (size_t i = 0; i < hosts->size(); ++i) {
    if ((*hosts)[i].value() >= d->hosts()) return false;
    const size_t first = i - i % static_cast<size_t>(hosts_per_node);
    if (d->domain_of((*hosts)[i]) != d->domain_of((*hosts)[first])) return false;
  }
  return true;
}

}  // namespace

// The tuner adapters v3..v6 with decoded arguments: init succeeds exactly when
// the communicator is valid for the cluster (else ncclInvalidUsage, never a
// crash) and logs exactly one TUNING line (INFO with a model, WARN without), getCollInfo
// returns ncclSuccess for any arguments and changes only what the cost-table
// contract allows, v5's constants are left alone, and finalize frees it all.
RAILYARD_FUZZ_TARGET(tuner_abi) {
  if (input.size() > kMaxInput) return;
  ByteReader in(input);
  tuner_log().clear();
  const uint8_t setup = in.u8();
  const int version = 3 + setup % 4;
  const int cluster_mode = (setup >> 2) % 4;  // 0 process env, 1 small, 2 invalid, 3 fuzzed
  const bool with_logger = (setup & 0x10) == 0;
  const bool with_nvl = (setup & 0x20) != 0;
  const bool with_hosts = (setup & 0x40) != 0;

  rp::TunerEnvironment env;
  if (cluster_mode == 1) env.cluster = kSmallClusters[in.u8() % kSmallClusters.size()];
  if (cluster_mode == 2) env.cluster = kBadClusters[in.u8() % kBadClusters.size()];
  if (cluster_mode == 3) {
    env.cluster = in.text(96);
    const std::optional<std::string> line = spec_line(*env.cluster);
    const auto gpus = line ? gpus_of(*line) : std::nullopt;
    if (gpus && *gpus > kMaxGpus) return;
  }
  if (with_hosts) env.hosts = in.text(24);
  const size_t n_ranks = in.size(80);
  const size_t n_nodes = in.size(20);
  const uint64_t comm_id = in.u64();
  nccl::NvlDomainInfoV5 nvl{in.int32(16), in.int32(64), in.int32(64)};
  nccl::TunerConstantsV5 constants;
  std::memset(&constants, 0x5A, sizeof constants);
  const nccl::Logger log = with_logger ? capture_tuner_log : nullptr;

  void* context = nullptr;
  nccl::Result init_result = nccl::Result::kInternalError;
  if (cluster_mode == 0) {
    // The real adapters, reading the process environment.
    init_result = version == 3   ? rp::tuner_init_v3(n_ranks, n_nodes, log, &context)
                  : version == 4 ? rp::tuner_init_v4(n_ranks, n_nodes, log, &context)
                                 : rp::tuner_init_v5(&context, comm_id, n_ranks, n_nodes, log,
                                                     with_nvl ? &nvl : nullptr, &constants);
    nccl::TunerConstantsV5 untouched;
    std::memset(&untouched, 0x5A, sizeof untouched);
    RAILYARD_FUZZ_CHECK(std::memcmp(&constants, &untouched, sizeof constants) == 0,
                        "init leaves NCCL's constants alone");
  } else {
    init_result =
        rp::tuner_init(&context, comm_id, n_ranks, n_nodes, log,
                       version >= 5 && with_nvl ? &nvl : nullptr,
                       version >= 5 ? &constants : nullptr,
                       version == 3 ? rt::NcclRelease::k2_23 : rt::NcclRelease::k2_27, env);
  }
  RAILYARD_FUZZ_CHECK(context != nullptr, "init always hands out a context");
  const auto* ctx = static_cast<const rp::TunerPluginContext*>(context);
  RAILYARD_FUZZ_CHECK(ctx->core.has_value() == (init_result == nccl::Result::kSuccess),
                      "init succeeds exactly when it has a model");
  RAILYARD_FUZZ_CHECK(init_result == nccl::Result::kSuccess ||
                          init_result == nccl::Result::kInvalidUsage,
                      "a failed init says the usage is wrong");
  if (cluster_mode != 0) {
    RAILYARD_FUZZ_CHECK(
        ctx->core.has_value() == tuner_should_model(env.cluster, env.hosts, n_ranks, n_nodes,
                                                    version >= 5 && with_nvl ? &nvl : nullptr),
        "a model exactly for valid communicators");
  }
  if (with_logger) {
    RAILYARD_FUZZ_CHECK(tuner_log().size() == 1, "init logs one line");
    const LogLine& l = tuner_log().front();
    RAILYARD_FUZZ_CHECK((l.flags & nccl::kLogTuning) != 0, "under NCCL_DEBUG_SUBSYS=TUNING");
    RAILYARD_FUZZ_CHECK(l.level == (ctx->core ? nccl::LogLevel::kInfo : nccl::LogLevel::kWarn),
                        "INFO with a model, WARN when failing init");
    RAILYARD_FUZZ_CHECK(l.text.rfind("railyard tuner: ", 0) == 0);
  }
  if (ctx->core) check_model(*ctx->core);
  RAILYARD_FUZZ_CHECK(rp::tuner_init(nullptr, comm_id, n_ranks, n_nodes, nullptr, nullptr,
                                     nullptr, rt::NcclRelease::k2_30,
                                     env) == nccl::Result::kInvalidArgument);

  const std::vector<rt::TuningRule> no_rules;
  for (int call = 0; call < 8 && !in.empty(); ++call) {
    const int coll = in.u8() % 2 == 0 ? static_cast<int>(in.u8() % 9) - 1 : in.int32(8);
    const size_t bytes = in.size(1 << 16);
    const int pipe_ops = in.int32(4);
    const uint8_t shape = in.u8();
    const int num_algo = static_cast<int>(shape % 12) - 2;         // -2 .. 9 (NCCL: 6 or 7)
    const int num_proto = static_cast<int>((shape >> 4) % 6) - 1;  // -1 .. 4 (NCCL: 3)
    const int reg_buff = in.int32(2);
    const uint8_t flags = in.u8();
    const size_t cells =
        num_algo > 0 && num_proto > 0 ? static_cast<size_t>(num_algo * num_proto) : 0;
    std::vector<float> table(cells);
    for (float& cell : table) {
      const uint8_t b = in.u8();
      switch (b % 8) {
        case 0:
          cell = nccl::kAlgoProtoIgnore;
          break;
        case 1:
          cell = -static_cast<float>(b);  // any negative disables the cell
          break;
        case 2:
          cell = b & 8 ? -0.0f : 0.0f;
          break;
        case 3:
          cell = b & 8 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::max();
          break;
        default:
          cell = static_cast<float>(b) * 3.5f;
      }
    }
    const std::vector<float> before = table;
    int channels = static_cast<int>(flags >> 2);
    const int channels_before = channels;
    int* channels_arg = (flags & 1) ? nullptr : &channels;
    // NCCL passes the contiguous table as float** (nccl_tuner_abi.hpp); a
    // null table must not crash either.
    float** table_arg =
        (flags & 2) || table.empty() ? nullptr : reinterpret_cast<float**>(table.data());
    nccl::Result r;
    if (version == 3)
      r = rp::tuner_get_coll_info_v3(context, static_cast<nccl::Func>(coll), bytes, pipe_ops,
                                     table_arg, num_algo, num_proto, channels_arg);
    else
      r = rp::tuner_get_coll_info_v4(context, static_cast<nccl::Func>(coll), bytes, pipe_ops,
                                     table_arg, num_algo, num_proto, reg_buff, channels_arg);
    RAILYARD_FUZZ_CHECK(r == nccl::Result::kSuccess, "getCollInfo returns ncclSuccess");
    RAILYARD_FUZZ_CHECK(channels == channels_before, "no rules: *nChannels is NCCL's");
    if (table_arg == nullptr) {
      for (size_t i = 0; i < table.size(); ++i) RAILYARD_FUZZ_CHECK(same_bits(before[i], table[i]));
      continue;
    }
    check_fill(ctx->core ? &*ctx->core : nullptr, no_rules, coll, bytes, pipe_ops, reg_buff,
               num_algo, num_proto, before, table, channels_before, channels);
  }
  if (with_logger) RAILYARD_FUZZ_CHECK(tuner_log().size() == 1, "the hot path never logs");
  RAILYARD_FUZZ_CHECK(rp::tuner_finalize(context) == nccl::Result::kSuccess);
  RAILYARD_FUZZ_CHECK(rp::tuner_finalize(nullptr) == nccl::Result::kSuccess);
}

namespace {

// ---- advisor ------------------------------------------------------------------------

struct AdvisorLog {
  int warnings = 0;
  int infos = 0;
  std::string last;
};

void capture_advisor_log(void* user, int level, const char* message) {
  auto* log = static_cast<AdvisorLog*>(user);
  RAILYARD_FUZZ_CHECK(level == 2 || level == 3, "warning or info");
  (level == 2 ? log->warnings : log->infos) += 1;
  log->last = message;
}

// A NIC name as a plugin may pass it: a device name (valid, out of range or
// malformed), the bus id of a NIC (plain, with domain, upper case, a sysfs
// path) or any text.
std::string nic_name(ByteReader& in, const rp::PathAdvisor& adv) {
  const topology::ClusterDescriptor<>& d = adv.descriptor();
  const int32_t devices = d.nics_per_host() * d.planes();
  const uint8_t kind = in.u8();
  const auto nic = railyard::NicIndex{static_cast<int32_t>(in.u8() % d.nics_per_host())};
  const std::string busid(adv.nic_busid(nic));
  switch (kind % 8) {
    case 0:
      return str_cat("mlx5_", in.u8() % (devices + 2));
    case 1:
      return str_cat("mlx5_", in.u8() % devices, ":", static_cast<int>(in.u8() % 4));
    case 2:
      return busid;
    case 3:
      return str_cat("/sys/devices/pci0000:00/0000:00:01.0/", busid, kind & 8 ? "/" : "");
    case 4:
      return busid.substr(5);  // bb:dd.f, domain 0000
    case 5: {
      std::string upper = busid;  // bus ids are case-insensitive hex
      for (char& c : upper)
        if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
      return upper;
    }
    case 6:
      return "0000:fe:1f.7";  // well-formed, no NIC of ours
    default:
      return in.text(40);
  }
}

// A name's bus id as advisor.h defines it: the last path component, lower
// case, domain 0000 when only bb:dd.f is given; "" when it has no such shape.
std::string normalized_busid(std::string_view name) {
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  name = name.substr(name.find_last_of('/') == std::string_view::npos ? 0
                                                                      : name.find_last_of('/') + 1);
  std::string id = railyard::to_lower(name);
  if (id.size() == 7) id = "0000:" + id;
  if (id.size() != 12) return "";
  for (size_t i = 0; i < id.size(); ++i) {
    const bool sep = i == 4 || i == 7 || i == 10;
    const bool hex = railyard::is_digit(id[i]) || (id[i] >= 'a' && id[i] <= 'f');
    if (sep ? id[i] != (i == 10 ? '.' : ':') : !hex) return "";
  }
  return id;
}

struct Request {
  railyard_nic_id local{};
  railyard_nic_id remote{};
  std::string local_name, remote_name;
  int budget = 0;
  std::optional<uint32_t> base_dst_qpn;
};

railyard_nic_id nic_id(ByteReader& in, const rp::PathAdvisor& adv, std::string& name) {
  const topology::ClusterDescriptor<>& d = adv.descriptor();
  railyard_nic_id id{};
  const uint8_t how = in.u8();
  id.host = how & 1 ? in.int32(d.hosts() + 1) : static_cast<int32_t>(in.u8() % d.hosts());
  id.rail = how & 2 ? in.int32(d.rails() + 1) : static_cast<int32_t>(in.u8() % d.rails());
  id.plane = how & 4 ? in.int32(d.planes() + 1) : static_cast<int32_t>(in.u8() % d.planes());
  if (how & 8) {
    name = nic_name(in, adv);
    if (how & 16) id.rail = id.plane = -1;
  }
  id.name_or_pci = name.empty() && (how & 32) == 0 ? nullptr : name.c_str();
  return id;
}

// The error a connect of ports given by numbers only must report first (its
// field), or "" when it must succeed; in the order the header documents.
std::string expected_connect_error(const rp::PathAdvisor& adv, const Request& q) {
  const topology::ClusterDescriptor<>& d = adv.descriptor();
  auto side = [&](const railyard_nic_id& n, std::string_view s) -> std::string {
    if (n.host < 0 || n.host >= d.hosts()) return str_cat(s, ".host=");
    if (n.rail < -1 || n.rail >= d.rails()) return str_cat(s, ".rail=");
    if (n.plane < -1 || n.plane >= d.planes()) return str_cat(s, ".plane=");
    if (n.rail == -1) return str_cat(s, ".rail=");
    if (n.plane == -1 && d.planes() > 1) return str_cat(s, ".plane=");
    return "";
  };
  if (std::string e = side(q.local, "local"); !e.empty()) return e;
  if (std::string e = side(q.remote, "remote"); !e.empty()) return e;
  if (q.budget < 1) return "qp_budget=";
  if (q.base_dst_qpn && *q.base_dst_qpn > 0xFFFFFFu) return "base_dst_qpn=";
  const auto port = [](const railyard_nic_id& n) {
    return railyard::NicPort{railyard::HostId{n.host}, railyard::NicIndex{n.rail},
                             railyard::PlaneId{std::max(n.plane, 0)}};
  };
  const railyard::NicPort a = port(q.local), b = port(q.remote);
  if (a == b) return "remote=";
  if (a.plane != b.plane) return "remote.plane=";
  if (d.path_count(a, b) == 0) return "remote.rail=";
  return "";
}

struct Planned {
  uint32_t connection;
  std::vector<uint16_t> ports;
};

}  // namespace

// The advisor's C API on a small cluster from the input (spec, hash model,
// seed, bus ids), then a sequence of connects, lookups and rail/plane queries
// with decoded arguments. Creation fails exactly for bad options; connect
// errors are EINVAL/ENOTFOUND naming the first bad field (predicted here for
// ports given by number); a plan has 1 <= qps <= min(budget, uplinks, 256)
// distinct RoCEv2 ports whose flow labels map back to them; lookups return
// the plan and 0 for unknown ids; the same request gets the same connection;
// rail/plane of device names and bus ids are the NIC's.
RAILYARD_FUZZ_TARGET(advisor) {
  if (input.size() > kMaxInput) return;
  ByteReader in(input);
  const uint8_t setup = in.u8();
  std::string spec;
  switch (setup % 4) {
    case 0:
    case 1:
      spec = kSmallClusters[in.u8() % kSmallClusters.size()];
      break;
    case 2:
      spec = kBadClusters[in.u8() % kBadClusters.size()];
      break;
    default:
      spec = in.text(96);
  }
  spec = std::string(spec.c_str());   // what a C caller passes ends at the first NUL
  if (spec.empty()) spec = "banana";  // "" would read RAILYARD_CLUSTER from the process
  const std::optional<int64_t> gpus = gpus_of(spec);
  if (gpus && *gpus > kMaxGpus) return;

  static constexpr std::array<const char*, 8> kModels = {nullptr, "",         "crc32",     "crc32c",
                                                         "qp",    "crc32+qp", "crc32c+qp", "ecmp"};
  const char* model = kModels[(setup >> 2) % kModels.size()];
  AdvisorLog log;
  railyard_advisor_options options{};
  options.cluster = spec.c_str();
  options.hash_model = model;
  options.hash_seed = in.u32();
  options.log = (setup & 0x20) ? nullptr : capture_advisor_log;
  options.log_user = &log;
  // Real bus ids (setup bit 6): one per NIC, sometimes one too few or a bad one.
  std::vector<std::string> busids;
  std::vector<const char*> busid_ptrs;
  const uint8_t busid_mode = in.u8();
  int expected_nics = 0;
  if (gpus) {
    expected_nics = topology::make_descriptor(*topology::parse_cluster(spec))->nics_per_host();
  }
  bool busids_ok = true;
  if ((setup & 0x40) && expected_nics > 0) {
    const int count = busid_mode % 5 == 0 ? expected_nics - 1 : expected_nics;
    for (int i = 0; i < count; ++i) {
      char id[16];
      std::snprintf(id, sizeof id, "%04x:%02x:00.%d", busid_mode % 7 == 0 && i == 1 ? 0 : 1,
                    (i * 0x11 + 0x20) & 0xFF, i % 2);
      busids.emplace_back(id);
    }
    if (busid_mode % 11 == 0 && !busids.empty()) busids.back() = "0000:zz:00.0";
    for (const std::string& b : busids) busid_ptrs.push_back(b.c_str());
    // Zero ids: a non-null array with a count of 0 (create must refuse it).
    busid_ptrs.push_back(nullptr);
    options.nic_busids = busid_ptrs.data();
    options.nic_busid_count = count;
    busids_ok = count == expected_nics && busid_mode % 11 != 0;
  }

  char err[RAILYARD_ADVISOR_ERROR_LEN] = "unset";
  railyard_advisor* a = railyard_advisor_create_ex(&options, err, sizeof err);
  const bool model_ok = model == nullptr || std::string_view(model) != "ecmp";
  const bool should_create = gpus.has_value() && model_ok && busids_ok;
  RAILYARD_FUZZ_CHECK((a != nullptr) == should_create,
                      "create fails exactly for a bad cluster, model or bus ids");
  if (a == nullptr) {
    RAILYARD_FUZZ_CHECK(err[0] != '\0', "a failed create says why");
    RAILYARD_FUZZ_CHECK(std::strcmp(err, railyard_advisor_last_error()) == 0);
    if (options.log != nullptr) RAILYARD_FUZZ_CHECK(log.warnings == 1 && log.infos == 0);
    return;
  }
  RAILYARD_FUZZ_CHECK(err[0] == '\0', "a successful create clears err");
  if (options.log != nullptr) RAILYARD_FUZZ_CHECK(log.infos == 1 && log.warnings == 0);
  const rp::PathAdvisor& adv = *a->advisor;
  const topology::ClusterDescriptor<>& d = adv.descriptor();

  std::map<std::tuple<int, int, int, int, int, int, int, uint32_t>, Planned> planned;
  for (int op = 0; op < 24 && !in.empty(); ++op) {
    const uint8_t what = in.u8();
    switch (what % 4) {
      case 0:
      case 1: {  // connect
        Request q;
        q.local = nic_id(in, adv, q.local_name);
        q.remote = nic_id(in, adv, q.remote_name);
        q.budget = (what & 0x10) ? in.int32(300) : 1 + in.u8() % 32;
        if (what & 0x20) q.base_dst_qpn = (what & 0x40) ? in.u32() : in.u32() & 0xFFFFFFu;
        railyard_conn_plan plan;
        std::memset(&plan, 0x7B, sizeof plan);
        const int rc = q.base_dst_qpn
                           ? railyard_advisor_connect_ex(a, &q.local, &q.remote, q.budget,
                                                         *q.base_dst_qpn, &plan)
                           : railyard_advisor_connect(a, &q.local, &q.remote, q.budget, &plan);
        RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_OK || rc == RAILYARD_ADVISOR_EINVAL ||
                                rc == RAILYARD_ADVISOR_ENOTFOUND,
                            "connect: OK, EINVAL or ENOTFOUND (the hash models always find ports)");
        const bool named = !q.local_name.empty() || !q.remote_name.empty();
        if (!named) {
          const std::string expected = expected_connect_error(adv, q);
          if (expected.empty())
            RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_OK, "valid ports connect");
          else
            RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_EINVAL &&
                                    std::string_view(plan.error).rfind(expected, 0) == 0,
                                "the first bad field is named");
        }
        if (rc != RAILYARD_ADVISOR_OK) {
          RAILYARD_FUZZ_CHECK(plan.error[0] != '\0' && plan.qps == 0, "a failed plan is zeroed");
          RAILYARD_FUZZ_CHECK(std::strcmp(plan.error, railyard_advisor_last_error()) == 0);
          const std::string_view m = plan.error;
          RAILYARD_FUZZ_CHECK(m.rfind("local", 0) == 0 || m.rfind("remote", 0) == 0 ||
                                  m.rfind("qp_budget=", 0) == 0 || m.rfind("base_dst_qpn=", 0) == 0,
                              "the message names the field");
          break;
        }
        RAILYARD_FUZZ_CHECK(plan.error[0] == '\0');
        const int32_t cap = std::min(q.budget, RAILYARD_ADVISOR_MAX_QPS);
        RAILYARD_FUZZ_CHECK(plan.qps >= 1 && plan.qps <= cap, "1 <= qps <= budget");
        RAILYARD_FUZZ_CHECK(plan.usable_uplinks >= 1);
        RAILYARD_FUZZ_CHECK(plan.qps == std::min(cap, plan.usable_uplinks),
                            "qps = min(budget, usable uplinks, 256)");
        RAILYARD_FUZZ_CHECK(plan.uplinks_used == std::min(plan.qps, plan.usable_uplinks));
        RAILYARD_FUZZ_CHECK(plan.local.name_or_pci == nullptr &&
                            plan.remote.name_or_pci == nullptr);
        for (const railyard_nic_id* n : {&plan.local, &plan.remote})
          RAILYARD_FUZZ_CHECK(n->host >= 0 && n->host < d.hosts() && n->rail >= 0 &&
                                  n->rail < d.rails() && n->plane >= 0 && n->plane < d.planes(),
                              "resolved ports are in the cluster");
        if (!named) {
          RAILYARD_FUZZ_CHECK(plan.local.host == q.local.host && plan.local.rail == q.local.rail &&
                              plan.remote.host == q.remote.host &&
                              plan.remote.rail == q.remote.rail);
        }
        std::set<uint16_t> distinct;
        std::set<int32_t> uplinks;
        for (int i = 0; i < plan.qps; ++i) {
          const uint16_t sport = plan.source_port[i];
          RAILYARD_FUZZ_CHECK(sport >= 0xC000, "ports in the RoCEv2 range 0xC000..0xFFFF");
          RAILYARD_FUZZ_CHECK(
              plan.flow_label[i] < (1u << 20) &&
                  railyard::routing::sport_from_flow_label(plan.flow_label[i]) == sport,
              "the flow label gives the port");
          distinct.insert(sport);
          uplinks.insert(plan.uplink[i]);
          RAILYARD_FUZZ_CHECK(
              railyard_advisor_source_port(a, plan.connection, static_cast<uint32_t>(i)) == sport,
              "the lookup returns the plan's port");
          RAILYARD_FUZZ_CHECK(
              railyard_advisor_flow_label(a, plan.connection, static_cast<uint32_t>(i)) ==
              plan.flow_label[i]);
        }
        RAILYARD_FUZZ_CHECK(distinct.size() == static_cast<size_t>(plan.qps), "distinct ports");
        RAILYARD_FUZZ_CHECK(uplinks.size() == static_cast<size_t>(plan.uplinks_used),
                            "the QPs take uplinks_used distinct uplinks");
        for (int i = plan.qps; i < RAILYARD_ADVISOR_MAX_QPS; ++i)
          RAILYARD_FUZZ_CHECK(plan.source_port[i] == 0, "the rest of the plan is zeroed");
        RAILYARD_FUZZ_CHECK(railyard_advisor_qps(a, plan.connection) == plan.qps);
        RAILYARD_FUZZ_CHECK(
            railyard_advisor_source_port(a, plan.connection, static_cast<uint32_t>(plan.qps)) == 0);
        // Same request, same connection: now and for every later repeat.
        const auto key = std::make_tuple(plan.local.host, plan.local.rail, plan.local.plane,
                                         plan.remote.host, plan.remote.rail, plan.remote.plane, cap,
                                         q.base_dst_qpn.value_or(rp::kDefaultBaseDstQpn));
        const std::vector<uint16_t> ports(plan.source_port, plan.source_port + plan.qps);
        const auto [it, first_time] = planned.emplace(key, Planned{plan.connection, ports});
        if (first_time) {
          RAILYARD_FUZZ_CHECK(plan.connection == planned.size() - 1,
                              "new connections get the next id");
        } else {
          RAILYARD_FUZZ_CHECK(plan.connection == it->second.connection && ports == it->second.ports,
                              "the same request gets the same connection");
        }
        RAILYARD_FUZZ_CHECK(railyard_advisor_connections(a) == planned.size());
        break;
      }
      case 2: {  // rail/plane of a name
        const std::string name = nic_name(in, adv);
        const int port = (what & 0x10) ? in.int32(d.planes() + 2) : 0;
        int rail = -7, plane = -7;
        const int rc = (what & 0x20)
                           ? railyard_advisor_rail_plane(a, name.c_str(), &rail, &plane)
                           : railyard_advisor_rail_plane_port(a, name.c_str(), port, &rail, &plane);
        const int used_port = (what & 0x20) ? 0 : port;
        RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_OK || rc == RAILYARD_ADVISOR_EINVAL ||
                            rc == RAILYARD_ADVISOR_ENOTFOUND);
        if (rc != RAILYARD_ADVISOR_OK) {
          RAILYARD_FUZZ_CHECK(rail == -7 && plane == -7, "nothing written on failure");
          RAILYARD_FUZZ_CHECK(railyard_advisor_last_error()[0] != '\0');
        } else {
          RAILYARD_FUZZ_CHECK(rail >= 0 && rail < d.rails() && plane >= 0 && plane < d.planes(),
                              "a NIC port of the cluster");
        }
        // Device names and bus ids are predictable.
        const std::string n(name.c_str());  // what the C call saw
        int64_t dev = -1;
        if (n.rfind("mlx5_", 0) == 0 && n.size() > 5 && n.size() <= 9 &&
            std::all_of(n.begin() + 5, n.end(), [](char c) { return railyard::is_digit(c); }))
          dev = std::stoll(std::string(n.substr(5)));
        const int32_t devices = d.nics_per_host() * d.planes();
        if (dev >= 0) {
          const bool port_ok = used_port == 0 || used_port == dev % d.planes() + 1;
          if (dev >= devices)
            RAILYARD_FUZZ_CHECK(
                rc == (used_port >= 0 && used_port <= d.planes() ? RAILYARD_ADVISOR_ENOTFOUND
                                                                 : RAILYARD_ADVISOR_EINVAL),
                "devices past the last NIC are not found");
          else if (port_ok)
            RAILYARD_FUZZ_CHECK(
                rc == RAILYARD_ADVISOR_OK && rail == dev / d.planes() && plane == dev % d.planes(),
                "mlx5_<dev> is rail dev / planes, plane dev % planes");
          else
            RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_EINVAL, "a port that disagrees");
        }
        const std::string as_busid = normalized_busid(n);
        for (int32_t nic = 0; nic < d.nics_per_host(); ++nic) {
          if (as_busid != adv.nic_busid(railyard::NicIndex{nic})) continue;
          if (used_port < 0 || used_port > d.planes() || (used_port == 0 && d.planes() > 1))
            RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_EINVAL, "a PCI function needs its port");
          else
            RAILYARD_FUZZ_CHECK(
                rc == RAILYARD_ADVISOR_OK && rail == nic && plane == std::max(used_port - 1, 0),
                "a bus id is its NIC, the port its plane");
        }
        break;
      }
      default: {  // lookups with any ids
        const uint32_t connection = (what & 0x10) ? in.u32() : in.u8();
        const uint32_t qp = (what & 0x20) ? in.u32() : in.u8() % 20;
        const uint32_t known = railyard_advisor_connections(a);
        const int qps = railyard_advisor_qps(a, connection);
        const uint16_t sport = railyard_advisor_source_port(a, connection, qp);
        const uint32_t label = railyard_advisor_flow_label(a, connection, qp);
        if (connection >= known) RAILYARD_FUZZ_CHECK(qps == 0, "unknown connections have no QPs");
        if (connection < known && qp < static_cast<uint32_t>(qps)) {
          RAILYARD_FUZZ_CHECK(
              sport >= 0xC000 && railyard::routing::sport_from_flow_label(label) == sport,
              "known (connection, qp): a RoCEv2 port and its label");
        } else {
          RAILYARD_FUZZ_CHECK(sport == 0 && label == 0, "unknown ids: 0, the kernel's default");
        }
        RAILYARD_FUZZ_CHECK(railyard_advisor_source_port(nullptr, connection, qp) == 0 &&
                            railyard_advisor_flow_label(nullptr, connection, qp) == 0 &&
                            railyard_advisor_qps(nullptr, connection) == 0);
        break;
      }
    }
  }
  // An endpoint off the wire (a peer's listen handle): a valid one half the
  // time with fuzzed fields after it, raw bytes otherwise. Decoding refuses
  // with a named field or reads back exactly the fields written.
  {
    std::array<unsigned char, 48> wire{};
    const uint8_t mode = in.u8();
    if (mode & 1) {
      railyard_nic_id me{};
      me.host = in.int32(d.hosts());
      me.rail = in.int32(d.rails());
      me.plane = d.planes() > 1 ? in.int32(d.planes()) : -1;
      const int budget = in.int32(300);
      const int rc = railyard_advisor_endpoint_encode(a, &me, budget, wire.data(), wire.size());
      RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_OK || rc == RAILYARD_ADVISOR_EINVAL);
    }
    for (size_t i = (mode & 1) ? 4 + in.u8() % 40 : 0; i < wire.size() && !in.empty(); ++i)
      if ((mode & 2) || !(mode & 1)) wire[i] = in.u8();
    const size_t len = (mode & 4) ? in.u8() % 40 : wire.size();
    railyard_nic_id got{-9, -9, -9, "x"};
    int budget = -9;
    const int rc = railyard_advisor_endpoint_decode(a, wire.data(), len, &got, &budget);
    RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_OK || rc == RAILYARD_ADVISOR_EINVAL ||
                            rc == RAILYARD_ADVISOR_EMISMATCH,
                        "an endpoint decodes, or is invalid or another cluster's");
    if (rc != RAILYARD_ADVISOR_OK) {
      const std::string_view m = railyard_advisor_last_error();
      RAILYARD_FUZZ_CHECK(m.rfind("endpoint", 0) == 0, "the message names the endpoint");
      RAILYARD_FUZZ_CHECK(got.host == -9 && budget == -9, "nothing written on failure");
    } else {
      RAILYARD_FUZZ_CHECK(len >= RAILYARD_ADVISOR_ENDPOINT_BYTES);
      RAILYARD_FUZZ_CHECK(got.host >= 0 && got.host < d.hosts() && got.rail >= 0 &&
                              got.rail < d.rails() && got.plane >= 0 && got.plane < d.planes() &&
                              budget >= 1 && got.name_or_pci == nullptr,
                          "a decoded endpoint is a port of the cluster");
      std::array<unsigned char, RAILYARD_ADVISOR_ENDPOINT_BYTES> again{};
      RAILYARD_FUZZ_CHECK(railyard_advisor_endpoint_encode(a, &got, budget, again.data(),
                                                           again.size()) == RAILYARD_ADVISOR_OK);
      wire[6] = wire[7] = 0;  // reserved: not read
      RAILYARD_FUZZ_CHECK(std::memcmp(again.data(), wire.data(), again.size()) == 0,
                          "encode(decode(bytes)) gives the bytes back");
      railyard_nic_id other = got;
      other.host = (got.host + 1) % d.hosts();
      const int k = railyard_advisor_agreed_qps(a, &got, budget, &other, 1 + mode % 64);
      const int k_back = railyard_advisor_agreed_qps(a, &other, 1 + mode % 64, &got, budget);
      RAILYARD_FUZZ_CHECK(k == k_back, "both ends agree on the QP count");
      if (k > 0) RAILYARD_FUZZ_CHECK(k <= budget && k <= 1 + mode % 64);
    }
  }

  // TCP streams of a socket plugin: distinct ports on distinct uplinks when
  // planned (streams <= the uplinks), the same ports on a second call, a
  // named error otherwise. An address that is no GID is refused by name; one
  // that is, looked up under a sysfs root that does not exist, is not found.
  {
    railyard_nic_id me{in.int32(d.hosts() + 1), in.int32(d.rails()), 0, nullptr};
    railyard_nic_id peer{in.int32(d.hosts()), in.int32(d.rails()), 0, nullptr};
    const int streams = in.int32(12) - 1;
    const uint32_t src_ip = static_cast<uint32_t>(in.u8()) << 24 | in.u8();
    const auto dst_port = static_cast<uint16_t>(in.u8() * 251 % 65536);
    const auto offset = static_cast<uint16_t>(in.u8() * 4099);
    std::array<uint16_t, RAILYARD_ADVISOR_MAX_QPS> ports{};  // room for any count it accepts
    std::array<int32_t, RAILYARD_ADVISOR_MAX_QPS> uplinks{};
    const int rc = railyard_advisor_plan_tcp_streams(a, &me, &peer, streams, src_ip, 0x0A000002u,
                                                     dst_port, offset, ports.data(), uplinks.data());
    if (rc == RAILYARD_ADVISOR_OK) {
      RAILYARD_FUZZ_CHECK(streams >= 1 && dst_port != 0);
      const std::set<uint16_t> distinct(ports.begin(), ports.begin() + streams);
      RAILYARD_FUZZ_CHECK(std::ssize(distinct) == streams && *distinct.begin() >= 0xC000,
                          "distinct ports in 0xC000..0xFFFF");
      std::array<uint16_t, RAILYARD_ADVISOR_MAX_QPS> again{};
      RAILYARD_FUZZ_CHECK(railyard_advisor_plan_tcp_streams(a, &me, &peer, streams, src_ip,
                                                            0x0A000002u, dst_port, offset,
                                                            again.data(), nullptr) == 0 &&
                              again == ports,
                          "the same request plans the same ports");
    } else {
      RAILYARD_FUZZ_CHECK(rc == RAILYARD_ADVISOR_EINVAL || rc == RAILYARD_ADVISOR_ENOPATH);
      RAILYARD_FUZZ_CHECK(railyard_advisor_last_error()[0] != '\0');
    }
    const std::string address = in.text(48);
    railyard_nic_id nic{-9, -9, -9, "x"};
    const int found = railyard_advisor_local_nic_by_address(
        a, in.int32(d.hosts()), address.c_str(), "/nonexistent-railyard-sysfs", &nic);
    RAILYARD_FUZZ_CHECK(found == RAILYARD_ADVISOR_EINVAL || found == RAILYARD_ADVISOR_ENOTFOUND,
                        "no sysfs, no NIC");
    RAILYARD_FUZZ_CHECK(nic.host == -9, "nothing written on failure");
    RAILYARD_FUZZ_CHECK(std::string_view(railyard_advisor_last_error()).rfind("address=", 0) == 0,
                        "the message names the address");
  }

  // Null arguments are errors, never crashes.
  railyard_conn_plan plan;
  const railyard_nic_id zero{};
  RAILYARD_FUZZ_CHECK(railyard_advisor_connect(a, nullptr, &zero, 1, &plan) ==
                      RAILYARD_ADVISOR_EINVAL);
  RAILYARD_FUZZ_CHECK(railyard_advisor_connect(a, &zero, &zero, 1, nullptr) ==
                      RAILYARD_ADVISOR_EINVAL);
  RAILYARD_FUZZ_CHECK(railyard_advisor_connect(nullptr, &zero, &zero, 1, &plan) ==
                      RAILYARD_ADVISOR_EINVAL);
  int rail = 0, plane = 0;
  RAILYARD_FUZZ_CHECK(railyard_advisor_rail_plane(a, nullptr, &rail, &plane) ==
                      RAILYARD_ADVISOR_EINVAL);
  RAILYARD_FUZZ_CHECK(railyard_advisor_rail_plane(a, "mlx5_0", nullptr, &plane) ==
                      RAILYARD_ADVISOR_EINVAL);
  RAILYARD_FUZZ_CHECK(railyard_advisor_connections(a) == planned.size());
  railyard_advisor_destroy(a);
}
