// railyard/topology/import/cable_list.hpp — a fabric as its cables: one row per
// cable `a_node,a_port,b_node,b_port[,gbps]`, the shape LLDP neighbour tables,
// cabling plans and DCIM exports reduce to. The rows become a CableList, which
// fit_cables() (cable_fit.hpp) turns into a regular cluster spec plus the
// cables that are missing or miswired in it. ibnetdiscover.hpp produces the
// same CableList from InfiniBand discovery output.
//
//   railyard::StatusOr<railyard::topology::CableList> cables =
//       railyard::topology::cable_list_from_text(
//           "a_node,a_port,b_node,b_port,gbps\n"
//           "gpu01,eth0,leaf-r0,swp1,400\n");
//   // cables->cables[0].a.node == "gpu01", cables->cables[0].gbps == 400
//
// Input rules (the CSV dialect of core/csv.hpp, as csv_topology.hpp reads it):
// * LF or CRLF line ends; a UTF-8 byte-order mark at the start is skipped;
//   blank lines and lines whose first non-blank character is '#' are skipped;
//   lines are numbered from 1 counting every line.
// * The first remaining line is a header when its first field is one of
//   kCableHeaderWords (a_node, node_a, a_device, device_a, local_device,
//   local_node; any case); those words cannot name a node in the first column.
// * Every row has the same number of fields: 4 (no speed) or 5 (the cable's
//   speed in Gb/s, a whole number from 1 to 1,000,000).
// * Names follow csv_token_problem() (non-empty UTF-8, no whitespace, control
//   characters, ',' or '"').
// * A cable joins two different nodes, and a port (node, port name) carries one
//   cable: a port named on two rows is an error naming both lines.
// Which nodes are hosts and which are switches is not in the file: the fit
// infers it (cable_fit.hpp says how). Errors are InvalidArgument reading
// `line N: <column>=<token>: <problem>` with the column and token attached
// (error_field()); no partial list is returned.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/csv.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/import/csv_topology.hpp"

namespace railyard::topology {

// What a node is, when the format says (ibnetdiscover's Ca and Switch); a cable
// list leaves it to the fit.
enum class CableNodeKind : uint8_t { kUnknown, kHost, kSwitch };

// One end of a cable: a node and the name of its port.
struct CableEnd {
  std::string node;
  std::string port;
  friend bool operator==(const CableEnd&, const CableEnd&) = default;
};

struct Cable {
  CableEnd a;
  CableEnd b;
  int32_t gbps = 0;  // 0: the file gives no speed
  int64_t line = 0;  // where the cable is written (1-based), for messages
  friend bool operator==(const Cable&, const Cable&) = default;
};

// Every cable of a file, in file order, and what the file says each node is.
struct CableList {
  std::vector<Cable> cables;
  std::map<std::string, CableNodeKind, std::less<>> kinds;  // empty for a cable list
};

inline constexpr std::string_view kCableHeaderWords[] = {"a_node",   "node_a",       "a_device",
                                                         "device_a", "local_device", "local_node"};
inline constexpr std::string_view kCableColumns[5] = {"a_node", "a_port", "b_node", "b_port",
                                                      "gbps"};
// The fastest cable a row may give (Gb/s): far above any link built today, low
// enough that no product with a count overflows.
inline constexpr int64_t kMaxCableGbps = 1000000;

// "name" sorts before "name2" and "x9" before "x10": digit runs compare as
// numbers (leading zeros ignored, then the shorter run first), everything
// else byte by byte. Names such as gpu9 / gpu10 or swp2 / swp10 come out in the
// order people number them.
[[nodiscard]] inline bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      const std::string_view da = a.substr(zi, ei - zi), db = b.substr(zj, ej - zj);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      if (ei - i != ej - j) return ei - i < ej - j;  // fewer leading zeros first
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

// Reads `a_node,a_port,b_node,b_port[,gbps]` rows (rules in the header comment).
// O(text size x log ports).
RAILYARD_LAZY
[[nodiscard]] StatusOr<CableList> cable_list_from_text(std::string_view text) {
  CableList out;
  std::map<std::pair<std::string, std::string>, int64_t, std::less<>> port_line;
  size_t columns = 0;
  int64_t first_row_line = 0;
  CsvReader reader(text);
  CsvRecord row;
  auto error = [&row](std::string_view field, std::string_view token, std::string_view problem) {
    return csv_error(row.line, field, token, problem, csv_escaped(token));
  };
  while (reader.next(row)) {
    const std::vector<std::string_view>& f = row.fields;
    const bool header_like = csv_is_header(row, kCableHeaderWords);
    const bool is_header = header_like && first_row_line == 0;
    if (columns == 0) {
      if (f.size() != 4 && f.size() != 5)
        return error("row", row.text,
                     str_cat(f.size(), " fields; expected a_node,a_port,b_node,b_port[,gbps]"));
      columns = f.size();
    } else if (f.size() != columns) {
      return error("row", row.text,
                   str_cat(f.size(), " fields; line ", first_row_line, " has ", columns));
    }
    for (size_t c = 0; c < f.size(); ++c)
      if (std::string problem = csv_token_problem(f[c]); !problem.empty())
        return error(is_header ? "header" : kCableColumns[c], f[c], problem);
    if (first_row_line == 0) first_row_line = row.line;
    if (is_header) continue;
    if (header_like)
      return error("a_node", f[0],
                   str_cat("a header row after line ", first_row_line,
                           " (that word only names the header)"));
    if (f[2] == f[0])
      return error("b_node", f[2], "same node as a_node: a cable joins two different nodes");
    Cable cable{{std::string(f[0]), std::string(f[1])},
                {std::string(f[2]), std::string(f[3])},
                0,
                row.line};
    if (columns == 5) {
      auto gbps = parse_int("gbps", f[4]);
      if (!gbps.ok() || *gbps < 1 || *gbps > kMaxCableGbps)
        return error("gbps", f[4],
                     str_cat("expected a whole number of Gb/s from 1 to ", kMaxCableGbps));
      cable.gbps = static_cast<int32_t>(*gbps);
    }
    for (int side = 0; side < 2; ++side) {
      const CableEnd& end = side == 0 ? cable.a : cable.b;
      auto [it, fresh] = port_line.try_emplace({end.node, end.port}, row.line);
      if (!fresh)
        return error(kCableColumns[side * 2 + 1], end.port,
                     str_cat("port ", csv_quoted(end.port), " of ", csv_quoted(end.node),
                             " already carries the cable on line ", it->second));
    }
    out.cables.push_back(std::move(cable));
  }
  if (out.cables.empty())
    return invalid_argument_error(str_cat(
        "line ", reader.line(), ": no cable rows (only blank lines, comments or a header)"));
  return out;
}

}  // namespace railyard::topology
