// warploom/ts/verify/warps.hpp
//
// Rules on warp ranges and registers: R-W1 disjoint ranges, R-W2 ranges inside the block, R-W3 no
// warpgroup left without a task below the highest task, R-B7 register values, R-D2 one budget per
// warpgroup (setmaxnreg is warpgroup-wide), R-D3 the budgets fit the register file. The padding
// the TaskManager derives for idle warps (derive_padding, model.hpp) is part of the model: it owns
// its warps (R-W1), carries its warpgroup's budget (R-D2) and holds registers (R-D3).
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/context.hpp"

namespace warploom::ts::verify {

constexpr void check_warp_ranges(ManagerModel const& m, Report& r) {
  r.checks_run += 2;
  int block = m.launch_warps();
  for (auto const& t : m.tasks) {
    auto const& s = t.spec;
    std::string_view name = s.name;
    if (s.num_warps < 1 || s.warp_idx < 0) {
      add(r, Rule::W2_WarpRange, name, "", "", [&] {
        return std::string("warp_idx " + to_str(s.warp_idx) + " / num_warps " +
                           to_str(s.num_warps) +
                           " is not a warp range; warp_idx must be >= 0 and num_warps >= 1");
      });
      continue;
    }
    int end = s.warp_idx + s.num_warps;
    if (end > block || end > kMaxWarpsPerBlock) {
      add(r, Rule::W2_WarpRange, name, "", "", [&] {
        return std::string(warp_range(s) + " reach past the block of " + to_str(block) +
                           " warps; launch more warps (ManagerOptions::block_warps, at most " +
                           to_str(kMaxWarpsPerBlock) + ") or move the task");
      });
    }
  }
  // R-W3: a warpgroup whose warps are all padding, below a task, is a gap in the warp numbering:
  // the block launches it only to idle there. (A block past 32 warps is R-W2's alone.)
  r.checks_run += 1;
  bool const in_block = !r.has(Rule::W2_WarpRange);
  for (int lo = 0; in_block && lo < block; lo += kWarpsPerWarpgroup) {
    int const hi = lo + kWarpsPerWarpgroup;
    bool holds_task = false;
    TaskSpec const* above = nullptr;
    for (auto const& t : m.tasks) {
      auto const& s = t.spec;
      if (t.padding || s.num_warps < 1 || s.warp_idx < 0) continue;
      if (s.warp_idx < hi && s.warp_idx + s.num_warps > lo) holds_task = true;
      if (s.warp_idx >= hi && (above == nullptr || s.warp_idx < above->warp_idx)) above = &s;
    }
    if (holds_task || above == nullptr) continue;
    add(r, Rule::W3_EmptyWarpgroup, above->name, "", "", [&] {
      return std::string("warpgroup " + to_str(lo / kWarpsPerWarpgroup) + " (warps " + to_str(lo) +
                         "-" + to_str(hi - 1) + ") holds no task, but this task runs above it on " +
                         warp_range(*above) +
                         "; the block would launch the warpgroup only to pad it (its threads "
                         "hold registers and exit): number the tasks' warps without the gap "
                         "(move this task and those above it down by " +
                         to_str(kWarpsPerWarpgroup) + " warps)");
    });
    break;
  }
  for (std::size_t i = 0; i < m.tasks.size(); ++i) {
    for (std::size_t j = i + 1; j < m.tasks.size(); ++j) {
      auto const& a = m.tasks[i].spec;
      auto const& b = m.tasks[j].spec;
      if (a.warp_idx < b.warp_idx + b.num_warps && b.warp_idx < a.warp_idx + a.num_warps) {
        add(r, Rule::W1_WarpOverlap, a.name, "", "", [&] {
          return std::string(warp_range(a) + " overlap task `" + std::string(b.name) + "` on " +
                             warp_range(b) + "; each warp runs exactly one task");
        });
      }
    }
  }
}

constexpr void check_registers(ManagerModel const& m, Report& r) {
  r.checks_run += 3;
  int block = m.launch_warps();
  int entry = entry_registers(block);
  long long used = 0;
  for (auto const& t : m.tasks) {
    auto const& s = t.spec;
    // Padding copies its warpgroup's budget: the task that set it is the one to name.
    if (!t.padding && s.num_registers != 0 &&
        (s.num_registers % 8 != 0 || s.num_registers < 24 || s.num_registers > 256)) {
      add(r, Rule::B7_RegisterValue, s.name, "", "", [&] {
        return std::string("num_registers = " + to_str(s.num_registers) +
                           " is not a setmaxnreg value; use a multiple of 8 in [24, 256]");
      });
    }
    // Padding without a budget executes no setmaxnreg and exits at once; it takes nothing from
    // the pool the tasks' setmaxnreg.inc draw on (and was never counted before it was derived).
    if (t.padding && s.num_registers == 0) continue;
    int regs = s.num_registers != 0 ? s.num_registers : entry;
    used += static_cast<long long>(s.num_warps) * kThreadsPerWarp * regs;
  }
  // R-D2: setmaxnreg acts on whole warpgroups. Derived padding takes the budget of its
  // warpgroup's first task, so what is left to find is two tasks that disagree, a task that sets
  // none next to one that does, and (in a hand-built model, which has no padding) an idle warp.
  for (int g = 0; g * kWarpsPerWarpgroup < block; ++g) {
    int lo = g * kWarpsPerWarpgroup, hi = lo + kWarpsPerWarpgroup;
    int budget = 0;
    std::string_view first;
    bool any = false;
    for (auto const& t : m.tasks) {
      auto const& s = t.spec;
      if (s.warp_idx >= hi || s.warp_idx + s.num_warps <= lo || s.num_registers == 0) continue;
      if (!any) {
        any = true;
        budget = s.num_registers;
        first = s.name;
      } else if (s.num_registers != budget) {
        add(r, Rule::D2_WarpGroupRegisters, s.name, "", "", [&] {
          return std::string("num_registers = " + to_str(s.num_registers) + " differs from task `" +
                             std::string(first) + "` (" + to_str(budget) + ") in warpgroup " +
                             to_str(g) + " (warps " + to_str(lo) + "-" + to_str(hi - 1) +
                             "); setmaxnreg is warpgroup-wide, so give both the same "
                             "budget or move one task to another warpgroup");
        });
      }
    }
    if (!any) continue;
    for (int w = lo; w < hi; ++w) {
      TaskSpec const* owner = nullptr;
      bool covered = false;
      for (auto const& t : m.tasks) {
        auto const& s = t.spec;
        if (w < s.warp_idx || w >= s.warp_idx + s.num_warps) continue;
        owner = &s;
        if (s.num_registers != 0) covered = true;
      }
      if (covered) continue;
      if (w >= block) {
        add(r, Rule::D2_WarpGroupRegisters, first, "", "", [&] {
          return std::string("sets num_registers = " + to_str(budget) + " in warpgroup " +
                             to_str(g) + " but the block of " + to_str(block) +
                             " warps ends at warp " + to_str(block - 1) +
                             "; a warpgroup that executes setmaxnreg is launched whole: make "
                             "ManagerOptions::block_warps a multiple of 4 (or 0 to derive it)");
        });
      } else if (owner != nullptr) {
        add(r, Rule::D2_WarpGroupRegisters, owner->name, "", "", [&] {
          return std::string("sets no num_registers on " + warp_range(*owner) + " but task `" +
                             std::string(first) + "` sets " + to_str(budget) + " in warpgroup " +
                             to_str(g) + " (warps " + to_str(lo) + "-" + to_str(hi - 1) +
                             "); setmaxnreg is warpgroup-wide, so give this task " +
                             to_str(budget) + " too or move it to another warpgroup");
        });
      } else {
        add(r, Rule::D2_WarpGroupRegisters, first, "", "", [&] {
          return std::string("sets num_registers = " + to_str(budget) + " in warpgroup " +
                             to_str(g) + " but warp " + to_str(w) +
                             " runs no task and no padding; a TaskManager pads idle warps "
                             "itself, a hand-built model needs ts::derive_padding");
        });
      }
      break;
    }
  }
  // setmaxnreg moves registers inside the CTA's pool: what the kernel was entered with, the
  // per-thread count under __launch_bounds__(threads, 1) times the threads.
  long long const pool = static_cast<long long>(entry) * block * kThreadsPerWarp;
  // Budgets of overlapping or out-of-block tasks mean nothing (R-W1 / R-W2 say why).
  bool const warps_valid = !r.has(Rule::W1_WarpOverlap) && !r.has(Rule::W2_WarpRange);
  if (warps_valid && used > pool) {
    add(r, Rule::D3_RegisterBudget, "", "", "", [&] {
      return "the tasks' register budgets need " + to_str(used) +
             " registers (sum of num_warps x 32 x num_registers, " + to_str(entry) +
             " per thread where unset) but the CTA's pool holds " + to_str(pool) + " (" +
             to_str(entry) + " x " + to_str(block * kThreadsPerWarp) +
             " threads at launch); setmaxnreg.inc would wait forever: lower some task's "
             "num_registers";
    });
  }
}

}  // namespace warploom::ts::verify
