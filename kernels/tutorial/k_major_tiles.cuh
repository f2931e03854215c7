// kernels/tutorial/k_major_tiles.cuh
//
// The CuTe pieces tutorial 06's and 07's GEMMs share: bf16 operands stored K-major (row-major A,
// B stored N x K: the "tn" GEMM), their tiles in shared memory in the 128-byte-swizzled layout
// wgmma reads K-major operands in, and the TMA load that writes that layout.
#pragma once

#include <cstdint>

// cute/tensor.hpp first: the atoms' headers rely on what it declares.
#include <cute/tensor.hpp>

#include <cutlass/numeric_types.h>  // cutlass::bfloat16_t, the element type of CuTe's GMMA atoms
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_atom.hpp>

#include "warploom/config.hpp"

namespace warploom::tutorial::k_major {

using Bf16 = cutlass::bfloat16_t;  // __nv_bfloat16's bits, as CuTe's GMMA atoms name the type

// A K-major operand (rows x cols, stride 1 along K) at `ptr`, as CuTe sees it.
template <class T>
WL_HOST_DEVICE auto tensor(T const* ptr, int rows, int cols) {
  return cute::make_tensor(
      ptr, cute::make_layout(cute::make_shape(rows, cols),
                             cute::make_stride(static_cast<std::int64_t>(cols), cute::_1{})));
}

// (ROWS, K, STAGES...): tiles of kRows rows of kTileK bf16, each row 128 bytes swizzled in 16-byte
// chunks (Swizzle<3,4,3> on bytes: chunk c of row r sits at c ^ (r % 8)), the layout wgmma reads
// K-major operands in and TMA writes with CU_TENSOR_MAP_SWIZZLE_128B. The pattern repeats every
// 8 rows (1024 bytes), so a tile must start 1024-byte aligned. Stages... : none for one tile, or
// the ring's stage count as a third mode.
template <int kRows, int kTileK, int... kStages>
using SwizzledLayout = decltype(cute::tile_to_shape(
    cute::GMMA::Layout_K_SW128_Atom<Bf16>{},
    cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}, cute::Int<kStages>{}...)));

// The TMA load of an operand's (kRows x kTileK) tiles into `tile` (one stage's layout), each CTA
// its own (no multicast). The multicast width is spelled out: with four arguments make_tma_copy
// takes the fourth for it, and a tile shape there gives a 1 x 1 box, which the driver refuses
// (CuTe only prints that; the kernel then faults).
template <int kRows, int kTileK, class TileLayout>
auto make_tma_load(Bf16 const* ptr, int rows, int k, TileLayout tile) {
  return cute::make_tma_copy(cute::SM90_TMA_LOAD{}, tensor(ptr, rows, k), tile,
                             cute::make_shape(cute::Int<kRows>{}, cute::Int<kTileK>{}),
                             /*multicast CTAs=*/cute::Int<1>{});
}

}  // namespace warploom::tutorial::k_major
