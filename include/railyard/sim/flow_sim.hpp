// railyard/sim/flow_sim.hpp — the flow simulator core: max-min fair sharing of
// link capacity among flows on fixed paths, recomputed as flows finish, steps
// run in order.
//
// Input is independent of how paths were chosen: a capacity per directed link
// (Gb/s; from a Fabric, optionally degraded by a FailureOverlay, or any plain
// span for tiny hand-built link sets) and, per step, flows = (links crossed,
// bytes). A step's flows all start together when the previous step's flows have
// all finished, unless given a later start (FlowStep::set_start_us: arrivals,
// e.g. a traffic matrix with start times; finish times stay measured from the
// step's start).
//
//   railyard::sim::FlowStep step;
//   step.add(std::vector<int32_t>{0, 1}, 1e6);          // links 0 and 1, 1 MB
//   step.add(std::vector<int32_t>{1}, 2e6);
//   std::vector<double> caps = {400.0, 400.0};           // Gb/s
//   auto r = railyard::sim::simulate_step(caps, step);   // r->time_us, r->finish_us
//
//   step.add_multipath(std::vector<int32_t>{0, 1}, std::vector<double>{0.5, 0.5}, 1e6);
//   step.set_start_us(2, 12.5);                          // flow 2 arrives at 12.5 us
//   railyard::sim::FlowSimulator sim(caps);
//   railyard::Status s = sim.set_queueing({.enabled = true});  // M/D/1 waits
//   auto r2 = sim.run_step(step);                        // r2->queue_us per flow
//   sim.set_progress(hook);   // core/progress.hpp: flows finished / flows, per run_step
//
//   std::vector<railyard::sim::FlowStep> steps = ...;
//   auto s = railyard::sim::simulate(railyard::sim::capacities(fabric, &overlay), steps,
//                                    {.alpha_us = 2.5});
//
// Units: capacities in Gb/s (10^9 bit/s), sizes in bytes, times in µs.
// One flow alone on a link of g Gb/s takes bytes·8 / g · 10^-3 µs
// (1 Gb/s = 125 bytes/µs).
//
// Model (progressive filling / water-filling). At every event the rates are the
// max-min fair allocation: repeatedly take the bottleneck link — the smallest
// fair share (remaining capacity / unfrozen flows crossing it) — and freeze its
// unfrozen flows at that share, subtracting their rate from every link they
// cross. Time then jumps exactly to the next flow completion (event driven, no
// time slicing); finished flows leave and the rates are recomputed. Flows whose
// completion time lies within a relative `tolerance` (default 1e-9) of the next
// event finish in the same event, which keeps floating-point noise from
// splitting one completion into many.
//
// Multipath flows (FlowStep::add_multipath). A sprayed or adaptively routed
// flow is ONE flow — one congestion-controlled sender, one fair share — whose
// rate r is split over its subpaths: each link entry carries a weight w, the
// fraction of r it carries (per-packet spraying over k equal-cost up-ports at a
// hop: w = 1/k on each of them; links every subpath crosses: w = 1). Water-
// filling is weighted: a link's fair share is remaining capacity / Σ weights of
// its unfrozen flows, and a flow frozen at rate r consumes r·w on each entry.
// Plain add() means every weight is 1, which is exactly the unweighted model.
// The incremental re-rating below stays exact with weights: a flow frozen at
// level r on link L has the largest rate on L (all of L's flows unfrozen at r
// froze at r), so a finished flow of rate > r never crossed a link that
// saturated below its rate, and the filling below the smallest finished rate is
// unchanged. Weights must be finite and > 0; a link may appear in several
// entries (weights add).
//
// Arrivals. A flow with start t > 0 is not in the sharing before t. At an
// arrival every active flow is re-rated (a newcomer can lower any share), so
// a step with A distinct start times costs A full water-fillings on top of the
// completion events below.
//
// Edge cases: zero-byte flows and flows with no links (same GPU) finish at
// their start and carry nothing. A link listed twice in one path is crossed twice (the flow
// uses twice its rate there). A flow with bytes > 0 that crosses a link of zero
// capacity (down) is an error: InvalidArgument naming the step, the flow and the
// link — it would never finish. Negative/NaN bytes or capacities and link ids
// out of range are errors too.
//
// Complexity. Let F be the flows of a step, P the mean path length and L_s the
// distinct links they touch. Setting up a step is O(F·P + L_s) (links are
// renumbered densely; scratch sized by the whole link set is allocated once per
// FlowSimulator and only touched entries are reset). Rates are updated
// incrementally: when flows finish, every flow whose rate is below the smallest
// rate among the finished ones keeps its rate (progressive filling up to that
// level is unchanged, since removing flows only raises other links' shares), so
// only the flows at or above that level (R) are re-rated, against the capacity
// the others leave. Active flows are kept sorted by rate, so R is a suffix;
// completions come from a lazy min-heap of finish times (remaining bytes are
// brought up to date only when a flow is re-rated). One event costs
// O(|R|·P·log(|R|·P) + finished·log F). Equal-size collectives: the fastest
// flows finish first and nothing else changes, so a 1M-flow all-to-all step is
// one water-filling (≈2 s including setup, -O2). Worst case (small slow flows
// finishing before large fast ones) re-rates most flows at each of up to F
// events: O(F²·P·log) — e.g. 10^5 flows with 8 distinct random sizes: ~11,000
// events, ~13 s. Memory O(F·P + L).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::sim {

