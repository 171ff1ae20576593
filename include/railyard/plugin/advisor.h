/* railyard/plugin/advisor.h — the net-plugin path advisor, a C API.
 *
 * An NCCL net plugin (C or C++) asks railyard, at connect time, how many QPs a
 * connection should use and which RoCEv2 UDP source port (or GRH flow label)
 * each QP needs so that the QPs of the connection spread over distinct uplinks
 * of the fabric (railyard/routing/spray.hpp, docs/models.md#routing). Afterwards the data
 * path looks a QP's port up in O(1) without allocating or locking:
 *
 *   char err[256];
 *   railyard_advisor* adv = railyard_advisor_create("h100-1024", "crc32", 7, err, sizeof err);
 *   if (adv == NULL) { warn("railyard: %s", err); return use_defaults(); }
 *
 *   railyard_nic_id local = {3, 5, 0, NULL};              // host 3, rail 5, plane 0
 *   railyard_nic_id remote = {40, -1, -1, "mlx5_5"};      // host 40, NIC named as in nccl_xml
 *   railyard_conn_plan plan;
 *   if (railyard_advisor_connect(adv, &local, &remote, 16, &plan) == RAILYARD_ADVISOR_OK) {
 *     for (int i = 0; i < plan.qps; ++i)                   // create plan.qps QPs, then
 *       mlx5dv_modify_qp_udp_sport(qp[i], plan.source_port[i]);   // or set the GRH
 *   }                                                      // flow_label[i] instead
 *   ...
 *   uint16_t sport = railyard_advisor_source_port(adv, plan.connection, qp_index);  // hot path
 *
 *   int rail, plane;                                       // NCCL >= 2.30 properties
 *   railyard_advisor_rail_plane(adv, props.name, &rail, &plane);   // props.railId/planeId
 *   railyard_advisor_destroy(adv);
 *
 * NIC identity. A NIC port is (host, rail, plane): host index in the cluster,
 * rail = NIC index inside the host (railyard's rail-optimized numbering), plane =
 * port index of a multi-plane NIC (port - 1; 0 on single-plane NICs). Instead
 * of rail/plane a plugin may pass the string it has in its properties:
 *   - a device name "mlx5_<dev>" (optionally ":<port>"), with
 *     dev = rail * planes + plane, exactly as railyard/export/nccl_xml.hpp names
 *     the <net> elements of the NCCL topology file it writes;
 *   - a PCI bus id "dddd:bb:dd.f" (or "bb:dd.f") or a sysfs PCI path whose last
 *     component is one (NCCL's pciPath, e.g.
 *     "/sys/devices/pci0000:00/0000:00:01.0/0000:12:00.0"). Bus ids are those
 *     of nccl_xml.hpp's layout (synthetic, the same on every host) unless the
 *     advisor was created with the host's real NIC bus ids
 *     (railyard_advisor_options.nic_busids, NIC order, like
 *     NcclXmlOptions::nic_busids). A PCI function is the whole NIC, so on a
 *     multi-plane NIC the port (plane + 1) must be given too.
 * A PCI path never names a host: the host index is always given as a number.
 *
 * Both ends. NCCL's connect() gets only the listener's handle. The listener
 * writes its endpoint into it (railyard_advisor_endpoint_encode: port, QP
 * budget, a digest of cluster and hash model; 32 bytes), the connector reads it
 * (_endpoint_decode refuses another cluster's with EMISMATCH), both compute
 * one count with railyard_advisor_agreed_qps, and a verbs sender plans for the
 * QP numbers the receiver really created with railyard_advisor_connect_qpns.
 * docs/net-plugin.md gives the whole call sequence for verbs and sockets.
 *
 * Errors. Every function that can fail returns 0 (RAILYARD_ADVISOR_OK) or a
 * negative railyard_advisor_status and leaves a message naming the field and
 * the value ("local.rail=9: must be in [0, 8)") in a per-thread buffer read by
 * railyard_advisor_last_error(); create also copies it into `err`, connect into
 * `out->error`. Nothing aborts, nothing throws across this boundary, nothing is
 * printed: messages go to the optional log callback only.
 *
 * Threads. railyard_advisor_connect may be called from several threads at once
 * (planning runs in parallel, publication of a new connection is serialized by
 * a mutex). The lookups (source_port, flow_label, qps, connections, rail_plane)
 * take no lock and never allocate; they may run concurrently with connect: a
 * connection's entry is written once, before its id is published, and never
 * moves (the table is an array of segments that are never reallocated). Only
 * railyard_advisor_destroy must not overlap any other call on that advisor.
 *
 * Implementation: this header only declares. Exactly one C++ translation unit
 * of the plugin defines the functions:
 *
 *   #define RAILYARD_ADVISOR_IMPLEMENTATION
 *   #include "railyard/plugin/advisor.hpp"
 *
 * Define RAILYARD_ADVISOR_API (e.g. __attribute__((visibility("default"))))
 * before including to export the functions from a shared library; by default
 * they get the translation unit's default visibility.
 */
