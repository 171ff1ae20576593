// railyard/topology/import/ibnetdiscover.hpp — an InfiniBand fabric from the
// topology file `ibnetdiscover` (rdma-core infiniband-diags) prints, as a
// CableList for fit_cables() (cable_fit.hpp).
//
//   railyard::StatusOr<railyard::topology::CableList> cables =
//       railyard::topology::cable_list_from_ibnetdiscover(text);
//
// The format (rdma-core infiniband-diags/ibnetdiscover.c: out_switch, out_ca,
// out_switch_port, out_ca_port; man ibnetdiscover(8)) is one block per node:
//
//   vendid=0x2c9                     key=value lines (ids): skipped
//   switchguid=0x900a84030060ae40(900a84030060ae40)
//   Switch  64 "S-900a84030060ae40"  # "leaf01" enhanced port 0 lid 7 lmc 0
//   [1]  "H-b8cef603000a1b10"[1](b8cef603000a1b10)   # "gpu01 mlx5_0" lid 12 4xNDR
//   [33] "S-900a84030060be00"[5]     # "spine01" lid 3 4xNDR
//
//   caguid=0xb8cef603000a1b10
//   Ca  1 "H-b8cef603000a1b10"       # "gpu01 mlx5_0"
//   [1](b8cef603000a1b10)  "S-900a84030060ae40"[1]  # lid 12 lmc 0 "leaf01" lid 7 4xNDR
//
// A block starts with `Switch`, `Ca` (or `Rt`, refused: routers are not part of
// the fabrics railyard fits) followed by the port count, the quoted node id
// ("S-<guid>", "H-<guid>") and `# "<node description>"`. Each port line is
// `[port]` (a CA adds `(port guid)`), the peer's quoted id and `[peer port]`
// (optionally `(peer guid)`, and `[ext N]` with -g), then `#`, the peer's
// quoted description, lids, and the active width and speed (`4xNDR`). Every
// cable appears on both of its ends' blocks; the two must agree.
//
// Names railyard gives:
// * A CA (one HCA) belongs to the host named by the first word of its node
//   description (Linux sets "<hostname> <device>", e.g. "gpu01 mlx5_0"); its
//   port is `<device>/<port>` ("mlx5_0/1"). A description of one word names the
//   host, and its HCAs, in GUID order, become hca0, hca1, ...; an empty one
//   names the host by the CA's id.
// * A switch is named by its description when no other switch shares it, else
//   by its id ("S-<guid>"); its port is the port number ("33").
// * A cable's speed is width x lane rate: SDR 2.5, DDR 5, QDR 10, FDR10 10,
//   FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s per lane (4xNDR = 400);
//   an unknown speed gives none (the fit then uses its default).
// Errors are InvalidArgument `line N: <field>=<token>: <problem>`, fields
// node, port, peer, speed, row.
#pragma once

#include <algorithm>
#include <cmath>
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
#include "railyard/topology/import/cable_list.hpp"

