// bench/attention_plans.cpp
#include "attention_plans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm_plans.hpp"
#include "warploom/attention.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/testing/device_buffers.hpp"

namespace warploom::bench {
namespace {

namespace wa = warploom::attention;
namespace h = warploom::harness;

struct AttentionProblem {
  wa::ElementType type = wa::ElementType::BF16;
  int batch = 1, heads = 1, seqlen = 1, head_dim = 128, group = 1;
  bool causal = false;
  int kv_heads() const { return heads / group; }
  std::size_t q_elems() const { return std::size_t(batch) * seqlen * heads * head_dim; }
  std::size_t kv_elems() const { return std::size_t(batch) * seqlen * kv_heads() * head_dim; }
  std::size_t lse_elems() const { return std::size_t(batch) * heads * seqlen; }
};

// One input set: Q, K, V uniform in [-1, 1), O and LSE.
struct Operands {
  testing::DeviceBuffer q, k, v, o, lse;
};

double to_double(std::uint16_t bits, wa::ElementType t) {
  if (t == wa::ElementType::BF16) {
    std::uint32_t const w = std::uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  __half_raw raw;
  raw.x = bits;
  return static_cast<double>(__half2float(__half(raw)));
}

constexpr int kCheckedRows = 64;

constexpr wa::AttentionSchedule kSchedules[] = {
    wa::AttentionSchedule::Serial, wa::AttentionSchedule::Overlap, wa::AttentionSchedule::Pingpong};

// The tuning point's `schedule`, Auto when it has none.
wa::AttentionSchedule schedule_of(h::Tuning const& tuning) {
  auto const it = tuning.find("schedule");
  if (it == tuning.end()) return wa::AttentionSchedule::Auto;
  for (wa::AttentionSchedule const s : kSchedules)
    if (it->second == wa::to_string(s)) return s;
  throw std::invalid_argument("attention: schedule = " + it->second +
                              " is not one of serial, overlap, pingpong");
}

class AttentionPlan final : public h::KernelPlan {
 public:
  explicit AttentionPlan(AttentionProblem p) : p_(p) {}

  h::Work work() const override {
    double const flops =
        wa::attention_flops(p_.batch, p_.heads, p_.seqlen, p_.seqlen, p_.head_dim, p_.causal);
    double const bytes = 2.0 * (2.0 * p_.q_elems() + 2.0 * p_.kv_elems()) + 4.0 * p_.lse_elems();
    return {.flops = flops, .bytes = bytes};
  }
  std::size_t bytes_per_input_set() const override {
    return 2 * (2 * p_.q_elems() + 2 * p_.kv_elems()) + 4 * p_.lse_elems();
  }

  void prepare(int input_sets, std::uint64_t seed) override {
    sets_.clear();
    for (int i = 0; i < input_sets; ++i) {
      Operands s{testing::DeviceBuffer(2 * p_.q_elems()), testing::DeviceBuffer(2 * p_.kv_elems()),
                 testing::DeviceBuffer(2 * p_.kv_elems()), testing::DeviceBuffer(2 * p_.q_elems()),
                 testing::DeviceBuffer(4 * p_.lse_elems())};
      std::uint64_t const base = (seed * 1000 + static_cast<std::uint64_t>(i)) * 8;
      fill(s.q, p_.q_elems(), base + 1);
      fill(s.k, p_.kv_elems(), base + 2);
      fill(s.v, p_.kv_elems(), base + 3);
      sets_.push_back(std::move(s));
    }
    WL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // The schedule: {} is attention_forward's default (AttentionSchedule::Auto); `schedule` names
  // each one this build has explicitly (serial, overlap, pingpong), so --autotune times all three
  // side by side whichever Auto picks.
  std::vector<h::Tuning> tuning_space() const override {
    std::vector<h::Tuning> space = {{}};
    for (wa::AttentionSchedule const s : kSchedules)
      if (wa::attention_instance_built(p_.type, p_.head_dim, p_.causal, s))
        space.push_back({{"schedule", std::string(wa::to_string(s))}});
    return space;
  }

  void run(int input_set, h::Tuning const& tuning, cudaStream_t stream) override {
    Operands const& s = sets_.at(static_cast<std::size_t>(input_set));
    wa::AttentionArgs a;
    a.type = p_.type;
    a.q.data = s.q.get();
    a.k.data = s.k.get();
    a.v.data = s.v.get();
    a.o = s.o.get();
    a.lse = s.lse.as<float>();
    a.batch = p_.batch;
    a.seqlen_q = a.seqlen_k = p_.seqlen;
    a.heads = p_.heads;
    a.kv_heads = p_.kv_heads();
    a.head_dim = p_.head_dim;
    a.causal = p_.causal;
    wa::attention_forward(a, stream, {.schedule = schedule_of(tuning)});
  }

  h::CheckResult check(h::Tuning const& tuning) override {
    Operands const& s = sets_.at(0);
    testing::poison(s.o.get(), s.o.bytes());
    testing::poison(s.lse.get(), s.lse.bytes());
    run(0, tuning, nullptr);
    WL_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint16_t> q = download(s.q), k = download(s.k), v = download(s.v),
                               o = download(s.o);
    double worst = 0.0;
    int const last_head = p_.heads - 1, last_batch = p_.batch - 1;
    for (auto [b, hd] : {std::pair{0, 0}, std::pair{last_batch, last_head}}) {
      int const rows = std::min(p_.seqlen, kCheckedRows);
      for (int first : {0, p_.seqlen - rows})
        for (int i = first; i < first + rows; ++i)
          worst = std::max(worst, row_error(q, k, v, o, b, hd, i));
    }
    double const tolerance = p_.type == wa::ElementType::BF16 ? 1.0 / 64 : 1.0 / 256;
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "max |O - reference| %.2e on the first and last %d rows of two (sequence, head) "
                  "pairs (tolerance %.1e)",
                  worst, kCheckedRows, tolerance);
    return {worst <= tolerance, detail};
  }

 private:
  void fill(testing::DeviceBuffer const& b, std::size_t n, std::uint64_t seed) const {
    if (p_.type == wa::ElementType::BF16) {
      testing::fill_uniform(b.as<__nv_bfloat16>(), n, seed);
    } else {
      testing::fill_uniform(b.as<__half>(), n, seed);
    }
  }
  static std::vector<std::uint16_t> download(testing::DeviceBuffer const& b) {
    std::vector<std::uint16_t> h(b.bytes() / 2);
    WL_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
  // max |O - reference| over row i of (sequence b, head hd), packed (B, S, H, D) tensors.
  double row_error(std::vector<std::uint16_t> const& q, std::vector<std::uint16_t> const& k,
                   std::vector<std::uint16_t> const& v, std::vector<std::uint16_t> const& o, int b,
                   int hd, int i) const {
    int const d = p_.head_dim, s = p_.seqlen, hk = hd / p_.group;
    auto at = [&](std::vector<std::uint16_t> const& t, int heads, int row, int head, int x) {
      return to_double(t[((std::size_t(b) * s + row) * heads + head) * d + x], p_.type);
    };
    int const seen = p_.causal ? i + 1 : s;
    double const scale = 1.0 / std::sqrt(static_cast<double>(d));
    std::vector<double> w(seen);
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < seen; ++j) {
      double dot = 0.0;
      for (int x = 0; x < d; ++x) dot += at(q, p_.heads, i, hd, x) * at(k, p_.kv_heads(), j, hk, x);
      w[j] = dot * scale;
      m = std::max(m, w[j]);
    }
    double sum = 0.0;
    for (double& x : w) sum += (x = std::exp(x - m));
    double worst = 0.0;
    for (int x = 0; x < d; ++x) {
      double ref = 0.0;
      for (int j = 0; j < seen; ++j) ref += w[j] * at(v, p_.kv_heads(), j, hk, x);
      double const err = std::abs(at(o, p_.heads, i, hd, x) - ref / sum);
      worst = std::max(worst, std::isnan(err) ? std::numeric_limits<double>::infinity() : err);
    }
    return worst;
  }

  AttentionProblem p_;
  std::vector<Operands> sets_;
};

AttentionProblem attention_problem(h::Problem const& p) {
  if (p.extents.size() != 4)
    throw std::invalid_argument("attention: a problem is batch x heads x seqlen x head_dim");
  AttentionProblem a;
  std::string const dtype = p.parameters.at("dtype");
  if (dtype != "bf16" && dtype != "fp16")
    throw std::invalid_argument("attention: --dtype " + dtype + ": the family runs bf16 and fp16");
  a.type = dtype == "bf16" ? wa::ElementType::BF16 : wa::ElementType::F16;
  a.causal = p.parameters.at("mask") == "causal";
  auto extent = [&](int i, char const* name, std::int64_t lo, std::int64_t hi) {
    std::int64_t const v = p.extents[static_cast<std::size_t>(i)];
    if (v < lo || v > hi)
      throw std::invalid_argument(std::string("attention: ") + name + " = " + std::to_string(v) +
                                  " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "]");
    return static_cast<int>(v);
  };
  a.batch = extent(0, "batch", 1, 1 << 16);
  a.heads = extent(1, "heads", 1, 1 << 12);
  a.seqlen = extent(2, "seqlen", 1, 1 << 20);
  a.head_dim = extent(3, "head_dim", 1, 1 << 10);
  a.group = std::stoi(p.parameters.at("group"));
  if (a.heads % a.group != 0)
    throw std::invalid_argument("attention: heads = " + std::to_string(a.heads) +
                                " must be a multiple of --group " + std::to_string(a.group));
  if (!wa::attention_instance_built(a.type, a.head_dim, a.causal))
    throw std::invalid_argument("attention: " + dtype + " head_dim " + std::to_string(a.head_dim) +
                                (a.causal ? " causal" : "") +
                                " is not prebuilt (WARPLOOM_ATTENTION_INSTANCES=all)");
  return a;
}

}  // namespace

harness::PlanFamily attention_plan_family() {
  h::PlanFamily family{
      .name = "attention",
      .description =
          "attention forward, O = softmax(Q K^T / sqrt(D)) V and LSE: "
          "batch x heads x seqlen x head_dim (S_q = S_k)",
      .extent_names = {"batch", "heads", "seqlen", "head_dim"},
      .providers = {},
      .parameters = {{"dtype", "input and output type", {"bf16", "fp16"}},
                     {"mask", "none or causal (bottom-right aligned)", {"none", "causal"}},
                     {"group",
                      "query heads per K/V head (GQA; heads for MQA)",
                      {"1", "2", "4", "8", "16", "32"}}},
      // The gemm family's: cuBLASLt's 8192^3 GEMM of the input type.
      .compute_ceiling = gemm_plan_family().compute_ceiling,
      .report_flops = true};
  family.providers.push_back(
      {"warploom", "attention_forward: the sm90 TS attention kernel (FA3 design)",
       [](h::Problem const& p) { return std::make_unique<AttentionPlan>(attention_problem(p)); }});
  return family;
}

}  // namespace warploom::bench
