// railyard/topology/import/slurm_conf.hpp — read a Slurm topology.conf (topology/tree) into a
// SwitchTree and a Fabric: any tree of up to 3 switch levels, uneven ones included.
//
//   auto tree = railyard::topology::slurm_topology_from_conf(text);      // StatusOr<SwitchTree>
//   if (!tree.ok()) std::cerr << tree.status().message() << "\n";  // "topology.conf line 7: ..."
//   auto fabric = railyard::topology::slurm_fabric_from_conf(text, {.host_gbps = 400});
//
// What is accepted follows Slurm's own reader (src/common/parse_config.c and
// src/plugins/topology/tree/switch_record.c of SchedMD/slurm):
// * `Key=Value` pairs separated by whitespace, spaces allowed around '=', a value
//   either a run of non-space characters or "double quoted"; keys are
//   case-insensitive (_conf_hashtbl_lookup uses xstrcasecmp).
// * Each line starts with SwitchName= (the only top-level key) followed by
//   Nodes=, Switches= and LinkSpeed= in any order. LinkSpeed must be a number as
//   Slurm reads it (uint32, optional k suffix, or UNLIMITED/INFINITE) and is then
//   ignored, as Slurm ignores it; link speeds come from LinkSpeeds instead.
// * '#' starts a comment to the end of the line; a line ending in an odd number of
//   backslashes continues on the next (_strip_continuation); blank lines are skipped.
// * Names and hostlists as in io/hostlist.hpp.
// railyard is stricter than Slurm where Slurm would log and guess; every error is
// an Status "topology.conf line N: <token>: <problem>", and nothing else is
// returned:
// * non-UTF-8 bytes or control characters; a line not of Key=Value pairs; unknown
//   keys (BlockName/BlockSizes: a topology/block file); a key twice on one line;
//   Include directives; backslash escapes other than line continuation;
// * an empty value; a SwitchName over 64 characters (Slurm's HOST_NAME_MAX) or
//   containing ',', '[', ']', '"' or whitespace; a node name containing '"' or a
//   carriage return (possible inside a quoted value; no such name could be
//   written back); a SwitchName defined twice;
// * a switch with both Nodes and Switches (Slurm: "has both child switches and
//   nodes") or with neither (Slurm would keep an empty leaf; railyard's fabrics
//   have none); a malformed hostlist;
// * a child switch that is not defined, or that is the switch itself or one of
//   its ancestors (a cycle); a node under two leaf switches;
// * a tree that is not layered (children of one switch at different levels) or
//   deeper than railyard's 3 switch levels.
// A switch may sit under several parents (a leaf wired to two spines): the
// Fabric then has both uplinks.
//
// The tree read back: switches ordered by level, then by line; host indices in
// order of first appearance, leaf by leaf in that order, each leaf's hosts in
// hostlist order. So slurm_topology_conf(*slurm_topology_from_conf(conf)) ==
// conf for every file railyard writes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/utf8.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::topology {

// Slurm rejects longer switch names (switch_record.c: HOST_NAME_MAX, 64 on Linux).
inline constexpr size_t kMaxSwitchNameLength = 64;

namespace detail {

RAILYARD_LAZY
Status conf_error(int line, std::string_view token, std::string_view problem) {
  return invalid_argument_error(
      str_cat("topology.conf line ", line, ": ", token, ": ", problem));
}

// First byte offset of invalid UTF-8 or of a control character (other than tab,
// CR, LF) in `text`, or npos. Overlong forms, surrogates and code points above
// U+10FFFF are invalid (core/utf8.hpp).
RAILYARD_LAZY
size_t first_bad_byte(std::string_view text) {
  size_t control = std::string_view::npos;
  const size_t invalid = for_each_utf8(text, [&](uint32_t cp, size_t at) {
    if (control == std::string_view::npos &&
        ((cp < 0x20 && cp != '\t' && cp != '\r' && cp != '\n') || cp == 0x7F))
      control = at;
  });
  return std::min(control, invalid);  // a control character is seen only before `invalid`
}

// The whitespace-delimited word around byte `at`, non-ASCII and control bytes
// written as \xNN: the token an encoding error message shows.
RAILYARD_LAZY
std::string escaped_word_at(std::string_view text, size_t at) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t begin = at, end = at + 1;
  while (begin > 0 && !blank(text[begin - 1]) && at - begin < 40) --begin;
  while (end < text.size() && !blank(text[end]) && end - at < 40) ++end;
  std::string out;
  for (char ch : text.substr(begin, end - begin)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F)
      out += ch;
    else
      str_append(out, "\\x", kHex[c >> 4], kHex[c & 0xF]);
  }
  return out;
}

