// tests/cpu/ts/verify/bracketing_test.cpp — R-D10 work bracketing and R-D11 try-before-blocking
// (warploom/ts/verify/bracketing.hpp), judged on executions of the schedule: run-time loops
// running 0-3 times, compile-time loops their real count (capped at 3).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../fixtures.hpp"

namespace {

using namespace fixtures;
using ts::Rule;
using Ids = std::vector<std::string>;
using T = Tiles<>;

// The copy with the load task's schedule replaced by `LoadSchedule::schedule` (same warps,
// src and dst as Load<T>).
template <class LoadSchedule>
using WithLoad = CopyOf<T, LoadSchedule, Store<T>>;
template <class StoreSchedule>
using WithStore = CopyOf<T, Load<T>, StoreSchedule>;

// (The findings' `task` field is checked in R_D10_R_D11_FindingsNameTheirTask at the end.)

// ---- R-D10, producer side ----------------------------------------------------------------------

struct WorkBeforeAcquire : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      ts::work<&T::tma_load>(smem, row);
      smem.acquire();
      smem.commit();
    });
  }
};

TEST(Verify, R_D10_ProducerWorkBeforeAcquireIsRejected) {
  ts::Report r = verify_manager<WithLoad<WorkBeforeAcquire>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "tma_load");
  // Compile-time loops only: no run-time scenario in the message.
  EXPECT_EQ(v->message,
            "producer work outside acquire()..commit(); the stage it writes is not owned");
}

TEST(Verify, R_D10_ProducerWorkInsideAcquireCommitIsAccepted) {
  EXPECT_TRUE(verify_manager<WithLoad<Load<T>>>().ok());
}

struct CommitWithoutAcquire : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
      smem.commit();
      smem.commit();
    });
  }
};

TEST(Verify, R_D10_CommitWithoutAcquireIsRejected) {
  ts::Report r = verify_manager<WithLoad<CommitWithoutAcquire>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->op, "commit");
  EXPECT_EQ(v->message, "commit() without an acquired stage; call acquire() first");
}

struct AcquireNeverCommitted : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
    });
  }
};

TEST(Verify, R_D10_AcquireNeverCommittedIsRejected) {
  ts::Report r = verify_manager<WithLoad<AcquireNeverCommitted>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->op, "acquire");
  EXPECT_EQ(v->message, "an acquired stage is never committed by the task's end");
}

// One stage held across the loop: acquired in the first iteration, committed in the last.
template <bool kRuntimeLoop>
struct AcquireFirstCommitLast : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    auto body = [&](auto& loop) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      loop.first_iter([&] { smem.acquire(); });
      ts::work<&T::tma_load>(smem, row);
      loop.last_iter([&] { smem.commit(); });
    };
    if constexpr (kRuntimeLoop) {
      ctx.domain_loop(0, in->rows, body);
    } else {
      ctx.domain_loop(ts::c<10>, body);
    }
  }
};

TEST(Verify, R_D10_AcquireInFirstIterationCommitInLastIterationIsAccepted) {
  EXPECT_TRUE(verify_manager<WithLoad<AcquireFirstCommitLast<true>>>().ok());
  EXPECT_TRUE(verify_manager<WithLoad<AcquireFirstCommitLast<false>>>().ok());
}

// Acquire before the loop, commit inside it: right only when the loop runs exactly once.
template <bool kRuntimeLoop>
struct AcquireBeforeLoopCommitInside : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    smem.acquire();
    auto body = [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      ts::work<&T::tma_load>(smem, row);
      smem.commit();
    };
    if constexpr (kRuntimeLoop) {
      ctx.domain_loop(0, in->rows, 1, body);
    } else {
      ctx.domain_loop(ts::c<1>, body);
    }
  }
};

TEST(Verify, R_D10_BracketOpenedBeforeARunTimeLoopIsCaughtByTheZeroTripScenario) {
  ts::Report r = verify_manager<WithLoad<AcquireBeforeLoopCommitInside<true>>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->op, "acquire");
  EXPECT_EQ(v->message,
            "an acquired stage is never committed by the task's end (with run-time loops running 0 "
            "times)");
}

