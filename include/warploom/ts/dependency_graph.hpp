// warploom/ts/dependency_graph.hpp
//
// The resource dependency graph: which resource cannot be produced before which is consumed.
// It is independent of the values a schedule routes (a task may consume one resource and produce
// another without passing a value), and the verifier checks that every edge is realised by a task
// (R-D6) and that every resource a task touches appears in it (R-D8).
//
//   using Graph = ts::Graph<ts::DependsOn<SmemTiles, InputGmem>,    // smem <- input
//                           ts::DependsOn<OutputGmem, SmemTiles>>;  // output <- smem
#pragma once

#include "warploom/ts/type_list.hpp"

namespace warploom::ts {

// `Downstream` depends on each of `Upstreams`. A resource depending on itself is a ping-pong
// resource (produced and consumed by the same group of tasks).
template <class Downstream, class... Upstreams>
struct DependsOn {
  using downstream = Downstream;
  using upstreams = list<Upstreams...>;
};

template <class... Edges>
struct Graph {
  using resources =
      unique_t<concat_t<list<typename Edges::downstream>..., typename Edges::upstreams...>>;
};

}  // namespace warploom::ts
