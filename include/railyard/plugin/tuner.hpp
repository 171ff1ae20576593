// railyard/plugin/tuner.hpp — the C-ABI adapters of railyard's NCCL tuner: what
// NCCL's init / getCollInfo / finalize call (examples/nccl_tuner exports them),
// around the tuning model of tune/model.hpp. Nothing here throws or aborts.
//
//   // examples/nccl_tuner/tuner_plugin.cpp:
//   const nccl::TunerV6 ncclTunerPlugin_v6 = {railyard::plugin::kTunerPluginName,
//       railyard::plugin::tuner_init_v5, railyard::plugin::tuner_get_coll_info_v4,
//       railyard::plugin::tuner_finalize, nullptr};
//
// Environment (read at init, per communicator): RAILYARD_CLUSTER (a spec or a
// preset) or RAILYARD_CLUSTER_FILE (one spec line); NCCL_TUNER_CONFIG_FILE (rules,
// tune/rules.hpp); RAILYARD_HOSTS (host of node i, in node order);
// RAILYARD_TUNER_DIGEST (tune::tuner_input_digest of the three, as
// `railyard plan --out` writes it in nccl.env).
//
// Rank consistency. NCCL does not agree on an algorithm across ranks: each rank
// picks from its own cost table, and ranks that pick differently for one
// collective hang. So the plugin never falls back per process. Every problem at
// init — no cluster given, a file missing or unreadable, a spec, host list or
// rule line that does not parse, a RAILYARD_TUNER_DIGEST that differs from the
// digest of what this rank read — fails init with ncclInvalidUsage and a WARN
// naming the variable, and NCCL fails the communicator (src/init.cc calls
// init under NCCLCHECK). A rank either decides from inputs whose digest every
// rank shares or does not start. docs/nccl-tuner.md#rank-consistency says what
// remains NCCL's (a node where NCCL cannot load the library at all).
//
// Constants. A v5/v6 init receives NCCL's own model constants; the model starts
// from them (they already hold NCCL's defaults and whatever NCCL_* settings
// changed). v3/v4 inits get none; the model uses the defaults of the NCCL
// release that ABI shipped with (tune::NcclRelease).
//
// Hot path: getCollInfo calls TunerCore::fill_cost_table (no allocation, lock or
// I/O; see tune/model.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/plugin/nccl_tuner_abi.hpp"
#include "railyard/tune/model.hpp"

namespace railyard::plugin {

// NCCL's constants are copied into the model's as bytes: the layouts must agree.
static_assert(sizeof(tune::NcclConstants) == sizeof(nccl::TunerConstantsV5));
static_assert(offsetof(tune::NcclConstants, hw_latencies) ==
              offsetof(nccl::TunerConstantsV5, hw_latencies));
static_assert(offsetof(tune::NcclConstants, ll_max_bws) ==
              offsetof(nccl::TunerConstantsV5, ll_max_bws));
static_assert(offsetof(tune::NcclConstants, per_ch_max_nvls_tree_bws) ==
              offsetof(nccl::TunerConstantsV5, per_ch_max_nvls_tree_bws));

using tune::TunerCore;
using tune::TunerOptions;

// ---------------------------------------------------------------------------
// The plugin boundary: what NCCL's init/getCollInfo/finalize call. Nothing here
// throws; a problem at init is logged (WARN, TUNING) and fails init (see the
// overview); getCollInfo and finalize always succeed.
// ---------------------------------------------------------------------------

// The plugin's inputs from the environment.
struct TunerEnvironment {
  std::optional<std::string> cluster;       // RAILYARD_CLUSTER: spec string or preset
  std::optional<std::string> cluster_file;  // RAILYARD_CLUSTER_FILE (RAILYARD_CLUSTER wins)
  std::optional<std::string> rules_file;    // NCCL_TUNER_CONFIG_FILE
  std::optional<std::string> hosts;         // RAILYARD_HOSTS: host ids of nodes 0..n-1
  std::optional<std::string> digest;        // RAILYARD_TUNER_DIGEST: 16 hex digits

