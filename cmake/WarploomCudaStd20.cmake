# CMake 3.25 knows nvcc only up to C++17 (no cuda_std_20, no -std=c++20), newer versions
# know C++20 for nvcc >= 12: teach an older CMake what a newer one knows by itself.
#
# Included by WarploomFlags.cmake and, installed, by warploomConfig.cmake: warploom::warploom
# asks for cuda_std_20, so a project compiling CUDA against the installed headers needs the
# same lesson. A no-op where CUDA is not enabled (yet) or CMake already knows the feature.
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0
   AND NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
endif()
