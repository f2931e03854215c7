// tests/cpu/gemm/host_launcher.cpp — the launcher of an sm90 GEMM instance (launch.cuh), compiled
// by the host compiler alone, as a JIT would compile it beside a kernel NVRTC compiles: no nvcc,
// no <<<>>>, the kernel taken by handle (ts::KernelHandle). nvrtc_kernel_test.cu compares the
// layout of Params here with nvcc's and compiles the NVRTC kernel against it.
#include "host_launcher.hpp"

#include "gemm/sm90/launch.cuh"

#if defined(__CUDACC__)
#error "host_launcher.cpp is for the host compiler alone"
#endif

namespace warploom::gemm::sm90 {

using HostLauncherInstance = Instance<Pingpong, PingpongShape<6, 1, 1, false>, cute::bfloat16_t,
                                      cute::bfloat16_t, true, true, 1, 1>;
using HostLauncherKernel = ts::KernelHandle<HostLauncherInstance::Params>;

// Instantiated here: what a JIT launcher library would hold.
template void launch_ts_gemm<HostLauncherInstance, HostLauncherKernel>(
    GemmArguments const&, GemmTuning const&, SplitKFold const&, cudaStream_t, HostLauncherKernel);

void host_compiler_launch(GemmArguments const& args, cudaStream_t stream, cudaKernel_t kernel) {
  launch_ts_gemm<HostLauncherInstance>(args, GemmTuning{}, SplitKFold{}, stream,
                                       HostLauncherKernel{kernel});
}

std::vector<std::size_t> host_compiler_params_layout() {
  auto const layout = params_layout<HostLauncherInstance::Params>();
  return {layout.begin(), layout.end()};
}

}  // namespace warploom::gemm::sm90
