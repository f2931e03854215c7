// tests/cpu/ts/print_test.cpp — the schedule table (warploom/ts/print.hpp, src/ts/print.cpp):
// resources, graph, tasks with warps and registers, each schedule in order with its data-flow
// values, the shared-memory layout and the verifier's verdict.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "model_builder.hpp"
#include "warploom/ts/print.hpp"

namespace {

using namespace fixtures;
using T = Tiles<>;

// The table's lines with runs of inner spaces squashed to one (column widths are layout, not
// content) and the leading indentation kept (it shows the schedule's nesting).
std::vector<std::string> lines(std::string const& table) {
  std::vector<std::string> out;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) indent = line.size();
    std::string squashed = line.substr(0, indent);
    for (std::size_t i = indent; i < line.size(); ++i)
      if (line[i] != ' ' || (i + 1 < line.size() && line[i + 1] != ' ')) squashed += line[i];
    out.push_back(squashed);
  }
  return out;
}

// Index of the line equal to `want`, or -1.
int find_line(std::vector<std::string> const& ls, std::string const& want) {
  for (int i = 0; i < static_cast<int>(ls.size()); ++i)
    if (ls[i] == want) return i;
  return -1;
}

// Expects each of `want` as a line, in this order, each right after the previous one.
void expect_block(std::vector<std::string> const& ls, std::vector<std::string> const& want) {
  int at = find_line(ls, want.at(0));
  ASSERT_GE(at, 0) << "missing line: " << want[0];
  for (std::size_t i = 1; i < want.size(); ++i) {
    ASSERT_LT(at + static_cast<int>(i), static_cast<int>(ls.size()));
    EXPECT_EQ(ls[at + i], want[i]);
  }
}

class PrintCopy : public ::testing::Test {
 protected:
  ts::ManagerModel model = CopyManager::model("copy");
  ts::Report report = ts::verify_structure(model);
  std::vector<std::string> table = lines(ts::schedule_table(model, &report));
};

TEST_F(PrintCopy, HeaderNamesTheManagerAndItsLaunchShape) {
  EXPECT_EQ(table.at(0),
            "TaskManager copy: 3 tasks, 3 resources, 8 warps (256 threads), smem 544 B");
}

TEST_F(PrintCopy, ResourcesWithTheirPipelines) {
  expect_block(table, {"resources", "  input_gmem no pipeline",
                       "  smem tma_async stages 2 bytes/stage 256 producer threads(1) consumer "
                       "threads(128)",
                       "  output_gmem no pipeline"});
}

TEST_F(PrintCopy, DependencyGraphEdges) {
  expect_block(table, {"dependency graph", "  smem <- input_gmem", "  output_gmem <- smem"});
}

TEST_F(PrintCopy, TasksWithWarpRangesRegistersResourcesAndBarriers) {
  expect_block(table, {"tasks", "  load warp 4 regs 40 src input_gmem dst smem",
                       "  store warps 0-3 regs 160 src smem dst output_gmem barrier 1",
                       "  padding warps 5-7 regs 40 src - dst -"});
}

TEST_F(PrintCopy, SchedulesListOpsInOrderWithDataFlowValues) {
  expect_block(table,
               {"schedule load", "  smem.init_load_state() [producer aux]",
                "  for [dyn, dyn) step dyn", "    %3 = input_gmem.compute_coords() [consumer]",
                "    smem.try_acquire()", "    smem.acquire()", "    smem.tma_load(%3) [producer]",
                "    smem.commit()", "schedule store", "  for [dyn, dyn) step dyn",
                "    smem.try_wait()", "    smem.wait()", "    %4 = smem.read_smem() [consumer]",
                "    smem.release()", "    output_gmem.store(%4) [producer]", "shared memory"});
  // The padding task's empty schedule is not listed.
  EXPECT_EQ(find_line(table, "schedule padding"), -1);
}

TEST_F(PrintCopy, SharedMemoryLayoutAndVerdict) {
  expect_block(table, {"shared memory", "  offset 0 bytes 512 align 128 smem.tiles",
                       "  offset 512 bytes 32 align 8 smem.barriers (full x2, empty x2)",
                       "  total 544 B of 232448 B", "verdict: ok (26 checks)"});
  EXPECT_EQ(table.back(), "verdict: ok (26 checks)");
}

TEST_F(PrintCopy, NoReportNoVerdict) {
  std::vector<std::string> plain = lines(ts::schedule_table(model));
  EXPECT_EQ(plain.back(), "  total 544 B of 232448 B");
  EXPECT_EQ(plain.size() + 1, table.size());
}

