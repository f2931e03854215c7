// warploom/harness/svg_chart.hpp
//
// Benchmark results as standalone SVG 1.1 charts (`warploom bench --svg`): a log-log roofline and
// grouped bars. The output is a complete file, byte-for-byte the same for the same input whatever
// the process locale, so charts can be diffed and committed beside the CSV they were drawn from.
//
// A sample's or bar's provider picks its colour: the same provider gets the same colour throughout
// a chart. Eight colours; a ninth provider reuses the first, and the legend still names each.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "warploom/harness/roofline.hpp"

namespace warploom::harness {

// One measured point on a roofline chart.
struct RooflineSample {
  std::string label;       // "warploom 8192x8192x8192": the provider, a space, then the shape
  double intensity = 0;    // flop per byte of the problem's work (> 0)
  double flops_per_s = 0;  // achieved (> 0)
};

// A log-log roofline: x = arithmetic intensity (flop/byte), y = FLOP/s. The memory slope
// (bytes_per_s * x) rises to the ridge and the compute ceiling runs flat after it, each labelled
// with its value ("4.2 TB/s", "740 TFLOP/s"). One numbered marker per sample (class="sample",
// centre cx/cy), and a legend naming each sample by number and label, coloured by provider: the
// label's text before its first space. Both axes span whole decades, ticked and labelled.
// Throws std::invalid_argument, naming the value, when a ceiling or a sample's intensity or
// flops_per_s is not positive and finite, or when there are no samples.
std::string roofline_svg(std::vector<RooflineSample> const& samples, Ceilings const& ceilings,
                         std::string const& title);

// One shape's bars: one per provider.
struct BarGroup {
  std::string label;                                 // "8192x8192x8192"
  std::vector<std::pair<std::string, double>> bars;  // provider -> value
};

// Grouped bars: one group per shape, one slot per provider in each group, in the order providers
// first appear, so a provider missing from a group leaves a gap and keeps its place and colour.
// Each bar is a <rect class="bar"> titled "provider, group: value", with its value (3 significant
// digits) printed above it; y is linear from 0 with about 5 round ticks; a legend names the
// providers. Throws std::invalid_argument, naming the value, when there are no groups, a value is
// negative or not finite, or a provider appears twice in one group.
std::string bar_chart_svg(std::vector<BarGroup> const& groups, std::string const& y_label,
                          std::string const& title);

}  // namespace warploom::harness
