/* tests/plugin/advisor_c_test.c — the path advisor from C.
 *
 * Compiled as C99 (not C++): proves that railyard/plugin/advisor.h is valid C
 * on its own and that a C program links against the functions defined by one
 * C++ translation unit (advisor_c_impl.cpp). Exits 0 and prints one summary
 * line on success; prints every failed check and exits 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "railyard/plugin/advisor.h"

static int failures = 0;

#define EXPECT(cond)                                                     \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

static int starts_with(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A fake sysfs: <root>/class/infiniband/mlx5_<k>/device -> .../<busid> and one
 * GID table entry per device, as the kernel lays them out. */
static void make_dirs(const char* path) {
  char buf[512];
  size_t i;
  strncpy(buf, path, sizeof buf - 1);
  buf[sizeof buf - 1] = '\0';
  for (i = 1; buf[i] != '\0'; ++i)
    if (buf[i] == '/') {
      buf[i] = '\0';
      mkdir(buf, 0700);
      buf[i] = '/';
    }
  mkdir(buf, 0700);
}
static void fake_rdma_device(const char* root, int k, const char* busid, const char* gid) {
  char path[512], target[256];
  FILE* f;
  snprintf(path, sizeof path, "%s/class/infiniband/mlx5_%d/ports/1/gids", root, k);
  make_dirs(path);
  snprintf(path, sizeof path, "%s/class/infiniband/mlx5_%d/device", root, k);
  snprintf(target, sizeof target, "../../../devices/pci0000:00/%s", busid);
  if (symlink(target, path) != 0) perror("symlink");
  snprintf(path, sizeof path, "%s/class/infiniband/mlx5_%d/ports/1/gids/0", root, k);
  f = fopen(path, "w");
  if (f != NULL) {
    fprintf(f, "%s\n", gid);
    fclose(f);
  }
}

static int warnings = 0;
static void on_log(void* user, int level, const char* message) {
  (void)message;
  if (level == 2) ++*(int*)user;
}

