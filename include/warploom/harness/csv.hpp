// warploom/harness/csv.hpp
//
// Benchmark results as CSV (RFC 4180): one header, then rows of exactly as many fields; a field
// with a comma, a quote or a line break is quoted, its quotes doubled.
#pragma once

#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace warploom::harness {

class CsvWriter {
 public:
  // Writes `header` at once. Throws std::invalid_argument for an empty header.
  CsvWriter(std::ostream& out, std::vector<std::string> header);

  // One row; throws std::invalid_argument (naming both counts) unless it has as many fields as
  // the header.
  void row(std::vector<std::string> const& fields);

  std::vector<std::string> const& header() const { return header_; }

 private:
  void write(std::vector<std::string> const& fields);

  std::ostream& out_;
  std::vector<std::string> header_;
};

// A CsvWriter on a file of its own (`--csv F`).
class CsvFile {
 public:
  // Creates (or truncates) `path` and writes `header`. Throws std::runtime_error naming `option`
  // and the path when the file cannot be opened for writing.
  CsvFile(std::string const& path, std::vector<std::string> header,
          std::string const& option = "--csv");
  void row(std::vector<std::string> const& fields) { writer_.row(fields); }

 private:
  static std::ofstream open(std::string const& path, std::string const& option);

  std::ofstream file_;  // before writer_, which writes to it on construction
  CsvWriter writer_;
};

// `field` as it appears in a CSV line: quoted when it holds a comma, a quote, CR or LF.
std::string csv_field(std::string const& field);

}  // namespace warploom::harness
