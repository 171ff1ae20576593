// railyard/report/format.hpp — the small formatting helpers every report shares:
// numbers rounded for JSON, columns padded for text tables, percentages.
//
//   railyard::report::rounded(0.123456, 3);          // 0.123 (a double, for JSON)
//   railyard::report::padded("util%", 8);            // "util%   "
//   railyard::report::padded("12.5", 8, Align::kRight);  // "    12.5"
//   railyard::report::percent(0.5);                  // "50.0%"
//   railyard::report::su_count_text(100, 32);        // "4 SUs of 32 hosts (the last has 4)"
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "railyard/core/strings.hpp"

namespace railyard::report {

// `x` rounded to `decimals` places (non-finite values unchanged): what JSON
// reports print, so that last-digit noise never reaches a diff.
[[nodiscard]] inline double rounded(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

enum class Align : bool { kLeft, kRight };

// `s` padded with spaces to `width` columns (never cut).
[[nodiscard]] inline std::string padded(std::string s, size_t width, Align align = Align::kLeft) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return align == Align::kRight ? fill + s : s + fill;
}

// A fraction as a percentage with `decimals` places: 0.5 -> "50.0%".
[[nodiscard]] inline std::string percent(double fraction, int decimals = 1) {
  return fixed(100.0 * fraction, decimals) + "%";
}

// "N SUs of S hosts" for `hosts` in SUs of `hosts_per_su`, naming the size of a
// partial last SU: reports must not let a reader multiply N by S.
[[nodiscard]] inline std::string su_count_text(int64_t hosts, int64_t hosts_per_su) {
  const int64_t sus = (hosts + hosts_per_su - 1) / hosts_per_su;
  std::string out = str_cat(sus, sus == 1 ? " SU of " : " SUs of ", hosts_per_su, " hosts");
  const int64_t last = hosts - (sus - 1) * hosts_per_su;
  if (last != hosts_per_su)
    str_append(out, sus == 1 ? " (partial: " : " (the last has ", last, ")");
  return out;
}

}  // namespace railyard::report
