// src/gemm/current_device.hpp — what Auto's choices read of the current device (gemm.cpp's design,
// split_k.cpp's tile width and slices, stream-K's grid), with the values of the devices the sm90
// kernels are measured on where there is no device (a plan made for sm_90a on a machine without a
// GPU). Neither function throws or leaves a CUDA error behind.
#pragma once

namespace warploom::gemm {

// The SM count of the H100 and H200 SXM.
inline constexpr int kMeasuredSmCount = 132;

// The H200's DRAM bandwidth (HBM3e, 3201 MHz on a 6144-bit bus: 4.9 TB/s): the device Auto's
// designs were first measured on.
inline constexpr double kMeasuredDramBytesPerS = 4.9e12;

// The current device's SM count (as the kernels' launchers ask it), or kMeasuredSmCount.
int current_sm_count();

// The current device's peak DRAM bandwidth in bytes per second (twice the memory clock times the
// bus width: the H100 SXM's 3.35e12, the H200's 4.9e12), or kMeasuredDramBytesPerS.
double current_dram_bytes_per_s();

}  // namespace warploom::gemm
