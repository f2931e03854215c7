// tests/compile_fail/ts_rules.cpp — the compile-time rules of warploom::ts.
//
// Without a CASE_ define this file is a small, correct TMA-copy TaskManager that passes the
// compile-time gate; tests/cpu/ts/compile_time_check_test.cpp includes it, so the good code is
// compiled (and its model checked) in the normal build. Each CASE_<rule>_<what> define swaps in
// one violation, and tests/compile_fail/CMakeLists.txt expects the compiler's error to name the
// rule. A case thus differs from compiling code by one statement or declaration.

#include "warploom/ts/ts.hpp"

// ---- The violating statements, by where they go ------------------------------------------------
// CF_IN_LOAD goes between the load task's acquire() and commit(), where `ctx`, `in` (src: In),
// `smem` (dst: Smem) and `row` (a token of int) are in scope; CF_IN_STORE between the store
// task's wait() and release(), with `smem` (src: Smem) and `out` (dst: Out). Inside the brackets,
// a case breaks only the rule it is about.
#if defined(CASE_R_D20_UNDECLARED_WORK)
#define CF_IN_LOAD ts::work<&Out::store>(smem, short{1});  // Out's work on Smem's handle
#elif defined(CASE_NOT_A_WORK)
#define CF_IN_LOAD ts::work<&Smem::helper>(smem, 1);  // first parameter is not a stage type
#elif defined(CASE_R_A6_TOO_FEW_ARGUMENTS)
#define CF_IN_LOAD ts::work<&Smem::load>(smem);
#elif defined(CASE_R_A6_TOO_MANY_ARGUMENTS)
#define CF_IN_LOAD ts::work<&Smem::load>(smem, row, 2);
#elif defined(CASE_R_A6_TOKEN_OF_ANOTHER_TYPE)
#define CF_IN_LOAD ts::work<&Smem::load>(smem, ts::work<&In::tile>(in));  // Coord into int
#elif defined(CASE_R_A6_LOCAL_OF_ANOTHER_TYPE)
#define CF_IN_LOAD                \
  auto tile = ctx.local(Coord{}); \
  ts::work<&Smem::load>(smem, tile);
#elif defined(CASE_R_A6_ASSIGN_TOKEN_OF_ANOTHER_TYPE_TO_LOCAL)
#define CF_IN_LOAD           \
  auto count = ctx.local(0); \
  count = ts::work<&In::tile>(in);