// Bytes per µs carried by one Gb/s.
inline constexpr double kBytesPerUsPerGbps = 125.0;

// One flow given as its own vector (convenient for tests and small callers).
struct SimFlow {
  std::vector<int32_t> links;
  double bytes = 0.0;
};

// The flows of one step, stored flat (CSR): flow i crosses
// links[offsets[i] .. offsets[i+1]). Preferred for large steps.
class FlowStep {
 public:
  FlowStep() = default;
  explicit FlowStep(std::span<const SimFlow> flows) {
    reserve(flows.size(), 0);
    for (const SimFlow& f : flows) add(f.links, f.bytes);
  }

  // Empties the step, keeping its storage (a caller building one step after
  // another allocates only while the steps grow).
  void clear() {
    offsets_.assign(1, 0);
    links_.clear();
    weights_.clear();
    bytes_.clear();
    start_.clear();
    bad_weights_flow_ = -1;
    bad_weights_size_ = 0;
  }
  void reserve(size_t flows, size_t total_links) {
    offsets_.reserve(flows + 1);
    bytes_.reserve(flows);
    links_.reserve(total_links);
  }
  // One flow split over several links: weights[k] = fraction of the flow's
  // rate carried on links[k] (see the header comment). A size mismatch is
  // reported by the simulator as an error on this flow.
  void add_multipath(std::span<const int32_t> links, std::span<const double> weights,
                     double bytes) {
    if (weights_.size() < links_.size()) weights_.resize(links_.size(), 1.0);
    if (weights.size() != links.size() && bad_weights_flow_ < 0) {
      bad_weights_flow_ = static_cast<int64_t>(bytes_.size());
      bad_weights_size_ = weights.size();
    }
    links_.insert(links_.end(), links.begin(), links.end());
    for (size_t k = 0; k < links.size(); ++k) {
      weights_.push_back(k < weights.size() ? weights[k] : 1.0);
    }
    offsets_.push_back(static_cast<int64_t>(links_.size()));
    bytes_.push_back(bytes);
  }
  void add(std::span<const int32_t> links, double bytes) {
    links_.insert(links_.end(), links.begin(), links.end());
    if (!weights_.empty()) weights_.resize(links_.size(), 1.0);
    offsets_.push_back(static_cast<int64_t>(links_.size()));
    bytes_.push_back(bytes);
  }
  void add(std::span<const LinkId> links, double bytes) {
    for (LinkId l : links) links_.push_back(l.value());
    if (!weights_.empty()) weights_.resize(links_.size(), 1.0);
    offsets_.push_back(static_cast<int64_t>(links_.size()));
    bytes_.push_back(bytes);
  }
  void add(const topology::Path& path, double bytes) { add(path.view(), bytes); }

  [[nodiscard]] size_t size() const { return bytes_.size(); }
  [[nodiscard]] bool empty() const { return bytes_.empty(); }
  [[nodiscard]] double bytes(size_t i) const { return bytes_[i]; }
  [[nodiscard]] std::span<const int32_t> links(size_t i) const {
    const auto b = static_cast<size_t>(offsets_[i]);
    const auto e = static_cast<size_t>(offsets_[i + 1]);
    return {links_.data() + b, e - b};
  }
  [[nodiscard]] size_t total_links() const { return links_.size(); }
  // True once any flow was added with add_multipath.
  [[nodiscard]] bool weighted() const { return !weights_.empty(); }
  // Weights of flow i's link entries; empty when the step is unweighted (all 1).
  [[nodiscard]] std::span<const double> weights(size_t i) const {
    if (weights_.empty()) return {};
    const auto b = static_cast<size_t>(offsets_[i]);
    const auto e = static_cast<size_t>(offsets_[i + 1]);
    return {weights_.data() + b, e - b};
  }
  // Weight of flow i's k-th link entry (1 when unweighted).
  [[nodiscard]] double weight(size_t i, size_t k) const {
    return weights_.empty() ? 1.0 : weights_[static_cast<size_t>(offsets_[i]) + k];
  }
  // Arrival time of flow i (µs from the step's start; default 0). The flow
  // joins the sharing then; rates are recomputed at every arrival.
  void set_start_us(size_t i, double start_us) {
    if (start_.size() < bytes_.size()) start_.resize(bytes_.size(), 0.0);
    start_[i] = start_us;
  }
  [[nodiscard]] double start_us(size_t i) const { return i < start_.size() ? start_[i] : 0.0; }
  [[nodiscard]] bool has_arrivals() const { return !start_.empty(); }
  // First flow whose add_multipath got weights.size() != links.size(), or -1.
  [[nodiscard]] int64_t bad_weights_flow() const { return bad_weights_flow_; }
  [[nodiscard]] size_t bad_weights_size() const { return bad_weights_size_; }

