# The exported symbols of librailyard_c.so are exactly the functions declared
# in its public headers:
#   cmake -DLIBRARY=<lib> -DHEADERS=<h1>,<h2> -DNM=<nm> -DREADELF=<readelf>
#         [-DALLOW_NEEDED_REGEX=<regex>] -P check_c_exports.cmake
# The expected list is read from the headers (every "railyard_<name>(" that
# follows an RAILYARD_C_API or RAILYARD_ADVISOR_API declaration), so a function
# added to a header but not exported, or exported but not declared, fails.
# Then cmake/check_plugin_library.cmake checks NEEDED, the exports and Abseil.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" HEADERS "${HEADERS}")
set(declared)
foreach(header IN LISTS HEADERS)
  file(READ "${header}" text)
  # Declarations: "RAILYARD_C_API <type> railyard_x(" / "RAILYARD_ADVISOR_API ...".
  string(REGEX MATCHALL "RAILYARD_(C|ADVISOR)_API[ \n]+[^;(]*[ *\n]railyard_[a-z0-9_]+\\(" decls "${text}")
  foreach(d IN LISTS decls)
    string(REGEX MATCH "railyard_[a-z0-9_]+\\($" name "${d}")
    string(REPLACE "(" "" name "${name}")
    list(APPEND declared "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES declared)
list(LENGTH declared n)
if(n LESS 10)
  message(FATAL_ERROR "only ${n} declarations found in ${HEADERS}: ${declared}")
endif()
message("declared: ${n} functions")
string(REPLACE ";" "," EXPORTS "${declared}")
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/check_plugin_library.cmake")
