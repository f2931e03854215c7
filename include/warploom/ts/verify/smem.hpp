// warploom/ts/verify/smem.hpp
//
// R-D21: everything the allocator places (buffers, alignment padding, pipeline barriers) must fit
// the shared memory a block may opt into (227 KiB on Hopper).
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

}  // namespace warploom::ts::verify
