# simulate --generate alltoallv:FILE — all-to-all-v from a byte matrix
# (sim::parse_traffic_matrix, docs/cli.md#simulate-traffic). Worked by hand:
# tests/data/traffic/incast_matrix.csv is a 3:1 incast of 125 kB flows into one
# 100 Gb/s NIC: 30 us fluid plus a few us of latency; its diagonal makes no flow.
railyard_add_cli_test(
  NAME simulate_traffic_matrix_incast
  ARGS simulate --cluster ${RAILYARD_K4_FAT_TREE}
       --generate alltoallv:${PROJECT_SOURCE_DIR}/tests/data/traffic/incast_matrix.csv --noqueueing
  STDOUT_REGEX
    "^traffic: 3 flows .3 simulator flows., routing ecmp .seed 1.\n"
    "fct_us: mean 3[0-9]\\.[0-9][0-9][0-9]  p50 3[0-9]\\.[0-9]+  p99 3[0-9]\\.[0-9]+  max 3[0-9]\\.[0-9]+\n"
  STDERR_REGEX "^$")
railyard_cli_error_test(
  NAME error_simulate_traffic_matrix_not_square
  ARGS simulate --cluster ${RAILYARD_K4_FAT_TREE}
       --generate alltoallv:${PROJECT_SOURCE_DIR}/tests/data/traffic/matrix_not_square.csv
  STDERR_REGEX "row 2 .line 3.: 2 columns; the matrix has 3 rows and must be square")
railyard_cli_error_test(
  NAME error_simulate_traffic_matrix_missing
  ARGS simulate --cluster ${RAILYARD_K4_FAT_TREE} --generate alltoallv:/nonexistent/m.csv
  STDERR_REGEX "generate=/nonexistent/m.csv: cannot open the file")
railyard_cli_error_test(
  NAME error_simulate_traffic_matrix_with_bytes
  ARGS simulate --cluster ${RAILYARD_K4_FAT_TREE} --bytes 1MiB
       --generate alltoallv:${PROJECT_SOURCE_DIR}/tests/data/traffic/incast_matrix.csv
  STDERR_REGEX "alltoallv:FILE takes every flow's size from the matrix; drop --bytes")
