/* tests/c/railyard_c_test.c — every call of railyard/c/railyard.h, from C.
 *
 * Compiled as C11 (not C++) and linked with librailyard_c.so, as a C launcher
 * or scheduler would. Usage: railyard_c_test <tests/data/cables directory>.
 * Each check compares with a fact computed here, independently of railyard:
 * the rank formula hosts[r / G], GPU r % G and Megatron's coordinate order;
 * the SU of a host (h / hosts_per_su); the ring all-reduce closed form; the
 * bandwidth-delay product; and the CRC-32 ECMP hash re-implemented below from
 * its definition. Prints one summary line and exits 0, or prints every failed
 * check and exits 1. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railyard/c/railyard.h"

static int failures = 0;
static int checks = 0;

#define EXPECT(cond)                                                     \
  do {                                                                   \
    ++checks;                                                            \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* A call's status and the start of the thread's message. */
#define EXPECT_ERROR(call, code, prefix)                                           \
  do {                                                                             \
    int rc_ = (call);                                                              \
    EXPECT(rc_ == (code));                                                         \
    if (strncmp(railyard_last_error(), (prefix), strlen(prefix)) != 0) {           \
      fprintf(stderr, "%s:%d: message '%s' does not start with '%s'\n", __FILE__, \
              __LINE__, railyard_last_error(), (prefix));                          \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

static int starts_with(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- The CRC-32 5-tuple ECMP hash, from its definition --------------------
 * (docs/models.md#routing): at a switch the CRC register starts at
 * seed ^ low32(salt), salt = mix64(hop_word ^ 0xA54FF53A5F1D36F1), hop_word =
 * kind << 32 | switch index (kind 0: the source leaf's uplink choice); the
 * reflected CRC-32 (0xEDB88320) runs over src IP, dst IP, src port, dst port
 * 4791 (big-endian) and protocol 17, then is inverted; the pick is
 * mix64((seed << 32 | crc) ^ salt) reduced to [0, n) by multiply-shift of the
 * top 32 bits. A NIC port's IP is 10.0.0.0/8 + (host * nics + nic) * planes +
 * plane; a rail fat tree's leaf for (host, rail) is su * rails + rail. */
static uint32_t crc_table[256];

static void init_crc_table(void) {
  uint32_t i, c;
  int k;
  for (i = 0; i < 256; ++i) {
    c = i;
    for (k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

static int32_t crc_pick_uplink(uint32_t seed, int32_t leaf, uint32_t src_ip, uint32_t dst_ip,
                               uint16_t sport, int32_t candidates) {
  const uint64_t salt = mix64((uint64_t)(uint32_t)leaf ^ 0xA54FF53A5F1D36F1ull);
  uint8_t bytes[13];
  uint32_t reg = seed ^ (uint32_t)salt, crc;
  uint64_t h;
  int i;
  bytes[0] = (uint8_t)(src_ip >> 24);
  bytes[1] = (uint8_t)(src_ip >> 16);
  bytes[2] = (uint8_t)(src_ip >> 8);
  bytes[3] = (uint8_t)src_ip;
  bytes[4] = (uint8_t)(dst_ip >> 24);
  bytes[5] = (uint8_t)(dst_ip >> 16);
  bytes[6] = (uint8_t)(dst_ip >> 8);
  bytes[7] = (uint8_t)dst_ip;
  bytes[8] = (uint8_t)(sport >> 8);
  bytes[9] = (uint8_t)sport;
  bytes[10] = (uint8_t)(4791 >> 8);
  bytes[11] = (uint8_t)(4791 & 0xFF);
  bytes[12] = 17;
  for (i = 0; i < 13; ++i) reg = crc_table[(reg ^ bytes[i]) & 0xFFu] ^ (reg >> 8);
  crc = ~reg;
  h = mix64((((uint64_t)seed << 32) | crc) ^ salt);
  return (int32_t)(((h >> 32) * (uint64_t)(uint32_t)candidates) >> 32);
}

static uint32_t nic_ip(int32_t host, int32_t nic, int32_t nics) {
  return (10u << 24) | (((uint32_t)host * (uint32_t)nics + (uint32_t)nic) & 0xFFFFFFu);
}

/* The rank of coordinates c (by tp, cp, ep, dp, pp) under a Megatron order
 * string ("tp-cp-ep-dp-pp": first fastest). */
static int64_t rank_of(const char* order, const int32_t sizes[5], const int32_t c[5]) {
  static const char* names[5] = {"tp", "cp", "ep", "dp", "pp"};
  int64_t rank = 0, stride = 1;
  const char* p = order;
  while (*p) {
    int d;
    for (d = 0; d < 5; ++d)
      if (strncmp(p, names[d], 2) == 0) break;
    if (d == 5) return -1;
    rank += c[d] * stride;
    stride *= sizes[d];
    p += 2;
    if (*p == '-') ++p;
  }
  return rank;
}

static char data_dir[1024];
static const char* data_file(const char* name) {
  static char path[1200];
  snprintf(path, sizeof path, "%s/%s", data_dir, name);
  return path;
}

/* ---- Library ------------------------------------------------------------- */
static void test_library(void) {
  const char* v = railyard_version();
  EXPECT(railyard_c_api_version() == RAILYARD_C_API_VERSION);
  EXPECT(v != NULL && strlen(v) >= 5 && v[1] == '.');
  EXPECT(strcmp(railyard_last_error(), "") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_OK), "ok") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_EINVAL), "invalid argument") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_ENOTFOUND), "not found") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_EEXIST), "already exists") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_ENOSPACE), "no space") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_EBUSY), "busy") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_ERANGE), "buffer too small") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_EIO), "input/output error") == 0);
  EXPECT(strcmp(railyard_strerror(RAILYARD_EINTERNAL), "internal error") == 0);
  EXPECT(strcmp(railyard_strerror(-99), "unknown status") == 0);
}