  [[nodiscard]] static TunerEnvironment from_process() {
    auto get = [](const char* name) -> std::optional<std::string> {
      const char* v = std::getenv(name);
      if (v == nullptr || *v == '\0') return std::nullopt;
      return std::string(v);
    };
    return {get("RAILYARD_CLUSTER"), get("RAILYARD_CLUSTER_FILE"), get("NCCL_TUNER_CONFIG_FILE"),
            get("RAILYARD_HOSTS"), get("RAILYARD_TUNER_DIGEST")};
  }
};

// Everything one communicator's tuner keeps. `core` empty: pass-through (only
// handed out with a failed init, so finalize has something to free).
struct TunerPluginContext {
  std::optional<tune::TunerCore> core;
  nccl::Logger log = nullptr;
  uint64_t comm_id = 0;
};

inline constexpr const char* kTunerPluginName = "railyard";

namespace detail {

// The context handed out when not even a pass-through context could be
// allocated (never freed).
inline TunerPluginContext* static_pass_through() noexcept {
  static TunerPluginContext pass_through;
  return &pass_through;
}

inline void log_line(nccl::Logger log, nccl::LogLevel level, unsigned long flags,
                     const std::string& message) noexcept {
  if (log != nullptr) log(level, flags, __FILE__, __LINE__, "railyard tuner: %s", message.c_str());
}

// A whole file, or an error naming the variable and path.
inline StatusOr<std::string> read_text_file(std::string_view variable,
                                                  const std::string& path) {
  constexpr std::streamsize kMaxBytes = 16 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_field(variable, path, "cannot open the file");
  std::string text;
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid_field(variable, path, "read error");
  if (static_cast<std::streamsize>(text.size()) > kMaxBytes)
    return invalid_field(variable, path, "larger than 16 MiB");
  return text;
}

// A context for this communicator, or the error that fails init (the message
// names the variable and the value).
inline StatusOr<std::unique_ptr<TunerPluginContext>> make_context(
    size_t n_ranks, size_t n_nodes, uint64_t comm_id, const nccl::NvlDomainInfoV5* nvl,
    const nccl::TunerConstantsV5* constants, tune::NcclRelease release, nccl::Logger log,
    const TunerEnvironment& env) {
  auto ctx = std::make_unique<TunerPluginContext>();
  ctx->log = log;
  ctx->comm_id = comm_id;
  std::string cluster_text;
  if (env.cluster) {
    cluster_text = *env.cluster;
  } else if (env.cluster_file) {
    RAILYARD_ASSIGN_OR_RETURN(cluster_text,
                              read_text_file("RAILYARD_CLUSTER_FILE", *env.cluster_file));
  } else {
    return invalid_field("RAILYARD_CLUSTER", "",
                         "neither RAILYARD_CLUSTER nor RAILYARD_CLUSTER_FILE is set; the tuner "
                         "was loaded (NCCL_TUNER_PLUGIN) but has no cluster to model");
  }
  const std::string_view cluster_variable =
      env.cluster ? "RAILYARD_CLUSTER" : "RAILYARD_CLUSTER_FILE";
  std::string rules_text;
  if (env.rules_file) {
    RAILYARD_ASSIGN_OR_RETURN(rules_text,
                              read_text_file("NCCL_TUNER_CONFIG_FILE", *env.rules_file));
  }
  const std::string hosts_text = env.hosts.value_or("");
  auto digest = tune::tuner_input_digest(cluster_text, hosts_text, rules_text);
  if (!digest.ok())
    return with_context(digest.status(), cluster_variable);
  if (env.digest && *env.digest != tune::format_digest(*digest))
    return invalid_field(
        "RAILYARD_TUNER_DIGEST", *env.digest,
        str_cat("differs from this rank's inputs (digest ", tune::format_digest(*digest),
                " of ", cluster_variable, ", RAILYARD_HOSTS and NCCL_TUNER_CONFIG_FILE): this "
                "node's files or environment differ from the ones the digest was made from"));
  tune::TunerOptions o;
  o.cluster = cluster_text;
  o.ranks = static_cast<int64_t>(std::min<size_t>(n_ranks, size_t{1} << 40));
  o.nodes = static_cast<int64_t>(std::min<size_t>(n_nodes, size_t{1} << 40));
  if (nvl != nullptr)
    o.nvl = tune::NvlDomains{nvl->n_nvl_domains, nvl->min_ranks_per_nvl_domain,
                             nvl->max_ranks_per_nvl_domain};
  if (constants != nullptr) {
    tune::NcclConstants k;
    std::memcpy(&k, constants, sizeof k);
    o.constants = k;
  }
  o.release = release;
  o.rules = rules_text;
  if (env.hosts) {
    RAILYARD_ASSIGN_OR_RETURN(o.hosts, parse_host_list("RAILYARD_HOSTS", *env.hosts));
    // A job's smaller communicators (one node, one DP group) do not span the
    // whole list: every rank of such a communicator sees the same list and
    // nNodes, so all of them assume the same consecutive hosts.
    o.hosts_may_be_the_jobs = true;
  }
  auto core = tune::TunerCore::create(o);
  if (!core.ok()) return with_context(core.status(), cluster_variable);
  if (!core->warnings().empty())
    return invalid_field("NCCL_TUNER_CONFIG_FILE", env.rules_file.value_or(""),
                         str_cat(core->warnings().front(),
                                 core->warnings().size() > 1
                                     ? str_cat(" (and ", core->warnings().size() - 1,
                                               " more lines)")
                                     : "",
                                 "; a rule line skipped on one node and not on another would "
                                 "make ranks disagree"));
  std::string rules_note;
  if (env.rules_file)
    rules_note = str_cat("; ", core->rules().size(), " of ", core->rules_parsed(), " rules from ",
                         *env.rules_file, " apply");
  char id[32];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(comm_id));
  log_line(log, nccl::LogLevel::kInfo, nccl::kLogInit | nccl::kLogTuning,
           str_cat("comm ", id, ": ", core->summary(), rules_note,
                   core->hosts_note().empty() ? "" : str_cat("; RAILYARD_HOSTS: ", core->hosts_note()),
                   constants != nullptr                 ? "; NCCL's constants"
                   : release == tune::NcclRelease::k2_23 ? "; NCCL 2.23 default constants"
                   : release == tune::NcclRelease::k2_27 ? "; NCCL 2.27 default constants"
                                                         : "; NCCL 2.30 default constants",
                   "; inputs ", tune::format_digest(*digest)));
  ctx->core = std::move(*core);
  return ctx;
}

}  // namespace detail

