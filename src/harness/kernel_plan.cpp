// src/harness/kernel_plan.cpp
#include "warploom/harness/kernel_plan.hpp"

namespace warploom::harness {

std::string to_string(Tuning const& t) {
  if (t.empty()) return "default";
  std::string s;
  for (auto const& [knob, value] : t) s += (s.empty() ? "" : " ") + knob + "=" + value;
  return s;
}

}  // namespace warploom::harness