namespace railyard::topology {

namespace detail {

// Gb/s of one lane at an InfiniBand speed name, 0 if unknown.
[[nodiscard]] inline double ib_lane_gbps(std::string_view speed) {
  constexpr std::pair<std::string_view, double> kRates[] = {
      {"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},  {"FDR10", 10}, {"FDR", 14},
      {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200}};
  for (auto [name, rate] : kRates)
    if (speed == name) return rate;
  return 0;
}

// The Gb/s of a "4xNDR" token, 0 when the token is not one.
[[nodiscard]] inline int32_t ib_link_gbps(std::string_view token) {
  const size_t x = token.find('x');
  if (x == 0 || x == std::string_view::npos) return 0;
  auto lanes = parse_int("speed", token.substr(0, x));
  if (!lanes.ok() || *lanes < 1 || *lanes > 32) return 0;
  return static_cast<int32_t>(
      std::lround(static_cast<double>(*lanes) * ib_lane_gbps(token.substr(x + 1))));
}

// The text between the first pair of '"' at or after `from`, and where it ends.
[[nodiscard]] inline bool ib_quoted(std::string_view s, size_t from, std::string_view& out,
                                    size_t& end) {
  const size_t open = s.find('"', from);
  if (open == std::string_view::npos) return false;
  const size_t close = s.find('"', open + 1);
  if (close == std::string_view::npos) return false;
  out = s.substr(open + 1, close - open - 1);
  end = close + 1;
  return true;
}

// A `[N]` at `at` (spaces skipped first): N and the position after ']'.
[[nodiscard]] inline bool ib_port_number(std::string_view s, size_t& at, int32_t& port) {
  while (at < s.size() && (s[at] == ' ' || s[at] == '\t')) ++at;
  if (at >= s.size() || s[at] != '[') return false;
  const size_t close = s.find(']', at);
  if (close == std::string_view::npos) return false;
  auto n = parse_int("port", s.substr(at + 1, close - at - 1));
  if (!n.ok() || *n < 0 || *n > 65535) return false;
  port = static_cast<int32_t>(*n);
  at = close + 1;
  return true;
}

}  // namespace detail

// Reads ibnetdiscover output (format and naming in the header comment).
// O(text size x log ports).
RAILYARD_LAZY
[[nodiscard]] StatusOr<CableList> cable_list_from_ibnetdiscover(std::string_view text) {
  struct Node {
    CableNodeKind kind = CableNodeKind::kUnknown;
    std::string desc;
    int64_t line = 0;
  };
  struct Link {
    std::string a_id;
    int32_t a_port = 0;
    std::string b_id;
    int32_t b_port = 0;
    int32_t gbps = 0;
    int64_t line = 0;
  };
  std::map<std::string, Node, std::less<>> nodes;
  // (id, port) -> (peer id, peer port, line), from either end's block.
  std::map<std::pair<std::string, int32_t>, std::tuple<std::string, int32_t, int64_t>> peer_of;
  std::vector<Link> links;
  std::string current;  // id of the block being read
  int64_t line_no = 0;
  auto error = [&line_no](std::string_view field, std::string_view token,
                          std::string_view problem) {
    return csv_error(line_no, field, token, problem, csv_escaped(token));
  };
  std::string_view rest = text;
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);
  while (!rest.empty()) {
    ++line_no;
    const size_t lf = rest.find('\n');
    std::string_view raw = rest.substr(0, lf);
    rest = lf == std::string_view::npos ? std::string_view() : rest.substr(lf + 1);
    if (raw.ends_with('\r')) raw.remove_suffix(1);
    const std::string_view line = csv_trim(raw);
    if (line.empty() || line.front() == '#') continue;
    // Block headers.
    const bool is_switch =
        line.starts_with("Switch") && line.size() > 6 && (line[6] == ' ' || line[6] == '\t');
    const bool is_ca =
        line.starts_with("Ca") && line.size() > 2 && (line[2] == ' ' || line[2] == '\t');
    if (line.starts_with("Rt") && line.size() > 2 && (line[2] == ' ' || line[2] == '\t'))
      return error("node", line, "a router (Rt): railyard fits host-switch fabrics only");
    if (is_switch || is_ca) {
      std::string_view id, desc;
      size_t end = 0;
      if (!detail::ib_quoted(line, 0, id, end) || id.empty())
        return error("node", line, "expected the quoted node id, e.g. Switch 64 \"S-<guid>\"");
      const size_t hash = line.find('#', end);
      size_t dend = 0;
      if (hash != std::string_view::npos) (void)detail::ib_quoted(line, hash, desc, dend);
      auto [it, fresh] = nodes.try_emplace(std::string(id));
      if (!fresh && it->second.line > 0)
        return error("node", id, str_cat("listed twice (first on line ", it->second.line, ")"));
      it->second.kind = is_switch ? CableNodeKind::kSwitch : CableNodeKind::kHost;
      it->second.desc = std::string(csv_trim(desc));
      it->second.line = line_no;
      current = std::string(id);
      continue;
    }
    if (line.front() == '[') {
      if (current.empty()) return error("port", line, "a port line before any Switch or Ca line");
      size_t at = 0;
      int32_t port = 0;
      if (!detail::ib_port_number(line, at, port))
        return error("port", line, "expected [port] at the start of a port line");
      std::string_view peer;
      size_t end = 0;
      const size_t hash = line.find('#', at);
      if (!detail::ib_quoted(line.substr(0, hash), at, peer, end) || peer.empty())
        return error("peer", line, "expected the peer's quoted id, e.g. \"S-<guid>\"[3]");
      int32_t peer_port = 0;
      size_t after = end;
      if (!detail::ib_port_number(line, after, peer_port))
        return error("peer", peer, "expected the peer's [port] right after its id");
      // The speed: the last "<lanes>x<speed>" word after '#'.
      int32_t gbps = 0;
      if (hash != std::string_view::npos)
        for (std::string_view word : split(line.substr(hash + 1), ' '))
          for (std::string_view w : split(word, '\t'))
            if (const int32_t g = detail::ib_link_gbps(w); g > 0) gbps = g;
      const std::string peer_id(peer);
      bool listed_before = false;  // the other end's block already gave this cable
      for (auto [self, self_port, other, other_port] :
           {std::tuple{current, port, peer_id, peer_port},
            std::tuple{peer_id, peer_port, current, port}}) {
        auto [it, fresh] =
            peer_of.try_emplace({self, self_port}, std::tuple{other, other_port, line_no});
        if (!fresh && (std::get<0>(it->second) != other || std::get<1>(it->second) != other_port))
          return error("port", str_cat("[", self_port, "]"),
                       str_cat("port ", self_port, " of ", csv_quoted(self), " is cabled to ",
                               csv_quoted(other), "[", other_port, "] here but to ",
                               csv_quoted(std::get<0>(it->second)), "[", std::get<1>(it->second),
                               "] on line ", std::get<2>(it->second)));
        if (!fresh) listed_before = true;
      }
      if (!listed_before) {
        links.push_back({current, port, peer_id, peer_port, gbps, line_no});
        // Known from this line until (if ever) its block comes: the quoted
        // description after '#' is the peer's.
        Node& peer_node = nodes[peer_id];
        std::string_view peer_desc;
        size_t dend = 0;
        if (peer_node.line == 0 && peer_node.desc.empty() && hash != std::string_view::npos &&
            detail::ib_quoted(line, hash, peer_desc, dend))
          peer_node.desc = std::string(csv_trim(peer_desc));
      }
      continue;
    }
    // key=value id lines (vendid=, devid=, sysimgguid=, switchguid=, caguid=)
    // and the -g grouping's captions carry nothing railyard needs.
    if (line.find('=') != std::string_view::npos || line.starts_with("Non-Chassis") ||
        line.starts_with("Chassis") || line.starts_with("Hostname:"))
      continue;
    return error("row", line,
                 "not an ibnetdiscover line (expected Switch, Ca, a [port] line, key=value or "
                 "a # comment)");
  }
  if (links.empty())
    return invalid_argument_error(
        str_cat("line ", std::max<int64_t>(line_no, 1), ": no links (no [port] lines)"));