#elif defined(CASE_R_A6_TOKEN_INTO_IN_OUT_PARAMETER)
#define CF_IN_LOAD ts::work<&Smem::load_accumulate>(smem, row);  // a value, not a local
#elif defined(CASE_R_A6_PLAIN_ARGUMENT_OF_ANOTHER_TYPE)
#define CF_IN_LOAD ts::work<&Smem::load>(smem, Coord{});
#elif defined(CASE_R_A2_PRODUCER_WORK_RETURNS_A_VALUE)
#define CF_IN_LOAD ts::work<&Smem::load_counted>(smem, row);
#elif defined(CASE_R_D5_TRY_WAIT_ON_DST)
#define CF_IN_LOAD smem.try_wait();
#elif defined(CASE_R_D5_WAIT_ON_DST)
#define CF_IN_LOAD smem.wait();
#elif defined(CASE_R_D5_RELEASE_ON_DST)
#define CF_IN_LOAD smem.release();
#elif defined(CASE_R_D5_SKIP_ON_DST)
#define CF_IN_LOAD smem.skip();
#elif defined(CASE_R_D5_CONSUMER_WORK_ON_DST)
#define CF_IN_LOAD ts::work<&Smem::read>(smem);
#elif defined(CASE_R_D5_TRY_ACQUIRE_ON_SRC)
#define CF_IN_STORE smem.try_acquire();
#elif defined(CASE_R_D5_ACQUIRE_ON_SRC)
#define CF_IN_STORE smem.acquire();
#elif defined(CASE_R_D5_COMMIT_ON_SRC)
#define CF_IN_STORE smem.commit();
#elif defined(CASE_R_D5_PRODUCER_WORK_ON_SRC)
#define CF_IN_STORE ts::work<&Smem::load>(smem, 1);
#elif defined(CASE_R_A12_FOUR_BOUNDS)
#define CF_IN_LOAD ctx.domain_loop(0, 4, 1, 2, [&](auto&) {});
#elif defined(CASE_R_B2_NON_INTEGER_BOUND)
#define CF_IN_LOAD ctx.domain_loop(0, 4.0, [&](auto&) {});
#elif defined(CASE_R_B3_STATIC_STEP_ZERO)
#define CF_IN_LOAD ctx.domain_loop(ts::c<0>, ts::c<4>, ts::c<0>, [&](auto&) {});
#elif defined(CASE_R_B3_UNROLL_ZERO)
#define CF_IN_LOAD ctx.domain_loop(ts::c<4>, ts::unroll<0>, [&](auto&) {});
#elif defined(CASE_R_A10_TILE_LOOP_OVER_A_PLAIN_RESOURCE)
#define CF_IN_LOAD ctx.work_tile_loop(in, [&](auto&) {});  // In is no work queue
#elif defined(CASE_R_A10_TILE_LOOP_ARGUMENT_NOT_SKIP_IF)
#define CF_IN_LOAD ctx.work_tile_loop(in, 3, [&](auto&) {});
#elif defined(CASE_R_A11_SKIP_IF_OF_ANOTHER_RESOURCE)
#define CF_IN_LOAD ctx.work_tile_loop(in, ts::skip_if<&Smem::helper>, [&](auto&) {});
#elif defined(CASE_R_B5_SKIP_IF_OF_ANOTHER_SIGNATURE)
#define CF_IN_LOAD ctx.work_tile_loop(in, ts::skip_if<&In::coords>, [&](auto&) {});
#elif defined(CASE_R_A13_SKIPPABLE_WITHOUT_SKIP_IF)
#define CF_IN_LOAD ctx.work_tile_loop(in, [&](auto& tiles) { tiles.skippable([&] {}); });
#endif

#ifndef CF_IN_LOAD
#define CF_IN_LOAD
#endif
#ifndef CF_IN_STORE
#define CF_IN_STORE
#endif

// ---- Knobs the compile-time gate cases turn -----------------------------------------------------
#if defined(CASE_GATE_R_D15)
#define CF_CONSUMER_THREADS 64  // store's 4 warps release with 128 threads
#else
#define CF_CONSUMER_THREADS 128
#endif
#if defined(CASE_GATE_R_M1)
#define CF_STORE_TRIPS 6  // one stage fewer than the load task produces: its producer tail hangs
#else
#define CF_STORE_TRIPS 7
#endif
#if defined(CASE_GATE_R_W1)
#define CF_LOAD_WARP 3  // inside store's warps 0-3
#elif defined(CASE_GATE_R_W3)
#define CF_LOAD_WARP 8  // warps 4-7 hold no task: a gap the block would launch only to pad
#else
#define CF_LOAD_WARP 4
#endif
#if defined(CASE_GATE_R_D24)
// One thread of the store's 128 releases (an elect-one guard around a pipeline op): the count of
// releases depends on the thread index, and the stage's phase never completes.
#define CF_RELEASE(smem)                          \
  if (ctx.task_thread_idx() == 0) smem.release(); \
  static_assert(true)
#else
#define CF_RELEASE(smem) smem.release()
#endif

namespace cf {

namespace ts = warploom::ts;

struct Coord {
  int x = 0;
};

struct In {
  static constexpr ts::ResourceSpec spec{.name = "in"};
  int rows = 4;
  int coords(ts::Consume const& s) const { return s.loop_offset; }
  Coord tile(ts::Consume const&) const { return {}; }
};

#if defined(CASE_R_A5_ON_A_FINAL_RESOURCE)
#define CF_FINAL final
#else
#define CF_FINAL
#endif

struct Smem CF_FINAL {
  static constexpr ts::ResourceSpec spec{
      .name = "smem",
      .pipeline = ts::tma_async(2, 256, ts::threads(1), ts::threads(CF_CONSUMER_THREADS))};
  ts::SmemBuffer<short, 256> tiles;  // (STAGES*TILE)
  using smem_buffers = ts::buffers<&Smem::tiles>;

