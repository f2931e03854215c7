# Included by the top-level CMakeLists.txt before project(): settings that must be in place
# before CMake looks at the CUDA compiler.

# Hopper kernels need the architecture-specific target sm_90a (wgmma, setmaxnreg), which
# CMake 3.25 cannot spell in CMAKE_CUDA_ARCHITECTURES. Architectures are therefore off and
# WarploomFlags.cmake passes -gencode itself, the same way on every CMake version.
set(CMAKE_CUDA_ARCHITECTURES OFF)

# Find nvcc in the default toolkit location when it is not on PATH.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(WARPLOOM_NVCC nvcc)
  if(NOT WARPLOOM_NVCC AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
endif()
