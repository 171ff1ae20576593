// Fuzz targets for railyard's file importers: Slurm topology.conf
// (topology/import/slurm_conf.hpp), host,leaf,spine[,core] CSV (topology/import/csv_topology.hpp) and
// the measured ECMP table of spraying (routing/hash.hpp).
//
// Each target checks a rejection for an InvalidArgument message naming a line
// of the input (and the token where the format says so), and an accepted
// input for what the importer promises: the tree's invariants, an
// export -> import round trip to the same value and byte-identical re-export,
// the Fabric built from a small tree mapping back to the same tree, and (for
// CSV and the hash table) agreement with a small reference reader written
// here from the documented grammar.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../support/utf8_reference.hpp"
#include "fuzz_target.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/export/csv_topology.hpp"
#include "railyard/export/slurm.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/routing/hash.hpp"

// Everything in this file is in its own namespace: the fuzz targets compile in
// one unity batch (tests/fuzz/CMakeLists.txt).
namespace railyard_fuzz_import_fuzz {

namespace {

using railyard::fuzz::kMaxInput;
namespace exports = railyard::exports;
namespace routing = railyard::routing;
namespace topology = railyard::topology;
using railyard::str_cat;

// Trees up to this many hosts also get a Fabric built and mapped back.
constexpr size_t kMaxFabricHosts = 4096;
// Files whose hostlists could expand to more names than this are skipped.
constexpr uint64_t kMaxNames = 16384;

std::string message_text(const absl::Status& s) { return std::string(s.message()); }

// 1 + the number of '\n': the physical lines every importer numbers from 1.
int64_t line_count(std::string_view text) {
  return 1 + static_cast<int64_t>(std::count(text.begin(), text.end(), '\n'));
}

// The number N of a message starting with `prefix` N, or -1.
int64_t number_after(std::string_view message, std::string_view prefix) {
  if (message.substr(0, prefix.size()) != prefix) return -1;
  int64_t n = 0;
  size_t i = prefix.size();
  if (i >= message.size() || !railyard::is_digit(message[i])) return -1;
  for (; i < message.size() && railyard::is_digit(message[i]) && n < (int64_t{1} << 40); ++i)
    n = n * 10 + (message[i] - '0');
  return n;
}

// What every tree an importer returns satisfies, checked without
// validate_tree(): levels 1..3 in non-decreasing order, leaves hold hosts and
// upper switches hold switches exactly one level down, sorted and unique
// lists, each host under exactly one leaf, no name used twice.
void check_tree_invariants(const topology::SwitchTree& tree) {
  RAILYARD_FUZZ_CHECK(!tree.hosts.empty() && !tree.switches.empty(),
                      "a tree has hosts and switches");
  std::vector<int> leaves_of_host(tree.hosts.size(), 0);
  std::set<std::string_view> names;
  int previous_level = 1;
  for (const topology::SwitchTree::Switch& sw : tree.switches) {
    RAILYARD_FUZZ_CHECK(sw.level >= 1 && sw.level <= 3, "at most 3 switch levels");
    RAILYARD_FUZZ_CHECK(sw.level >= previous_level, "switches ordered by level");
    previous_level = sw.level;
    RAILYARD_FUZZ_CHECK(names.insert(sw.name).second, "switch names are unique");
    RAILYARD_FUZZ_CHECK(!sw.name.empty());
    RAILYARD_FUZZ_CHECK(std::is_sorted(sw.hosts.begin(), sw.hosts.end()) &&
                            std::adjacent_find(sw.hosts.begin(), sw.hosts.end()) == sw.hosts.end(),
                        "hosts ascending, once each");
    RAILYARD_FUZZ_CHECK(
        std::is_sorted(sw.children.begin(), sw.children.end()) &&
            std::adjacent_find(sw.children.begin(), sw.children.end()) == sw.children.end(),
        "children ascending, once each");
    if (sw.level == 1) {
      RAILYARD_FUZZ_CHECK(sw.children.empty() && !sw.hosts.empty(), "a leaf holds hosts only");
      for (int32_t h : sw.hosts) {
        RAILYARD_FUZZ_CHECK(h >= 0 && static_cast<size_t>(h) < tree.hosts.size());
        ++leaves_of_host[static_cast<size_t>(h)];
      }
    } else {
      RAILYARD_FUZZ_CHECK(sw.hosts.empty() && !sw.children.empty(),
                          "an upper switch holds switches only");
      for (int32_t c : sw.children) {
        RAILYARD_FUZZ_CHECK(c >= 0 && static_cast<size_t>(c) < tree.switches.size());
        RAILYARD_FUZZ_CHECK(tree.switches[static_cast<size_t>(c)].level == sw.level - 1,
                            "layered: every child one level down");
      }
    }
  }
  for (int n : leaves_of_host) RAILYARD_FUZZ_CHECK(n == 1, "every host under exactly one leaf");
  std::set<std::string_view> host_names(tree.hosts.begin(), tree.hosts.end());
  RAILYARD_FUZZ_CHECK(host_names.size() == tree.hosts.size(), "host names are unique");
  RAILYARD_FUZZ_CHECK(topology::validate_tree(tree).ok(), "validate_tree agrees");
}

// A small tree's Fabric has one node per host and switch, named as in the tree,
// and switch_tree(fabric) gives the tree back (the documented inverse).
void check_fabric_of_tree(const topology::SwitchTree& tree,
                          const railyard::StatusOr<railyard::topology::Fabric>& fabric) {
  RAILYARD_FUZZ_CHECK(fabric.ok(), "a valid tree always builds a Fabric");
  RAILYARD_FUZZ_CHECK(
      fabric->node_count() == static_cast<int32_t>(tree.hosts.size() + tree.switches.size()),
      "one node per host and per switch");
  for (size_t h = 0; h < tree.hosts.size(); ++h)
    RAILYARD_FUZZ_CHECK(
        fabric->node_name(railyard::NodeId{static_cast<int32_t>(h)}) == tree.hosts[h],
        "host nodes carry the host names");
  const auto back = topology::switch_tree(*fabric);
  RAILYARD_FUZZ_CHECK(back.ok() && *back == tree, "switch_tree(fabric_from_tree(t)) == t");
}

// ---- slurm_conf ----------------------------------------------------------------

// Decimal digits (at most 18) as a number.
std::optional<uint64_t> reference_decimal(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (!railyard::is_digit(c)) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// The first byte that is not valid UTF-8 or is a control character other than
// tab, CR and LF; UTF-8 checked by the RFC 3629 reference of tests/support, not
// by the library's decoder (core/utf8.hpp) that the importer uses.
size_t first_bad_conf_byte(std::string_view text) {
  const size_t bad_utf8 = railyard::test::utf8_ref::first_invalid(text);
  // Before bad_utf8 every byte below 0x80 is a whole (ASCII) character.
  for (size_t i = 0; i < std::min(bad_utf8, text.size()); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\t' && b != '\r' && b != '\n') || b == 0x7F) return i;
  }
  return bad_utf8;
}

// An upper bound on the names the hostlists of `text` expand to (a bracket
// group counts the numbers of its ranges; groups of one item multiply). It
// keeps the target fast: 4 KiB of "n[0-65535]" would otherwise expand to
// millions of names per input.
uint64_t hostlist_names_bound(std::string_view text) {
  uint64_t total = 0, item = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '[') {
      const size_t close = text.find(']', i);
      const std::string_view body =
          text.substr(i + 1, close == std::string_view::npos ? 0 : close - i - 1);
      uint64_t group = 0;
      for (std::string_view part : railyard::split(body, ',')) {
        const size_t dash = part.find('-');
        const auto lo = reference_decimal(part.substr(0, dash));
        const auto hi =
            dash == std::string_view::npos ? lo : reference_decimal(part.substr(dash + 1));
        group += lo && hi && *hi >= *lo ? std::min<uint64_t>(*hi - *lo + 1, 1 << 16) : 1;
      }
      item = std::min<uint64_t>(item * std::max<uint64_t>(group, 1), uint64_t{1} << 32);
      if (close == std::string_view::npos) break;
      i = close;
    } else if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"') {
      total += item;
      item = 1;
    }
  }
  return total + item;
}