TEST(Verify, R_D10_SameBracketAroundAOneTripCompileTimeLoopIsAccepted) {
  EXPECT_TRUE(verify_manager<WithLoad<AcquireBeforeLoopCommitInside<false>>>().ok());
}

TEST(Verify, R_D10_AuxiliaryAndUnpipelinedWorkNeedNoBracket) {
  // Load<T> calls init_load_state (ProduceAux) and compute_coords (input_gmem has no pipeline)
  // outside any bracket.
  ts::ManagerModel m = CopyOf<T, Load<T>, Store<T>>::model();
  ASSERT_EQ(m.tasks[0].schedule.nodes[1].label, "init_load_state");
  EXPECT_FALSE(ts::verify_structure(m).has(Rule::D10_WorkBracketing));
}

// ---- R-D10, consumer side ----------------------------------------------------------------------

struct ReleaseWithoutWait : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      smem.release();
      smem.wait();
      auto v = ts::work<&T::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

TEST(Verify, R_D10_ReleaseWithoutWaitIsRejected) {
  ts::Report r = verify_manager<WithStore<ReleaseWithoutWait>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "release");
  EXPECT_EQ(v->message, "release() without a waited stage; call wait() first");
}

struct ReadAfterRelease : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      smem.wait();
      smem.release();
      auto v = ts::work<&T::read_smem>(smem);
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

TEST(Verify, R_D10_ConsumerWorkOutsideWaitReleaseIsRejected) {
  ts::Report r = verify_manager<WithStore<ReadAfterRelease>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->op, "read_smem");
  EXPECT_EQ(v->message, "consumer work outside wait()..release(); the stage it reads is not full");
}

struct WaitNeverReleased : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(0, 7, 1, [&](auto&) {
      smem.wait();
      ts::work<&OutputGmem::store>(out, ts::work<&T::read_smem>(smem));
    });
  }
};

TEST(Verify, R_D10_WaitNeverReleasedIsRejected) {
  ts::Report r = verify_manager<WithStore<WaitNeverReleased>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  ts::Violation const* v = first_of(r, Rule::D10_WorkBracketing);
  EXPECT_EQ(v->op, "wait");
  EXPECT_EQ(v->message,
            "a waited stage is never released by the task's end (with run-time loops running 1 "
            "time)");
}

TEST(Verify, R_D10_ConsumerWorkInsideWaitReleaseIsAccepted) {
  EXPECT_TRUE(verify_manager<WithStore<Store<T>>>().ok());
}

struct FourAcquiresNeverCommitted : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<4>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
    });
  }
};

TEST(Verify, R_D10_OpenStageAtTheEndIsReportedWithoutACount) {
  // The executions cap loops at 3 iterations, so the message states the fact, not a count.
  ts::Report r = verify_manager<WithLoad<FourAcquiresNeverCommitted>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D10"});
  EXPECT_EQ(r.violations[0].message, "an acquired stage is never committed by the task's end");
}

// ---- R-D11
// -----------------------------------------------------------------------------------------

struct TryAcquireTwice : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.try_acquire();
      smem.try_acquire();
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
      smem.commit();
    });
  }
};

TEST(Verify, R_D11_SecondTryAcquireBeforeAcquireIsRejected) {
  ts::Report r = verify_manager<WithLoad<TryAcquireTwice>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  ts::Violation const* v = first_of(r, Rule::D11_TryBeforeBlocking);
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "try_acquire");
  EXPECT_EQ(v->message, "a second try_acquire before the first was followed by acquire()");
}

struct TryAcquireThenCommit : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
      smem.try_acquire();
      smem.commit();
    });
  }
};

TEST(Verify, R_D11_TryAcquireFollowedByCommitIsRejected) {
  ts::Report r = verify_manager<WithLoad<TryAcquireThenCommit>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  EXPECT_EQ(r.violations[0].message, "try_acquire is not followed by acquire() before commit()");
}