/* ---- Clusters ------------------------------------------------------------ */
static railyard_cluster* h100;  /* h100-1024, used by the later tests */
static railyard_cluster* cables; /* tests/data/cables/rail-2su.csv */

static void test_clusters(void) {
  char err[RAILYARD_C_ERROR_LEN], name[64];
  railyard_cluster *c = NULL, *named = NULL, *ib = NULL;
  railyard_cluster_info info;
  int32_t ids[8];
  size_t n = 0, needed = 0;
  const char* text = "a_node,a_port,b_node,b_port\nnot a cable list\n";

  /* h100-1024: 128 HGX hosts x 8 GPUs, 8 rails, SUs of 32, 2 tiers. */
  EXPECT(railyard_cluster_create("h100-1024", NULL, &h100, err, sizeof err) == RAILYARD_OK);
  EXPECT(err[0] == '\0');
  EXPECT(railyard_cluster_get_info(h100, &info) == RAILYARD_OK);
  EXPECT(info.hosts == 128 && info.gpus_per_host == 8 && info.nics_per_host == 8);
  EXPECT(info.hosts_per_su == 32 && info.sus == 4 && info.tiers == 2 && info.planes == 1);
  EXPECT(info.gpus == 1024 && info.nic_gbps == 400 && info.drained_hosts == 0 && info.pods == 1);
  EXPECT(strcmp(info.kind, "rail_fat_tree") == 0);
  EXPECT(railyard_cluster_host_name(h100, 7, name, sizeof name, &needed) == RAILYARD_OK);
  EXPECT(strcmp(name, "node0007") == 0 && needed == 9);

  /* Errors name the argument and the value, in err and in last_error. */
  EXPECT_ERROR(railyard_cluster_create("no-such-preset", NULL, &c, err, sizeof err),
               RAILYARD_EINVAL, "spec=no-such-preset: ");
  EXPECT(c == NULL && strcmp(err, railyard_last_error()) == 0);
  EXPECT(strstr(err, "no-such-preset") != NULL);
  EXPECT_ERROR(railyard_cluster_create("rail_fat_tree:hosts=0", NULL, &c, NULL, 0),
               RAILYARD_EINVAL, "hosts=0");
  EXPECT_ERROR(railyard_cluster_create(NULL, NULL, &c, err, 8), RAILYARD_EINVAL, "spec=(null)");
  EXPECT(strlen(err) == 7); /* truncated to err_len */
  EXPECT_ERROR(railyard_cluster_create("h100-1024", NULL, NULL, NULL, 0), RAILYARD_EINVAL,
               "out=(null)");
  EXPECT_ERROR(railyard_cluster_create("h100-1024", "gpu", &c, NULL, 0), RAILYARD_EINVAL,
               "node_pattern=gpu");

  /* Node names from a pattern; hosts by Slurm hostlist or by ids. */
  EXPECT(railyard_cluster_create("h100-1024", "gpu-{su}-{slot:02}", &named, NULL, 0) ==
         RAILYARD_OK);
  EXPECT(railyard_cluster_host_name(named, 33, name, sizeof name, NULL) == RAILYARD_OK);
  EXPECT(strcmp(name, "gpu-1-01") == 0); /* host 33: SU 1, slot 1 */
  EXPECT(railyard_cluster_parse_hosts(named, "gpu-1-[01-02],gpu-0-31", ids, 8, &n) ==
         RAILYARD_OK);
  EXPECT(n == 3 && ids[0] == 33 && ids[1] == 34 && ids[2] == 31);
  EXPECT(railyard_cluster_parse_hosts(h100, "node[0040-0041],node0008", ids, 8, &n) ==
         RAILYARD_OK);
  EXPECT(n == 3 && ids[0] == 40 && ids[1] == 41 && ids[2] == 8);
  EXPECT(railyard_cluster_parse_hosts(h100, "8-10,3", ids, 8, &n) == RAILYARD_OK);
  EXPECT(n == 4 && ids[0] == 8 && ids[2] == 10 && ids[3] == 3);
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, "node[0000-0009]", ids, 8, &n),
               RAILYARD_ERANGE, "capacity=8");
  EXPECT(n == 10);
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, "node0999", ids, 8, &n), RAILYARD_ENOTFOUND,
               "hosts=node0999");
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, "node[1-", ids, 8, &n), RAILYARD_EINVAL, "");
  EXPECT(strstr(railyard_last_error(), "node[1-") != NULL);
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, "node0001,node0001", ids, 8, &n),
               RAILYARD_EINVAL, "hosts=node0001: listed twice");
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, "200", ids, 8, &n), RAILYARD_EINVAL,
               "hosts=200");
  EXPECT_ERROR(railyard_cluster_parse_hosts(h100, NULL, ids, 8, &n), RAILYARD_EINVAL,
               "text=(null)");
  EXPECT_ERROR(railyard_cluster_parse_hosts(NULL, "1", ids, 8, &n), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_cluster_host_name(h100, 128, name, sizeof name, NULL), RAILYARD_EINVAL,
               "host=128");
  EXPECT_ERROR(railyard_cluster_host_name(h100, 7, name, 4, &needed), RAILYARD_ERANGE,
               "buf_len=4");
  EXPECT(needed == 9);
  EXPECT_ERROR(railyard_cluster_host_name(NULL, 7, name, 4, &needed), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_cluster_get_info(h100, NULL), RAILYARD_EINVAL, "out=(null)");
  EXPECT_ERROR(railyard_cluster_get_info(NULL, &info), RAILYARD_EINVAL, "cluster=(null)");

  /* Imported: rail-2su.csv has 8 hosts gpu01..gpu08 in 2 SUs of 4, 4 rails;
   * gpu06 (host 5) has a miswired cable, so it is drained (tests/cli/cables.cmake). */
  EXPECT(railyard_cluster_import_file("cables", data_file("rail-2su.csv"), &cables, err,
                                      sizeof err) == RAILYARD_OK);
  if (cables == NULL) {
    fprintf(stderr, "import: %s\n", err);
    exit(1);
  }
  EXPECT(railyard_cluster_get_info(cables, &info) == RAILYARD_OK);
  EXPECT(info.hosts == 8 && info.nics_per_host == 4 && info.hosts_per_su == 4);
  EXPECT(info.drained_hosts == 1);
  EXPECT(railyard_cluster_host_name(cables, 5, name, sizeof name, NULL) == RAILYARD_OK);
  EXPECT(strcmp(name, "gpu06") == 0);
  EXPECT(railyard_cluster_parse_hosts(cables, "gpu[01-02]", ids, 8, &n) == RAILYARD_OK);
  EXPECT(n == 2 && ids[0] == 0 && ids[1] == 1);
  /* ib-2su.topo: 4 DGX hosts with 2 HCAs each, SUs of 2. */
  EXPECT(railyard_cluster_import_file("ibnetdiscover", data_file("ib-2su.topo"), &ib, err,
                                      sizeof err) == RAILYARD_OK);
  EXPECT(railyard_cluster_get_info(ib, &info) == RAILYARD_OK);
  EXPECT(info.hosts == 4 && info.nics_per_host == 2 && info.hosts_per_su == 2);
  EXPECT(railyard_cluster_host_name(ib, 0, name, sizeof name, NULL) == RAILYARD_OK);
  EXPECT(strcmp(name, "dgx01") == 0);
  railyard_cluster_destroy(ib);

  EXPECT_ERROR(railyard_cluster_import_file("cables", data_file("no-such-file.csv"), &c, err,
                                            sizeof err),
               RAILYARD_EIO, "path=");
  EXPECT(c == NULL && strstr(err, "no-such-file.csv") != NULL);
  EXPECT_ERROR(railyard_cluster_import("lldp", text, strlen(text), &c, NULL, 0), RAILYARD_EINVAL,
               "format=lldp");
  EXPECT_ERROR(railyard_cluster_import("cables", text, strlen(text), &c, err, sizeof err),
               RAILYARD_EINVAL, "");
  EXPECT(c == NULL && err[0] != '\0');
  EXPECT_ERROR(railyard_cluster_import("cables", NULL, 0, &c, NULL, 0), RAILYARD_EINVAL,
               "text=(null)");
  EXPECT_ERROR(railyard_cluster_import(NULL, text, 1, &c, NULL, 0), RAILYARD_EINVAL,
               "format=(null)");
  EXPECT_ERROR(railyard_cluster_import("cables", text, 1, NULL, NULL, 0), RAILYARD_EINVAL,
               "out=(null)");
  EXPECT_ERROR(railyard_cluster_import_file("cables", NULL, &c, NULL, 0), RAILYARD_EINVAL,
               "path=(null)");
  EXPECT_ERROR(railyard_cluster_import_file(NULL, "x", &c, NULL, 0), RAILYARD_EINVAL,
               "format=(null)");
  EXPECT_ERROR(railyard_cluster_import_file("cables", "x", NULL, NULL, 0), RAILYARD_EINVAL,
               "out=(null)");
  railyard_cluster_destroy(named);
  railyard_cluster_destroy(NULL);
}