// init of every version. *context is always set (a pass-through context on
// failure, so NCCL's finalize finds something to free). Returns kInvalidUsage,
// with a WARN naming the variable, when the inputs are wrong (see the overview),
// kInternalError when memory runs out.
inline nccl::Result tuner_init(void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                               nccl::Logger log, const nccl::NvlDomainInfoV5* nvl,
                               const nccl::TunerConstantsV5* constants,
                               tune::NcclRelease release, const TunerEnvironment& env) noexcept {
  if (context == nullptr) return nccl::Result::kInvalidArgument;
  *context = detail::static_pass_through();
  try {
    auto ctx = detail::make_context(n_ranks, n_nodes, comm_id, nvl, constants, release, log, env);
    if (ctx.ok()) {
      *context = ctx->release();
      return nccl::Result::kSuccess;
    }
    detail::log_line(log, nccl::LogLevel::kWarn, nccl::kLogInit | nccl::kLogTuning,
                     str_cat(std::string(ctx.status().message()),
                             "; failing this communicator's init so that no rank tunes "
                             "differently from the others"));
    return nccl::Result::kInvalidUsage;
  } catch (const std::exception& e) {
    detail::log_line(log, nccl::LogLevel::kWarn, nccl::kLogInit | nccl::kLogTuning,
                     std::string("init failed (") + e.what() + ")");
  } catch (...) {
    detail::log_line(log, nccl::LogLevel::kWarn, nccl::kLogInit | nccl::kLogTuning,
                     "init failed");
  }
  return nccl::Result::kInternalError;
}

