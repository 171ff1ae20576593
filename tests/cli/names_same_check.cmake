# Two railyard runs print the same stdout, both with exit status 0: a host
# given by node name against the same host given by id (tests/cli/names.cmake
# runs it). A regex cannot say "the same output as that other command"; this
# script can, so a name that resolved to the wrong host fails here.
#
#   cmake -DRAILYARD=<railyard> -DA=<args> -DB=<args> -P names_same_check.cmake
#
# A and B are the two argument lists with '|' between arguments (a ';' would
# split the -D value before it got here).

if(NOT RAILYARD OR NOT A OR NOT B)
  message(FATAL_ERROR "names_same_check: -DRAILYARD=<program>, -DA=<args> and -DB=<args> are required")
endif()

function(run out_var args)
  string(REPLACE "|" ";" argv "${args}")
  execute_process(COMMAND "${RAILYARD}" ${argv}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "railyard ${argv}: exit ${rc}: ${err}")
  endif()
  if(out STREQUAL "")
    message(FATAL_ERROR "railyard ${argv}: printed nothing")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

run(out_a "${A}")
run(out_b "${B}")
if(NOT out_a STREQUAL out_b)
  message(FATAL_ERROR "outputs differ:\n--- railyard ${A}\n${out_a}\n--- railyard ${B}\n${out_b}")
endif()
