/* railyard/c/railyard.h — railyard's stable C API (C11), for launchers,
 * schedulers and any language with a C FFI (Go's cgo, Rust, Python's ctypes).
 *
 * Link with librailyard_c.so (built and installed by railyard's CMake; it needs
 * only the C and C++ runtimes). Usage:
 *
 *   char err[RAILYARD_C_ERROR_LEN];
 *   if (railyard_c_api_version() != RAILYARD_C_API_VERSION) abort_build_mismatch();
 *   railyard_cluster* c;
 *   if (railyard_cluster_create("h100-1024", NULL, &c, err, sizeof err) != RAILYARD_OK) {
 *     fprintf(stderr, "railyard: %s\n", err); return 2;
 *   }
 *
 *   // Who is rank r: the job's plan on the hosts the scheduler granted.
 *   int32_t hosts[16]; size_t n;
 *   railyard_cluster_parse_hosts(c, "node[0040-0047,0008-0015]", hosts, 16, &n);
 *   railyard_order* o;
 *   if (railyard_order_ranks(c, "tp=8,pp=4,dp=4", hosts, n, 0, &o) != RAILYARD_OK)
 *     fprintf(stderr, "railyard: %s\n", railyard_last_error());
 *   railyard_order_info info; railyard_order_get_info(o, &info);  // info.order: Megatron order
 *   railyard_rank r; railyard_order_rank(o, 17, &r);        // r.host, r.gpu, r.tp ... r.pp
 *   railyard_order_destroy(o);
 *
 *   // Multi-tenant placement, CC settings, a simulated collective:
 *   railyard_allocator* a;
 *   railyard_allocator_create(c, "best_fit", 1, &a, NULL, 0);
 *   railyard_allocation got; int32_t held[32];
 *   railyard_allocator_allocate(a, "llm", "acme", 256, held, 32, &got);
 *   railyard_cc_settings cc; railyard_cc_request ccr = {0}; ccr.incast = 8;
 *   railyard_cc_recommend(c, &ccr, &cc, NULL, 0, NULL);      // cc.ecn[0].kmin_bytes ...
 *   railyard_sim_request sr = {0}; railyard_sim_result res;
 *   sr.collective = "allreduce"; sr.job = "tp=8,dp=16"; sr.bytes = 1 << 30;
 *   railyard_simulate(c, &sr, &res);                          // res.time_us, res.busbw_gbps
 *
 *   // Source ports for a connection: the path advisor (railyard/plugin/advisor.h)
 *   // on this cluster; its lookups are O(1) and allocate nothing.
 *   railyard_advisor* adv;
 *   railyard_cluster_advisor(c, "crc32", 7, &adv, NULL, 0);
 *   ... railyard_advisor_connect(adv, &local, &remote, 8, &plan) ...
 *   railyard_advisor_destroy(adv); railyard_allocator_destroy(a); railyard_cluster_destroy(c);
 *
 * Errors. Every call that can fail returns RAILYARD_OK (0) or a negative
 * railyard_status and leaves a message naming the argument or field and its
 * value ("job=tp=3: ...", "hosts=200: out of range ...") in a per-thread
 * buffer read by railyard_last_error(); the functions that create a handle
 * also copy it into their optional `err` buffer (NULL/0: none) and set the
 * handle to NULL. Nothing aborts the process, nothing
 * prints, no C++ exception or C++ type crosses this header (every call catches
 * everything; an unexpected failure is RAILYARD_EINTERNAL).
 *
 * Memory. Handles (railyard_cluster, railyard_order, railyard_allocator) are
 * opaque and freed by their destroy function (NULL is ignored). Arrays and
 * strings are written into caller-owned buffers of a given capacity; a buffer
 * that is too small gives RAILYARD_ERANGE and, where a size_t* `needed` is
 * taken, the size that would have fit. Strings passed in are copied when
 * kept; the caller may free them after the call.
 *
 * Threads. Each function says what it allows. In short: a cluster is
 * immutable once created, and any number of threads may use one cluster at
 * once (orders, advisors, CC, simulations); an order is immutable; an
 * allocator is mutable state whose calls the caller serializes; the last
 * error is per thread.
 *
 * Versions and ABI. RAILYARD_C_API_VERSION is incremented whenever a
 * function's signature, a struct's layout or a status code changes; such
 * changes happen only between railyard minor versions and are listed in
 * docs/c-api.md. railyard_c_api_version() is the version the loaded library
 * implements: compare it with the macro at start-up. Only the railyard_*
 * functions declared here and in railyard/plugin/advisor.h are exported.
 */
