// railyard/core/csv.hpp — the one reader for the CSV files railyard reads (job
// traces, host,leaf,spine[,core] topologies): records with their line numbers,
// and errors in one shape.
//
//   railyard::CsvReader reader(text);
//   railyard::CsvRecord row;
//   while (reader.next(row)) {
//     if (row.fields.size() != 2)
//       return railyard::csv_error(row.line, "row", row.text, "expected 2 fields");
//     RAILYARD_ASSIGN_OR_RETURN(int64_t n, railyard::csv_at_line(row.line,
//                                                  railyard::parse_int("count", row.fields[1])));
//   }
//   // errors read "line 3: row=a,b,c: expected 2 fields", "line 4: count=x: ..."
//
// The dialect is RFC 4180 without quoting, plus what hand-written and
// spreadsheet-exported files need:
// * Lines end in LF or CRLF (a CR right before the LF, or at the very end of the
//   text, is dropped; any other CR is data). Lines are numbered from 1 counting
//   every physical line, skipped ones included, so numbers match an editor's;
//   the text after the last LF is a line of its own (empty when the text ends
//   in LF).
// * A UTF-8 byte-order mark (EF BB BF) at the very start is skipped; anywhere
//   else those bytes are data. Spreadsheets write one, and kept it would glue
//   itself to the first field.
// * Lines that are empty after trimming spaces and tabs, and lines whose first
//   character after them is '#', are skipped.
// * Fields are split on every ',' (so a line has one more field than commas)
//   and trimmed of spaces and tabs. There is no quoting: '"' is an ordinary
//   byte, and a format whose values may not hold it says so. (No railyard
//   format needs the double-quote rules of RFC 4180 §2, items 5-7.)
// Reading is linear in the text; a record's views point into the text.
//
// Errors: "line N: <field>=<value>: <problem>" (invalid_field()'s shape behind
// the line), InvalidArgument, with the field attached (error_field()).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard {

// One record: a line that is not skipped.
struct CsvRecord {
  int64_t line = 0;                      // 1-based physical line
  std::string_view text;                 // the line without its ending, trimmed
  std::vector<std::string_view> fields;  // at least one; each trimmed
};

// Spaces and tabs around `s` removed (what the dialect trims from lines and fields).
[[nodiscard]] constexpr std::string_view csv_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Reads records one at a time (dialect above).
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : rest_(text) {
    if (rest_.starts_with(kByteOrderMark)) rest_.remove_prefix(kByteOrderMark.size());
  }

  // Fills `record` with the next record (its field list reused); false at the end.
  bool next(CsvRecord& record) {
    while (!done_) {
      ++line_;
      const size_t lf = rest_.find('\n');
      std::string_view raw = rest_.substr(0, lf);
      if (lf == std::string_view::npos) {
        done_ = true;
      } else {
        rest_.remove_prefix(lf + 1);
      }
      if (raw.ends_with('\r')) raw.remove_suffix(1);
      const std::string_view text = csv_trim(raw);
      if (text.empty() || text.front() == '#') continue;
      record.line = line_;
      record.text = text;
      record.fields.clear();
      size_t start = 0;
      for (size_t comma; (comma = text.find(',', start)) != std::string_view::npos;
           start = comma + 1)
        record.fields.push_back(csv_trim(text.substr(start, comma - start)));
      record.fields.push_back(csv_trim(text.substr(start)));
      return true;
    }
    return false;
  }

  // The last physical line read; once next() has returned false, the number of
  // lines in the text (at least 1: an empty text is one empty line).
  [[nodiscard]] int64_t line() const { return line_; }

 private:
  static constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  std::string_view rest_;
  int64_t line_ = 0;
  bool done_ = false;
};

// True when `field` is one of `words`, ignoring ASCII case.
[[nodiscard]] inline bool csv_is_one_of(std::string_view field,
                                        std::span<const std::string_view> words) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::string_view word : words) {
    if (word.size() != field.size()) continue;
    size_t i = 0;
    while (i < field.size() && lower(field[i]) == lower(word[i])) ++i;
    if (i == field.size()) return true;
  }
  return false;
}

// For a format whose header row is optional: `record` is a header when its first
// field is one of `words` (any case). Those words then cannot be data in that
// column, which the format has to say.
[[nodiscard]] inline bool csv_is_header(const CsvRecord& record,
                                        std::span<const std::string_view> words) {
  return !record.fields.empty() && csv_is_one_of(record.fields.front(), words);
}

// `s` (an error from invalid_field(), parse_int() and the like: "field=value:
// problem") placed on line `line`: "line N: field=value: problem"; the code and
// the field are kept. OK stays OK.
[[nodiscard]] inline Status csv_at_line(int64_t line, const Status& s) {
  return with_context(s, str_cat("line ", line));
}

// "line N: field=value: problem", InvalidArgument, with the field attached.
[[nodiscard]] inline Status csv_error(int64_t line, std::string_view field, std::string_view value,
                                      std::string_view problem) {
  return csv_at_line(line, invalid_field(field, value, problem));
}

// The same, the message spelling `value` as `shown`: a reader whose values may
// hold bytes that do not print passes an escaped form, and the attached field
// keeps the raw value for callers.
[[nodiscard]] inline Status csv_error(int64_t line, std::string_view field, std::string_view value,
                                      std::string_view problem, std::string_view shown) {
  return with_field(csv_error(line, field, shown, problem), field, value);
}

// The same for a StatusOr: its value, or its error placed on line `line`.
template <class T>
[[nodiscard]] StatusOr<T> csv_at_line(int64_t line, StatusOr<T> s) {
  if (!s.ok()) return csv_at_line(line, s.status());
  return s;
}

}  // namespace railyard
