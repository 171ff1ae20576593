# railyard_add_plugin_library_test(NAME <test> TARGET <shared library target>
#                                  EXPORTS <symbol>...)
#
# A CTest test that checks a plugin's shared object as a dynamic loader sees it
# (cmake/check_plugin_library.cmake): NEEDED lists only the C and C++ runtimes
# (plus the sanitizer runtimes in a sanitized build), exactly EXPORTS are
# exported, and no Abseil symbol is imported. Skipped, with the reason, when
# nm or readelf is missing.
function(railyard_add_plugin_library_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;TARGET" "EXPORTS")
  find_program(RAILYARD_NM NAMES nm)
  find_program(RAILYARD_READELF NAMES readelf)
  set(allow_needed "")
  if(RAILYARD_SANITIZE)
    set(allow_needed "^lib(asan|ubsan)\\.so")
  endif()
  string(REPLACE ";" "," exports "${ARG_EXPORTS}")
  add_test(NAME ${ARG_NAME}
    COMMAND "${CMAKE_COMMAND}"
      "-DLIBRARY=$<TARGET_FILE:${ARG_TARGET}>"
      "-DNM=${RAILYARD_NM}"
      "-DREADELF=${RAILYARD_READELF}"
      "-DEXPORTS=${exports}"
      "-DALLOW_NEEDED_REGEX=${allow_needed}"
      -P "${PROJECT_SOURCE_DIR}/cmake/check_plugin_library.cmake")
  set_tests_properties(${ARG_NAME} PROPERTIES
    LABELS "unit;plugin"
    SKIP_REGULAR_EXPRESSION "SKIPPED:"
    TIMEOUT 60)
endfunction()
