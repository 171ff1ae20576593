// Independent reference answers for tests: exhaustive path search and max flow
// on a Fabric, written without the library's own routing code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "railyard/topology/fabric.hpp"

namespace railyard::testing {

inline int rank_of(topology::NodeKind k) {
  switch (k) {
    case topology::NodeKind::kLeaf:
      return 1;
    case topology::NodeKind::kSpine:
      return 2;
    case topology::NodeKind::kCore:
      return 3;
    default:
      return 0;
  }
}

// Every valley-free (strictly up, then strictly down) simple path from NIC port
// a to NIC port b through switches only, over links not marked down, of the
// smallest hop count found. Exhaustive DFS up to 6 hops.
inline std::vector<std::vector<int32_t>> brute_force_paths(const topology::Fabric& f, NodeId a,
                                                           NodeId b,
                                                           const topology::FailureOverlay* fail) {
  std::vector<std::vector<int32_t>> found;
  std::vector<int32_t> links;
  std::vector<int32_t> visited{a.value()};
  auto dfs = [&](auto& self, NodeId node, bool descending) -> void {
    if (node == b) {
      found.push_back(links);
      return;
    }
    if (links.size() >= 6) return;
    for (LinkId l : f.out_links(node)) {
      if (fail && fail->is_down(l)) continue;
      const NodeId next = f.dst(l);
      const int r_here = rank_of(f.kind(node));
      const int r_next = rank_of(f.kind(next));
      if (r_next == 0 && next != b) continue;  // never through another endpoint
      if (f.kind(next) == topology::NodeKind::kGpu || f.kind(next) == topology::NodeKind::kNvSwitch)
        continue;
      const bool up = r_next > r_here;
      if (r_next == r_here) continue;
      if (descending && up) continue;  // a valley
      if (std::find(visited.begin(), visited.end(), next.value()) != visited.end()) continue;
      visited.push_back(next.value());
      links.push_back(l.value());
      self(self, next, descending || !up);
      links.pop_back();
      visited.pop_back();
    }
  };
  dfs(dfs, a, false);
  if (found.empty()) return found;
  size_t shortest = found.front().size();
  for (const auto& p : found) shortest = std::min(shortest, p.size());
  std::erase_if(found, [&](const auto& p) { return p.size() != shortest; });
  std::sort(found.begin(), found.end());
  return found;
}

// Dinic max flow on an explicit capacity graph.
class MaxFlow {
 public:
  explicit MaxFlow(int nodes) : head_(static_cast<size_t>(nodes), -1) {}
  void add_edge(int u, int v, double cap) {
    edges_.push_back({v, head_[static_cast<size_t>(u)], cap});
    head_[static_cast<size_t>(u)] = static_cast<int>(edges_.size()) - 1;
    edges_.push_back({u, head_[static_cast<size_t>(v)], 0});
    head_[static_cast<size_t>(v)] = static_cast<int>(edges_.size()) - 1;
  }
  double run(int s, int t) {
    double total = 0;
    while (bfs(s, t)) {
      it_ = head_;
      while (double pushed = dfs(s, t, std::numeric_limits<double>::infinity())) total += pushed;
    }
    return total;
  }

 private:
  struct Edge {
    int to;
    int next;
    double cap;
  };
  bool bfs(int s, int t) {
    level_.assign(head_.size(), -1);
    std::queue<int> q;
    level_[static_cast<size_t>(s)] = 0;
    q.push(s);
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (int e = head_[static_cast<size_t>(u)]; e >= 0; e = edges_[static_cast<size_t>(e)].next) {
        const Edge& ed = edges_[static_cast<size_t>(e)];
        if (ed.cap > 1e-9 && level_[static_cast<size_t>(ed.to)] < 0) {
          level_[static_cast<size_t>(ed.to)] = level_[static_cast<size_t>(u)] + 1;
          q.push(ed.to);
        }
      }
    }
    return level_[static_cast<size_t>(t)] >= 0;
  }
  double dfs(int u, int t, double f) {
    if (u == t) return f;
    for (int& e = it_[static_cast<size_t>(u)]; e >= 0; e = edges_[static_cast<size_t>(e)].next) {
      Edge& ed = edges_[static_cast<size_t>(e)];
      if (ed.cap > 1e-9 &&
          level_[static_cast<size_t>(ed.to)] == level_[static_cast<size_t>(u)] + 1) {
        if (double d = dfs(ed.to, t, std::min(f, ed.cap)); d > 0) {
          ed.cap -= d;
          edges_[static_cast<size_t>(e ^ 1)].cap += d;
          return d;
        }
      }
    }
    return 0;
  }
  std::vector<int> head_, it_, level_;
  std::vector<Edge> edges_;
};

// Max flow over the network (NIC ports and switches, every directed link at its
// capacity) from the NIC ports of hosts [0, split) to those of hosts [split, hosts).
inline double cut_flow_gbps(const topology::Fabric& f, int32_t split) {
  const int n = f.node_count();
  MaxFlow mf(n + 2);
  const int source = n;
  const int sink = n + 1;
  for (int32_t l = 0; l < f.link_count(); ++l) {
    const LinkId id{l};
    const topology::LinkTier tier = f.tier(id);
    if (tier == topology::LinkTier::kPcie || tier == topology::LinkTier::kNvlink) continue;
    mf.add_edge(f.src(id).value(), f.dst(id).value(), f.capacity_gbps(id));
  }
  for (int32_t v = 0; v < n; ++v) {
    const NodeId node{v};
    if (f.kind(node) != topology::NodeKind::kNicPort) continue;
    if (f.owner(node) < split)
      mf.add_edge(source, v, 1e18);
    else
      mf.add_edge(v, sink, 1e18);
  }
  return mf.run(source, sink);
}

}  // namespace railyard::testing
