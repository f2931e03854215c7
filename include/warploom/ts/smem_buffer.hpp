// warploom/ts/smem_buffer.hpp
//
// A resource's shared-memory payload. The resource holds a ts::SmemBuffer member and lists it in
// `using smem_buffers = ts::buffers<&Resource::member, ...>`; the SmemAllocator lays all buffers of
// a TaskManager out at compile time and binds each member to its address during
// setup_resources_and_tasks(). Size and alignment are part of the type, so no offset is ever
// summed by hand.
#pragma once

#include <cstddef>

#include "warploom/config.hpp"

namespace warploom::ts {

template <class T, int kCount, int kAlignment = 128>
struct SmemBuffer {
  static_assert(kCount > 0, "SmemBuffer: element count must be positive");
  static_assert(kAlignment > 0 && (kAlignment & (kAlignment - 1)) == 0,
                "R-C3: SmemBuffer alignment must be a power of two");
  using value_type = T;
  static constexpr int count = kCount;
  static constexpr int alignment = kAlignment;
  static constexpr std::size_t bytes = sizeof(T) * kCount;

  T* data = nullptr;  // bound by the TaskManager; null until setup_resources_and_tasks()

  WL_HOST_DEVICE T& operator[](int i) const { return data[i]; }
  WL_HOST_DEVICE T* get() const { return data; }
};

// The shared-memory buffers a resource owns, as pointers to its SmemBuffer members.
template <auto... kMembers>
struct buffers {};

}  // namespace warploom::ts
