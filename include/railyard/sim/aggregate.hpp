// railyard/sim/aggregate.hpp — a step's flows folded into classes that the
// max-min simulator treats identically, each class simulated as one weighted
// flow. Exact, not an approximation: the quotient step gives every flow the
// rate and completion time the whole step would.
//
//   railyard::sim::AggregatedStep agg;
//   railyard::sim::AggregateScratch scratch;
//   if (railyard::sim::aggregate_step(step, caps, agg, scratch)) {
//     auto r = simulator.run_step(agg.quotient);      // one flow per class
//     // flow i of `step` finishes at r->finish_us[agg.class_of[i]];
//     // class c stands for agg.members[c] flows.
//   }
//
// The rule. Call a link *private* when exactly one link entry of the step
// crosses it (one flow, once) and *shared* otherwise. Two flows are in one class
// when they have the same bytes and, entry by entry in order, the same weight
// and either the same shared link or a private link of the same capacity.
// Flows of a class then differ only in links nobody else uses.
//
// Why it is exact. Group the links too: each shared link alone, and the private
// links by (class, entry position). Every flow of a class crosses each link group
// with the same total weight, and every link of a group carries the same total
// weight of each flow class: the partition is *equitable*. Progressive filling
// (flow_sim.hpp) raises every unfrozen flow's rate together, so by induction the
// flows of a class share one rate and the links of a group one load: the links of
// a group saturate together and freeze whole classes. The members of a class have
// the same bytes, so they finish together and leave a step that the same
// partition still covers. The quotient is therefore the step in which class c is
// one flow whose rate puts members(c)·w on each shared link it crosses (every
// member crosses it with weight w) and w on one representative private link (each
// private link carries one member): the max-min allocation of the quotient is
// the class rates of the whole step. (The same argument is the equitable-
// partition reduction of linear programs and of fractional graph problems; here
// it is applied to weighted water-filling, a bottleneck-by-bottleneck LP.)
//
// Where it pays. Under adaptive routing (collective_sim.hpp) the flows of one
// leaf pair cross the same links between the leaves with the same weights; an
// all-to-all step on 16,384 GPUs folds to about as many classes as leaf pairs.
// Under ECMP the flows' paths differ and classes stay near single flows.
//
// Not folded (returns false): steps with arrival times (a class must start
// together; the caller simulates them as they are).
//
// Cost: O(link entries) with one hash per flow, one integer compared per
// entry (link kinds are numbered once per fabric); the scratch is sized by the
// link count once and only touched entries are reset.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/sim/flow_sim.hpp"

namespace railyard::sim {

struct AggregatedStep {
  FlowStep quotient;               // one flow per class, in order of first member
  std::vector<int64_t> members;    // flows each class stands for
  std::vector<int32_t> class_of;   // per flow of the original step
  std::vector<int32_t> representative;  // per class: its first flow in the step
  // Per link entry of the quotient (its CSR order): 1 when that link is shared,
  // 0 when private (every member crosses its own link of that capacity there).
  std::vector<uint8_t> shared_entry;
  [[nodiscard]] size_t classes() const { return members.size(); }
};

// Reused between calls (allocations stay after the first steps).
struct AggregateScratch {
  std::vector<int32_t> uses;       // per link: entries crossing it in this step
  std::vector<int32_t> touched;
  // Open addressing, key hash -> first class of that hash (-1: empty slot);
  // a power of two at least twice the step's flows.
  std::vector<std::pair<uint64_t, int32_t>> table;
  std::vector<size_t> used_slots;
  std::vector<int32_t> next_same_hash;                 // per class, or -1
  std::vector<int32_t> representative;                 // per class: a member flow
  std::vector<double> weights;
};

namespace detail {

// One multiply per word (the key is hashed entry by entry on the hot path);
// finish() spreads the bits for the table index. Collisions only cost a
// comparison: classes are confirmed entry by entry.
inline uint64_t mix(uint64_t h, uint64_t v) {
  return (std::rotl(h, 23) ^ v) * 0x9E3779B97F4A7C15ULL;
}
inline uint64_t finish(uint64_t h) {
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 27);
}

}  // namespace detail

// Private links are told apart by a *kind*: two private entries match when
// their links' kinds are equal. link_kinds() numbers the distinct (capacity,
// tag) pairs of a fabric once, so that folding a step compares one integer per
// entry instead of looking up a capacity and a tag. `link_tag` (optional, per
// link id) is a per-link figure the caller reads per flow (the simulator's
// latency): matching it makes one member's figure every member's.
RAILYARD_LAZY
std::vector<int32_t> link_kinds(std::span<const double> caps, std::span<const double> link_tag = {}) {
  std::vector<int32_t> kind(caps.size());
  std::vector<std::pair<std::pair<double, double>, int32_t>> seen;  // (cap, tag) -> kind
  for (size_t l = 0; l < caps.size(); ++l) {
    const std::pair<double, double> key{caps[l], link_tag.empty() ? 0.0 : link_tag[l]};
    auto it = std::lower_bound(seen.begin(), seen.end(), key,
                               [](const auto& a, const auto& k) { return a.first < k; });
    if (it == seen.end() || it->first != key)
      it = seen.insert(it, {key, static_cast<int32_t>(seen.size())});
    kind[l] = it->second;
  }
  return kind;
}

