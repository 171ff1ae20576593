# Checks that a tuner plugin library exports exactly NCCL's four tuner structs:
#   cmake -DLIBRARY=<libnccl-tuner-railyard.so> -DNM=<nm> -P check_exports.cmake
# Prints "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION) when nm is missing.
cmake_minimum_required(VERSION 3.25)
if(NOT NM OR NOT EXISTS "${NM}")
  message("SKIPPED: nm not found; cannot list the dynamic symbols of ${LIBRARY}")
  return()
endif()
execute_process(
  COMMAND "${NM}" -D --defined-only "${LIBRARY}"
  RESULT_VARIABLE status
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed (${status}): ${err}")
endif()
message("${out}")
set(expected ncclTunerPlugin_v3 ncclTunerPlugin_v4 ncclTunerPlugin_v5 ncclTunerPlugin_v6)
string(REPLACE "\n" ";" lines "${out}")
set(found)
set(unexpected)
foreach(line IN LISTS lines)
  # "<address> <type> <name>[@@version]"
  if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) ([^ @]+)")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  if(type STREQUAL "A")  # version-node absolute symbols some linkers emit
    continue()
  endif()
  if(name IN_LIST expected)
    list(APPEND found "${name}")
  else()
    list(APPEND unexpected "${type} ${name}")
  endif()
endforeach()
list(SORT found)
if(NOT found STREQUAL "ncclTunerPlugin_v3;ncclTunerPlugin_v4;ncclTunerPlugin_v5;ncclTunerPlugin_v6")
  message(FATAL_ERROR "expected the four tuner structs, found: ${found}")
endif()
if(unexpected)
  list(LENGTH unexpected n)
  message(FATAL_ERROR "${n} unexpected exported symbols: ${unexpected}")
endif()
message("exports: exactly ${found}")
