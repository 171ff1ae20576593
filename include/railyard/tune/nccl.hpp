// railyard/tune/nccl.hpp — NCCL's numbering of what a tuner chooses among:
// collectives (ncclFunc_t), algorithms (NCCL_ALGO_*), protocols (NCCL_PROTO_*),
// and the names NCCL's example tuner uses for them in rule files. The tuning
// model (model.hpp), the rules (rules.hpp) and the plugin ABI
// (plugin/nccl_tuner_abi.hpp) share this one numbering.
//
//   using namespace railyard::tune::nccl;
//   float table[kNumAlgorithms][kNumProtocols];
//   table[kAlgoRing][kProtoSimple] = 0.0f;                 // force ring/simple
//   auto a = algorithm_by_name("nvls_tree");                // kAlgoNvlsTree
//
// Source (NVIDIA/nccl): src/include/plugin/nccl_tuner.h (NCCL_ALGO_*, NCCL_PROTO_*,
// NCCL_ALGO_PROTO_IGNORE), src/include/nccl_common.h (ncclFunc_t),
// plugins/tuner/example/plugin.c (parseCollType, parseAlgorithm, parseProtocol:
// the rule-file names).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace railyard::tune::nccl {

// ncclFunc_t. Tuners are asked about the first five; values from 5 on
// (send/recv and newer collectives) differ between NCCL releases, so a tuner
// must treat any value >= kNumTunedFunctions as "not mine".
enum class Func : int {
  kBroadcast = 0,
  kReduce = 1,
  kAllGather = 2,
  kReduceScatter = 3,
  kAllReduce = 4,
  kSendRecv = 5,
  kSend = 6,
  kRecv = 7,
};
inline constexpr int kNumTunedFunctions = 5;  // NCCL_NUM_FUNCTIONS

// Algorithms (NCCL_ALGO_*). NCCL >= 2.23 passes numAlgo = 7 (with PAT), older
// releases 6.
inline constexpr int kAlgoTree = 0;
inline constexpr int kAlgoRing = 1;
inline constexpr int kAlgoCollNetDirect = 2;
inline constexpr int kAlgoCollNetChain = 3;
inline constexpr int kAlgoNvls = 4;
inline constexpr int kAlgoNvlsTree = 5;
inline constexpr int kAlgoPat = 6;
inline constexpr int kNumAlgorithms = 7;  // NCCL_NUM_ALGORITHMS_V5

// Protocols (NCCL_PROTO_*).
inline constexpr int kProtoLl = 0;
inline constexpr int kProtoLl128 = 1;
inline constexpr int kProtoSimple = 2;
inline constexpr int kNumProtocols = 3;  // NCCL_NUM_PROTOCOLS_V5

// A cost-table entry NCCL does not allow (NCCL_ALGO_PROTO_IGNORE). Lower costs
// win; 0.0 forces an entry.
inline constexpr float kAlgoProtoIgnore = -1.0f;

// The names NCCL's example tuner reads in rule files, indexed by the value above.
inline constexpr std::array<std::string_view, kNumTunedFunctions> kCollectiveNames = {
    "broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
inline constexpr std::array<std::string_view, kNumAlgorithms> kAlgorithmNames = {
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
inline constexpr std::array<std::string_view, kNumProtocols> kProtocolNames = {"ll", "ll128",
                                                                               "simple"};

namespace detail {
template <size_t N>
constexpr std::optional<int32_t> index_of(const std::array<std::string_view, N>& names,
                                          std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<int32_t>(i);
  return std::nullopt;
}
}  // namespace detail

// By the exact (lower-case) names above; nullopt for anything else.
[[nodiscard]] constexpr std::optional<int32_t> collective_by_name(std::string_view name) {
  return detail::index_of(kCollectiveNames, name);
}
[[nodiscard]] constexpr std::optional<int32_t> algorithm_by_name(std::string_view name) {
  return detail::index_of(kAlgorithmNames, name);
}
[[nodiscard]] constexpr std::optional<int32_t> protocol_by_name(std::string_view name) {
  return detail::index_of(kProtocolNames, name);
}

}  // namespace railyard::tune::nccl
