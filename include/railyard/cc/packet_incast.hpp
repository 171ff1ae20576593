// railyard/cc/packet_incast.hpp — a packet-level model of senders into one
// switch egress port: each sender's NIC runs DCQCN as ConnectX does
// (cc/dcqcn_nic.hpp), the switch marks ECN with RED and pauses senders with PFC,
// the receiver's NIC paces CNPs. Event-driven, one event per packet per hop.
//
//   railyard::cc::PacketIncastScenario s;
//   s.senders = 8;                    // 8 line-rate senders into one 400G port
//   s.link_gbps = 400;
//   s.one_way_us = 3.7;               // sender -> queue, and receiver -> sender (CNP)
//   s.pfc.shared_buffer_bytes = 80e6;
//   railyard::StatusOr<railyard::cc::PacketIncastResult> r = railyard::cc::simulate_packet_incast(
//       railyard::cc::connectx_default_dcqcn(), railyard::cc::NicReadings{},
//       railyard::cc::vendor_default_red(), s);
//   // r->peak_queue_bytes, r->pauses, r->paused_us_max, r->utilization,
//   // r->steady_utilization, r->jain_fairness, r->convergence_us, r->drops
//
// Model (docs/models.md#packet-incast):
// * Topology: every sender has its own ingress port on the switch, one cable
//   away; all flows leave through one egress port of link_gbps to the receiver.
//   A packet leaves its NIC at its pacing instant and reaches the egress queue
//   one_way_us later (cables, switches, NIC latency and one serialization);
//   CNPs take one_way_us back. The egress serves packets FIFO at link_gbps.
// * ECN: RED on the egress queue's bytes (0 below Kmin, linear to Pmax at Kmax,
//   1 above), at dequeue (the queue left behind, as both public ns-3 DCQCN
//   simulators do) or at enqueue (MarkPoint). Draws come from a seeded
//   generator: the same inputs give the same bytes.
// * PFC on the lossless priority, per ingress port: XOFF when the port's bytes
//   in the buffer exceed alpha × (shared buffer − bytes in use) (the switch's
//   dynamic threshold), XON when they fall xon_offset below the threshold of that
//   instant (or to zero). The frame takes pause_delay_us to stop or restart the
//   upstream port (cable, interface and response delay), which is last_hop_us
//   (its cable) from the ingress; packets reaching the upstream port while it is
//   paused wait there and leave one serialization apart after XON, and the
//   sender's NIC pauses with it (the pause reaches the senders). Bytes sent
//   before the pause acts land in the ingress port's headroom; beyond it a
//   packet is dropped (counted: a lossless class should never drop).
// * Senders have unlimited data from start_us (a flow's own ceiling: the line
//   rate, or its share of a NIC shared with other peers) to stop_us.
//
// Figures: peak queue and when, pauses (XOFF frames) and paused time per sender,
// drops, utilization (whole run and second half), Jain's index of the flows'
// throughput in the second half, convergence time (the start of the first
// 100 µs window after which every window has Jain ≥ 0.95 and utilization ≥ 90 %
// of what the active flows can send), CNPs, cuts, marked fraction.
//
// Cost: O(packets · log flows) time; 20 ms of a 64-sender 400G incast is about
// 0.25 M packets (bench/cc/packet_incast_bench.cpp has the figures).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/cc/dcqcn_nic.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"