int main(void) {
  char err[RAILYARD_ADVISOR_ERROR_LEN];
  railyard_advisor_options options;
  railyard_advisor* adv;
  railyard_nic_id local, remote;
  railyard_conn_plan plan;
  int rail = -1, plane = -1, i, j, rc;

  /* Missing cluster: NULL back, a message naming the variables. */
  adv = railyard_advisor_create("no-such-preset", NULL, 0, err, sizeof err);
  EXPECT(adv == NULL);
  EXPECT(starts_with(err, "cluster 'no-such-preset'"));

  memset(&options, 0, sizeof options);
  options.cluster = "h100-1024-dualplane";
  options.hash_model = "crc32";
  options.hash_seed = 7;
  options.log = on_log;
  options.log_user = &warnings;
  adv = railyard_advisor_create_ex(&options, err, sizeof err);
  EXPECT(adv != NULL);
  if (adv == NULL) {
    fprintf(stderr, "create: %s\n", err);
    return 1;
  }

  /* host 3 rail 5 plane 1 by name, to host 40 by numbers. */
  local.host = 3;
  local.rail = -1;
  local.plane = -1;
  local.name_or_pci = "mlx5_11";
  remote.host = 40;
  remote.rail = 5;
  remote.plane = 1;
  remote.name_or_pci = NULL;
  rc = railyard_advisor_connect(adv, &local, &remote, 16, &plan);
  EXPECT(rc == RAILYARD_ADVISOR_OK);
  EXPECT(plan.error[0] == '\0');
  EXPECT(plan.qps == 16);
  EXPECT(plan.uplinks_used == 16);
  EXPECT(plan.local.rail == 5 && plan.local.plane == 1);
  for (i = 0; i < plan.qps; ++i) {
    const uint32_t fl = plan.flow_label[i];
    const uint16_t sport = plan.source_port[i];
    EXPECT(sport >= 0xC000u);
    EXPECT(sport == (uint16_t)(0xC000u | ((fl & 0x3FFFu) ^ ((fl & 0xFC000u) >> 14))));
    EXPECT(railyard_advisor_source_port(adv, plan.connection, (uint32_t)i) == sport);
    EXPECT(railyard_advisor_flow_label(adv, plan.connection, (uint32_t)i) == fl);
    for (j = 0; j < i; ++j) {
      EXPECT(plan.source_port[j] != sport);
      EXPECT(plan.uplink[j] != plan.uplink[i]);
    }
  }
  EXPECT(railyard_advisor_qps(adv, plan.connection) == 16);
  EXPECT(railyard_advisor_connections(adv) == 1);
  EXPECT(railyard_advisor_source_port(adv, plan.connection + 1, 0) == 0);

  /* connect_ex: the destination QP base is part of the connection's identity
   * (a new id), and crc32 does not hash it (the same ports). */
  {
    railyard_conn_plan ex;
    const int warnings_before = warnings;
    EXPECT(railyard_advisor_connect_ex(adv, &local, &remote, 16, 0x5000u, &ex) ==
           RAILYARD_ADVISOR_OK);
    EXPECT(ex.connection != plan.connection && ex.qps == 16);
    for (i = 0; i < ex.qps; ++i) EXPECT(ex.source_port[i] == plan.source_port[i]);
    EXPECT(railyard_advisor_connections(adv) == 2);
    EXPECT(railyard_advisor_connect_ex(adv, &local, &remote, 16, 0x5000u, &ex) ==
               RAILYARD_ADVISOR_OK &&
           ex.connection == 1);
    EXPECT(railyard_advisor_connect_ex(adv, &local, &remote, 16, 1u << 24, &ex) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(ex.error, "base_dst_qpn=16777216"));
    EXPECT(railyard_advisor_connect_ex(adv, &local, &remote, 0, 0x5000u, &ex) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(railyard_advisor_last_error(), "qp_budget=0"));
    EXPECT(railyard_advisor_connect_ex(adv, &local, &remote, 16, 0x5000u, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(railyard_advisor_connect_ex(NULL, &local, &remote, 16, 0x5000u, &ex) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(railyard_advisor_connect_ex(adv, NULL, &remote, 16, 0x5000u, &ex) ==
           RAILYARD_ADVISOR_EINVAL);
    /* Each error is also a warning through the advisor's log (not the NULL advisor's). */
    EXPECT(warnings == warnings_before + 4);
    warnings = warnings_before;
  }

  /* One leaf: a single path, one QP. */
  local.host = 0;
  local.rail = 2;
  local.plane = 0;
  local.name_or_pci = NULL;
  remote.host = 1;
  remote.rail = 2;
  remote.plane = 0;
  EXPECT(railyard_advisor_connect(adv, &local, &remote, 8, &plan) == RAILYARD_ADVISOR_OK);
  EXPECT(plan.qps == 1 && plan.uplink[0] == -1);

  /* rail/plane for NCCL's properties, as nccl_xml names the ports. */
  EXPECT(railyard_advisor_rail_plane(adv, "mlx5_6", &rail, &plane) == RAILYARD_ADVISOR_OK);
  EXPECT(rail == 3 && plane == 0);
  EXPECT(railyard_advisor_rail_plane_port(adv, "0000:21:00.0", 2, &rail, &plane) ==
         RAILYARD_ADVISOR_OK);
  EXPECT(rail == 5 && plane == 1);

  /* Errors: codes, messages naming field and value, the log callback. */
  remote.rail = 9;
  EXPECT(railyard_advisor_connect(adv, &local, &remote, 8, &plan) == RAILYARD_ADVISOR_EINVAL);
  EXPECT(starts_with(plan.error, "remote.rail=9"));
  EXPECT(strcmp(railyard_advisor_last_error(), plan.error) == 0);
  remote.rail = 2;
  EXPECT(railyard_advisor_connect(adv, &local, &remote, 0, &plan) == RAILYARD_ADVISOR_EINVAL);
  EXPECT(starts_with(plan.error, "qp_budget=0"));
  EXPECT(railyard_advisor_connect(adv, NULL, &remote, 4, &plan) == RAILYARD_ADVISOR_EINVAL);
  EXPECT(strcmp(plan.error, "local=(null): required") == 0);
  EXPECT(railyard_advisor_rail_plane(adv, "mlx5_40", &rail, &plane) == RAILYARD_ADVISOR_ENOTFOUND);
  EXPECT(starts_with(railyard_advisor_last_error(), "nic_name_or_pci=mlx5_40"));
  EXPECT(warnings == 4);
  EXPECT(strcmp(railyard_advisor_strerror(RAILYARD_ADVISOR_EINVAL), "invalid argument") == 0);

  /* Both ends of a connection, as a plugin sees them: the listener's endpoint
   * travels in its 128-byte handle (here at offset 40, after the plugin's own
   * address); the connector reads it; both get one QP count. */
  {
    unsigned char handle[128];
    railyard_nic_id listener, read_back, connector;
    railyard_advisor* other;
    uint32_t qpns[4] = {0x3F21u, 0x11u, 0xABCDEu, 0x400u}; /* as ibv_create_qp gave them */
    int budget = 0, ab, ba;
    memset(handle, 0xEE, sizeof handle);
    memset(&listener, 0, sizeof listener);
    listener.host = 40;
    listener.rail = -1;
    listener.plane = -1;
    listener.name_or_pci = "mlx5_11"; /* rail 5, plane 1 */
    EXPECT(railyard_advisor_endpoint_encode(adv, &listener, 16, handle + 40,
                                            sizeof handle - 40) == RAILYARD_ADVISOR_OK);
    EXPECT(handle[40] == 'R' && handle[43] == 'P' && handle[39] == 0xEE && handle[72] == 0xEE);
    EXPECT(railyard_advisor_endpoint_decode(adv, handle + 40, RAILYARD_ADVISOR_ENDPOINT_BYTES,
                                            &read_back, &budget) == RAILYARD_ADVISOR_OK);
    EXPECT(read_back.host == 40 && read_back.rail == 5 && read_back.plane == 1 && budget == 16);
    EXPECT(read_back.name_or_pci == NULL);

    memset(&connector, 0, sizeof connector);
    connector.host = 3;
    connector.rail = 5;
    connector.plane = 1;
    ab = railyard_advisor_agreed_qps(adv, &connector, 64, &read_back, budget);
    ba = railyard_advisor_agreed_qps(adv, &read_back, budget, &connector, 64);
    EXPECT(ab >= 1 && ab == ba && ab <= 16);
    EXPECT(railyard_advisor_connect(adv, &connector, &read_back, ab, &plan) == RAILYARD_ADVISOR_OK);
    EXPECT(plan.qps == ab);
    EXPECT(railyard_advisor_connect(adv, &read_back, &connector, ab, &plan) == RAILYARD_ADVISOR_OK);
    EXPECT(plan.qps == ab);
    EXPECT(railyard_advisor_agreed_qps(adv, &connector, 0, &read_back, 4) == RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(railyard_advisor_last_error(), "budget_a=0"));

    /* The remote's real QP numbers, not consecutive: 4 QPs, 4 ports. */
    EXPECT(railyard_advisor_connect_qpns(adv, &connector, &read_back, qpns, 4, &plan) ==
           RAILYARD_ADVISOR_OK);
    EXPECT(plan.qps == 4);
    for (i = 0; i < 4; ++i) EXPECT(plan.source_port[i] >= 0xC000);
    qpns[2] = 0x1000000u;
    EXPECT(railyard_advisor_connect_qpns(adv, &connector, &read_back, qpns, 4, &plan) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(plan.error, "dst_qpns[2]=16777216"));

    /* Short or foreign bytes, and a rank with another hash seed: refused. */
    EXPECT(railyard_advisor_endpoint_decode(adv, handle + 40, 31, &read_back, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(railyard_advisor_last_error(), "endpoint=31 bytes"));
    EXPECT(railyard_advisor_endpoint_decode(adv, handle, 128, &read_back, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
    options.hash_seed = 8;
    other = railyard_advisor_create_ex(&options, err, sizeof err);
    EXPECT(other != NULL);
    if (other != NULL) {
      EXPECT(railyard_advisor_digest(other) != railyard_advisor_digest(adv));
      EXPECT(railyard_advisor_endpoint_decode(other, handle + 40, 88, &read_back, NULL) ==
             RAILYARD_ADVISOR_EMISMATCH);
      EXPECT(starts_with(railyard_advisor_last_error(), "endpoint.digest=0x"));
      railyard_advisor_destroy(other);
    }
    options.hash_seed = 7;
    other = railyard_advisor_create_ex(&options, err, sizeof err);
    EXPECT(other != NULL && railyard_advisor_digest(other) == railyard_advisor_digest(adv));
    railyard_advisor_destroy(other);
    EXPECT(strcmp(railyard_advisor_strerror(RAILYARD_ADVISOR_EMISMATCH),
                  "peer describes another cluster") == 0);
  }

  /* The local NIC as a verbs plugin names it: device, merged device, GID, IP. */
  {
    char root[] = "/tmp/railyard-c-sysfs-XXXXXX";
    railyard_nic_id nics[2];
    railyard_nic_id by_address;
    if (mkdtemp(root) == NULL) {
      perror("mkdtemp");
      ++failures;
    } else {
      /* h100-1024-dualplane: 8 NICs of 2 ports (planes) per host, one PCI
       * function each (port 1 = plane 0); bus ids out of name order. */
      static const char* busids[8] = {"0000:9a:00.0", "0000:18:00.0", "0000:dc:00.0",
                                      "0000:3a:00.0", "0000:ba:00.0", "0000:4c:00.0",
                                      "0000:5d:00.0", "0000:cc:00.0"};
      char gid[64];
      char cmd[600];
      int k;
      for (k = 0; k < 8; ++k) {
        snprintf(gid, sizeof gid, "0000:0000:0000:0000:0000:ffff:0a01:0%d07", k);
        fake_rdma_device(root, k, busids[k], gid);
      }
      /* mlx5_2 = dc: 8th in bus-id order; mlx5_1 = 18: 1st. */
      EXPECT(railyard_advisor_local_nics(adv, 5, "mlx5_2+mlx5_1", 1, root, nics, 2) == 2);
      EXPECT(nics[0].host == 5 && nics[0].rail == 7 && nics[0].plane == 0);
      EXPECT(nics[1].rail == 0 && nics[1].name_or_pci == NULL);
      EXPECT(railyard_advisor_local_nics(adv, 5, "mlx5_2+mlx5_1", 1, root, nics, 1) ==
             RAILYARD_ADVISOR_EINVAL);
      EXPECT(starts_with(railyard_advisor_last_error(), "max_out=1"));
      EXPECT(railyard_advisor_local_nics(adv, 5, "mlx5_77", 1, root, nics, 2) ==
             RAILYARD_ADVISOR_ENOTFOUND);
      EXPECT(starts_with(railyard_advisor_last_error(), "device=mlx5_77"));
      EXPECT(railyard_advisor_local_nic_by_address(adv, 5, "10.1.2.7", root, &by_address) == 0);
      EXPECT(by_address.host == 5 && by_address.rail == 7 && by_address.plane == 0);
      EXPECT(railyard_advisor_local_nic_by_address(
                 adv, 6, "0000:0000:0000:0000:0000:ffff:0a01:0507", root, &by_address) == 0);
      EXPECT(by_address.host == 6 && by_address.rail == 2); /* 4c: 3rd */
      EXPECT(railyard_advisor_local_nic_by_address(adv, 5, "10.9.9.9", root, &by_address) ==
             RAILYARD_ADVISOR_ENOTFOUND);
      EXPECT(starts_with(railyard_advisor_last_error(), "address=10.9.9.9: no GID"));
      EXPECT(railyard_advisor_local_nic_by_address(adv, 5, "not an address", root,
                                                   &by_address) == RAILYARD_ADVISOR_EINVAL);
      EXPECT(starts_with(railyard_advisor_last_error(), "address=not an address"));
      EXPECT(railyard_advisor_local_nic_by_address(adv, 5, NULL, root, &by_address) ==
             RAILYARD_ADVISOR_EINVAL);
      EXPECT(railyard_advisor_local_nic_by_address(adv, 5, "10.1.2.7", root, NULL) ==
             RAILYARD_ADVISOR_EINVAL);
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
      if (system(cmd) != 0) ++failures;
    }
  }

  /* A socket plugin's streams: distinct ports on distinct uplinks. */
  {
    railyard_nic_id me = {0, 0, 0, NULL};
    railyard_nic_id peer = {40, 0, 0, NULL};
    uint16_t ports[4];
    int32_t uplinks[4];
    int i, j;
    EXPECT(railyard_advisor_plan_tcp_streams(adv, &me, &peer, 4, 0x0A000001u, 0x0A000002u, 40123,
                                             0, ports, uplinks) == 0);
    for (i = 0; i < 4; ++i)
      for (j = 0; j < i; ++j) EXPECT(ports[i] != ports[j] && uplinks[i] != uplinks[j]);
    EXPECT(railyard_advisor_plan_tcp_streams(adv, &me, &peer, 0, 1, 2, 40123, 0, ports, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(railyard_advisor_last_error(), "streams=0"));
    EXPECT(railyard_advisor_plan_tcp_streams(adv, &me, &peer, 2, 1, 2, 0, 0, ports, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
    EXPECT(starts_with(railyard_advisor_last_error(), "flow.dst_port=0"));
    EXPECT(railyard_advisor_plan_tcp_streams(adv, &me, &peer, 2, 1, 2, 9, 0, NULL, NULL) ==
           RAILYARD_ADVISOR_EINVAL);
  }

  railyard_advisor_destroy(adv);
  railyard_advisor_destroy(NULL);
  if (failures == 0)
    printf("advisor_c_test: all checks passed (C API %d)\n", RAILYARD_ADVISOR_API_VERSION);
  return failures == 0 ? 0 : 1;
}