// Characters no node or switch name may hold: hostlist syntax, and what a
// quoted value can smuggle in but slurm_topology_conf() could not write back
// unquoted (a leading '"' opens a quote, a CR ends the value).
inline constexpr const char* kNotInConfNames = ",[] \t\r\"";

RAILYARD_LAZY
bool is_conf_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// A logical line (continuations joined) and the physical line of each character.
struct LogicalLine {
  std::string text;
  std::vector<int> line_of;  // per character of `text`
  int first_line = 0;
};

// Slurm's _strip_comments: a '#' after an even number of backslashes.
RAILYARD_LAZY
std::string_view strip_comment(std::string_view line) {
  int backslashes = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && backslashes % 2 == 0) return line.substr(0, i);
    backslashes = line[i] == '\\' ? backslashes + 1 : 0;
  }
  return line;
}

// Slurm's _strip_continuation: trailing whitespace, then an odd number of
// backslashes, continue the line. Returns the text before those backslashes.
RAILYARD_LAZY
std::optional<std::string_view> continued(std::string_view line) {
  size_t end = line.size();
  while (end > 0 && is_conf_space(line[end - 1])) --end;
  size_t bs = 0;
  while (bs < end && line[end - 1 - bs] == '\\') ++bs;
  if (bs % 2 == 0) return std::nullopt;
  return line.substr(0, end - 1);
}

RAILYARD_LAZY
std::vector<LogicalLine> logical_lines(std::string_view text) {
  std::vector<LogicalLine> out;
  LogicalLine current;
  bool open = false;
  int number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    line = strip_comment(line);
    if (!open) {
      current = LogicalLine{};
      current.first_line = number;
    }
    const std::optional<std::string_view> head = continued(line);
    const std::string_view part = head ? *head : line;
    current.text.append(part);
    current.line_of.insert(current.line_of.end(), part.size(), number);
    if (head) {  // the joined lines keep a separating space
      current.text += ' ';
      current.line_of.push_back(number);
      open = true;
      continue;
    }
    open = false;
    out.push_back(std::move(current));
  }
  if (open) out.push_back(std::move(current));
  return out;
}

struct ConfPair {
  std::string key;    // as written
  std::string value;  // unquoted
  std::string token;  // Key=Value as written, for messages
  int line = 0;
};

RAILYARD_LAZY
StatusOr<std::vector<ConfPair>> split_pairs(const LogicalLine& ll) {
  std::vector<ConfPair> pairs;
  const std::string& s = ll.text;
  size_t i = 0;
  auto rest_token = [&](size_t from) {
    size_t end = from;
    while (end < s.size() && !is_conf_space(s[end])) ++end;
    return std::string_view(s).substr(from, end - from);
  };
  for (;;) {
    while (i < s.size() && is_conf_space(s[i])) ++i;
    if (i >= s.size()) return pairs;
    const size_t start = i;
    const int line = ll.line_of[start];
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                            is_digit(s[i]) || s[i] == '_' || s[i] == '.'))
      ++i;
    const std::string key = s.substr(start, i - start);
    if (to_lower(key) == "include" && i < s.size() && is_conf_space(s[i])) {
      // The whole directive, so the message names the file it would include.
      std::string_view directive = std::string_view(s).substr(start);
      while (!directive.empty() && is_conf_space(directive.back())) directive.remove_suffix(1);
      return conf_error(line, directive,
                        "Include directives are not supported; inline the included file");
    }
    size_t j = i;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    if (key.empty() || j >= s.size() || s[j] != '=')
      return conf_error(line, rest_token(start), "expected Key=Value");
    ++j;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    ConfPair pair;
    pair.key = key;
    pair.line = line;
    if (j < s.size() && s[j] == '"') {
      const size_t close = s.find('"', j + 1);
      if (close == std::string::npos)
        return conf_error(line, rest_token(start), "unterminated quoted value");
      pair.value = s.substr(j + 1, close - j - 1);
      i = close + 1;
      if (i < s.size() && !is_conf_space(s[i]))
        return conf_error(line, rest_token(start), "text right after the closing quote");
    } else {
      size_t end = j;
      while (end < s.size() && !is_conf_space(s[end])) ++end;
      pair.value = s.substr(j, end - j);
      i = end;
    }
    pair.token = s.substr(start, i - start);
    if (pair.value.empty()) return conf_error(line, pair.token, "empty value");
    if (pair.value.find('\\') != std::string::npos)
      return conf_error(line, pair.token,
                        "backslash escapes are not supported (only a trailing '\\' "
                        "continuing the line)");
    pairs.push_back(std::move(pair));
  }
}

