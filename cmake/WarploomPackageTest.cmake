# cmake -D BUILD_DIR=... -D CONSUMER_DIR=... -D WORK_DIR=... -D GENERATOR=... -D MAKE_PROGRAM=...
#       -D CXX_COMPILER=... -D CUDA_ROOT=... -D CONFIG=... -P WarploomPackageTest.cmake
# The ctest package_consumer (tests/CMakeLists.txt): installs the build in BUILD_DIR into
# WORK_DIR/prefix, checks what was installed, configures and builds the consumer project
# CONSUMER_DIR (tests/package/) against that prefix alone, and runs it and the installed CLI.

foreach(var IN ITEMS BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX_COMPILER CUDA_ROOT)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "WarploomPackageTest.cmake: -D ${var}=... is missing")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()
set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer")

# run(<what> <command...>): runs the command, echoing it and its output; fails the test with
# <what> when it fails.
function(run what)
  list(JOIN ARGN " " command_line)
  message(STATUS "${what}: ${command_line}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

string(TIMESTAMP start "%s")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" --config "${CONFIG}")

# Only our own headers: the package must never carry third-party code (CuTe, fmt, ...).
file(GLOB installed_include_entries RELATIVE "${prefix}/include" "${prefix}/include/*")
if(NOT installed_include_entries STREQUAL "warploom")
  message(FATAL_ERROR "include/ must hold warploom/ alone, holds: ${installed_include_entries}")
endif()
# Installed binaries must not lean on the build tree (their build RPATH names it).
file(GLOB installed_libs "${prefix}/lib*/libwarploom_gemm.so")
if(NOT installed_libs)
  message(FATAL_ERROR "no libwarploom_gemm.so under ${prefix}")
endif()
file(REAL_PATH "${BUILD_DIR}" real_build_dir)
foreach(binary IN LISTS installed_libs ITEMS "${prefix}/bin/warploom")
  file(READ_ELF "${binary}" RUNPATH runpath RPATH rpath)
  message(STATUS "${binary}: RUNPATH ${runpath} RPATH ${rpath}")
  foreach(dir IN ITEMS "${BUILD_DIR}" "${real_build_dir}")
    string(FIND "${runpath}:${rpath}" "${dir}" at)
    if(at GREATER_EQUAL 0)
      message(FATAL_ERROR "${binary} still searches the build tree ${dir} for libraries")
    endif()
  endforeach()
endforeach()

# The consumer sees the prefix and the CUDA toolkit, nothing of the build tree; the user package
# registry is off so that no other warploom on this machine can stand in for the installed one.
set(generator_args -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
run("configure the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${consumer_build}"
    ${generator_args}
    "-DCMAKE_BUILD_TYPE=${CONFIG}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DCUDAToolkit_ROOT=${CUDA_ROOT}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("build the consumer" "${CMAKE_COMMAND}" --build "${consumer_build}" --config "${CONFIG}")

file(GLOB_RECURSE consumer "${consumer_build}/consumer" "${consumer_build}/*/consumer")
list(GET consumer 0 consumer)
run("run the consumer" "${consumer}")
# The installed CLI starts and finds the installed libwarploom_gemm.so (no GPU needed to list).
run("run the installed CLI" "${prefix}/bin/warploom" list)

string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
message(STATUS "package test passed in ${seconds} s")
