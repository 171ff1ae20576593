// railyard/plugin/tuner.hpp — the C-ABI adapters of railyard's NCCL tuner: what
// NCCL's init / getCollInfo / finalize call (examples/nccl_tuner exports them),
// around the tuning model of tune/model.hpp. Nothing here throws or fails a
// communicator.
//
//   // examples/nccl_tuner/tuner_plugin.cpp:
//   const nccl::TunerV6 ncclTunerPlugin_v6 = {railyard::plugin::kTunerPluginName,
//       railyard::plugin::tuner_init_v5, railyard::plugin::tuner_get_coll_info_v4,
//       railyard::plugin::tuner_finalize, nullptr};
//
// Environment (read at init, per communicator): RAILYARD_CLUSTER (a spec or a
// preset) or RAILYARD_CLUSTER_FILE (one spec line); NCCL_TUNER_CONFIG_FILE (rules,
// tune/rules.hpp); RAILYARD_HOSTS (host of node i, in node order).
//
// Hot path: getCollInfo calls TunerCore::fill_cost_table (no allocation, lock or
// I/O; see tune/model.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

using tune::TunerCore;
using tune::TunerOptions;

// ---------------------------------------------------------------------------
// The plugin boundary: what NCCL's init/getCollInfo/finalize call. Nothing here
// throws or fails a communicator: any problem is logged (WARN, TUNING) and the
// context passes NCCL's table through untouched.
// ---------------------------------------------------------------------------

// The plugin's inputs from the environment.
struct TunerEnvironment {
  std::optional<std::string> cluster;       // RAILYARD_CLUSTER: spec string or preset
  std::optional<std::string> cluster_file;  // RAILYARD_CLUSTER_FILE (RAILYARD_CLUSTER wins)
  std::optional<std::string> rules_file;    // NCCL_TUNER_CONFIG_FILE
  std::optional<std::string> hosts;         // RAILYARD_HOSTS: host ids of nodes 0..n-1

  [[nodiscard]] static TunerEnvironment from_process() {
    auto get = [](const char* name) -> std::optional<std::string> {
      const char* v = std::getenv(name);
      if (v == nullptr || *v == '\0') return std::nullopt;
      return std::string(v);
    };
    return {get("RAILYARD_CLUSTER"), get("RAILYARD_CLUSTER_FILE"), get("NCCL_TUNER_CONFIG_FILE"),
            get("RAILYARD_HOSTS")};
  }
};

// Everything one communicator's tuner keeps. `core` empty: pass-through.
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

inline TunerPluginContext* make_context(size_t n_ranks, size_t n_nodes, uint64_t comm_id,
                                        const nccl::NvlDomainInfoV5* nvl, nccl::Logger log,
                                        const TunerEnvironment& env) {
  auto ctx = std::make_unique<TunerPluginContext>();
  ctx->log = log;
  ctx->comm_id = comm_id;
  auto disabled = [&](const std::string& why) {
    log_line(log, nccl::LogLevel::kWarn, nccl::kLogTuning,
             str_cat(why, "; leaving NCCL's tuning untouched for this communicator"));
    return ctx.release();
  };
  std::string cluster_text;
  if (env.cluster) {
    cluster_text = *env.cluster;
  } else if (env.cluster_file) {
    auto text = read_text_file("RAILYARD_CLUSTER_FILE", *env.cluster_file);
    if (!text.ok()) return disabled(std::string(text.status().message()));
    cluster_text = std::move(*text);
  } else {
    return disabled("neither RAILYARD_CLUSTER nor RAILYARD_CLUSTER_FILE is set");
  }
  std::string rules_text;
  if (env.rules_file) {
    auto text = read_text_file("NCCL_TUNER_CONFIG_FILE", *env.rules_file);
    if (!text.ok()) return disabled(std::string(text.status().message()));
    rules_text = std::move(*text);
  }
  tune::TunerOptions o;
  o.cluster = cluster_text;
  o.ranks = static_cast<int64_t>(std::min<size_t>(n_ranks, size_t{1} << 40));
  o.nodes = static_cast<int64_t>(std::min<size_t>(n_nodes, size_t{1} << 40));
  if (nvl != nullptr)
    o.nvl = tune::NvlDomains{nvl->n_nvl_domains, nvl->min_ranks_per_nvl_domain,
                       nvl->max_ranks_per_nvl_domain};
  o.rules = rules_text;
  std::string hosts_note;
  if (env.hosts) {
    auto hosts = parse_host_list("RAILYARD_HOSTS", *env.hosts);
    if (!hosts.ok()) return disabled(std::string(hosts.status().message()));
    if (static_cast<int64_t>(hosts->size()) == o.nodes)
      o.hosts = std::move(*hosts);
    else
      hosts_note = str_cat("; RAILYARD_HOSTS lists ", hosts->size(), " hosts, not this ",
                           "communicator's ", o.nodes, " nodes: assuming consecutive hosts");
  }
  auto core = tune::TunerCore::create(o);
  if (!core.ok())
    return disabled(str_cat(env.cluster ? "RAILYARD_CLUSTER" : "RAILYARD_CLUSTER_FILE", ": ",
                            std::string(core.status().message())));
  for (const std::string& w : core->warnings())
    log_line(log, nccl::LogLevel::kWarn, nccl::kLogTuning,
             str_cat("NCCL_TUNER_CONFIG_FILE=", env.rules_file.value_or(""), " ", w));
  std::string rules_note;
  if (env.rules_file)
    rules_note = str_cat(
        "; ", core->rules().size(), " of ", core->rules_parsed(), " rules from ", *env.rules_file,
        " apply",
        core->warnings().empty() ? "" : str_cat(" (", core->warnings().size(), " lines ignored)"));
  char id[32];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(comm_id));
  log_line(log, nccl::LogLevel::kInfo, nccl::kLogInit | nccl::kLogTuning,
           str_cat("comm ", id, ": ", core->summary(), rules_note, hosts_note));
  ctx->core = std::move(*core);
  return ctx.release();
}

}  // namespace detail

// init of every version: never fails; *context is always set (pass-through on problems).
inline nccl::Result tuner_init(void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                               nccl::Logger log, const nccl::NvlDomainInfoV5* nvl,
                               const TunerEnvironment& env) noexcept {
  if (context == nullptr) return nccl::Result::kSuccess;
  *context = nullptr;
  try {
    *context = detail::make_context(n_ranks, n_nodes, comm_id, nvl, log, env);
  } catch (const std::exception& e) {
    detail::log_line(
        log, nccl::LogLevel::kWarn, nccl::kLogTuning,
        std::string("init failed (") + e.what() + "); leaving NCCL's tuning untouched");
  } catch (...) {
    detail::log_line(log, nccl::LogLevel::kWarn, nccl::kLogTuning,
                     "init failed; leaving NCCL's tuning untouched");
  }
  if (*context == nullptr) *context = detail::static_pass_through();
  return nccl::Result::kSuccess;
}

inline nccl::Result tuner_init_v5(
    void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes, nccl::Logger log,
    nccl::NvlDomainInfoV5* nvl,
    nccl::TunerConstantsV5* /*constants: left as NCCL set them*/) noexcept {
  TunerEnvironment env;
  try {
    env = TunerEnvironment::from_process();
  } catch (...) {
  }
  return tuner_init(context, comm_id, n_ranks, n_nodes, log, nvl, env);
}

inline nccl::Result tuner_init_v3(size_t n_ranks, size_t n_nodes, nccl::Logger log,
                                  void** context) noexcept {
  return tuner_init_v5(context, 0, n_ranks, n_nodes, log, nullptr, nullptr);
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

