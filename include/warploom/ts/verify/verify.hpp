// warploom/ts/verify/verify.hpp
//
// ts::verify_manager: everything warploom checks about a TaskManager before its kernel may run —
// the structural rules (verify/structural.hpp) and, when those pass, the exhaustive model check of
// every interleaving (verify/check_model.hpp). One Report; findings name rule, task, resource and
// op; model-checker findings carry a counterexample timeline.
#pragma once

#include "warploom/ts/model.hpp"
#include "warploom/ts/verify/check_model.hpp"
#include "warploom/ts/verify/diagnostic.hpp"
#include "warploom/ts/verify/structural.hpp"

namespace warploom::ts {

constexpr Report verify_manager(ManagerModel const& m, ModelCheckOptions const& opt = {},
                                ModelCheckStats* stats = nullptr) {
  Report r = verify_structure(m);
  if (!r.ok()) return r;  // interleavings of a structurally broken manager explain nothing new
  Report mc = model_check(m, opt, stats);
  r.checks_run += mc.checks_run;
  for (auto& v : mc.violations) r.violations.push_back(std::move(v));
  return r;
}

}  // namespace warploom::ts
