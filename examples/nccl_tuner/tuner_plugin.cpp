// libnccl-tuner-railyard.so — railyard's NCCL tuner plugin.
//
// Exports exactly the four data symbols NCCL probes (ncclTunerPlugin_v6, _v5,
// _v4, _v3; see railyard/plugin/nccl_tuner_abi.hpp), each a table of the
// adapters in railyard/plugin/tuner.hpp. Everything else in this library —
// railyard, C++ template instances — is hidden by -fvisibility=hidden and the
// version script (exports.map). It is compiled with RAILYARD_STANDALONE_STATUS
// and links no Abseil, so it needs only the C/C++ runtimes and cannot collide
// with another Abseil in the process (PyTorch ships its own). See README.md.
//
//   NCCL_TUNER_PLUGIN=railyard RAILYARD_CLUSTER=h100-1024-2to1
//   NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING torchrun ...   (same environment)
#include "railyard/plugin/nccl_tuner_abi.hpp"
#include "railyard/plugin/tuner.hpp"

namespace {

namespace nccl = railyard::plugin::nccl;
namespace rp = railyard::plugin;

}  // namespace

#define RAILYARD_TUNER_EXPORT __attribute__((visibility("default")))

extern "C" {

// NCCL 2.30+: v6 adds getChunkSize, which railyard leaves to NCCL (null).
RAILYARD_TUNER_EXPORT extern const nccl::TunerV6 ncclTunerPlugin_v6;
const nccl::TunerV6 ncclTunerPlugin_v6 = {rp::kTunerPluginName, rp::tuner_init_v5,
                                          rp::tuner_get_coll_info_v4, rp::tuner_finalize, nullptr};

// NCCL 2.28, 2.29.
RAILYARD_TUNER_EXPORT extern const nccl::TunerV5 ncclTunerPlugin_v5;
const nccl::TunerV5 ncclTunerPlugin_v5 = {rp::kTunerPluginName, rp::tuner_init_v5,
                                          rp::tuner_get_coll_info_v4, rp::tuner_finalize};

// NCCL 2.24 .. 2.27.
RAILYARD_TUNER_EXPORT extern const nccl::TunerV4 ncclTunerPlugin_v4;
const nccl::TunerV4 ncclTunerPlugin_v4 = {rp::kTunerPluginName, rp::tuner_init_v4,
                                          rp::tuner_get_coll_info_v4, rp::tuner_finalize};

// NCCL 2.22, 2.23.
RAILYARD_TUNER_EXPORT extern const nccl::TunerV3 ncclTunerPlugin_v3;
const nccl::TunerV3 ncclTunerPlugin_v3 = {rp::kTunerPluginName, rp::tuner_init_v3,
                                          rp::tuner_get_coll_info_v3, rp::tuner_finalize};

}  // extern "C"
