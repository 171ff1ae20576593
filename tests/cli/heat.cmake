# Heat maps people can read: --svg-metric, and the rendering test. Included
# from tests/cli/CMakeLists.txt.
#
# heatmap_render (tests/render/heatmap_render.cpp) renders heat maps of
# h100-1024 and h100-16k-3tier with rsvg-convert (Debian librsvg2-bin) and
# checks the PNGs: size, the hot link drawn in the darkest colour, idle rows
# grey. Without rsvg-convert it exits 77 and CTest reports it skipped.
find_program(RAILYARD_RSVG_CONVERT rsvg-convert)
add_executable(heatmap_render ${PROJECT_SOURCE_DIR}/tests/render/heatmap_render.cpp)
target_link_libraries(heatmap_render PRIVATE railyard::railyard)
add_test(NAME heat.render
  COMMAND heatmap_render "${RAILYARD_RSVG_CONVERT}" "${CMAKE_CURRENT_BINARY_DIR}/heat_render")
set_tests_properties(heat.render PROPERTIES SKIP_RETURN_CODE 77 LABELS cli TIMEOUT 300)
