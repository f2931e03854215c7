// src/ts/print.cpp
//
// Renders the schedule table declared in warploom/ts/print.hpp.

#include "warploom/ts/print.hpp"

#include <string>

#include <fmt/format.h>

#include "warploom/ts/model.hpp"
#include "warploom/ts/smem_layout.hpp"
#include "warploom/ts/verify/context.hpp"
#include "warploom/ts/verify/diagnostic.hpp"
#include "warploom/ts/verify/verify.hpp"

namespace warploom::ts {

namespace {

// A loop bound: its value, a work's result (%node: a domain read from the data) or "dyn".
std::string bound_text(Bound b) {
  if (b.is_static) return std::to_string(b.value);
  return b.source >= 0 ? fmt::format("%{}", b.source) : "dyn";
}

std::string role_text(Role r) {
  switch (r) {
    case Role::Producer:
      return "[producer]";
    case Role::Consumer:
      return "[consumer]";
    case Role::ProducerAux:
      return "[producer aux]";
    case Role::ConsumerAux:
      return "[consumer aux]";
    case Role::ConsumerInPlace:
      return "[consumer in place]";
  }
  return "";
}

std::string group_text(CooperativeGroup g) {
  return fmt::format("{}({})", g.agent == Agent::Thread ? "threads" : "warps", g.size);
}

std::string names(ManagerModel const& m, std::vector<int> const& ids) {
  std::string s;
  for (int id : ids) {
    if (!s.empty()) s += ',';
    s += verify::resource_name(m, id);
  }
  return s.empty() ? "-" : s;
}

void print_node(ManagerModel const& m, Schedule const& s, int id, int depth, std::string& out) {
  Node const& n = s.nodes[id];
  std::string indent(2 * depth, ' ');
  auto value_of = [&](int node) {
    if (node < 0) return std::string("?");
    return fmt::format("%{}", node);
  };
  switch (n.kind) {
    case NodeKind::Root:
      break;
    case NodeKind::Local: {
      out += fmt::format("{}{} = local(default)\n", indent, value_of(id));
      break;
    }
    case NodeKind::Loop: {
      if (is_tile_loop(n)) {
        std::string skip =
            n.skip_if >= 0 ? fmt::format(" skip_if {}", verify::resource_name(m, n.skip_if)) : "";
        out += fmt::format("{}for each tile of {}{}\n", indent, verify::resource_name(m, n.queue),
                           skip);
        break;
      }
      std::string unroll = n.unroll > 0 ? fmt::format(" unroll {}", n.unroll) : "";
      out += fmt::format("{}for [{}, {}) step {}{}\n", indent, bound_text(n.start),
                         bound_text(n.end), bound_text(n.step), unroll);
      break;
    }
    case NodeKind::FirstIter:
      out += fmt::format("{}first iteration of %{}:\n", indent, n.loop);
      break;
    case NodeKind::LastIter:
      out += fmt::format("{}last iteration of %{}:\n", indent, n.loop);
      break;
    case NodeKind::NotFirstIter:
      out += fmt::format("{}every iteration of %{} but the first:\n", indent, n.loop);
      break;
    case NodeKind::NotLastIter:
      if (n.tile >= 0) {
        out += fmt::format("{}if {} is a valid tile:\n", indent, value_of(n.tile));
        break;
      }
      out += fmt::format("{}every iteration of %{} but the last:\n", indent, n.loop);
      break;
    case NodeKind::Skippable:
      out += fmt::format("{}unless the tile is skipped:\n", indent);
      break;
    case NodeKind::Op: {
      std::string res(verify::resource_name(m, n.resource));
      std::string text;
      if (n.op == OpKind::Work) {
        std::string args;
        std::string result;
        for (auto const& e : s.edges) {
          if (e.to == id && e.arg >= 0) {
            if (!args.empty()) args += ", ";
            args += value_of(e.from);
          }
          if (e.from == id && e.arg < 0) result = fmt::format(" -> %{}", e.to);
        }
        bool returns = false;
        for (auto const& e : s.edges)
          if (e.from == id) returns = true;
        for (auto const& other : s.nodes)  // a tile if_valid tests, a loop bound
          if (other.tile == id || other.start.source == id || other.end.source == id ||
              other.step.source == id)
            returns = true;
        std::string lhs = returns ? value_of(id) + " = " : "";
        text = fmt::format("{}{}.{}({}){}", lhs, res, n.label, args, result);
        out += fmt::format("{}{:<{}} {}\n", indent, text, 44 - static_cast<int>(indent.size()),
                           role_text(n.role));
      } else if (n.op == OpKind::AsyncWait) {
        out += fmt::format("{}{}<{}>()\n", indent, n.label, n.keep);
      } else {
        out += fmt::format("{}{}.{}()\n", indent, res, to_string(n.op));
      }
      break;
    }
  }
  for (int c : n.children) print_node(m, s, c, n.kind == NodeKind::Root ? depth : depth + 1, out);
}

}  // namespace

std::string schedule_table(ManagerModel const& m, Report const* report) {
  std::string out;
  SmemLayout l = layout_smem(m);
  int warps = m.launch_warps();
  out += fmt::format("TaskManager {}: {} tasks, {} resources, {} warps ({} threads), smem {} B\n",
                     m.name, m.tasks.size(), m.resources.size(), warps, warps * kThreadsPerWarp,
                     l.total_bytes);
  out += "resources\n";
  for (int i = 0; i < static_cast<int>(m.resources.size()); ++i) {
    auto const& r = m.resources[i];
    auto const& p = r.pipeline;
    std::string kind = r.kind == ResourceKind::Barrier     ? " (barrier)"
                       : r.kind == ResourceKind::WorkQueue ? " (work queue)"
                       : r.kind == ResourceKind::PdlWait   ? " (PDL wait)"
                       : r.kind == ResourceKind::PdlLaunch ? " (PDL launch)"
                       : r.group_mode == GroupMode::Merge  ? " (merge group)"
                       : r.group_mode == GroupMode::Fork   ? " (fork group)"
                                                           : "";
    if (r.group >= 0) kind += fmt::format(" (in group {})", m.resources[r.group].name);
    if (p.enabled()) {
      out += fmt::format(
          "  {:<16} {:<12} stages {:<2} bytes/stage {:<6} producer {:<12} consumer {}{}\n", r.name,
          to_string(p.kind), p.num_stages, p.num_bytes, group_text(p.producer),
          group_text(p.consumer), kind);
    } else {
      out += fmt::format("  {:<16} no pipeline{}\n", r.name, kind);
    }
  }
  out += "dependency graph\n";
  for (auto const& e : m.graph)
    out += fmt::format(
        "  {} <- {}\n", verify::resource_name(m, e.downstream),
        e.upstream < 0 ? std::string_view("(nothing)") : verify::resource_name(m, e.upstream));
  out += "tasks\n";
  for (auto const& t : m.tasks) {
    std::string regs = t.spec.num_registers ? std::to_string(t.spec.num_registers) : "-";
    std::string const barrier = t.barrier ? fmt::format(" barrier {}", t.barrier) : "";
    out += fmt::format("  {:<12} {:<12} regs {:<4} src {:<20} dst {}{}\n", t.spec.name,
                       verify::warp_range(t.spec), regs, names(m, t.src), names(m, t.dst), barrier);
  }
  for (auto const& t : m.tasks) {
    if (t.schedule.empty()) continue;
    out += fmt::format("schedule {}\n", t.spec.name);
    print_node(m, t.schedule, 0, 1, out);
  }
  out += "shared memory\n";
  for (auto const& p : l.placements) {
    std::string what = fmt::format("{}.{}", verify::resource_name(m, p.resource), p.name);
    if (p.barriers) {
      // A pipeline group and its members hold one array each (the shared side is the group's).
      int const stages = m.resources[p.resource].pipeline.num_stages;
      std::string arrays;
      BarrierArrays const& own = l.barrier_arrays[static_cast<std::size_t>(p.resource)];
      if (own.owns_full) arrays = fmt::format("full x{}", stages);
      if (own.owns_empty) arrays += fmt::format("{}empty x{}", own.owns_full ? ", " : "", stages);
      what = fmt::format("{}.barriers ({})", verify::resource_name(m, p.resource), arrays);
    }
    out += fmt::format("  offset {:<7} bytes {:<7} align {:<5} {}\n", p.offset, p.bytes,
                       p.alignment, what);
  }
  out += fmt::format("  total {} B of {} B\n", l.total_bytes, m.smem_capacity);
  if (report) {
    if (report->ok()) {
      out += fmt::format("verdict: ok ({} checks)\n", report->checks_run);
    } else {
      out += fmt::format("verdict: {} violation(s)\n", report->violations.size());
      for (auto const& v : report->violations) {
        out += "  " + format(v) + "\n";
        if (!v.timeline.empty()) out += v.timeline;
      }
    }
  }
  return out;
}

bool print_and_verify(ManagerModel const& m, std::FILE* out) {
  Report const r = verify_manager(m);
  std::fprintf(out, "%s\n", schedule_table(m, &r).c_str());
  return r.ok();
}

}  // namespace warploom::ts
