// kernels/tutorial/01_grid_stride_copy_main.cpp
//
//   01_grid_stride_copy [--num_entries N] [--num_blocks B] [--variant scalar|vector]
//                       [--run-raw-kernel] [--verify-only]
//
// Prints the TaskManager's schedule table and verdict (no GPU needed), then, on a Hopper GPU,
// copies N random int16 values into a poisoned output and checks every element.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "grid_stride_copy.hpp"
#include "warploom/device_info.hpp"
#include "warploom/testing/device_buffers.hpp"
#include "warploom/ts/print.hpp"

namespace wl = warploom;
namespace tut = warploom::tutorial;

int main(int argc, char** argv) {
  CLI::App app{"Tutorial 01: grid-stride copy of a 1-D int16 tensor in TS"};
  std::int64_t n = 1 << 24;  // the seed's num_entries
  int blocks = 256;          // the seed's num_blocks
  bool raw = false, verify_only = false;
  std::string variant_name = "scalar";
  app.add_option("--variant", variant_name,
                 "scalar (the seed's: one int16 per item) or vector (8 per item)")
      ->check(CLI::IsMember({"scalar", "vector"}));
  app.add_option("--num_entries", n, "elements to copy")->check(CLI::NonNegativeNumber);
  app.add_option("--num_blocks", blocks, "CTAs (0: fill the GPU)")->check(CLI::NonNegativeNumber);
  app.add_flag("--run-raw-kernel", raw, "run the naive baseline instead of the TS kernel");
  app.add_flag("--verify-only", verify_only, "print the schedule table and verdict, do not run");
  CLI11_PARSE(app, argc, argv);

  tut::GridStrideVariant const variant =
      variant_name == "scalar" ? tut::GridStrideVariant::Scalar : tut::GridStrideVariant::Vector;
  if (!wl::ts::print_and_verify(tut::grid_stride_copy_model(variant))) return 1;
  if (verify_only) return 0;

  wl::DeviceInfo device = wl::query_device();
  if (auto exit_code = wl::explain_if_not_runnable(device)) {
    return *exit_code;
  }
  try {
    std::size_t const bytes = static_cast<std::size_t>(n) * sizeof(std::int16_t);
    wl::testing::DeviceBuffer src(bytes), dst(bytes);
    wl::testing::fill_random(src.get(), bytes, /*seed=*/1);
    wl::testing::poison(dst.get(), bytes);
    tut::grid_stride_copy(variant,
                          raw ? tut::Implementation::Baseline : tut::Implementation::TaskScheduled,
                          src.as<std::int16_t>(), dst.as<std::int16_t>(), n, blocks);
    return wl::testing::print_verdict(wl::testing::compare_bytes(src.get(), dst.get(), bytes),
                                      std::string(raw ? "raw" : "TS") + " kernel, " +
                                          std::string(tut::to_string(variant)) + ", " +
                                          std::to_string(n) + " entries, " +
                                          std::to_string(blocks) + " blocks on " + device.name);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
