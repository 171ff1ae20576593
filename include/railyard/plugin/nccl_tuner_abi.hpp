// railyard/plugin/nccl_tuner_abi.hpp — NCCL's tuner plugin ABI, versions 3 to 6,
// declared by railyard (no NCCL header is needed to build or test a tuner).
//
//   #include "railyard/plugin/nccl_tuner_abi.hpp"
//   namespace nccl = railyard::plugin::nccl;
//   void* lib = dlopen("libnccl-tuner-railyard.so", RTLD_NOW | RTLD_LOCAL);
//   for (const char* symbol : nccl::kTunerSymbolsInProbeOrder)   // v6, v5, v4, v3
//     if (void* s = dlsym(lib, symbol)) { /* cast to nccl::TunerV6* ... by version */ }
//   float table[nccl::kNumAlgorithms][nccl::kNumProtocols];      // contiguous, as NCCL's
//   tuner->get_coll_info(ctx, nccl::Func::kAllReduce, 1 << 20, 1,
//                        reinterpret_cast<float**>(table), nccl::kNumAlgorithms,
//                        nccl::kNumProtocols, /*regBuff=*/0, &channels);
//
// Where each declaration comes from (NVIDIA/nccl; docs/constants.md#nccl-tuner):
//   src/include/plugin/tuner/tuner_v3.h   TunerV3: {name, init(nRanks, nNodes, logger,
//                                         void** ctx), getCollInfo(ctx, collType, nBytes,
//                                         numPipeOps, float** table, numAlgo, numProto,
//                                         int* nChannels), destroy(ctx)}
//   src/include/plugin/tuner/tuner_v4.h   TunerV4: v3 with `int regBuff` before nChannels
//   src/include/plugin/tuner/tuner_v5.h   TunerV5: init(void** ctx, uint64_t commId, nRanks,
//                                         nNodes, logger, NvlDomainInfoV5*,
//                                         TunerConstantsV5*), getCollInfo as v4,
//                                         finalize(ctx); NCCL_NUM_ALGORITHMS_V5 7,
//                                         NCCL_NUM_PROTOCOLS_V5 3, HW links 3,
//                                         compute capabilities 4, tuning scales 3
//   src/include/plugin/tuner/tuner_v6.h   TunerV6: v5 + getChunkSize(ctx, collType, nBytes,
//                                         algo, proto, nChannels, size_t* chunkSize),
//                                         optional (NULL: NCCL's chunk size); v6 reuses
//                                         the v5 constants and NVL domain structs
//   src/include/plugin/nccl_tuner.h       NCCL_ALGO_* 0..6, NCCL_PROTO_* 0..2,
//                                         NCCL_ALGO_PROTO_IGNORE -1.0, NCCL_HW_* 0..2
//   src/include/nccl_common.h             ncclDebugLogLevel, ncclDebugLogSubSys,
//                                         ncclDebugLogger_t, ncclFunc_t
//   ext-tuner/basic/nccl/err.h            ncclResult_t values 0..6
//   src/plugin/tuner.cc                   probe order ncclTunerPlugin_v6, _v5, _v4, _v3, _v2
//   src/plugin/plugin_open.cc             dlopen(RTLD_NOW | RTLD_LOCAL) of NCCL_TUNER_PLUGIN
//                                         as given, then libnccl-tuner-<name>.so
//   src/enqueue.cc (ncclGetAlgoInfo)      the table is `float t[NCCL_NUM_ALGORITHMS]
//                                         [NCCL_NUM_PROTOCOLS]` passed as (float**)t: one
//                                         contiguous block, not an array of pointers;
//                                         *nChannels starts at 0 (= NCCL decides)
//
// Everything is a C-compatible standard-layout type; the static_asserts below pin
// the LP64 layout NCCL's C headers give. Enumerations that NCCL declares as C
// enums are `enum class ... : int` here: same size and calling convention.
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/tune/nccl.hpp"

