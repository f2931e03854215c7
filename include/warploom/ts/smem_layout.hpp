// warploom/ts/smem_layout.hpp
//
// The shared-memory allocator: packs every resource's buffers and every pipeline's barriers into
// the one dynamic shared-memory block of the kernel. Layout, like the rest of TS, is a constant
// expression: the device code binds buffers at compile-time offsets.
//
// Order: buffers by decreasing alignment (declaration order among equals), alias groups as single
// regions sized by their largest phase, then the barrier region: per pipelined resource
// `num_stages` full barriers followed by `num_stages` empty barriers, 8 bytes each. A pipeline
// group's members share one side with their group (pipeline_group.hpp), which holds that side's
// array once: a ts::Merge its shared empty barriers and each member its own full ones, a ts::Fork
// its shared full barriers and each member its own empty ones.
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

// Where a pipelined resource's two barrier arrays start (byte offsets in the block; -1: it has
// none). A group's member points at its group's array for the shared side. The resource's own
// barrier placement holds the arrays it owns, full first (a group and its members own one each).
struct BarrierArrays {
  long long full = -1, empty = -1;
  bool owns_full = false, owns_empty = false;  // which of them this resource initialises
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
  // Indexed by resource: the arrays its pipeline uses, after the sharing of pipeline groups.
  std::vector<BarrierArrays> barrier_arrays;
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
  int const num_resources = static_cast<int>(m.resources.size());
  out.barrier_arrays.assign(static_cast<std::size_t>(num_resources), BarrierArrays{});
  for (int i = 0; i < num_resources; ++i) {
    auto const& p = m.resources[i].pipeline;
    if (!p.enabled()) continue;
    GroupMode const mode = m.resources[i].group_mode;
    BarrierArrays& own = out.barrier_arrays[static_cast<std::size_t>(i)];
    own.owns_full = full_owner(m, i) == i && mode != GroupMode::Merge;
    own.owns_empty = empty_owner(m, i) == i && mode != GroupMode::Fork;
    long long const array_bytes = 1LL * p.num_stages * kMbarrierBytes;
    if (own.owns_full) own.full = cursor;
    if (own.owns_empty) own.empty = cursor + (own.owns_full ? array_bytes : 0);
    long long const bytes = array_bytes * ((own.owns_full ? 1 : 0) + (own.owns_empty ? 1 : 0));
    out.placements.push_back({m.resources[i].name, i, cursor, bytes, kMbarrierBytes, true, -1});
    cursor += bytes;
  }
  // A member's shared side is its group's array.
  for (int i = 0; i < num_resources; ++i) {
    BarrierArrays& arrays = out.barrier_arrays[static_cast<std::size_t>(i)];
    if (!arrays.owns_full && full_owner(m, i) != i)
      arrays.full = out.barrier_arrays[static_cast<std::size_t>(full_owner(m, i))].full;
    if (!arrays.owns_empty && empty_owner(m, i) != i)
      arrays.empty = out.barrier_arrays[static_cast<std::size_t>(empty_owner(m, i))].empty;
  }
  out.barrier_bytes = cursor - barrier_start;
  out.total_bytes = cursor;
  return out;
}

}  // namespace warploom::ts
