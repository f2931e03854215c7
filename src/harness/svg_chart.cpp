// src/harness/svg_chart.cpp
#include "warploom/harness/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string_view>

namespace warploom::harness {
namespace {

// Tableau 10 without its pink and grey, which sit too close to its red and to the axes.
constexpr std::array<char const*, 8> kPalette{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                              "#59a14f", "#edc948", "#b07aa1", "#9c755f"};

// Page geometry in px: the plot is a fixed box; the legend grows down the right margin.
constexpr double kLeft = 110, kTop = 50, kPlotWidth = 520, kPlotHeight = 400, kBottom = 60;
constexpr double kLegendX = kLeft + kPlotWidth + 30, kLegendRow = 18;
constexpr double kWidth = kLegendX + 260;
constexpr double kCharWidth = 7;  // a generous average for 12 px sans-serif, to foresee overlaps

// std::to_chars, never printf or streams: a locale with a decimal comma must not change the file.
std::string number(double v, std::chars_format format, int precision) {
  std::array<char, 64> buf;
  return {buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), v, format, precision).ptr};
}
std::string shortest(double v) {
  std::array<char, 64> buf;
  return {buf.data(), std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr};
}
std::string px(double v) {
  return number(v, std::chars_format::fixed, 2);
}

// Rounding through the decimal text, so 4.2e12 / 1e12 prints "4.2", not "4.199999999999999".
double round_significant(double v, int digits) {
  std::string const text = number(v, std::chars_format::scientific, digits - 1);
  double rounded = v;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}
std::string three_digits(double v) {
  return shortest(round_significant(v, 3));
}

// "4.2 TB/s", "740 TFLOP/s": an SI prefix keeps the mantissa below 1000.
std::string with_si_prefix(double v, std::string const& unit) {
  constexpr std::array<char const*, 7> kPrefixes{"", "k", "M", "G", "T", "P", "E"};
  double mantissa = round_significant(v, 3);
  std::size_t p = 0;
  for (; mantissa >= 1000 && p + 1 < kPrefixes.size(); ++p)
    mantissa = round_significant(mantissa / 1000, 3);
  return shortest(mantissa) + " " + kPrefixes[p] + unit;
}

// 10^d as a reader writes it: "0.01", "1000", "1e6".
std::string decade(int d) {
  if (d > 4 || d < -3) return "1e" + std::to_string(d);
  // Built by appending: GCC 12 at -O3 warns (-Wrestrict, a false positive) on "0." + string.
  std::string s = d >= 0 ? "1" : "0.";
  s.append(static_cast<std::size_t>(d >= 0 ? d : -d - 1), '0');
  if (d < 0) s += '1';
  return s;
}

