# librailyard_c as a user gets it: `cmake --install` into a fresh prefix, then a
# C program compiled with the flags of the installed railyard_c.pc (pkg-config;
# without pkg-config, the prefix's include/ and lib/ directly) and run.
#   cmake -DBUILD_DIR=<build> -DWORK_DIR=<dir> -DCC=<c compiler> -DPKG_CONFIG=<path or empty>
#         -DSOURCE=<consumer.c> -DLIBDIR=<lib dir name> -P check_c_install.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}"
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${err}")
endif()
foreach(f IN ITEMS "include/railyard/c/railyard.h" "include/railyard/plugin/advisor.h"
                   "${LIBDIR}/librailyard_c.so" "${LIBDIR}/pkgconfig/railyard_c.pc")
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs railyard_c
    RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config railyard_c failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(how "pkg-config")
else()
  set(flags "-I${prefix}/include" "-L${prefix}/${LIBDIR}" -lrailyard_c)
  set(how "the prefix's directories (no pkg-config)")
endif()
execute_process(COMMAND "${CC}" -std=c11 -Wall -Wextra -Wpedantic -Werror "${SOURCE}" ${flags}
    "-Wl,-rpath,${prefix}/${LIBDIR}" -o "${WORK_DIR}/consumer"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling against the installed library failed: ${err}")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^128 hosts, C API [0-9]+")
  message(FATAL_ERROR "the consumer printed '${out}' (exit ${rc})")
endif()
message("installed C API: built with ${how} and ran: ${out}")
