// warploom/ts/verify/smem.hpp
//
// R-D21: everything the allocator places (buffers, alignment padding, pipeline barriers) must fit
// the shared memory a block may opt into (227 KiB on Hopper).
// R-D16: a TMA pipeline's transaction bytes per stage must be what one stage of its buffers holds:
// the full barrier completes when that many bytes have landed, so a smaller count releases the
// consumer before the copy finished and a larger one never completes (a hang).
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
    if (buffer_bytes == 0) continue;  // no declared buffers: nothing to compare with
    if (buffer_bytes % p.num_stages != 0 || buffer_bytes / p.num_stages != p.num_bytes) {
      add(r, Rule::D16_TmaBytes, "", resource_name(m, res), "num_bytes", [&] {
        return "the pipeline expects " + to_str(p.num_bytes) +
               " TMA bytes per stage but one of its " + to_str(p.num_stages) + " stages holds " +
               to_str(buffer_bytes / p.num_stages) + " bytes (" + to_str(buffer_bytes) +
               " in its buffers); make num_bytes the stage's tile size";
      });
    }
  }
}

}  // namespace warploom::ts::verify