namespace railyard::cc {

enum class MarkPoint { kDequeue, kEnqueue };

// The switch's lossless-class buffer accounting (see the overview).
struct PfcConfig {
  bool enabled = true;
  double shared_buffer_bytes = 80e6;  // what the dynamic threshold divides
  double dynamic_alpha = 1.0;
  double headroom_bytes = 600e3;  // per ingress port
  double xon_offset_bytes = 18'432;
  // XOFF/XON leaves the switch -> the upstream port stops/starts sending
  // (cable + interface + response delay).
  double pause_delay_us = 1.5;
  // The last hop: a packet released by the upstream port reaches the ingress
  // this much later (the cable). What is on it when XOFF acts still arrives.
  double last_hop_us = 0.15;
};

// One flow (sender) of the scenario; empty PacketIncastScenario::flows = every
// sender with the scenario's start fraction, from t = 0 to the end.
struct IncastFlow {
  double start_us = 0;
  double stop_us = std::numeric_limits<double>::infinity();
  double start_fraction = 1;    // first rate / line rate, (0, 1]
  double ceiling_fraction = 1;  // most the flow may send / line rate, (0, 1]
};

struct PacketIncastScenario {
  int32_t senders = 8;
  double link_gbps = 400;  // every NIC and the egress port
  double frame_bytes = 4158;
  double one_way_us = 4;
  // Marked packet leaves the queue -> its CNP reaches the sender; 0 = one_way_us.
  double cnp_return_us = 0;
  double duration_us = 20'000;
  double start_fraction = 1;
  std::vector<IncastFlow> flows = {};  // empty, or one per sender
  MarkPoint mark_at = MarkPoint::kDequeue;
  PfcConfig pfc;
  uint64_t seed = 1;
  double window_us = 100;       // fairness / convergence windows
  int32_t trace_points = 0;     // samples of queue and rates (0 or >= 2)
  int32_t traced_flows = 4;
};

struct PacketIncastResult {
  double simulated_us = 0;
  int64_t packets = 0;  // delivered
  double peak_queue_bytes = 0;
  double peak_queue_us = 0;
  double steady_queue_bytes = 0;  // time average, second half
  double utilization = 0;         // delivered / (C · time)
  double steady_utilization = 0;  // second half
  double jain_fairness = 1;       // second half, flows active throughout it
  std::optional<double> convergence_us;
  // The first time the queue falls below Kmin after first rising two frames
  // above it (empty: it never rose so far, or never came back).
  std::optional<double> back_below_kmin_us;
  int64_t pauses = 0;             // XOFF frames sent
  double paused_us_total = 0;     // summed over senders
  double paused_us_max = 0;       // the most-paused sender
  std::vector<double> paused_us;  // per sender
  int64_t drops = 0;              // headroom overflows
  int64_t cnps = 0;
  int64_t cuts = 0;
  double marked_fraction = 0;
  std::vector<double> flow_gbps;  // mean throughput per flow, second half
  FluidTrace trace;               // queue and rates over time (trace_points)
};

// PFC accounting of one switch (ingress ports x one lossless priority). Pure
// bookkeeping, so that XOFF/XON and drops can be checked against the thresholds.
class PfcIngress {
 public:
  enum class Admit { kQueued, kQueuedAndXoff, kDropped };

  PfcIngress(const PfcConfig& c, int32_t ports)
      : c_(c), bytes_(static_cast<size_t>(ports), 0.0), xoff_at_(static_cast<size_t>(ports), -1.0) {}

  [[nodiscard]] double threshold() const {
    return c_.dynamic_alpha * std::max(0.0, c_.shared_buffer_bytes - used_);
  }
  [[nodiscard]] double bytes(int32_t port) const { return bytes_[static_cast<size_t>(port)]; }
  [[nodiscard]] bool paused(int32_t port) const { return xoff_at_[static_cast<size_t>(port)] >= 0; }
  [[nodiscard]] double used() const { return used_; }

  // A packet of `size` bytes from `port` arrives.
  Admit arrive(int32_t port, double size) {
    const auto i = static_cast<size_t>(port);
    if (!c_.enabled) {
      bytes_[i] += size;
      used_ += size;
      return Admit::kQueued;
    }
    if (xoff_at_[i] >= 0 && bytes_[i] + size > xoff_at_[i] + c_.headroom_bytes) return Admit::kDropped;
    bytes_[i] += size;
    used_ += size;
    if (xoff_at_[i] < 0 && bytes_[i] > threshold()) {
      xoff_at_[i] = bytes_[i];
      paused_.push_back(port);
      return Admit::kQueuedAndXoff;
    }
    return Admit::kQueued;
  }

