# The Python package (python/CMakeLists.txt): warploom._core, nanobind bindings of the plan API.
#
# WARPLOOM_PYTHON: ON, OFF or AUTO (the default). AUTO builds it when Python (3.10 or newer, with
# its development headers) and nanobind are found, and says why not otherwise; ON makes that an
# error. nanobind comes from the dependency folder (tools/bootstrap.sh installs a pinned one into
# .deps/python/site), or, under `pip install .` (scikit-build-core), from the build environment.
# The interpreter is the first python3 on PATH unless Python_EXECUTABLE names one: the tests run
# on it, so it should be the one with torch where there is one.
#
# Sets WARPLOOM_BUILD_PYTHON.

set(WARPLOOM_PYTHON AUTO CACHE STRING
    "Build the Python package warploom (ON, OFF, AUTO: when Python and nanobind are found)")
set_property(CACHE WARPLOOM_PYTHON PROPERTY STRINGS AUTO ON OFF)

set(WARPLOOM_BUILD_PYTHON OFF)
function(_warploom_python_missing why)
  if(WARPLOOM_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "WARPLOOM_PYTHON=ON: ${why}")
  endif()
  message(STATUS "warploom: not building the Python package: ${why}")
endfunction()

if(NOT WARPLOOM_PYTHON STREQUAL "OFF")
  if(NOT DEFINED Python_EXECUTABLE)
    find_program(_warploom_python3 python3)
    if(_warploom_python3)
      set(Python_EXECUTABLE "${_warploom_python3}")
    endif()
  endif()
  find_package(Python 3.10 COMPONENTS Interpreter Development.Module)
  set(_warploom_nanobind_dir "")
  set(_warploom_deps_nanobind "${WARPLOOM_DEPS_DIR}/python/site/nanobind/cmake")
  if(NOT SKBUILD AND EXISTS "${_warploom_deps_nanobind}/nanobind-config.cmake")
    set(_warploom_nanobind_dir "${_warploom_deps_nanobind}")
  elseif(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                    OUTPUT_VARIABLE _warploom_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _warploom_nanobind_rc ERROR_QUIET)
    if(NOT _warploom_nanobind_rc EQUAL 0)
      set(_warploom_nanobind_dir "")
    endif()
  endif()
  if(NOT Python_FOUND)
    _warploom_python_missing("no Python 3.10+ interpreter with its development headers (Python.h)")
  elseif(_warploom_nanobind_dir STREQUAL "")
    _warploom_python_missing("nanobind not found (run tools/bootstrap.sh)")
  else()
    set(nanobind_DIR "${_warploom_nanobind_dir}")
    find_package(nanobind CONFIG REQUIRED)
    set(WARPLOOM_BUILD_PYTHON ON)
    message(STATUS "warploom: Python package for ${Python_EXECUTABLE} (${Python_VERSION}), "
                   "nanobind from ${_warploom_nanobind_dir}")
  endif()
endif()
