// src/harness/csv.cpp
#include "warploom/harness/csv.hpp"

#include <stdexcept>
#include <utility>

namespace warploom::harness {

std::string csv_field(std::string const& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

CsvWriter::CsvWriter(std::ostream& out, std::vector<std::string> header)
    : out_(out), header_(std::move(header)) {
  if (header_.empty()) throw std::invalid_argument("header: a CSV file needs at least one column");
  write(header_);
}

void CsvWriter::row(std::vector<std::string> const& fields) {
  if (fields.size() != header_.size())
    throw std::invalid_argument("fields: " + std::to_string(fields.size()) +
                                " values for a header of " + std::to_string(header_.size()) +
                                " columns");
  write(fields);
}

void CsvWriter::write(std::vector<std::string> const& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out_ << (i ? "," : "") << csv_field(fields[i]);
  out_ << "\r\n";  // RFC 4180 line break
}

std::ofstream CsvFile::open(std::string const& path, std::string const& option) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error(option + " " + path + ": cannot open it for writing");
  return file;
}

CsvFile::CsvFile(std::string const& path, std::vector<std::string> header,
                 std::string const& option)
    : file_(open(path, option)), writer_(file_, std::move(header)) {}

}  // namespace warploom::harness
