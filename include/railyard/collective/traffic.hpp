// railyard/collective/traffic.hpp — a collective as run-length-encoded phases of
// concurrent rank-to-rank transfers: what the cost model and the simulator
// consume.
//
//   using namespace railyard::collective;
//   // 16 ranks on 2 hosts (8 each), two rings (channels):
//   std::vector<int32_t> host_of_rank = {0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1};
//   railyard::StatusOr<Traffic> t = collective_traffic(
//       Collective::kAllReduce, Algorithm::kRing, 16, int64_t{1} << 30,
//       {.host_of_rank = host_of_rank, .channels = 2});
//   // t->phases[0]: 32 transfers of 2^30 / 32 bytes, repeated 2 * 15 = 30 steps.
//
// Why phases. A schedule (schedule.hpp) lists every step's transfers, which is
// what symbolic verification needs but is quadratic for rings: a ring
// all-reduce over 1,024 ranks is 2,046 steps of 1,024 transfers each. Every one
// of those steps moves the same number of bytes between the same pairs, so the
// simulator only has to solve it once. A Phase is `repeat` consecutive,
// identical steps.
//
// Fluid chunks. Ring phases carry S / (channels · n) bytes per transfer,
// hierarchical phases S/g (within a host) and S/(g·h) (across hosts), as real numbers (a fluid model has no byte granularity); the
// integer chunks of schedule.hpp differ from it by less than one byte. Other
// algorithms (double binary tree, pairwise and rail-aligned all-to-all) come
// from their exact schedules: each step's transfers between the same two ranks
// are merged into one transfer, and consecutive equal steps into one phase.
// Pairwise all-to-all is generated directly with fluid blocks of S / n.
//
// Channels (rings, as NCCL runs several). With C channels the bytes are split
// into C equal parts and channel k runs its own ring concurrently with the
// others. Channel k visits the ranks in rank order but rotates every run of
// consecutive ranks that share a host by k, so that each channel enters and
// leaves a host at a different GPU — with one channel per NIC, every NIC
// carries exactly one ring's inter-host traffic. channels = 0 picks
// min(ranks per host, nics_per_host) for rings whose ranks span hosts, else 1
// (callers that know the NIC count pass it in TrafficOptions::nics_per_host).
//
// Step counts: ring all-reduce 2(n-1), all-gather and reduce-scatter n-1 (one
// phase); hierarchical (g-1) + 2(h-1) + (g-1) in three phases (intra-host ring
// reduce-scatter of S/g shards, one ring per local index across hosts, intra-host
// all-gather); tree and all-to-all as in schedule.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::collective {

// One transfer of a phase step: `bytes` from rank src to rank dst on `channel`.
struct PhaseTransfer {
  int32_t src = 0;
  int32_t dst = 0;
  int32_t channel = 0;
  double bytes = 0;
  friend bool operator==(const PhaseTransfer&, const PhaseTransfer&) = default;
};

// `repeat` consecutive steps, each moving exactly `transfers` concurrently.
struct Phase {
  std::vector<PhaseTransfer> transfers;
  int64_t repeat = 1;
  friend bool operator==(const Phase&, const Phase&) = default;
};

struct Traffic {
  Collective kind = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  int32_t ranks = 0;
  int64_t bytes = 0;
  int32_t channels = 1;
  std::vector<Phase> phases;

  [[nodiscard]] int64_t steps() const {
    int64_t s = 0;
    for (const Phase& p : phases) s += p.repeat;
    return s;
  }
  // Bytes moved by all transfers of all steps.
  [[nodiscard]] double total_bytes() const {
    double t = 0;
    for (const Phase& p : phases) {
      double step = 0;
      for (const PhaseTransfer& x : p.transfers) step += x.bytes;
      t += step * static_cast<double>(p.repeat);
    }
    return t;
  }
};

struct TrafficOptions {
  // Host of each rank (any ids); required by hierarchical and rail-aligned, and
  // by rings with more than one channel. Empty: every rank on its own host.
  std::span<const int32_t> host_of_rank{};
  // Rings per collective; 0 = automatic (see the overview).
  int32_t channels = 0;
  // NICs per host, for the automatic channel count (0: unknown, rings get as
  // many channels as ranks per host).
  int32_t nics_per_host = 0;
  // Double binary tree pipelining: pieces per tree; 0 = automatic, about 512 KiB
  // per piece (NCCL's 4 MiB buffer over its 8 steps), between 1 and 128.
  int32_t tree_pieces = 0;
};

inline constexpr int32_t kMaxChannels = 64;

// Pieces per tree when TrafficOptions::tree_pieces is 0: each tree carries S/2.
[[nodiscard]] constexpr int32_t auto_tree_pieces(int64_t bytes) {
  constexpr int64_t kPieceBytes = int64_t{512} << 10;
  const int64_t pieces = (bytes / 2 + kPieceBytes - 1) / kPieceBytes;
  return static_cast<int32_t>(std::clamp<int64_t>(pieces, 1, 128));
}