// A topology.conf rejection: InvalidArgument, "topology.conf line N: <token>:
// <problem>" with N a line of the file and the token taken from it (or
// "topology.conf: ..." for a file-wide problem).
void check_conf_rejection(const absl::Status& status, std::string_view text) {
  RAILYARD_FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  const std::string m = message_text(status);
  const size_t bad = first_bad_conf_byte(text);
  const int64_t line = number_after(m, "topology.conf line ");
  if (line < 0) {
    RAILYARD_FUZZ_CHECK(m.rfind("topology.conf: ", 0) == 0, "the message names the file");
    RAILYARD_FUZZ_CHECK(bad == std::string_view::npos, "encoding errors name their line");
    return;
  }
  RAILYARD_FUZZ_CHECK(line >= 1 && line <= line_count(text), "the line is one of the file's");
  const size_t token_at = m.find(": ");
  RAILYARD_FUZZ_CHECK(token_at != std::string::npos);
  const size_t token_end = m.find(": ", token_at + 2);
  RAILYARD_FUZZ_CHECK(token_end != std::string::npos && token_end > token_at + 2,
                      "a non-empty token follows the line number");
  const std::string_view token = std::string_view(m).substr(token_at + 2, token_end - token_at - 2);
  const std::string offset_note = "invalid UTF-8 or a control character at byte offset ";
  if (bad != std::string_view::npos) {
    // Encoding is checked before anything else, at the first bad byte.
    RAILYARD_FUZZ_CHECK(m.find(str_cat(offset_note, bad)) != std::string::npos,
                        "the first bad byte is the one reported");
    RAILYARD_FUZZ_CHECK(
        line == 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'),
        "the bad byte's line");
    return;
  }
  RAILYARD_FUZZ_CHECK(m.find(offset_note) == std::string::npos ||
                          text.find(offset_note) != std::string_view::npos,  // quoted from the file
                      "valid UTF-8 is not an encoding error");
  // "Key=Value" or a bare word as written: its value's (else its key's) first
  // word must come from the file.
  std::string_view word = token;
  if (const size_t eq = word.find('='); eq != std::string_view::npos) {
    std::string_view value = word.substr(eq + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    word = value.empty() ? word.substr(0, eq) : value;
  }
  word = word.substr(0, word.find_first_of(" \t"));
  if (word.empty()) word = token;  // a bare "=" has neither key nor value
  RAILYARD_FUZZ_CHECK(!word.empty() && text.find(word) != std::string_view::npos,
                      "the token is quoted from the file");
}

}  // namespace