namespace railyard::plugin::nccl {

// ncclResult_t.
enum class Result : int {
  kSuccess = 0,
  kUnhandledCudaError = 1,
  kSystemError = 2,
  kInternalError = 3,
  kInvalidArgument = 4,
  kInvalidUsage = 5,
  kRemoteError = 6,
};

// ncclDebugLogLevel.
enum class LogLevel : int {
  kNone = 0,
  kVersion = 1,
  kWarn = 2,
  kInfo = 3,
  kAbort = 4,
  kTrace = 5,
};

// ncclDebugLogSubSys flags (the `flags` argument of the logger; NCCL_DEBUG_SUBSYS).
inline constexpr unsigned long kLogInit = 0x1;
inline constexpr unsigned long kLogColl = 0x2;
inline constexpr unsigned long kLogNet = 0x10;
inline constexpr unsigned long kLogGraph = 0x20;
inline constexpr unsigned long kLogTuning = 0x40;
inline constexpr unsigned long kLogEnv = 0x80;

// Collectives, algorithms, protocols and the IGNORE cost: NCCL's numbering,
// shared with the tuning model (tune/nccl.hpp).
using tune::nccl::Func;
using tune::nccl::kAlgoCollNetChain;
using tune::nccl::kAlgoCollNetDirect;
using tune::nccl::kAlgoNvls;
using tune::nccl::kAlgoNvlsTree;
using tune::nccl::kAlgoPat;
using tune::nccl::kAlgoProtoIgnore;
using tune::nccl::kAlgoRing;
using tune::nccl::kAlgoTree;
using tune::nccl::kNumAlgorithms;
using tune::nccl::kNumProtocols;
using tune::nccl::kNumTunedFunctions;
using tune::nccl::kProtoLl;
using tune::nccl::kProtoLl128;
using tune::nccl::kProtoSimple;

// Hardware link classes of TunerConstantsV5::hw_latencies (NCCL_HW_*).
inline constexpr int kHwNvlink = 0;
inline constexpr int kHwPci = 1;
inline constexpr int kHwNet = 2;
inline constexpr int kNumHwLinks = 3;
inline constexpr int kNumCompCaps = 4;      // Volta, Ampere, Hopper, Blackwell
inline constexpr int kNumTuningScales = 3;  // 1 node, 2 nodes, 4+ nodes

extern "C" {

// ncclDebugLogger_t: printf-style; NCCL filters by NCCL_DEBUG and NCCL_DEBUG_SUBSYS.
using Logger = void (*)(LogLevel level, unsigned long flags, const char* file, int line,
                        const char* fmt, ...);

// ncclNvlDomainInfo_v5_t (also v6): the communicator's NVLink domains.
struct NvlDomainInfoV5 {
  int n_nvl_domains;
  int min_ranks_per_nvl_domain;
  int max_ranks_per_nvl_domain;
};

// ncclTunerConstants_v5_t (also v6): NCCL's own latency (µs) and bandwidth
// (GB/s) model tables, in/out at init.
struct TunerConstantsV5 {
  double base_latencies[kNumAlgorithms][kNumProtocols];
  double hw_latencies[kNumHwLinks][kNumAlgorithms][kNumProtocols];
  double ll_max_bws[kNumCompCaps][kNumTuningScales];
  double per_ch_max_ring_ll128_bws[kNumCompCaps][kNumTuningScales];
  double per_ch_max_tree_ll128_bws[kNumCompCaps][kNumTuningScales];
  double per_ch_max_tree_bws[kNumCompCaps][kNumTuningScales];
  double per_ch_max_nvls_tree_bws[kNumCompCaps][kNumTuningScales];
};

using InitV3Fn = Result (*)(size_t n_ranks, size_t n_nodes, Logger log, void** context);
using GetCollInfoV3Fn = Result (*)(void* context, Func coll, size_t n_bytes, int num_pipe_ops,
                                   float** cost_table, int num_algo, int num_proto,
                                   int* n_channels);
using GetCollInfoV4Fn = Result (*)(void* context, Func coll, size_t n_bytes, int num_pipe_ops,
                                   float** cost_table, int num_algo, int num_proto, int reg_buff,
                                   int* n_channels);
using DestroyFn = Result (*)(void* context);
using InitV5Fn = Result (*)(void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes,
                            Logger log, NvlDomainInfoV5* nvl_domain_info,
                            TunerConstantsV5* constants);
using GetChunkSizeV6Fn = Result (*)(void* context, Func coll, size_t n_bytes, int algo, int proto,
                                    int n_channels, size_t* chunk_size);

// ncclTuner_v3_t (NCCL 2.22, 2.23).
struct TunerV3 {
  const char* name;
  InitV3Fn init;
  GetCollInfoV3Fn get_coll_info;
  DestroyFn destroy;
};

// ncclTuner_v4_t (NCCL 2.24 .. 2.27).
struct TunerV4 {
  const char* name;
  InitV3Fn init;
  GetCollInfoV4Fn get_coll_info;
  DestroyFn destroy;
};

// ncclTuner_v5_t (NCCL 2.28, 2.29).
struct TunerV5 {
  const char* name;
  InitV5Fn init;
  GetCollInfoV4Fn get_coll_info;
  DestroyFn finalize;
};

// ncclTuner_v6_t (NCCL 2.30). get_chunk_size may be null.
struct TunerV6 {
  const char* name;
  InitV5Fn init;
  GetCollInfoV4Fn get_coll_info;
  DestroyFn finalize;
  GetChunkSizeV6Fn get_chunk_size;
};

}  // extern "C"

// The data symbols NCCL looks up, in the order it tries them (v2 and older are
// not provided by railyard).
inline constexpr const char* kTunerSymbolV3 = "ncclTunerPlugin_v3";
inline constexpr const char* kTunerSymbolV4 = "ncclTunerPlugin_v4";
inline constexpr const char* kTunerSymbolV5 = "ncclTunerPlugin_v5";
inline constexpr const char* kTunerSymbolV6 = "ncclTunerPlugin_v6";
inline constexpr const char* kTunerSymbolsInProbeOrder[4] = {kTunerSymbolV6, kTunerSymbolV5,
                                                             kTunerSymbolV4, kTunerSymbolV3};

// Layout as NCCL's C headers give it on LP64 (x86-64, aarch64 Linux).
static_assert(sizeof(Result) == sizeof(int) && sizeof(Func) == sizeof(int) &&
              sizeof(LogLevel) == sizeof(int));
static_assert(sizeof(NvlDomainInfoV5) == 3 * sizeof(int));
static_assert(offsetof(NvlDomainInfoV5, max_ranks_per_nvl_domain) == 2 * sizeof(int));
static_assert(sizeof(TunerConstantsV5) == sizeof(double) * (7 * 3 + 3 * 7 * 3 + 5 * 4 * 3));
static_assert(offsetof(TunerConstantsV5, hw_latencies) == sizeof(double) * 7 * 3);
static_assert(offsetof(TunerConstantsV5, ll_max_bws) == sizeof(double) * (7 * 3 + 3 * 7 * 3));
static_assert(offsetof(TunerConstantsV5, per_ch_max_nvls_tree_bws) ==
              sizeof(double) * (7 * 3 + 3 * 7 * 3 + 4 * 4 * 3));
static_assert(sizeof(TunerV3) == 4 * sizeof(void*) && sizeof(TunerV4) == 4 * sizeof(void*) &&
              sizeof(TunerV5) == 4 * sizeof(void*) && sizeof(TunerV6) == 5 * sizeof(void*));
static_assert(offsetof(TunerV3, get_coll_info) == 2 * sizeof(void*) &&
              offsetof(TunerV3, destroy) == 3 * sizeof(void*));
static_assert(offsetof(TunerV5, finalize) == 3 * sizeof(void*) &&
              offsetof(TunerV6, get_chunk_size) == 4 * sizeof(void*));

}  // namespace railyard::plugin::nccl
