// railyard/core/parse.hpp — strict parsing of the small values found in spec
// strings, flags and files: integers, ratios, host lists and byte sizes.
//
// Each parser takes the name of the field it is parsing so the error can say
// which field and value were wrong:
//
//   auto hosts = railyard::parse_host_list("hosts", "0-15,32-47");  // 32 ids
//   auto bytes = railyard::parse_size("bytes", "256MiB");           // 268435456
//   auto ratio = railyard::parse_ratio("oversub", "2:1");           // {2, 1}
//   std::string s = railyard::format_host_list(*hosts);             // "0-15,32-47"
//   auto msg = railyard::parse_size_in("bytes", "0", 1, 1ull << 50); // "0 bytes is outside [1, 2^50]"
//   auto mb = railyard::parse_decimal_in("buffer_mb", "12.5", 0, 1e6, "MB");  // 12.5
//   auto rate = railyard::parse_fraction("start_rate", "1/8");      // 0.125
//
// Parsers accept exactly the documented grammar (no spaces inside a number, no
// trailing garbage, no hexadecimal or exponents, a sign only where stated) and
// reject overflow.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"

namespace railyard {

namespace detail {
// Decimal digits only (no sign, no spaces), within T's range.
template <class T>
[[nodiscard]] StatusOr<T> parse_digits(std::string_view field, std::string_view text) {
  if (text.empty())
    return invalid_field(field, text, "expected a non-negative integer, got nothing");
  if (!is_digit(text.front())) return invalid_field(field, text, "expected a non-negative integer");
  T value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range)
    return invalid_field(field, text, "integer is too large");
  if (ec != std::errc() || ptr != end)
    return invalid_field(field, text, "expected a non-negative integer");
  return value;
}
}  // namespace detail

// A non-negative decimal integer: digits only, at most int64 range.
[[nodiscard]] inline StatusOr<int64_t> parse_int(std::string_view field,
                                                       std::string_view text) {
  return detail::parse_digits<int64_t>(field, text);
}

// An integer that must lie in [lo, hi]; the error states the bounds.
[[nodiscard]] inline StatusOr<int64_t> parse_int_in(std::string_view field,
                                                          std::string_view text, int64_t lo,
                                                          int64_t hi) {
  RAILYARD_ASSIGN_OR_RETURN(int64_t value, parse_int(field, text));
  if (value < lo || value > hi) {
    if (value <= 0 && lo >= 1) return invalid_field(field, text, "must be positive");
    return invalid_field(field, text, str_cat("must be between ", lo, " and ", hi));
  }
  return value;
}

// An integer with an optional leading '-' (no '+'), int64 range.
[[nodiscard]] inline StatusOr<int64_t> parse_signed_int(std::string_view field,
                                                        std::string_view text) {
  if (text.empty()) return invalid_field(field, text, "expected an integer, got nothing");
  const bool negative = text.front() == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  if (digits.empty() || !is_digit(digits.front()))
    return invalid_field(field, text, "expected an integer");
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range)
    return invalid_field(field, text, "integer is too large");
  if (ec != std::errc() || ptr != end) return invalid_field(field, text, "expected an integer");
  return value;
}

// A signed integer that must lie in [lo, hi]; the error states the bounds.
[[nodiscard]] inline StatusOr<int64_t> parse_signed_int_in(std::string_view field,
                                                           std::string_view text, int64_t lo,
                                                           int64_t hi) {
  RAILYARD_ASSIGN_OR_RETURN(int64_t value, parse_signed_int(field, text));
  if (value < lo || value > hi)
    return invalid_field(field, text, str_cat("must be between ", lo, " and ", hi));
  return value;
}

// A non-negative integer in the whole uint64 range (seeds, counters).
[[nodiscard]] inline StatusOr<uint64_t> parse_uint(std::string_view field,
                                                   std::string_view text) {
  return detail::parse_digits<uint64_t>(field, text);
}

namespace detail {

// `text` as digits with an optional fraction ("16", "12.5"); false for anything
// else (signs, exponents, hexadecimal, "inf", spaces, a bare "." or "5.").
[[nodiscard]] inline bool unsigned_decimal(std::string_view text, double& value) {
  size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0) return false;
  if (digits < text.size()) {
    if (text[digits] != '.' || digits + 1 == text.size()) return false;
    for (char c : text.substr(digits + 1))
      if (!is_digit(c)) return false;
  }
  // from_chars with chars_format::fixed reads exactly this grammar, without the
  // locale and hexadecimal floats strtod would accept.
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, std::chars_format::fixed);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

// A bound as plain digits (1000000, 0.5; never 1e+06).
[[nodiscard]] inline std::string decimal_text(double v) {
  char buf[400];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, ptr) : str_cat(v);
}

}  // namespace detail

