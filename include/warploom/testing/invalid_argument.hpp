// warploom/testing/invalid_argument.hpp
//
// What the argument-error tests compare: the message of the std::invalid_argument a call throws.
// Every rule's error names the argument and the rule, so tests check the text, not only the type.
#pragma once

#include <stdexcept>
#include <string>

namespace warploom::testing {

// what() of the `Error` `call` throws; "(no exception of that type)" when it throws none (other
// exceptions propagate).
template <class Error, class F>
std::string thrown_message(F&& call) {
  try {
    call();
  } catch (Error const& e) {
    return e.what();
  }
  return "(no exception of that type)";
}

template <class F>
std::string invalid_argument_message(F&& call) {
  return thrown_message<std::invalid_argument>(call);
}

template <class F>
std::string runtime_error_message(F&& call) {
  return thrown_message<std::runtime_error>(call);
}

}  // namespace warploom::testing
