#include "railyard/core/csv.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/parse.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_csv_test {

using railyard::csv_at_line;
using railyard::csv_error;
using railyard::CsvReader;
using railyard::CsvRecord;

namespace {

struct Record {
  int64_t line = 0;
  std::string text;
  std::vector<std::string> fields;
  friend bool operator==(const Record&, const Record&) = default;
};

// Everything the reader returns, as owned strings, and the line count it ends on.
std::vector<Record> read_all(std::string_view text, int64_t* lines = nullptr) {
  std::vector<Record> out;
  CsvReader reader(text);
  CsvRecord r;
  while (reader.next(r))
    out.push_back({r.line, std::string(r.text), {r.fields.begin(), r.fields.end()}});
  CHECK_FALSE(reader.next(r));  // stays at the end
  if (lines) *lines = reader.line();
  return out;
}

bool blank(char c) { return c == ' ' || c == '\t'; }

// The dialect written out byte by byte, without find() or split(): an
// independent reading to compare the reader with.
std::vector<Record> brute_force(const std::string& input, int64_t* lines) {
  size_t i = input.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  std::vector<std::string> physical(1);
  for (; i < input.size(); ++i) {
    if (input[i] == '\n')
      physical.emplace_back();
    else
      physical.back() += input[i];
  }
  *lines = static_cast<int64_t>(physical.size());
  std::vector<Record> out;
  for (size_t n = 0; n < physical.size(); ++n) {
    std::string line = physical[n];
    if (!line.empty() && line[line.size() - 1] == '\r') line.pop_back();
    size_t first = 0, last = line.size();
    while (first < last && blank(line[first])) ++first;
    while (last > first && blank(line[last - 1])) --last;
    line = line.substr(first, last - first);
    if (line.empty() || line[0] == '#') continue;
    Record rec{static_cast<int64_t>(n + 1), line, {}};
    std::string field;
    auto finish = [&] {
      size_t a = 0, b = field.size();
      while (a < b && blank(field[a])) ++a;
      while (b > a && blank(field[b - 1])) --b;
      rec.fields.push_back(field.substr(a, b - a));
      field.clear();
    };
    for (char c : line) {
      if (c == ',')
        finish();
      else
        field += c;
    }
    finish();
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace

TEST_CASE("csv: records, line numbers, CRLF, BOM, comments and blank lines") {
  int64_t lines = 0;
  const auto records = read_all(
      "\xEF\xBB\xBF"
      "# comment\r\n"
      "time, name ,gpus\r\n"
      "\r\n"
      "   \t\n"
      "  # indented comment\n"
      "0,\ta b\t,8\n"
      ",,\n"
      "last,line",
      &lines);
  REQUIRE(records.size() == 4);
  CHECK(records[0] == Record{2, "time, name ,gpus", {"time", "name", "gpus"}});
  CHECK(records[1] == Record{6, "0,\ta b\t,8", {"0", "a b", "8"}});
  CHECK(records[2] == Record{7, ",,", {"", "", ""}});
  CHECK(records[3] == Record{8, "last,line", {"last", "line"}});
  CHECK(lines == 8);

  // The text after the last LF is a line; an empty text is one empty line.
  read_all("a\n", &lines);
  CHECK(lines == 2);
  CHECK(read_all("", &lines).empty());
  CHECK(lines == 1);
  // A CR is a line ending only right before LF or at the very end; elsewhere data.
  CHECK(read_all("a\r")[0].fields == std::vector<std::string>{"a"});
  CHECK(read_all("a\r\r\n")[0].fields == std::vector<std::string>{"a\r"});
  CHECK(read_all("a\r,b\n")[0].fields == std::vector<std::string>{"a\r", "b"});
  CHECK(read_all("\r\n\r\n", &lines).empty());
  CHECK(lines == 3);
  // No quoting: '"' is an ordinary byte, and so is a comma inside quotes.
  CHECK(read_all("\"a,b\"")[0].fields == std::vector<std::string>{"\"a", "b\""});
  // '#' starts a comment only as a line's first character.
  CHECK(read_all("a,#b")[0].fields == std::vector<std::string>{"a", "#b"});
}

TEST_CASE("csv: a byte-order mark is skipped only at the very start") {
  const std::string bom = "\xEF\xBB\xBF";
  CHECK(read_all(bom + "a,b")[0].fields == std::vector<std::string>{"a", "b"});
  CHECK(read_all(bom + bom + "a")[0].fields == std::vector<std::string>{bom + "a"});
  CHECK(read_all(" " + bom + "a")[0].fields == std::vector<std::string>{bom + "a"});
  CHECK(read_all("x\n" + bom + "a")[1].fields == std::vector<std::string>{bom + "a"});
  CHECK(read_all("a," + bom)[0].fields == std::vector<std::string>{"a", bom});
  // Only the whole mark: a prefix of it is data.
  const std::string partial = std::string("\xEF\xBB") + "a";
  CHECK(read_all(partial)[0].fields == std::vector<std::string>{partial});
  // A BOM before a comment: the comment is still a comment, on line 1.
  int64_t lines = 0;
  const auto r = read_all(bom + "# c\nx", &lines);
  REQUIRE(r.size() == 1);
  CHECK(r[0].line == 2);
}

TEST_CASE("csv: random inputs read as the brute-force splitter reads them") {
  // Pieces that exercise every rule: separators, blanks, line endings, comment
  // marks, stray CRs, quotes, BOM bytes mid-text and multi-byte UTF-8.
  const std::vector<std::string> pieces = {
      "a",    "bc",   "42",           ",",           ",",        ", ",           " ,", " ",
      "\t",   "#",    "\r",           "\"",          "\xC3\xA9", "\xEF\xBB\xBF", "\n", "\n",
      "\r\n", "\r\n", "\n#comment\n", "\n  # c\r\n", "\n\n",     " \t\r\n"};
  std::mt19937_64 rng(20240611);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string input;
    if (rng() % 3 == 0) input += "\xEF\xBB\xBF";
    const size_t n = rng() % 40;
    for (size_t k = 0; k < n; ++k) input += pieces[rng() % pieces.size()];
    CAPTURE(input);
    int64_t got_lines = 0, want_lines = 0;
    const std::vector<Record> got = read_all(input, &got_lines);
    const std::vector<Record> want = brute_force(input, &want_lines);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i] == want[i]);
    }
    CHECK(got_lines == want_lines);
  }
}