 private:
  std::vector<int64_t> offsets_{0};
  std::vector<int32_t> links_;
  std::vector<double> weights_;  // parallel to links_, empty while unweighted
  std::vector<double> bytes_;
  std::vector<double> start_;    // per flow, empty while every flow starts at 0
  int64_t bad_weights_flow_ = -1;
  size_t bad_weights_size_ = 0;
};

struct StepResult {
  std::vector<double> finish_us;  // per flow, from the step's start (fluid: no queueing)
  double time_us = 0.0;           // the last completion (0 for an empty step)
  int64_t events = 0;             // water-filling rounds (rate recomputations)
  // Per flow, the queueing delay of its last packet (QueueingModel); empty
  // when the model is off. Not included in finish_us: callers add it.
  std::vector<double> queue_us;
};

// Queueing correction (off by default). The fluid model gives rates but no
// queues: a link loaded to 100 % delays nothing. With the correction on, every
// flow's last packet waits at each link it crosses for
//   W = min( ρ/(2(1−ρ)) · s , Q / C )        s = mtu·8 / C (one packet's time)
// the M/D/1 mean waiting time (Pollaczek–Khinchine with deterministic service:
// W = λ·E[S²] / (2(1−ρ))), capped at the drain time of the standing queue Q
// that congestion control holds on a saturated link (ECN marking / delay
// target; beyond it senders slow down instead of the queue growing). ρ is the
// link's fluid load / capacity at the moment the flow completes (just before
// its own rate leaves). A multipath entry waits w·W (the fraction of its
// packets that cross the link: the mean over its last packets).
// A link fed from one place cannot queue — its packets arrive no faster than
// they leave. An entry's feeder is the link before it in its flow's list when
// both carry the whole flow (weight 1), nothing for a flow's first entry (the
// sender paces it), and unknown when either is a fraction of a split flow (its
// packets are reassembled from several paths). A link gets W = 0 unless it
// carries an active entry of unknown feeder, or two or more active entries
// while its entries (over the step) come from different feeders. Such a link is
// treated as a merge of independent streams, for which M/D/1's Poisson arrivals
// are the standard approximation (Kleinrock's independence assumption). So an
// ECMP flow alone never waits, two colliding flows wait where their paths
// merge, and a sprayed flow waits from its split to where it rejoins one link.
struct QueueingModel {
  bool enabled = false;
  double mtu_bytes = 4096;               // packet size (RoCE MTU)
  double standing_queue_bytes = 150000;  // Q: switch ECN Kmin default (docs/constants.md)
};

struct SimOptions {
  // Latency added to every step (µs), e.g. hop latency; step time = alpha +
  // transfer time.
  double alpha_us = 0.0;
  // Optional per-step alphas (µs); when non-empty must have one per step and
  // replaces alpha_us.
  std::vector<double> step_alpha_us;
  // Relative window within which completions are merged into one event.
  double tolerance = 1e-9;
};

struct SimResult {
  double total_us = 0.0;
  std::vector<double> step_us;          // alpha + transfer time, per step
  std::vector<double> link_bytes;       // bytes carried, per link
  std::vector<double> link_utilization; // link_bytes / (capacity · total_us); 0 if idle
  int32_t max_link = -1;                // most utilized link (lowest id on ties), -1 if none
  double max_utilization = 0.0;
  int64_t events = 0;
};

// Per-link capacities (Gb/s) of a fabric, degraded by `failures` if given.
RAILYARD_LAZY
[[nodiscard]] std::vector<double> capacities(const topology::Fabric& fabric,
                                                    const topology::FailureOverlay* failures =
                                                        nullptr) {
  std::vector<double> caps(static_cast<size_t>(fabric.link_count()));
  for (int32_t l = 0; l < fabric.link_count(); ++l) {
    caps[static_cast<size_t>(l)] =
        failures ? failures->capacity_gbps(LinkId{l}) : fabric.capacity_gbps(LinkId{l});
  }
  return caps;
}

// Reusable simulator: holds scratch arrays sized by the link set so that many
// steps cost nothing per link they do not touch.
class FlowSimulator {
 public:
  explicit FlowSimulator(std::span<const double> capacities_gbps)
      : caps_(capacities_gbps.begin(), capacities_gbps.end()),
        local_(caps_.size(), -1) {}

  [[nodiscard]] Status check_capacities() const {
    for (size_t l = 0; l < caps_.size(); ++l) {
      if (!(caps_[l] >= 0.0) || !std::isfinite(caps_[l])) {
        return invalid_argument_error(
            str_cat("link ", l, ": capacity ", caps_[l], " Gb/s is not a finite number >= 0"));
      }
    }
    return ok_status();
  }