// Slurm's s_p_handle_uint32: strtoul base 0, optional k/K (x1024), UNLIMITED or
// INFINITE, at most 2^32 - 1.
RAILYARD_LAZY
bool is_slurm_uint32(std::string_view v) {
  const std::string lower = to_lower(v);
  if (lower == "unlimited" || lower == "infinite") return true;
  size_t i = 0;
  int base = 10;
  if (lower.size() > 2 && lower[0] == '0' && lower[1] == 'x') {
    base = 16;
    i = 2;
  } else if (lower.size() > 1 && lower[0] == '0') {
    base = 8;
    i = 1;
  }
  uint64_t value = 0;
  size_t digits = 0;
  for (; i < lower.size(); ++i, ++digits) {
    const char c = lower[i];
    int d = -1;
    if (is_digit(c)) d = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d < 0 || d >= base) break;
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    if (value > 0xFFFFFFFFull) return false;
  }
  if (digits == 0 && !(base == 8)) return false;
  if (i < lower.size() && lower[i] == 'k') {
    value *= 1024;
    ++i;
  }
  return i == lower.size() && value <= 0xFFFFFFFFull;
}

struct ConfSwitch {
  std::string name;
  int line = 0;
  std::optional<ConfPair> nodes;
  std::optional<ConfPair> switches;
  std::vector<std::string> node_names;  // expanded
  std::vector<int32_t> children;        // indices into the ConfSwitch list, as listed
  int level = 0;                        // 0 = not yet known
};

}  // namespace detail

