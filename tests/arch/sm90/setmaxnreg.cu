// tests/arch/sm90/setmaxnreg.cu: compile-only test of warploom/arch/sm90/setmaxnreg.hpp (the
// header comment of tests/arch/sm90/mbarrier.cu says how these tests work). Each direction of
// set_max_registers<kRegisters, kEntryRegisters>, and the no-op when the counts are equal; the
// kernels carry the launch bounds a warp-specialized kernel has (3 warpgroups, 168 registers).

#include "warploom/arch/sm90/setmaxnreg.hpp"

namespace sm90 = warploom::sm90;

extern "C" __global__ void __launch_bounds__(384, 1) test_set_max_registers_increase() {
  // PTX: setmaxnreg.inc.sync.aligned.u32 240
  // PTX-NOT: setmaxnreg.dec
  sm90::set_max_registers<240, 168>();
}

extern "C" __global__ void __launch_bounds__(384, 1) test_set_max_registers_decrease() {
  // PTX: setmaxnreg.dec.sync.aligned.u32 40
  // PTX-NOT: setmaxnreg.inc
  sm90::set_max_registers<40, 168>();
}

extern "C" __global__ void __launch_bounds__(384, 1) test_set_max_registers_unchanged() {
  // PTX-NOT: setmaxnreg
  sm90::set_max_registers<168, 168>();
}