  // Names. A node never given a block has a kind from its id's prefix.
  std::map<std::string, int32_t, std::less<>> switch_desc_uses;
  for (auto& [id, node] : nodes) {
    if (node.kind == CableNodeKind::kUnknown)
      node.kind = id.starts_with("S-") ? CableNodeKind::kSwitch : CableNodeKind::kHost;
    if (node.kind == CableNodeKind::kSwitch && !node.desc.empty()) ++switch_desc_uses[node.desc];
  }
  struct Named {
    std::string node;
    std::string device;  // for hosts: the HCA's part of the port name
  };
  std::map<std::string, Named, std::less<>> named;
  std::map<std::string, std::vector<std::string>, std::less<>> one_word_hcas;  // host -> ids
  for (const auto& [id, node] : nodes) {
    if (node.kind == CableNodeKind::kSwitch) {
      const bool unique = !node.desc.empty() && switch_desc_uses[node.desc] == 1 &&
                          csv_token_problem(node.desc).empty();
      named[id] = {unique ? node.desc : id, ""};
      continue;
    }
    const std::string_view desc = node.desc;
    const size_t space = desc.find_first_of(" \t");
    if (desc.empty()) {
      named[id] = {id, "hca0"};
    } else if (space == std::string_view::npos) {
      one_word_hcas[std::string(desc)].push_back(id);  // ids sort as GUIDs: same width
    } else {
      std::string device(csv_trim(desc.substr(space + 1)));
      std::replace(device.begin(), device.end(), ' ', '_');
      named[id] = {std::string(desc.substr(0, space)), device};
    }
  }
  for (const auto& [host, ids] : one_word_hcas)
    for (size_t i = 0; i < ids.size(); ++i) named[ids[i]] = {host, str_cat("hca", i)};
  for (const auto& [id, n] : named)
    if (std::string problem = csv_token_problem(n.node); !problem.empty())
      return error("node", n.node, str_cat("the name railyard takes for ", id, " ", problem));

  CableList out;
  for (const auto& [id, node] : nodes) out.kinds[named[id].node] = node.kind;
  for (const Link& l : links) {
    auto end = [&](const std::string& id, int32_t port) {
      const Named& n = named[id];
      return CableEnd{n.node, nodes[id].kind == CableNodeKind::kSwitch
                                  ? str_cat(port)
                                  : str_cat(n.device, "/", port)};
    };
    Cable c{end(l.a_id, l.a_port), end(l.b_id, l.b_port), l.gbps, l.line};
    if (c.a.node == c.b.node)
      return csv_error(l.line, "peer", l.b_id,
                       str_cat("joins ", csv_quoted(c.a.node), " to itself"));
    out.cables.push_back(std::move(c));
  }
  return out;
}

}  // namespace railyard::topology
