// railyard/topology/import/csv_topology.hpp — a cluster's switch tree as plain CSV rows
// `host,leaf,spine[,core]`, the shape of public real-cluster topology dumps:
// one row per host naming its leaf switch, the leaf's spine and (four columns)
// the spine's core. Import builds a SwitchTree (then fabric_from_tree() gives
// the Fabric); export writes the same form back.
//
//   railyard::StatusOr<railyard::topology::SwitchTree> tree =
//       railyard::topology::csv_topology_from_text("host,leaf,spine\nn0,l0,s0\nn1,l1,s0\n");
//   auto fabric = railyard::topology::fabric_from_tree(*tree, railyard::topology::LinkSpeeds{});
//   railyard::StatusOr<std::string> csv = railyard::exports::csv_topology_from_tree(*tree);  // same text
//
// Input rules (the CSV dialect of core/csv.hpp, plus what the format needs):
// * Lines end in LF or CRLF; a UTF-8 byte-order mark at the very start is
//   skipped. Lines are numbered from 1, counting every line.
// * Blank lines and lines whose first non-blank character is '#' are skipped.
// * The first remaining line is a header when its first field is `host` or
//   `hostname` (any case); the other header fields may be any names. Those two
//   words are therefore not usable as host names, and a header-like row later
//   in the file is an error (two files pasted together).
// * Every row (and the header) has the same number of fields, 3 or 4.
// * Fields are separated by ',' with spaces and tabs around them ignored; no
//   quoting. A field must be non-empty valid UTF-8 without whitespace, control
//   characters or '"'.
// * Each host appears once; a leaf has one spine and a spine one core across
//   all rows; a name belongs to one thing only (a host, or a switch of one
//   level).
// Every error is a Status naming the line number, the column (host, leaf,
// spine, core; header for a header field, row for a whole row) and the
// offending token, e.g.
// `line 7: leaf=l3: under spine 's2' here but under 's1' on line 4`, with the
// column and the token attached (error_field()); a token that would not print is
// shown with \xNN escapes. No partial tree is returned.
//
// Order in the tree: hosts by first appearance (row order); switches grouped by
// level (leaves, then spines, then cores), each level in order of first
// appearance. So a tree exported by csv_topology_from_tree() and read back is
// the same tree whenever its switches were already in that order (true for
// every switch_tree(descriptor)), and canonical text (what the exporter writes:
// the header, one row per host, LF endings) reads and writes back to identical
// bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/csv.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/utf8.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::topology {

// The dump's token rules, shared by the reader and the writer
// (export/csv_topology.hpp).

// Offset of the first byte that breaks UTF-8 (overlong forms, surrogates and
// code points above U+10FFFF included), or npos. Calls on_code_point(cp, offset)
// for every decoded code point before that: for_each_utf8() (core/utf8.hpp)
// under the importer's name.
template <class F>
size_t csv_utf8_scan(std::string_view s, F&& on_code_point) {
  return for_each_utf8(s, std::forward<F>(on_code_point));
}

// Whitespace, control and invisible code points that must not be in a name.
constexpr bool csv_blank_or_control(uint32_t cp) {
  return cp <= 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0xa0) || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200b) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
         cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

// For messages: the token readable whatever it holds: control, whitespace (but
// ' ') and invisible characters, and every non-ASCII byte of a token that is not
// valid UTF-8, as \xNN.
RAILYARD_LAZY
std::string csv_escaped(std::string_view s) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::vector<bool> escape(s.size(), true);
  const bool utf8 =
      csv_utf8_scan(s, [&](uint32_t cp, size_t at) {
        const bool keep = cp == ' ' || !csv_blank_or_control(cp);
        for (size_t k = at;
             k < s.size() && (k == at || (static_cast<unsigned char>(s[k]) & 0xc0) == 0x80); ++k)
          escape[k] = !keep;
      }) == std::string_view::npos;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    const bool raw = utf8 ? !escape[i] : (u >= 0x20 && u < 0x7f);
    if (raw)
      out += s[i];
    else
      str_append(out, "\\x", kHex[u >> 4], kHex[u & 15]);
  }
  return out;
}

