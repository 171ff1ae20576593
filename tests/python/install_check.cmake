# python.install: `cmake --install` the python component into a fresh prefix
# and import the package from there with the build tree out of the path.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --component python --prefix "${PREFIX}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component python failed (${rc})")
endif()
if(IS_ABSOLUTE "${PYTHON_DIR}")
  set(dir "${PYTHON_DIR}")
else()
  set(dir "${PREFIX}/${PYTHON_DIR}")
endif()
foreach(f IN ITEMS __init__.py launch.py py.typed _railyard.pyi)
  if(NOT EXISTS "${dir}/railyard/${f}")
    message(FATAL_ERROR "not installed: ${dir}/railyard/${f}")
  endif()
endforeach()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${dir}" --
    "${PYTHON}" -c "import railyard, sys; c = railyard.Cluster('h100-1024'); assert c.hosts == 128; assert railyard.__file__.startswith(sys.argv[1]), railyard.__file__; print('imported railyard', railyard.__version__, 'from', railyard.__file__)" "${dir}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import from ${dir} failed (${rc})")
endif()