TEST_CASE("csv: linear in the input size") {
  // 16 MiB in 2^21 lines, and one line of 2^20 fields: quadratic work in
  // either would not finish.
  std::string many_lines;
  for (int i = 0; i < (1 << 21); ++i) many_lines += "a,b,cd\n";
  many_lines.resize(size_t{16} << 20, '\n');
  CsvReader reader(many_lines);
  CsvRecord r;
  int64_t records = 0;
  while (reader.next(r)) ++records;
  CHECK(records == (1 << 21));
  CHECK(reader.line() ==
        static_cast<int64_t>(std::count(many_lines.begin(), many_lines.end(), '\n')) + 1);

  const std::string wide(size_t{1} << 20, ',');
  CsvReader wide_reader(wide);
  REQUIRE(wide_reader.next(r));
  CHECK(r.fields.size() == (size_t{1} << 20) + 1);
}

TEST_CASE("csv: the header helper compares the first field in any case") {
  constexpr std::string_view kWords[] = {"host", "hostname"};
  auto first = [](std::string_view text) {
    CsvReader reader(text);
    CsvRecord r;
    REQUIRE(reader.next(r));
    return r;
  };
  CHECK(railyard::csv_is_header(first("host,leaf"), kWords));
  CHECK(railyard::csv_is_header(first(" HostName ,x"), kWords));
  CHECK(railyard::csv_is_header(first("HOST"), kWords));
  CHECK_FALSE(railyard::csv_is_header(first("hosts,leaf"), kWords));
  CHECK_FALSE(railyard::csv_is_header(first("hos,leaf"), kWords));
  CHECK_FALSE(railyard::csv_is_header(first("leaf,host"), kWords));
  CHECK_FALSE(railyard::csv_is_header(CsvRecord{}, kWords));
  CHECK(railyard::csv_is_one_of("hOsT", kWords));
  CHECK_FALSE(railyard::csv_is_one_of("", kWords));
}

TEST_CASE("csv: errors name the line, the field and the value, and carry the field") {
  const railyard::Status e = csv_error(7, "gpus", "eight", "expected an integer");
  CHECK(e.code() == railyard::StatusCode::kInvalidArgument);
  CHECK(railyard::message_of(e) == "line 7: gpus=eight: expected an integer");
  REQUIRE(railyard::error_field(e).has_value());
  CHECK(railyard::error_field(e)->field == "gpus");
  CHECK(railyard::error_field(e)->value == "eight");

  // An escaped spelling in the message, the raw value attached.
  const railyard::Status shown = csv_error(2, "host", "n\xff", "not valid UTF-8", "n\\xff");
  CHECK(railyard::message_of(shown) == "line 2: host=n\\xff: not valid UTF-8");
  CHECK(railyard::error_field(shown)->field == "host");
  CHECK(railyard::error_field(shown)->value == "n\xff");

  // Errors from the value parsers take the same shape and keep their field.
  const railyard::Status parsed = csv_at_line(3, railyard::parse_int("gpus", "x").status());
  CHECK(railyard::message_of(parsed) == "line 3: gpus=x: expected a non-negative integer");
  CHECK(railyard::error_field(parsed)->field == "gpus");
  CHECK(railyard::error_field(parsed)->value == "x");
  CHECK(csv_at_line(3, railyard::ok_status()).ok());
  const railyard::StatusOr<int64_t> value = csv_at_line(4, railyard::parse_int("gpus", "16"));
  REQUIRE(value.ok());
  CHECK(*value == 16);
  const railyard::StatusOr<int64_t> bad = csv_at_line(4, railyard::parse_int("gpus", "-1"));
  REQUIRE_FALSE(bad.ok());
  CHECK(railyard::message_of(bad.status()) == "line 4: gpus=-1: expected a non-negative integer");
  CHECK(railyard::has_field(bad.status(), "gpus"));
}

}  // namespace railyard_test_core_csv_test
