// warploom/ts/verifier.hpp
//
// The verifier as compiled host code. The checks themselves are constexpr templates in
// warploom/ts/verify/ (so a schedule can be checked while its kernel compiles); host callers —
// ts::launch, the CLI, tests — go through this declaration instead, so the engine is compiled once
// (src/ts/verifier.cpp) rather than instantiated, and re-optimized, in every translation unit that
// launches a kernel.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/diagnostic.hpp"
#include "warploom/ts/verify/model_check_options.hpp"

namespace warploom::ts {

// Every structural rule, then (when those pass) the exhaustive model check: the same verdict as
// the constexpr ts::verify_manager, run on the host.
Report verify_model(ManagerModel const& m, ModelCheckOptions const& options = {},
                    ModelCheckStats* stats = nullptr);

}  // namespace warploom::ts
