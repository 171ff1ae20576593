// railyard/core/hostlist.hpp — Slurm hostlist expressions: compress a list of host
// names into `node[0000-0031],login1` and expand such an expression back.
//
//   std::vector<std::string> names = {"node0000", "node0001", "node0002", "gpu7"};
//   std::string text = railyard::compress_hostlist(names);    // "node[0000-0002],gpu7"
//   auto back = railyard::expand_hostlist(text);              // StatusOr, same 4 names
//
// The grammar is Slurm's (src/common/hostlist.c, checked against the 22.05
// `scontrol show hostnames` of Debian 12):
// * Expressions are separated by ',', ' ' or '\t' outside brackets (hostlist_create
//   passes the separators "\t, "); empty items (`a,,b`) are skipped.
// * `prefix[ranges]`: ranges are comma-separated `N` or `LO-HI` (decimal, LO <= HI,
//   at most 65536 names per range: MAX_RANGE). The zero-padding width of a range is
//   the digit count of LO (_parse_single_range: `range->width = strlen(str)`), and
//   numbers are printed "%0*lu": `a[01-10]` gives a01..a10, `a[1-010]` gives
//   a1..a10, `a[9-11]` gives a9, a10, a11.
// * Several bracket groups in one name expand as a product, the first group
//   slowest: `rack[1-2]n[1-2]` gives rack1n1 rack1n2 rack2n1 rack2n2
//   (_push_range_list recurses on the prefix). Nothing may follow the last ']'
//   (`n[1-2]-ib` is invalid in Slurm too).
// expand_hostlist() is stricter than Slurm where Slurm silently guesses: it
// rejects `a[1-]` (Slurm reads a1), an unclosed `a[1-2` (Slurm: "a]") and a stray
// `]` (Slurm keeps `a1-2]` as a name). Errors quote the offending item.
//
// compress_hostlist() keeps the order of its input, so that
// expand_hostlist(compress_hostlist(names)) == names for any names free of
// ',', '[', ']' and whitespace; sorted input gives the shortest text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard {

// Slurm's limit on the names in one `LO-HI` range (hostlist.c MAX_RANGE).
inline constexpr uint64_t kMaxHostlistRange = 64 * 1024;
// railyard's limit on the names one expression may expand to (guards a[0-9][0-9]...).
inline constexpr size_t kMaxHostlistNames = size_t{1} << 20;

