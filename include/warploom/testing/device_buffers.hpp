// warploom/testing/device_buffers.hpp
//
// What every kernel check needs: device memory that frees itself (or holds a copy of a host
// vector), random contents (never zeros:
// they hide unwritten outputs and run faster than real data), a poison value for outputs, and a
// bitwise comparison that reports the first differing byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime_api.h>

#include "warploom/cuda_check.hpp"

namespace warploom::testing {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Fills `bytes` bytes with pseudo-random bits from `seed` (splitmix64 per 8-byte word).
void fill_random(void* ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream = nullptr);

// `values` copied into a new device buffer (synchronously): the device arrays a library's
// grouped call reads (pointers, extents, strides).
template <class T>
DeviceBuffer upload(std::vector<T> const& values) {
  DeviceBuffer b(sizeof(T) * values.size());
  WL_CUDA_CHECK(cudaMemcpy(b.get(), values.data(), b.bytes(), cudaMemcpyHostToDevice));
  return b;
}

// Fills `count` elements with pseudo-random values uniform in [-1, 1), rounded to T (__half,
// __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, float or double): data for arithmetic kernels,
// where random bits would be NaNs.
template <class T>
void fill_uniform(T* ptr, std::size_t count, std::uint64_t seed, cudaStream_t stream = nullptr);

// Sets every byte to `value` (0xFF poisons fp16 outputs as NaN and int16 outputs as -1).
void poison(void* ptr, std::size_t bytes, unsigned char value = 0xFF,
            cudaStream_t stream = nullptr);

struct Comparison {
  std::size_t mismatched_bytes = 0;
  std::size_t first_mismatch = 0;  // byte offset, valid when mismatched_bytes > 0
  bool equal() const { return mismatched_bytes == 0; }
};

// Prints "<what>: PASS", or "<what>: FAIL (n bytes differ, first at byte k)"; returns the exit
// code a check program should end with (0 or 1).
int print_verdict(Comparison const& c, std::string const& what);

// Byte-wise comparison of two device buffers (synchronises `stream`).
Comparison compare_bytes(void const* a, void const* b, std::size_t bytes,
                         cudaStream_t stream = nullptr);

// compare_bytes of `ptr` against `bytes` bytes of poison(`value`): whether a kernel left the
// poisoned bytes past its output alone.
Comparison compare_with_poison(void const* ptr, std::size_t bytes, unsigned char value = 0xFF,
                               cudaStream_t stream = nullptr);

}  // namespace warploom::testing