/* ---- Rank ordering ------------------------------------------------------- */
static void test_order(void) {
  /* 16 hosts from 3 SUs, scattered as a scheduler might grant them. */
  static const int32_t given[16] = {70, 3, 40, 71, 4, 41, 5, 42, 72, 6, 43, 7, 44, 73, 45, 46};
  railyard_order *o = NULL, *naive = NULL;
  railyard_order_info info;
  railyard_rank table[128], one;
  int32_t nodes[16], seen_gpu[128] = {0};
  int r, i, j, su_changes = 0, distinct_sus = 0, su_seen[4] = {0};

  EXPECT(railyard_order_ranks(h100, "tp=8,pp=4,dp=4", given, 16, 0, &o) == RAILYARD_OK);
  if (o == NULL) {
    fprintf(stderr, "order: %s\n", railyard_last_error());
    exit(1);
  }
  EXPECT(railyard_order_get_info(o, &info) == RAILYARD_OK);
  EXPECT(info.world == 128 && info.gpus_per_host == 8 && info.nodes == 16);
  EXPECT(info.sizes[0] == 8 && info.sizes[1] == 1 && info.sizes[2] == 1 && info.sizes[3] == 4 &&
         info.sizes[4] == 4);
  EXPECT(starts_with(info.order, "tp-")); /* TP innermost: inside the NVLink domain */
  EXPECT(railyard_order_nodes(o, nodes, 16) == RAILYARD_OK);
  /* The node list is a permutation of the hosts given. */
  for (i = 0; i < 16; ++i) {
    int found = 0;
    for (j = 0; j < 16; ++j) found += nodes[j] == given[i];
    EXPECT(found == 1);
  }
  /* Hosts grouped by SU (SU = host / 32): the list changes SU only between groups. */
  for (i = 0; i < 16; ++i) {
    if (!su_seen[nodes[i] / 32]) ++distinct_sus;
    su_seen[nodes[i] / 32] = 1;
    if (i > 0 && nodes[i] / 32 != nodes[i - 1] / 32) ++su_changes;
  }
  EXPECT(distinct_sus == 3 && su_changes == 2);

  /* The rank table: rank r on nodes[r / 8], GPU r % 8; a bijection onto the
   * 128 GPUs; coordinates give r back under the order string. */
  EXPECT(railyard_order_table(o, table, 128) == RAILYARD_OK);
  for (r = 0; r < 128; ++r) {
    int32_t c[5];
    int node = -1;
    EXPECT(table[r].host == nodes[r / 8] && table[r].gpu == r % 8);
    for (j = 0; j < 16; ++j)
      if (nodes[j] == table[r].host) node = j;
    EXPECT(node >= 0);
    if (node >= 0) ++seen_gpu[node * 8 + table[r].gpu];
    c[0] = table[r].tp;
    c[1] = table[r].cp;
    c[2] = table[r].ep;
    c[3] = table[r].dp;
    c[4] = table[r].pp;
    EXPECT(rank_of(info.order, info.sizes, c) == r);
    EXPECT(table[r].tp == table[r].gpu); /* TP = the GPU inside the host */
    EXPECT(railyard_order_rank(o, r, &one) == RAILYARD_OK);
    EXPECT(memcmp(&one, &table[r], sizeof one) == 0);
  }
  for (i = 0; i < 128; ++i) EXPECT(seen_gpu[i] == 1);

  /* Naive: the hosts as given, the plan's own order string. */
  EXPECT(railyard_order_ranks(h100, "tp=8,pp=4,dp=4", given, 16, RAILYARD_ORDER_NAIVE, &naive) ==
         RAILYARD_OK);
  EXPECT(railyard_order_get_info(naive, &info) == RAILYARD_OK);
  EXPECT(strcmp(info.order, "tp-cp-ep-dp-pp") == 0);
  EXPECT(railyard_order_nodes(naive, nodes, 16) == RAILYARD_OK);
  EXPECT(memcmp(nodes, given, sizeof given) == 0);
  railyard_order_destroy(naive);
  /* No hosts: the first world / 8 of the cluster. */
  EXPECT(railyard_order_ranks(h100, "tp=8,dp=2", NULL, 0, RAILYARD_ORDER_NAIVE, &naive) ==
         RAILYARD_OK);
  EXPECT(railyard_order_nodes(naive, nodes, 2) == RAILYARD_OK);
  EXPECT(nodes[0] == 0 && nodes[1] == 1);
  railyard_order_destroy(naive);

  /* Errors. */
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=3", NULL, 0, 0, &naive), RAILYARD_EINVAL, "");
  EXPECT(naive == NULL && strstr(railyard_last_error(), "tp=3") != NULL);
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=8,dp=4", given, 3, 0, &naive), RAILYARD_EINVAL,
               "job=");
  EXPECT(strstr(railyard_last_error(), "32 ranks but the 3 hosts given hold 24 GPUs") != NULL);
  {
    const int32_t bad[2] = {1, 128}, twice[2] = {1, 1};
    EXPECT_ERROR(railyard_order_ranks(h100, "tp=8,dp=2", bad, 2, 0, &naive), RAILYARD_EINVAL,
                 "hosts=128: out of range");
    EXPECT_ERROR(railyard_order_ranks(h100, "tp=8,dp=2", twice, 2, 0, &naive), RAILYARD_EINVAL,
                 "hosts=1: listed twice");
  }
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=8,dp=256", NULL, 0, 0, &naive), RAILYARD_EINVAL,
               "");
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=8", NULL, 0, 4, &naive), RAILYARD_EINVAL,
               "flags=4");
  EXPECT_ERROR(railyard_order_ranks(h100, NULL, NULL, 0, 0, &naive), RAILYARD_EINVAL,
               "job=(null)");
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=8", NULL, 1, 0, &naive), RAILYARD_EINVAL,
               "hosts=(null)");
  EXPECT_ERROR(railyard_order_ranks(NULL, "tp=8", NULL, 0, 0, &naive), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_order_ranks(h100, "tp=8", NULL, 0, 0, NULL), RAILYARD_EINVAL,
               "out=(null)");
  EXPECT_ERROR(railyard_order_rank(o, 128, &one), RAILYARD_EINVAL, "rank=128: out of range");
  EXPECT_ERROR(railyard_order_rank(o, -1, &one), RAILYARD_EINVAL, "rank=-1");
  EXPECT_ERROR(railyard_order_rank(o, 0, NULL), RAILYARD_EINVAL, "out=(null)");
  EXPECT_ERROR(railyard_order_rank(NULL, 0, &one), RAILYARD_EINVAL, "order=(null)");
  EXPECT_ERROR(railyard_order_table(o, table, 127), RAILYARD_ERANGE, "capacity=127");
  EXPECT_ERROR(railyard_order_table(NULL, table, 128), RAILYARD_EINVAL, "order=(null)");
  EXPECT_ERROR(railyard_order_nodes(o, nodes, 15), RAILYARD_ERANGE, "capacity=15");
  EXPECT_ERROR(railyard_order_nodes(NULL, nodes, 16), RAILYARD_EINVAL, "order=(null)");
  EXPECT_ERROR(railyard_order_get_info(o, NULL), RAILYARD_EINVAL, "out=(null)");
  EXPECT_ERROR(railyard_order_get_info(NULL, &info), RAILYARD_EINVAL, "order=(null)");
  railyard_order_destroy(o);
  railyard_order_destroy(NULL);
}