  // Simulates one step. `step_index` only labels error messages.
  [[nodiscard]] StatusOr<StepResult> run_step(const FlowStep& step,
                                                    double tolerance = 1e-9,
                                                    int64_t step_index = 0) {
    StepResult out;
    const size_t nf = step.size();
    out.finish_us.assign(nf, 0.0);

    // Validate and collect the flows that need the network.
    active_.clear();
    touched_.clear();
    const auto n_links = static_cast<int32_t>(caps_.size());
    if (step.bad_weights_flow() >= 0) {
      const auto i = static_cast<size_t>(step.bad_weights_flow());
      return invalid_argument_error(str_cat("step ", step_index, " flow ", i, ": ",
                                                step.bad_weights_size(), " weights for ",
                                                step.links(i).size(), " links"));
    }
    weighted_ = step.weighted();
    for (size_t i = 0; i < nf; ++i) {
      const double b = step.bytes(i);
      if (!(b >= 0.0) || !std::isfinite(b)) {
        reset_local();
        return invalid_argument_error(
            str_cat("step ", step_index, " flow ", i, ": bytes ", b, " is not a finite number >= 0"));
      }
      const double t0 = step.start_us(i);
      if (!(t0 >= 0.0) || !std::isfinite(t0)) {
        reset_local();
        return invalid_argument_error(str_cat("step ", step_index, " flow ", i, ": start ", t0,
                                                  " us is not a finite number >= 0"));
      }
      out.finish_us[i] = t0;
      const auto path = step.links(i);
      for (int32_t l : path) {
        if (l < 0 || l >= n_links) {
          reset_local();
          return invalid_argument_error(str_cat("step ", step_index, " flow ", i, ": link ", l,
                                                    " is out of range [0, ", n_links, ")"));
        }
      }
      for (double w : step.weights(i)) {
        if (!(w > 0.0) || !std::isfinite(w)) {
          reset_local();
          return invalid_argument_error(str_cat("step ", step_index, " flow ", i, ": weight ", w,
                                                    " is not a finite number > 0"));
        }
      }
      if (b == 0.0 || path.empty()) continue;
      for (int32_t l : path) {
        if (caps_[static_cast<size_t>(l)] <= 0.0) {
          reset_local();
          return invalid_argument_error(str_cat("step ", step_index, " flow ", i,
                                                    ": crosses link ", l,
                                                    " of zero capacity and would never finish"));
        }
        if (local_[static_cast<size_t>(l)] < 0) {
          local_[static_cast<size_t>(l)] = static_cast<int32_t>(touched_.size());
          touched_.push_back(l);
        }
      }
      active_.push_back(static_cast<int32_t>(i));
    }
    const size_t ls = touched_.size();
    local_cap_.resize(ls);
    for (size_t k = 0; k < ls; ++k) {
      local_cap_[k] = caps_[static_cast<size_t>(touched_[k])] * kBytesPerUsPerGbps;
    }
    sub_.assign(ls, -1);
    if (queueing_.enabled) feeder_.assign(ls, kFeederUnset);
    // Local paths, flat, for the active flows (indexed by position in active_).
    path_off_.assign(1, 0);
    path_.clear();
    path_w_.clear();
    path_merged_.clear();
    rem_.clear();
    for (int32_t f : active_) {
      for (int32_t l : step.links(static_cast<size_t>(f))) {
        path_.push_back(local_[static_cast<size_t>(l)]);
      }
      if (weighted_) {
        for (double w : step.weights(static_cast<size_t>(f))) path_w_.push_back(w);
      }
      if (queueing_.enabled) {
        // An entry's feeder: the link its packets arrive from — none for the
        // first (the sender paces it), the previous entry when both carry the
        // whole flow (weight 1: a plain sequence), unknown otherwise (packets
        // of a split flow reassembled from several links).
        const auto links = step.links(static_cast<size_t>(f));
        for (size_t k = 0; k < links.size(); ++k) {
          int32_t feeder = kFeederNone;
          if (k > 0) {
            feeder = step.weight(static_cast<size_t>(f), k) < 1.0 ||
                             step.weight(static_cast<size_t>(f), k - 1) < 1.0
                         ? kFeederUnknown
                         : local_[static_cast<size_t>(links[k - 1])];
          }
          path_merged_.push_back(feeder == kFeederUnknown ? 1 : 0);
          int32_t& state = feeder_[static_cast<size_t>(local_[static_cast<size_t>(links[k])])];
          if (state == kFeederUnset) state = feeder;
          else if (state != feeder) state = kFeederUnknown;
        }
      }
      path_off_.push_back(static_cast<int64_t>(path_.size()));
      rem_.push_back(step.bytes(static_cast<size_t>(f)));
    }
    reset_local();
    const size_t na = active_.size();
    rate_.assign(na, 0.0);
    last_t_.assign(na, 0.0);
    for (size_t k = 0; k < na; ++k) last_t_[k] = step.start_us(static_cast<size_t>(active_[k]));
    fversion_.assign(na, 0);
    done_.assign(na, 0);
    load_.assign(ls, 0.0);
    if (queueing_.enabled) {
      out.queue_us.assign(nf, 0.0);
      link_entries_.assign(ls, 0);
      link_merged_.assign(ls, 0);
    }
    // order_: unfinished flows that have arrived, by rate, ascending. Initially
    // every flow is to
    // be (re)computed. Flows with a later start wait in arrivals_ (by start).
    order_.clear();
    arrivals_.clear();
    for (size_t k = 0; k < na; ++k) {
      (last_t_[k] > 0.0 ? arrivals_ : order_).push_back(static_cast<int32_t>(k));
    }
    std::sort(arrivals_.begin(), arrivals_.end(), [&](int32_t x, int32_t y) {
      const double tx = last_t_[static_cast<size_t>(x)], ty = last_t_[static_cast<size_t>(y)];
      return tx != ty ? tx < ty : x < y;
    });
    size_t next_arrival = 0;
    if (queueing_.enabled) {
      for (int32_t a : order_) count_entries(static_cast<size_t>(a), +1);
    }
    fin_heap_.clear();
    size_t recompute_from = 0;  // order_[recompute_from..] get new rates
    double now = 0.0;
    size_t left = na;
    ProgressMeter meter(progress_, static_cast<int64_t>(na));
    while (true) {
      // Re-rate the suffix of order_ (dropping finished flows).
      recompute_.clear();
      for (size_t k = recompute_from; k < order_.size(); ++k) {
        const auto ai = static_cast<size_t>(order_[k]);
        if (done_[ai]) continue;
        rem_[ai] -= rate_[ai] * (now - last_t_[ai]);
        last_t_[ai] = now;
        for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
          load_[static_cast<size_t>(path_[static_cast<size_t>(p)])] -= rate_[ai] * entry_weight(p);
        }
        recompute_.push_back(order_[k]);
      }
      order_.resize(recompute_from);
      if (!recompute_.empty()) {
        water_fill();
        ++out.events;
        for (int32_t a : recompute_) {
          const auto ai = static_cast<size_t>(a);
          for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
            load_[static_cast<size_t>(path_[static_cast<size_t>(p)])] += rate_[ai] * entry_weight(p);
          }
          ++fversion_[ai];
          fin_heap_.push_back({now + rem_[ai] / rate_[ai], a, fversion_[ai]});
          std::push_heap(fin_heap_.begin(), fin_heap_.end(), std::greater<>{});
        }
        std::sort(recompute_.begin(), recompute_.end(), [&](int32_t x, int32_t y) {
          const double rx = rate_[static_cast<size_t>(x)], ry = rate_[static_cast<size_t>(y)];
          return rx != ry ? rx < ry : x < y;
        });
        order_.insert(order_.end(), recompute_.begin(), recompute_.end());
      }
      if (left == 0) break;
      // Keep the lazy heap from growing without bound.
      if (fin_heap_.size() > 4 * left + 1024) {
        size_t keep = 0;
        for (const Finish& f : fin_heap_) {
          if (f.version == fversion_[static_cast<size_t>(f.flow)]) fin_heap_[keep++] = f;
        }
        fin_heap_.resize(keep);
        std::make_heap(fin_heap_.begin(), fin_heap_.end(), std::greater<>{});
      }
      // Next event: an arrival before the next completion admits every flow
      // starting then and re-rates all flows (a newcomer can lower anyone's
      // share); otherwise the completion(s) below.
      while (!fin_heap_.empty() &&
             fin_heap_.front().version != fversion_[static_cast<size_t>(fin_heap_.front().flow)]) {
        std::pop_heap(fin_heap_.begin(), fin_heap_.end(), std::greater<>{});
        fin_heap_.pop_back();
      }
      if (next_arrival < arrivals_.size()) {
        const double t_arr = last_t_[static_cast<size_t>(arrivals_[next_arrival])];
        if (fin_heap_.empty() || t_arr < fin_heap_.front().time) {
          now = t_arr;
          while (next_arrival < arrivals_.size() &&
                 last_t_[static_cast<size_t>(arrivals_[next_arrival])] <= now + tolerance * now) {
            if (queueing_.enabled) count_entries(static_cast<size_t>(arrivals_[next_arrival]), +1);
            order_.push_back(arrivals_[next_arrival++]);
          }
          recompute_from = 0;
          continue;
        }
      }
      // Next completion(s).
      double t_next = -1.0;
      double r_min = std::numeric_limits<double>::infinity();
      while (!fin_heap_.empty()) {
        const Finish top = fin_heap_.front();
        const auto ai = static_cast<size_t>(top.flow);
        if (top.version != fversion_[ai]) {
          std::pop_heap(fin_heap_.begin(), fin_heap_.end(), std::greater<>{});
          fin_heap_.pop_back();
          continue;
        }
        if (t_next < 0.0) t_next = top.time;
        if (top.time > t_next + tolerance * t_next) break;
        std::pop_heap(fin_heap_.begin(), fin_heap_.end(), std::greater<>{});
        fin_heap_.pop_back();
        done_[ai] = 1;
        --left;
        out.finish_us[static_cast<size_t>(active_[ai])] = t_next;
        r_min = std::min(r_min, rate_[ai]);
        finished_.push_back(top.flow);
      }
      // Queueing delays are read with every co-finishing flow still loading
      // its links; then their rates leave.
      if (queueing_.enabled) {
        for (int32_t a : finished_) {
          out.queue_us[static_cast<size_t>(active_[static_cast<size_t>(a)])] =
              queue_delay_us(static_cast<size_t>(a));
        }
        for (int32_t a : finished_) count_entries(static_cast<size_t>(a), -1);
      }
      for (int32_t a : finished_) {
        const auto ai = static_cast<size_t>(a);
        for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
          load_[static_cast<size_t>(path_[static_cast<size_t>(p)])] -= rate_[ai] * entry_weight(p);
        }
      }
      finished_.clear();
      meter.update(static_cast<int64_t>(na - left));
      now = t_next;
      // Flows frozen below the smallest finished rate keep their rates (the
      // water-filling up to that level is unchanged); re-rate the rest.
      const double threshold = r_min * (1.0 - 1e-9);
      recompute_from = static_cast<size_t>(
          std::lower_bound(order_.begin(), order_.end(), threshold,
                           [&](int32_t x, double t) { return rate_[static_cast<size_t>(x)] < t; }) -
          order_.begin());
    }
    meter.finish();
    out.time_us = now;
    return out;
  }

  // Progress of later run_step calls: flows of the step finished / flows that
  // need the network (core/progress.hpp), reported after completion events. The
  // hook must outlive those calls. Unset (the default): no cost beyond a branch
  // per event.
  void set_progress(const ProgressHook& hook) { progress_ = hook; }

  // Queueing correction for later run_step calls (see QueueingModel).
  [[nodiscard]] Status set_queueing(const QueueingModel& q) {
    if (q.enabled && (!(q.mtu_bytes > 0.0) || !std::isfinite(q.mtu_bytes)))
      return invalid_field("mtu_bytes", str_cat(q.mtu_bytes), "must be a finite number > 0");
    if (q.enabled && (!(q.standing_queue_bytes >= 0.0) || !std::isfinite(q.standing_queue_bytes)))
      return invalid_field("standing_queue_bytes", str_cat(q.standing_queue_bytes),
                           "must be a finite number >= 0");
    queueing_ = q;
    return ok_status();
  }

  [[nodiscard]] size_t link_count() const { return caps_.size(); }
  [[nodiscard]] double capacity_gbps(size_t l) const { return caps_[l]; }

 private:
  void reset_local() {
    for (int32_t l : touched_) local_[static_cast<size_t>(l)] = -1;
  }
  // Active entries (and reassembled ones) per link, for the queueing rule.
  void count_entries(size_t ai, int32_t delta) {
    for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
      const auto l = static_cast<size_t>(path_[static_cast<size_t>(p)]);
      link_entries_[l] += delta;
      link_merged_[l] += delta * path_merged_[static_cast<size_t>(p)];
    }
  }
  // The last packet's wait over flow ai's links (QueueingModel), in µs.
  [[nodiscard]] double queue_delay_us(size_t ai) const {
    double total = 0.0;
    for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
      const auto l = static_cast<size_t>(path_[static_cast<size_t>(p)]);
      // One stream from one feeder cannot queue: its packets arrive no faster
      // than they leave.
      if (link_merged_[l] == 0 && (link_entries_[l] <= 1 || feeder_[l] != kFeederUnknown)) continue;
      const double cap = local_cap_[l];                               // bytes/µs
      const double rho = std::clamp(load_[l] / cap, 0.0, 1.0);
      const double cap_us = queueing_.standing_queue_bytes / cap;
      const double w = rho < 1.0 ? std::min(rho / (2.0 * (1.0 - rho)) * queueing_.mtu_bytes / cap,
                                            cap_us)
                                 : cap_us;
      total += w * entry_weight(p);
    }
    return total;
  }
  // Weight of flat path entry p (1 for unweighted steps, which keep no array).
  [[nodiscard]] double entry_weight(int64_t p) const {
    return weighted_ ? path_w_[static_cast<size_t>(p)] : 1.0;
  }

  // Max-min rates (bytes/µs) into rate_ of the flows in recompute_, given the
  // capacity left after every other active flow (load_).
  void water_fill() {
    // Links of the recomputed flows, renumbered densely again.
    sub_links_.clear();
    for (int32_t a : recompute_) {
      const auto ai = static_cast<size_t>(a);
      for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
        const auto l = static_cast<size_t>(path_[static_cast<size_t>(p)]);
        if (sub_[l] < 0) {
          sub_[l] = static_cast<int32_t>(sub_links_.size());
          sub_links_.push_back(static_cast<int32_t>(l));
        }
      }
    }
    const size_t ls = sub_links_.size();
    cnt_.assign(ls + 1, 0);
    for (int32_t a : recompute_) {
      const auto ai = static_cast<size_t>(a);
      for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
        ++cnt_[static_cast<size_t>(sub_[static_cast<size_t>(path_[static_cast<size_t>(p)])]) + 1];
      }
    }
    for (size_t k = 0; k < ls; ++k) cnt_[k + 1] += cnt_[k];
    csr_.resize(static_cast<size_t>(cnt_[ls]));
    fill_.assign(cnt_.begin(), cnt_.end());
    for (int32_t a : recompute_) {
      const auto ai = static_cast<size_t>(a);
      for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
        const auto l = static_cast<size_t>(sub_[static_cast<size_t>(path_[static_cast<size_t>(p)])]);
        csr_[static_cast<size_t>(fill_[l]++)] = a;
      }
    }
    rcap_.resize(ls);
    unfrozen_.resize(ls);
    wsum_.resize(ls);
    version_.assign(ls, 0);
    dirty_.assign(ls, 0);
    for (size_t k = 0; k < ls; ++k) {
      const auto g = static_cast<size_t>(sub_links_[k]);
      rcap_[k] = std::clamp(local_cap_[g] - load_[g], 0.0, local_cap_[g]);
      unfrozen_[k] = cnt_[k + 1] - cnt_[k];
      wsum_[k] = static_cast<double>(unfrozen_[k]);
    }
    if (weighted_) {
      // Σ weights of the unfrozen entries per link (the counts stay: they say
      // when a link has no unfrozen flow left, free of rounding).
      for (size_t k = 0; k < ls; ++k) wsum_[k] = 0.0;
      for (int32_t a : recompute_) {
        const auto ai = static_cast<size_t>(a);
        for (auto p = path_off_[ai]; p < path_off_[ai + 1]; ++p) {
          wsum_[static_cast<size_t>(sub_[static_cast<size_t>(path_[static_cast<size_t>(p)])])] +=
              path_w_[static_cast<size_t>(p)];
        }
      }
    }
    for (int32_t a : recompute_) rate_[static_cast<size_t>(a)] = -1.0;  // -1 = not frozen

    heap_.clear();
    for (size_t k = 0; k < ls; ++k) {
      heap_.push_back({rcap_[k] / wsum_[k], static_cast<int32_t>(k), 0});
    }
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>{});
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      const Entry e = heap_.back();
      heap_.pop_back();
      const auto l = static_cast<size_t>(e.link);
      if (e.version != version_[l] || unfrozen_[l] <= 0) continue;
      const double share = std::max(e.share, 0.0);
      for (auto p = cnt_[l]; p < cnt_[l + 1]; ++p) {
        const auto ai = static_cast<size_t>(csr_[static_cast<size_t>(p)]);
        if (rate_[ai] >= 0.0) continue;
        rate_[ai] = share;
        for (auto q = path_off_[ai]; q < path_off_[ai + 1]; ++q) {
          const auto m = static_cast<size_t>(sub_[static_cast<size_t>(path_[static_cast<size_t>(q)])]);
          const double w = entry_weight(q);
          rcap_[m] = std::max(rcap_[m] - share * w, 0.0);
          --unfrozen_[m];
          wsum_[m] = unfrozen_[m] > 0 ? std::max(wsum_[m] - w, 0.0) : 0.0;
          ++version_[m];
          // Re-queued once after this link's flows are frozen, not once per
          // flow: only its last share counts (earlier entries go stale), and
          // links shared by the frozen flows would otherwise be pushed again
          // and again.
          if (m != l && !dirty_[m]) {
            dirty_[m] = 1;
            dirty_links_.push_back(static_cast<int32_t>(m));
          }
        }
      }
      for (const int32_t mi : dirty_links_) {
        const auto m = static_cast<size_t>(mi);
        dirty_[m] = 0;
        if (unfrozen_[m] <= 0) continue;
        if (!(wsum_[m] > 0.0)) wsum_[m] = std::numeric_limits<double>::min();
        heap_.push_back({rcap_[m] / wsum_[m], mi, version_[m]});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
      }
      dirty_links_.clear();
    }
    for (int32_t l : sub_links_) sub_[static_cast<size_t>(l)] = -1;
  }

  struct Finish {
    double time;
    int32_t flow;
    int32_t version;
    friend bool operator>(const Finish& a, const Finish& b) {
      if (a.time != b.time) return a.time > b.time;
      return a.flow > b.flow;
    }
  };

  struct Entry {
    double share;
    int32_t link;
    int32_t version;
    friend bool operator>(const Entry& a, const Entry& b) {
      if (a.share != b.share) return a.share > b.share;
      return a.link > b.link;
    }
  };

  std::vector<double> caps_;   // Gb/s, global
  std::vector<int32_t> local_; // global link -> local index, -1 when untouched
  std::vector<int32_t> touched_;
  std::vector<double> local_cap_;  // bytes/µs
  std::vector<int32_t> active_;    // step flow index of each network flow
  std::vector<int64_t> path_off_;
  std::vector<int32_t> path_;
  std::vector<double> path_w_;   // weight per path_ entry, only for weighted steps
  QueueingModel queueing_;
  ProgressHook progress_;
  std::vector<uint8_t> path_merged_;  // per path_ entry: its feeder is unknown
  static constexpr int32_t kFeederNone = -1, kFeederUnset = -2, kFeederUnknown = -3;
  std::vector<int32_t> feeder_;  // per local link: its entries' one feeder, or unknown
  std::vector<int32_t> link_entries_, link_merged_;  // active entries per local link
  std::vector<int32_t> finished_;
  bool weighted_ = false;
  std::vector<double> rem_;
  std::vector<double> rate_;
  std::vector<double> last_t_;   // time rem_ was last brought up to date
  std::vector<int32_t> fversion_;
  std::vector<uint8_t> done_;
  std::vector<double> load_;     // bytes/µs used per local link by rated flows
  std::vector<int32_t> order_;   // unfinished arrived flows by rate, ascending
  std::vector<int32_t> arrivals_;  // flows starting after 0, by start time
  std::vector<int32_t> recompute_;
  std::vector<int32_t> sub_;     // local link -> index among recomputed links, -1
  std::vector<int32_t> sub_links_;
  std::vector<Finish> fin_heap_;
  std::vector<int64_t> cnt_, fill_;
  std::vector<int32_t> csr_;
  std::vector<double> rcap_;
  std::vector<int64_t> unfrozen_;
  std::vector<double> wsum_;     // Σ weights of the unfrozen entries per link
  std::vector<int32_t> version_;
  std::vector<uint8_t> dirty_;        // per sub link: re-queue after this freeze
  std::vector<int32_t> dirty_links_;
  std::vector<Entry> heap_;
};

