// src/gemm/workspace.hpp — device memory a GEMM call needs for itself (split-K's partial sums,
// repacked operands), taken and given back on the call's stream.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace warploom::gemm {

// `bytes` of device memory on the current device, allocated on `stream` from the library's pool
// and freed on it (stream-ordered: work enqueued on `stream` before the free may use it; a captured
// graph gets an allocation node and a free node). The pool keeps what a call freed reserved for
// the next: the device's default pool (release threshold 0) hands its memory back at every
// synchronisation, and mapping it again cost each eager split-K call about 60 us on the H200
// (2026-12-02: 1024x16x8192, 99 us a call against 17 us replayed in a graph). A pool of its own
// leaves the default pool's settings, which the user owns, alone.
class StreamWorkspace {
 public:
  StreamWorkspace(std::size_t bytes, cudaStream_t stream);
  ~StreamWorkspace();  // frees on the stream
  StreamWorkspace(StreamWorkspace const&) = delete;
  StreamWorkspace& operator=(StreamWorkspace const&) = delete;

  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace warploom::gemm