/* ---- Multi-tenant placement ---------------------------------------------- */
static void test_allocator(void) {
  railyard_allocator *a = NULL, *b = NULL, *imp = NULL;
  railyard_allocation got, got2;
  railyard_allocator_state st;
  int32_t hosts[128], hosts2[128];
  const int32_t held[2] = {0, 1}, free_pair[2] = {100, 101};
  int i, j;

  EXPECT(railyard_allocator_create(h100, NULL, 1, &a, NULL, 0) == RAILYARD_OK);
  /* 256 GPUs = 32 hosts: one whole SU (32 hosts per SU). */
  EXPECT(railyard_allocator_allocate(a, "llm", "acme", 256, hosts, 128, &got) == RAILYARD_OK);
  EXPECT(got.hosts == 32 && got.sus == 1 && got.pods == 1 && got.job == 0);
  EXPECT(got.partition_id == 1);
  for (i = 1; i < 32; ++i) EXPECT(hosts[i] > hosts[i - 1] && hosts[i] / 32 == hosts[0] / 32);
  /* The same tenant keeps its partition id; a new tenant gets the next one. */
  EXPECT(railyard_allocator_allocate(a, "eval", "acme", 64, hosts2, 128, &got2) == RAILYARD_OK);
  EXPECT(got2.partition_id == 1 && got2.hosts == 8 && got2.sus == 1 && got2.job == 1);
  for (i = 0; i < 8; ++i)
    for (j = 0; j < 32; ++j) EXPECT(hosts2[i] != hosts[j]);
  EXPECT(railyard_allocator_allocate(a, "other", NULL, 8, hosts2, 1, &got2) == RAILYARD_OK);
  EXPECT(got2.partition_id == 2 && got2.hosts == 1);
  EXPECT(railyard_allocator_get_state(a, &st) == RAILYARD_OK);
  EXPECT(st.free_hosts == 128 - 32 - 8 - 1 && st.live_jobs == 3 && st.live_tenants == 2);
  EXPECT(st.jobs_split_across_sus == 0 && st.jobs_split_across_pods == 0);
  EXPECT(st.largest_unsplit_hosts <= 32 && st.largest_unsplit_hosts >= 23);

  /* Errors leave the state as it was. */
  EXPECT_ERROR(railyard_allocator_allocate(a, "llm", NULL, 8, hosts2, 128, &got2),
               RAILYARD_EEXIST, "");
  EXPECT(strstr(railyard_last_error(), "llm") != NULL);
  EXPECT_ERROR(railyard_allocator_allocate(a, "x", NULL, 7, hosts2, 128, &got2), RAILYARD_EINVAL,
               "");
  EXPECT(strstr(railyard_last_error(), "gpus=7") != NULL);
  EXPECT_ERROR(railyard_allocator_allocate(a, "x", NULL, 16, hosts2, 1, &got2), RAILYARD_ERANGE,
               "capacity=1");
  EXPECT_ERROR(railyard_allocator_allocate(a, "x", NULL, 1024, hosts2, 128, &got2),
               RAILYARD_ENOSPACE, "");
  EXPECT(strstr(railyard_last_error(), "gpus=1024") != NULL);
  EXPECT_ERROR(railyard_allocator_allocate(a, "", NULL, 8, hosts2, 128, &got2), RAILYARD_EINVAL,
               "name=");
  EXPECT_ERROR(railyard_allocator_allocate(a, NULL, NULL, 8, hosts2, 128, &got2),
               RAILYARD_EINVAL, "name=(null)");
  EXPECT_ERROR(railyard_allocator_allocate(NULL, "x", NULL, 8, hosts2, 128, &got2),
               RAILYARD_EINVAL, "allocator=(null)");
  EXPECT(railyard_allocator_get_state(a, &st) == RAILYARD_OK && st.free_hosts == 87);

  /* reserve: exactly the hosts given, or EBUSY naming the holder. */
  EXPECT(railyard_allocator_reserve(a, "bg", "bgtenant", free_pair, 2, &got2) == RAILYARD_OK);
  EXPECT(got2.hosts == 2 && got2.partition_id == 3);
  EXPECT_ERROR(railyard_allocator_reserve(a, "bg2", NULL, free_pair, 2, NULL), RAILYARD_EBUSY,
               "");
  {
    int32_t first_of_llm[1];
    first_of_llm[0] = hosts[0];
    EXPECT_ERROR(railyard_allocator_reserve(a, "bg2", NULL, first_of_llm, 1, NULL),
                 RAILYARD_EBUSY, "");
  }
  (void)held;
  EXPECT_ERROR(railyard_allocator_reserve(a, "bg", NULL, free_pair, 2, NULL), RAILYARD_EEXIST,
               "");
  {
    const int32_t bad[1] = {128};
    EXPECT_ERROR(railyard_allocator_reserve(a, "bg3", NULL, bad, 1, NULL), RAILYARD_EINVAL, "");
    EXPECT(strstr(railyard_last_error(), "128") != NULL);
  }
  EXPECT_ERROR(railyard_allocator_reserve(a, "bg3", NULL, NULL, 0, NULL), RAILYARD_EINVAL, "");
  EXPECT_ERROR(railyard_allocator_reserve(a, "bg3", NULL, NULL, 2, NULL), RAILYARD_EINVAL,
               "hosts=(null)");
  EXPECT_ERROR(railyard_allocator_reserve(a, NULL, NULL, free_pair, 2, NULL), RAILYARD_EINVAL,
               "name=(null)");
  EXPECT_ERROR(railyard_allocator_reserve(NULL, "x", NULL, free_pair, 2, NULL), RAILYARD_EINVAL,
               "allocator=(null)");

  /* release frees the hosts and, with the tenant's last job, its partition id. */
  EXPECT(railyard_allocator_release(a, "bg") == RAILYARD_OK);
  EXPECT_ERROR(railyard_allocator_release(a, "bg"), RAILYARD_ENOTFOUND, "");
  EXPECT(strstr(railyard_last_error(), "bg") != NULL);
  EXPECT_ERROR(railyard_allocator_release(a, NULL), RAILYARD_EINVAL, "name=(null)");
  EXPECT_ERROR(railyard_allocator_release(NULL, "bg"), RAILYARD_EINVAL, "allocator=(null)");
  EXPECT(railyard_allocator_get_state(a, &st) == RAILYARD_OK);
  EXPECT(st.free_hosts == 87 && st.live_tenants == 2);
  EXPECT_ERROR(railyard_allocator_get_state(a, NULL), RAILYARD_EINVAL, "out=(null)");
  EXPECT_ERROR(railyard_allocator_get_state(NULL, &st), RAILYARD_EINVAL, "allocator=(null)");
  /* All that is free, then one host more. */
  EXPECT(railyard_allocator_allocate(a, "rest", NULL, 87 * 8, hosts2, 128, &got2) == RAILYARD_OK);
  EXPECT_ERROR(railyard_allocator_allocate(a, "more", NULL, 8, hosts2, 128, &got2),
               RAILYARD_ENOSPACE, "");
  railyard_allocator_destroy(a);

  /* first_fit takes the lowest ids; random is deterministic per seed. */
  EXPECT(railyard_allocator_create(h100, "first_fit", 1, &a, NULL, 0) == RAILYARD_OK);
  EXPECT(railyard_allocator_allocate(a, "j", NULL, 24, hosts, 128, &got) == RAILYARD_OK);
  EXPECT(hosts[0] == 0 && hosts[1] == 1 && hosts[2] == 2);
  railyard_allocator_destroy(a);
  EXPECT(railyard_allocator_create(h100, "random", 42, &a, NULL, 0) == RAILYARD_OK);
  EXPECT(railyard_allocator_create(h100, "random", 42, &b, NULL, 0) == RAILYARD_OK);
  EXPECT(railyard_allocator_allocate(a, "j", NULL, 80, hosts, 128, &got) == RAILYARD_OK);
  EXPECT(railyard_allocator_allocate(b, "j", NULL, 80, hosts2, 128, &got2) == RAILYARD_OK);
  EXPECT(memcmp(hosts, hosts2, 10 * sizeof hosts[0]) == 0);
  railyard_allocator_destroy(a);
  railyard_allocator_destroy(b);
  railyard_allocator_destroy(NULL);
  {
    char err[RAILYARD_C_ERROR_LEN];
    EXPECT_ERROR(railyard_allocator_create(h100, "worst_fit", 1, &a, err, sizeof err),
                 RAILYARD_EINVAL, "policy=worst_fit");
    EXPECT(a == NULL && strcmp(err, railyard_last_error()) == 0);
  }
  EXPECT_ERROR(railyard_allocator_create(NULL, NULL, 1, &a, NULL, 0), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_allocator_create(h100, NULL, 1, NULL, NULL, 0), RAILYARD_EINVAL,
               "out=(null)");

  /* An imported cluster's drained host (gpu06 = host 5) is never given out:
   * 7 healthy hosts of 8 GPUs each. */
  EXPECT(railyard_allocator_create(cables, "first_fit", 1, &imp, NULL, 0) == RAILYARD_OK);
  EXPECT(railyard_allocator_allocate(imp, "all", NULL, 56, hosts, 128, &got) == RAILYARD_OK);
  EXPECT(got.hosts == 7);
  for (i = 0; i < 7; ++i) EXPECT(hosts[i] != 5);
  EXPECT_ERROR(railyard_allocator_allocate(imp, "one", NULL, 8, hosts, 128, &got),
               RAILYARD_ENOSPACE, "");
  {
    const int32_t drained[1] = {5};
    EXPECT_ERROR(railyard_allocator_reserve(imp, "d", NULL, drained, 1, NULL), RAILYARD_EBUSY,
                 "");
  }
  railyard_allocator_destroy(imp);
}