  // A packet of `size` bytes from `port` leaves; returns how many ports were
  // released (their indices in released()).
  int32_t depart(int32_t port, double size) {
    const auto i = static_cast<size_t>(port);
    bytes_[i] = std::max(0.0, bytes_[i] - size);
    used_ = std::max(0.0, used_ - size);
    released_.clear();
    if (!c_.enabled || paused_.empty()) return 0;
    const double th = threshold();
    // Only paused ports can be released.
    size_t kept = 0;
    for (int32_t j : paused_) {
      const auto k = static_cast<size_t>(j);
      if (bytes_[k] <= 0 || bytes_[k] + c_.xon_offset_bytes <= th) {
        xoff_at_[k] = -1;
        released_.push_back(j);
      } else {
        paused_[kept++] = j;
      }
    }
    paused_.resize(kept);
    std::sort(released_.begin(), released_.end());  // XON frames in port order
    return static_cast<int32_t>(released_.size());
  }
  [[nodiscard]] const std::vector<int32_t>& released() const { return released_; }

 private:
  PfcConfig c_;
  std::vector<double> bytes_;
  std::vector<double> xoff_at_;  // bytes when XOFF was sent; < 0: not paused
  double used_ = 0;
  std::vector<int32_t> paused_;  // ports with XOFF sent
  std::vector<int32_t> released_;
};

namespace detail {

inline constexpr int32_t kIncastMaxSenders = 4096;
inline constexpr double kIncastMaxDurationUs = 1e6;

RAILYARD_LAZY
Status validate_incast(const PacketIncastScenario& s) {
  if (s.senders < 1 || s.senders > kIncastMaxSenders)
    return invalid_field("senders", str_cat(s.senders), "must be in [1, 4096]");
  auto positive = [](std::string_view name, double v) -> Status {
    if (!(v > 0) || !std::isfinite(v)) return invalid_field(name, str_cat(v), "must be a finite number > 0");
    return ok_status();
  };
  RAILYARD_RETURN_IF_ERROR(positive("link_gbps", s.link_gbps));
  RAILYARD_RETURN_IF_ERROR(positive("frame_bytes", s.frame_bytes));
  RAILYARD_RETURN_IF_ERROR(positive("one_way_us", s.one_way_us));
  RAILYARD_RETURN_IF_ERROR(positive("window_us", s.window_us));
  if (!(s.cnp_return_us >= 0) || !std::isfinite(s.cnp_return_us))
    return invalid_field("cnp_return_us", str_cat(s.cnp_return_us), "must be >= 0 (0: one_way_us)");
  if (!(s.duration_us > 0 && s.duration_us <= kIncastMaxDurationUs))
    return invalid_field("duration_us", str_cat(s.duration_us), "must be in (0, 1e6]");
  if (!(s.start_fraction > 0 && s.start_fraction <= 1))
    return invalid_field("start_fraction", str_cat(s.start_fraction), "must be in (0, 1]");
  if (!s.flows.empty() && s.flows.size() != static_cast<size_t>(s.senders))
    return invalid_field("flows", str_cat(s.flows.size()), str_cat("must be empty or ", s.senders));
  for (const IncastFlow& f : s.flows) {
    if (!(f.start_us >= 0) || !(f.stop_us > f.start_us))
      return invalid_field("start_us", str_cat(f.start_us, "..", f.stop_us), "must be 0 <= start < stop");
    if (!(f.start_fraction > 0 && f.start_fraction <= 1))
      return invalid_field("start_fraction", str_cat(f.start_fraction), "must be in (0, 1]");
    if (!(f.ceiling_fraction > 0 && f.ceiling_fraction <= 1))
      return invalid_field("ceiling_fraction", str_cat(f.ceiling_fraction), "must be in (0, 1]");
  }
  if (s.pfc.enabled) {
    RAILYARD_RETURN_IF_ERROR(positive("shared_buffer_bytes", s.pfc.shared_buffer_bytes));
    RAILYARD_RETURN_IF_ERROR(positive("dynamic_alpha", s.pfc.dynamic_alpha));
    RAILYARD_RETURN_IF_ERROR(positive("pause_delay_us", s.pfc.pause_delay_us));
    if (!(s.pfc.last_hop_us >= 0 && s.pfc.last_hop_us <= s.one_way_us))
      return invalid_field("last_hop_us", str_cat(s.pfc.last_hop_us), "must be in [0, one_way_us]");
    if (!(s.pfc.headroom_bytes >= s.frame_bytes) || !std::isfinite(s.pfc.headroom_bytes))
      return invalid_field("headroom_bytes", str_cat(s.pfc.headroom_bytes), "must hold one frame");
    if (!(s.pfc.xon_offset_bytes >= 0) || !std::isfinite(s.pfc.xon_offset_bytes))
      return invalid_field("xon_offset_bytes", str_cat(s.pfc.xon_offset_bytes), "must be >= 0");
  }
  if (s.trace_points != 0 && (s.trace_points < 2 || s.trace_points > 100'000))
    return invalid_field("trace_points", str_cat(s.trace_points), "must be 0 or in [2, 100000]");
  return ok_status();
}

// Uniform doubles in [0, 1) from splitmix64: the same seed, the same marks.
class SplitMix64Unit {
 public:
  explicit SplitMix64Unit(uint64_t seed) : state_(seed) {}
  double uniform() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t state_;
};

// One pending time per slot (a sender's next packet, its NIC's next clock
// event) with the earliest found in O(1) and updated in O(log slots): a
// tournament tree, so that rescheduling never leaves stale entries behind.
class MinSlots {
 public:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  explicit MinSlots(size_t slots) {
    while (leaves_ < slots) leaves_ *= 2;
    key_.assign(leaves_, Key{kNone, 0});
    win_.assign(2 * leaves_, 0);
    for (size_t i = 0; i < leaves_; ++i) win_[leaves_ + i] = static_cast<uint32_t>(i);
    for (size_t i = leaves_; i-- > 1;) win_[i] = better(win_[2 * i], win_[2 * i + 1]);
  }
  void set(size_t slot, double t, uint64_t seq) {
    key_[slot] = Key{t, seq};
    for (size_t i = (leaves_ + slot) / 2; i >= 1; i /= 2) win_[i] = better(win_[2 * i], win_[2 * i + 1]);
  }
  void clear(size_t slot) { set(slot, kNone, 0); }
  [[nodiscard]] size_t top() const { return win_[1]; }
  [[nodiscard]] double time(size_t slot) const { return key_[slot].t; }
  [[nodiscard]] uint64_t seq(size_t slot) const { return key_[slot].seq; }

 private:
  struct Key {
    double t;
    uint64_t seq;
  };
  [[nodiscard]] uint32_t better(uint32_t a, uint32_t b) const {
    const Key &x = key_[a], &y = key_[b];
    return (x.t < y.t || (x.t == y.t && x.seq <= y.seq)) ? a : b;
  }
  size_t leaves_ = 1;
  std::vector<Key> key_;
  std::vector<uint32_t> win_;
};

// Jain's index (Σx)² / (n Σx²); 1 for no flows or no traffic.
RAILYARD_LAZY
double jain(const std::vector<double>& x) {
  double sum = 0, sq = 0;
  for (double v : x) {
    sum += v;
    sq += v * v;
  }
  return sq > 0 ? sum * sum / (static_cast<double>(x.size()) * sq) : 1.0;
}

}  // namespace detail

// Runs the scenario. Errors (InvalidArgument naming the field): the scenario's
// (validate_incast), the NIC's (validate_nic_params) and the RED curve's.
RAILYARD_LAZY
[[nodiscard]] StatusOr<PacketIncastResult> simulate_packet_incast(
    const DcqcnParams& nic, const NicReadings& readings, const RedMarking& red,
    const PacketIncastScenario& s) {
  RAILYARD_RETURN_IF_ERROR(detail::validate_incast(s));
  RAILYARD_RETURN_IF_ERROR(validate_nic_params(nic));
  if (!(red.kmin_bytes >= 0) || !(red.kmax_bytes >= red.kmin_bytes) || !std::isfinite(red.kmax_bytes))
    return invalid_field("kmin_bytes", str_cat(red.kmin_bytes, "/", red.kmax_bytes),
                         "must satisfy 0 <= kmin <= kmax");
  if (!(red.pmax > 0 && red.pmax <= 1)) return invalid_field("pmax", str_cat(red.pmax), "must be in (0, 1]");

  const auto n = static_cast<size_t>(s.senders);
  std::vector<IncastFlow> flows = s.flows;
  if (flows.empty()) flows.assign(n, IncastFlow{.start_fraction = s.start_fraction});

  const double bytes_per_us = gbps_to_bytes_per_us(s.link_gbps);
  const double serialize_us = s.frame_bytes / bytes_per_us;
  const double end = s.duration_us;
  const double half = end / 2;
  const double cnp_return = s.cnp_return_us > 0 ? s.cnp_return_us : s.one_way_us;

  std::vector<ReactionPoint> rp;
  rp.reserve(n);
  for (const IncastFlow& f : flows)
    rp.emplace_back(nic, readings, f.ceiling_fraction * s.link_gbps, f.start_fraction * s.link_gbps);

  // Events: time, then a sequence number so that ties run in creation order.
  enum Kind : uint8_t { kSend, kNicClock, kGate, kGateRelease, kArrive, kDepart, kCnp, kMarkSeen, kPause, kResume };
  struct Event {
    double t;
    uint64_t seq;
    Kind kind;
    int32_t flow;
    bool marked;
  };
  auto later = [](const Event& a, const Event& b) { return a.t != b.t ? a.t > b.t : a.seq > b.seq; };
  std::priority_queue<Event, std::vector<Event>, decltype(later)> events(later);
  uint64_t seq = 0;
  // Each sender has one pending packet and one pending NIC clock event, kept in
  // two tournament trees (rescheduling replaces them in place).
  detail::MinSlots sends(n), clocks(n);
  auto push = [&](double t, Kind k, int32_t flow, bool marked = false) {
    events.push(Event{t, seq++, k, flow, marked});
  };
  // Events a constant delay after the one being handled arrive in time order:
  // packets reaching their upstream port (send + constant) and CNPs / mark
  // notices (departure + constant). They wait in two FIFOs instead of the heap,
  // which then holds O(senders) events; the merge below keeps the (time,
  // sequence) order, so results are the same as with one heap.
  std::deque<Event> to_gate, to_sender;
  auto delay = [&](std::deque<Event>& line, double t, Kind k, int32_t flow) {
    line.push_back(Event{t, seq++, k, flow, false});
  };
  auto pop_next = [&](Event& out) {
    const Event* best = events.empty() ? nullptr : &events.top();
    std::deque<Event>* from = nullptr;
    for (std::deque<Event>* line : {&to_gate, &to_sender})
      if (!line->empty() && (best == nullptr || later(*best, line->front()))) {
        best = &line->front();
        from = line;
      }
    Event slot{};
    detail::MinSlots* tree = nullptr;
    for (auto [slots, kind] : {std::pair{&sends, kSend}, std::pair{&clocks, kNicClock}}) {
      const size_t i = slots->top();
      if (slots->time(i) == detail::MinSlots::kNone) continue;
      const Event candidate{slots->time(i), slots->seq(i), kind, static_cast<int32_t>(i), false};
      if (best == nullptr || later(*best, candidate)) {
        slot = candidate;
        best = &slot;
        tree = slots;
        from = nullptr;
      }
    }
    if (best == nullptr) return false;
    out = *best;
    if (tree != nullptr) {
      tree->clear(static_cast<size_t>(out.flow));
    } else if (from != nullptr) {
      from->pop_front();
    } else {
      events.pop();
    }
    return true;
  };

  struct Sender {
    double next_send = 0;
    double last_send = -1;
    bool paused = false;
    bool pause_pending_send = false;  // a send was due while paused
    double paused_since = 0;
    double paused_us = 0;
    double last_cnp = -std::numeric_limits<double>::infinity();
    double delivered_half = 0;
    // The upstream port of this sender's ingress (the PFC gate).
    int64_t waiting = 0;  // packets held while paused
    double gate_free_at = 0;
    bool release_scheduled = false;
  };
  std::vector<Sender> tx(n);
  double port_last_cnp = -std::numeric_limits<double>::infinity();

  auto schedule_send = [&](int32_t i, double t) {
    Sender& x = tx[static_cast<size_t>(i)];
    x.next_send = t;
    if (t < flows[static_cast<size_t>(i)].stop_us && t < end) {
      sends.set(static_cast<size_t>(i), t, seq++);
    } else {
      sends.clear(static_cast<size_t>(i));
    }
  };
  auto schedule_clock = [&](int32_t i) {
    const double at = rp[static_cast<size_t>(i)].next_rate_event_us();
    if (at < end) {
      clocks.set(static_cast<size_t>(i), at, seq++);
    } else {
      clocks.clear(static_cast<size_t>(i));
    }
  };
  // After the RP changed, the next packet leaves one frame time at the new
  // rate after the last one (never in the past).
  auto rate_changed = [&](int32_t i, double now, double before) {
    const ReactionPoint& r = rp[static_cast<size_t>(i)];
    Sender& x = tx[static_cast<size_t>(i)];
    if (r.rate_gbps() != before && x.last_send >= 0 && !x.paused) {
      const double gap = s.frame_bytes / gbps_to_bytes_per_us(r.rate_gbps());
      schedule_send(i, std::max(now, x.last_send + gap));
    }
    schedule_clock(i);
  };

  for (size_t i = 0; i < n; ++i) schedule_send(static_cast<int32_t>(i), flows[i].start_us);

  // Switch state.
  struct Packet {
    int32_t flow;
    bool marked;
  };
  std::vector<Packet> fifo;  // ring buffer
  size_t head = 0, count = 0;
  auto fifo_push = [&](Packet p) {
    if (count == fifo.size()) {
      std::vector<Packet> bigger(std::max<size_t>(64, fifo.size() * 2));
      for (size_t k = 0; k < count; ++k) bigger[k] = fifo[(head + k) % fifo.size()];
      fifo = std::move(bigger);
      head = 0;
    }
    fifo[(head + count) % fifo.size()] = p;
    ++count;
  };
  double queue_bytes = 0;
  bool busy = false;
  bool above_kmin = false;
  PfcIngress pfc(s.pfc, s.senders);
  detail::SplitMix64Unit rng(s.seed);
  auto mark = [&](double q) {
    const double p = red_probability(red, q);
    return p >= 1 || (p > 0 && rng.uniform() < p);
  };

  PacketIncastResult out;
  // Queue time-average over the second half, windows for fairness.
  double last_t = 0, queue_area = 0;
  auto account_queue = [&](double t) {
    const double a = std::max(last_t, half), b = std::min(t, end);
    if (b > a) queue_area += queue_bytes * (b - a);
    last_t = t;
  };
  const auto windows = static_cast<size_t>(std::ceil(end / s.window_us));
  std::vector<double> window_bytes(windows * n, 0.0);
  int64_t sent_packets = 0, marked_packets = 0;
  double delivered = 0, delivered_half = 0;

  // Trace.
  const int32_t traced = std::min<int32_t>(s.traced_flows, s.senders);
  if (s.trace_points > 0) {
    for (int32_t f = 0; f < traced; ++f) out.trace.flows.push_back(f);
    out.trace.flow_gbps.assign(static_cast<size_t>(traced), {});
  }
  int32_t next_sample = 0;
  auto sample_until = [&](double t) {
    while (next_sample < s.trace_points) {
      const double at = end * next_sample / (s.trace_points - 1);
      if (at > t) break;
      out.trace.t_us.push_back(at);
      out.trace.queue_bytes.push_back(queue_bytes);
      double total = 0;
      for (size_t i = 0; i < n; ++i) {
        const bool on = at >= flows[i].start_us && at < flows[i].stop_us;
        total += on ? rp[i].rate_gbps() : 0;
      }
      out.trace.total_gbps.push_back(total);
      for (int32_t f = 0; f < traced; ++f)
        out.trace.flow_gbps[static_cast<size_t>(f)].push_back(rp[static_cast<size_t>(f)].rate_gbps());
      ++next_sample;
    }
  };

  auto start_service = [&](double t) {
    if (busy || count == 0) return;
    busy = true;
    push(t + serialize_us, kDepart, fifo[head].flow, fifo[head].marked);
  };

  Event e{};
  while (pop_next(e)) {
    if (e.t > end) break;
    sample_until(e.t);
    account_queue(e.t);
    const auto fi = static_cast<size_t>(e.flow);
    switch (e.kind) {
      case kSend: {
        Sender& x = tx[fi];
        if (x.paused) {
          x.pause_pending_send = true;
          break;
        }
        const double before = rp[fi].rate_gbps();
        rp[fi].on_bytes_sent(e.t, s.frame_bytes);
        x.last_send = e.t;
        ++sent_packets;
        delay(to_gate, e.t + s.one_way_us - s.pfc.last_hop_us, kGate, e.flow);
        const double gap = s.frame_bytes / gbps_to_bytes_per_us(rp[fi].rate_gbps());
        schedule_send(e.flow, e.t + gap);
        if (rp[fi].rate_gbps() != before || rp[fi].limited()) schedule_clock(e.flow);
        break;
      }
      case kNicClock: {
        const double before = rp[fi].rate_gbps();
        rp[fi].advance_to(e.t);
        rate_changed(e.flow, e.t, before);
        break;
      }
      case kGate: {
        Sender& x = tx[fi];
        if (x.paused || x.waiting > 0) {
          ++x.waiting;
          break;
        }
        const double out_at = std::max(e.t, x.gate_free_at);
        x.gate_free_at = out_at + serialize_us;
        push(out_at + s.pfc.last_hop_us, kArrive, e.flow);
        break;
      }
      case kGateRelease: {
        Sender& x = tx[fi];
        x.release_scheduled = false;
        if (x.paused || x.waiting == 0) break;
        --x.waiting;
        x.gate_free_at = e.t + serialize_us;
        push(e.t + s.pfc.last_hop_us, kArrive, e.flow);
        if (x.waiting > 0) {
          x.release_scheduled = true;
          push(x.gate_free_at, kGateRelease, e.flow);
        }
        break;
      }
      case kArrive: {
        const PfcIngress::Admit admit = pfc.arrive(e.flow, s.frame_bytes);
        if (admit == PfcIngress::Admit::kDropped) {
          ++out.drops;
          break;
        }
        if (admit == PfcIngress::Admit::kQueuedAndXoff) {
          ++out.pauses;
          push(e.t + s.pfc.pause_delay_us, kPause, e.flow);
        }
        const bool m = s.mark_at == MarkPoint::kEnqueue && mark(queue_bytes);
        fifo_push(Packet{e.flow, m});
        queue_bytes += s.frame_bytes;
        above_kmin = above_kmin || queue_bytes > red.kmin_bytes + 2 * s.frame_bytes;
        if (queue_bytes > out.peak_queue_bytes) {
          out.peak_queue_bytes = queue_bytes;
          out.peak_queue_us = e.t;
        }
        start_service(e.t);
        break;
      }
      case kDepart: {
        const Packet p = fifo[head];
        head = (head + 1) % fifo.size();
        --count;
        queue_bytes -= s.frame_bytes;
        busy = false;
        if (above_kmin && !out.back_below_kmin_us && queue_bytes < red.kmin_bytes)
          out.back_below_kmin_us = e.t;
        const bool m = p.marked || (s.mark_at == MarkPoint::kDequeue && mark(queue_bytes));
        const auto pi = static_cast<size_t>(p.flow);
        delivered += s.frame_bytes;
        ++out.packets;
        if (e.t >= half) {
          delivered_half += s.frame_bytes;
          tx[pi].delivered_half += s.frame_bytes;
        }
        window_bytes[std::min(windows - 1, static_cast<size_t>(e.t / s.window_us)) * n + pi] +=
            s.frame_bytes;
        if (pfc.depart(p.flow, s.frame_bytes) > 0)
          for (int32_t j : pfc.released()) push(e.t + s.pfc.pause_delay_us, kResume, j);
        if (m) {
          ++marked_packets;
          double& last = readings.cnp_pacing == CnpPacing::kPerFlow ? tx[pi].last_cnp : port_last_cnp;
          if (e.t - last >= nic.min_time_between_cnps_us) {
            last = e.t;
            ++out.cnps;
            delay(to_sender, e.t + cnp_return, kCnp, p.flow);
          }
          if (readings.paper_semantics) delay(to_sender, e.t + cnp_return, kMarkSeen, p.flow);
        }
        start_service(e.t);
        break;
      }
      case kCnp:
      case kMarkSeen: {
        const double before = rp[fi].rate_gbps();
        if (e.kind == kCnp) {
          rp[fi].on_cnp(e.t);
        } else {
          rp[fi].on_mark(e.t);
        }
        rate_changed(e.flow, e.t, before);
        break;
      }
      case kPause: {
        Sender& x = tx[fi];
        if (!x.paused) {
          x.paused = true;
          x.paused_since = e.t;
        }
        break;
      }
      case kResume: {
        Sender& x = tx[fi];
        if (!x.paused) break;
        x.paused = false;
        x.paused_us += e.t - x.paused_since;
        if (x.waiting > 0 && !x.release_scheduled) {
          x.release_scheduled = true;
          push(std::max(e.t, x.gate_free_at), kGateRelease, e.flow);
        }
        if (x.pause_pending_send) {
          x.pause_pending_send = false;
          schedule_send(e.flow, e.t);
        }
        break;
      }
    }
  }
  sample_until(end);
  account_queue(end);
  for (Sender& x : tx)
    if (x.paused) x.paused_us += end - x.paused_since;

  for (const ReactionPoint& r : rp) out.cuts += r.cuts();
  out.simulated_us = end;
  out.utilization = delivered / (bytes_per_us * end);
  out.steady_utilization = delivered_half / (bytes_per_us * (end - half));
  out.steady_queue_bytes = queue_area / (end - half);
  out.marked_fraction = out.packets > 0 ? static_cast<double>(marked_packets) / static_cast<double>(out.packets) : 0;
  for (const Sender& x : tx) {
    out.paused_us.push_back(x.paused_us);
    out.paused_us_total += x.paused_us;
    out.paused_us_max = std::max(out.paused_us_max, x.paused_us);
  }
  std::vector<double> steady;
  for (size_t i = 0; i < n; ++i) {
    out.flow_gbps.push_back(tx[i].delivered_half * kBitsPerByte / 1e3 / (end - half));
    if (flows[i].start_us <= half && flows[i].stop_us >= end) steady.push_back(tx[i].delivered_half);
  }
  out.jain_fairness = detail::jain(steady);

  // Convergence: scan windows from the end; a window is good when the flows
  // active throughout it share fairly and the port is busy as they allow.
  std::optional<double> converged;
  std::vector<double> x;
  for (size_t w = windows; w-- > 0;) {
    const double a = static_cast<double>(w) * s.window_us, b = std::min(end, a + s.window_us);
    x.clear();
    double demand = 0, got = 0;
    for (size_t i = 0; i < n; ++i) {
      got += window_bytes[w * n + i];
      if (flows[i].start_us <= a && flows[i].stop_us >= b) {
        x.push_back(window_bytes[w * n + i]);
        demand += flows[i].ceiling_fraction;
      }
    }
    const double can = std::min(1.0, demand) * bytes_per_us * (b - a);
    const bool good = detail::jain(x) >= 0.95 && got >= 0.9 * can;
    if (!good) break;
    converged = a;
  }
  out.convergence_us = converged;
  return out;
}

}  // namespace railyard::cc
