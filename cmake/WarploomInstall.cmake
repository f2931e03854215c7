# Installation and the CMake package. `cmake --install build/release --prefix <dir>` installs
#
#   include/warploom/**         the public headers
#   lib/libwarploom_gemm.so     warploom::gemm, the GEMM library behind warploom/gemm.hpp
#   lib/libwarploom_host.a      warploom::host: verifier, schedule printing, benchmark harness
#   lib/libwarploom_attention.a warploom::attention, the attention API of warploom/attention.hpp,
#   lib/libwarploom_schedules.a and the verified schedules' proofs its instances launch with
#   bin/warploom                the command line
#   lib/cmake/warploom/         warploomConfig.cmake, warploomConfigVersion.cmake and
#                               warploomTargets.cmake (warploom::warploom, ::gemm, ::host,
#                               ::attention, ::schedules)
#
# so that another project writes find_package(warploom 0.1 REQUIRED) and links the targets (README,
# "Using warploom from another CMake project"; tests/package/ is such a project). Included after
# every target exists. Installing only copies: nothing is rebuilt for it.
#
# No third-party code is installed. TS kernels (warploom::warploom) include CuTe/CUTLASS and CCCL,
# the harness headers (warploom::host) nlohmann/json: the installed config looks for them on the
# consumer's machine (warploomConfig.cmake.in), by default where this build found them.
# warploom::gemm needs none of them.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(WARPLOOM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/warploom")

# In-tree names carry a prefix (the plain `warploom` is the CLI); installed ones read as the
# in-tree aliases do.
set_target_properties(warploom_interface PROPERTIES EXPORT_NAME warploom)
set_target_properties(warploom_gemm PROPERTIES EXPORT_NAME gemm)
set_target_properties(warploom_host PROPERTIES EXPORT_NAME host)
set_target_properties(warploom_attention PROPERTIES EXPORT_NAME attention)
set_target_properties(warploom_schedules PROPERTIES EXPORT_NAME schedules)

# Installed, the third-party headers come from targets that warploomConfig.cmake defines from what
# it finds on the consumer's machine (the build tree's .deps/ paths are BUILD_INTERFACE only).
target_link_libraries(warploom_interface INTERFACE
                      "$<INSTALL_INTERFACE:warploom::third_party_headers>")
target_link_libraries(warploom_host INTERFACE "$<INSTALL_INTERFACE:warploom::json_headers>")
# The TS headers call constexpr host functions from device code, which nvcc allows only with
# --expt-relaxed-constexpr. In-tree every CUDA compilation has it (WARPLOOM_CUDA_FLAGS,
# WarploomFlags.cmake); a consumer compiling TS kernels against the installed headers gets it here.
target_compile_options(warploom_interface INTERFACE
                       "$<INSTALL_INTERFACE:$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>>")

# Installed programs find the installed libwarploom_gemm.so next to them, not the build tree's, and
# the CUDA toolkit's libraries where this build linked them (USE_LINK_PATH adds the directories of
# libraries linked from outside the build tree: cudart, cuBLAS), as the build tree's programs do
# (CMAKE_BUILD_RPATH in WarploomDeps.cmake).
file(RELATIVE_PATH _warploom_bin_to_lib
     "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
set_target_properties(warploom warploom-bench warploom-precompile PROPERTIES
  INSTALL_RPATH "$ORIGIN/${_warploom_bin_to_lib}"
  INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(warploom_gemm PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# warploom_schedules is linked into libwarploom_gemm.so (PRIVATE), but the static attention library
# needs it at its consumer's link (the Python package built against this prefix links both:
# cmake/WarploomPythonPrebuilt.cmake), so it is installed and exported with it.
install(TARGETS warploom_interface warploom_gemm warploom_host warploom_attention warploom_schedules
  EXPORT warploomTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS warploom warploom-bench warploom-precompile RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# All of include/warploom: the GEMM API, and everything a TS kernel author includes.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/warploom"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

install(EXPORT warploomTargets
  NAMESPACE warploom::
  FILE warploomTargets.cmake
  DESTINATION "${WARPLOOM_INSTALL_CMAKEDIR}")

# Where this build found the third-party headers, the installed config's defaults. Real paths: the
# package outlives the build tree, whose .deps/ may be a link into another checkout.
foreach(dir IN LISTS WARPLOOM_CUTLASS_INCLUDE_DIRS)
  if(EXISTS "${dir}/cute/tensor.hpp")
    file(REAL_PATH "${dir}" WARPLOOM_BUILT_CUTLASS_INCLUDE_DIR)
  endif()
endforeach()
file(REAL_PATH "${WARPLOOM_SYSROOT_INCLUDE_DIR}" WARPLOOM_BUILT_JSON_INCLUDE_DIR)

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/warploomConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/warploomConfig.cmake"
  INSTALL_DESTINATION "${WARPLOOM_INSTALL_CMAKEDIR}")
# find_package(warploom 0.1) takes any 0.y from 0.1 on, and no 1.x.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/warploomConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/warploomConfig.cmake"
  "${PROJECT_BINARY_DIR}/warploomConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/WarploomCudaStd20.cmake"
  DESTINATION "${WARPLOOM_INSTALL_CMAKEDIR}")
