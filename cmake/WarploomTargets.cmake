# The targets the rest of the project builds on.
#
#   warploom::warploom     INTERFACE: our include/, CUTLASS/CuTe, CCCL and the header-only
#                          host libraries (CLI11, nlohmann/json, fmt with FMT_HEADER_ONLY), the
#                          CUDA runtime and C++20 for host and device code.
#   warploom::cuda_driver  libcuda (CUDA::cuda_driver), defined only when the toolkit has it;
#                          WARPLOOM_HAVE_CUDA_DRIVER tells. See warploom_add_kernel.
#   warploom_add_kernel(NAME <name> SOURCES <files...> [LIBS <libs...>])
#                          a CUDA executable in ${CMAKE_BINARY_DIR}/bin.

# The plain name `warploom` stays free for the CLI executable.
add_library(warploom_interface INTERFACE)
add_library(warploom::warploom ALIAS warploom_interface)
# Build-tree paths only: the installed package has its own include/ and finds the third-party
# headers on the consumer's machine (WarploomInstall.cmake, warploomConfig.cmake.in).
target_include_directories(warploom_interface INTERFACE
  "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>")
target_include_directories(warploom_interface SYSTEM INTERFACE
  "$<BUILD_INTERFACE:${WARPLOOM_SYSTEM_INCLUDE_DIRS}>")
# fmt is used by our own sources only (no header under include/ includes it): installed
# consumers neither need it nor should have its configuration imposed on them.
target_compile_definitions(warploom_interface INTERFACE "$<BUILD_INTERFACE:FMT_HEADER_ONLY=1>")
# TaskManagers are verified (and small schedules model-checked) in constant expressions while a
# kernel compiles; nvcc's front end stops constant evaluation far earlier than GCC by default.
target_compile_options(warploom_interface INTERFACE
  "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcudafe --max_cost_constexpr_call=2000000000>"
  "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcudafe --max_depth_constexpr_call=10000>")
# Host code may run the same check (ts::verified_at_compile_time in a static_assert): GCC stops
# constant evaluation after 2^25 operations and Clang after 2^20 steps, and the sm90 GEMM's
# cooperative schedule takes more (GCC 12: "evaluation operation count exceeds limit"; with the
# limit raised, 5 s; ping-pong 70 s). tests/cpu/ts/gemm_schedule_gate_test.cpp holds it to this.
target_compile_options(warploom_interface INTERFACE
  "$<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fconstexpr-ops-limit=4294967296>"
  "$<$<COMPILE_LANG_AND_ID:CXX,Clang>:-fconstexpr-steps=2147483647>")
target_compile_features(warploom_interface INTERFACE cxx_std_20 cuda_std_20)
target_link_libraries(warploom_interface INTERFACE CUDA::cudart)

# Where only the toolkit's stub libcuda.so exists (build machines without a GPU), programs
# linked with it link fine but cannot start: the loader wants the driver's libcuda.so.1.
# Code that must also run there reaches driver entry points through
# cudaGetDriverEntryPoint (the runtime) instead.
if(TARGET CUDA::cuda_driver)
  set(WARPLOOM_HAVE_CUDA_DRIVER ON)
  add_library(warploom::cuda_driver ALIAS CUDA::cuda_driver)
else()
  set(WARPLOOM_HAVE_CUDA_DRIVER OFF)
  message(STATUS "warploom: libcuda not found; warploom::cuda_driver is not defined")
endif()

# _warploom_parse_target_args(<function> ${ARGN}): parses the NAME/SOURCES/LIBS arguments
# of the warploom_add_* functions into arg_NAME, arg_SOURCES and arg_LIBS.
macro(_warploom_parse_target_args function)
  cmake_parse_arguments(arg "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT arg_NAME OR NOT arg_SOURCES OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "usage: ${function}(NAME <name> SOURCES <files...> [LIBS <libs...>]); "
      "got: ${ARGN}")
  endif()
endmacro()

function(warploom_add_kernel)
  _warploom_parse_target_args(warploom_add_kernel ${ARGN})
  add_executable(${arg_NAME} ${arg_SOURCES})
  target_link_libraries(${arg_NAME} PRIVATE warploom::warploom ${arg_LIBS})
  if(WARPLOOM_HAVE_CUDA_DRIVER)
    # --as-needed: a kernel that makes no direct driver call keeps no libcuda.so.1
    # dependency, so it still starts (e.g. for --help) on a machine without a driver.
    target_link_options(${arg_NAME} PRIVATE "LINKER:--as-needed")
    target_link_libraries(${arg_NAME} PRIVATE warploom::cuda_driver)
  endif()
  set_target_properties(${arg_NAME} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
endfunction()
