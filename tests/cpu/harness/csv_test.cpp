// tests/cpu/harness/csv_test.cpp — warploom/harness/csv.hpp
#include "warploom/harness/csv.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace warploom::harness {
namespace {

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("8192x8192x1024"), "8192x8192x1024");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST(CsvWriter, HeaderThenRows) {
  std::ostringstream out;
  CsvWriter w(out, {"shape", "contender", "median_ms"});
  w.row({"4096x4096x4096", "warploom", "0.186"});
  w.row({"4096x4096x4096", "cutlass, pingpong", "0.196"});
  EXPECT_EQ(out.str(),
            "shape,contender,median_ms\r\n"
            "4096x4096x4096,warploom,0.186\r\n"
            "4096x4096x4096,\"cutlass, pingpong\",0.196\r\n");
  EXPECT_EQ(w.header().size(), 3u);
}

TEST(CsvWriter, RejectsRowsOfTheWrongWidthAndAnEmptyHeader) {
  std::ostringstream out;
  CsvWriter w(out, {"a", "b"});
  try {
    w.row({"1"});
    FAIL() << "no exception";
  } catch (std::invalid_argument const& e) {
    EXPECT_NE(std::string(e.what()).find("1 values for a header of 2 columns"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(w.row({"1", "2", "3"}), std::invalid_argument);
  EXPECT_EQ(out.str(), "a,b\r\n");  // nothing of the bad rows written
  std::ostringstream other;
  EXPECT_THROW(CsvWriter(other, {}), std::invalid_argument);
}

TEST(CsvFile, WritesTheFileAndNamesTheOptionWhenItCannot) {
  std::string const path = ::testing::TempDir() + "/warploom_csv_file_test.csv";
  {
    CsvFile f(path, {"a", "b"});
    f.row({"1", "x,y"});
  }
  std::ifstream in(path, std::ios::binary);
  std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "a,b\r\n1,\"x,y\"\r\n");
  std::remove(path.c_str());
  try {
    CsvFile bad("/nonexistent-dir/x.csv", {"a"}, "--out");
    FAIL() << "no exception";
  } catch (std::runtime_error const& e) {
    EXPECT_EQ(std::string(e.what()), "--out /nonexistent-dir/x.csv: cannot open it for writing");
  }
}

}  // namespace
}  // namespace warploom::harness