inline nccl::Result tuner_init_v5(void** context, uint64_t comm_id, size_t n_ranks,
                                  size_t n_nodes, nccl::Logger log, nccl::NvlDomainInfoV5* nvl,
                                  nccl::TunerConstantsV5* constants) noexcept {
  TunerEnvironment env;
  try {
    env = TunerEnvironment::from_process();
  } catch (...) {
    if (context != nullptr) *context = detail::static_pass_through();
    return nccl::Result::kInternalError;
  }
  return tuner_init(context, comm_id, n_ranks, n_nodes, log, nvl, constants,
                    tune::NcclRelease::k2_30, env);
}

namespace detail {
// v3 and v4 inits: no constants, no NVL domain info; NCCL's defaults of `release`.
inline nccl::Result tuner_init_without_constants(size_t n_ranks, size_t n_nodes,
                                                 nccl::Logger log, void** context,
                                                 tune::NcclRelease release) noexcept {
  TunerEnvironment env;
  try {
    env = TunerEnvironment::from_process();
  } catch (...) {
    if (context != nullptr) *context = static_pass_through();
    return nccl::Result::kInternalError;
  }
  return tuner_init(context, 0, n_ranks, n_nodes, log, nullptr, nullptr, release, env);
}
}  // namespace detail

// v3: called by NCCL 2.22 and 2.23 only (later releases find v4 or newer first).
inline nccl::Result tuner_init_v3(size_t n_ranks, size_t n_nodes, nccl::Logger log,
                                  void** context) noexcept {
  return detail::tuner_init_without_constants(n_ranks, n_nodes, log, context,
                                              tune::NcclRelease::k2_23);
}
// v4: called by NCCL 2.24 to 2.27.
inline nccl::Result tuner_init_v4(size_t n_ranks, size_t n_nodes, nccl::Logger log,
                                  void** context) noexcept {
  return detail::tuner_init_without_constants(n_ranks, n_nodes, log, context,
                                              tune::NcclRelease::k2_27);
}

inline nccl::Result tuner_get_coll_info_v4(void* context, nccl::Func coll, size_t n_bytes,
                                           int num_pipe_ops, float** cost_table, int num_algo,
                                           int num_proto, int reg_buff, int* n_channels) noexcept {
  const auto* ctx = static_cast<const TunerPluginContext*>(context);
  if (ctx != nullptr && ctx->core)
    ctx->core->fill_cost_table(coll, n_bytes, num_pipe_ops, reinterpret_cast<float*>(cost_table),
                               num_algo, num_proto, reg_buff, n_channels);
  return nccl::Result::kSuccess;
}

// v3 has no regBuff: -1 (unknown) matches only rules whose regBuff is -1.
inline nccl::Result tuner_get_coll_info_v3(void* context, nccl::Func coll, size_t n_bytes,
                                           int num_pipe_ops, float** cost_table, int num_algo,
                                           int num_proto, int* n_channels) noexcept {
  return tuner_get_coll_info_v4(context, coll, n_bytes, num_pipe_ops, cost_table, num_algo,
                                num_proto, -1, n_channels);
}

// finalize (v5, v6) and destroy (v3, v4).
inline nccl::Result tuner_finalize(void* context) noexcept {
  auto* ctx = static_cast<TunerPluginContext*>(context);
  if (ctx != nullptr && ctx != detail::static_pass_through()) delete ctx;
  return nccl::Result::kSuccess;
}

}  // namespace railyard::plugin