  void load(ts::Produce const&, int row) { (void)row; }
  short read(ts::Consume const& s) const { return static_cast<short>(s.stage_idx); }
  int helper(int x) const { return x; }  // a plain member, not a work
  void load_accumulate(ts::Produce const&, int& sum) { (void)sum; }

#if defined(CASE_R_A2_PRODUCER_WORK_RETURNS_A_VALUE)
  int load_counted(ts::Produce const&, int row) {
    return row;
  }
#elif defined(CASE_R_A5_TRY_ACQUIRE)
  void try_acquire(ts::Produce const&) {}
#elif defined(CASE_R_A5_ACQUIRE)
  void acquire(ts::Produce const&) {}
#elif defined(CASE_R_A5_COMMIT)
  void commit(ts::Produce const&) {}
#elif defined(CASE_R_A5_TRY_WAIT)
  void try_wait(ts::Consume const&) {}
#elif defined(CASE_R_A5_WAIT)
  void wait(ts::Consume const&) {}
#elif defined(CASE_R_A5_RELEASE)
  int release = 0;  // a data member with a reserved name counts too
#elif defined(CASE_R_A5_SKIP)
  void skip(ts::Consume const&) {}
#elif defined(CASE_R_A5_ON_A_FINAL_RESOURCE)
  void acquire(ts::Produce const&) {}
#endif
};

struct Out {
  static constexpr ts::ResourceSpec spec{.name = "out"};
  void store(ts::Produce const&, short v) { (void)v; }
};

struct LoadTask {
  static constexpr ts::TaskSpec spec{
      .name = "load", .warp_idx = CF_LOAD_WARP, .num_warps = 1, .num_registers = 40};
  using src = ts::list<In>;
  using dst = ts::list<Smem>;
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    // The same 7 iterations as the store task: with a run-time bound here the model checker
    // (rightly) reports the deadlock when the two loops disagree.
    ctx.domain_loop(ts::c<7>, [&](auto&) {
      auto row = ts::work<&In::coords>(in);
      smem.try_acquire();
      smem.acquire();
      ts::work<&Smem::load>(smem, row);
      CF_IN_LOAD
      smem.commit();
    });
  }
};

struct StoreTask {
  static constexpr ts::TaskSpec spec{
      .name = "store", .warp_idx = 0, .num_warps = 4, .num_registers = 232};
#if !defined(CASE_R_B1_NO_SRC_LIST)
  using src = ts::list<Smem>;
#endif
  using dst = ts::list<Out>;
#if defined(CASE_R_B1_WRONG_NUMBER_OF_HANDLES)
  static constexpr void schedule(auto& ctx, auto& smem) {  // `out` missing
    ctx.domain_loop(ts::c<7>, [&](auto&) { smem.wait(); });
  }
#elif !defined(CASE_R_B1_NO_SCHEDULE)
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<CF_STORE_TRIPS>, [&](auto&) {
      smem.try_wait();
      smem.wait();
      auto v = ts::work<&Smem::read>(smem);
      CF_IN_STORE
      CF_RELEASE(smem);
      ts::work<&Out::store>(out, v);
    });
  }
#endif
};

#if defined(CASE_GATE_R_D2)
// A second task in the load's warpgroup with another budget: warpgroup 1 gets two (40 and 48).
struct IdleTask {
  static constexpr ts::TaskSpec spec{
      .name = "idle", .warp_idx = 5, .num_warps = 1, .num_registers = 48};
  using src = ts::list<>;
  using dst = ts::list<>;
  static constexpr void schedule(auto&) {}
};
#define CF_MORE_TASKS , IdleTask
#else
#define CF_MORE_TASKS
#endif

// The TaskManager pads the load's warpgroup (warps 5-7 at 40 registers) itself.
using Manager = ts::TaskManager<ts::Tasks<LoadTask, StoreTask CF_MORE_TASKS>,
                                ts::Graph<ts::DependsOn<Smem, In>, ts::DependsOn<Out, Smem>>>;

// The compile-time gate, as TaskManager::setup_resources_and_tasks() applies it on the device.
static_assert(ts::verified_at_compile_time<Manager::traits>());

}  // namespace cf
