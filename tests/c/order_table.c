/* tests/c/order_table.c — the pod (node rank) -> node table of a job straight
 * from the C API, the reference examples/go's output is checked against:
 *   order_table <cluster> <job> <hostlist>
 * prints "pod <i> node <name>" per node rank. Exit 2 on an error. */
#include <stdio.h>
#include <stdlib.h>

#include "railyard/c/railyard.h"

int main(int argc, char** argv) {
  railyard_cluster* c = NULL;
  railyard_order* o = NULL;
  railyard_order_info info;
  int32_t ids[4096], nodes[4096];
  size_t n = 0;
  char name[256];
  int i;
  if (argc != 4) {
    fprintf(stderr, "usage: order_table <cluster> <job> <hostlist>\n");
    return 2;
  }
  if (railyard_cluster_create(argv[1], NULL, &c, NULL, 0) != RAILYARD_OK ||
      railyard_cluster_parse_hosts(c, argv[3], ids, 4096, &n) != RAILYARD_OK ||
      railyard_order_ranks(c, argv[2], ids, n, 0, &o) != RAILYARD_OK ||
      railyard_order_get_info(o, &info) != RAILYARD_OK ||
      railyard_order_nodes(o, nodes, 4096) != RAILYARD_OK) {
    fprintf(stderr, "order_table: %s\n", railyard_last_error());
    return 2;
  }
  for (i = 0; i < info.nodes; ++i) {
    if (railyard_cluster_host_name(c, nodes[i], name, sizeof name, NULL) != RAILYARD_OK) return 2;
    printf("pod %d node %s\n", i, name);
  }
  railyard_order_destroy(o);
  railyard_cluster_destroy(c);
  return 0;
}
