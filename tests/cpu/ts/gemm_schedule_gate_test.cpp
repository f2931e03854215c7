// tests/cpu/ts/gemm_schedule_gate_test.cpp
//
// The compile-time gate (ts::verified_at_compile_time) of a production schedule — the sm90 GEMM's
// cooperative one — evaluated by the host C++ compiler, as a user's host code may do.
// warploom::warploom carries raised constant-evaluation limits to every target that links it
// (cmake/WarploomTargets.cmake): the ping-pong schedules take more than GCC 12's default budget
// (-fconstexpr-ops-limit=2^25: "'constexpr' evaluation operation count exceeds limit"; 10 s, 23 s
// with a finish task), the cooperative one fits it since the gate grows persistent sets (4 s;
// 2026-12-05). This file compiling is the test that the gate holds on the host compiler. Not the
// ping-pong schedules here: the sanitize preset's GCC (-O0, ASan) does not take the comparison of
// two work tags' addresses as a constant there (reverted 2026-12-06; tests/cpu/ts/gate_on_clang.cpp
// checks them on Clang).
#include <gtest/gtest.h>

#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/schedule_only.hpp"
#include "warploom/ts/compile_time_check.hpp"

namespace {

using Schedule = warploom::gemm::sm90::Cooperative<warploom::gemm::sm90::CooperativeShape<>,
                                                   warploom::gemm::sm90::ScheduleOnly>;
static_assert(warploom::ts::verified_at_compile_time<Schedule::Manager::traits>(),
              "the GEMM schedule's compile-time gate, on the host compiler");

TEST(CompileTimeGate, HoldsForTheGemmScheduleOnTheHostCompiler) {
  EXPECT_TRUE(warploom::ts::verified_at_compile_time<Schedule::Manager::traits>());
}

}  // namespace
