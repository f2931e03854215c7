// tests/cpu/ts/gemm_schedule_gate_test.cpp
//
// The compile-time gate (ts::verified_at_compile_time) of production schedules — the sm90 GEMM's
// cooperative and ping-pong ones — evaluated by the host C++ compiler, as a user's host code may
// do. warploom::warploom carries raised constant-evaluation limits to every target that links it
// (cmake/WarploomTargets.cmake): the ping-pong schedules take more than GCC 12's default budget
// (-fconstexpr-ops-limit=2^25: "'constexpr' evaluation operation count exceeds limit"; 10 s, 23 s
// with a finish task), the cooperative one fits it since the gate grows persistent sets (4 s;
// 2026-12-05). This file compiling is the test that the gate holds on the host compiler; ctest
// ts_gate_on_clang compiles it with Clang and libc++ too (tests/cpu/ts/gate_on_clang.sh), where
// Clang 16 refused every ping-pong schedule until the resources' name arrays stated their bound
// (docs/verification/README.md, "The compilers' constant-evaluation budgets").
#include <gtest/gtest.h>

#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/schedule_only.hpp"
#include "warploom/ts/compile_time_check.hpp"

namespace {

namespace sm90 = warploom::gemm::sm90;
using Cooperative = sm90::Cooperative<sm90::CooperativeShape<>, sm90::ScheduleOnly>;
using Pingpong = sm90::Pingpong<sm90::PingpongShape<6, 1, 1>, sm90::ScheduleOnly>;
static_assert(warploom::ts::verified_at_compile_time<Cooperative::Manager::traits>(),
              "the cooperative GEMM schedule's compile-time gate, on the host compiler");
static_assert(warploom::ts::verified_at_compile_time<Pingpong::Manager::traits>(),
              "the ping-pong GEMM schedule's compile-time gate, on the host compiler");

TEST(CompileTimeGate, HoldsForTheGemmSchedulesOnTheHostCompiler) {
  EXPECT_TRUE(warploom::ts::verified_at_compile_time<Cooperative::Manager::traits>());
  EXPECT_TRUE(warploom::ts::verified_at_compile_time<Pingpong::Manager::traits>());
}

}  // namespace
