// kernels/attention/sm90/instance.hpp
//
// The prebuilt attention instances as the host side sees them, without CuTe: each instance's
// translation unit (instance.cu.in) defines one launch_forward<type, head dim, mask, schedule>, and
// the build's generated table (attention_instance_table.cpp) lists the ones it compiled.
#pragma once

#include <span>

#include <cuda_runtime_api.h>

#include "warploom/attention.hpp"

namespace warploom::attention::sm90 {

template <ElementType kType, int kHeadDim, bool kCausal, bool kOverlap, bool kPingpong>
void launch_forward(AttentionArgs const& args, cudaStream_t stream);

struct InstanceEntry {
  ElementType type;
  int head_dim;
  bool causal;
  bool overlap;   // the schedule with the two GEMMs of a block overlapped
  bool pingpong;  // ... and the warpgroups taking turns at the tensor cores (overlap too)
  void (*launch)(AttentionArgs const&, cudaStream_t);
};

// Every prebuilt instance (generated: kernels/attention/CMakeLists.txt).
std::span<InstanceEntry const> prebuilt_instances();

}  // namespace warploom::attention::sm90
