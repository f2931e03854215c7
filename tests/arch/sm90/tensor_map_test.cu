// tests/arch/sm90/tensor_map_test.cu: the argument checks of warploom/arch/sm90/tensor_map.hpp,
// which run on the host before the driver is asked to encode anything (no GPU needed), and the
// element type -> CUtensorMapDataType mapping. Host code; a .cu like the other arch tests.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "warploom/arch/sm90/tensor_map.hpp"
#include "warploom/testing/invalid_argument.hpp"

namespace warploom::sm90 {
namespace {

using testing::invalid_argument_message;

static_assert(tensor_map_dtype<__half>() == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
static_assert(tensor_map_dtype<std::uint8_t>() == CU_TENSOR_MAP_DATA_TYPE_UINT8);
// Other 2-byte types (bf16) travel as raw 16-bit words: TMA copies bits, it does not convert.
static_assert(tensor_map_dtype<__nv_bfloat16>() == CU_TENSOR_MAP_DATA_TYPE_UINT16);
static_assert(tensor_map_dtype<float>() == CU_TENSOR_MAP_DATA_TYPE_UINT32);
static_assert(tensor_map_dtype<double>() == CU_TENSOR_MAP_DATA_TYPE_UINT64);

// A well-aligned address that is never dereferenced: the checks only look at its value.
void const* const kBase = reinterpret_cast<void const*>(std::uintptr_t{1} << 20);

// The message of the rule a call breaks; "" when it breaks none of the host-side rules (the driver
// may still refuse the call: not this test's business).
template <class F>
std::string broken_rule(F&& call) {
  std::string message = invalid_argument_message([&] {
    try {
      call();
    } catch (std::runtime_error const&) {  // CudaError too: the driver's verdict, or no driver
    }
  });
  return message == "(no exception of that type)" ? "" : message;
}

TEST(TensorMap2d, NullBase) {
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(nullptr, 64, 64, 64, 64); }),
            "make_tensor_map_2d: `base` is null");
}

TEST(TensorMap2d, MisalignedBase) {
  auto const* base = static_cast<char const*>(kBase) + 8;
  EXPECT_EQ(broken_rule([&] { make_tensor_map_2d<__half>(base, 64, 64, 64, 64); }),
            "make_tensor_map_2d: `base` must be 16-byte aligned (TMA)");
}

TEST(TensorMap2d, Dimensions) {
  auto map = [](std::int64_t rows, std::int64_t cols) {
    return broken_rule([&] { make_tensor_map_2d<std::uint8_t>(kBase, rows, cols, 64, 64); });
  };
  std::string const rule = "make_tensor_map_2d: dimensions must be in [1, 2^32]";
  EXPECT_EQ(map(0, 64), rule);
  EXPECT_EQ(map(64, -16), rule);
  EXPECT_EQ(map((std::int64_t{1} << 32) + 1, 64), rule);
}

// The row pitch of a 2-D map is cols * sizeof(T): 7 fp16 columns are 14 bytes.
TEST(TensorMap2d, RowPitch) {
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(kBase, 64, 7, 1, 8); }),
            "make_tensor_map_2d: row and batch pitches must be positive multiples of 16 bytes "
            "below 2^40 (TMA)");
}

TEST(TensorMap2d, Box) {
  std::string const rule = "make_tensor_map_2d: box dimensions must be in [1, 256] (TMA box)";
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(kBase, 1024, 1024, 0, 64); }), rule);
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(kBase, 1024, 1024, 64, 257); }), rule);
}

TEST(TensorMap3d, Pitches) {
  std::string const rule =
      "make_tensor_map_3d: row and batch pitches must be positive multiples of 16 bytes below "
      "2^40 (TMA)";
  auto map = [](std::array<std::int64_t, 2> pitches) {
    return broken_rule([&] {
      make_tensor_map_3d<__half>(kBase, {64, 64, 4}, pitches, 64, 64, CU_TENSOR_MAP_SWIZZLE_NONE);
    });
  };
  EXPECT_EQ(map({0, 8192}), rule);
  EXPECT_EQ(map({128, 8200}), rule);
  EXPECT_EQ(map({128, std::int64_t{1} << 40}), rule);
}

// A 128-byte swizzle permutes 16-byte chunks within 128-byte rows: a box row may not exceed one.
TEST(TensorMap3d, Swizzle128BoxRow) {
  auto map = [](int box_x) {
    return broken_rule([&] {
      make_tensor_map_3d<__half>(kBase, {1024, 1024, 1}, {2048, 2048 * 1024}, box_x, 64,
                                 CU_TENSOR_MAP_SWIZZLE_128B);
    });
  };
  EXPECT_EQ(map(72), "make_tensor_map_3d: a 128B-swizzled box row must be at most 128 bytes");
}

// The largest values the rules allow pass them. Calls that pass reach the driver (or, without one,
// a CudaError from the entry-point lookup: no longer CUTLASS 4.2's wrapper, which read its query
// status uninitialised there, undefined behaviour that UBSan stopped).
TEST(TensorMap, AcceptsTheLimits) {
  std::int64_t const max_extent = std::int64_t{1} << 32;
  std::int64_t const max_pitch = (std::int64_t{1} << 40) - 16;
  EXPECT_EQ(broken_rule([&] { make_tensor_map_2d<std::uint8_t>(kBase, max_extent, 64, 64, 64); }),
            "");
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(kBase, 64, 8, 1, 8); }), "");
  EXPECT_EQ(broken_rule([] { make_tensor_map_2d<__half>(kBase, 1024, 1024, 256, 64); }), "");
  EXPECT_EQ(broken_rule([&] {
              make_tensor_map_3d<__half>(kBase, {64, 64, 4}, {128, max_pitch}, 64, 64,
                                         CU_TENSOR_MAP_SWIZZLE_NONE);
            }),
            "");
  EXPECT_EQ(broken_rule([] {
              make_tensor_map_3d<__half>(kBase, {1024, 1024, 1}, {2048, 2048 * 1024}, 64, 64,
                                         CU_TENSOR_MAP_SWIZZLE_128B);
            }),
            "");
}

}  // namespace
}  // namespace warploom::sm90
