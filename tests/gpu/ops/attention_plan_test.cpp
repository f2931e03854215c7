// tests/gpu/ops/attention_plan_test.cpp
//
// ops::Attention (warploom/ops/attention.hpp) on the GPU: a plan's run writes exactly what
// attention_forward writes with the same schedule, and a plan never compiled exactly what
// attention_forward's default (AttentionSchedule::Auto) writes (the kernel's correctness against
// float64 is attention_test's), on packed (B, S, H, D) views and on torch's (B, H, S, D) layout
// read in place, with GQA; and a refusal (host memory) leaves the context usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_bf16.h>

#include "warploom/cuda_check.hpp"
#include "warploom/ops/attention.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::ops {
namespace {

using warploom::testing::DeviceBuffer;

constexpr int kBatch = 2, kSeqQ = 300, kSeqK = 77, kHeads = 8, kKvHeads = 2, kDim = 128;

struct Buffers {
  DeviceBuffer q{2u * kBatch * kSeqQ * kHeads * kDim};
  DeviceBuffer k{2u * kBatch * kSeqK * kKvHeads * kDim};
  DeviceBuffer v{2u * kBatch * kSeqK * kKvHeads * kDim};
  DeviceBuffer o{2u * kBatch * kSeqQ * kHeads * kDim};
  DeviceBuffer lse{4u * kBatch * kHeads * kSeqQ};
  Buffers() {
    testing::fill_uniform(q.as<__nv_bfloat16>(), q.bytes() / 2, 1);
    testing::fill_uniform(k.as<__nv_bfloat16>(), k.bytes() / 2, 2);
    testing::fill_uniform(v.as<__nv_bfloat16>(), v.bytes() / 2, 3);
    testing::poison(o.get(), o.bytes());
    testing::poison(lse.get(), lse.bytes());
  }
};

std::vector<std::uint8_t> bytes_of(DeviceBuffer const& b) {
  std::vector<std::uint8_t> h(b.bytes());
  WL_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

// Q, K, V, O as packed (B, S, H, D) views of `b`, and the LSE (H, S_q, B).
auto packed_views(Buffers const& b) {
  return std::tuple{bshd(b.q.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
                    bshd(b.k.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
                    bshd(b.v.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
                    bshd(b.o.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
                    row_major(b.lse.get(), ScalarType::F32, kHeads, kSeqQ, kBatch)};
}

TEST(AttentionPlan, RunWritesWhatAttentionForwardWrites) {
  for (bool causal : {false, true}) {
    Attention p({.element = ScalarType::BF16, .head_dim = kDim, .causal = causal});
    for (AttentionTileDescription const& td : p.tile_descriptions()) {
      SCOPED_TRACE(to_string(td) + (causal ? ", causal" : ""));
      p.compile(td);
      Buffers planned, direct;  // the same inputs (the same seeds)
      auto [q, k, v, o, lse] = packed_views(planned);
      p.run(q, k, v, o, lse);
      auto [dq, dk, dv, dout, dlse] = packed_views(direct);
      attention::attention_forward(p.arguments(dq, dk, dv, dout, dlse), nullptr,
                                   {.schedule = td.schedule});
      WL_CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_EQ(bytes_of(planned.o), bytes_of(direct.o));
      EXPECT_EQ(bytes_of(planned.lse), bytes_of(direct.lse));
      std::vector<std::uint8_t> const o_bytes = bytes_of(planned.o);
      EXPECT_LT(2 * std::count(o_bytes.begin(), o_bytes.end(), std::uint8_t{0xFF}),
                static_cast<std::ptrdiff_t>(o_bytes.size()))
          << "O still holds most of its poison";
    }
  }
}

// A plan nobody compiled runs attention_forward's default schedule (AttentionSchedule::Auto):
// the same bytes. Its description is the default for keys of unknown length; these keys (77) are
// short, so without the mask Auto runs the ping-pong (default_schedule).
TEST(AttentionPlan, DefaultRunIsAttentionForwardsDefault) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "no mask");
    Attention const p({.element = ScalarType::BF16, .head_dim = kDim, .causal = causal});
    EXPECT_EQ(p.tile_description().schedule,
              attention::default_schedule(attention::ElementType::BF16, kDim, causal));
    Buffers planned, direct;
    auto [q, k, v, o, lse] = packed_views(planned);
    p.run(q, k, v, o, lse);
    auto [dq, dk, dv, dout, dlse] = packed_views(direct);
    attention::attention_forward(p.arguments(dq, dk, dv, dout, dlse));
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(bytes_of(planned.o), bytes_of(direct.o));
    EXPECT_EQ(bytes_of(planned.lse), bytes_of(direct.lse));
  }
}

// torch's SDPA tensors are (B, H, S, D): the same plan reads them in place (bhsd views), and the
// result is the packed run's, transposed.
TEST(AttentionPlan, ReadsTheBhsdLayoutInPlace) {
  Attention const p({.element = ScalarType::BF16, .head_dim = kDim});
  Buffers packed, transposed;
  auto const at = [](std::vector<std::uint16_t> const& x, int b, int s, int h, int d, bool bhsd,
                     int seq, int heads) {
    std::size_t const i = bhsd ? ((std::size_t(b) * heads + h) * seq + s) * kDim + d
                               : ((std::size_t(b) * seq + s) * heads + h) * kDim + d;
    return x[i];
  };
  // The transposed buffers hold the packed ones' values in (B, H, S, D) order.
  auto transpose = [&](DeviceBuffer const& from, DeviceBuffer const& to, int seq, int heads) {
    std::vector<std::uint16_t> src(from.bytes() / 2), dst(from.bytes() / 2);
    WL_CUDA_CHECK(cudaMemcpy(src.data(), from.get(), from.bytes(), cudaMemcpyDeviceToHost));
    for (int b = 0; b < kBatch; ++b)
      for (int s = 0; s < seq; ++s)
        for (int h = 0; h < heads; ++h)
          for (int d = 0; d < kDim; ++d)
            dst[((std::size_t(b) * heads + h) * seq + s) * kDim + d] =
                at(src, b, s, h, d, false, seq, heads);
    WL_CUDA_CHECK(cudaMemcpy(to.get(), dst.data(), to.bytes(), cudaMemcpyHostToDevice));
  };
  transpose(packed.q, transposed.q, kSeqQ, kHeads);
  transpose(packed.k, transposed.k, kSeqK, kKvHeads);
  transpose(packed.v, transposed.v, kSeqK, kKvHeads);
  p.run(bshd(packed.q.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
        bshd(packed.k.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
        bshd(packed.v.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
        bshd(packed.o.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
        row_major(packed.lse.get(), ScalarType::F32, kHeads, kSeqQ, kBatch));
  p.run(bhsd(transposed.q.get(), ScalarType::BF16, kBatch, kHeads, kSeqQ, kDim),
        bhsd(transposed.k.get(), ScalarType::BF16, kBatch, kKvHeads, kSeqK, kDim),
        bhsd(transposed.v.get(), ScalarType::BF16, kBatch, kKvHeads, kSeqK, kDim),
        bhsd(transposed.o.get(), ScalarType::BF16, kBatch, kHeads, kSeqQ, kDim),
        row_major(transposed.lse.get(), ScalarType::F32, kHeads, kSeqQ, kBatch));
  WL_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> o(packed.o.bytes() / 2), ot(o.size());
  WL_CUDA_CHECK(cudaMemcpy(o.data(), packed.o.get(), packed.o.bytes(), cudaMemcpyDeviceToHost));
  WL_CUDA_CHECK(
      cudaMemcpy(ot.data(), transposed.o.get(), transposed.o.bytes(), cudaMemcpyDeviceToHost));
  int mismatches = 0;
  for (int b = 0; b < kBatch; ++b)
    for (int s = 0; s < kSeqQ; ++s)
      for (int h = 0; h < kHeads; ++h)
        for (int d = 0; d < kDim; ++d)
          mismatches +=
              at(o, b, s, h, d, false, kSeqQ, kHeads) != at(ot, b, s, h, d, true, kSeqQ, kHeads);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(bytes_of(packed.lse), bytes_of(transposed.lse));  // LSE is (B, H, S) in both
}

TEST(AttentionPlan, HostMemoryIsRefusedAndTheContextStaysUsable) {
  Attention const p({.element = ScalarType::BF16, .head_dim = kDim});
  Buffers b;
  std::vector<std::uint16_t> host(std::size_t{kBatch} * kSeqK * kKvHeads * kDim);
  try {
    p.run(bshd(b.q.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
          bshd(host.data(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
          bshd(b.v.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
          bshd(b.o.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
          row_major(b.lse.get(), ScalarType::F32, kHeads, kSeqQ, kBatch));
    ADD_FAILURE() << "a K in host memory ran";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("k is host memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NO_THROW(p.run(bshd(b.q.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
                        bshd(b.k.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
                        bshd(b.v.get(), ScalarType::BF16, kBatch, kSeqK, kKvHeads, kDim),
                        bshd(b.o.get(), ScalarType::BF16, kBatch, kSeqQ, kHeads, kDim),
                        row_major(b.lse.get(), ScalarType::F32, kHeads, kSeqQ, kBatch)));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace warploom::ops