namespace detail {

// Channel k's ring order: rank order with every run of same-host ranks rotated by k.
RAILYARD_LAZY
std::vector<int32_t> channel_ring(std::span<const int32_t> host_of_rank, int32_t n,
                                         int32_t k) {
  std::vector<int32_t> ring(static_cast<size_t>(n));
  int32_t start = 0;
  while (start < n) {
    int32_t end = start + 1;
    if (!host_of_rank.empty())
      while (end < n &&
             host_of_rank[static_cast<size_t>(end)] == host_of_rank[static_cast<size_t>(start)])
        ++end;
    const int32_t len = end - start;
    for (int32_t i = 0; i < len; ++i) ring[static_cast<size_t>(start + i)] = start + (i + k) % len;
    start = end;
  }
  return ring;
}

// Largest number of ranks any host holds.
RAILYARD_LAZY
int32_t max_ranks_per_host(std::span<const int32_t> host_of_rank) {
  std::map<int32_t, int32_t> count;
  int32_t best = 1;
  for (int32_t h : host_of_rank) best = std::max(best, ++count[h]);
  return best;
}

RAILYARD_LAZY
bool spans_hosts(std::span<const int32_t> host_of_rank) {
  if (host_of_rank.empty()) return true;
  return std::any_of(host_of_rank.begin(), host_of_rank.end(),
                     [&](int32_t h) { return h != host_of_rank.front(); });
}

// Merges the transfers of each schedule step by (src, dst) and equal
// consecutive steps into phases.
RAILYARD_LAZY
std::vector<Phase> phases_of(const Schedule& s) {
  std::vector<Phase> out;
  std::map<std::pair<int32_t, int32_t>, double> merged;
  for (const Step& step : s.steps) {
    merged.clear();
    for (const Transfer& t : step.transfers) merged[{t.src, t.dst}] += static_cast<double>(t.bytes);
    Phase p;
    p.transfers.reserve(merged.size());
    for (const auto& [pair, bytes] : merged)
      p.transfers.push_back({pair.first, pair.second, 0, bytes});
    if (!out.empty() && out.back().transfers == p.transfers) {
      ++out.back().repeat;
    } else {
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace detail

// What one member of a group sends to one peer over a whole collective.
struct PeerVolume {
  int32_t offset = 1;  // the peer is the member `offset` positions ahead (mod n)
  double bytes = 0;
};

// The per-peer volumes of `kind` run by `algo` over a group of n ranks with
// collective size `bytes` (nccl-tests' S): the closed form of
// collective_traffic()'s phases summed per (sender, receiver) pair, one channel.
//   ring all-reduce                    +1: 2(n-1)/n · S
//   ring all-gather, reduce-scatter    +1: (n-1)/n · S
//   pairwise all-to-all                +k: S/n for k = 1 .. n-1
// Every member sends the same volumes (rank-symmetric), which is what lets the
// rank-ordering search (placement/ordering.hpp) cost a plan without building
// schedules. Other algorithms are not rank-symmetric: InvalidArgument naming the
// algorithm. n < 2 gives no volumes.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<PeerVolume>> peer_volumes(Collective kind,
                                                                     Algorithm algo, int32_t n,
                                                                     double bytes) {
  RAILYARD_RETURN_IF_ERROR(check_supported(kind, algo));
  std::vector<PeerVolume> out;
  if (n < 2) return out;
  const double S = bytes;
  const double m = n;
  switch (algo) {
    case Algorithm::kRing:
      out.push_back({1, (kind == Collective::kAllReduce ? 2.0 : 1.0) * (m - 1) / m * S});
      return out;
    case Algorithm::kPairwise:
      for (int32_t k = 1; k < n; ++k) out.push_back({k, S / m});
      return out;
    default:
      return invalid_field("algorithm", algorithm_name(algo),
                           "is not rank-symmetric: no per-peer closed form");
  }
}

// The phases of a collective over ranks 0..ranks-1. Errors: those of
// make_schedule (sizes, unsupported pairs, bad groupings), host_of_rank of the
// wrong length, channels outside [0, 64], channels > 1 for a non-ring algorithm.
// The argument checks of collective_traffic (for callers that generate the
// phases themselves, as the simulator does for pairwise all-to-all).
RAILYARD_LAZY
[[nodiscard]] Status check_traffic(Collective kind, Algorithm algo, int32_t ranks, int64_t bytes,
                                   const TrafficOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxRanks));
  if (!options.host_of_rank.empty() && static_cast<int64_t>(options.host_of_rank.size()) != ranks)
    return invalid_field("host_of_rank", str_cat(options.host_of_rank.size(), " entries"),
                         str_cat("must have one entry per rank (", ranks, ")"));
  if (options.channels < 0 || options.channels > kMaxChannels)
    return invalid_field("channels", str_cat(options.channels),
                         str_cat("must be in [0, ", kMaxChannels, "] (0 = automatic)"));
  if (options.channels > 1 && algo != Algorithm::kRing)
    return invalid_field(
        "channels", str_cat(options.channels),
        str_cat("only ring algorithms run several channels, not ", algorithm_name(algo)));
  return check_supported(kind, algo);
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<Traffic> collective_traffic(
    Collective kind, Algorithm algo, int32_t ranks, int64_t bytes,
    const TrafficOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(check_traffic(kind, algo, ranks, bytes, options));
  Traffic t;
  t.kind = kind;
  t.algorithm = algo;
  t.ranks = ranks;
  t.bytes = bytes;
  const auto n = static_cast<double>(ranks);
  const auto S = static_cast<double>(bytes);

  if (algo == Algorithm::kRing) {
    int32_t c = options.channels;
    if (c == 0) {
      c = 1;
      if (ranks > 1 && detail::spans_hosts(options.host_of_rank) && !options.host_of_rank.empty()) {
        c = detail::max_ranks_per_host(options.host_of_rank);
        if (options.nics_per_host > 0) c = std::min(c, options.nics_per_host);
      }
    }
    t.channels = c;
    if (ranks == 1) return t;
    Phase p;
    p.repeat = kind == Collective::kAllReduce ? 2 * (int64_t{ranks} - 1) : int64_t{ranks} - 1;
    p.transfers.reserve(static_cast<size_t>(ranks) * static_cast<size_t>(c));
    const double chunk = S / (static_cast<double>(c) * n);
    for (int32_t k = 0; k < c; ++k) {
      const std::vector<int32_t> ring = detail::channel_ring(options.host_of_rank, ranks, k);
      for (int32_t i = 0; i < ranks; ++i)
        p.transfers.push_back(
            {ring[static_cast<size_t>(i)], ring[static_cast<size_t>((i + 1) % ranks)], k, chunk});
    }
    t.phases.push_back(std::move(p));
    return t;
  }

  if (algo == Algorithm::kHierarchical) {
    if (kind != Collective::kAllReduce)
      return invalid_field("algorithm", algorithm_name(algo),
                           str_cat("has no schedule for collective ", collective_name(kind)));
    if (options.host_of_rank.empty())
      return invalid_field("host_of_rank", "0 entries",
                           str_cat("must have one entry per rank (", ranks, ")"));
    const std::vector<int32_t> hosts(options.host_of_rank.begin(), options.host_of_rank.end());
    RAILYARD_ASSIGN_OR_RETURN(detail::Grouping grouping, detail::group_hosts(hosts, ranks));
    const auto g = static_cast<int32_t>(grouping.g);
    const auto h = static_cast<int32_t>(grouping.members.size());
    auto intra = [&](int64_t repeat) {
      Phase p;
      p.repeat = repeat;
      for (const std::vector<int32_t>& m : grouping.members)
        for (int32_t i = 0; i < g; ++i)
          p.transfers.push_back({m[static_cast<size_t>(i)], m[static_cast<size_t>((i + 1) % g)], 0,
                                 S / static_cast<double>(g)});
      return p;
    };
    if (g > 1) t.phases.push_back(intra(g - 1));
    if (h > 1) {
      Phase p;
      p.repeat = 2 * (int64_t{h} - 1);
      for (int32_t l = 0; l < g; ++l)
        for (int32_t j = 0; j < h; ++j)
          p.transfers.push_back(
              {grouping.members[static_cast<size_t>(j)][static_cast<size_t>(l)],
               grouping.members[static_cast<size_t>((j + 1) % h)][static_cast<size_t>(l)], 0,
               S / (static_cast<double>(g) * static_cast<double>(h))});
      t.phases.push_back(std::move(p));
    }
    if (g > 1) t.phases.push_back(intra(g - 1));
    return t;
  }

  if (algo == Algorithm::kPairwise && kind == Collective::kAllToAll) {
    // Step k: rank r sends its block for (r + k) mod n (as pairwise_all_to_all),
    // generated directly: the schedule would hold n^2 chunk transfers.
    t.phases.reserve(static_cast<size_t>(ranks > 0 ? ranks - 1 : 0));
    for (int32_t k = 1; k < ranks; ++k) {
      Phase p;
      p.transfers.reserve(static_cast<size_t>(ranks));
      for (int32_t r = 0; r < ranks; ++r)
        p.transfers.push_back({r, static_cast<int32_t>((int64_t{r} + k) % ranks), 0, S / n});
      t.phases.push_back(std::move(p));
    }
    return t;
  }

  ScheduleOptions so;
  so.tree_pieces = options.tree_pieces > 0 ? options.tree_pieces : auto_tree_pieces(bytes);
  so.host_of_rank.assign(options.host_of_rank.begin(), options.host_of_rank.end());
  RAILYARD_ASSIGN_OR_RETURN(Schedule s, make_schedule(kind, algo, ranks, bytes, so));
  t.phases = detail::phases_of(s);
  return t;
}

}  // namespace railyard::collective
