// src/ts/verifier.cpp — the compiled host entry point of the verifier (warploom/ts/verifier.hpp).
#include "warploom/ts/verifier.hpp"

#include "warploom/ts/verify/verify.hpp"

namespace warploom::ts {

Report verify_model(ManagerModel const& m, ModelCheckOptions const& options,
                    ModelCheckStats* stats) {
  return verify_manager(m, options, stats);
}

}  // namespace warploom::ts