/* ---- Source ports -------------------------------------------------------- */
static void test_advisor(void) {
  railyard_advisor* adv = NULL;
  railyard_nic_id local = {3, 5, 0, NULL}, remote = {40, 5, 0, NULL};
  railyard_conn_plan plan;
  char err[RAILYARD_C_ERROR_LEN];
  int i, j;
  const uint32_t seed = 7;

  EXPECT(railyard_cluster_advisor(h100, "crc32", seed, &adv, err, sizeof err) == RAILYARD_OK);
  if (adv == NULL) {
    fprintf(stderr, "advisor: %s\n", err);
    exit(1);
  }
  /* host 3 (SU 0) rail 5 -> host 40 (SU 1) rail 5: through the spines, over
   * the 32 uplinks of leaf 0 * 8 + 5 = 5. */
  EXPECT(railyard_advisor_connect(adv, &local, &remote, 16, &plan) == RAILYARD_ADVISOR_OK);
  EXPECT(plan.qps == 16 && plan.usable_uplinks == 32 && plan.uplinks_used == 16);
  for (i = 0; i < plan.qps; ++i) {
    const int32_t expected =
        crc_pick_uplink(seed, 5, nic_ip(3, 5, 8), nic_ip(40, 5, 8), plan.source_port[i], 32);
    EXPECT(plan.source_port[i] >= 0xC000u);
    EXPECT(expected == plan.uplink[i]); /* the CRC sends the port where the plan says */
    EXPECT(railyard_advisor_source_port(adv, plan.connection, (uint32_t)i) ==
           plan.source_port[i]);
    for (j = 0; j < i; ++j) EXPECT(plan.uplink[j] != plan.uplink[i]);
  }
  railyard_advisor_destroy(adv);

  /* On an imported cluster (4 hosts per SU, leaves of 4 uplinks): host 0 ->
   * host 4 on rail 0 crosses SUs; leaf of (host 0, rail 0) is 0. */
  EXPECT(railyard_cluster_advisor(cables, NULL, seed, &adv, NULL, 0) == RAILYARD_OK);
  local.host = 0;
  local.rail = 0;
  remote.host = 4;
  remote.rail = 0;
  EXPECT(railyard_advisor_connect(adv, &local, &remote, 4, &plan) == RAILYARD_ADVISOR_OK);
  EXPECT(plan.qps == 4 && plan.uplinks_used == 4);
  for (i = 0; i < plan.qps; ++i)
    EXPECT(crc_pick_uplink(seed, 0, nic_ip(0, 0, 4), nic_ip(4, 0, 4), plan.source_port[i], 4) ==
           plan.uplink[i]);
  railyard_advisor_destroy(adv);

  EXPECT_ERROR(railyard_cluster_advisor(h100, "md5", 0, &adv, err, sizeof err), RAILYARD_EINVAL,
               "");
  EXPECT(adv == NULL && strstr(err, "md5") != NULL);
  EXPECT_ERROR(railyard_cluster_advisor(NULL, NULL, 0, &adv, NULL, 0), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_cluster_advisor(h100, NULL, 0, NULL, NULL, 0), RAILYARD_EINVAL,
               "out=(null)");
}