// csv_escaped() in single quotes.
RAILYARD_LAZY
std::string csv_quoted(std::string_view s) { return str_cat("'", csv_escaped(s), "'"); }

RAILYARD_LAZY
std::string csv_code_point(uint32_t cp) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string digits;
  for (uint32_t v = cp; v > 0 || digits.size() < 4; v >>= 4)
    digits.insert(digits.begin(), kHex[v & 15]);
  return str_cat("U+", digits);
}

// Empty when `token` may be a name, else the problem.
RAILYARD_LAZY
std::string csv_token_problem(std::string_view token) {
  if (token.empty()) return "empty field";
  std::string problem;
  const size_t bad = csv_utf8_scan(token, [&](uint32_t cp, size_t at) {
    if (!problem.empty()) return;
    if (cp == ' ')
      problem = str_cat("contains a space at byte ", at);
    else if (csv_blank_or_control(cp))
      problem = str_cat("contains whitespace or a control character (", csv_code_point(cp),
                        ") at byte ", at);
    else if (cp == '"')
      problem = "contains '\"' (quoted CSV fields are not supported)";
    else if (cp == ',')
      problem = "contains ','";
  });
  if (bad != std::string_view::npos)
    return str_cat("not valid UTF-8 (byte ", csv_quoted(token.substr(bad, 1)), " at byte ", bad,
                   ")");
  return problem;
}

// A first row starting with one of these (any case) is the header.
inline constexpr std::string_view kCsvHeaderWords[] = {"host", "hostname"};

// Whether a first field names the header row (the export refuses such host names).
RAILYARD_LAZY
bool csv_is_header_word(std::string_view first_field) {
  return csv_is_one_of(first_field, kCsvHeaderWords);
}

inline constexpr std::string_view kCsvRoles[4] = {"host", "leaf", "spine", "core"};


