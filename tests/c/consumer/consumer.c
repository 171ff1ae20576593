/* tests/c/consumer/consumer.c — a C program built against an installed
 * railyard (cmake --install): the header from <prefix>/include, the library
 * through pkg-config's railyard_c.pc (tests/c/check_c_install.cmake). */
#include <stdio.h>
#include <railyard/c/railyard.h>
int main(void) {
  railyard_cluster* c;
  railyard_cluster_info i;
  if (railyard_cluster_create("h100-1024", NULL, &c, NULL, 0) != RAILYARD_OK) return 1;
  railyard_cluster_get_info(c, &i);
  printf("%d hosts, C API %d\n", i.hosts, railyard_c_api_version());
  railyard_cluster_destroy(c);
  return 0;
}
