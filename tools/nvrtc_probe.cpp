// tools/nvrtc_probe.cpp — compiles one CUDA source with NVRTC to a cubin, as the GEMM JIT's NVRTC
// path would (docs/design/nvrtc_jit.md), and reports the wall time of each step. It needs no GPU:
// NVRTC compiles for the -arch named, not for a device.
//
//   nvrtc_probe [--name EXPR]... [--out FILE.cubin] [--runs N] [--pch-heap MIB] SOURCE.cu
//               [NVRTC OPTIONS...]
//
// --name asks NVRTC for the lowered (mangled) name of a __global__ function template instance, as
// a loader needs it for cuModuleGetFunction / cuLibraryGetKernel. --runs N compiles N times in
// one process; with the NVRTC options -pch --pch-dir=DIR, a later run may reuse the headers'
// precompiled state, which needs a PCH heap larger than NVRTC's default (--pch-heap). Built by
// hand, no target:
//
//   g++ -std=c++20 -O2 -I/usr/local/cuda/include tools/nvrtc_probe.cpp -L/usr/local/cuda/lib64
//   -lnvrtc -Wl,-rpath,/usr/local/cuda/lib64 -o build/nvrtc_probe  (one line)
#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

void check(nvrtcResult r, char const* what) {
  if (r == NVRTC_SUCCESS) return;
  std::fprintf(stderr, "nvrtc_probe: %s: %s\n", what, nvrtcGetErrorString(r));
  std::exit(2);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  std::string out;
  int runs = 1;
  std::size_t pch_heap_mib = 0;
  int i = 1;
  for (; i < argc; ++i) {
    std::string const a = argv[i];
    if (a == "--name" && i + 1 < argc) {
      names.emplace_back(argv[++i]);
    } else if (a == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--pch-heap" && i + 1 < argc) {
      pch_heap_mib = static_cast<std::size_t>(std::atol(argv[++i]));
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr,
                 "usage: nvrtc_probe [--name EXPR]... [--out FILE.cubin] [--runs N] "
                 "[--pch-heap MIB] SOURCE.cu [NVRTC OPTIONS...]\n");
    return 1;
  }
  std::string const path = argv[i++];
  std::vector<char const*> options(argv + i, argv + argc);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "nvrtc_probe: cannot read %s\n", path.c_str());
    return 1;
  }
  std::string const source{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};

  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  std::printf("NVRTC %d.%d, %zu options\n", major, minor, options.size());
  if (pch_heap_mib > 0) check(nvrtcSetPCHHeapSize(pch_heap_mib << 20), "nvrtcSetPCHHeapSize");

  int status = 0;
  for (int run = 0; run < runs; ++run) {
    auto const t0 = std::chrono::steady_clock::now();
    nvrtcProgram prog = nullptr;
    check(nvrtcCreateProgram(&prog, source.c_str(), path.c_str(), 0, nullptr, nullptr),
          "nvrtcCreateProgram");
    for (auto const& n : names) check(nvrtcAddNameExpression(prog, n.c_str()), "nvrtcAddName");
    nvrtcResult const compiled =
        nvrtcCompileProgram(prog, static_cast<int>(options.size()), options.data());
    double const compile_s = seconds_since(t0);
    std::size_t log_size = 0;
    check(nvrtcGetProgramLogSize(prog, &log_size), "nvrtcGetProgramLogSize");
    std::string log(log_size, '\0');
    check(nvrtcGetProgramLog(prog, log.data()), "nvrtcGetProgramLog");
    if (run == 0 && log_size > 1) std::fprintf(stderr, "%s\n", log.c_str());
    std::printf("run %d: %s in %.2f s\n", run, nvrtcGetErrorString(compiled), compile_s);
    if (compiled != NVRTC_SUCCESS) {
      status = 3;
    } else if (run == 0) {
      for (auto const& n : names) {
        char const* lowered = nullptr;
        check(nvrtcGetLoweredName(prog, n.c_str(), &lowered), "nvrtcGetLoweredName");
        std::printf("%s -> %s\n", n.c_str(), lowered);
      }
      std::size_t size = 0;
      check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
      std::string cubin(size, '\0');
      check(nvrtcGetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN");
      std::printf("cubin: %zu bytes\n", size);
      if (!out.empty()) std::ofstream(out, std::ios::binary).write(cubin.data(), size);
    }
    nvrtcDestroyProgram(&prog);
    if (status != 0) break;
  }
  return status;
}