// Reads `host,leaf,spine[,core]` rows (rules in the header comment) into a
// SwitchTree with 2 (three columns) or 3 (four columns) switch levels. The
// result passes validate_tree(). Complexity O(text size x log names).
RAILYARD_LAZY
[[nodiscard]] StatusOr<SwitchTree> csv_topology_from_text(std::string_view text) {
  struct Name {
    int level;      // 0 host, 1 leaf, 2 spine, 3 core
    int32_t index;  // within its level
    int64_t line;   // first appearance
  };
  struct Sw {
    std::string name;
    int32_t parent = -1;  // index within the next level up
    int64_t parent_line = 0;
  };
  std::map<std::string, Name, std::less<>> names;
  std::vector<std::string> hosts;
  std::vector<int32_t> leaf_of_host;
  std::vector<Sw> switches[4];  // by level 1..3
  size_t columns = 0;
  int64_t first_row_line = 0;  // the header or first data row: sets the column count
  CsvReader reader(text);
  CsvRecord row;
  // "line N: <field>=<token>: problem", the token escaped when it would not print.
  auto error = [&row](std::string_view field, std::string_view token, std::string_view problem) {
    return csv_error(row.line, field, token, problem, csv_escaped(token));
  };
  while (reader.next(row)) {
    const int64_t line_no = row.line;
    const std::vector<std::string_view>& fields = row.fields;
    const bool header_like = csv_is_header(row, kCsvHeaderWords);
    const bool is_header = header_like && first_row_line == 0;
    if (columns == 0) {
      if (fields.size() != 3 && fields.size() != 4)
        return error(
            "row", row.text,
            str_cat(fields.size(), " fields; expected host,leaf,spine or host,leaf,spine,core"));
      columns = fields.size();
    } else if (fields.size() != columns) {
      return error("row", row.text,
                   str_cat(fields.size(), " fields; line ", first_row_line, " has ", columns));
    }
    for (size_t c = 0; c < fields.size(); ++c)
      if (std::string problem = csv_token_problem(fields[c]); !problem.empty())
        return error(is_header ? "header" : kCsvRoles[c], fields[c], problem);
    if (first_row_line == 0) first_row_line = line_no;
    if (is_header) continue;
    if (header_like)
      return error("host", fields[0],
                   str_cat("a header row after line ", first_row_line,
                           " ('host' and 'hostname' only name the header)"));
    // Why `n` cannot be reused as a thing of level `level`.
    auto where = [](const Name& n, int level) {
      if (n.level == 0 && level == 0) return str_cat("listed twice (first on line ", n.line, ")");
      return str_cat("already a ", kCsvRoles[n.level], n.level == 0 ? "" : " switch",
                     " (line ", n.line, ")");
    };
    if (auto it = names.find(fields[0]); it != names.end())
      return error("host", fields[0], where(it->second, 0));
    // Switches bottom-up: find or create, and check the parent is consistent.
    int32_t below = -1;  // index of the switch one level down, created or found
    int32_t leaf = -1;
    for (int level = 1; level < static_cast<int>(columns); ++level) {
      const std::string_view token = fields[static_cast<size_t>(level)];
      const std::string_view role = kCsvRoles[level];
      int32_t index = 0;
      if (auto it = names.find(token); it != names.end()) {
        if (it->second.level != level) return error(role, token, where(it->second, level));
        index = it->second.index;
      } else {
        if (token == fields[0]) return error(role, token, "same name as the host on this row");
        index = static_cast<int32_t>(switches[level].size());
        switches[level].push_back({std::string(token), -1, 0});
        names.emplace(std::string(token), Name{level, index, line_no});
      }
      if (level == 1) leaf = index;
      if (below >= 0) {
        Sw& child = switches[level - 1][static_cast<size_t>(below)];
        if (child.parent < 0) {
          child.parent = index;
          child.parent_line = line_no;
        } else if (child.parent != index) {
          return error(kCsvRoles[level - 1], child.name,
                       str_cat("under ", role, " ", csv_quoted(token), " here but under ",
                               csv_quoted(switches[level][static_cast<size_t>(child.parent)].name),
                               " on line ", child.parent_line));
        }
      }
      below = index;
    }
    names.emplace(std::string(fields[0]), Name{0, static_cast<int32_t>(hosts.size()), line_no});
    hosts.emplace_back(fields[0]);
    leaf_of_host.push_back(leaf);
  }
  if (hosts.empty())
    return invalid_argument_error(
        str_cat("line ", reader.line(), ": no host rows (only blank lines, comments or a header)"));

  SwitchTree tree;
  tree.hosts = std::move(hosts);
  int32_t first[5] = {0, 0, 0, 0, 0};  // first tree index of each level
  for (int level = 1; level <= 3; ++level)
    first[level + 1] = first[level] + static_cast<int32_t>(switches[level].size());
  for (int level = 1; level <= 3; ++level)
    for (const Sw& sw : switches[level]) tree.switches.push_back({sw.name, level, {}, {}});
  for (size_t h = 0; h < leaf_of_host.size(); ++h)
    tree.switches[static_cast<size_t>(first[1] + leaf_of_host[h])].hosts.push_back(
        static_cast<int32_t>(h));
  for (int level = 1; level <= 2; ++level)
    for (size_t i = 0; i < switches[level].size(); ++i)
      if (const int32_t p = switches[level][i].parent; p >= 0)
        tree.switches[static_cast<size_t>(first[level + 1] + p)].children.push_back(
            first[level] + static_cast<int32_t>(i));
  RAILYARD_RETURN_IF_ERROR(validate_tree(tree));
  return tree;
}

// csv_topology_from_text() then fabric_from_tree().
RAILYARD_LAZY
[[nodiscard]] StatusOr<topology::Fabric> fabric_from_csv(std::string_view text,
                                                                      const LinkSpeeds& speeds) {
  RAILYARD_ASSIGN_OR_RETURN(SwitchTree tree, csv_topology_from_text(text));
  return fabric_from_tree(tree, speeds);
}

}  // namespace railyard::topology
