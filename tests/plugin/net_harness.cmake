# The NCCL net plugin exercised through NCCL's net API (tests/plugin/net_harness.cpp),
# included by examples/nccl_net/CMakeLists.txt inside `if(RAILYARD_BUILD_TESTS)`,
# after it defines the plugin target nccl_net_railyard:
#   plugin.net_library      the .so as a loader sees it: exactly the five
#                           ncclNetPlugin_v8..v12 tables exported, NEEDED only
#                           libc/libstdc++/libm, nothing of Abseil imported;
#   net_harness cases       two processes on loopback, one CTest test per doctest
#                           case (every table version, 0 B..1 GiB, 32 in flight,
#                           a peer killed, the source ports against the plan);
#   plugin.net_namespaces   the same roles between two network namespaces joined
#                           by a veth pair; SKIPPED (with the reason) where the
#                           namespaces cannot be made (not root, no `ip`, ...).
add_executable(net_harness "${PROJECT_SOURCE_DIR}/tests/plugin/net_harness.cpp")
# railyard::railyard for the harness's own PathAdvisor (it decodes the handle
# and plans the ports the plugin must have used); the plugin itself links none.
target_link_libraries(net_harness PRIVATE railyard::railyard doctest::doctest ${CMAKE_DL_LIBS})
target_compile_definitions(net_harness PRIVATE
  "RAILYARD_NET_LIBRARY=\"$<TARGET_FILE:nccl_net_railyard>\"")
add_dependencies(net_harness nccl_net_railyard)
# Each case spawns the harness twice (server and client roles); the harness
# has its own deadlines (30 s per blocking step, 120 s per pair), so a hang is
# reported as a failure naming the step before CTest's TIMEOUT would fire.
doctest_discover_tests(net_harness
  WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
  PROPERTIES LABELS "plugin" TIMEOUT 240
  # A case that cannot get its component (a UTS namespace) says so.
  SKIP_REGULAR_EXPRESSION "SKIPPED:")

include(RailyardPluginLibraryTest)
railyard_add_plugin_library_test(NAME plugin.net_library TARGET nccl_net_railyard
  EXPORTS ncclNetPlugin_v8 ncclNetPlugin_v9 ncclNetPlugin_v10 ncclNetPlugin_v11
    ncclNetPlugin_v12)

# Network namespaces need root (CAP_NET_ADMIN / CAP_SYS_ADMIN) and iproute2's
# `ip`; without them the script prints "SKIPPED: <reason>".
add_test(NAME plugin.net_namespaces
  COMMAND sh "${PROJECT_SOURCE_DIR}/tests/plugin/net_namespaces.sh" $<TARGET_FILE:net_harness>)
set_tests_properties(plugin.net_namespaces PROPERTIES
  LABELS "plugin"
  SKIP_REGULAR_EXPRESSION "SKIPPED:"
  PASS_REGULAR_EXPRESSION "net_harness pair: all scenarios passed"
  TIMEOUT 300)
