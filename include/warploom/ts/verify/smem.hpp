// warploom/ts/verify/smem.hpp
//
// R-D21: everything the allocator places (buffers, alignment padding, pipeline barriers) must fit
// the shared memory a block may opt into (227 KiB on Hopper).
// R-D16: the TMA bytes armed per stage (num_bytes by each producing warp) must be what one stage of
// the resource's buffers holds: the full barrier completes when that many bytes have landed, so a
// smaller count releases the consumer before the copy finished and a larger one never completes.
#pragma once

#include "warploom/ts/smem_layout.hpp"
#include "warploom/ts/verify/context.hpp"

namespace warploom::ts::verify {

constexpr void check_smem_capacity(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  SmemLayout l = layout_smem(m);
  if (l.total_bytes > m.smem_capacity) {
    add(r, Rule::D21_SmemCapacity, "", "", "", [&] {
      std::string largest;
      long long largest_bytes = -1;
      for (auto const& p : l.placements) {
        if (p.bytes > largest_bytes) {
          largest_bytes = p.bytes;
          largest = std::string(resource_name(m, p.resource)) + "." + std::string(p.name);
        }
      }
      return std::string("the layout needs " + to_str(l.total_bytes) +
                         " bytes of shared memory (buffers " + to_str(l.data_bytes) +
                         ", barriers " + to_str(l.barrier_bytes) + ") but a block can have " +
                         to_str(m.smem_capacity) + "; the largest buffer is `" + largest + "` (" +
                         to_str(largest_bytes) + " bytes): use fewer stages or smaller tiles");
    });
  }
}

constexpr void check_tma_bytes(ManagerModel const& m, Report& r) {
  r.checks_run += 1;
  for (int res = 0; res < static_cast<int>(m.resources.size()); ++res) {
    auto const& p = m.resources[res].pipeline;
    if (!p.tma_producer() || p.num_stages < 1) continue;
    long long buffer_bytes = 0;
    for (auto const& q : m.smem)
      if (q.resource == res) buffer_bytes += q.bytes;
    // Every warp of every task that acquires a stage arms num_bytes on its full barrier.
    int producer_warps = 0;
    for (auto const& t : m.tasks) {
      bool acquires = false;
      for (auto const& n : t.schedule.nodes)
        acquires =
            acquires || (n.kind == NodeKind::Op && n.op == OpKind::Acquire && n.resource == res);
      if (acquires) producer_warps += t.spec.num_warps;
    }
    if (buffer_bytes == 0 || producer_warps == 0) continue;  // nothing to compare
    long long const stage_bytes = buffer_bytes / p.num_stages;
    long long const armed = static_cast<long long>(p.num_bytes) * producer_warps;
    if (buffer_bytes % p.num_stages != 0 || armed != stage_bytes) {
      add(r, Rule::D16_TmaBytes, "", resource_name(m, res), "num_bytes", [&] {
        return "the producing warps (" + to_str(producer_warps) + ") each arm " +
               to_str(p.num_bytes) + " TMA bytes per stage, " + to_str(armed) +
               " in all, but one of the " + to_str(p.num_stages) + " stages holds " +
               to_str(stage_bytes) + " bytes; the full barrier " +
               (armed > stage_bytes ? "never completes (a hang)"
                                    : "completes before the stage is written (a race)") +
               ": make num_bytes the bytes each producing warp's copies write";
      });
    }
  }
}

}  // namespace warploom::ts::verify