#ifndef RAILYARD_C_RAILYARD_H_
#define RAILYARD_C_RAILYARD_H_

#include <stddef.h>
#include <stdint.h>

#include "railyard/plugin/advisor.h"

#ifndef RAILYARD_C_API
#define RAILYARD_C_API
#endif

#ifdef __cplusplus
#define RAILYARD_C_NOEXCEPT noexcept
extern "C" {
#else
#define RAILYARD_C_NOEXCEPT
#endif

/* Version of this API (see "Versions and ABI" above). */
#define RAILYARD_C_API_VERSION 1

/* Size of the per-thread message buffer; a good size for `err` buffers. */
#define RAILYARD_C_ERROR_LEN 512

/* Return codes: 0 or negative. */
typedef enum railyard_status {
  RAILYARD_OK = 0,
  /* A NULL pointer where one is required, a number out of range, malformed
   * text (spec, plan, host list, name of a collective ...). */
  RAILYARD_EINVAL = -1,
  /* A well-formed name the cluster or allocator does not have (a node name,
   * a job name to release). */
  RAILYARD_ENOTFOUND = -2,
  /* A live job already has this name (allocate, reserve). */
  RAILYARD_EEXIST = -3,
  /* Not enough free hosts, no partition id left, or a simulation larger than
   * the memory limit given. Nothing changed. */
  RAILYARD_ENOSPACE = -4,
  /* reserve: a host is held by another job, or drained. Nothing changed. */
  RAILYARD_EBUSY = -5,
  /* A caller-owned buffer is too small (see `needed`). Nothing was written
   * to it except where the function says otherwise. */
  RAILYARD_ERANGE = -6,
  /* A file could not be read. */
  RAILYARD_EIO = -7,
  /* Anything else: out of memory, an internal error (the message says what). */
  RAILYARD_EINTERNAL = -8
} railyard_status;

/* ------------------------------------------------------------------------- */
/* Library                                                                   */
/* ------------------------------------------------------------------------- */

/* RAILYARD_C_API_VERSION of the loaded library. Thread-safe. */
RAILYARD_C_API int railyard_c_api_version(void) RAILYARD_C_NOEXCEPT;

/* railyard's version, "MAJOR.MINOR.PATCH" (static storage). Thread-safe. */
RAILYARD_C_API const char* railyard_version(void) RAILYARD_C_NOEXCEPT;

/* The message of the calling thread's last failed call ("" if none). Valid
 * until that thread's next failing call. Thread-safe (per thread). */
RAILYARD_C_API const char* railyard_last_error(void) RAILYARD_C_NOEXCEPT;

/* A constant description of a status code ("ok", "invalid argument", ...;
 * "unknown status" for other values). Thread-safe. */
RAILYARD_C_API const char* railyard_strerror(int status) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Clusters                                                                  */
/* ------------------------------------------------------------------------- */

/* A cluster: its descriptor (hosts, GPUs, rails, SUs, pods, switches), its
 * fabric graph (built on first use), node names and, for an imported cluster,
 * the cables missing or miswired in the file. Immutable once created: every
 * function taking a `const railyard_cluster*` may run on it from any number of
 * threads at once. */
typedef struct railyard_cluster railyard_cluster;

/* *out = a cluster from a spec string or preset name ("h100-1024",
 * "rail_fat_tree:hosts=256,oversub=2:1"; docs/cluster-spec.md). node_pattern
 * names the hosts (NULL or "": "node{host:04}"; placeholders {host} {su} {pod}
 * {slot} {domain}, docs/cluster-spec.md#numbering). O(hosts) for the names;
 * the fabric is built on first use.
 * EINVAL (message naming spec or node_pattern) with *out = NULL and the
 * message also in err (NUL-terminated, truncated to err_len; NULL/0: not
 * copied). Thread-safe. */
RAILYARD_C_API int railyard_cluster_create(const char* spec, const char* node_pattern,
                                           railyard_cluster** out, char* err,
                                           size_t err_len) RAILYARD_C_NOEXCEPT;

/* *out = a cluster fitted from a fabric file's text (docs/import.md): format
 * "cables" (a cable list, one row a_node,a_port,b_node,b_port[,gbps] per
 * cable, e.g. from LLDP neighbour tables) or "ibnetdiscover" (its output).
 * Hosts get the file's names; hosts with a missing or miswired host cable are
 * drained (no allocator gives them out), missing and miswired cables are down
 * in simulations. `text` need
 * not be NUL-terminated (text_len bytes are read). EINVAL for an unknown
 * format or a file railyard cannot fit (the message names the line or the
 * problem); *out and err as railyard_cluster_create. Thread-safe. */
RAILYARD_C_API int railyard_cluster_import(const char* format, const char* text, size_t text_len,
                                           railyard_cluster** out, char* err,
                                           size_t err_len) RAILYARD_C_NOEXCEPT;

/* railyard_cluster_import on the contents of the file at `path`; EIO (the
 * message names path) when it cannot be read. Thread-safe. */
RAILYARD_C_API int railyard_cluster_import_file(const char* format, const char* path,
                                                railyard_cluster** out, char* err,
                                                size_t err_len) RAILYARD_C_NOEXCEPT;

/* Frees the cluster. NULL is ignored. Handles made from it (orders,
 * allocators, advisors) stay valid: they hold their own copy. Must not
 * overlap another call on the same cluster. */
RAILYARD_C_API void railyard_cluster_destroy(railyard_cluster* cluster) RAILYARD_C_NOEXCEPT;

/* The shape of a cluster. */
typedef struct railyard_cluster_info {
  int32_t hosts;
  int32_t gpus_per_host;
  int32_t nics_per_host; /* = rails when equal to gpus_per_host */
  int32_t planes;        /* ports per NIC, each in its own plane */
  int32_t hosts_per_su;
  int32_t sus;
  int32_t pods;
  int32_t tiers;          /* switch tiers: 1 (rail_only), 2 or 3 */
  int32_t nic_gbps;       /* one NIC port's speed */
  int32_t drained_hosts;  /* imported clusters: hosts with a bad host cable */
  int64_t gpus;           /* hosts * gpus_per_host */
  char kind[32];          /* "rail_fat_tree", "tor_fat_tree", "rail_only" */
} railyard_cluster_info;

/* Fills *out. EINVAL for NULL. O(1). Thread-safe. */
RAILYARD_C_API int railyard_cluster_get_info(const railyard_cluster* cluster,
                                             railyard_cluster_info* out) RAILYARD_C_NOEXCEPT;

/* The name of host `host` (0 <= host < hosts) into buf (NUL-terminated):
 * the node pattern's name, or the imported file's. *needed (if not NULL) gets
 * the length + 1. EINVAL for a host out of range, ERANGE when buf_len is too
 * small (buf untouched). Thread-safe. */
RAILYARD_C_API int railyard_cluster_host_name(const railyard_cluster* cluster, int32_t host,
                                              char* buf, size_t buf_len,
                                              size_t* needed) RAILYARD_C_NOEXCEPT;

/* Host ids from text, in the text's order: a list of ids "0-15,32-47" when
 * the text holds only digits, ',' and '-'; otherwise a Slurm hostlist
 * expression of node names ("node[0003-0010,0035]", SLURM_JOB_NODELIST as
 * is). Writes *count ids into ids[0, capacity). EINVAL for a malformed list,
 * an id out of range or a host listed twice; ENOTFOUND for a name the
 * cluster does not have (the message names it); ERANGE when capacity is too
 * small (*count then says how many there are). O(names) after an O(hosts)
 * name index built on the first call. Thread-safe. */
RAILYARD_C_API int railyard_cluster_parse_hosts(const railyard_cluster* cluster, const char* text,
                                                int32_t* ids, size_t capacity,
                                                size_t* count) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Rank ordering                                                             */
/* ------------------------------------------------------------------------- */

/* A job's rank table: node rank i runs on host nodes[i]; rank r runs on host
 * nodes[r / gpus_per_host], GPU r % gpus_per_host (what torchrun, mpirun
 * --map-by seq and Megatron do with a node list), with parallel coordinates
 * given by the order string (first dimension fastest, as Megatron's order).
 * Immutable: thread-safe. */
typedef struct railyard_order railyard_order;

/* Flags of railyard_order_ranks. */
#define RAILYARD_ORDER_NAIVE 1u /* hosts as given, the plan's own order string */

/* Orders the ranks of `job` (a parallel plan: "tp=8,pp=4,dp=32[,ep=..,cp=..,
 * order=tp-cp-ep-dp-pp]", docs/cli.md's --job) on `hosts` (host_count ids, any
 * order; NULL/0: the first world / gpus_per_host hosts of the cluster).
 * Default: railyard's ordering (hosts grouped by pod, SU, leaf and NVLink
 * domain, the order string that keeps the heaviest traffic lowest;
 * railyard/placement/ordering.hpp); RAILYARD_ORDER_NAIVE: the hosts as given.
 * EINVAL (message naming job or hosts): malformed plan, hosts that do not
 * hold exactly the plan's world, a host out of range or listed twice, a job
 * larger than the cluster, unknown flags. Time: O(world) to O(world * 24)
 * (every order string tried when small). Thread-safe. */
RAILYARD_C_API int railyard_order_ranks(const railyard_cluster* cluster, const char* job,
                                        const int32_t* hosts, size_t host_count, uint32_t flags,
                                        railyard_order** out) RAILYARD_C_NOEXCEPT;

/* Frees an order. NULL is ignored. */
RAILYARD_C_API void railyard_order_destroy(railyard_order* order) RAILYARD_C_NOEXCEPT;

typedef struct railyard_order_info {
  int64_t world;         /* ranks */
  int32_t gpus_per_host; /* ranks per node */
  int32_t nodes;         /* world / gpus_per_host */
  int32_t sizes[5];      /* tp, cp, ep, dp, pp */
  char order[32];        /* Megatron order string, e.g. "tp-cp-ep-dp-pp" */
} railyard_order_info;

/* Fills *out. EINVAL for NULL. O(1). Thread-safe. */
RAILYARD_C_API int railyard_order_get_info(const railyard_order* order,
                                           railyard_order_info* out) RAILYARD_C_NOEXCEPT;

/* The node list: hosts[i] = the host of node rank i, i < info.nodes. ERANGE
 * when capacity < nodes. Thread-safe. */
RAILYARD_C_API int railyard_order_nodes(const railyard_order* order, int32_t* hosts,
                                        size_t capacity) RAILYARD_C_NOEXCEPT;

/* One rank: its host and GPU and its parallel coordinates. */
typedef struct railyard_rank {
  int32_t host;
  int32_t gpu;
  int32_t tp, cp, ep, dp, pp;
} railyard_rank;

/* Rank `rank` (0 <= rank < world). EINVAL out of range. O(1), no allocation.
 * Thread-safe. */
RAILYARD_C_API int railyard_order_rank(const railyard_order* order, int64_t rank,
                                       railyard_rank* out) RAILYARD_C_NOEXCEPT;

/* Every rank, out[r] for r < world. ERANGE when capacity < world. O(world),
 * no allocation. Thread-safe. */
RAILYARD_C_API int railyard_order_table(const railyard_order* order, railyard_rank* out,
                                        size_t capacity) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Multi-tenant placement                                                    */
/* ------------------------------------------------------------------------- */

/* The cluster's allocation state (railyard/placement/allocator.hpp): which
 * hosts each live job holds, jobs placed in the smallest fabric level (SU,
 * then pod) that holds them, one partition id (InfiniBand P_Key base,
 * 0x0001..0x7ffe) per tenant. NOT thread-safe: calls on one allocator must
 * not overlap (serialize them); different allocators are independent. */
typedef struct railyard_allocator railyard_allocator;

/* *out = an allocator on the cluster with policy "best_fit" (NULL or ""),
 * "first_fit" or "random" (hosts drawn with `seed`). An imported cluster's
 * drained hosts are never given out. EINVAL naming policy; *out and err as
 * railyard_cluster_create. O(hosts). Thread-safe with respect to the
 * cluster. */
RAILYARD_C_API int railyard_allocator_create(const railyard_cluster* cluster, const char* policy,
                                             uint64_t seed, railyard_allocator** out, char* err,
                                             size_t err_len) RAILYARD_C_NOEXCEPT;

/* Frees the allocator. NULL is ignored. */
RAILYARD_C_API void railyard_allocator_destroy(railyard_allocator* allocator) RAILYARD_C_NOEXCEPT;

/* Where a job went. Its hosts are written to the caller's array. */
typedef struct railyard_allocation {
  int32_t job;           /* id, in allocation order, never reused */
  int32_t partition_id;  /* the tenant's */
  int32_t hosts;         /* hosts written (ascending) */
  int32_t sus;           /* SUs the hosts lie in */
  int32_t pods;          /* pods the hosts lie in */
} railyard_allocation;

/* Places a whole job of `gpus` GPUs (a positive multiple of gpus_per_host)
 * named `name` for `tenant` (NULL or "": its own tenant) or nothing. Its
 * hosts go to hosts[0, gpus / gpus_per_host), ascending. Errors (nothing
 * changes): EINVAL — NULL or empty name, gpus not a positive multiple of
 * gpus_per_host or larger than the cluster; ERANGE — capacity below the
 * job's hosts; EEXIST — a live job has the name; ENOSPACE — too few free
 * hosts or no partition id left. O(SUs + pods log pods + k log k). */
RAILYARD_C_API int railyard_allocator_allocate(railyard_allocator* allocator, const char* name,
                                               const char* tenant, int64_t gpus, int32_t* hosts,
                                               size_t capacity,
                                               railyard_allocation* out) RAILYARD_C_NOEXCEPT;

/* Places a job on exactly `hosts` (host_count ids, any order): a job already
 * running there. out may be NULL. Errors (nothing changes): EINVAL — empty
 * name, no hosts, a host out of range or listed twice; EEXIST — the name is
 * live; EBUSY — a host is held by another job or drained; ENOSPACE — no
 * partition id left. O(k log k). */
RAILYARD_C_API int railyard_allocator_reserve(railyard_allocator* allocator, const char* name,
                                              const char* tenant, const int32_t* hosts,
                                              size_t host_count,
                                              railyard_allocation* out) RAILYARD_C_NOEXCEPT;

/* Frees the live job `name`'s hosts (and, with its tenant's last job, the
 * partition id). ENOTFOUND when no live job has the name. O(hosts of job). */
RAILYARD_C_API int railyard_allocator_release(railyard_allocator* allocator,
                                              const char* name) RAILYARD_C_NOEXCEPT;

typedef struct railyard_allocator_state {
  int32_t free_hosts;
  int32_t live_jobs;
  int32_t live_tenants;
  int32_t largest_unsplit_hosts; /* largest job one SU holds right now */
  int32_t jobs_split_across_sus;
  int32_t jobs_split_across_pods;
} railyard_allocator_state;

/* Fills *out. O(SUs). */
RAILYARD_C_API int railyard_allocator_get_state(const railyard_allocator* allocator,
                                                railyard_allocator_state* out) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Source ports: the path advisor on a cluster                               */
/* ------------------------------------------------------------------------- */

/* A path advisor (railyard/plugin/advisor.h) on this cluster, whatever its
 * source (spec or imported file): railyard_advisor_connect plans a
 * connection's QPs and their RoCEv2 source ports / GRH flow labels over
 * distinct uplinks, railyard_advisor_source_port looks one up in O(1) without
 * allocating. hash_model and hash_seed as railyard_advisor_create (NULL:
 * "crc32"). Plans on the fabric as designed (an imported file's missing
 * cables are not avoided). Free with railyard_advisor_destroy. EINVAL naming
 * hash_model; *out and err as railyard_cluster_create. O(GPUs). Thread-safe
 * with respect to the cluster; the advisor's own calls follow advisor.h. */
RAILYARD_C_API int railyard_cluster_advisor(const railyard_cluster* cluster,
                                            const char* hash_model, uint32_t hash_seed,
                                            railyard_advisor** out, char* err,
                                            size_t err_len) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Congestion control                                                        */
/* ------------------------------------------------------------------------- */

/* What the settings are for. Zero-initialize, then set what you know. */
typedef struct railyard_cc_request {
  /* Line-rate senders into one port at once. 0: the job's (its training
   * step's largest incast, railyard/cc/incast.hpp) when job is set, else 1. */
  int32_t incast;
  const char* job;           /* NULL or a plan, on hosts (NULL/0: the first) */
  const int32_t* hosts;
  size_t host_count;
  int32_t mtu_bytes;            /* 0: 4096; else 256, 512, 1024, 2048 or 4096 */
  double buffer_bytes_per_port; /* 0: derived from the switch */
  double message_bytes;         /* 0: NCCL's 4 MiB buffer */
  double cable_m;               /* 0: the design's cable lengths */
} railyard_cc_request;

#define RAILYARD_CC_MAX_TIERS 8

/* ECN marking on one egress tier (RED/ECN: mark with probability rising from
 * 0 at kmin to pmax at kmax). */
typedef struct railyard_cc_ecn {
  char tier[24]; /* "leaf->host", "leaf->spine", "spine->leaf", ... */
  double rtt_us;
  double bdp_bytes;
  double kmin_bytes;
  double kmax_bytes;
  double pmax;
  int32_t fits; /* 1 when the incast burst fits the usable buffer */
} railyard_cc_ecn;

/* DCQCN (ConnectX names in comments; railyard/cc/derive.hpp). */
typedef struct railyard_cc_dcqcn {
  double g;                        /* dce_tcp_g as a fraction */
  double alpha_period_us;          /* dce_tcp_rtt */
  double decrease_period_us;       /* rate_reduce_monitor_period */
  double increase_timer_us;        /* rpg_time_reset */
  double byte_counter_bytes;       /* rpg_byte_reset */
  int32_t fast_recovery;           /* rpg_threshold */
  double ai_mbps;                  /* rpg_ai_rate */
  double hai_mbps;                 /* rpg_hai_rate */
  double min_dec_factor;           /* rpg_min_dec_fac */
  double min_rate_mbps;            /* rpg_min_rate */
  double min_time_between_cnps_us; /* min_time_between_cnps */
} railyard_cc_dcqcn;

typedef struct railyard_cc_settings {
  double link_gbps;
  int32_t incast; /* the incast used */
  double mtu_bytes;
  double buffer_bytes_per_port;
  double pfc_headroom_bytes;
  int32_t pfc_priority;
  int32_t ecn_tiers;
  railyard_cc_ecn ecn[RAILYARD_CC_MAX_TIERS];
  railyard_cc_dcqcn dcqcn; /* the recommendation: ConnectX defaults unless searched */
  railyard_cc_dcqcn derived_dcqcn; /* derived by rule from the fabric */
  int32_t nccl_env_count;
} railyard_cc_settings;

/* The congestion-control settings `railyard cc` derives (ECN per tier, PFC,
 * DCQCN, NCCL environment; docs/cc-config.md). nccl_env (optional) gets the NCCL
 * environment as "NAME=value\n" lines, NUL-terminated; *nccl_env_needed (if
 * not NULL) its size with the NUL. Errors: EINVAL — NULL cluster/request/out,
 * a value out of range (message naming it: incast, mtu_bytes, job, hosts
 * ...); ERANGE — nccl_env_len too small (*out is filled, nccl_env is not).
 * Time: ~1 ms plus the job's ordering. Thread-safe. */
RAILYARD_C_API int railyard_cc_recommend(const railyard_cluster* cluster,
                                         const railyard_cc_request* request,
                                         railyard_cc_settings* out, char* nccl_env,
                                         size_t nccl_env_len,
                                         size_t* nccl_env_needed) RAILYARD_C_NOEXCEPT;

/* ------------------------------------------------------------------------- */
/* Simulating a collective                                                   */
/* ------------------------------------------------------------------------- */

/* Zero-initialize, then set collective, job and bytes at least. */
typedef struct railyard_sim_request {
  const char* collective; /* "allreduce", "allgather", "reducescatter", "alltoall" */
  const char* algorithm;  /* NULL: the collective's default (ring; pairwise for alltoall) */
  const char* routing;    /* NULL: "ecmp"; "steered", "adaptive", "planned" */
  const char* job;        /* the plan; ranks numbered by railyard unless order_naive */
  const int32_t* hosts;   /* NULL/0: the first hosts */
  size_t host_count;
  const char* group; /* NULL: one group of all ranks; "tp" ... "pp": every group of it at once */
  int32_t order_naive; /* 1: hosts as given, the plan's order string */
  int64_t bytes;       /* per group, 1 .. 2^40 */
  int32_t qps;         /* QPs per connection, 0 = 1; at most 256 */
  uint64_t seed;       /* hash seed (ecmp, steered); 0 = 1 */
  /* 0: no limit; else refuse (ENOSPACE) a run estimated to need more. */
  double max_memory_bytes;
} railyard_sim_request;

typedef struct railyard_sim_result {
  double time_us;         /* simulated (flow-level, max-min fair) */
  double analytic_us;     /* the contention model */
  double lower_bound_us;  /* bandwidth lower bound */
  double latency_us;      /* exposed latency */
  double algbw_gbps;      /* bytes / time */
  double busbw_gbps;      /* nccl-tests' bus bandwidth */
  double max_link_utilization;
  int64_t steps;
  int64_t flows;
  int32_t groups;
  int32_t ranks_per_group;
  int32_t channels;
} railyard_sim_result;

/* Simulates the collective on the job's ranks (railyard/sim/collective_sim.hpp,
 * as `railyard simulate`). An imported cluster's missing and miswired cables
 * are down. Errors: EINVAL naming the field (collective, algorithm, routing,
 * job, hosts, group, bytes, qps), ENOSPACE above max_memory_bytes. Time: ms
 * to minutes with the job's size; allocates. Thread-safe. */
RAILYARD_C_API int railyard_simulate(const railyard_cluster* cluster,
                                     const railyard_sim_request* request,
                                     railyard_sim_result* out) RAILYARD_C_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RAILYARD_C_RAILYARD_H_ */
