// kernels/tutorial/03_persistent_copy.cu
//
// Tutorial 03, first part: a persistent tile copy over a static or a dynamic work queue, skipping
// masked tiles. The schedule and kernel are in persistent_copy_schedule.cuh (read it first); this
// file holds the host launcher, which checks the arguments and launches with the proof the
// schedule units give.
#include "persistent_copy.hpp"

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "grid_stride_launch.hpp"  // blocks_filling_the_gpu
#include "persistent_copy_schedule.cuh"
#include "warploom/cuda_check.hpp"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {
namespace {

template <class Cfg>
void launch(int4 const* src, int4* dst, std::int64_t n, std::uint8_t const* skip, int blocks,
            int* counter, cudaStream_t stream) {
  using Manager = typename Cfg::Manager;
  int const num_items = static_cast<int>(n / kPersistentItemElems);
  int const num_tiles = static_cast<int>((n + kPersistentTileElems - 1) / kPersistentTileElems);
  if (blocks == 0)
    blocks = blocks_filling_the_gpu(persistent_copy_kernel<Cfg>, Manager::num_threads);
  // The dynamic queue's tiles are counted from zero by each launch: the reset is a stream
  // operation of its own, so a captured graph replays it before every kernel.
  if (counter != nullptr) WL_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int), stream));
  ts::launch<Manager>(ts::verified<Cfg>(), ts::StreamOrder::Serial, persistent_copy_kernel<Cfg>,
                      dim3(blocks), stream, src, dst, num_items, num_tiles, skip, counter);
}

}  // namespace

void check_persistent_copy_args(std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                                std::uint8_t const* skip, TileQueueKind queue, int blocks,
                                int* counter) {
  (void)skip;  // any pointer (or none) to num_tiles bytes
  auto const fail = [](std::string const& what) {
    throw std::invalid_argument("persistent_copy: " + what);
  };
  if (n < 0) fail("`n` = " + std::to_string(n) + " must be >= 0");
  if (n % kPersistentItemElems != 0)
    fail("`n` = " + std::to_string(n) + " must be a multiple of " +
         std::to_string(kPersistentItemElems) + " (the copy moves 16-byte items)");
  // Item indices of a tile are computed in int: the last tile's last item must fit.
  if (n > static_cast<std::int64_t>(INT_MAX) - kPersistentTileElems)
    fail("`n` = " + std::to_string(n) + " is too large for 32-bit tile indexing");
  if (blocks < 0) fail("`blocks` = " + std::to_string(blocks) + " must be >= 0");
  if (n == 0) return;
  for (auto [name, p] : {std::pair{"src", static_cast<void const*>(src)},
                         std::pair{"dst", static_cast<void const*>(dst)}}) {
    if (p == nullptr) fail(std::string("`") + name + "` must not be null");
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      fail(std::string("`") + name + "` must be 16-byte aligned (the copy moves 16-byte items)");
  }
  auto const bytes = static_cast<std::uintptr_t>(n) * sizeof(std::int16_t);
  auto const s = reinterpret_cast<std::uintptr_t>(src), d = reinterpret_cast<std::uintptr_t>(dst);
  if (s < d + bytes && d < s + bytes) fail("`dst` must share no byte with `src`");
  if (queue == TileQueueKind::Dynamic && counter == nullptr)
    fail("`counter` must not be null for the dynamic queue (4 bytes of device memory)");
}

void persistent_copy(std::int16_t const* src, std::int16_t* dst, std::int64_t n,
                     std::uint8_t const* skip, TileQueueKind queue, int blocks, int* counter,
                     cudaStream_t stream) {
  check_persistent_copy_args(src, dst, n, skip, queue, blocks, counter);
  if (n == 0) return;
  auto const* in = reinterpret_cast<int4 const*>(src);
  auto* out = reinterpret_cast<int4*>(dst);
  if (queue == TileQueueKind::Static) {
    launch<StaticPersistentCopy>(in, out, n, skip, blocks, nullptr, stream);
  } else {
    launch<DynamicPersistentCopy>(in, out, n, skip, blocks, counter, stream);
  }
}

}  // namespace warploom::tutorial
