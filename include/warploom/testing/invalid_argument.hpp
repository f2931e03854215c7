// warploom/testing/invalid_argument.hpp
//
// What the argument-error tests compare: the message of the std::invalid_argument a call throws.
// Every rule's error names the argument and the rule, so tests check the text, not only the type.
#pragma once

#include <stdexcept>
#include <string>

namespace warploom::testing {

// what() of the std::invalid_argument `call` throws; "(no std::invalid_argument)" when it throws
// none (other exceptions propagate).
template <class F>
std::string invalid_argument_message(F&& call) {
  try {
    call();
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "(no std::invalid_argument)";
}

}  // namespace warploom::testing
