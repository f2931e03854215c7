// GoogleTest main for the GPU tests (warploom_add_gpu_test). Without a CUDA device, or on a
// device other than compute capability 9.0 (our kernels are built for sm_90a only), it
// prints why and exits with 77, which ctest reports as "skipped" rather than failed.

#include <cstdio>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace {

constexpr int kSkipped = 77;  // SKIP_RETURN_CODE of every GPU test
constexpr int kRequiredMajor = 9;
constexpr int kRequiredMinor = 0;

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();  // listing needs no device

  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    std::printf("no CUDA device: GPU tests skipped (%s)\n",
                error != cudaSuccess ? cudaGetErrorString(error) : "0 devices");
    return kSkipped;
  }

  int device = 0;
  int major = 0;
  int minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    std::printf("no usable CUDA device: GPU tests skipped (cannot query device %d)\n", device);
    return kSkipped;
  }
  if (major != kRequiredMajor || minor != kRequiredMinor) {
    std::printf(
        "CUDA device %d has compute capability %d.%d, but these tests need %d.%d (sm_90a): "
        "GPU tests skipped\n",
        device, major, minor, kRequiredMajor, kRequiredMinor);
    return kSkipped;
  }
  return RUN_ALL_TESTS();
}