// Folds `step` into `out`; false (and `out` untouched) when the step has
// arrivals. `kind` (link_kinds()) covers every link id of the step.
RAILYARD_LAZY
bool aggregate_step(const FlowStep& step, std::span<const int32_t> kind, AggregatedStep& out,
                    AggregateScratch& scratch) {
  if (step.has_arrivals()) return false;
  if (scratch.uses.size() < kind.size()) scratch.uses.resize(kind.size(), 0);
  int32_t* const uses = scratch.uses.data();
  for (size_t i = 0; i < step.size(); ++i)
    for (const int32_t l : step.links(i))
      if (uses[l]++ == 0) scratch.touched.push_back(l);
  auto shared = [&](int32_t l) { return uses[l] > 1; };
  const bool weighted_step = step.weighted();
  auto same_class = [&](size_t a, size_t b) {
    const std::span<const int32_t> la = step.links(a), lb = step.links(b);
    if (step.bytes(a) != step.bytes(b) || la.size() != lb.size()) return false;
    for (size_t k = 0; k < la.size(); ++k) {
      if (weighted_step && step.weight(a, k) != step.weight(b, k)) return false;
      if (la[k] == lb[k]) continue;  // the same link (shared, or both private: impossible)
      if (shared(la[k]) || shared(lb[k]) || kind[static_cast<size_t>(la[k])] != kind[static_cast<size_t>(lb[k])])
        return false;
    }
    return true;
  };

  out.quotient.clear();
  out.members.clear();
  out.class_of.resize(step.size());
  size_t slots = 16;
  while (slots < 2 * step.size()) slots *= 2;
  if (scratch.table.size() < slots) scratch.table.assign(slots, {0, -1});
  slots = scratch.table.size();
  scratch.next_same_hash.clear();
  scratch.representative.clear();
  for (size_t i = 0; i < step.size(); ++i) {
    const std::span<const int32_t> ls = step.links(i);
    uint64_t h = detail::mix(ls.size(), std::bit_cast<uint64_t>(step.bytes(i)));
    for (size_t k = 0; k < ls.size(); ++k) {
      const int32_t l = ls[k];
      // A shared link by id, a private one by its kind (tagged by bit 40 so
      // that kinds and ids never meet).
      uint64_t v = shared(l) ? static_cast<uint64_t>(l)
                             : (uint64_t{1} << 40) | static_cast<uint64_t>(kind[static_cast<size_t>(l)]);
      if (weighted_step) v ^= std::rotl(std::bit_cast<uint64_t>(step.weight(i, k)), 32);
      h = detail::mix(h, v);
    }
    h = detail::finish(h);
    size_t slot = static_cast<size_t>(h) & (slots - 1);
    while (scratch.table[slot].second >= 0 && scratch.table[slot].first != h)
      slot = (slot + 1) & (slots - 1);
    if (scratch.table[slot].second < 0) scratch.used_slots.push_back(slot);
    scratch.table[slot].first = h;
    int32_t c = scratch.table[slot].second;
    int32_t last = -1;
    while (c >= 0 && !same_class(static_cast<size_t>(scratch.representative[static_cast<size_t>(c)]), i)) {
      last = c;
      c = scratch.next_same_hash[static_cast<size_t>(c)];
    }
    if (c < 0) {
      c = static_cast<int32_t>(out.members.size());
      out.members.push_back(0);
      scratch.representative.push_back(static_cast<int32_t>(i));
      scratch.next_same_hash.push_back(-1);
      if (last >= 0)
        scratch.next_same_hash[static_cast<size_t>(last)] = c;
      else
        scratch.table[slot].second = c;
    }
    ++out.members[static_cast<size_t>(c)];
    out.class_of[i] = c;
  }
  // Class c: its representative's links; shared entries weigh members·w.
  bool weighted = weighted_step;
  for (size_t c = 0; c < out.members.size() && !weighted; ++c)
    weighted = out.members[c] > 1;
  out.representative.assign(scratch.representative.begin(), scratch.representative.end());
  out.shared_entry.clear();
  for (size_t c = 0; c < out.members.size(); ++c) {
    const auto r = static_cast<size_t>(scratch.representative[c]);
    const std::span<const int32_t> ls = step.links(r);
    for (const int32_t l : ls) out.shared_entry.push_back(shared(l) ? 1 : 0);
    if (!weighted) {
      out.quotient.add(ls, step.bytes(r));
      continue;
    }
    scratch.weights.clear();
    const auto m = static_cast<double>(out.members[c]);
    for (size_t k = 0; k < ls.size(); ++k)
      scratch.weights.push_back(shared(ls[k]) ? m * step.weight(r, k) : step.weight(r, k));
    out.quotient.add_multipath(ls, scratch.weights, step.bytes(r));
  }
  for (const size_t slot : scratch.used_slots) scratch.table[slot] = {0, -1};
  scratch.used_slots.clear();
  for (const int32_t l : scratch.touched) uses[l] = 0;
  scratch.touched.clear();
  return true;
}

// The same with the kinds made on the spot from `caps` (Gb/s per link id) and
// the optional `link_tag`: for one-off calls; a caller folding step after step
// makes link_kinds() once.
RAILYARD_LAZY
bool aggregate_step(const FlowStep& step, std::span<const double> caps, AggregatedStep& out,
                    AggregateScratch& scratch, std::span<const double> link_tag = {}) {
  const std::vector<int32_t> kind = link_kinds(caps, link_tag);
  return aggregate_step(step, std::span<const int32_t>(kind), out, scratch);
}

}  // namespace railyard::sim
