// tests/schedules/bundled_kernels.cpp — every schedule the bundled kernels run.
//
// The entries are the build's schedule units (ts::registered_schedules(): the tutorials' copies,
// every point of their tuning spaces, and the GEMMs; kernels/CMakeLists.txt), each captured from
// the schedule the kernel itself runs, as `warploom verify` reads it: nothing is restated here.
// All must pass.

#include "corpus.hpp"
#include "warploom/ts/schedule_unit.hpp"

namespace corpus {

void add_bundled_kernels(Corpus& c) {
  for (ts::RegisteredSchedule const& r : ts::registered_schedules())
    c.push_back({.name = r.name,
                 .theme = kBundled,
                 .description = r.description,
                 .expected = {},
                 .model = [model = r.model](std::string_view) { return model(); },
                 .controls = {}});
}

}  // namespace corpus
