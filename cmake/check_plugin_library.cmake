# Checks a plugin shared library the way the process that loads it would see it:
#   cmake -DLIBRARY=<lib.so> -DREADELF=<readelf> -DNM=<nm> -DEXPORTS=a,b,...
#         [-DALLOW_NEEDED_REGEX=<regex>] -P check_plugin_library.cmake
# 1. NEEDED (readelf -d): only the C and C++ runtimes — libc, libstdc++, libm
#    (and the dynamic loader; libgcc is linked in statically) — plus whatever
#    ALLOW_NEEDED_REGEX admits (the sanitizer runtimes in a sanitizer build).
# 2. Defined dynamic symbols (nm -D --defined-only): exactly EXPORTS.
# 3. Undefined dynamic symbols (nm -D --undefined-only): none from Abseil.
# Prints "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION) when a tool is missing.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" EXPORTS "${EXPORTS}")
foreach(tool IN ITEMS READELF NM)
  if(NOT ${tool} OR NOT EXISTS "${${tool}}")
    message("SKIPPED: ${tool} not found; cannot inspect ${LIBRARY}")
    return()
  endif()
endforeach()

function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${status}): ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# 1. NEEDED entries.
run(dynamic "${READELF}" -d "${LIBRARY}")
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]]+)\\]" needed_lines "${dynamic}")
set(needed)
set(foreign)
foreach(line IN LISTS needed_lines)
  string(REGEX REPLACE ".*\\[([^]]+)\\].*" "\\1" lib "${line}")
  list(APPEND needed "${lib}")
  if(lib MATCHES "^(libc|libstdc\\+\\+|libm|ld-linux[-a-z0-9_.]*)\\.so(\\.[0-9]+)*$")
    continue()
  endif()
  if(ALLOW_NEEDED_REGEX AND lib MATCHES "${ALLOW_NEEDED_REGEX}")
    continue()
  endif()
  list(APPEND foreign "${lib}")
endforeach()
message("NEEDED: ${needed}")
if(foreign)
  message(FATAL_ERROR "${LIBRARY} needs libraries beyond the C/C++ runtimes: ${foreign}")
endif()

# 2. Exported symbols.
run(defined "${NM}" -D --defined-only "${LIBRARY}")
string(REPLACE "\n" ";" lines "${defined}")
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
  if(name IN_LIST EXPORTS)
    list(APPEND found "${name}")
  else()
    list(APPEND unexpected "${type} ${name}")
  endif()
endforeach()
list(SORT found)
set(expected ${EXPORTS})
list(SORT expected)
if(NOT found STREQUAL expected)
  message(FATAL_ERROR "expected exports ${expected}, found: ${found}")
endif()
if(unexpected)
  list(LENGTH unexpected n)
  message(FATAL_ERROR "${n} unexpected exported symbols: ${unexpected}")
endif()

# 3. Nothing of Abseil imported (its mangled names contain "4absl").
run(undefined "${NM}" -D --undefined-only "${LIBRARY}")
if(undefined MATCHES "absl")
  string(REGEX MATCHALL "[^\n]*absl[^\n]*" absl_lines "${undefined}")
  message(FATAL_ERROR "${LIBRARY} imports Abseil symbols: ${absl_lines}")
endif()
message("exports: exactly ${found}; no Abseil symbol imported")
