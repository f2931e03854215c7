// kernels/tutorial/04_pdl_copy_chain.cu
//
// Tutorial 04, first part: two dependent copies, the second launched plainly or as a programmatic
// dependent of the first. The schedule and kernel are in pdl_copy_chain_schedule.cuh (read it
// first); this file holds the host launcher, which launches with the proof its schedule unit
// gives.
#include "pdl_copy_chain.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "grid_stride_launch.hpp"
#include "pdl_copy_chain_schedule.cuh"
#include "warploom/ts/launch.hpp"

namespace warploom::tutorial {

void pdl_copy_chain(std::int16_t const* a, std::int16_t* b, std::int16_t* c, std::int64_t n,
                    ts::StreamOrder order, int blocks, cudaStream_t stream) {
  using Cfg = PdlCopyChain;
  using Manager = Cfg::Manager;
  if (n < 0)
    throw std::invalid_argument("pdl_copy_chain: `n` = " + std::to_string(n) + " must be >= 0");
  if (blocks < 0) throw std::invalid_argument("pdl_copy_chain: `blocks` must be >= 0");
  if (n == 0) return;
  for (auto [name, p] :
       {std::pair{"a", static_cast<void const*>(a)}, std::pair{"b", static_cast<void const*>(b)},
        std::pair{"c", static_cast<void const*>(c)}}) {
    if (p == nullptr)
      throw std::invalid_argument(std::string("pdl_copy_chain: `") + name + "` must not be null");
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument(std::string("pdl_copy_chain: `") + name +
                                  "` must be 16-byte aligned (the copies move 16-byte items)");
  }
  // b is written by the first copy while a is read, and read by the second while c is written.
  auto const overlaps = [n](void const* x, void const* y) {
    auto const p = reinterpret_cast<std::uintptr_t>(x), q = reinterpret_cast<std::uintptr_t>(y);
    auto const bytes = static_cast<std::uintptr_t>(n) * sizeof(std::int16_t);
    return p < q + bytes && q < p + bytes;
  };
  if (overlaps(a, b) || overlaps(b, c))
    throw std::invalid_argument("pdl_copy_chain: `b` must share no byte with `a` or `c`");
  if (blocks == 0)
    blocks = blocks_filling_the_gpu(pdl_copy_chain_kernel<Cfg>, Manager::num_threads);
  check_grid_stride_extent("pdl_copy_chain", n, Cfg::Copy::kElems, blocks, Manager::num_threads);
  ts::launch<Manager>(ts::verified<Cfg>(), ts::StreamOrder::Serial, pdl_copy_chain_kernel<Cfg>,
                      dim3(blocks), stream, a, b, static_cast<int>(n));
  ts::launch<Manager>(ts::verified<Cfg>(), order, pdl_copy_chain_kernel<Cfg>, dim3(blocks), stream,
                      static_cast<std::int16_t const*>(b), c, static_cast<int>(n));
}

}  // namespace warploom::tutorial
