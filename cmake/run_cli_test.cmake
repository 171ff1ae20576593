# Runs one command-line test registered by railyard_add_cli_test().
#
#   cmake -DCLI_PROGRAM=<exe> -DCLI_PARAMS=<params.cmake> -DCLI_WORK_DIR=<dir>
#         -P run_cli_test.cmake
#
# The params file defines CLI_NAME, CLI_EXIT_CODE, CLI_ARGS_<i>,
# CLI_STDOUT_REGEX_<i>, CLI_STDERR_REGEX_<i> (with *_COUNT) and, optionally,
# CLI_GOLDEN. The program runs in CLI_WORK_DIR; its output is kept there in
# stdout.txt and stderr.txt.

cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS CLI_PROGRAM CLI_PARAMS CLI_WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_cli_test.cmake: -D${var}=... is required")
  endif()
endforeach()
include("${CLI_PARAMS}")

# Splits text into a list of lines. Characters that CMake lists treat
# specially (';', '[', ']') are swapped for control characters that
# _cli_decode() turns back.
string(ASCII 1 _cli_semicolon)
string(ASCII 2 _cli_open)
string(ASCII 3 _cli_close)
function(_cli_lines out_var text)
  string(REPLACE ";" "${_cli_semicolon}" text "${text}")
  string(REPLACE "[" "${_cli_open}" text "${text}")
  string(REPLACE "]" "${_cli_close}" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()
function(_cli_decode out_var text)
  string(REPLACE "${_cli_semicolon}" ";" text "${text}")
  string(REPLACE "${_cli_open}" "[" text "${text}")
  string(REPLACE "${_cli_close}" "]" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Shows a text indented, cut after its first 200 lines.
function(_cli_show title text)
  _cli_lines(lines "${text}")
  list(LENGTH lines n)
  if(n GREATER 200)
    list(SUBLIST lines 0 200 lines)
    list(APPEND lines "... (${n} lines in all)")
  endif()
  list(JOIN lines "\n  | " shown)
  _cli_decode(shown "${shown}")
  message("${title}:\n  | ${shown}")
endfunction()

file(REMOVE_RECURSE "${CLI_WORK_DIR}")
file(MAKE_DIRECTORY "${CLI_WORK_DIR}")
set(stdout_file "${CLI_WORK_DIR}/stdout.txt")
set(stderr_file "${CLI_WORK_DIR}/stderr.txt")

# Build the command from quoted variable references, so that each argument
# stays exactly one argument whatever it contains (';' included).
set(command_code "\"\${CLI_PROGRAM}\"")
set(shown_command "railyard")
math(EXPR last "${CLI_ARGS_COUNT} - 1")
if(CLI_ARGS_COUNT GREATER 0)
  foreach(i RANGE ${last})
    string(APPEND command_code " \"\${CLI_ARGS_${i}}\"")
    if(CLI_ARGS_${i} MATCHES "^[-+=:,./@%A-Za-z0-9_]+$")
      string(APPEND shown_command " ${CLI_ARGS_${i}}")
    else()
      string(REPLACE "'" "'\\''" quoted "${CLI_ARGS_${i}}")
      string(APPEND shown_command " '${quoted}'")
    endif()
  endforeach()
endif()

cmake_language(EVAL CODE "
  execute_process(
    COMMAND ${command_code}
    WORKING_DIRECTORY \"\${CLI_WORK_DIR}\"
    OUTPUT_FILE \"\${stdout_file}\"
    ERROR_FILE \"\${stderr_file}\"
    RESULT_VARIABLE result
    TIMEOUT 240)
")

file(READ "${stdout_file}" stdout)
file(READ "${stderr_file}" stderr)

set(failures "")

if(NOT result STREQUAL "${CLI_EXIT_CODE}")
  if(result MATCHES "^[0-9]+$")
    string(APPEND failures "  - exit status is ${result}, expected ${CLI_EXIT_CODE}\n")
  else()
    string(APPEND failures "  - the program did not exit normally (${result}), expected exit status ${CLI_EXIT_CODE}\n")
  endif()
endif()

foreach(stream IN ITEMS STDOUT STDERR)
  string(TOLOWER "${stream}" lower)
  if(CLI_${stream}_REGEX_COUNT GREATER 0)
    math(EXPR last "${CLI_${stream}_REGEX_COUNT} - 1")
    foreach(i RANGE ${last})
      if(NOT "${${lower}}" MATCHES "${CLI_${stream}_REGEX_${i}}")
        string(APPEND failures "  - ${lower} does not match regex: ${CLI_${stream}_REGEX_${i}}\n")
      endif()
    endforeach()
  endif()
endforeach()

if(DEFINED CLI_GOLDEN)
  set(golden_ok FALSE)
  if(EXISTS "${CLI_GOLDEN}")
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -E compare_files "${CLI_GOLDEN}" "${stdout_file}"
      RESULT_VARIABLE differs OUTPUT_QUIET ERROR_QUIET)
    if(differs EQUAL 0)
      set(golden_ok TRUE)
    endif()
  endif()

  if(NOT golden_ok AND "$ENV{RAILYARD_UPDATE_GOLDEN}" STREQUAL "1")
    get_filename_component(golden_dir "${CLI_GOLDEN}" DIRECTORY)
    file(MAKE_DIRECTORY "${golden_dir}")
    file(COPY_FILE "${stdout_file}" "${CLI_GOLDEN}")
    message("RAILYARD_UPDATE_GOLDEN=1: rewrote ${CLI_GOLDEN}")
    set(golden_ok TRUE)
  endif()

  if(NOT golden_ok)
    if(NOT EXISTS "${CLI_GOLDEN}")
      string(APPEND failures "  - golden file ${CLI_GOLDEN} does not exist\n")
    else()
      string(APPEND failures "  - stdout differs from golden file ${CLI_GOLDEN}\n")
      # Point at the first differing line, then show a unified diff if possible.
      file(READ "${CLI_GOLDEN}" expected)
      _cli_lines(expected_lines "${expected}")
      _cli_lines(actual_lines "${stdout}")
      list(LENGTH expected_lines n_expected)
      list(LENGTH actual_lines n_actual)
      set(line_no 0)
      while(TRUE)
        if(line_no GREATER_EQUAL n_expected OR line_no GREATER_EQUAL n_actual)
          break()
        endif()
        list(GET expected_lines ${line_no} e)
        list(GET actual_lines ${line_no} a)
        if(NOT e STREQUAL a)
          break()
        endif()
        math(EXPR line_no "${line_no} + 1")
      endwhile()
      math(EXPR shown_line "${line_no} + 1")
      set(e "<end of file>")
      set(a "<end of file>")
      if(line_no LESS n_expected)
        list(GET expected_lines ${line_no} e)
      endif()
      if(line_no LESS n_actual)
        list(GET actual_lines ${line_no} a)
      endif()
      _cli_decode(e "${e}")
      _cli_decode(a "${a}")
      if(e STREQUAL a)
        set(golden_detail "the files differ in bytes that this line comparison cannot show (line endings, trailing newline or ';')")
      else()
        set(golden_detail "first difference at line ${shown_line}:\n    expected: ${e}\n    actual:   ${a}")
      endif()
      find_program(DIFF_PROGRAM diff)
      if(DIFF_PROGRAM)
        execute_process(
          COMMAND "${DIFF_PROGRAM}" -u --label expected --label actual "${CLI_GOLDEN}" "${stdout_file}"
          OUTPUT_VARIABLE golden_diff ERROR_QUIET)
      endif()
    endif()
  endif()
endif()

if(NOT failures STREQUAL "")
  message("cli test ${CLI_NAME} FAILED")
  message("command: ${shown_command}")
  message("working directory: ${CLI_WORK_DIR}")
  message("${failures}")
  if(DEFINED golden_detail)
    message("${golden_detail}")
  endif()
  if(golden_diff)
    _cli_show("diff -u expected actual" "${golden_diff}")
  endif()
  if(DEFINED CLI_GOLDEN)
    message("to accept the new output: cp '${stdout_file}' '${CLI_GOLDEN}'"
            "  (or rerun ctest with RAILYARD_UPDATE_GOLDEN=1)")
  endif()
  _cli_show("stdout" "${stdout}")
  _cli_show("stderr" "${stderr}")
  message(FATAL_ERROR "cli test ${CLI_NAME} failed")
endif()

message("cli test ${CLI_NAME} passed: ${shown_command}")
