// warploom/ts/smem_layout.hpp
//
// The shared-memory allocator: packs every resource's buffers and every pipeline's barriers into
// the one dynamic shared-memory block of the kernel. Layout, like the rest of TS, is a constant
// expression: the device code binds buffers at compile-time offsets.
//
// Order: buffers by decreasing alignment (declaration order among equals), alias groups as single
// regions sized by their largest phase, then the barrier region: per pipelined resource
// `num_stages` full barriers followed by `num_stages` empty barriers, 8 bytes each.
#pragma once

#include <string_view>
#include <vector>

#include "warploom/ts/model.hpp"

namespace warploom::ts {

struct SmemPlacement {
  std::string_view name;
  int resource = -1;
  long long offset = 0;
  long long bytes = 0;
  int alignment = 0;
  bool barriers = false;  // the pipeline barriers of `resource`
  int alias_group = -1;
};

struct SmemLayout {
  std::vector<SmemPlacement> placements;
  long long data_bytes = 0;     // buffers, including alignment padding
  long long barrier_bytes = 0;  // pipeline barriers
  long long total_bytes = 0;    // what the kernel must be launched with
  int base_alignment = 8;       // alignment the block's base must have

  constexpr SmemPlacement const* find(int resource, std::string_view name) const {
    for (auto const& p : placements)
      if (p.resource == resource && p.name == name && !p.barriers) return &p;
    return nullptr;
  }
  constexpr SmemPlacement const* barriers_of(int resource) const {
    for (auto const& p : placements)
      if (p.resource == resource && p.barriers) return &p;
    return nullptr;
  }
};

inline constexpr int kMbarrierBytes = 8;

namespace detail {
constexpr long long align_up(long long x, long long a) {
  return (x + a - 1) / a * a;
}
}  // namespace detail

constexpr SmemLayout layout_smem(ManagerModel const& m) {
  SmemLayout out;
  // A region is one buffer, or one alias group.
  struct Region {
    int first_request = 0;
    int alias_group = -1;
    int alignment = 1;
  };
  std::vector<Region> regions;
  for (int i = 0; i < static_cast<int>(m.smem.size()); ++i) {
    auto const& r = m.smem[i];
    bool seen = false;
    for (auto& g : regions) {
      if (r.alias_group >= 0 && g.alias_group == r.alias_group) {
        g.alignment = g.alignment > r.alignment ? g.alignment : r.alignment;
        seen = true;
      }
    }
    if (!seen) regions.push_back({i, r.alias_group, r.alignment});
  }
  // Stable sort by decreasing alignment (insertion sort: constexpr and tiny inputs).
  for (int i = 1; i < static_cast<int>(regions.size()); ++i) {
    Region key = regions[i];
    int j = i - 1;
    while (j >= 0 && regions[j].alignment < key.alignment) {
      regions[j + 1] = regions[j];
      --j;
    }
    regions[j + 1] = key;
  }
  long long cursor = 0;
  for (auto const& g : regions) {
    cursor = detail::align_up(cursor, g.alignment);
    out.base_alignment = out.base_alignment > g.alignment ? out.base_alignment : g.alignment;
    if (g.alias_group < 0) {
      auto const& r = m.smem[g.first_request];
      out.placements.push_back({r.name, r.resource, cursor, r.bytes, r.alignment, false, -1});
      cursor += r.bytes;
      continue;
    }
    long long region_bytes = 0;
    int max_phase = 0;
    for (auto const& r : m.smem)
      if (r.alias_group == g.alias_group && r.alias_phase > max_phase) max_phase = r.alias_phase;
    for (int phase = 0; phase <= max_phase; ++phase) {
      long long off = 0;
      for (auto const& r : m.smem) {
        if (r.alias_group != g.alias_group || r.alias_phase != phase) continue;
        off = detail::align_up(off, r.alignment);
        out.placements.push_back(
            {r.name, r.resource, cursor + off, r.bytes, r.alignment, false, g.alias_group});
        off += r.bytes;
      }
      region_bytes = region_bytes > off ? region_bytes : off;
    }
    cursor += region_bytes;
  }
  out.data_bytes = cursor;
  cursor = detail::align_up(cursor, kMbarrierBytes);
  long long barrier_start = cursor;
  for (int i = 0; i < static_cast<int>(m.resources.size()); ++i) {
    auto const& p = m.resources[i].pipeline;
    if (!p.enabled()) continue;
    long long bytes = 2LL * p.num_stages * kMbarrierBytes;
    out.placements.push_back({m.resources[i].name, i, cursor, bytes, kMbarrierBytes, true, -1});
    cursor += bytes;
  }
  out.barrier_bytes = cursor - barrier_start;
  out.total_bytes = cursor;
  return out;
}

}  // namespace warploom::ts