TEST(Print, FailingReportListsEachViolationWithItsRule) {
  using M = ts::TaskManager<ts::Tasks<Load<T, 3>, Store<T, 0, 4, 42>>,
                            ts::Graph<ts::DependsOn<T, InputGmem>>>;
  ts::ManagerModel m = M::model("broken");
  ts::Report r = ts::verify_structure(m);
  std::string text = ts::schedule_table(m, &r);
  std::vector<std::string> ls = lines(text);
  expect_block(ls, {"verdict: 3 violation(s)",
                    "  R-W1 task `load`: warp 3 overlap task `store` on warps 0-3; each warp runs "
                    "exactly one task",
                    "  R-B7 task `store`: num_registers = 42 is not a setmaxnreg value; use a "
                    "multiple of 8 in [24, 256]",
                    "  R-D8 task `store` resource `output_gmem`: is used by the task but missing "
                    "from the dependency graph; add an edge (or ts::DependsOn<output_gmem> with no "
                    "upstreams)"});
  EXPECT_EQ(ls.at(0),
            "TaskManager broken: 2 tasks, 3 resources, 4 warps (128 threads), smem 544 B");
  // Every finding is one line of the table, verbatim.
  for (auto const& v : r.violations)
    EXPECT_NE(text.find("  " + ts::format(v) + "\n"), std::string::npos) << ts::format(v);
}

// ---- Loops, blocks and locals
// ----------------------------------------------------------------------

struct Showcase : Load<T> {
  static constexpr ts::TaskSpec spec{.name = "load", .warp_idx = 0};  // alone: warp 0 (R-W3)
  static constexpr void schedule(auto& ctx, auto& in, auto& smem) {
    auto row = ctx.local(0);                                                        // %1
    ctx.domain_loop(ts::c<0>, ts::c<4>, ts::c<1>, ts::unroll<2>, [&](auto& loop) {  // %2
      row = ts::work<&InputGmem::compute_coords>(in);                               // %3 -> %1
      loop.first_iter([&] { smem.acquire(); });                                     // %4, %5
      ts::work<&T::tma_load>(smem, row);                                            // %6
      loop.last_iter([&] { smem.commit(); });                                       // %7, %8
    });
    ctx.domain_loop(ts::c<8>, ts::c<0>, ts::c<-2>, [&](auto&) {});  // %9
  }
};

TEST(Print, StaticLoopsBlocksAndLocals) {
  using M = ts::TaskManager<ts::Tasks<Showcase>, ts::Graph<ts::DependsOn<T, InputGmem>>>;
  ts::ManagerModel m = M::model();
  ts::Report r = ts::verify_structure(m);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> ls = lines(ts::schedule_table(m, &r));
  expect_block(ls, {"schedule load", "  %1 = local(default)", "  for [0, 4) step 1 unroll 2",
                    "    %3 = input_gmem.compute_coords() -> %1 [consumer]",
                    "    first iteration of %2:", "      smem.acquire()",
                    "    smem.tma_load(%3) [producer]", "    last iteration of %2:",
                    "      smem.commit()", "  for [8, 0) step -2", "shared memory"});
}

TEST(Print, ResourceKindsAndUnknownResources) {
  ModelBuilder b;
  int done = b.resource("done", ts::no_pipeline, ts::ResourceKind::Barrier);
  int queue = b.resource("tiles", ts::no_pipeline, ts::ResourceKind::WorkQueue);
  int previous = b.resource("pdl_wait", ts::no_pipeline, ts::ResourceKind::PdlWait);
  int next = b.resource("pdl_launch", ts::no_pipeline, ts::ResourceKind::PdlLaunch);
  ScheduleBuilder s;
  s.work(0, ts::Role::Consumer, previous, "wait_griddep");
  s.work(0, ts::Role::Consumer, queue, "next_tile");
  s.work(0, ts::Role::Producer, 7, "stray");  // a resource index outside the table
  s.work(0, ts::Role::Producer, next, "launch_griddep");
  b.task("persistent", 0, 4, {queue, previous}, {done, next}, s.s);
  b.m.name = "kinds";
  std::vector<std::string> ls = lines(ts::schedule_table(b.m));
  expect_block(ls, {"resources", "  done no pipeline (barrier)", "  tiles no pipeline (work queue)",
                    "  pdl_wait no pipeline (PDL wait)", "  pdl_launch no pipeline (PDL launch)",
                    "dependency graph", "tasks",
                    "  persistent warps 0-3 regs - src tiles,pdl_wait dst done,pdl_launch",
                    "schedule persistent", "  pdl_wait.wait_griddep() [consumer]",
                    "  tiles.next_tile() [consumer]", "  <undeclared resource>.stray() [producer]",
                    "  pdl_launch.launch_griddep() [producer]"});
}

}  // namespace
