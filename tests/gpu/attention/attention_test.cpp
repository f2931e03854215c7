// tests/gpu/attention/attention_test.cpp
//
// attention_forward against a float64 host reference: every prebuilt type and head dimension,
// causal and not, multi-head, GQA and MQA, sequence lengths that are no multiple of the tiles
// (1, 77, 1000), S_q != S_k both ways, batches, padded strides, and variable lengths. Inputs are
// uniform in [-1, 1) rounded to the element type; O and LSE start poisoned (NaN), and the padding
// of a strided O must stay so.
//
// Tolerances follow the arithmetic. With u the unit roundoff of the element type (bf16 2^-8, fp16
// 2^-10, taking the rounding interval's width), P is rounded to the element type before
// O += P . V while the row sum is kept in fp32: O's error is at most u * max|V| <= u, plus the
// output's own rounding, u * |O| <= u. Everything else is fp32 (products of 16-bit inputs are exact
// in it, sums of at most 2^31 terms of magnitude <= 1 lose ~1e-4 at the very worst). Allowed:
// 2u + 2u (a factor of 2 over the bound), i.e. 2^-6 for bf16 and 2^-8 for fp16. LSE is fp32
// throughout: 1e-3 absolute (LSE ~ log S_k <= 10 here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "warploom/attention.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::attention {
namespace {

using warploom::testing::DeviceBuffer;

// The three schedules, each run where this build prebuilt it (AttentionSchedule::Auto, which
// picks one of them, is run by ops_attention_plan_test).
constexpr AttentionSchedule kSchedules[] = {AttentionSchedule::Serial, AttentionSchedule::Overlap,
                                            AttentionSchedule::Pingpong};

std::string schedule_name(AttentionSchedule s) {
  return std::string(to_string(s)) + " schedule";
}

struct Case {
  ElementType type = ElementType::BF16;
  int head_dim = 128;
  bool causal = false;
  int batch = 1;
  int seqlen_q = 128;
  int seqlen_k = 128;
  int heads = 1;
  int kv_heads = 0;  // 0: heads
  float scale = 0.0f;
  int pad = 0;  // extra elements per row of every tensor (a multiple of 8 keeps TMA's alignment)
};

std::string describe(Case const& c) {
  return std::string(to_string(c.type)) + " D=" + std::to_string(c.head_dim) +
         (c.causal ? " causal" : "") + " B=" + std::to_string(c.batch) +
         " Sq=" + std::to_string(c.seqlen_q) + " Sk=" + std::to_string(c.seqlen_k) +
         " H=" + std::to_string(c.heads) + " Hkv=" + std::to_string(c.kv_heads) +
         " scale=" + std::to_string(c.scale) + " pad=" + std::to_string(c.pad);
}

double to_double(std::uint16_t bits, ElementType t) {
  if (t == ElementType::BF16) {
    std::uint32_t const w = std::uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  __half_raw raw;
  raw.x = bits;
  return static_cast<double>(__half2float(__half(raw)));
}

double tolerance(ElementType t) {
  return t == ElementType::BF16 ? 1.0 / 64 : 1.0 / 256;
}

// A (rows, heads, D) block of one sequence, in the tensor's strides, as doubles.
struct HostTensor {
  std::vector<std::uint16_t> bits;
  std::int64_t batch_stride, row_stride, head_stride;
  ElementType type;
  double at(std::int64_t b, std::int64_t row, std::int64_t h, int d) const {
    return to_double(bits[b * batch_stride + row * row_stride + h * head_stride + d], type);
  }
};

// The float64 reference of one (sequence, head): O rows and LSE, rows [q0, q0 + sq) of q and
// [k0, k0 + sk) of k and v in sequence b.
void reference(HostTensor const& q, HostTensor const& k, HostTensor const& v, int b, int q0, int sq,
               int k0, int sk, int h, int hk, int d, double scale, bool causal,
               std::vector<double>& o, std::vector<double>& lse) {
  o.assign(static_cast<std::size_t>(sq) * d, 0.0);
  lse.assign(sq, 0.0);
  std::vector<double> s(sk);
  for (int i = 0; i < sq; ++i) {
    int const seen = causal ? std::clamp(i + sk - sq + 1, 0, sk) : sk;
    if (seen == 0) {
      lse[i] = std::numeric_limits<double>::infinity();
      continue;
    }
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < seen; ++j) {
      double dot = 0.0;
      for (int x = 0; x < d; ++x) dot += q.at(b, q0 + i, h, x) * k.at(b, k0 + j, hk, x);
      s[j] = dot * scale;
      m = std::max(m, s[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < seen; ++j) {
      s[j] = std::exp(s[j] - m);
      sum += s[j];
    }
    for (int j = 0; j < seen; ++j)
      for (int x = 0; x < d; ++x)
        o[static_cast<std::size_t>(i) * d + x] += s[j] * v.at(b, k0 + j, hk, x);
    for (int x = 0; x < d; ++x) o[static_cast<std::size_t>(i) * d + x] /= sum;
    lse[i] = m + std::log(sum);
  }
}

template <class T>
void fill(void* p, std::size_t count, std::uint64_t seed) {
  warploom::testing::fill_uniform(static_cast<T*>(p), count, seed);
}

void fill_inputs(ElementType t, void* p, std::size_t count, std::uint64_t seed) {
  if (t == ElementType::BF16) {
    fill<__nv_bfloat16>(p, count, seed);
  } else {
    fill<__half>(p, count, seed);
  }
}

HostTensor download(DeviceBuffer const& b, AttentionTensor const& t, ElementType type) {
  HostTensor h{std::vector<std::uint16_t>(b.bytes() / 2), t.batch_stride, t.row_stride,
               t.head_stride, type};
  WL_CUDA_CHECK(cudaMemcpy(h.bits.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

void check_fixed(Case const& c, DeviceBuffer const& q, DeviceBuffer const& k, DeviceBuffer const& v,
                 DeviceBuffer const& o, DeviceBuffer const& lse, AttentionTensor const& tq,
                 AttentionTensor const& tk, AttentionTensor const& tv, AttentionTensor const& to);

// Fixed lengths: (B, S, H, D) tensors with `pad` elements after each row's heads, in each schedule
// built.
void expect_correct(Case c) {
  SCOPED_TRACE(describe(c));
  if (!attention_instance_built(c.type, c.head_dim, c.causal)) {
    GTEST_LOG_(INFO) << "not built: " << describe(c);
    return;
  }
  int const kv_heads = c.kv_heads == 0 ? c.heads : c.kv_heads;
  int const d = c.head_dim;
  auto tensor = [&](int rows, int heads) {
    AttentionTensor t;
    t.head_stride = d;
    t.row_stride = std::int64_t{heads} * d + c.pad;
    t.batch_stride = t.row_stride * rows;
    return t;
  };
  AttentionTensor tq = tensor(c.seqlen_q, c.heads), tk = tensor(c.seqlen_k, kv_heads);
  AttentionTensor tv = tk, to = tq;
  std::size_t const q_elems = static_cast<std::size_t>(tq.batch_stride) * c.batch;
  std::size_t const k_elems = static_cast<std::size_t>(tk.batch_stride) * c.batch;
  DeviceBuffer q(q_elems * 2), k(k_elems * 2), v(k_elems * 2), o(q_elems * 2);
  std::size_t const lse_elems = static_cast<std::size_t>(c.batch) * c.heads * c.seqlen_q;
  DeviceBuffer lse(lse_elems * 4);
  fill_inputs(c.type, q.get(), q_elems, 1);
  fill_inputs(c.type, k.get(), k_elems, 2);
  fill_inputs(c.type, v.get(), k_elems, 3);
  tq.data = q.get();
  tk.data = k.get();
  tv.data = v.get();

  AttentionArgs args;
  args.type = c.type;
  args.q = tq;
  args.k = tk;
  args.v = tv;
  args.o = o.get();
  args.o_strides = to;
  args.lse = lse.as<float>();
  args.batch = c.batch;
  args.seqlen_q = c.seqlen_q;
  args.seqlen_k = c.seqlen_k;
  args.heads = c.heads;
  args.kv_heads = c.kv_heads;
  args.head_dim = d;
  args.scale = c.scale;
  args.causal = c.causal;
  for (AttentionSchedule const schedule : kSchedules) {
    if (!attention_instance_built(c.type, c.head_dim, c.causal, schedule)) continue;
    SCOPED_TRACE(schedule_name(schedule));
    warploom::testing::poison(o.get(), o.bytes());
    warploom::testing::poison(lse.get(), lse.bytes());
    attention_forward(args, nullptr, {.schedule = schedule});
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    check_fixed(c, q, k, v, o, lse, tq, tk, tv, to);
  }
}

// Compares O and LSE of a fixed-length run with the float64 reference.
void check_fixed(Case const& c, DeviceBuffer const& q, DeviceBuffer const& k, DeviceBuffer const& v,
                 DeviceBuffer const& o, DeviceBuffer const& lse, AttentionTensor const& tq,
                 AttentionTensor const& tk, AttentionTensor const& tv, AttentionTensor const& to) {
  int const kv_heads = c.kv_heads == 0 ? c.heads : c.kv_heads;
  int const d = c.head_dim;
  std::size_t const lse_elems = static_cast<std::size_t>(c.batch) * c.heads * c.seqlen_q;
  HostTensor const hq = download(q, tq, c.type), hk = download(k, tk, c.type),
                   hv = download(v, tv, c.type), ho = download(o, to, c.type);
  std::vector<float> hl(lse_elems);
  WL_CUDA_CHECK(cudaMemcpy(hl.data(), lse.get(), lse.bytes(), cudaMemcpyDeviceToHost));

  double const scale = c.scale == 0.0f ? 1.0 / std::sqrt(static_cast<double>(d)) : c.scale;
  double const tol = tolerance(c.type);
  int failures = 0;
  double worst = 0.0;
  std::vector<double> ro, rl;
  for (int b = 0; b < c.batch; ++b) {
    for (int h = 0; h < c.heads; ++h) {
      reference(hq, hk, hv, b, 0, c.seqlen_q, 0, c.seqlen_k, h, h / (c.heads / kv_heads), d, scale,
                c.causal, ro, rl);
      for (int i = 0; i < c.seqlen_q; ++i) {
        for (int x = 0; x < d; ++x) {
          double const got = ho.at(b, i, h, x);
          double const want = ro[static_cast<std::size_t>(i) * d + x];
          double const err = std::abs(got - want);
          worst = std::max(worst, std::isnan(err) ? 1e30 : err);
          if (!(err <= tol) && failures++ < 5)
            ADD_FAILURE() << "O[b=" << b << ", row=" << i << ", h=" << h << ", d=" << x
                          << "] = " << got << ", reference " << want;
        }
        float const got = hl[(static_cast<std::size_t>(b) * c.heads + h) * c.seqlen_q + i];
        double const want = rl[i];
        bool const ok =
            std::isinf(want) ? (std::isinf(got) && got > 0) : std::abs(got - want) <= 1e-3;
        if (!ok && failures++ < 5)
          ADD_FAILURE() << "LSE[b=" << b << ", h=" << h << ", row=" << i << "] = " << got
                        << ", reference " << want;
      }
    }
  }
  // The padding after each row's heads stays poisoned (0xFFFF).
  if (c.pad > 0) {
    for (int b = 0; b < c.batch; ++b)
      for (int i = 0; i < c.seqlen_q; ++i)
        for (int x = 0; x < c.pad; ++x) {
          std::uint16_t const bits =
              ho.bits[b * to.batch_stride + i * to.row_stride + std::int64_t{c.heads} * d + x];
          if (bits != 0xFFFF && failures++ < 5)
            ADD_FAILURE() << "O's padding at b=" << b << ", row=" << i << ", +" << x
                          << " was written";
        }
  }
  EXPECT_EQ(failures, 0) << "worst |O - reference| = " << worst << " (tolerance " << tol << ")";
}

void check_varlen(ElementType type, int d, bool causal, std::vector<int> const& lq,
                  std::vector<int> const& lk, int heads, int kv_heads, std::vector<int> const& cq,
                  std::vector<int> const& ck, DeviceBuffer const& q, DeviceBuffer const& k,
                  DeviceBuffer const& v, DeviceBuffer const& o, DeviceBuffer const& lse,
                  AttentionTensor const& tq, AttentionTensor const& tk);

// Variable lengths: sequences of their own lengths packed back to back in (total, H, D) tensors,
// cu_seqlens on the device, LSE (H, total_q). Rows past a sequence's end inside the tensors belong
// to the next sequence: the kernel must neither use their keys nor write their query rows twice.
void expect_correct_varlen(ElementType type, int d, bool causal, std::vector<int> const& lq,
                           std::vector<int> const& lk, int heads, int kv_heads) {
  std::string const what = std::string(to_string(type)) + " D=" + std::to_string(d) +
                           (causal ? " causal" : "") + " varlen H=" + std::to_string(heads) +
                           " Hkv=" + std::to_string(kv_heads);
  SCOPED_TRACE(what);
  if (!attention_instance_built(type, d, causal)) return;
  int const batch = static_cast<int>(lq.size());
  std::vector<int> cq(1, 0), ck(1, 0);
  for (int b = 0; b < batch; ++b) {
    cq.push_back(cq.back() + lq[b]);
    ck.push_back(ck.back() + lk[b]);
  }
  int const total_q = cq.back(), total_k = ck.back();
  AttentionTensor tq{nullptr, 0, std::int64_t{heads} * d, d};
  AttentionTensor tk{nullptr, 0, std::int64_t{kv_heads} * d, d};
  std::size_t const q_elems = static_cast<std::size_t>(total_q) * heads * d;
  std::size_t const k_elems = static_cast<std::size_t>(total_k) * kv_heads * d;
  DeviceBuffer q(q_elems * 2), k(k_elems * 2), v(k_elems * 2), o(q_elems * 2);
  DeviceBuffer lse(static_cast<std::size_t>(total_q) * heads * 4);
  DeviceBuffer dcq = warploom::testing::upload(cq), dck = warploom::testing::upload(ck);
  fill_inputs(type, q.get(), q_elems, 11);
  fill_inputs(type, k.get(), k_elems, 12);
  fill_inputs(type, v.get(), k_elems, 13);
  AttentionArgs args;
  args.type = type;
  args.q = {q.get(), kPacked, tq.row_stride, d};
  args.k = {k.get(), kPacked, tk.row_stride, d};
  args.v = {v.get(), kPacked, tk.row_stride, d};
  args.o = o.get();
  args.lse = lse.as<float>();
  args.batch = batch;
  args.seqlen_q = *std::max_element(lq.begin(), lq.end());
  args.seqlen_k = *std::max_element(lk.begin(), lk.end());
  args.heads = heads;
  args.kv_heads = kv_heads;
  args.head_dim = d;
  args.causal = causal;
  args.cu_seqlens_q = dcq.as<int>();
  args.cu_seqlens_k = dck.as<int>();
  args.total_q = total_q;
  args.total_k = total_k;
  for (AttentionSchedule const schedule : kSchedules) {
    if (!attention_instance_built(type, d, causal, schedule)) continue;
    SCOPED_TRACE(schedule_name(schedule));
    warploom::testing::poison(o.get(), o.bytes());
    warploom::testing::poison(lse.get(), lse.bytes());
    attention_forward(args, nullptr, {.schedule = schedule});
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    check_varlen(type, d, causal, lq, lk, heads, kv_heads, cq, ck, q, k, v, o, lse, tq, tk);
  }
}

void check_varlen(ElementType type, int d, bool causal, std::vector<int> const& lq,
                  std::vector<int> const& lk, int heads, int kv_heads, std::vector<int> const& cq,
                  std::vector<int> const& ck, DeviceBuffer const& q, DeviceBuffer const& k,
                  DeviceBuffer const& v, DeviceBuffer const& o, DeviceBuffer const& lse,
                  AttentionTensor const& tq, AttentionTensor const& tk) {
  int const batch = static_cast<int>(lq.size());
  int const total_q = cq.back();
  HostTensor const hq = download(q, tq, type), hk = download(k, tk, type),
                   hv = download(v, tk, type), ho = download(o, tq, type);
  std::vector<float> hl(static_cast<std::size_t>(total_q) * heads);
  WL_CUDA_CHECK(cudaMemcpy(hl.data(), lse.get(), lse.bytes(), cudaMemcpyDeviceToHost));
  double const tol = tolerance(type);
  int failures = 0;
  std::vector<double> ro, rl;
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      reference(hq, hk, hv, 0, cq[b], lq[b], ck[b], lk[b], h, h / (heads / kv_heads), d,
                1.0 / std::sqrt(static_cast<double>(d)), causal, ro, rl);
      for (int i = 0; i < lq[b]; ++i) {
        for (int x = 0; x < d; ++x) {
          double const got = ho.at(0, cq[b] + i, h, x);
          double const want = ro[static_cast<std::size_t>(i) * d + x];
          if (!(std::abs(got - want) <= tol) && failures++ < 5)
            ADD_FAILURE() << "O[seq=" << b << ", row=" << i << ", h=" << h << ", d=" << x
                          << "] = " << got << ", reference " << want;
        }
        float const got = hl[static_cast<std::size_t>(h) * total_q + cq[b] + i];
        bool const ok =
            std::isinf(rl[i]) ? (std::isinf(got) && got > 0) : std::abs(got - rl[i]) <= 1e-3;
        if (!ok && failures++ < 5)
          ADD_FAILURE() << "LSE[h=" << h << ", seq=" << b << ", row=" << i << "] = " << got
                        << ", reference " << rl[i];
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

std::vector<ElementType> const kTypes = {ElementType::BF16, ElementType::F16};
std::vector<int> const kHeadDims = {64, 128, 256};

TEST(AttentionForward, EveryBuiltInstanceOnOddLengths) {
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      for (bool causal : {false, true})
        for (int s : {1, 77, 128, 300})
          expect_correct({.type = t,
                          .head_dim = d,
                          .causal = causal,
                          .seqlen_q = s,
                          .seqlen_k = s,
                          .heads = 2});
}

TEST(AttentionForward, DifferentQueryAndKeyLengths) {
  struct Lengths {
    int q, k;
  };
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      for (bool causal : {false, true})
        for (Lengths l : {Lengths{1, 1000}, Lengths{77, 300}, Lengths{300, 77}, Lengths{129, 1}})
          expect_correct(
              {.type = t, .head_dim = d, .causal = causal, .seqlen_q = l.q, .seqlen_k = l.k});
}

TEST(AttentionForward, LongSequenceBatchesAndSharpSoftmax) {
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      for (bool causal : {false, true}) {
        expect_correct({.type = t,
                        .head_dim = d,
                        .causal = causal,
                        .batch = 2,
                        .seqlen_q = 1000,
                        .seqlen_k = 1000,
                        .heads = 2});
        // scale 1: scores up to ~D/3 apart, so the running maximum moves and the rescaling runs.
        expect_correct({.type = t,
                        .head_dim = d,
                        .causal = causal,
                        .batch = 3,
                        .seqlen_q = 257,
                        .seqlen_k = 383,
                        .heads = 1,
                        .scale = 1.0f});
      }
}

TEST(AttentionForward, GroupedAndMultiQueryHeads) {
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      for (bool causal : {false, true}) {
        expect_correct({.type = t,
                        .head_dim = d,
                        .causal = causal,
                        .batch = 2,
                        .seqlen_q = 200,
                        .seqlen_k = 200,
                        .heads = 8,
                        .kv_heads = 2});
        expect_correct({.type = t,
                        .head_dim = d,
                        .causal = causal,
                        .seqlen_q = 130,
                        .seqlen_k = 260,
                        .heads = 4,
                        .kv_heads = 1});
      }
}

TEST(AttentionForward, PaddedStrides) {
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      expect_correct({.type = t,
                      .head_dim = d,
                      .causal = true,
                      .batch = 2,
                      .seqlen_q = 150,
                      .seqlen_k = 150,
                      .heads = 3,
                      .pad = 24});
}

// More tiles than SMs: the persistent loop runs several tiles per CTA.
TEST(AttentionForward, MoreTilesThanSms) {
  for (bool causal : {false, true})
    expect_correct({.type = ElementType::BF16,
                    .head_dim = 128,
                    .causal = causal,
                    .batch = 2,
                    .seqlen_q = 512,
                    .seqlen_k = 512,
                    .heads = 36,
                    .kv_heads = 6});
}

TEST(AttentionForward, VariableLengths) {
  for (ElementType t : kTypes)
    for (int d : kHeadDims)
      for (bool causal : {false, true}) {
        expect_correct_varlen(t, d, causal, {77, 1, 300, 129}, {100, 250, 5, 129}, 4, 2);
        expect_correct_varlen(t, d, causal, {128}, {1000}, 2, 2);
      }
}

// Captured in a graph on a stream of the caller's, every replay matches an eager run bit for bit:
// which CTA runs a tile must not change its bits, and whatever a launch sets up on its stream
// (a tile counter zeroed before the kernel, say) must be replayed with it — a replay that found
// it at the last run's count would hand out no tile and leave O poisoned.
TEST(AttentionForward, GraphReplaysMatchAnEagerRunBitForBit) {
  int const heads = 36, seqlen = 512, d = 128;  // 4 x 36 x 2 causal tiles: several per CTA
  AttentionTensor t{nullptr, std::int64_t{seqlen} * heads * d, std::int64_t{heads} * d, d};
  std::size_t const elems = static_cast<std::size_t>(t.batch_stride) * 2;
  DeviceBuffer q(elems * 2), k(elems * 2), v(elems * 2), o(elems * 2);
  DeviceBuffer lse(static_cast<std::size_t>(2) * heads * seqlen * 4);
  fill_inputs(ElementType::BF16, q.get(), elems, 21);
  fill_inputs(ElementType::BF16, k.get(), elems, 22);
  fill_inputs(ElementType::BF16, v.get(), elems, 23);
  AttentionArgs args;
  args.q = {q.get(), t.batch_stride, t.row_stride, t.head_stride};
  args.k = {k.get(), t.batch_stride, t.row_stride, t.head_stride};
  args.v = {v.get(), t.batch_stride, t.row_stride, t.head_stride};
  args.o = o.get();
  args.o_strides = t;
  args.lse = lse.as<float>();
  args.batch = 2;
  args.seqlen_q = args.seqlen_k = seqlen;
  args.heads = heads;
  args.head_dim = d;
  args.causal = true;
  if (!attention_instance_built(args.type, d, true)) GTEST_SKIP() << "bf16 D=128 causal not built";
  auto bytes_of = [](DeviceBuffer const& b) {
    std::vector<unsigned char> h(b.bytes());
    WL_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    return h;
  };
  WL_CUDA_CHECK(cudaDeviceSynchronize());  // the inputs, filled on the default stream
  cudaStream_t stream = nullptr;
  WL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (AttentionSchedule const schedule : kSchedules) {
    if (!attention_instance_built(args.type, d, true, schedule)) continue;
    SCOPED_TRACE(schedule_name(schedule));
    warploom::testing::poison(o.get(), o.bytes(), 0xFF, stream);
    attention_forward(args, stream, {.schedule = schedule});
    WL_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<unsigned char> const eager_o = bytes_of(o), eager_lse = bytes_of(lse);

    cudaGraph_t graph = nullptr;
    WL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    attention_forward(args, stream, {.schedule = schedule});
    WL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    WL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      SCOPED_TRACE("replay " + std::to_string(replay));
      warploom::testing::poison(o.get(), o.bytes(), 0xFF, stream);
      warploom::testing::poison(lse.get(), lse.bytes(), 0xFF, stream);
      WL_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      WL_CUDA_CHECK(cudaStreamSynchronize(stream));
      EXPECT_TRUE(bytes_of(o) == eager_o);
      EXPECT_TRUE(bytes_of(lse) == eager_lse);
    }
    WL_CUDA_CHECK(cudaGraphExecDestroy(exec));
    WL_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  WL_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace warploom::attention
