// bench/probes/graph_overheads.cu — what a captured CUDA graph's replay costs besides its kernels,
// node by node: the question behind the grouped GEMM's "~8 us per replay beyond the kernel"
// (docs/kernels/sm90_grouped_gemm.md), which a launch of it spends on a setup kernel, a
// programmatic (PDL) launch of the grouped kernel and a stream-ordered workspace (an allocation
// node and a free node in a graph). Each graph below is one of those shapes around kernels that do
// nothing but wait `--spin` ns, replayed back to back: the time per replay minus the kernels' own
// is what the nodes and launches cost.
//
// Not built by CMake (a probe of the driver, not of warploom): on a GPU machine,
//   nvcc -std=c++20 -O2 -gencode arch=compute_90a,code=sm_90a bench/probes/graph_overheads.cu \
//     -o /tmp/graph_overheads && /tmp/graph_overheads > graph_overheads.json
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

// Waits about `ns` nanoseconds in one thread per block (the stand-in for a kernel's work), after
// waiting for its programmatic predecessor when `dependent`.
__global__ void spin(long long ns, int* sink, bool dependent) {
  if (dependent) asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0) {
    long long const start = clock64();
    // clock64 counts SM cycles: ns at ~1.98 GHz, close enough for a stand-in.
    while (clock64() - start < ns * 2) {
    }
    if (sink != nullptr) sink[blockIdx.x] = 1;
  }
  asm volatile("griddepcontrol.launch_dependents;");
}

struct Shape {
  char const* name;
  bool setup;      // a setup kernel (one block) before the main kernel
  bool pdl;        // the main kernel launched programmatically after the setup kernel
  int allocation;  // 0 none; 1 cudaMallocAsync (the device's default pool); 2 a pool of our own
  bool workspace;  // the kernels write a workspace the caller allocated once
};

cudaMemPool_t own_pool(int device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  unsigned long long keep = ~0ull;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return pool;
}

void enqueue(Shape const& s, cudaStream_t stream, long long ns, int blocks, cudaMemPool_t pool,
             int* fixed) {
  int* ws = s.workspace ? fixed : nullptr;
  if (s.allocation == 1) CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ws), 64 << 10, stream));
  if (s.allocation == 2)
    CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ws), 64 << 10, pool, stream));
  if (s.setup) spin<<<1, 128, 0, stream>>>(ns / 10, ws, false);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = blocks;
  cfg.blockDim = 384;
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = s.pdl ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&cfg, spin, ns, ws, s.pdl));
  if (s.allocation != 0) CHECK(cudaFreeAsync(ws, stream));
}

}  // namespace

int main(int argc, char** argv) {
  long long ns = 25000;  // the seed's grouped kernel: ~27 us
  int replays = 20, samples = 15;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const a = argv[i];
    if (a == "--spin") ns = std::atoll(argv[i + 1]);
    if (a == "--replays") replays = std::atoi(argv[i + 1]);
    if (a == "--samples") samples = std::atoi(argv[i + 1]);
  }
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  cudaMemPool_t pool = own_pool(device);
  int* fixed = nullptr;
  CHECK(cudaMalloc(&fixed, 64 << 10));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Shape const shapes[] = {
      {"kernel", false, false, 0, false},
      {"kernel + caller workspace", false, false, 0, true},
      {"kernel + allocation nodes (default pool)", false, false, 1, false},
      {"kernel + allocation nodes (own pool)", false, false, 2, false},
      {"setup + kernel", true, false, 0, true},
      {"setup + kernel (PDL)", true, true, 0, true},
      {"setup + kernel (PDL) + allocation nodes (default pool)", true, true, 1, false},
      {"setup + kernel (PDL) + allocation nodes (own pool)", true, true, 2, false},
  };
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("{\"device\": \"%s\", \"spin_ns\": %lld, \"replays\": %d, \"samples\": %d,\n",
              prop.name, ns, replays, samples);
  std::printf(" \"us_per_replay\": {\n");
  for (std::size_t i = 0; i < std::size(shapes); ++i) {
    Shape const& s = shapes[i];
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    enqueue(s, stream, ns, prop.multiProcessorCount, pool, fixed);
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int w = 0; w < 5; ++w) CHECK(cudaGraphLaunch(exec, stream));
    std::vector<float> us;
    for (int k = 0; k < samples; ++k) {
      CHECK(cudaEventRecord(start, stream));
      for (int r = 0; r < replays; ++r) CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      us.push_back(1000.0f * ms / replays);
    }
    std::sort(us.begin(), us.end());
    std::printf("  \"%s\": %.2f%s\n", s.name, us[us.size() / 2],
                i + 1 < std::size(shapes) ? "," : "");
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  }
  std::printf(" }}\n");
  return 0;
}