// slurm_topology_from_conf: rejections name a line and a token of the file;
// accepted trees satisfy the tree invariants, export with slurm_topology_conf
// and read back to the same tree and the same bytes, and (when small) build a
// Fabric that maps back to the tree.
RAILYARD_FUZZ_TARGET(slurm_conf) {
  if (input.size() > kMaxInput || hostlist_names_bound(input) > kMaxNames) return;
  const auto tree = topology::slurm_topology_from_conf(input);
  if (!tree.ok()) {
    check_conf_rejection(tree.status(), input);
    RAILYARD_FUZZ_CHECK(!topology::slurm_fabric_from_conf(input, {}).ok(), "no Fabric from a bad file");
    return;
  }
  RAILYARD_FUZZ_CHECK(first_bad_conf_byte(input) == std::string_view::npos,
                      "accepted files are UTF-8 without control characters");
  check_tree_invariants(*tree);
  for (const auto& sw : tree->switches)
    RAILYARD_FUZZ_CHECK(sw.name.size() <= topology::kMaxSwitchNameLength &&
                            sw.name.find_first_of(",[] \t") == std::string::npos &&
                            input.find(sw.name) != std::string_view::npos,
                        "switch names are Slurm's and come from the file");

  const std::string conf = exports::slurm_topology_conf(*tree);
  const auto back = topology::slurm_topology_from_conf(conf);
  RAILYARD_FUZZ_CHECK(back.ok(), "what railyard writes, railyard reads");
  RAILYARD_FUZZ_CHECK(*back == *tree, "export -> import gives the same tree");
  RAILYARD_FUZZ_CHECK(exports::slurm_topology_conf(*back) == conf, "re-export is byte-identical");

  if (tree->hosts.size() <= kMaxFabricHosts)
    check_fabric_of_tree(*tree, topology::slurm_fabric_from_conf(input, {}));
}