// A decimal number: an optional '-', digits and an optional fraction ("16",
// "12.5", "-5"). No exponent, hexadecimal, "inf"/"nan" or spaces.
[[nodiscard]] inline StatusOr<double> parse_decimal(std::string_view field,
                                                    std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  double value = 0;
  if (!detail::unsigned_decimal(text.substr(negative ? 1 : 0), value))
    return invalid_field(field, text, "expected a decimal number such as 16 or 12.5");
  return negative ? -value : value;
}

// A decimal number (parse_decimal) in (lo, hi]: more than `lo`, at most `hi`.
// Errors state the bound, in `unit` when given ("must be more than 0 MB").
[[nodiscard]] inline StatusOr<double> parse_decimal_in(std::string_view field,
                                                       std::string_view text, double lo,
                                                       double hi, std::string_view unit = {}) {
  const std::string in_unit = unit.empty() ? std::string() : str_cat(" ", unit);
  auto value = parse_decimal(field, text);
  if (!value.ok())
    return invalid_field(field, text,
                         str_cat("expected a number", unit.empty() ? "" : str_cat(" of ", unit),
                                 " such as 16 or 12.5"));
  if (!(*value > lo))
    return invalid_field(field, text, str_cat("must be more than ", detail::decimal_text(lo), in_unit));
  if (*value > hi)
    return invalid_field(field, text, str_cat("must be at most ", detail::decimal_text(hi), in_unit));
  return *value;
}

// A fraction in (0, 1]: a decimal ("0.25") or a ratio of two decimals ("1/4").
[[nodiscard]] inline StatusOr<double> parse_fraction(std::string_view field,
                                                     std::string_view text) {
  const size_t slash = text.find('/');
  double num = 0;
  double den = 1;
  const bool parsed =
      detail::unsigned_decimal(text.substr(0, slash), num) &&
      (slash == std::string_view::npos || detail::unsigned_decimal(text.substr(slash + 1), den));
  if (!parsed) return invalid_field(field, text, "expected a fraction such as 0.25 or 1/4");
  const double value = den > 0 ? num / den : -1;
  if (!(value > 0 && value <= 1)) return invalid_field(field, text, "must be a fraction in (0, 1]");
  return value;
}

// A down:up ratio such as "2:1", "3:2" or plain "2" (meaning 2:1), reduced to
// lowest terms. Both terms positive and at most 1000.
struct Ratio {
  int32_t down = 1;
  int32_t up = 1;

  [[nodiscard]] constexpr double value() const { return static_cast<double>(down) / up; }
  friend constexpr bool operator==(const Ratio&, const Ratio&) = default;
};

[[nodiscard]] inline StatusOr<Ratio> parse_ratio(std::string_view field,
                                                       std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view down_text = text.substr(0, colon);
  const std::string_view up_text = colon == std::string_view::npos ? "1" : text.substr(colon + 1);
  auto down = parse_int(field, down_text);
  auto up = parse_int(field, up_text);
  if (!down.ok() || !up.ok())
    return invalid_field(field, text, "expected a ratio such as 2:1 or 2");
  if (*down < 1 || *up < 1) return invalid_field(field, text, "ratio terms must be positive");
  if (*down > 1000 || *up > 1000) return invalid_field(field, text, "ratio terms must be <= 1000");
  if (*down < *up)
    return invalid_field(field, text, "down:up below 1:1 is not oversubscription; use 1:1");
  const int64_t g = std::gcd(*down, *up);  // 4:2 is 2:1
  return Ratio{static_cast<int32_t>(*down / g), static_cast<int32_t>(*up / g)};
}

// Host lists: comma-separated ids and inclusive ranges, "0-15,32-47,60".
// Ids must be < `limit` (pass the cluster's host count; the default is the
// largest cluster railyard accepts, 2^20 hosts) and appear once.
// The result keeps the order written, which is what launchers expect.
[[nodiscard]] inline StatusOr<std::vector<HostId>> parse_host_list(std::string_view field,
                                                                          std::string_view text,
                                                                          int64_t limit = int64_t{1}
                                                                                          << 20) {
  if (text.empty()) return invalid_field(field, text, "empty host list");
  std::vector<HostId> hosts;
  for (std::string_view item : split(text, ',')) {
    const size_t dash = item.find('-');
    auto first = parse_int(field, item.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : parse_int(field, item.substr(dash + 1));
    if (!first.ok() || !last.ok())
      return invalid_field(field, text,
                           str_cat("bad item '", item, "'; expected N or N-M, e.g. 0-15,32-47"));
    if (*last < *first)
      return invalid_field(field, text, str_cat("range '", item, "' runs backwards"));
    if (*last >= limit)
      return invalid_field(
          field, text, str_cat("host ", *last, " is out of range (cluster has ", limit, " hosts)"));
    if (static_cast<int64_t>(hosts.size()) + (*last - *first + 1) > limit)
      return invalid_field(field, text, str_cat("lists more than the ", limit, " hosts there are"));
    for (int64_t h = *first; h <= *last; ++h) hosts.push_back(HostId{static_cast<int32_t>(h)});
  }
  std::vector<HostId> sorted = hosts;
  std::sort(sorted.begin(), sorted.end());
  if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end())
    return invalid_field(field, text, str_cat("host ", dup->value(), " is listed twice"));
  return hosts;
}

