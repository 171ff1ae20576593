// railyard/topology/detail/max_flow.hpp — Dinic's maximum flow on a small
// explicit graph, for capacity questions the closed forms cannot answer exactly
// (for example the bisection of an unevenly wired Clos).
//
//   railyard::topology::detail::FlowNetwork net(4);
//   net.add_arc(0, 1, 10.0);
//   net.add_arc(1, 3, 4.0);
//   double f = net.max_flow(0, 3);  // 4
//
// O(V^2 E) worst case; on layered Clos graphs a handful of phases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace railyard::topology::detail {

class FlowNetwork {
 public:
  explicit FlowNetwork(int32_t nodes) : first_arc_(static_cast<size_t>(nodes), -1) {}

  // A directed arc u -> v of capacity `capacity` (and its zero-capacity residual).
  void add_arc(int32_t u, int32_t v, double capacity) {
    arcs_.push_back({v, first_arc_[at(u)], capacity});
    first_arc_[at(u)] = static_cast<int32_t>(arcs_.size() - 1);
    arcs_.push_back({u, first_arc_[at(v)], 0.0});
    first_arc_[at(v)] = static_cast<int32_t>(arcs_.size() - 1);
  }

  // Pushes as much flow as possible from s to t; consumes the capacities.
  [[nodiscard]] double max_flow(int32_t s, int32_t t) {
    double total = 0;
    while (label_levels(s, t)) {
      next_arc_ = first_arc_;
      for (double pushed; (pushed = augment(s, t, std::numeric_limits<double>::infinity())) > 0;)
        total += pushed;
    }
    return total;
  }

 private:
  struct Arc {
    int32_t head;
    int32_t next;
    double residual;
  };
  static constexpr double kEpsilon = 1e-9;
  static size_t at(int32_t v) { return static_cast<size_t>(v); }

  // Breadth-first distances from s over arcs with residual capacity.
  bool label_levels(int32_t s, int32_t t) {
    distance_.assign(first_arc_.size(), -1);
    queue_.clear();
    distance_[at(s)] = 0;
    queue_.push_back(s);
    for (size_t i = 0; i < queue_.size(); ++i) {
      const int32_t u = queue_[i];
      for (int32_t a = first_arc_[at(u)]; a >= 0; a = arcs_[at(a)].next) {
        const Arc& arc = arcs_[at(a)];
        if (arc.residual <= kEpsilon || distance_[at(arc.head)] >= 0) continue;
        distance_[at(arc.head)] = distance_[at(u)] + 1;
        queue_.push_back(arc.head);
      }
    }
    return distance_[at(t)] >= 0;
  }

  // One augmenting path along increasing distances (depth <= a few tiers here).
  double augment(int32_t u, int32_t t, double limit) {
    if (u == t) return limit;
    for (int32_t& a = next_arc_[at(u)]; a >= 0; a = arcs_[at(a)].next) {
      Arc& arc = arcs_[at(a)];
      if (arc.residual <= kEpsilon || distance_[at(arc.head)] != distance_[at(u)] + 1) continue;
      const double pushed = augment(arc.head, t, std::min(limit, arc.residual));
      if (pushed <= 0) continue;
      arc.residual -= pushed;
      arcs_[at(a ^ 1)].residual += pushed;
      return pushed;
    }
    return 0;
  }

  std::vector<int32_t> first_arc_;
  std::vector<int32_t> next_arc_;
  std::vector<int32_t> distance_;
  std::vector<int32_t> queue_;
  std::vector<Arc> arcs_;
};

}  // namespace railyard::topology::detail
