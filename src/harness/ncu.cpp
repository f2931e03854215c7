// src/harness/ncu.cpp
#include "warploom/harness/ncu.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

namespace warploom::harness {
namespace {

constexpr char kDuration[] = "gpu__time_duration.sum";
constexpr char kCycles[] = "sm__cycles_elapsed.max";
constexpr char kGmma[] = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active";
constexpr char kHmma[] = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
constexpr char kDram[] = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr char kOccupancy[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr char kRegisters[] = "launch__registers_per_thread";
constexpr char kSmemStatic[] = "launch__shared_mem_per_block_static";
constexpr char kSmemDynamic[] = "launch__shared_mem_per_block_dynamic";

// A number as ncu prints it ("1,234.5", "n/a"): 0 when it is none.
double number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  char* end = nullptr;
  double const v = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? 0.0 : v;
}

double microseconds_per(std::string const& unit) {
  if (unit == "nsecond" || unit == "ns") return 1e-3;
  if (unit == "msecond" || unit == "ms") return 1e3;
  if (unit == "second" || unit == "s") return 1e6;
  return 1.0;  // usecond
}

}  // namespace

std::vector<std::string> const& ncu_metrics() {
  static std::vector<std::string> const metrics = {
      kDuration, kCycles, kGmma, kHmma, kDram, kOccupancy, kRegisters, kSmemStatic, kSmemDynamic};
  return metrics;
}

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char const c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

std::optional<NcuSummary> summarize_ncu_csv(std::string_view log) {
  std::istringstream in{std::string(log)};
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line))
    if (line.rfind("\"ID\",", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  if (header.empty()) return std::nullopt;
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  auto const at = [&](std::vector<std::string> const& row, char const* name) -> std::string {
    auto const c = column.find(name);
    return c == column.end() ? std::string() : row[c->second];
  };

  NcuSummary s;
  double time_scale = 1.0, longest = -1.0;
  double tensor = 0, dram = 0, occupancy = 0;  // time-weighted sums
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("==", 0) == 0) continue;
    std::vector<std::string> const row = split_csv_line(line);
    if (row.size() != header.size())
      throw std::invalid_argument("ncu CSV: a row of " + std::to_string(row.size()) +
                                  " fields under a header of " + std::to_string(header.size()));
    if (row[0].empty()) {  // the units row
      time_scale = microseconds_per(at(row, kDuration));
      continue;
    }
    double const us = number(at(row, kDuration)) * time_scale;
    ++s.kernels;
    s.duration_us += us;
    s.cycles += number(at(row, kCycles));
    tensor += us * (number(at(row, kGmma)) + number(at(row, kHmma)));
    dram += us * number(at(row, kDram));
    occupancy += us * number(at(row, kOccupancy));
    if (us > longest) {
      longest = us;
      s.longest_kernel = at(row, "Kernel Name");
      s.registers_per_thread = static_cast<int>(number(at(row, kRegisters)));
      s.shared_bytes_per_block =
          static_cast<long long>(number(at(row, kSmemStatic)) + number(at(row, kSmemDynamic)));
    }
  }
  if (s.kernels == 0) return std::nullopt;
  double const total = s.duration_us > 0 ? s.duration_us : 1.0;
  s.tensor_pipe_pct = tensor / total;
  s.dram_throughput_pct = dram / total;
  s.achieved_occupancy_pct = occupancy / total;
  return s;
}

}  // namespace warploom::harness
