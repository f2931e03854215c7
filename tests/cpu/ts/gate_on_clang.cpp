// tests/cpu/ts/gate_on_clang.cpp
//
// The compile-time gate (ts::verified_at_compile_time) of the sm90 GEMM's cooperative and ping-pong
// schedules, evaluated by Clang with libc++ (tests/cpu/ts/gate_on_clang.sh runs it with
// -fsyntax-only). Clang 16 refused every ping-pong schedule until the resources' name arrays
// stated their bound (docs/verification/README.md, "The compilers' constant-evaluation budgets").
#include "gemm/sm90/cooperative.hpp"
#include "gemm/sm90/pingpong.hpp"
#include "gemm/sm90/schedule_only.hpp"
#include "warploom/ts/compile_time_check.hpp"

namespace sm90 = warploom::gemm::sm90;

static_assert(
    warploom::ts::verified_at_compile_time<
        sm90::Cooperative<sm90::CooperativeShape<>, sm90::ScheduleOnly>::Manager::traits>(),
    "the cooperative GEMM schedule's compile-time gate, on Clang");
static_assert(
    warploom::ts::verified_at_compile_time<
        sm90::Pingpong<sm90::PingpongShape<6, 1, 1>, sm90::ScheduleOnly>::Manager::traits>(),
    "the ping-pong GEMM schedule's compile-time gate, on Clang");
