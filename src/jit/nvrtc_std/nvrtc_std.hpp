// src/jit/nvrtc_std/nvrtc_std.hpp — see README.md here: names of CCCL's cuda::std made visible
// as std:: for the headers NVRTC compiles.
#pragma once

#ifndef __CUDACC_RTC__
#error "src/jit/nvrtc_std is for NVRTC only: host and nvcc compiles use the real standard library"
#endif

namespace cuda::std {}
// Qualified lookup of std::X looks in namespaces named by using-directives only when std itself
// declares no X, so what NVRTC declares in std on its own (initializer_list, move, forward) wins.
namespace std {
using namespace ::cuda::std;
}
