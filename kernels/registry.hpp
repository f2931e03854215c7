// kernels/registry.hpp
//
// The kernels warploom bundles, by name, for the CLI (`warploom list`, `warploom verify`).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "warploom/ts/model.hpp"

namespace warploom {

struct BundledKernel {
  std::string name;
  std::string description;
  std::function<ts::ManagerModel()> model;  // its TaskManager, as the verifier sees it
};

std::vector<BundledKernel> const& bundled_kernels();

}  // namespace warploom
