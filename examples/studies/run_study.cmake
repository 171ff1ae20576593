# Runs one study program for CTest:
#   cmake -DSTUDY=<program> [-DARGS=<arg>|<arg>...] -P run_study.cmake
#
# Prints the program's output, then a verdict line. The test passes only when
# the program exits with status 0 AND the last line of its standard output is
# "claim holds: ..."; the verdict line "study exit status 0; last line: claim
# holds: ..." appears only then, and that line is what the test's
# PASS_REGULAR_EXPRESSION matches (CTest ignores the exit status once a pass
# regex is set, so the status is checked here; a sanitizer report at exit, for
# example, changes it).
if(NOT STUDY)
  message(FATAL_ERROR "run_study.cmake: -DSTUDY=<program> is required")
endif()
string(REPLACE "|" ";" args "${ARGS}")
execute_process(
  COMMAND "${STUDY}" ${args}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
execute_process(COMMAND "${CMAKE_COMMAND}" -E echo_append "${out}")
if(err)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E echo_append "${err}")
endif()
string(REGEX MATCH "(^|\n)(claim holds: [^\n]*)\n?$" last "${out}")
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "study exit status ${status}")
endif()
if(NOT last)
  message(FATAL_ERROR "study exit status 0 but the last line is not 'claim holds: ...'")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E echo
  "study exit status 0; last line: ${CMAKE_MATCH_2}")