std::string escape(std::string const& text) {
  constexpr std::string_view kSpecial = "&<>\"'";
  constexpr std::array<char const*, 5> kEntities{"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
  std::string out;
  for (char c : text) {
    // XML 1.0 allows no control characters but tab and line breaks, not even escaped.
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
    std::size_t const special = kSpecial.find(c);
    out += special == kSpecial.npos ? std::string(1, c) : kEntities[special];
  }
  return out;
}

std::string at(char const* name, double v) {
  return std::string(" ") + name + "=\"" + px(v) + '"';
}
std::string rotate(double degrees, double x, double y) {
  return "transform=\"rotate(" + px(degrees) + " " + px(x) + " " + px(y) + ")\"";
}

[[noreturn]] void reject(std::string const& name, double v, char const* rule,
                         std::string const& owner = "") {
  throw std::invalid_argument(name + " = " + shortest(v) + " must be " + rule +
                              (owner.empty() ? "" : " (\"" + owner + "\")"));
}

// Providers in order of first appearance; the order picks both colour and slot within a group.
class Providers {
 public:
  std::size_t index(std::string const& provider) {
    auto it = std::find(names_.begin(), names_.end(), provider);
    if (it == names_.end()) it = names_.insert(names_.end(), provider);
    return static_cast<std::size_t>(it - names_.begin());
  }
  std::string colour(std::string const& provider) {
    return kPalette[index(provider) % kPalette.size()];
  }
  std::vector<std::string> const& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

// One document: every coordinate written through px(), every text through escape().
class Svg {
 public:
  Svg(double height, std::string const& title) {
    out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + shortest(kWidth) +
           "\" height=\"" + shortest(height) + "\" viewBox=\"0 0 " + shortest(kWidth) + " " +
           shortest(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" +
           escape(title) + "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    text(kLeft + kPlotWidth / 2, 28, title,
         "text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\"");
  }
  void open(std::string const& cls) { out_ += "<g class=\"" + cls + "\">\n"; }
  void close() { out_ += "</g>\n"; }
  void line(double x1, double y1, double x2, double y2, std::string const& style) {
    out_ +=
        "<line" + at("x1", x1) + at("y1", y1) + at("x2", x2) + at("y2", y2) + " " + style + "/>\n";
  }
  void text(double x, double y, std::string const& content, std::string const& style = "") {
    out_ += "<text" + at("x", x) + at("y", y) + (style.empty() ? "" : " " + style) + ">" +
            escape(content) + "</text>\n";
  }
  // A <circle> or <rect> whose `attributes` are already formatted, with a tooltip unless `tip` is
  // empty.
  void shape(std::string const& element, std::string const& attributes, std::string const& tip) {
    out_ += "<" + element + attributes +
            (tip.empty() ? "/>\n" : "><title>" + escape(tip) + "</title></" + element + ">\n");
  }
  // The plot's border, and `y_label` up its left side.
  void frame(std::string const& y_label) {
    out_ += "<rect" + at("x", kLeft) + at("y", kTop) + at("width", kPlotWidth) +
            at("height", kPlotHeight) + " fill=\"none\" stroke=\"#333\"/>\n";
    text(22, kTop + kPlotHeight / 2, y_label,
         "text-anchor=\"middle\" " + rotate(-90, 22, kTop + kPlotHeight / 2));
  }
  std::string finish() { return out_ + "</svg>\n"; }

 private:
  std::string out_;
};

struct LegendEntry {
  std::string colour, tag, label;  // tag: the sample's number beside its marker, or ""
};

// The baseline of the legend's row `i`; row `entries.size()` is where the legend ends.
double legend_row(std::size_t i) {
  return kTop + 10 + kLegendRow * double(i + 1);
}

void legend(Svg& svg, std::vector<LegendEntry> const& entries, bool round) {
  svg.open("legend");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    double const y = legend_row(i);
    std::string const fill = " fill=\"" + entries[i].colour + "\"";
    std::string const swatch =
        round ? at("cx", kLegendX + 6) + at("cy", y - 4) + at("r", 5)
              : at("x", kLegendX) + at("y", y - 10) + at("width", 12) + at("height", 12);
    svg.shape(round ? "circle" : "rect", swatch + fill, "");
    if (!entries[i].tag.empty()) svg.text(kLegendX + 16, y, entries[i].tag, "font-size=\"10\"");
    svg.text(kLegendX + (round ? 34 : 18), y, entries[i].label);
  }
  svg.close();
}

// A log axis over whole decades [10^lo, 10^hi], mapped onto [px_lo, px_hi].
struct LogAxis {
  int lo, hi;
  double px_lo, px_hi;
  double operator()(double v) const {
    return px_lo + (std::log10(v) - lo) / (hi - lo) * (px_hi - px_lo);
  }
};

// 1, 2 or 5 times a power of ten: the smallest such step not below `raw`.
double nice_step(double raw) {
  double const magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

}  // namespace

std::string roofline_svg(std::vector<RooflineSample> const& samples, Ceilings const& ceilings,
                         std::string const& title) {
  auto const require = [](double v, std::string const& name, std::string const& owner = "") {
    if (!(v > 0 && std::isfinite(v))) reject(name, v, "positive and finite", owner);
  };
  require(ceilings.flops_per_s, "ceilings.flops_per_s");
  require(ceilings.bytes_per_s, "ceilings.bytes_per_s");
  if (samples.empty()) throw std::invalid_argument("samples: a roofline needs at least one sample");
  double const ridge = ceilings.ridge();
  // A decade of slope and of flat ceiling either side of the ridge, whatever the samples.
  double min_x = ridge / 10, max_x = ridge * 10, min_y = ceilings.flops_per_s, max_y = min_y;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::string const name = "samples[" + std::to_string(i) + "].";
    require(samples[i].intensity, name + "intensity", samples[i].label);
    require(samples[i].flops_per_s, name + "flops_per_s", samples[i].label);
    min_x = std::min(min_x, samples[i].intensity);
    max_x = std::max(max_x, samples[i].intensity);
    min_y = std::min(min_y, samples[i].flops_per_s);
    max_y = std::max(max_y, samples[i].flops_per_s);
  }
  // Ceilings like 1e300 and 1e-300 put the axes' ends past what a double holds.
  auto const require_in_range = [&](bool in_range) {
    if (!in_range)
      throw std::invalid_argument("ceilings = {flops_per_s " + shortest(ceilings.flops_per_s) +
                                  ", bytes_per_s " + shortest(ceilings.bytes_per_s) +
                                  "}: the chart's axes run past the range of a double");
  };
  require_in_range(ridge / 10 > 0 && std::isfinite(ridge * 10));
  LogAxis const x{int(std::floor(std::log10(min_x))), int(std::ceil(std::log10(max_x))), kLeft,
                  kLeft + kPlotWidth};
  double const roof_at_left = ceilings.bytes_per_s * std::pow(10.0, x.lo);
  require_in_range(roof_at_left > 0 && std::isfinite(roof_at_left));
  min_y = std::min(min_y, roof_at_left);
  LogAxis y{int(std::floor(std::log10(min_y))), int(std::ceil(std::log10(max_y))),
            kTop + kPlotHeight, kTop};
  while (y(max_y) < kTop + 20) ++y.hi;  // room above the highest point for its label

  Svg svg(std::max(kTop + kPlotHeight + kBottom, legend_row(samples.size())), title);
  svg.open("axes");
  for (int d = x.lo; d <= x.hi; ++d) {
    double const at_x = x(std::pow(10.0, d));
    svg.line(at_x, kTop, at_x, kTop + kPlotHeight, "stroke=\"#ddd\"");
    svg.text(at_x, kTop + kPlotHeight + 18, decade(d), "text-anchor=\"middle\"");
  }
  for (int d = y.lo; d <= y.hi; ++d) {
    double const at_y = y(std::pow(10.0, d));
    svg.line(kLeft, at_y, kLeft + kPlotWidth, at_y, "stroke=\"#ddd\"");
    svg.text(kLeft - 8, at_y + 4, with_si_prefix(std::pow(10.0, d), "FLOP/s"),
             "text-anchor=\"end\"");
  }
  svg.frame("achieved FLOP/s");
  svg.text(kLeft + kPlotWidth / 2, kTop + kPlotHeight + 45, "arithmetic intensity (flop/byte)",
           "text-anchor=\"middle\"");
  svg.close();

  svg.open("roof");
  double const x0 = kLeft, y0 = y(roof_at_left), x1 = x(ridge), y1 = y(ceilings.flops_per_s);
  double const x2 = kLeft + kPlotWidth;
  std::string const roof_style = "stroke=\"#333\" stroke-width=\"2\" stroke-linecap=\"round\"";
  svg.line(x0, y0, x1, y1, roof_style);
  svg.line(x1, y1, x2, y1, roof_style);
  // The slope's label runs along it: the angle in px, since the two axes' decades differ in length.
  double const angle = std::atan2(y1 - y0, x1 - x0) * 180 / std::numbers::pi;
  double const mid_x = (x0 + x1) / 2, mid_y = (y0 + y1) / 2;
  svg.text(mid_x, mid_y - 6, with_si_prefix(ceilings.bytes_per_s, "B/s"),
           "text-anchor=\"middle\" " + rotate(angle, mid_x, mid_y));
  // Just right of the ridge, the flat ceiling is clear of samples, which crowd at large intensity.
  svg.text(x1 + 8, y1 - 6, with_si_prefix(ceilings.flops_per_s, "FLOP/s"));
  svg.close();

  Providers providers;
  std::vector<LegendEntry> entries;
  svg.open("samples");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    RooflineSample const& s = samples[i];
    std::string const colour = providers.colour(s.label.substr(0, s.label.find(' ')));
    std::string const tag = std::to_string(i + 1);
    double const cx = x(s.intensity), cy = y(s.flops_per_s);
    svg.shape("circle",
              " class=\"sample\"" + at("cx", cx) + at("cy", cy) + at("r", 5) + " fill=\"" + colour +
                  "\" stroke=\"white\"",
              s.label + ": " + three_digits(s.intensity) + " flop/byte, " +
                  with_si_prefix(s.flops_per_s, "FLOP/s"));
    svg.text(cx + 7, cy - 7, tag, "font-size=\"10\"");
    entries.push_back({colour, tag, s.label});
  }
  svg.close();
  legend(svg, entries, true);
  return svg.finish();
}

