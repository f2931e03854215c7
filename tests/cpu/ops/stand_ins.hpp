// tests/cpu/ops/stand_ins.hpp
//
// What the plan API's CPU tests share: stand-in device addresses (1 MiB apart and aligned, never
// dereferenced: nothing here runs a kernel) and a check that an error message holds a phrase.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#define EXPECT_CONTAINS(TEXT, PART) \
  EXPECT_NE(std::string(TEXT).find(PART), std::string::npos) << "got: " << (TEXT)

namespace warploom::ops::test_support {

inline void* fake(std::uintptr_t i) {
  return reinterpret_cast<void*>(i << 20);
}

}  // namespace warploom::ops::test_support
