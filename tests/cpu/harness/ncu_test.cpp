// tests/cpu/harness/ncu_test.cpp — warploom/harness/ncu.hpp
#include "warploom/harness/ncu.hpp"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

// The shape of `ncu --csv --page raw --print-units base --log-file F` output: notes, a header, a
// units row, one row per profiled kernel (here a main kernel and a small reduction).
constexpr char kLog[] =
    "==PROF== Connected to process 4242\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"sm__cycles_elapsed.max\","
    "\"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active\","
    "\"dram__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"launch__registers_per_thread\","
    "\"launch__shared_mem_per_block_static\",\"launch__shared_mem_per_block_dynamic\"\n"
    "\"\",\"\",\"\",\"nsecond\",\"cycle\",\"%\",\"%\",\"%\",\"register/thread\",\"byte\",\"byte\"\n"
    "\"0\",\"4242\",\"void ts_gemm_kernel<(int)1, bf16>(Params)\","
    "\"1,800,000\",\"2,700,000\",\"90\",\"20\",\"18.5\",\"168\",\"0\",\"232,448\"\n"
    "\"1\",\"4242\",\"reduce\",\"200,000\",\"300,000\",\"0\",\"60\",\"50\",\"32\",\"1,024\",\"0\"\n"
    "==PROF== Disconnected from process 4242\n";

TEST(NcuCsv, SumsTimesWeightsPercentagesAndKeepsTheLongestKernelsResources) {
  std::optional<NcuSummary> const s = summarize_ncu_csv(kLog);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->kernels, 2);
  EXPECT_DOUBLE_EQ(s->duration_us, 2000.0);          // 1.8 ms + 0.2 ms
  EXPECT_DOUBLE_EQ(s->cycles, 3.0e6);                // 2.7 M + 0.3 M
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz(), 1500.0);       // 3 M cycles in 2000 us
  EXPECT_DOUBLE_EQ(s->tensor_pipe_pct, 0.9 * 90.0);  // missing hmma column: 0
  EXPECT_DOUBLE_EQ(s->dram_throughput_pct, 0.9 * 20.0 + 0.1 * 60.0);
  EXPECT_DOUBLE_EQ(s->achieved_occupancy_pct, 0.9 * 18.5 + 0.1 * 50.0);
  EXPECT_EQ(s->longest_kernel, "void ts_gemm_kernel<(int)1, bf16>(Params)");
  EXPECT_EQ(s->registers_per_thread, 168);
  EXPECT_EQ(s->shared_bytes_per_block, 232448);
}

TEST(NcuCsv, NoKernelsOrNoCsvIsNothingAndARaggedRowIsAnError) {
  EXPECT_FALSE(summarize_ncu_csv("==PROF== No kernels were profiled.\n").has_value());
  EXPECT_FALSE(summarize_ncu_csv("").has_value());
  std::string const ragged = "\"ID\",\"Kernel Name\"\n\"0\",\"k\",\"extra\"\n";
  EXPECT_THROW(summarize_ncu_csv(ragged), std::invalid_argument);
}

TEST(NcuCsv, MetricsNameEveryCuratedQuantity) {
  std::string joined;
  for (auto const& m : ncu_metrics()) joined += m + ",";
  for (char const* part :
       {"gpu__time_duration", "sm__cycles_elapsed", "tensor_op_gmma", "dram__throughput",
        "sm__warps_active", "registers_per_thread", "shared_mem_per_block"})
    EXPECT_NE(joined.find(part), std::string::npos) << part;
}

TEST(NcuCsv, SplitsQuotedFields) {
  EXPECT_EQ(split_csv_line("\"a,b\",c,\"say \"\"x\"\"\"\r"),
            (std::vector<std::string>{"a,b", "c", "say \"x\""}));
}

}  // namespace
}  // namespace warploom::harness
