# Heat maps people can read: --svg-metric, and the rendering test. Included
# from tests/cli/CMakeLists.txt.

# --svg-metric peak: the busiest step's load, said in the title and legend; on
# h100-16k-3tier (1,280 switches) the map is a per-pod summary that opens with
# the busy tiers.
railyard_add_cli_test(
  NAME heat.simulate_peak_16k
  ARGS simulate --cluster h100-16k-3tier --collective allreduce --bytes 64MiB --job tp=8,dp=512
       --group dp --svg peak16k.svg --svg-metric peak
  STDOUT_REGEX "^collective  allreduce, ring" "\nhottest "
  STDERR_REGEX "^$")
railyard_add_cli_test(
  NAME heat.simulate_average_small
  ARGS simulate --collective allreduce --bytes 256MiB --job tp=8,dp=16 --hosts 0-7,32-39 --group dp
       --routing ecmp --seed 3 --svg average.svg
  STDOUT_REGEX "^collective  allreduce, ring" "\nhottest "
  STDERR_REGEX "^$")
set_tests_properties(cli.heat.simulate_peak_16k cli.heat.simulate_average_small
  PROPERTIES FIXTURES_SETUP heat_svgs)

# What the files say: the metric in the title and the legend, the scale's top,
# the hottest list, and for 16k the summary rows with the idle tiers last.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/check_heat_svgs.cmake" [=[
# cmake -DDIR=<cli dir> -P check_heat_svgs.cmake
function(expect file text)
  string(FIND "${${file}}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${file}: no '${text}'")
  endif()
endfunction()
file(READ "${DIR}/heat.simulate_peak_16k/peak16k.svg" peak)
expect(peak "8 x 512 ranks, 64 MiB: ")
expect(peak " us, peak link utilization (busiest step)</title>")
expect(peak "values: peak: per link, its busiest step&#39;s bytes / (capacity x that step&#39;s transfer time)")
expect(peak "Summary of 1280 switches (more than 256): one row per pod or group of switches")
expect(peak "scale: darkest #800026 = ")
expect(peak "hottest 10 switch ports (egress), busiest first:")
expect(peak "<use id=\"hot1\"")
expect(peak "<g class=\"row\" id=\"row-leaf-0\"")
if(NOT peak MATCHES "height=\"([0-9]+)\"")
  message(FATAL_ERROR "peak16k.svg: no height")
endif()
if(CMAKE_MATCH_1 GREATER 2000)
  message(FATAL_ERROR "peak16k.svg: ${CMAKE_MATCH_1} px tall, more than 2000")
endif()
file(READ "${DIR}/heat.simulate_average_small/average.svg" average)
expect(average ", link utilization averaged over the run</title>")
expect(average "values: average over the run: per link, bytes / (capacity x ")
expect(average "Egress utilization of every switch port: one row per switch")
expect(average "<g class=\"row\" id=\"row-leaf-31\"")
expect(average "hottest 10 switch ports (egress), busiest first:")
expect(average " (leaf_spine): ")
]=])
add_test(NAME cli.heat.svg_contents
  COMMAND "${CMAKE_COMMAND}" "-DDIR=${CMAKE_CURRENT_BINARY_DIR}/cli"
          -P "${CMAKE_CURRENT_BINARY_DIR}/cli/check_heat_svgs.cmake")
set_tests_properties(cli.heat.svg_contents PROPERTIES FIXTURES_REQUIRED heat_svgs LABELS cli)

railyard_cli_error_test(
  NAME heat.error_svg_metric_value
  ARGS simulate --collective allreduce --bytes 1MiB --job tp=8 --svg x.svg --svg-metric max
  STDERR_REGEX "--svg-metric=max: must be average or peak")
railyard_cli_error_test(
  NAME heat.error_svg_metric_without_svg
  ARGS simulate --collective allreduce --bytes 1MiB --job tp=8 --svg-metric peak
  STDERR_REGEX "simulate: --svg-metric applies only with --svg")
railyard_cli_error_test(
  NAME heat.error_svg_metric_traffic
  ARGS simulate --generate permutation --bytes 1MiB --svg-metric peak
  STDERR_REGEX "--svg-metric does not apply with --traffic or --generate")

# heatmap_render (tests/render/heatmap_render.cpp) renders heat maps of
# h100-1024 and h100-16k-3tier with one deliberately hot link, and the two maps
# above, with rsvg-convert (Debian librsvg2-bin) and checks the PNGs: size, the
# hot link drawn in the darkest colour, idle rows grey. Without rsvg-convert it
# exits 77 and CTest reports it skipped.
find_program(RAILYARD_RSVG_CONVERT rsvg-convert)
add_executable(heatmap_render ${PROJECT_SOURCE_DIR}/tests/render/heatmap_render.cpp)
target_link_libraries(heatmap_render PRIVATE railyard::railyard)
add_test(NAME heat.render
  COMMAND heatmap_render "${RAILYARD_RSVG_CONVERT}" "${CMAKE_CURRENT_BINARY_DIR}/heat_render"
          "${CMAKE_CURRENT_BINARY_DIR}/cli/heat.simulate_peak_16k/peak16k.svg"
          "${CMAKE_CURRENT_BINARY_DIR}/cli/heat.simulate_average_small/average.svg")
set_tests_properties(heat.render PROPERTIES
  SKIP_RETURN_CODE 77 FIXTURES_REQUIRED heat_svgs LABELS cli TIMEOUT 300)

# plan --out: both maps say what they show and share one colour scale, whose
# top is the busier of the two maps' hottest ports (each map's "1. ..." line).
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/check_heat_plan.cmake" [=[
# cmake -DOUT=<plan --out dir> -P check_heat_plan.cmake
set(top "")
set(hottest "0.0")
foreach(side IN ITEMS naive railyard)
  file(READ "${OUT}/heatmap/${side}.svg" svg)
  string(FIND "${svg}" "values: peak over the simulated collectives: per link, the highest of each collective&#39;s average" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${side}.svg: the legend does not say what the values are")
  endif()
  if(NOT svg MATCHES "scale: darkest #800026 = ([0-9.]+)% \\(the busiest switch port of naive.svg and railyard.svg: one scale for both\\)")
    message(FATAL_ERROR "${side}.svg: no shared scale line")
  endif()
  if(top STREQUAL "")
    set(top "${CMAKE_MATCH_1}")
  elseif(NOT top STREQUAL CMAKE_MATCH_1)
    message(FATAL_ERROR "${side}.svg: scale top ${CMAKE_MATCH_1}% but the other map's is ${top}%")
  endif()
  if(NOT svg MATCHES ">1\\. [^<]*: ([0-9.]+)%<")
    message(FATAL_ERROR "${side}.svg: no hottest list")
  endif()
  if(CMAKE_MATCH_1 VERSION_GREATER hottest)
    set(hottest "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT top STREQUAL hottest)
  message(FATAL_ERROR "the shared scale tops at ${top}%, the busier map's hottest port is ${hottest}%")
endif()
message(STATUS "plan maps: one scale topping at ${top}%")
]=])
add_test(NAME cli.heat.plan_maps
  COMMAND "${CMAKE_COMMAND}" "-DOUT=${CMAKE_CURRENT_BINARY_DIR}/cli/plan_out/out"
          -P "${CMAKE_CURRENT_BINARY_DIR}/cli/check_heat_plan.cmake")
set_tests_properties(cli.heat.plan_maps PROPERTIES FIXTURES_REQUIRED plan_out LABELS cli)