/* ---- Congestion control -------------------------------------------------- */
static void test_cc(void) {
  railyard_cc_request req;
  railyard_cc_settings cc;
  char env[4096];
  size_t needed = 0;
  int t, lines = 0;
  const char* p;

  memset(&req, 0, sizeof req);
  req.incast = 8;
  EXPECT(railyard_cc_recommend(h100, &req, &cc, env, sizeof env, &needed) == RAILYARD_OK);
  EXPECT(cc.link_gbps == 400 && cc.incast == 8 && cc.mtu_bytes == 4096);
  EXPECT(cc.ecn_tiers >= 2 && cc.ecn_tiers <= RAILYARD_CC_MAX_TIERS);
  EXPECT(strcmp(cc.ecn[0].tier, "leaf->host") == 0);
  for (t = 0; t < cc.ecn_tiers; ++t) {
    /* BDP = link rate x RTT: 400 Gb/s = 50 bytes per ns. */
    const double bdp = 400e9 / 8 * cc.ecn[t].rtt_us * 1e-6;
    EXPECT(cc.ecn[t].rtt_us > 0);
    EXPECT(fabs(cc.ecn[t].bdp_bytes - bdp) <= 1e-6 * bdp);
    EXPECT(cc.ecn[t].kmin_bytes > 0 && cc.ecn[t].kmin_bytes < cc.ecn[t].kmax_bytes);
    EXPECT(cc.ecn[t].pmax > 0 && cc.ecn[t].pmax <= 1);
  }
  EXPECT(cc.pfc_headroom_bytes > 0 && cc.pfc_priority == 3);
  EXPECT(cc.buffer_bytes_per_port > cc.pfc_headroom_bytes);
  /* Not searched: the recommendation is ConnectX's defaults (rpg_ai_rate 5,
   * rpg_hai_rate 50 Mb/s, rpg_time_reset 300 us). */
  EXPECT(cc.dcqcn.ai_mbps == 5 && cc.dcqcn.hai_mbps == 50 && cc.dcqcn.increase_timer_us == 300);
  EXPECT(cc.derived_dcqcn.g > 0 && cc.derived_dcqcn.g < 1);
  EXPECT(needed == strlen(env) + 1 && cc.nccl_env_count > 0);
  for (p = env; *p; ++p) lines += *p == '\n';
  EXPECT(lines == cc.nccl_env_count);
  EXPECT(starts_with(env, "NCCL_") || strstr(env, "\nNCCL_") != NULL);

  /* The job's own incast: between 1 and its world. */
  req.incast = 0;
  req.job = "tp=8,ep=8,dp=2";
  EXPECT(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL) == RAILYARD_OK);
  EXPECT(cc.incast >= 1 && cc.incast <= 128);
  req.job = NULL;
  /* A larger MTU gives larger frames, a smaller one is refused unless a RoCE MTU. */
  req.mtu_bytes = 1024;
  EXPECT(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL) == RAILYARD_OK);
  EXPECT(cc.mtu_bytes == 1024 && cc.incast == 1);

  req.mtu_bytes = 1000;
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL,
               "mtu_bytes=1000");
  req.mtu_bytes = 0;
  req.incast = -1;
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL,
               "incast=-1");
  req.incast = 0;
  req.cable_m = -5;
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL,
               "cable_m=-5");
  req.cable_m = 0;
  req.job = "tp=9";
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL, "");
  EXPECT(strstr(railyard_last_error(), "tp=9") != NULL);
  req.job = NULL;
  req.host_count = 2;
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL, "hosts=");
  req.host_count = 0;
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, &cc, env, 4, &needed), RAILYARD_ERANGE,
               "nccl_env_len=4");
  EXPECT(needed > 4 && cc.link_gbps == 400); /* *out filled */
  EXPECT_ERROR(railyard_cc_recommend(NULL, &req, &cc, NULL, 0, NULL), RAILYARD_EINVAL,
               "cluster=(null)");
  EXPECT_ERROR(railyard_cc_recommend(h100, NULL, &cc, NULL, 0, NULL), RAILYARD_EINVAL,
               "request=(null)");
  EXPECT_ERROR(railyard_cc_recommend(h100, &req, NULL, NULL, 0, NULL), RAILYARD_EINVAL,
               "out=(null)");
}

