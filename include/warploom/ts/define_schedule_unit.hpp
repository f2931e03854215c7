// warploom/ts/define_schedule_unit.hpp
//
// Included only by schedule units (the translation units warploom_add_schedule generates; see
// schedule_unit.hpp): defines the proof and the registry entry of one schedule,
//
//   WL_TS_SCHEDULE_UNIT(sm90_ts_gemm, gemm::sm90::Cooperative<Shape, ScheduleOnly>)
//
// where the type names its TaskManager (`::Manager`), `kName` and `kDescription`. Nothing else may
// include this header: a kernel instance that could see the definition of ts::verified<S>() would
// instantiate it — and run the compile-time check — itself.
#pragma once

#include "warploom/ts/compile_time_check.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace warploom::ts {

template <class Schedule>
Verified<Schedule> verified() {
  // Under nvcc only in the device pass: its front end evaluates the check several times faster
  // than GCC does (a ping-pong GEMM schedule: ~20 s against ~180 s), and the host compiler would
  // evaluate it a second time.
#if !defined(__CUDACC__) || defined(__CUDA_ARCH__)
  static_assert(verified_at_compile_time<typename Schedule::Manager::traits>(),
                "schedule unit: the schedule failed a check; the note names the rule (run "
                "`warploom verify <name>` for the task, resource and fix)");
#endif
  return {Schedule::kName};
}

template <class Schedule>
ManagerModel schedule_model() {
  return Schedule::Manager::model(Schedule::kName);
}

template <class Schedule>
RegisteredSchedule registration() {
  return {Schedule::kName, Schedule::kDescription, &schedule_model<Schedule>};
}

}  // namespace warploom::ts

// The explicit instantiation is what instances link against; the registry calls
// warploom_schedule_<id>() (declared by the generated registry, so it need not name the type).
#define WL_TS_SCHEDULE_UNIT(ID, ...)                                                    \
  template ::warploom::ts::Verified<__VA_ARGS__> warploom::ts::verified<__VA_ARGS__>(); \
  ::warploom::ts::RegisteredSchedule warploom_schedule_##ID() {                         \
    return ::warploom::ts::registration<__VA_ARGS__>();                                 \
  }
