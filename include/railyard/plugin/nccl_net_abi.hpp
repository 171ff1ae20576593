// railyard/plugin/nccl_net_abi.hpp — NCCL's net plugin ABI, versions 8 to 12,
// declared by railyard (no NCCL header is needed to build or test a net plugin).
//
//   #include "railyard/plugin/nccl_net_abi.hpp"
//   namespace nccl = railyard::plugin::nccl;
//   void* lib = dlopen("libnccl-net-railyard.so", RTLD_NOW | RTLD_LOCAL);
//   for (const nccl::NetSymbol& s : nccl::kNetSymbolsInProbeOrder)   // v12 ... v8
//     if (void* p = dlsym(lib, s.name)) { /* s.version 12: cast to nccl::NetV12* ... */ }
//   void* ctx = nullptr;
//   net->init(&ctx, /*commId=*/1, &config, logger, /*profiler=*/nullptr);
//   char handle[nccl::kNetHandleMaxSize];
//   net->listen(ctx, dev, handle, &listen_comm);        // the handle goes to the peer
//   net->connect(ctx, dev, handle, &send_comm, &dev_handle);   // until send_comm != NULL
//
// Where each declaration comes from (NVIDIA/nccl 2.30.7; docs/net-plugin.md):
//   src/include/plugin/nccl_net.h        NCCL_NET_HANDLE_MAXSIZE 128, NCCL_PTR_HOST 1,
//                                        NCCL_PTR_CUDA 2, NCCL_PTR_DMABUF 4,
//                                        NCCL_NET_MAX_REQUESTS 32 (per comm),
//                                        NCCL_MAX_NET_SIZE_BYTES 2^40
//   src/include/nccl_device/net_device.h ncclNetDeviceType (HOST 0),
//                                        ncclNetDeviceHandle_v7_t = _v8.._v12
//   src/include/plugin/net/net_v8.h      ncclNet_v8_t: init(logger), connect(dev, handle,
//                                        ...), isend(int size), irecv(int* sizes),
//                                        properties without forceFlush/vProps
//   src/include/plugin/net/net_v9.h      v8 + forceFlush, vProps (4 devs), maxP2pBytes,
//                                        maxCollBytes; size_t sizes; makeVDevice
//   src/include/plugin/net/net_v10.h     v9 + init(logger, profiler), connect(dev,
//                                        ncclNetCommConfig_v10_t*, handle, ...),
//                                        isend/irecv with phandle(s)
//   src/include/plugin/net/net_v11.h     init(void** ctx, commId, config, logger,
//                                        profiler); listen/connect take ctx;
//                                        maxMultiRequestSize; finalize(ctx), setNetAttr
//   src/include/plugin/net/net_v12.h     v11 + railId, planeId (int16_t) at the end of
//                                        the properties; vProps of 8 devs
//   src/plugin/net.cc                    probe order ncclNetPlugin_v12 ... _v6
//   src/plugin/plugin_open.cc            dlopen(RTLD_NOW | RTLD_LOCAL) of
//                                        libnccl-net-<NCCL_NET_PLUGIN>.so
//   src/graph/topo.cc                    makeVDevice == NULL: NCCL uses the physical
//                                        devices (no NIC merging)
//
// Everything is a C-compatible standard-layout type; the static_asserts below
// pin the LP64 layout of NCCL's C headers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "railyard/plugin/nccl_tuner_abi.hpp"  // Result, LogLevel, Logger, log subsystems

