// src/testing/device_buffers.cu
//
// Random fill and comparison kernels. Written here rather than with cuRAND: a copy kernel's check
// needs arbitrary bit patterns in any dtype and a byte-exact compare, a few lines each, without
// one more library on the GPU machine.
#include "warploom/testing/device_buffers.hpp"

#include <cstdio>
#include <utility>

#include "warploom/cuda_check.hpp"

namespace warploom::testing {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) WL_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

namespace {

__device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_random_kernel(unsigned char* p, std::size_t bytes, std::uint64_t seed) {
  std::size_t const words = bytes / 8;
  std::size_t const stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += stride)
    reinterpret_cast<std::uint64_t*>(p)[i] = splitmix64(seed * 0x100000001B3ull + i);
  std::size_t const tail =
      words * 8 + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (tail < bytes) p[tail] = static_cast<unsigned char>(splitmix64(seed + tail));
}

template <class T>
__global__ void fill_uniform_kernel(T* p, std::size_t count, std::uint64_t seed) {
  std::size_t const stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    // The top 24 bits as a fraction in [0, 1), mapped to [-1, 1).
    double const u = static_cast<double>(splitmix64(seed * 0x100000001B3ull + i) >> 40) * 0x1p-24;
    p[i] = static_cast<T>(static_cast<float>(2.0 * u - 1.0));
  }
}

__global__ void compare_kernel(unsigned char const* a, unsigned char const* b, std::size_t bytes,
                               unsigned long long* mismatches, unsigned long long* first) {
  std::size_t const stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < bytes;
       i += stride) {
    if (a[i] != b[i]) {
      ++local;
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
  if (local) atomicAdd(mismatches, local);
}

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

}  // namespace

void fill_random(void* ptr, std::size_t bytes, std::uint64_t seed, cudaStream_t stream) {
  if (bytes == 0) return;
  fill_random_kernel<<<kBlocks, kThreads, 0, stream>>>(static_cast<unsigned char*>(ptr), bytes,
                                                       seed);
  WL_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void fill_uniform(T* ptr, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<<<kBlocks, kThreads, 0, stream>>>(ptr, count, seed);
  WL_CUDA_CHECK(cudaGetLastError());
}
template void fill_uniform(__half*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_uniform(__nv_bfloat16*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_uniform(__nv_fp8_e4m3*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_uniform(__nv_fp8_e5m2*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_uniform(float*, std::size_t, std::uint64_t, cudaStream_t);
template void fill_uniform(double*, std::size_t, std::uint64_t, cudaStream_t);

void poison(void* ptr, std::size_t bytes, unsigned char value, cudaStream_t stream) {
  WL_CUDA_CHECK(cudaMemsetAsync(ptr, value, bytes, stream));
}

int print_verdict(Comparison const& c, std::string const& what) {
  if (c.equal()) {
    std::printf("%s: PASS\n", what.c_str());
    return 0;
  }
  std::printf("%s: FAIL (%zu bytes differ, first at byte %zu)\n", what.c_str(), c.mismatched_bytes,
              c.first_mismatch);
  return 1;
}

Comparison compare_bytes(void const* a, void const* b, std::size_t bytes, cudaStream_t stream) {
  DeviceBuffer counters(2 * sizeof(unsigned long long));
  unsigned long long init[2] = {0, ~0ull};
  WL_CUDA_CHECK(
      cudaMemcpyAsync(counters.get(), init, sizeof(init), cudaMemcpyHostToDevice, stream));
  if (bytes > 0) {
    compare_kernel<<<kBlocks, kThreads, 0, stream>>>(
        static_cast<unsigned char const*>(a), static_cast<unsigned char const*>(b), bytes,
        counters.as<unsigned long long>(), counters.as<unsigned long long>() + 1);
    WL_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long out[2];
  WL_CUDA_CHECK(cudaMemcpyAsync(out, counters.get(), sizeof(out), cudaMemcpyDeviceToHost, stream));
  WL_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {static_cast<std::size_t>(out[0]), static_cast<std::size_t>(out[0] ? out[1] : 0)};
}

Comparison compare_with_poison(void const* ptr, std::size_t bytes, unsigned char value,
                               cudaStream_t stream) {
  DeviceBuffer poisoned(bytes);
  poison(poisoned.get(), bytes, value, stream);
  return compare_bytes(ptr, poisoned.get(), bytes, stream);
}

}  // namespace warploom::testing