/* ---- Simulating a collective --------------------------------------------- */
static void test_simulate(void) {
  railyard_sim_request req;
  railyard_sim_result res;
  const int32_t hosts[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  /* 8 hosts of SU 0; "dp" groups = the same GPU index on the 8 hosts: every
   * ring runs on one rail under one leaf, each rank sending through its own
   * 400 Gb/s NIC. Ring all-reduce of S bytes over n ranks: each rank sends
   * 2(n-1)/n * S, so time >= 2(n-1)/n * S * 8 / 400e9 s. */
  const double S = 1 << 28, n = 8;
  const double bound_us = 2 * (n - 1) / n * S * 8 / 400e9 * 1e6;

  memset(&req, 0, sizeof req);
  req.collective = "allreduce";
  req.job = "tp=8,dp=8";
  req.hosts = hosts;
  req.host_count = 8;
  req.group = "dp";
  req.bytes = (int64_t)S;
  EXPECT(railyard_simulate(h100, &req, &res) == RAILYARD_OK);
  EXPECT(res.groups == 8 && res.ranks_per_group == 8);
  EXPECT(res.time_us >= bound_us);
  EXPECT(res.time_us <= bound_us * 1.05 + res.latency_us + 50);
  EXPECT(fabs(res.lower_bound_us - bound_us) <= 0.01 * bound_us);
  EXPECT(fabs(res.algbw_gbps - S * 8 / (res.time_us * 1e3)) <= 1e-6 * res.algbw_gbps);
  EXPECT(fabs(res.busbw_gbps - res.algbw_gbps * 2 * (n - 1) / n) <= 1e-6 * res.busbw_gbps);
  EXPECT(res.busbw_gbps <= 400 && res.busbw_gbps > 360);
  EXPECT(res.steps > 0 && res.flows > 0);

  /* All-gather: (n-1)/n * S per rank. */
  req.collective = "allgather";
  EXPECT(railyard_simulate(h100, &req, &res) == RAILYARD_OK);
  EXPECT(res.time_us >= bound_us / 2);
  EXPECT(fabs(res.busbw_gbps - res.algbw_gbps * (n - 1) / n) <= 1e-6 * res.busbw_gbps);

  /* On the imported cluster with its failures down, a ring still runs. */
  memset(&req, 0, sizeof req);
  req.collective = "allreduce";
  req.job = "tp=4,dp=2";
  req.bytes = 1 << 20;
  req.routing = "steered";
  req.qps = 2;
  EXPECT(railyard_simulate(cables, &req, &res) == RAILYARD_OK);
  EXPECT(res.time_us > 0 && res.ranks_per_group == 8);

  /* Errors name the field. */
  memset(&req, 0, sizeof req);
  req.collective = "allreduce";
  req.job = "tp=8,dp=8";
  req.bytes = 1 << 20;
  req.collective = "broadcast";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "collective=broadcast");
  req.collective = "allreduce";
  req.algorithm = "magic";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "algorithm=magic");
  req.collective = "alltoall";
  req.algorithm = "tree";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "");
  EXPECT(strstr(railyard_last_error(), "tree") != NULL);
  req.collective = "allreduce";
  req.algorithm = NULL;
  req.routing = "teleport";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "routing=teleport");
  req.routing = NULL;
  req.bytes = 0;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "bytes=0");
  req.bytes = 1 << 20;
  req.qps = 300;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "qps=300");
  req.qps = 0;
  req.group = "xp";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "group=xp");
  req.group = "pp";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "group=pp");
  req.group = NULL;
  req.job = "tp=1";
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "");
  req.job = NULL;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "job=(null)");
  req.job = "tp=8,dp=8";
  req.max_memory_bytes = -1;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "max_memory_bytes=-1");
  req.max_memory_bytes = 1000;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_ENOSPACE, "max_memory_bytes=1000");
  req.max_memory_bytes = 0;
  req.collective = NULL;
  EXPECT_ERROR(railyard_simulate(h100, &req, &res), RAILYARD_EINVAL, "collective=(null)");
  EXPECT_ERROR(railyard_simulate(NULL, &req, &res), RAILYARD_EINVAL, "cluster=(null)");
  EXPECT_ERROR(railyard_simulate(h100, NULL, &res), RAILYARD_EINVAL, "request=(null)");
  EXPECT_ERROR(railyard_simulate(h100, &req, NULL), RAILYARD_EINVAL, "out=(null)");
}