namespace {

// ---- csv_topology --------------------------------------------------------------

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The data rows of a CSV topology as the header comment defines them: BOM
// skipped, CR dropped, blank and '#' lines skipped, a first row starting with
// host/hostname is the header; fields split on ',' and trimmed.
std::vector<std::vector<std::string_view>> csv_rows(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::vector<std::string_view>> rows;
  bool first = true;
  for (std::string_view line : railyard::split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trim_blanks(line);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields = railyard::split(line, ',');
    for (auto& f : fields) f = trim_blanks(f);
    const std::string lower = railyard::to_lower(fields[0]);
    if (first && (lower == "host" || lower == "hostname")) {
      first = false;
      continue;
    }
    first = false;
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace

// csv_topology_from_text: rejections are InvalidArgument naming a line of the
// text; an accepted tree is exactly the rows (host i is row i, its leaf, the
// leaf's spine and the spine's core as written), satisfies the tree
// invariants, exports with csv_topology_from_tree and reads back to the same
// tree and the same bytes, and (when small) builds a Fabric that maps back.
RAILYARD_FUZZ_TARGET(csv_topology) {
  if (input.size() > kMaxInput) return;
  const auto tree = topology::csv_topology_from_text(input);
  if (!tree.ok()) {
    RAILYARD_FUZZ_CHECK(tree.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string m = message_text(tree.status());
    const int64_t line = number_after(m, "line ");
    const std::string_view body = input.substr(0, 3) == "\xEF\xBB\xBF" ? input.substr(3) : input;
    RAILYARD_FUZZ_CHECK(line >= 1 && line <= line_count(body), "the error names a line");
    const std::string_view rest = std::string_view(m).substr(m.find(": ") + 2);
    if (rest.starts_with("no host rows")) return;
    const auto field = railyard::error_field(tree.status());
    RAILYARD_FUZZ_CHECK(
        field && rest.starts_with(str_cat(field->field, "=")) &&
            (field->field == "host" || field->field == "leaf" || field->field == "spine" ||
             field->field == "core" || field->field == "header" || field->field == "row"),
        "the error names the column (or row) and the token, attached");
    RAILYARD_FUZZ_CHECK(input.find(field->value) != std::string_view::npos,
                        "the attached token is the file's");
    return;
  }
  check_tree_invariants(*tree);

  const auto rows = csv_rows(input);
  RAILYARD_FUZZ_CHECK(rows.size() == tree->hosts.size(), "one host per data row");
  const size_t columns = rows.front().size();
  RAILYARD_FUZZ_CHECK(columns == 3 || columns == 4);
  RAILYARD_FUZZ_CHECK(tree->top_level() == static_cast<int>(columns) - 1,
                      "3 columns give 2 switch levels, 4 give 3");
  std::vector<int32_t> parent(tree->switches.size(), -1), leaf_of(tree->hosts.size(), -1);
  for (size_t i = 0; i < tree->switches.size(); ++i) {
    for (int32_t c : tree->switches[i].children) {
      RAILYARD_FUZZ_CHECK(parent[static_cast<size_t>(c)] < 0, "one parent per switch");
      parent[static_cast<size_t>(c)] = static_cast<int32_t>(i);
    }
    for (int32_t h : tree->switches[i].hosts)
      leaf_of[static_cast<size_t>(h)] = static_cast<int32_t>(i);
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    RAILYARD_FUZZ_CHECK(rows[r].size() == columns);
    RAILYARD_FUZZ_CHECK(tree->hosts[r] == rows[r][0], "host r is row r's host");
    int32_t s = leaf_of[r];
    for (size_t c = 1; c < columns; ++c) {
      RAILYARD_FUZZ_CHECK(s >= 0 && tree->switches[static_cast<size_t>(s)].name == rows[r][c],
                          "the row's switches are the host's ancestors");
      s = parent[static_cast<size_t>(s)];
    }
    RAILYARD_FUZZ_CHECK(s < 0, "the last column is the top level");
  }

  const auto csv = exports::csv_topology_from_tree(*tree);
  RAILYARD_FUZZ_CHECK(csv.ok(), "every imported tree exports");
  const auto back = topology::csv_topology_from_text(*csv);
  RAILYARD_FUZZ_CHECK(back.ok() && *back == *tree, "export -> import gives the same tree");
  const auto again = exports::csv_topology_from_tree(*back);
  RAILYARD_FUZZ_CHECK(again.ok() && *again == *csv, "re-export is byte-identical");

  if (tree->hosts.size() <= kMaxFabricHosts)
    check_fabric_of_tree(*tree, topology::fabric_from_csv(input, topology::LinkSpeeds{}));
}

namespace {

// ---- hash_table ----------------------------------------------------------------

using Entry = routing::MeasuredTableHash::Entry;

// What the reference reader makes of a table: the entries in file order, or
// the line (and token number, 0 for none) of the first problem.
struct ReferenceTable {
  std::vector<Entry> entries;
  std::vector<int64_t> line_of;
  int64_t error_line = 0;  // 0: accepted
  int error_token = 0;
};

// Unsigned decimal, or 0x/0X hex, of any length, at most `max`.
std::optional<int64_t> reference_number(std::string_view s, int64_t max) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    const char lower = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
    const size_t d =
        std::string_view("0123456789abcdef").substr(0, static_cast<size_t>(base)).find(lower);
    if (d == std::string_view::npos) return std::nullopt;
    v = v * base + static_cast<int64_t>(d);
    if (v > max) return std::nullopt;
  }
  return v;
}

// The measured-table grammar of routing/hash.hpp's MeasuredTableHash comment,
// read independently: '#' to the end of the line is a comment, tokens are
// separated by spaces, tabs and CRs, a line has 0 or 4 tokens.
ReferenceTable reference_table(std::string_view text) {
  ReferenceTable out;
  int64_t line_no = 0;
  for (std::string_view line : railyard::split(text, '\n')) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    std::vector<std::string_view> tokens;
    size_t i = 0;
    while (i < line.size()) {
      const size_t start = line.find_first_not_of(" \t\r", i);
      if (start == std::string_view::npos) break;
      const size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
      tokens.push_back(line.substr(start, end - start));
      i = end;
    }
    if (tokens.empty()) continue;
    auto fail = [&](int token) {
      out.error_line = line_no;
      out.error_token = token;
      return out;
    };
    if (tokens.size() > 4) return fail(5);
    if (tokens.size() < 4) return fail(0);
    const std::optional<routing::HopKind> kind = routing::parse_hop_kind(tokens[0]);
    if (!kind) return fail(1);
    const auto sw = reference_number(tokens[1], 0x7FFFFFFF);
    if (!sw) return fail(2);
    const auto sport = reference_number(tokens[2], 0xFFFF);
    if (!sport || *sport < 0xC000) return fail(3);
    const auto uplink = reference_number(tokens[3], 0x7FFFFFFF);
    if (!uplink) return fail(4);
    out.entries.push_back({*kind, railyard::SwitchIndex{static_cast<int32_t>(*sw)},
                           static_cast<uint16_t>(*sport), static_cast<int32_t>(*uplink)});
    out.line_of.push_back(line_no);
  }
  // A duplicate (kind, switch, sport): the smallest such key, at its second line.
  std::map<std::tuple<int, int32_t, uint16_t>, std::vector<int64_t>> lines_of_key;
  for (size_t i = 0; i < out.entries.size(); ++i) {
    const Entry& e = out.entries[i];
    lines_of_key[{static_cast<int>(e.kind), e.switch_index.value(), e.sport}].push_back(
        out.line_of[i]);
  }
  for (const auto& [key, lines] : lines_of_key)
    if (lines.size() > 1) {
      out.error_line = lines[1];
      return out;
    }
  return out;
}

bool entry_less(const Entry& a, const Entry& b) {
  return std::tuple(static_cast<int>(a.kind), a.switch_index.value(), a.sport) <
         std::tuple(static_cast<int>(b.kind), b.switch_index.value(), b.sport);
}

}  // namespace

// MeasuredTableHash::parse agrees with the reference reader (same entries, or
// an error on the same line and token); to_text() reads back to the same
// entries and bytes; pick() returns a listed uplink whenever it is below the
// candidates, and always a candidate; find_sport() steers onto listed uplinks.
RAILYARD_FUZZ_TARGET(hash_table) {
  if (input.size() > kMaxInput) return;
  const uint32_t seed = routing::crc32(routing::CrcPolynomial::kCrc32c, input);
  const auto table = routing::MeasuredTableHash::parse(input, seed);
  const ReferenceTable ref = reference_table(input);
  if (!table.ok()) {
    RAILYARD_FUZZ_CHECK(table.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string m = message_text(table.status());
    RAILYARD_FUZZ_CHECK(ref.error_line != 0, "rejected only when the grammar rejects");
    RAILYARD_FUZZ_CHECK(number_after(m, "line ") == ref.error_line, "the first bad line is named");
    RAILYARD_FUZZ_CHECK(m.size() > str_cat("line ", ref.error_line).size() &&
                            (m[str_cat("line ", ref.error_line).size()] == ':' ||
                             m[str_cat("line ", ref.error_line).size()] == ','),
                        "the line number is whole");
    if (ref.error_token != 0)
      RAILYARD_FUZZ_CHECK(m.find(str_cat("token ", ref.error_token)) != std::string::npos,
                          "the bad token is named");
    return;
  }
  RAILYARD_FUZZ_CHECK(ref.error_line == 0, "accepted exactly when the grammar accepts");
  const auto entries = table->entries();
  std::vector<Entry> expected = ref.entries;
  std::sort(expected.begin(), expected.end(), entry_less);
  RAILYARD_FUZZ_CHECK(std::equal(entries.begin(), entries.end(), expected.begin(), expected.end()),
                      "the entries are the file's, sorted by (kind, switch, sport)");

  const std::string text = table->to_text();
  const auto back = routing::MeasuredTableHash::parse(text, seed);
  RAILYARD_FUZZ_CHECK(back.ok(), "to_text() parses");
  RAILYARD_FUZZ_CHECK(
      std::equal(entries.begin(), entries.end(), back->entries().begin(), back->entries().end()),
      "parse(to_text(t)) has t's entries");
  RAILYARD_FUZZ_CHECK(back->to_text() == text, "to_text() is canonical");
  const auto built = routing::MeasuredTableHash::from_entries(ref.entries, seed);
  RAILYARD_FUZZ_CHECK(built.ok() && built->to_text() == text, "from_entries builds the same table");

  // Picks: a listed uplink when it is a candidate, else the fallback; always
  // in [0, candidates). A few entries are enough per input.
  const routing::Crc5TupleHash fallback(seed);
  routing::FiveTuple t{
      0x0A000001, 0x0A000102, routing::kSportBase, routing::kRoceV2Port, routing::kUdpProtocol, 0};
  const size_t probes = std::min<size_t>(entries.size(), 16);
  for (size_t i = 0; i < probes; ++i) {
    const Entry& e = entries[i * entries.size() / probes];
    RAILYARD_FUZZ_CHECK(table->find(e.kind, e.switch_index, e.sport) != nullptr);
    t.src_port = e.sport;
    for (int64_t wide :
         {int64_t{2}, int64_t{3}, int64_t{64}, int64_t{e.uplink}, e.uplink + int64_t{1}}) {
      if (wide < 2 || wide > 0x7FFFFFFF) continue;
      const auto candidates = static_cast<int32_t>(wide);
      const routing::EcmpHop hop{e.kind, e.switch_index, candidates};
      const int32_t pick = table->pick(hop, t);
      RAILYARD_FUZZ_CHECK(pick >= 0 && pick < candidates, "picks are candidates");
      RAILYARD_FUZZ_CHECK(pick == (e.uplink < candidates ? e.uplink : fallback.pick(hop, t)),
                          "the listed uplink when it exists, else the fallback CRC");
      RAILYARD_FUZZ_CHECK(table->out_of_range_entries(hop) >= (e.uplink >= candidates ? 1 : 0));
    }
  }
  // find_sport over one hop finds a port that picks the wanted listed uplink.
  if (!entries.empty()) {
    const Entry& e = entries[seed % entries.size()];
    if (e.uplink < 0x7FFFFFFF) {
      const std::array<routing::EcmpHop, 1> hops{{{e.kind, e.switch_index, e.uplink + 1}}};
      const std::array<int32_t, 1> wanted{e.uplink};
      const auto sport = routing::find_sport(*table, hops, wanted, t, static_cast<uint16_t>(seed));
      RAILYARD_FUZZ_CHECK(sport.has_value(), "the listed port always steers to its uplink");
      t.src_port = *sport;
      RAILYARD_FUZZ_CHECK(*sport >= routing::kSportBase && table->pick(hops[0], t) == e.uplink,
                          "find_sport's port picks the wanted uplink");
    }
  }
}

}  // namespace railyard_fuzz_import_fuzz