namespace detail {

// A host name as prefix + trailing decimal number (Slurm's hostname_create view).
struct NumberedName {
  std::string_view prefix;
  std::string_view digits;  // empty: the name has no trailing number
  uint64_t number = 0;
};

inline NumberedName split_trailing_number(std::string_view name) {
  size_t start = name.size();
  while (start > 0 && is_digit(name[start - 1])) --start;
  NumberedName out{name, {}, 0};
  const size_t count = name.size() - start;
  if (count == 0 || count > 18) return out;  // 18 digits always fit in uint64_t
  out.prefix = name.substr(0, start);
  out.digits = name.substr(start);
  for (char c : out.digits) out.number = out.number * 10 + static_cast<uint64_t>(c - '0');
  return out;
}

// `n` zero-padded to at least `width` digits ("%0*lu").
inline std::string padded_number(uint64_t n, size_t width) {
  std::string digits = str_cat(n);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

inline bool is_hostlist_separator(char c) { return c == ',' || c == ' ' || c == '\t'; }

struct NumberRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

inline Status hostlist_error(std::string_view item, std::string_view problem) {
  return invalid_argument_error(str_cat("hostlist item \"", item, "\": ", problem));
}

// The ranges between one pair of brackets, e.g. "0-3,7,010-012".
inline StatusOr<std::vector<NumberRange>> parse_ranges(std::string_view body,
                                                             std::string_view item) {
  std::vector<NumberRange> out;
  for (std::string_view part : split(body, ',')) {
    const size_t dash = part.find('-');
    const std::string_view lo = part.substr(0, dash);
    const std::string_view hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
    auto number = [](std::string_view digits, uint64_t& value) {
      if (digits.empty() || digits.size() > 18) return false;
      value = 0;
      for (char c : digits) {
        if (!is_digit(c)) return false;
        value = value * 10 + static_cast<uint64_t>(c - '0');
      }
      return true;
    };
    NumberRange r;
    r.width = lo.size();
    if (!number(lo, r.lo) || !number(hi, r.hi))
      return hostlist_error(
          item, str_cat("bad range '", part, "' (use N or LO-HI with decimal numbers, e.g. 0-31)"));
    if (r.lo > r.hi) return hostlist_error(item, str_cat("range '", part, "' runs backwards"));
    if (r.hi - r.lo + 1 > kMaxHostlistRange)
      return hostlist_error(
          item, str_cat("range '", part, "' has more than ", kMaxHostlistRange, " names"));
    out.push_back(r);
  }
  return out;
}

}  // namespace detail

// Expands a Slurm hostlist expression into names, in expression order
// (duplicates kept, as Slurm keeps them). Errors name the offending item:
// unbalanced or nested brackets, text after the last ']', empty or non-numeric
// ranges, LO > HI, over 65536 names in a range or over kMaxHostlistNames in all.
[[nodiscard]] inline StatusOr<std::vector<std::string>> expand_hostlist(
    std::string_view text) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < text.size()) {
    if (detail::is_hostlist_separator(text[i])) {
      ++i;
      continue;
    }
    // One item: up to the next separator outside brackets.
    size_t end = i;
    int depth = 0;
    while (end < text.size() && (depth > 0 || !detail::is_hostlist_separator(text[end]))) {
      if (text[end] == '[') ++depth;
      if (text[end] == ']') --depth;
      if (depth < 0 || depth > 1) break;
      ++end;
    }
    // Scan forward to the item's natural end for the error message.
    size_t item_end = end;
    while (item_end < text.size() && !detail::is_hostlist_separator(text[item_end])) ++item_end;
    const std::string_view item = text.substr(i, std::max(item_end, end) - i);
    if (depth > 1) return detail::hostlist_error(item, "nested '['");
    if (depth < 0) return detail::hostlist_error(item, "']' without '['");
    if (depth > 0) return detail::hostlist_error(item, "'[' without ']'");
    const std::string_view token = text.substr(i, end - i);
    // Split into literal pieces and bracket groups.
    std::vector<std::string_view> literals;  // literals[k] precedes groups[k]
    std::vector<std::vector<detail::NumberRange>> groups;
    size_t pos = 0;
    for (;;) {
      const size_t open = token.find('[', pos);
      if (open == std::string_view::npos) break;
      const size_t close = token.find(']', open);
      literals.push_back(token.substr(pos, open - pos));
      auto ranges = detail::parse_ranges(token.substr(open + 1, close - open - 1), token);
      if (!ranges.ok()) return ranges.status();
      groups.push_back(*std::move(ranges));
      pos = close + 1;
    }
    const std::string_view tail = token.substr(pos);
    if (!groups.empty() && !tail.empty())
      return detail::hostlist_error(
          token, str_cat("text '", tail, "' after the last ']' (Slurm allows none)"));
    if (groups.empty()) {
      names.emplace_back(token);
    } else {
      uint64_t count = 1;
      for (const auto& g : groups) {
        uint64_t n = 0;
        for (const auto& r : g) n += r.hi - r.lo + 1;
        count *= n;
        if (count + names.size() > kMaxHostlistNames)
          return detail::hostlist_error(
              token, str_cat("expands to more than ", kMaxHostlistNames, " names"));
      }
      // Odometer over the groups, the last group fastest.
      std::vector<size_t> range_at(groups.size(), 0);
      std::vector<uint64_t> value(groups.size());
      for (size_t g = 0; g < groups.size(); ++g) value[g] = groups[g][0].lo;
      for (bool more = true; more;) {
        std::string name;
        for (size_t g = 0; g < groups.size(); ++g)
          str_append(name, literals[g],
                     detail::padded_number(value[g], groups[g][range_at[g]].width));
        names.push_back(std::move(name));
        more = false;
        for (size_t g = groups.size(); g-- > 0;) {
          if (value[g] < groups[g][range_at[g]].hi) {
            ++value[g];
          } else if (range_at[g] + 1 < groups[g].size()) {
            value[g] = groups[g][++range_at[g]].lo;
          } else {  // this group wraps around; carry into the one before
            range_at[g] = 0;
            value[g] = groups[g][0].lo;
            continue;
          }
          more = true;
          break;
        }
      }
    }
    i = end;
  }
  return names;
}