std::string bar_chart_svg(std::vector<BarGroup> const& groups, std::string const& y_label,
                          std::string const& title) {
  if (groups.empty()) throw std::invalid_argument("groups: a bar chart needs at least one group");
  Providers providers;
  double max_value = 0, widest_label = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto const& bars = groups[g].bars;
    for (std::size_t b = 0; b < bars.size(); ++b) {
      std::string const name = "groups[" + std::to_string(g) + "].bars[" + std::to_string(b) + "]";
      if (!(bars[b].second >= 0 && std::isfinite(bars[b].second)))
        reject(name, bars[b].second, "finite and non-negative", bars[b].first);
      for (std::size_t earlier = 0; earlier < b; ++earlier)
        if (bars[earlier].first == bars[b].first)
          throw std::invalid_argument(name + ": provider \"" + bars[b].first +
                                      "\" appears twice in group \"" + groups[g].label + "\"");
      providers.index(bars[b].first);
      max_value = std::max(max_value, bars[b].second);
    }
    widest_label = std::max(widest_label, kCharWidth * double(groups[g].label.size()));
  }
  double const step = max_value > 0 ? nice_step(max_value / 5) : 0.2;
  double const top = max_value > 0 ? step * std::ceil(max_value / step) : 1;
  auto const y = [&](double v) { return kTop + kPlotHeight * (1 - v / top); };
  double const group_width = kPlotWidth / double(groups.size());
  // Labels wider than their group slant at 30 degrees, so reach down half their width.
  bool const slant = widest_label > group_width * 0.95;
  double const bottom = kBottom + (slant ? widest_label / 2 : 0);

  Svg svg(std::max(kTop + kPlotHeight + bottom, legend_row(providers.names().size())), title);
  svg.open("axes");
  for (int i = 0; i * step <= top * (1 + 1e-9); ++i) {
    double const at_y = y(i * step);
    svg.line(kLeft, at_y, kLeft + kPlotWidth, at_y, "stroke=\"#ddd\"");
    svg.text(kLeft - 8, at_y + 4, shortest(round_significant(i * step, 6)), "text-anchor=\"end\"");
  }
  svg.frame(y_label);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    double const cx = kLeft + group_width * (double(g) + 0.5), ty = kTop + kPlotHeight + 18;
    svg.text(cx, ty, groups[g].label,
             slant ? "text-anchor=\"end\" " + rotate(-30, cx, ty) : "text-anchor=\"middle\"");
  }
  svg.close();

  // Every group holds a slot for every provider: 80% of the group, the rest a gap between groups.
  double const slot =
      group_width * 0.8 / double(std::max<std::size_t>(1, providers.names().size()));
  svg.open("bars");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (auto const& [provider, value] : groups[g].bars) {
      double const left =
          kLeft + group_width * (double(g) + 0.1) + slot * double(providers.index(provider));
      svg.shape("rect",
                " class=\"bar\"" + at("x", left + slot * 0.05) + at("y", y(value)) +
                    at("width", slot * 0.9) + at("height", y(0) - y(value)) + " fill=\"" +
                    providers.colour(provider) + "\"",
                provider + ", " + groups[g].label + ": " + three_digits(value));
      svg.text(left + slot / 2, y(value) - 4, three_digits(value),
               "text-anchor=\"middle\" font-size=\"10\"");
    }
  }
  svg.close();
  std::vector<LegendEntry> entries;
  for (auto const& name : providers.names()) entries.push_back({providers.colour(name), "", name});
  legend(svg, entries, false);
  return svg.finish();
}

}  // namespace warploom::harness
