// tests/cpu/ts/model_builder.hpp
//
// Hand-built ts::ManagerModel pieces, for violations a C++ schedule cannot express (it does not
// compile): a static step of 0, an iteration block outside its loop, an op on the wrong side of a
// resource, a work without a label. Everything else is built from C++ tasks.
#pragma once

#include <string_view>
#include <vector>

#include "warploom/ts/model.hpp"
#include "warploom/ts/schedule_ir.hpp"

namespace fixtures {

namespace ts = warploom::ts;

constexpr ts::Bound fixed(long long v) {
  return {true, v};
}
constexpr ts::Bound dynamic(long long v) {
  return {false, v};
}

// Appends nodes to a schedule; each call returns the new node's id.
struct ScheduleBuilder {
  ts::Schedule s;

  int op(int parent, ts::OpKind kind, int resource) {
    ts::Node n{};
    n.kind = ts::NodeKind::Op;
    n.parent = parent;
    n.op = kind;
    n.role = ts::is_producer_op(kind) ? ts::Role::Producer : ts::Role::Consumer;
    n.resource = resource;
    return s.add(n);
  }
  int work(int parent, ts::Role role, int resource, std::string_view label) {
    ts::Node n{};
    n.kind = ts::NodeKind::Op;
    n.parent = parent;
    n.op = ts::OpKind::Work;
    n.role = role;
    n.resource = resource;
    n.label = label;
    return s.add(n);
  }
  int loop(int parent, ts::Bound start, ts::Bound end, ts::Bound step) {
    ts::Node n{};
    n.kind = ts::NodeKind::Loop;
    n.parent = parent;
    n.start = start;
    n.end = end;
    n.step = step;
    return s.add(n);
  }
  // A first- or last-iteration block under `parent`, guarded on loop `loop`.
  int block(int parent, ts::NodeKind kind, int loop) {
    ts::Node n{};
    n.kind = kind;
    n.parent = parent;
    n.loop = loop;
    return s.add(n);
  }
};

// A model whose resources, tasks and graph edges the test adds one by one.
struct ModelBuilder {
  ts::ManagerModel m;

  int resource(std::string_view name, ts::PipelineConfig pipeline = ts::no_pipeline,
               ts::ResourceKind kind = ts::ResourceKind::Memory) {
    m.resources.push_back({name, kind, pipeline});
    return static_cast<int>(m.resources.size()) - 1;
  }
  ts::TaskModel& task(std::string_view name, int warp_idx, int num_warps, std::vector<int> src,
                      std::vector<int> dst, ts::Schedule schedule) {
    ts::TaskModel t;
    t.spec = {.name = name, .warp_idx = warp_idx, .num_warps = num_warps};
    t.src = std::move(src);
    t.dst = std::move(dst);
    t.schedule = std::move(schedule);
    m.tasks.push_back(std::move(t));
    return m.tasks.back();
  }
  void edge(int downstream, int upstream) { m.graph.push_back({downstream, upstream}); }
};

}  // namespace fixtures
