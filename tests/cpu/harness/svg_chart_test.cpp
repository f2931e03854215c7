// tests/cpu/harness/svg_chart_test.cpp — warploom/harness/svg_chart.hpp
#include "warploom/harness/svg_chart.hpp"

#include <clocale>
#include <cmath>
#include <locale>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "warploom/testing/invalid_argument.hpp"

namespace warploom::harness {
namespace {

using warploom::testing::invalid_argument_message;

// Round ceilings of H200's order (bf16 GEMM, device copy): ridge at 740 / 4.2 = 176 flop/byte.
constexpr Ceilings kCeilings{.flops_per_s = 740e12, .bytes_per_s = 4.2e12};

std::vector<RooflineSample> const kSamples{
    {"warploom 8192x8192x8192", 2730, 650e12},
    {"cuBLAS 8192x8192x8192", 2730, 700e12},
    {"warploom 8192x8192x128", 124, 400e12},
};

std::vector<BarGroup> const kGroups{
    {"8192x8192x8192", {{"cuBLAS", 700}, {"warploom", 650}, {"CUTLASS", 600}}},
    {"8192x8192x128", {{"warploom", 400}, {"cuBLAS", 350}}},  // no CUTLASS; a new order
};

// Every tag closes, in order: a stack of open element names, as an XML parser keeps.
::testing::AssertionResult well_nested(std::string const& svg) {
  std::vector<std::string> open;
  std::regex const tag(R"(<(/?)([a-zA-Z]+)[^>]*?(/?)>)");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tag), end; it != end; ++it) {
    std::string const name = (*it)[2];
    if ((*it)[3] == "/") continue;  // <line .../>
    if ((*it)[1] == "") {
      open.push_back(name);
    } else if (open.empty() || open.back() != name) {
      return ::testing::AssertionFailure()
             << "</" << name << "> closes " << (open.empty() ? "nothing" : "<" + open.back() + ">");
    } else {
      open.pop_back();
    }
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closes";
  return ::testing::AssertionSuccess();
}

std::size_t count(std::string const& text, std::string const& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The attributes of each `<element class="cls" ...>`, and the text of its <title> child if any.
using Attributes = std::map<std::string, std::string>;
std::vector<Attributes> elements(std::string const& svg, std::string const& element,
                                 std::string const& cls) {
  std::regex const open("<" + element + " class=\"" + cls + "\"([^>]*)>(<title>([^<]*)</title>)?");
  std::regex const attribute(R"re(([a-z-]+)="([^"]*)")re");
  std::vector<Attributes> found;
  for (std::sregex_iterator it(svg.begin(), svg.end(), open), end; it != end; ++it) {
    Attributes a{{"title", (*it)[3]}};
    std::string const list = (*it)[1];
    for (std::sregex_iterator at(list.begin(), list.end(), attribute); at != end; ++at)
      a[(*at)[1]] = (*at)[2];
    found.push_back(a);
  }
  return found;
}

double number(Attributes const& a, std::string const& name) {
  return std::stod(a.at(name));
}

// The text between the legend group's tags.
std::string legend_of(std::string const& svg) {
  auto const begin = svg.find("<g class=\"legend\">");
  return begin == std::string::npos ? "" : svg.substr(begin, svg.find("</g>", begin) - begin);
}

TEST(SvgChart, RooflineIsAStandaloneWellFormedSvg) {
  std::string const svg = roofline_svg(kSamples, kCeilings, "bf16 GEMM on H200");
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_TRUE(std::regex_search(svg, std::regex(R"(^<svg[^>]* width="\d+" height="\d+" )"
                                                R"(viewBox="0 0 \d+ \d+")")));
  EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
  EXPECT_TRUE(well_nested(svg));
  EXPECT_NE(svg.find("font-family=\"sans-serif\""), std::string::npos);
}

TEST(SvgChart, BarChartIsAStandaloneWellFormedSvg) {
  std::string const svg = bar_chart_svg(kGroups, "TFLOP/s", "bf16 GEMM on H200");
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_EQ(count(svg, "<g "), count(svg, "</g>"));
  EXPECT_TRUE(well_nested(svg));
}

TEST(SvgChart, EscapesMarkupInEveryText) {
  std::string const nasty = R"(a<b & "c" 'd')";
  std::string const escaped = "a&lt;b &amp; &quot;c&quot; &apos;d&apos;";
  for (std::string const& svg : {roofline_svg({{nasty, 10, 1e12}}, kCeilings, nasty),
                                 bar_chart_svg({{nasty, {{nasty, 1}}}}, nasty, nasty)}) {
    EXPECT_EQ(svg.find("a<b"), std::string::npos) << svg;
    EXPECT_NE(svg.find(escaped), std::string::npos) << svg;
    EXPECT_TRUE(well_nested(svg));
  }
}

TEST(SvgChart, RooflineLegendNamesEachSampleOnce) {
  std::string const legend = legend_of(roofline_svg(kSamples, kCeilings, "t"));
  for (auto const& s : kSamples) EXPECT_EQ(count(legend, ">" + s.label + "<"), 1u) << s.label;
}

TEST(SvgChart, RooflineMarkersSitWhereTheLogScalePutsThem) {
  // Three samples a decade apart on both axes, and one at the geometric mean of the first two.
  std::vector<RooflineSample> const samples{
      {"p 1", 1, 1e12}, {"p 10", 10, 1e13}, {"p 100", 100, 1e14}, {"p 3.16", std::sqrt(10), 1e12}};
  auto const markers = elements(roofline_svg(samples, kCeilings, "t"), "circle", "sample");
  ASSERT_EQ(markers.size(), samples.size());
  double const decade_x = number(markers[1], "cx") - number(markers[0], "cx");
  double const decade_y = number(markers[1], "cy") - number(markers[0], "cy");
  EXPECT_GT(decade_x, 10);
  EXPECT_LT(decade_y, -10);  // higher FLOP/s is further up
  EXPECT_NEAR(number(markers[2], "cx") - number(markers[1], "cx"), decade_x, 0.02);
  EXPECT_NEAR(number(markers[2], "cy") - number(markers[1], "cy"), decade_y, 0.02);
  EXPECT_NEAR(number(markers[3], "cx") - number(markers[0], "cx"), decade_x / 2, 0.02);
  EXPECT_NEAR(number(markers[3], "cy"), number(markers[0], "cy"), 0.02);
}

TEST(SvgChart, RooflineColoursSamplesByProvider) {
  auto const markers = elements(roofline_svg(kSamples, kCeilings, "t"), "circle", "sample");
  ASSERT_EQ(markers.size(), 3u);
  EXPECT_EQ(markers[0].at("fill"), markers[2].at("fill"));  // both warploom
  EXPECT_NE(markers[0].at("fill"), markers[1].at("fill"));
}

TEST(SvgChart, RooflineLabelsCeilingsAndDecades) {
  std::string const svg = roofline_svg(kSamples, kCeilings, "t");
  EXPECT_NE(svg.find(">4.2 TB/s<"), std::string::npos);
  EXPECT_NE(svg.find(">740 TFLOP/s<"), std::string::npos);
  EXPECT_NE(svg.find(">1 PFLOP/s<"), std::string::npos);
  EXPECT_NE(svg.find(">1000<"), std::string::npos);  // an intensity decade
}

TEST(SvgChart, BarHeightsAreProportionalToValues) {
  std::string const svg =
      bar_chart_svg({{"g", {{"a", 100}, {"b", 50}, {"c", 25}, {"d", 0}}}}, "TFLOP/s", "t");
  auto const bars = elements(svg, "rect", "bar");
  ASSERT_EQ(bars.size(), 4u);
  double const h = number(bars[0], "height");
  EXPECT_GT(h, 100);
  EXPECT_NEAR(number(bars[1], "height"), h / 2, 0.02);
  EXPECT_NEAR(number(bars[2], "height"), h / 4, 0.02);
  EXPECT_NEAR(number(bars[3], "height"), 0, 0.02);
  for (auto const& bar : bars)  // all stand on the same baseline
    EXPECT_NEAR(number(bar, "y") + number(bar, "height"), number(bars[0], "y") + h, 0.02);
  EXPECT_NE(svg.find(">50<"), std::string::npos);
}

TEST(SvgChart, BarValuesShowThreeSignificantDigitsOnRoundTicks) {
  std::string const svg = bar_chart_svg({{"g", {{"a", 652.449}, {"b", 0.12345}}}}, "y", "t");
  EXPECT_NE(svg.find(">652<"), std::string::npos);
  EXPECT_NE(svg.find(">0.123<"), std::string::npos);
  // 652 / 5 rounds up to a step of 200, so the axis tops out at 800.
  for (char const* tick : {">0<", ">200<", ">400<", ">600<", ">800<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">1000<"), std::string::npos);
}

TEST(SvgChart, BarsKeepProviderColourAndSlotAcrossGroups) {
  std::string const svg = bar_chart_svg(kGroups, "TFLOP/s", "t");
  std::map<std::string, std::vector<Attributes>> by_provider;  // in group order
  for (auto const& bar : elements(svg, "rect", "bar"))
    by_provider[bar.at("title").substr(0, bar.at("title").find(','))].push_back(bar);
  ASSERT_EQ(by_provider["cuBLAS"].size(), 2u);
  ASSERT_EQ(by_provider["warploom"].size(), 2u);
  ASSERT_EQ(by_provider["CUTLASS"].size(), 1u);  // a gap in the second group
  for (auto const& [provider, bars] : by_provider)
    for (auto const& bar : bars) EXPECT_EQ(bar.at("fill"), bars[0].at("fill")) << provider;
  EXPECT_NE(by_provider["cuBLAS"][0].at("fill"), by_provider["warploom"][0].at("fill"));
  // Same offset between two providers in both groups, whatever order each group lists them in.
  auto const x = [&](std::string const& p, int g) { return number(by_provider[p][g], "x"); };
  EXPECT_GT(x("warploom", 0), x("cuBLAS", 0));
  EXPECT_NEAR(x("warploom", 1) - x("cuBLAS", 1), x("warploom", 0) - x("cuBLAS", 0), 0.02);
  std::string const legend = legend_of(svg);
  for (char const* provider : {"cuBLAS", "warploom", "CUTLASS"})
    EXPECT_EQ(count(legend, std::string(">") + provider + "<"), 1u) << provider;
}

// A decimal comma, for std::locale-based formatting (streams).
struct CommaDecimal : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
};

TEST(SvgChart, OutputIgnoresTheLocale) {
  std::string const roofline = roofline_svg(kSamples, kCeilings, "t");
  std::string const bars = bar_chart_svg(kGroups, "TFLOP/s", "t");
  EXPECT_EQ(roofline, roofline_svg(kSamples, kCeilings, "t"));
  std::locale const before =
      std::locale::global(std::locale(std::locale::classic(), new CommaDecimal));
  // printf-family formatting follows the C locale; try one with a decimal comma where installed.
  bool const comma_c_locale = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
  std::string const roofline_comma = roofline_svg(kSamples, kCeilings, "t");
  std::string const bars_comma = bar_chart_svg(kGroups, "TFLOP/s", "t");
  std::setlocale(LC_NUMERIC, "C");
  std::locale::global(before);
  EXPECT_EQ(roofline_comma, roofline);
  EXPECT_EQ(bars_comma, bars);
  if (!comma_c_locale) GTEST_LOG_(INFO) << "de_DE.UTF-8 not installed: only std::locale checked";
}

TEST(SvgChart, RooflineRejectsInvalidInputNamingTheValue) {
  auto const with = [](double intensity, double flops) {
    return std::vector<RooflineSample>{{"ok 1", 10, 1e12}, {"bad 2", intensity, flops}};
  };
  std::vector<std::pair<std::string, std::string>> const cases{
      {invalid_argument_message(
           [] { roofline_svg(kSamples, {.flops_per_s = 0, .bytes_per_s = 1}, "t"); }),
       "ceilings.flops_per_s = 0"},
      {invalid_argument_message(
           [] { roofline_svg(kSamples, {.flops_per_s = 1, .bytes_per_s = INFINITY}, "t"); }),
       "ceilings.bytes_per_s = inf"},
      {invalid_argument_message([] { roofline_svg({}, kCeilings, "t"); }), "samples"},
      {invalid_argument_message([&] { roofline_svg(with(-1, 1e12), kCeilings, "t"); }),
       "samples[1].intensity = -1"},
      {invalid_argument_message([&] { roofline_svg(with(0, 1e12), kCeilings, "t"); }),
       "samples[1].intensity = 0"},
      {invalid_argument_message([&] { roofline_svg(with(10, NAN), kCeilings, "t"); }),
       "samples[1].flops_per_s = nan"},
      {invalid_argument_message([&] { roofline_svg(with(10, -INFINITY), kCeilings, "t"); }),
       "samples[1].flops_per_s = -inf"},
      {invalid_argument_message(
           [] { roofline_svg(kSamples, {.flops_per_s = 1e300, .bytes_per_s = 1e-300}, "t"); }),
       "ceilings = {flops_per_s 1e+300, bytes_per_s 1e-300}"},
  };
  for (auto const& [message, expected] : cases)
    EXPECT_NE(message.find(expected), std::string::npos) << message << "\nlacks: " << expected;
  EXPECT_NE(
      invalid_argument_message([&] { roofline_svg(with(-1, 1e12), kCeilings, "t"); }).find("bad 2"),
      std::string::npos);
}

TEST(SvgChart, BarChartRejectsInvalidInputNamingTheValue) {
  auto const one_bar = [](double v) {
    return std::vector<BarGroup>{{"g0", {{"a", 1}}}, {"g1", {{"a", 1}, {"b", v}}}};
  };
  std::vector<std::pair<std::string, std::string>> const cases{
      {invalid_argument_message([] { bar_chart_svg({}, "y", "t"); }), "groups"},
      {invalid_argument_message([&] { bar_chart_svg(one_bar(-1), "y", "t"); }),
       "groups[1].bars[1] = -1"},
      {invalid_argument_message([&] { bar_chart_svg(one_bar(NAN), "y", "t"); }),
       "groups[1].bars[1] = nan"},
      {invalid_argument_message([&] { bar_chart_svg(one_bar(INFINITY), "y", "t"); }),
       "groups[1].bars[1] = inf"},
      {invalid_argument_message([] {
         bar_chart_svg({{"g", {{"a", 1}, {"a", 2}}}}, "y", "t");
       }),
       "provider \"a\" appears twice"},
  };
  for (auto const& [message, expected] : cases)
    EXPECT_NE(message.find(expected), std::string::npos) << message << "\nlacks: " << expected;
}

}  // namespace
}  // namespace warploom::harness
