// railyard/core/strings.hpp — small string utilities on std::string_view.
//
// Debian's Abseil is built with its own absl::string_view (not std::string_view),
// so railyard formats and splits with these helpers instead of absl::StrCat and
// absl::StrSplit, and keeps std::string_view everywhere in its API:
//
//   std::string m = railyard::str_cat("hosts=", 100, ": not a multiple of ", 32);
//   railyard::str_append(m, " (", 2.5, ")");
//   for (std::string_view part : railyard::split("a,b,c", ',')) { ... }
//   std::string j = railyard::join(std::vector<std::string_view>{"x", "y"}, ", ");  // "x, y"
//
// Numbers print in the C locale: integers exactly, floating point in the
// shortest form that reads back to the same value.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace railyard {

namespace detail {
inline void append_one(std::string& out, std::string_view s) { out.append(s); }
inline void append_one(std::string& out, const char* s) { out.append(s); }
inline void append_one(std::string& out, const std::string& s) { out.append(s); }
inline void append_one(std::string& out, char c) { out.push_back(c); }
template <class T>
requires(std::is_arithmetic_v<T> && !std::is_same_v<T, char> &&
         !std::is_same_v<T, bool>) void append_one(std::string& out, T value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  (void)ec;  // 64 chars hold any integer or shortest-form double
  out.append(buf, end);
}
inline void append_one(std::string& out, bool b) { out.append(b ? "true" : "false"); }
}  // namespace detail

// Appends every argument (strings, characters, numbers, bools) to `out`.
template <class... Args>
void str_append(std::string& out, const Args&... args) {
  (detail::append_one(out, args), ...);
}

// Concatenates every argument into a new string.
template <class... Args>
[[nodiscard]] std::string str_cat(const Args&... args) {
  std::string out;
  str_append(out, args...);
  return out;
}

// Splits on every `sep`; "a,,b" gives {"a", "", "b"} and "" gives {""}.
[[nodiscard]] inline std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

// Joins `parts` with `sep` between them.
template <class Range>
[[nodiscard]] std::string join(const Range& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& p : parts) {
    if (!first) out.append(sep);
    detail::append_one(out, p);
    first = false;
  }
  return out;
}

[[nodiscard]] inline std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

[[nodiscard]] constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `v` with exactly `decimals` digits after the point, for reports and SVG: '.' as
// the separator whatever LC_NUMERIC says, no "-0.0" (a negative value that rounds
// to zero prints as zero), "-" for a value that is not finite.
[[nodiscard]] inline std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char buf[512];  // %f of any finite double (<= 309 integer digits) fits
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s(buf, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
  std::replace(s.begin(), s.end(), ',', '.');
  if (s.starts_with('-') && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// A byte count in binary units: "64 GiB", "1.50 GiB", "512 B"; exact multiples
// print as integers, others with two decimals.
[[nodiscard]] inline std::string format_bytes(int64_t bytes) {
  static constexpr std::string_view kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double v = static_cast<double>(bytes);
  while (unit < 5 && v >= 1024.0) {
    v /= 1024.0;
    ++unit;
  }
  const bool exact = unit == 0 || bytes % (int64_t{1} << (10 * unit)) == 0;
  return str_cat(exact ? str_cat(static_cast<int64_t>(v)) : fixed(v, 2), " ", kUnits[unit]);
}

// A number as a user would write it in an input: an integral value without a
// fraction ("4", not "4.0"), anything else in the shortest form that reads back
// ("0.25", "1e-07", "inf").
[[nodiscard]] inline std::string number_text(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 1e15)
    return str_cat(static_cast<int64_t>(v));
  return str_cat(v);
}

}  // namespace railyard
