// kernels/tutorial/02_tma_copy_main.cpp
//
//   02_tma_copy [--rows_cols R,C] [--run-raw-kernel] [--variant seed|multistage] [--verify-only]
//
// Prints the TaskManager's schedule table and verdict (no GPU needed), then, on a Hopper GPU,
// copies a random R x C fp16 matrix into a poisoned output with the TS kernel (or the hand-written
// one with --run-raw-kernel), checks every byte and prints PASS.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tma_copy.hpp"
#include "warploom/device_info.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/ts/print.hpp"

namespace wl = warploom;
namespace tut = warploom::tutorial;

int main(int argc, char** argv) {
  CLI::App app{"Tutorial 02: TMA copy of a 2-D fp16 matrix in TS"};
  std::vector<int> rows_cols{256, 512};
  bool raw = false, verify_only = false;
  std::string variant_name = "seed";
  app.add_option("--rows_cols", rows_cols,
                 "rows and columns, comma-separated (columns: a multiple of 128)")
      ->delimiter(',')
      ->expected(2);
  app.add_flag("--run-raw-kernel", raw, "run the hand-written baseline instead of the TS kernel");
  app.add_option("--variant", variant_name,
                 "seed (1 stage, 128x1 tiles) or multistage (4 stages, 128x64)")
      ->check(CLI::IsMember({"seed", "multistage"}));
  app.add_flag("--verify-only", verify_only, "print the schedule table and verdict, do not run");
  CLI11_PARSE(app, argc, argv);

  tut::TmaCopyVariant const variant =
      variant_name == "seed" ? tut::TmaCopyVariant::Seed : tut::TmaCopyVariant::MultiStage;
  int const rows = rows_cols[0], cols = rows_cols[1];
  try {
    tut::check_tma_copy_shape(rows, cols);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }

  if (!wl::ts::print_and_verify(tut::tma_copy_model(variant))) return 1;
  if (verify_only) return 0;

  wl::DeviceInfo device = wl::query_device();
  if (auto exit_code = wl::explain_if_not_runnable(device)) {
    return *exit_code;  // no GPU: verified and built is all this machine can do
  }
  try {
    std::size_t const bytes = static_cast<std::size_t>(rows) * cols * sizeof(__half);
    wl::testing::DeviceBuffer src(bytes), dst(bytes);
    wl::testing::fill_random(src.get(), bytes, /*seed=*/2);
    wl::testing::poison(dst.get(), bytes);
    tut::tma_copy(variant, raw ? tut::Implementation::Baseline : tut::Implementation::TaskScheduled,
                  src.as<__half>(), dst.as<__half>(), rows, cols);
    return wl::testing::print_verdict(wl::testing::compare_bytes(src.get(), dst.get(), bytes),
                                      std::string(raw ? "raw" : "TS") + " kernel, " +
                                          std::string(tut::to_string(variant)) + ", rows_cols " +
                                          std::to_string(rows) + "," + std::to_string(cols) +
                                          " on " + device.name);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