/* ---- Threads ------------------------------------------------------------- */
/* One fresh cluster used by four threads at once: the first calls that need
 * its fabric (CC, the advisor) race to build it; each thread's failing call
 * leaves its own message in its own last-error buffer. */
typedef struct thread_case {
  railyard_cluster* cluster;
  int index;
  int ok;
} thread_case;

static void* thread_body(void* arg) {
  thread_case* t = (thread_case*)arg;
  railyard_cc_request req;
  railyard_cc_settings cc;
  railyard_order* o = NULL;
  railyard_advisor* adv = NULL;
  railyard_rank r;
  char bad[32], expected[64];
  int32_t ids[4];
  size_t n = 0;
  int i;
  t->ok = 1;
  memset(&req, 0, sizeof req);
  req.incast = 2 + t->index;
  snprintf(bad, sizeof bad, "node9%03d", t->index);
  snprintf(expected, sizeof expected, "hosts=%s", bad);
  for (i = 0; i < 3; ++i) {
    t->ok &= railyard_cc_recommend(t->cluster, &req, &cc, NULL, 0, NULL) == RAILYARD_OK &&
             cc.incast == 2 + t->index;
    t->ok &= railyard_cluster_advisor(t->cluster, NULL, (uint32_t)t->index, &adv, NULL, 0) ==
             RAILYARD_OK;
    railyard_advisor_destroy(adv);
    t->ok &= railyard_order_ranks(t->cluster, "tp=8,dp=4", NULL, 0, 0, &o) == RAILYARD_OK;
    t->ok &= railyard_order_rank(o, 31, &r) == RAILYARD_OK && r.host == 3 && r.gpu == 7;
    railyard_order_destroy(o);
    t->ok &= railyard_cluster_parse_hosts(t->cluster, bad, ids, 4, &n) == RAILYARD_ENOTFOUND;
    t->ok &= starts_with(railyard_last_error(), expected);
  }
  return NULL;
}

static void test_threads(void) {
  railyard_cluster* c = NULL;
  pthread_t threads[4];
  thread_case cases[4];
  int i;
  EXPECT(railyard_cluster_create("h100-1024-2to1", NULL, &c, NULL, 0) == RAILYARD_OK);
  for (i = 0; i < 4; ++i) {
    cases[i].cluster = c;
    cases[i].index = i;
    cases[i].ok = 0;
    EXPECT(pthread_create(&threads[i], NULL, thread_body, &cases[i]) == 0);
  }
  for (i = 0; i < 4; ++i) {
    EXPECT(pthread_join(threads[i], NULL) == 0);
    EXPECT(cases[i].ok == 1);
  }
  railyard_cluster_destroy(c);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: railyard_c_test <tests/data/cables directory>\n");
    return 2;
  }
  snprintf(data_dir, sizeof data_dir, "%s", argv[1]);
  init_crc_table();
  test_library();
  test_clusters();
  test_order();
  test_allocator();
  test_advisor();
  test_cc();
  test_simulate();
  test_threads();
  railyard_cluster_destroy(h100);
  railyard_cluster_destroy(cables);
  if (failures == 0)
    printf("railyard_c_test: all %d checks passed (C API %d, railyard %s)\n", checks,
           RAILYARD_C_API_VERSION, railyard_version());
  return failures == 0 ? 0 : 1;
}