// Prefetches the next stage at the end of each iteration: the last prefetch has no acquire.
struct TryAcquireAtTheEnd : Load<T> {
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      auto row = ts::work<&InputGmem::compute_coords>(in);
      smem.acquire();
      ts::work<&T::tma_load>(smem, row);
      smem.commit();
      smem.try_acquire();
    });
  }
};

TEST(Verify, R_D11_TryAcquireNeverFollowedIsRejected) {
  ts::Report r = verify_manager<WithLoad<TryAcquireAtTheEnd>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  EXPECT_EQ(r.violations[0].message, "try_acquire is never followed by acquire()");
}

struct TryWaitTwice : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      smem.try_wait();
      smem.try_wait();
      smem.wait();
      auto v = ts::work<&T::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

TEST(Verify, R_D11_SecondTryWaitBeforeWaitIsRejected) {
  ts::Report r = verify_manager<WithStore<TryWaitTwice>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  ts::Violation const* v = first_of(r, Rule::D11_TryBeforeBlocking);
  EXPECT_EQ(v->resource, "smem");
  EXPECT_EQ(v->op, "try_wait");
  EXPECT_EQ(v->message, "a second try_wait before the first was followed by wait()");
}

struct TryWaitThenRelease : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      smem.wait();
      auto v = ts::work<&T::read_smem>(smem);
      smem.try_wait();
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
    });
  }
};

TEST(Verify, R_D11_TryWaitFollowedByReleaseIsRejected) {
  ts::Report r = verify_manager<WithStore<TryWaitThenRelease>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  EXPECT_EQ(r.violations[0].message, "try_wait is not followed by wait() before release()");
}

struct TryWaitAtTheEnd : Store<T> {
  static constexpr void schedule(auto& ctx, auto& smem, auto& out) {
    ctx.domain_loop(ts::c<2>, [&](auto&) {
      smem.wait();
      auto v = ts::work<&T::read_smem>(smem);
      smem.release();
      ts::work<&OutputGmem::store>(out, v);
      smem.try_wait();
    });
  }
};

TEST(Verify, R_D11_TryWaitNeverFollowedIsRejected) {
  ts::Report r = verify_manager<WithStore<TryWaitAtTheEnd>>();
  ASSERT_EQ(rule_ids(r), Ids{"R-D11"});
  EXPECT_EQ(r.violations[0].message, "try_wait is never followed by wait()");
}

TEST(Verify, R_D11_TryFollowedByItsBlockingOpIsAccepted) {
  // Load<T> and Store<T> pair try_acquire/acquire and try_wait/wait in every iteration.
  using M = CopyOf<T, Load<T>, Store<T>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

TEST(Verify, R_D11_BlockingOpsWithoutTryAreAccepted) {
  using R = Ring<>;
  using M = ts::TaskManager<ts::Tasks<RingWriter<R>, RingReader<R>>, RingGraph<R>>;
  EXPECT_TRUE(verify_manager<M>().ok());
}

// ---- Task names in findings --------------------------------------------------------------------

// Every finding names its task.
TEST(Verify, R_D10_R_D11_FindingsNameTheirTask) {
  ts::Report producer = verify_manager<WithLoad<WorkBeforeAcquire>>();
  ASSERT_EQ(rule_ids(producer), Ids{"R-D10"});
  EXPECT_EQ(producer.violations[0].task, "load");
  ts::Report consumer = verify_manager<WithStore<ReleaseWithoutWait>>();
  ASSERT_EQ(rule_ids(consumer), Ids{"R-D10"});
  EXPECT_EQ(consumer.violations[0].task, "store");
  ts::Report try_op = verify_manager<WithLoad<TryAcquireTwice>>();
  ASSERT_EQ(rule_ids(try_op), Ids{"R-D11"});
  EXPECT_EQ(ts::format(try_op.violations[0]),
            "R-D11 task `load` resource `smem` op `try_acquire`: a second try_acquire before the "
            "first was followed by acquire()");
}

}  // namespace
