// kernels/tutorial/pdl_copy_chain.hpp
//
// Host API of tutorial 04's first part (04_pdl_copy_chain.cu, pdl_copy_chain_schedule.cuh): two
// dependent copies, a -> b then b -> c, the second launched plainly or as a programmatic dependent
// of the first.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "warploom/ts/stream_order.hpp"

namespace warploom::tutorial {

// b = a, then c = b, on `stream`, each copy on `blocks` CTAs (0: as many as fit at once); the
// second copy launched with `order` (the first always plainly). Throws std::invalid_argument for
// n < 0, null or misaligned (16-byte) pointers, b overlapping a or c, or n too large for 32-bit
// indexing.
void pdl_copy_chain(std::int16_t const* a, std::int16_t* b, std::int16_t* c, std::int64_t n,
                    ts::StreamOrder order, int blocks = 0, cudaStream_t stream = nullptr);

}  // namespace warploom::tutorial