// Compresses names into a hostlist expression, keeping their order. Names that
// end in a number are grouped by prefix: consecutive numbers whose spelling
// matches one zero-padded width join a range (`n[0000-0031]`, `n[9-11]`), runs of
// one prefix share brackets (`n[0-3,7]`); a group is written as plain names when
// that is shorter (`n7`, `x1,x7`), names without a trailing number as they are;
// groups are joined by ','. Never longer than the names joined by ','.
// Precondition: no name is empty or contains ',', '[', ']' or whitespace.
// Linear in the total length of the names.
template <class Range>
[[nodiscard]] std::string compress_hostlist(const Range& names) {
  struct Run {
    std::string_view prefix;
    std::string_view first_digits;
    bool numbered = false;
    uint64_t lo = 0, hi = 0;
  };
  std::vector<Run> runs;
  for (const auto& n : names) {
    const std::string_view name(n);
    const detail::NumberedName parts = detail::split_trailing_number(name);
    if (parts.digits.empty()) {
      runs.push_back({name, {}, false, 0, 0});
      continue;
    }
    if (!runs.empty()) {
      Run& last = runs.back();
      // Joining needs the next number and the spelling Slurm would print for it,
      // and room in the range: expand_hostlist() (like Slurm) rejects a range of
      // more than kMaxHostlistRange names, so a longer run starts a new range.
      if (last.numbered && last.prefix == parts.prefix && parts.number == last.hi + 1 &&
          last.hi - last.lo + 1 < kMaxHostlistRange &&
          detail::padded_number(parts.number, last.first_digits.size()) == parts.digits) {
        last.hi = parts.number;
        continue;
      }
    }
    runs.push_back({parts.prefix, parts.digits, true, parts.number, parts.number});
  }
  std::string out;
  for (size_t i = 0; i < runs.size();) {
    if (!out.empty()) out += ',';
    const Run& first = runs[i];
    if (!first.numbered) {
      out += first.prefix;
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < runs.size() && runs[j].numbered && runs[j].prefix == first.prefix) ++j;
    // Brackets unless listing the names is shorter (a single name, or a short
    // prefix on few names: `x1,x7` rather than `x[1,7]`).
    size_t bracketed = first.prefix.size() + 2 + (j - i - 1);
    for (size_t k = i; k < j; ++k)
      bracketed += runs[k].first_digits.size() +
                   (runs[k].hi != runs[k].lo
                        ? 1 + detail::padded_number(runs[k].hi, runs[k].first_digits.size()).size()
                        : 0);
    size_t listed = 0;
    for (size_t k = i; k < j && listed <= bracketed; ++k)
      for (uint64_t v = runs[k].lo; v <= runs[k].hi && listed <= bracketed; ++v)
        listed += (listed > 0 ? 1 : 0) + first.prefix.size() +
                  detail::padded_number(v, runs[k].first_digits.size()).size();
    if (listed < bracketed) {
      for (size_t k = i; k < j; ++k)
        for (uint64_t v = runs[k].lo; v <= runs[k].hi; ++v)
          str_append(out, k == i && v == runs[k].lo ? "" : ",", first.prefix,
                     detail::padded_number(v, runs[k].first_digits.size()));
      i = j;
      continue;
    }
    str_append(out, first.prefix, '[');
    for (size_t k = i; k < j; ++k) {
      const Run& r = runs[k];
      if (k > i) out += ',';
      out += r.first_digits;
      if (r.hi != r.lo) str_append(out, '-', detail::padded_number(r.hi, r.first_digits.size()));
    }
    out += ']';
    i = j;
  }
  return out;
}

}  // namespace railyard