namespace detail {
[[nodiscard]] constexpr int64_t raw_id(int32_t id) { return id; }
template <class Tag, class Rep>
[[nodiscard]] constexpr int64_t raw_id(StrongId<Tag, Rep> id) {
  return id.value();
}
}  // namespace detail

// Formats ids (plain ints or strong ids) as the shortest list of ascending runs,
// in the given order: {0,1,2,3,7} -> "0-3,7".
template <class Range>
[[nodiscard]] std::string format_id_list(const Range& ids) {
  std::string out;
  const auto n = static_cast<size_t>(std::size(ids));
  auto at = [&](size_t i) { return detail::raw_id(ids[i]); };
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && at(j + 1) == at(j) + 1) ++j;
    if (!out.empty()) out += ',';
    str_append(out, at(i));
    if (j > i) str_append(out, "-", at(j));
    i = j + 1;
  }
  return out;
}

// A host list in the grammar parse_host_list reads:
// parse_host_list(format_host_list(x)) == x.
[[nodiscard]] inline std::string format_host_list(std::span<const HostId> hosts) {
  return format_id_list(hosts);
}

// Byte sizes: plain bytes ("1048576"), binary suffixes KiB MiB GiB TiB, decimal
// suffixes K KB M MB G GB T TB (powers of 1000), optional trailing B ("512B").
// Suffixes are case-insensitive. Fractions are not accepted.
[[nodiscard]] inline StatusOr<uint64_t> parse_size(std::string_view field,
                                                         std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0)
    return invalid_field(field, text, "expected a size such as 4096, 256MiB or 1GiB");
  // The number is read as a uint64 (not via parse_int's int64) so that every
  // size this returns can be written back as plain bytes and read again.
  uint64_t number = 0;
  if (std::from_chars(text.data(), text.data() + digits, number).ec != std::errc())
    return invalid_field(field, text, "size is too large");
  const std::string suffix = to_lower(text.substr(digits));
  struct Unit {
    std::string_view name;
    uint64_t scale;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},
      {"b", 1},
      {"k", 1000},
      {"kb", 1000},
      {"kib", kKiB},
      {"m", 1000000},
      {"mb", 1000000},
      {"mib", kMiB},
      {"g", 1000000000},
      {"gb", 1000000000},
      {"gib", kGiB},
      {"t", 1000000000000},
      {"tb", 1000000000000},
      {"tib", kTiB},
  };
  for (const Unit& unit : kUnits) {
    if (suffix != unit.name) continue;
    if (number > std::numeric_limits<uint64_t>::max() / unit.scale)
      return invalid_field(field, text, "size is too large");
    return number * unit.scale;
  }
  if (text[digits] == '.')
    return invalid_field(field, text,
                         "fractions are not accepted; use a smaller unit (1536MiB, not 1.5GiB)");
  return invalid_field(field, text,
                       str_cat("unknown size suffix '", text.substr(digits),
                               "'; use B, KiB, MiB, GiB, TiB or K, M, G, T"));
}

namespace detail {
// A byte bound as written in messages: 2^k for powers of two from 2^10 up.
[[nodiscard]] inline std::string byte_bound_text(uint64_t v) {
  if (v >= 1024 && (v & (v - 1)) == 0) return str_cat("2^", std::countr_zero(v));
  return str_cat(v);
}
}  // namespace detail

// A byte size (parse_size) in [lo, hi]; the error gives the size in bytes and
// the bounds ("0 bytes is outside [1, 2^50]").
[[nodiscard]] inline StatusOr<uint64_t> parse_size_in(std::string_view field,
                                                      std::string_view text, uint64_t lo,
                                                      uint64_t hi) {
  RAILYARD_ASSIGN_OR_RETURN(uint64_t bytes, parse_size(field, text));
  if (bytes < lo || bytes > hi)
    return invalid_field(field, text,
                         str_cat(bytes, " bytes is outside [", detail::byte_bound_text(lo), ", ",
                                 detail::byte_bound_text(hi), "]"));
  return bytes;
}

}  // namespace railyard
