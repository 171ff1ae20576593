# Checks the include graph of include/railyard/ against the layer order of
# docs/architecture.md: a header may include its own layer and the layers below
# it, never one above.
#   cmake -DINCLUDE_DIR=<repo>/include -P check_layers.cmake
cmake_minimum_required(VERSION 3.25)
set(order core topology collective placement routing sim cc tune pipeline report export plugin c)
file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}/railyard"
  "${INCLUDE_DIR}/railyard/*.hpp" "${INCLUDE_DIR}/railyard/*.h")
set(violations)
set(checked 0)
foreach(header IN LISTS headers)
  string(REGEX MATCH "^[a-z_]+" layer "${header}")
  list(FIND order "${layer}" rank)
  if(rank EQUAL -1)
    continue()  # railyard.hpp, version.hpp: above and beside every layer
  endif()
  file(STRINGS "${INCLUDE_DIR}/railyard/${header}" includes REGEX "^#include \"railyard/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"railyard/([a-z_]+)/.*" "\\1" target "${line}")
    list(FIND order "${target}" target_rank)
    math(EXPR checked "${checked} + 1")
    if(target_rank GREATER rank)
      list(APPEND violations "${header} (${layer}) includes ${target}")
    endif()
  endforeach()
endforeach()
if(violations)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "lower layers include higher ones:\n  ${text}")
endif()
list(LENGTH headers n)
message("layers: ${n} headers, ${checked} includes, every one downward or within its layer")