#ifndef RAILYARD_PLUGIN_ADVISOR_H_
#define RAILYARD_PLUGIN_ADVISOR_H_

#include <stddef.h>
#include <stdint.h>

#ifndef RAILYARD_ADVISOR_API
#define RAILYARD_ADVISOR_API
#endif

#ifdef __cplusplus
#define RAILYARD_ADVISOR_NOEXCEPT noexcept
extern "C" {
#else
#define RAILYARD_ADVISOR_NOEXCEPT
#endif

/* Version of this API (incremented when a struct or a signature changes). */
#define RAILYARD_ADVISOR_API_VERSION 3  /* 2: endpoints, agreed QP counts, real QP numbers;
                                          3: the local NIC by GID or IP address,
                                             TCP stream plans */

/* Most QPs one connection gets (routing::kMaxQpsPerConnection). */
#define RAILYARD_ADVISOR_MAX_QPS 256

/* Bytes of an endpoint (railyard_advisor_endpoint_encode). */
#define RAILYARD_ADVISOR_ENDPOINT_BYTES 32

/* Size of railyard_conn_plan.error and of the per-thread message buffer. */
#define RAILYARD_ADVISOR_ERROR_LEN 256

/* Return codes: 0 or negative. */
typedef enum railyard_advisor_status {
  RAILYARD_ADVISOR_OK = 0,
  /* A null pointer, a value out of range (host, rail, plane, port, qp_budget),
   * a malformed name or bus id, or a pair of NIC ports with no network path
   * between them (same port, different planes, different rails of rail_only). */
  RAILYARD_ADVISOR_EINVAL = -1,
  /* A well-formed NIC name or bus id that is no NIC of this cluster's hosts. */
  RAILYARD_ADVISOR_ENOTFOUND = -2,
  /* The cluster is missing (no spec, RAILYARD_CLUSTER and
   * RAILYARD_CLUSTER_FILE unset), unreadable or invalid; or the hash model or
   * a bus id given at create time is invalid. */
  RAILYARD_ADVISOR_ECLUSTER = -3,
  /* No source port sends some QP over a usable path (a degenerate hash). */
  RAILYARD_ADVISOR_ENOPATH = -4,
  /* Out of memory. */
  RAILYARD_ADVISOR_ENOMEM = -5,
  /* Anything else (an internal error; the message says what). */
  RAILYARD_ADVISOR_EINTERNAL = -6,
  /* A peer's endpoint was written by an advisor with another cluster, hash
   * model or seed (their digests differ), or by another endpoint format: the
   * two ranks would plan differently. Fail the connection; never go on. */
  RAILYARD_ADVISOR_EMISMATCH = -7
} railyard_advisor_status;

/* Opaque advisor: one cluster, one hash model, the table of connections. */
typedef struct railyard_advisor railyard_advisor;

/* A NIC port. Either rail (and plane) >= 0, or rail = plane = -1 and
 * name_or_pci set; when both are given they must agree. plane = -1 with rail
 * >= 0 means plane 0 on single-plane NICs (an error on multi-plane NICs).
 * With a PCI name on a multi-plane NIC, plane selects the port. A zeroed
 * struct is host 0, rail 0, plane 0. */
typedef struct railyard_nic_id {
  int32_t host;            /* host index, 0 <= host < hosts */
  int32_t rail;            /* NIC index = rail id, or -1 */
  int32_t plane;           /* port - 1, or -1 */
  const char* name_or_pci; /* NULL/"" or "mlx5_<dev>[:<port>]", a bus id, a sysfs path */
} railyard_nic_id;

/* What railyard_advisor_connect returns. Arrays hold `qps` valid entries. */
typedef struct railyard_conn_plan {
  uint32_t connection;    /* id for the lookups; the same pair and budget get the same id */
  int32_t qps;            /* QPs to create: min(qp_budget, usable_uplinks, MAX_QPS) */
  int32_t usable_uplinks; /* source-leaf uplinks the connection can use (1 on one leaf) */
  int32_t uplinks_used;   /* distinct uplinks the QPs take: min(qps, usable_uplinks) */
  railyard_nic_id local;  /* the resolved ports (name_or_pci = NULL) */
  railyard_nic_id remote;
  uint16_t source_port[RAILYARD_ADVISOR_MAX_QPS]; /* RoCEv2 UDP source port, 0xC000..0xFFFF */
  uint32_t flow_label[RAILYARD_ADVISOR_MAX_QPS];  /* GRH flow label giving that port */
  int32_t uplink[RAILYARD_ADVISOR_MAX_QPS];       /* source-leaf uplink; -1 on one leaf */
  char error[RAILYARD_ADVISOR_ERROR_LEN];         /* "" or the message of a failed connect */
} railyard_conn_plan;

/* Optional log sink: level 2 = warning (an error was returned), 3 = info
 * (advisor created). Called from the thread that made the call. */
typedef void (*railyard_advisor_log_fn)(void* user, int level, const char* message);

/* Everything create can take. Zero-initialize, then set what you need. */
typedef struct railyard_advisor_options {
  /* Cluster spec string or preset name ("h100-1024", "rail_fat_tree:hosts=256").
   * NULL or "": the RAILYARD_CLUSTER environment variable, else the file named by
   * RAILYARD_CLUSTER_FILE (one spec; blank lines and '#' comments ignored). */
  const char* cluster;
  /* ECMP hash the switches are modelled with: "crc32" (CRC-32 over the
   * 5-tuple, the default for NULL or ""), "crc32c", "qp" = "crc32+qp" (also
   * hashes the destination QP number), "crc32c+qp". */
  const char* hash_model;
  uint32_t hash_seed; /* per-fabric seed of the hash model */
  /* The hosts' real NIC bus ids in NIC order (nic_busid_count = NICs per host),
   * for PCI names; NULL: the synthetic ids of nccl_xml.hpp. */
  const char* const* nic_busids;
  int32_t nic_busid_count;
  railyard_advisor_log_fn log; /* NULL: silent */
  void* log_user;              /* passed to log */
} railyard_advisor_options;

/* Creates an advisor for a cluster (see railyard_advisor_options.cluster for
 * cluster_spec_or_null, .hash_model for hash_model; NULL = "crc32").
 * Materializes the cluster's fabric: O(GPUs) time and memory, e.g. 18 ms and
 * 31 MB for 131,072 GPUs. Returns NULL on error and writes a NUL-terminated
 * message into err (when err_len > 0; truncated to fit). */
RAILYARD_ADVISOR_API railyard_advisor* railyard_advisor_create(
    const char* cluster_spec_or_null, const char* hash_model, uint32_t hash_seed, char* err,
    size_t err_len) RAILYARD_ADVISOR_NOEXCEPT;

/* The same with every option (options may not be NULL). */
RAILYARD_ADVISOR_API railyard_advisor* railyard_advisor_create_ex(
    const railyard_advisor_options* options, char* err, size_t err_len) RAILYARD_ADVISOR_NOEXCEPT;

/* Frees the advisor and every connection's entries. NULL is ignored. Must not
 * overlap any other call on the same advisor. */
RAILYARD_ADVISOR_API void railyard_advisor_destroy(railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT;

/* Plans the connection local -> remote (local = the NIC port whose QPs send
 * the data) with at most qp_budget QPs (>= 1; above RAILYARD_ADVISOR_MAX_QPS
 * it is clamped): qps = min(budget, usable uplinks), 1 when the two ports hang
 * off one leaf (a single path). QP i gets source_port[i] / flow_label[i] from
 * routing::plan_connection (default SprayOptions: destination QP numbers
 * 0x100 + i for the QP-aware models), so that QP i leaves on the i-th uplink
 * of the connection's rotation: the QPs take min(qps, uplinks) distinct
 * uplinks. The same (local, remote, budget) again returns the same connection
 * id and plan without planning. Cost: one plan, ~5-100 us; allocates. */
RAILYARD_ADVISOR_API int railyard_advisor_connect(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int qp_budget, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT;

/* connect with the destination QP numbers the QP-aware models hash: QP i's is
 * base_dst_qpn + i (24 bits; < 2^24). Use the remote's first QP number when
 * its QPs are numbered consecutively. Ignored by "crc32"/"crc32c" (they do
 * not hash it) except that it is part of the connection's identity. */
RAILYARD_ADVISOR_API int railyard_advisor_connect_ex(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int qp_budget, uint32_t base_dst_qpn, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT;

/* connect for QPs whose destination QP numbers are known: QP i hashes
 * dst_qpns[i] (what the remote's ibv_create_qp returned, in any order; nothing
 * assumes consecutive numbers), qps = 1..RAILYARD_ADVISOR_MAX_QPS of them; out
 * gets exactly qps QPs. Each call adds a connection (no merging: the numbers
 * are the connection's own). Errors as connect, and EINVAL naming "qps" or
 * "dst_qpns[i]" (>= 2^24). Allocates. */
RAILYARD_ADVISOR_API int railyard_advisor_connect_qpns(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    const uint32_t* dst_qpns, int qps, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT;

/* The NIC ports behind a device name as the plugin has it: an RDMA device
 * ("mlx5_9", EFA's "rdmap16s27"), a netdev ("ens1f0np0") or NCCL's merged
 * device ("mlx5_0+mlx5_1", one port per part, in order), on host `host`. Each
 * part's PCI function is read from sysfs (<sysfs_root>/class/infiniband/<part>/
 * device, else class/net/<part>/device; sysfs_root NULL or "": "/sys") and
 * mapped to its rail by options.nic_busids when given, else by its rank in
 * bus-id order among the host's PCI functions of that class (one per NIC, or
 * one per plane). port is NCCL's 1-based props.port (0: unknown, fine on
 * single-plane NICs). Writes up to max_out ports (name_or_pci = NULL) and
 * returns how many, or a negative status: EINVAL (host, device, port,
 * max_out), ENOTFOUND (no such device, or a bus id none of nic_busids),
 * ENOPATH (the host's function count fits neither rule: the message says to
 * give nic_busids). Reads sysfs and allocates: call at init/connect. */
RAILYARD_ADVISOR_API int railyard_advisor_local_nics(const railyard_advisor* advisor, int host,
                                                     const char* device, int port,
                                                     const char* sysfs_root, railyard_nic_id* out,
                                                     int max_out) RAILYARD_ADVISOR_NOEXCEPT;

/* The source ports of `streams` TCP streams local -> remote for a socket
 * plugin, planned on the tuple the switches hash: the two interfaces' real
 * IPv4 addresses (src_ip, dst_ip, host byte order), protocol 6 and the
 * listener's port. Bind stream i to ports[i] (SO_REUSEADDR) before
 * connect(). streams: use agreed_qps. sport_offset moves the search when a
 * port is taken on the host. Writes ports[0..streams) and, when not NULL,
 * uplinks[0..streams) (-1 on one leaf); returns 0 or EINVAL ("streams",
 * "flow.dst_port", the ports), ENOPATH. Not in the lookup table. Allocates. */
RAILYARD_ADVISOR_API int railyard_advisor_plan_tcp_streams(
    const railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int streams, uint32_t src_ip, uint32_t dst_ip, uint16_t dst_port, uint16_t sport_offset,
    uint16_t* ports, int32_t* uplinks) RAILYARD_ADVISOR_NOEXCEPT;

/* The NIC port owning a GID or an IP address as a verbs plugin holds them
 * (ibv_query_gid at NCCL_IB_GID_INDEX, or a RoCE netdev's IPv4 address, which
 * matches its IPv4-mapped GID): the RDMA device and port whose sysfs GID table
 * (<sysfs_root>/class/infiniband/<dev>/ports/<port>/gids/ *) lists it, then
 * local_nics for that device and port. Writes *out (name_or_pci = NULL) and
 * returns 0, or EINVAL ("address" malformed; host), ENOTFOUND (no port has
 * it), ENOPATH (two devices have it; the rules of local_nics). Reads sysfs. */
RAILYARD_ADVISOR_API int railyard_advisor_local_nic_by_address(const railyard_advisor* advisor,
                                                               int host, const char* address,
                                                               const char* sysfs_root,
                                                               railyard_nic_id* out)
    RAILYARD_ADVISOR_NOEXCEPT;

/* ---- both ends of a connection --------------------------------------------
 * NCCL's connect() gets a device index and the listener's handle, no rank or
 * host. A plugin writes its NIC port and QP budget into its listen handle with
 * endpoint_encode (RAILYARD_ADVISOR_ENDPOINT_BYTES of NCCL_NET_HANDLE_MAXSIZE =
 * 128), the connecting side reads them with endpoint_decode and sends its own
 * endpoint in its first message; both then call agreed_qps, which gives the
 * same count whichever end asks, and connect their sending direction with it as
 * the budget. docs/net-plugin.md has the call sequence for verbs and sockets. */

/* A digest of the cluster (every link), the hash model and the seed: equal on
 * two ranks exactly when their plans agree. 0 for NULL. Lock-free. */
RAILYARD_ADVISOR_API uint64_t railyard_advisor_digest(const railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT;

/* Writes local's port, qp_budget and the digest into out[0, 32). Errors: EINVAL
 * naming out, local.*, qp_budget (< 1). */
RAILYARD_ADVISOR_API int railyard_advisor_endpoint_encode(const railyard_advisor* advisor,
                                                          const railyard_nic_id* local,
                                                          int qp_budget, void* out,
                                                          size_t out_len) RAILYARD_ADVISOR_NOEXCEPT;

/* Reads an endpoint: *nic gets the port (name_or_pci = NULL), *qp_budget
 * (may be NULL) the budget. Errors: EINVAL (too short, not an endpoint, a port
 * outside this cluster), EMISMATCH (another cluster, hash model, seed or
 * format; the message gives both digests). */
RAILYARD_ADVISOR_API int railyard_advisor_endpoint_decode(const railyard_advisor* advisor,
                                                          const void* in, size_t in_len,
                                                          railyard_nic_id* nic,
                                                          int* qp_budget) RAILYARD_ADVISOR_NOEXCEPT;

/* The QP count of the connection between a and b, the same for (a, b) and
 * (b, a): min(budget_a, budget_b, RAILYARD_ADVISOR_MAX_QPS, the source-leaf
 * uplinks of a -> b and of b -> a); 1 when they share a leaf. Connecting with
 * it as the budget gives exactly that many QPs. Returns the count (>= 1) or a
 * negative status (EINVAL naming a.*, b.*, budget_a, budget_b or a pair with no
 * path). */
RAILYARD_ADVISOR_API int railyard_advisor_agreed_qps(const railyard_advisor* advisor,
                                                     const railyard_nic_id* a, int budget_a,
                                                     const railyard_nic_id* b,
                                                     int budget_b) RAILYARD_ADVISOR_NOEXCEPT;

/* The UDP source port of QP `qp` of `connection`, or 0 ("keep the default
 * port") when the advisor is NULL or either index is unknown. O(1): three
 * dependent loads, no lock, no allocation; safe during a concurrent connect. */
RAILYARD_ADVISOR_API uint16_t railyard_advisor_source_port(const railyard_advisor* advisor,
                                                           uint32_t connection,
                                                           uint32_t qp) RAILYARD_ADVISOR_NOEXCEPT;

/* The GRH flow label giving that port (sport = 0xC000 | ((fl & 0x3FFF) ^
 * ((fl & 0xFC000) >> 14))), or 0 (the kernel's default) when unknown. O(1) as
 * source_port. */
RAILYARD_ADVISOR_API uint32_t railyard_advisor_flow_label(const railyard_advisor* advisor,
                                                          uint32_t connection,
                                                          uint32_t qp) RAILYARD_ADVISOR_NOEXCEPT;

/* QPs of `connection`, 0 when unknown. O(1), lock-free. */
RAILYARD_ADVISOR_API int railyard_advisor_qps(const railyard_advisor* advisor,
                                              uint32_t connection) RAILYARD_ADVISOR_NOEXCEPT;

/* Connections planned so far (ids are 0 .. connections - 1). O(1), lock-free. */
RAILYARD_ADVISOR_API uint32_t railyard_advisor_connections(const railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT;

/* The rail and plane ids of a NIC port, for NCCL >= 2.30 net properties
 * (railId, planeId) and NCCL_IB_HCA entries name:port:rail:plane: a device name
 * "mlx5_<dev>[:<port>]" gives rail = dev / planes, plane = dev % planes, as
 * nccl_xml.hpp writes them; a PCI bus id or path on a single-plane NIC gives
 * its NIC's rail and plane 0 (use railyard_advisor_rail_plane_port on
 * multi-plane NICs). *rail and *plane are written only on success. Lock-free;
 * allocates nothing unless it fails (8 ns for a name, 37 ns for a sysfs path). */
RAILYARD_ADVISOR_API int railyard_advisor_rail_plane(const railyard_advisor* advisor,
                                                     const char* nic_name_or_pci, int* rail,
                                                     int* plane) RAILYARD_ADVISOR_NOEXCEPT;

/* rail_plane with NCCL's 1-based port number (props.port; 0 = unknown). With
 * a device name the port must agree with the name; with a PCI name it selects
 * the plane (plane = port - 1). */
RAILYARD_ADVISOR_API int railyard_advisor_rail_plane_port(const railyard_advisor* advisor,
                                                          const char* nic_name_or_pci, int port,
                                                          int* rail,
                                                          int* plane) RAILYARD_ADVISOR_NOEXCEPT;

/* The message of the calling thread's last failed call ("" if none). Valid
 * until that thread's next failing call. */
RAILYARD_ADVISOR_API const char* railyard_advisor_last_error(void) RAILYARD_ADVISOR_NOEXCEPT;

/* A constant description of a status code ("ok", "invalid argument", ...). */
RAILYARD_ADVISOR_API const char* railyard_advisor_strerror(int status) RAILYARD_ADVISOR_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RAILYARD_PLUGIN_ADVISOR_H_ */
