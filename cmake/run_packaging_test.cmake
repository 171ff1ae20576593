# Packaging test driver: builds and runs a small consumer project against
# railyard, the way a user would.
#
#   cmake -DMODE=find_package|add_subdirectory
#         -DRAILYARD_SOURCE_DIR=<src> -DRAILYARD_BINARY_DIR=<build>
#         -DWORK_DIR=<scratch> -DCXX_COMPILER=<c++> -DGENERATOR=<gen>
#         [-DBUILD_TYPE=<type>] [-DCONFIG=<config>]
#         -P run_packaging_test.cmake
#
# find_package:     `cmake --install <build> --prefix <scratch>/prefix`, then
#                   configure tests/packaging/find_package with
#                   CMAKE_PREFIX_PATH=<scratch>/prefix, build it and run it.
# add_subdirectory: configure tests/packaging/add_subdirectory with
#                   RAILYARD_SOURCE_DIR=<src>, build it and run it.

cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS MODE RAILYARD_SOURCE_DIR RAILYARD_BINARY_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_packaging_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT MODE MATCHES "^(find_package|add_subdirectory)$")
  message(FATAL_ERROR "run_packaging_test.cmake: unknown MODE '${MODE}'")
endif()
if(NOT DEFINED BUILD_TYPE OR BUILD_TYPE STREQUAL "")
  set(BUILD_TYPE Debug)  # fastest to compile; the consumer only has to link and run
endif()
if(NOT DEFINED CONFIG OR CONFIG STREQUAL "")
  set(CONFIG "${BUILD_TYPE}")
endif()

# Runs a command; on failure prints its output and stops.
function(_run_step description)
  message("== ${description}")
  execute_process(
    COMMAND ${ARGN}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output
    TIMEOUT 500)
  if(NOT result EQUAL 0)
    message("${output}")
    message(FATAL_ERROR "packaging test (${MODE}): step failed: ${description} (result: ${result})")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

set(consumer_source "${RAILYARD_SOURCE_DIR}/tests/packaging/${MODE}")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(configure_args
  -S "${consumer_source}"
  -B "${consumer_build}"
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)

if(MODE STREQUAL "find_package")
  set(prefix "${WORK_DIR}/prefix")
  _run_step("install railyard into ${prefix}"
    "${CMAKE_COMMAND}" --install "${RAILYARD_BINARY_DIR}" --prefix "${prefix}" --config "${CONFIG}")

  foreach(expected IN ITEMS
      include/railyard/railyard.hpp
      share/cmake/railyard/railyardConfig.cmake
      share/cmake/railyard/railyardConfigVersion.cmake
      share/cmake/railyard/railyardTargets.cmake)
    if(NOT EXISTS "${prefix}/${expected}")
      message(FATAL_ERROR "packaging test (find_package): install did not produce ${expected}")
    endif()
  endforeach()

  _run_step("configure the find_package consumer"
    "${CMAKE_COMMAND}" ${configure_args} "-DCMAKE_PREFIX_PATH=${prefix}")

  # The package must come from the install prefix, not from the build tree.
  file(STRINGS "${consumer_build}/CMakeCache.txt" railyard_dir REGEX "^railyard_DIR:")
  string(REGEX REPLACE "^railyard_DIR:[A-Z]+=" "" railyard_dir "${railyard_dir}")
  cmake_path(IS_PREFIX prefix "${railyard_dir}" NORMALIZE from_prefix)
  if(NOT from_prefix)
    message(FATAL_ERROR
      "packaging test (find_package): railyard was found in '${railyard_dir}', "
      "not in the install prefix '${prefix}'")
  endif()
else()
  _run_step("configure the add_subdirectory consumer"
    "${CMAKE_COMMAND}" ${configure_args} "-DRAILYARD_SOURCE_DIR=${RAILYARD_SOURCE_DIR}")
endif()

_run_step("build the ${MODE} consumer"
  "${CMAKE_COMMAND}" --build "${consumer_build}" --config "${CONFIG}")

find_program(consumer_exe consumer
  PATHS "${consumer_build}" "${consumer_build}/${CONFIG}"
  NO_DEFAULT_PATH NO_CACHE)
if(NOT consumer_exe)
  message(FATAL_ERROR "packaging test (${MODE}): consumer executable not found in ${consumer_build}")
endif()
_run_step("run the ${MODE} consumer" "${consumer_exe}")
message("${step_output}")
message("packaging test (${MODE}) passed")