// Reads a topology.conf for topology/tree (rules in the overview). Returns the
// tree, valid per validate_tree(), or an error naming the line and the token.
// O(file size + names x log names).
RAILYARD_LAZY
[[nodiscard]] StatusOr<SwitchTree> slurm_topology_from_conf(std::string_view text) {
  using detail::conf_error;
  if (const size_t bad = detail::first_bad_byte(text); bad != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(
                             text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    return conf_error(line, detail::escaped_word_at(text, bad),
                      str_cat("invalid UTF-8 or a control character at byte offset ", bad));
  }
  std::vector<detail::ConfSwitch> switches;
  std::map<std::string, size_t, std::less<>> by_name;
  for (const detail::LogicalLine& ll : detail::logical_lines(text)) {
    RAILYARD_ASSIGN_OR_RETURN(std::vector<detail::ConfPair> pairs, detail::split_pairs(ll));
    if (pairs.empty()) continue;
    const detail::ConfPair& head = pairs.front();
    const std::string head_key = to_lower(head.key);
    if (head_key != "switchname") {
      if (head_key == "blockname" || head_key == "blocksizes")
        return conf_error(head.line, head.token,
                          "a topology/block file; railyard reads topology/tree files "
                          "(SwitchName= lines)");
      return conf_error(head.line, head.token,
                        head_key == "nodes" || head_key == "switches" || head_key == "linkspeed"
                            ? "a line must start with SwitchName="
                            : "unknown key (topology/tree lines have SwitchName=, Nodes=, "
                              "Switches=, LinkSpeed=)");
    }
    detail::ConfSwitch sw;
    sw.name = head.value;
    sw.line = head.line;
    if (sw.name.size() > kMaxSwitchNameLength)
      return conf_error(head.line, head.token,
                        str_cat("switch name longer than ", kMaxSwitchNameLength,
                                " characters (Slurm rejects it)"));
    if (sw.name.find_first_of(detail::kNotInConfNames) != std::string::npos)
      return conf_error(head.line, head.token,
                        "a switch name cannot contain ',', '[', ']', '\"' or whitespace");
    bool link_speed = false;
    for (size_t p = 1; p < pairs.size(); ++p) {
      const detail::ConfPair& pair = pairs[p];
      const std::string key = to_lower(pair.key);
      if (key == "nodes" || key == "switches") {
        auto& slot = key == "nodes" ? sw.nodes : sw.switches;
        if (slot)
          return conf_error(pair.line, pair.token, str_cat(pair.key, " given twice on one line"));
        slot = pair;
      } else if (key == "linkspeed") {
        if (link_speed)
          return conf_error(pair.line, pair.token, "LinkSpeed given twice on one line");
        link_speed = true;
        if (!detail::is_slurm_uint32(pair.value))
          return conf_error(pair.line, pair.token,
                            "LinkSpeed must be an unsigned 32-bit number (Slurm ignores it; "
                            "railyard takes link speeds from its own flags)");
      } else if (key == "switchname") {
        return conf_error(pair.line, pair.token,
                          "a second SwitchName on one line; start a new line per switch");
      } else if (key == "blockname" || key == "blocksizes") {
        return conf_error(pair.line, pair.token, "a topology/block key in a topology/tree file");
      } else {
        return conf_error(pair.line, pair.token,
                          "unknown key (topology/tree lines have SwitchName=, Nodes=, "
                          "Switches=, LinkSpeed=)");
      }
    }
    if (sw.nodes && sw.switches)
      return conf_error(
          sw.switches->line, sw.switches->token,
          str_cat("switch ", sw.name, " has both Nodes= and Switches= (Slurm rejects this too)"));
    if (!sw.nodes && !sw.switches)
      return conf_error(head.line, head.token, "empty switch: no Nodes= and no Switches=");
    const detail::ConfPair& list = sw.nodes ? *sw.nodes : *sw.switches;
    auto names = expand_hostlist(list.value);
    if (!names.ok())
      return conf_error(list.line, list.token,
                        str_cat("malformed hostlist: ", std::string(names.status().message())));
    if (names->empty())
      return conf_error(list.line, list.token, "empty switch: the hostlist names nothing");
    for (const std::string& name : *names)
      if (name.find_first_of(detail::kNotInConfNames) != std::string::npos) {
        std::string shown;  // the CR visible
        for (char c : name) {
          if (c == '\r')
            shown += "\\r";
          else
            shown += c;
        }
        return conf_error(list.line, list.token,
                          str_cat("name '", shown, "' contains '\"' or a carriage return"));
      }
    sw.node_names = *std::move(names);
    if (auto [it, inserted] = by_name.emplace(sw.name, switches.size()); !inserted)
      return conf_error(
          head.line, head.token,
          str_cat("switch ", sw.name, " is already defined on line ", switches[it->second].line));
    switches.push_back(std::move(sw));
  }
  if (switches.empty())
    return invalid_argument_error("topology.conf: no switches (no SwitchName= lines)");

  // Resolve child switch names.
  for (auto& sw : switches) {
    if (!sw.switches) continue;
    for (const std::string& child : sw.node_names) {
      const auto it = by_name.find(child);
      if (it == by_name.end())
        return conf_error(sw.switches->line, sw.switches->token,
                          str_cat("unknown switch '", child, "' (no SwitchName=", child, " line)"));
      sw.children.push_back(static_cast<int32_t>(it->second));
    }
  }

  // Levels: leaves are 1, a switch is one above its children. Iterative DFS with
  // colours finds cycles; children of one switch must share a level.
  enum : uint8_t { kWhite, kGrey, kBlack };
  std::vector<uint8_t> colour(switches.size(), kWhite);
  for (size_t root = 0; root < switches.size(); ++root) {
    if (colour[root] != kWhite) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};  // (switch, next child)
    colour[root] = kGrey;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      detail::ConfSwitch& sw = switches[v];
      if (next < sw.children.size()) {
        const auto c = static_cast<size_t>(sw.children[next++]);
        if (colour[c] == kGrey) {
          std::string path = switches[c].name;
          bool on = false;
          for (const auto& frame : stack) {
            if (frame.first == c) on = true;
            if (on && frame.first != c) str_append(path, " -> ", switches[frame.first].name);
          }
          str_append(path, " -> ", switches[c].name);
          return conf_error(sw.switches->line, sw.switches->token,
                            str_cat("cycle: switch ", switches[c].name,
                                    " is among its own descendants (", path, ")"));
        }
        if (colour[c] == kWhite) {
          colour[c] = kGrey;
          stack.emplace_back(c, 0);
        }
        continue;
      }
      if (sw.nodes) {
        sw.level = 1;
      } else {
        const detail::ConfSwitch& first = switches[static_cast<size_t>(sw.children[0])];
        for (int32_t c : sw.children) {
          const detail::ConfSwitch& child = switches[static_cast<size_t>(c)];
          if (child.level != first.level)
            return conf_error(
                sw.switches->line, sw.switches->token,
                str_cat("children at different levels: ", first.name, " is level ", first.level,
                        ", ", child.name, " is level ", child.level,
                        " (railyard needs a layered tree: every child one level down)"));
        }
        sw.level = first.level + 1;
        if (sw.level > topology::kMaxLevel)
          return conf_error(
              sw.switches->line, sw.switches->token,
              str_cat("switch ", sw.name, " would be level ", sw.level,
                      "; railyard fabrics have at most ", topology::kMaxLevel, " switch levels"));
      }
      colour[v] = kBlack;
      stack.pop_back();
    }
  }

  // The tree: switches by level, then by line.
  std::vector<size_t> order(switches.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return switches[a].level < switches[b].level; });
  std::vector<int32_t> new_index(switches.size());
  for (size_t k = 0; k < order.size(); ++k) new_index[order[k]] = static_cast<int32_t>(k);
  SwitchTree tree;
  std::unordered_map<std::string_view, int32_t> host_index;
  std::vector<size_t> leaf_of_host;
  for (size_t k : order) {
    const detail::ConfSwitch& sw = switches[k];
    SwitchTree::Switch out{sw.name, sw.level, {}, {}};
    if (sw.nodes) {
      for (const std::string& node : sw.node_names) {
        const auto [it, inserted] =
            host_index.emplace(node, static_cast<int32_t>(tree.hosts.size()));
        if (inserted) {
          tree.hosts.push_back(node);
          leaf_of_host.push_back(k);
        } else if (leaf_of_host[static_cast<size_t>(it->second)] != k) {
          const detail::ConfSwitch& other = switches[leaf_of_host[static_cast<size_t>(it->second)]];
          return conf_error(sw.nodes->line, sw.nodes->token,
                            str_cat("node ", node, " is already under leaf switch ", other.name,
                                    " (line ", other.line, "); a node has one leaf switch"));
        }
        out.hosts.push_back(it->second);
      }
    }
    for (int32_t c : sw.children) out.children.push_back(new_index[static_cast<size_t>(c)]);
    for (auto* list : {&out.hosts, &out.children}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    tree.switches.push_back(std::move(out));
  }
  // The checks above cover validate_tree's rules; keep it as the final word and
  // point at the switch's line if it ever disagrees.
  if (Status s = validate_tree(tree); !s.ok()) {
    const std::string message(s.message());
    for (const auto& sw : switches)
      if (message.rfind(str_cat("switch ", sw.name, ":"), 0) == 0)
        return conf_error(sw.line, str_cat("SwitchName=", sw.name), message);
    return invalid_argument_error(str_cat("topology.conf: ", message));
  }
  return tree;
}

// The Fabric of a topology.conf: slurm_topology_from_conf() then
// fabric_from_tree() with `speeds` (Slurm files carry no usable link speeds).
RAILYARD_LAZY
[[nodiscard]] StatusOr<topology::Fabric> slurm_fabric_from_conf(
    std::string_view text, const LinkSpeeds& speeds) {
  RAILYARD_ASSIGN_OR_RETURN(SwitchTree tree, slurm_topology_from_conf(text));
  return fabric_from_tree(tree, speeds);
}

}  // namespace railyard::topology