// One step on a plain capacity array (Gb/s).
RAILYARD_LAZY
[[nodiscard]] StatusOr<StepResult> simulate_step(std::span<const double> capacities_gbps,
                                                              const FlowStep& step,
                                                              double tolerance = 1e-9) {
  FlowSimulator sim(capacities_gbps);
  if (Status s = sim.check_capacities(); !s.ok()) return s;
  return sim.run_step(step, tolerance);
}
RAILYARD_LAZY
[[nodiscard]] StatusOr<StepResult> simulate_step(std::span<const double> capacities_gbps,
                                                              std::span<const SimFlow> flows,
                                                              double tolerance = 1e-9) {
  return simulate_step(capacities_gbps, FlowStep(flows), tolerance);
}

// Steps in order; see SimResult.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SimResult> simulate(std::span<const double> capacities_gbps,
                                                        std::span<const FlowStep> steps,
                                                        const SimOptions& options = {}) {
  if (!options.step_alpha_us.empty() && options.step_alpha_us.size() != steps.size()) {
    return invalid_argument_error(str_cat("step_alpha_us has ", options.step_alpha_us.size(),
                                              " entries for ", steps.size(), " steps"));
  }
  if (!(options.tolerance >= 0.0) || !std::isfinite(options.tolerance)) {
    return invalid_argument_error(str_cat("tolerance=", options.tolerance, ": must be >= 0"));
  }
  FlowSimulator sim(capacities_gbps);
  if (Status s = sim.check_capacities(); !s.ok()) return s;
  SimResult out;
  out.link_bytes.assign(capacities_gbps.size(), 0.0);
  out.step_us.reserve(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) {
    const double alpha = options.step_alpha_us.empty() ? options.alpha_us : options.step_alpha_us[s];
    if (!(alpha >= 0.0) || !std::isfinite(alpha)) {
      return invalid_argument_error(str_cat("step ", s, ": alpha ", alpha, " us must be >= 0"));
    }
    auto r = sim.run_step(steps[s], options.tolerance, static_cast<int64_t>(s));
    if (!r.ok()) return r.status();
    const FlowStep& st = steps[s];
    for (size_t i = 0; i < st.size(); ++i) {
      const auto path = st.links(i);
      for (size_t k = 0; k < path.size(); ++k) {
        out.link_bytes[static_cast<size_t>(path[k])] += st.bytes(i) * st.weight(i, k);
      }
    }
    out.step_us.push_back(alpha + r->time_us);
    out.total_us += alpha + r->time_us;
    out.events += r->events;
  }
  out.link_utilization.assign(capacities_gbps.size(), 0.0);
  for (size_t l = 0; l < capacities_gbps.size(); ++l) {
    const double denom = capacities_gbps[l] * kBytesPerUsPerGbps * out.total_us;
    const double u = (out.link_bytes[l] > 0.0 && denom > 0.0) ? out.link_bytes[l] / denom : 0.0;
    out.link_utilization[l] = u;
    if (out.link_bytes[l] > 0.0 && (out.max_link < 0 || u > out.max_utilization)) {
      out.max_link = static_cast<int32_t>(l);
      out.max_utilization = u;
    }
  }
  return out;
}

// Convenience: steps given as vectors of SimFlow.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SimResult> simulate(std::span<const double> capacities_gbps,
                                                        std::span<const std::vector<SimFlow>> steps,
                                                        const SimOptions& options = {}) {
  std::vector<FlowStep> flat;
  flat.reserve(steps.size());
  for (const auto& s : steps) flat.emplace_back(s);
  return simulate(capacities_gbps, std::span<const FlowStep>(flat), options);
}

// On a fabric, with capacities degraded by `failures` if given.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SimResult> simulate(const topology::Fabric& fabric,
                                                        std::span<const FlowStep> steps,
                                                        const SimOptions& options = {},
                                                        const topology::FailureOverlay* failures =
                                                            nullptr) {
  const std::vector<double> caps = capacities(fabric, failures);
  return simulate(std::span<const double>(caps), steps, options);
}

}  // namespace railyard::sim