namespace railyard::plugin::nccl {

inline constexpr size_t kNetHandleMaxSize = 128;
inline constexpr int kPtrHost = 0x1;
inline constexpr int kPtrCuda = 0x2;
inline constexpr int kPtrDmabuf = 0x4;
inline constexpr int kNetMaxRequests = 32;
inline constexpr size_t kMaxNetSizeBytes = size_t{1} << 40;
inline constexpr int kNetMaxDevsPerNicV9 = 4;   // NCCL_NET_MAX_DEVS_PER_NIC_V11 (v9..v11)
inline constexpr int kNetMaxDevsPerNicV12 = 8;  // NCCL_NET_MAX_DEVS_PER_NIC_V12
inline constexpr int kNetTrafficClassUndef = -1;
inline constexpr int16_t kNetIdUndef = -1;

enum class NetDeviceType : int { kHost = 0, kUnpack = 1 };

// Plain structs and function-pointer types (no C linkage needed for layouts).
struct NetDeviceHandle {  // ncclNetDeviceHandle_v7_t .. _v12_t
  NetDeviceType net_device_type;
  int net_device_version;
  void* handle;
  size_t size;
  int needs_proxy_progress;
};

struct NetPropertiesV8 {
  char* name;
  char* pci_path;
  uint64_t guid;
  int ptr_support;
  int reg_is_global;
  int speed;  // Mb/s
  int port;
  float latency;
  int max_comms;
  int max_recvs;
  NetDeviceType net_device_type;
  int net_device_version;
};

template <int kDevs>
struct NetVDeviceProps {
  int ndevs;
  int devs[kDevs];
};

// The properties are declared one by one, as NCCL declares them: a field one
// version adds sits inside the next version's layout (vProps grew from 4 to 8
// devices in v12, before maxP2pBytes), so no version is a prefix to extend.
// v9 and v10 share this layout.
struct NetPropertiesV9 {
  char* name;
  char* pci_path;
  uint64_t guid;
  int ptr_support;
  int reg_is_global;
  int force_flush;
  int speed;
  int port;
  float latency;
  int max_comms;
  int max_recvs;
  NetDeviceType net_device_type;
  int net_device_version;
  NetVDeviceProps<kNetMaxDevsPerNicV9> v_props;
  size_t max_p2p_bytes;
  size_t max_coll_bytes;
};

struct NetPropertiesV11 {
  char* name;
  char* pci_path;
  uint64_t guid;
  int ptr_support;
  int reg_is_global;
  int force_flush;
  int speed;
  int port;
  float latency;
  int max_comms;
  int max_recvs;
  NetDeviceType net_device_type;
  int net_device_version;
  NetVDeviceProps<kNetMaxDevsPerNicV9> v_props;
  size_t max_p2p_bytes;
  size_t max_coll_bytes;
  int max_multi_request_size;
};

struct NetPropertiesV12 {
  char* name;
  char* pci_path;
  uint64_t guid;
  int ptr_support;
  int reg_is_global;
  int force_flush;
  int speed;
  int port;
  float latency;
  int max_comms;
  int max_recvs;
  NetDeviceType net_device_type;
  int net_device_version;
  NetVDeviceProps<kNetMaxDevsPerNicV12> v_props;
  size_t max_p2p_bytes;
  size_t max_coll_bytes;
  int max_multi_request_size;
  int16_t rail_id;
  int16_t plane_id;
};

struct NetCommConfig {  // ncclNetCommConfig_v10_t .. _v12_t
  int traffic_class;
};

struct NetCommAttr {  // ncclNetCommAttr_v11_t / _v12_t
  int32_t max_concurrent_peers;
  int32_t min_concurrent_peers;
  int32_t max_flows_per_peer;
  int32_t min_flows_per_peer;
};
struct NetAttr {  // ncclNetAttr_v11_t / _v12_t
  NetCommAttr send_comm_attr;
  NetCommAttr recv_comm_attr;
  uint32_t op;
  uint32_t algo;
  uint32_t proto;
};

// ncclProfilerCallback_t (src/include/nccl_common.h); railyard never calls it.
using ProfilerCallback = Result (*)(void** e_handle, int type, void* p_handle, int64_t plugin_id,
                                    void* extra_data);

// The calls every version shares, with the same signatures.
using DevicesFn = Result (*)(int* ndev);
using AcceptFn = Result (*)(void* listen_comm, void** recv_comm, NetDeviceHandle** dev_comm);
using RegMrFn = Result (*)(void* comm, void* data, size_t size, int type, void** mhandle);
using RegMrDmaBufFn = Result (*)(void* comm, void* data, size_t size, int type, uint64_t offset,
                                 int fd, void** mhandle);
using DeregMrFn = Result (*)(void* comm, void* mhandle);
using IflushFn = Result (*)(void* recv_comm, int n, void** data, int* sizes, void** mhandles,
                            void** request);
using TestFn = Result (*)(void* request, int* done, int* sizes);
using CloseFn = Result (*)(void* comm);
using GetDeviceMrFn = Result (*)(void* comm, void* mhandle, void** dptr_mhandle);
using IrecvConsumedFn = Result (*)(void* recv_comm, int n, void* request);

struct NetV8 {
  const char* name;
  Result (*init)(Logger log);
  DevicesFn devices;
  Result (*get_properties)(int dev, NetPropertiesV8* props);
  Result (*listen)(int dev, void* handle, void** listen_comm);
  Result (*connect)(int dev, void* handle, void** send_comm, NetDeviceHandle** dev_comm);
  AcceptFn accept;
  RegMrFn reg_mr;
  RegMrDmaBufFn reg_mr_dma_buf;
  DeregMrFn dereg_mr;
  Result (*isend)(void* send_comm, void* data, int size, int tag, void* mhandle, void** request);
  Result (*irecv)(void* recv_comm, int n, void** data, int* sizes, int* tags, void** mhandles,
                  void** request);
  IflushFn iflush;
  TestFn test;
  CloseFn close_send;
  CloseFn close_recv;
  CloseFn close_listen;
  GetDeviceMrFn get_device_mr;
  IrecvConsumedFn irecv_consumed;
};

struct NetV9 {
  const char* name;
  Result (*init)(Logger log);
  DevicesFn devices;
  Result (*get_properties)(int dev, NetPropertiesV9* props);
  Result (*listen)(int dev, void* handle, void** listen_comm);
  Result (*connect)(int dev, void* handle, void** send_comm, NetDeviceHandle** dev_comm);
  AcceptFn accept;
  RegMrFn reg_mr;
  RegMrDmaBufFn reg_mr_dma_buf;
  DeregMrFn dereg_mr;
  Result (*isend)(void* send_comm, void* data, size_t size, int tag, void* mhandle,
                  void** request);
  Result (*irecv)(void* recv_comm, int n, void** data, size_t* sizes, int* tags, void** mhandles,
                  void** request);
  IflushFn iflush;
  TestFn test;
  CloseFn close_send;
  CloseFn close_recv;
  CloseFn close_listen;
  GetDeviceMrFn get_device_mr;
  IrecvConsumedFn irecv_consumed;
  Result (*make_v_device)(int* d, NetVDeviceProps<kNetMaxDevsPerNicV9>* props);
};

using IsendV10Fn = Result (*)(void* send_comm, void* data, size_t size, int tag, void* mhandle,
                              void* phandle, void** request);
using IrecvV10Fn = Result (*)(void* recv_comm, int n, void** data, size_t* sizes, int* tags,
                              void** mhandles, void** phandles, void** request);

struct NetV10 {
  const char* name;
  Result (*init)(Logger log, ProfilerCallback profiler);
  DevicesFn devices;
  Result (*get_properties)(int dev, NetPropertiesV9* props);
  Result (*listen)(int dev, void* handle, void** listen_comm);
  Result (*connect)(int dev, NetCommConfig* config, void* handle, void** send_comm,
                    NetDeviceHandle** dev_comm);
  AcceptFn accept;
  RegMrFn reg_mr;
  RegMrDmaBufFn reg_mr_dma_buf;
  DeregMrFn dereg_mr;
  IsendV10Fn isend;
  IrecvV10Fn irecv;
  IflushFn iflush;
  TestFn test;
  CloseFn close_send;
  CloseFn close_recv;
  CloseFn close_listen;
  GetDeviceMrFn get_device_mr;
  IrecvConsumedFn irecv_consumed;
  Result (*make_v_device)(int* d, NetVDeviceProps<kNetMaxDevsPerNicV9>* props);
};

// v11 and v12 differ only in the properties (and the vProps they point to).
template <class Properties, int kDevs>
struct NetV11Layout {
  const char* name;
  Result (*init)(void** ctx, uint64_t comm_id, NetCommConfig* config, Logger log,
                 ProfilerCallback profiler);
  DevicesFn devices;
  Result (*get_properties)(int dev, Properties* props);
  Result (*listen)(void* ctx, int dev, void* handle, void** listen_comm);
  Result (*connect)(void* ctx, int dev, void* handle, void** send_comm,
                    NetDeviceHandle** dev_comm);
  AcceptFn accept;
  RegMrFn reg_mr;
  RegMrDmaBufFn reg_mr_dma_buf;
  DeregMrFn dereg_mr;
  IsendV10Fn isend;
  IrecvV10Fn irecv;
  IflushFn iflush;
  TestFn test;
  CloseFn close_send;
  CloseFn close_recv;
  CloseFn close_listen;
  GetDeviceMrFn get_device_mr;
  IrecvConsumedFn irecv_consumed;
  Result (*make_v_device)(int* d, NetVDeviceProps<kDevs>* props);
  Result (*finalize)(void* ctx);
  Result (*set_net_attr)(void* ctx, NetAttr* attr);
};
using NetV11 = NetV11Layout<NetPropertiesV11, kNetMaxDevsPerNicV9>;
using NetV12 = NetV11Layout<NetPropertiesV12, kNetMaxDevsPerNicV12>;

struct NetSymbol {
  const char* name;
  int version;
};
// NCCL 2.30's probe order (src/plugin/net.cc), restricted to the versions
// railyard implements. NCCL 2.22 loads v8 first, 2.23-2.24 v9, 2.25-2.27 v10,
// 2.28 v11, 2.29-2.30 v12 (the newest each release declares).
inline constexpr NetSymbol kNetSymbolsInProbeOrder[] = {
    {"ncclNetPlugin_v12", 12}, {"ncclNetPlugin_v11", 11}, {"ncclNetPlugin_v10", 10},
    {"ncclNetPlugin_v9", 9},   {"ncclNetPlugin_v8", 8},
};

// The LP64 layouts of NCCL's C structs.
static_assert(sizeof(NetDeviceHandle) == 32);
static_assert(sizeof(NetPropertiesV8) == 64);
static_assert(offsetof(NetPropertiesV9, v_props) == 64);
static_assert(sizeof(NetPropertiesV9) == 104);
static_assert(sizeof(NetPropertiesV11) == 112);
static_assert(offsetof(NetPropertiesV12, max_p2p_bytes) == 104);
static_assert(offsetof(NetPropertiesV12, rail_id) == 124);
static_assert(sizeof(NetPropertiesV12) == 128);
static_assert(sizeof(NetV8) == 19 * sizeof(void*));
static_assert(sizeof(NetV9) == 20 * sizeof(void*));
static_assert(sizeof(NetV10) == 20 * sizeof(void*));
static_assert(sizeof(NetV11) == 22 * sizeof(void*));
static_assert(sizeof(NetV12) == 22 * sizeof(void*));
static_assert(sizeof(NetAttr) == 44);

}  // namespace railyard::plugin::nccl
