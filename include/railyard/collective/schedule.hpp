// railyard/collective/schedule.hpp — collective schedules as steps of transfers,
// and the closed forms (nccl-tests algbw/busbw, bandwidth lower bounds).
//
//   using namespace railyard::collective;
//   railyard::StatusOr<Schedule> ar = ring_all_reduce(/*ranks=*/8, /*bytes=*/1 << 20);
//   railyard::StatusOr<Schedule> h = hierarchical_all_reduce({0,0,0,0,1,1,1,1}, 1 << 20);
//   railyard::StatusOr<Schedule> t = double_binary_tree_all_reduce(16, 1 << 20, /*pieces=*/4);
//   railyard::StatusOr<Schedule> s = make_schedule(Collective::kAllToAll, Algorithm::kRailAligned,
//                                              8, 1 << 20, {.host_of_rank = {0,0,1,1,2,2,3,3}});
//   double bus = busbw_gbps(Collective::kAllReduce, 8, algbw_gbps(1 << 30, 25000.0));
//   // railyard/collective/verify.hpp: verify(*ar) executes the schedule symbolically.
//
// Model. Ranks 0..n-1 form the group (the caller maps ranks to devices). A
// schedule is a sequence of steps; the transfers of one step run concurrently and
// read the sender's content as it was at the start of the step. The collective's
// data is cut into numbered chunks (chunk_bytes() gives each one's exact size; the
// sizes of a block split into p parts differ by at most one byte and sum exactly).
// A transfer carries chunks [chunk, chunk + chunk_count) from src to dst; with
// Op::kReduce the receiver adds them into its partial result, with Op::kCopy it
// replaces its copy. Steps never hold zero transfers; transfers of zero bytes are
// kept (S = 0 or S < n) so that a schedule's structure does not depend on S.
//
// Sizes follow nccl-tests: S is the all-reduce buffer, the full output of an
// all-gather (input of a reduce-scatter), and each rank's send buffer of an
// all-to-all.
//
// Chunk numbering (what verify() checks against):
//   ring all-reduce / all-gather / reduce-scatter: n chunks, chunk c = block c of S
//     (rank c's block for all-gather and reduce-scatter).
//   double binary tree: tree t in {0,1} carries half t of S cut into `pieces`
//     pieces; chunk t * pieces + p.
//   hierarchical all-reduce (g ranks per host, h hosts): shard l (l = local index)
//     of S cut into h pieces; chunk l * h + j.
//   all-to-all: n * n chunks, chunk s * n + d = the block rank s sends to rank d
//     (block d of s's send buffer).
//
// Step structure:
//   ring all-reduce     2(n-1) steps: reduce-scatter (step s: r sends chunk
//                       (r-s-1) mod n to r+1, reduce), then all-gather (step s: r
//                       sends chunk (r-s) mod n to r+1, copy); s counts from 0 in
//                       each half.
//   ring all-gather     n-1 steps: step s, r sends chunk (r-s) mod n to r+1.
//   ring reduce-scatter n-1 steps: step s, r sends chunk (r-s-1) mod n to r+1;
//                       rank r ends with chunk r.
//   double binary tree  NCCL's two complementary trees (tree 1 mirrors tree 0
//                       when n is even, shifts it by one when n is odd). A node of
//                       height h (leaves 0) sends piece p up at step h + p once all
//                       its children have; the root of height H then sends piece p
//                       down, and a node at depth d forwards it at step H + p + d.
//                       Both trees share the step index: max over trees of
//                       (2H + pieces - 1) steps.
//   hierarchical        (g-1) steps of intra-host ring reduce-scatter of the g
//                       shards, 2(h-1) steps of ring all-reduce among the ranks of
//                       equal local index (one ring per rail), (g-1) steps of
//                       intra-host ring all-gather. Hosts are ordered by host id,
//                       ranks inside a host by rank.
//   pairwise all-to-all n-1 steps: step k, r sends its block for (r+k) mod n.
//   rail-aligned a2a    step 1 (NVLink): blocks for the same host go directly; a
//                       block for rank d on another host whose local index differs
//                       from the sender's goes to the sender's host-mate with d's
//                       local index. Step 2 (rail): every rank sends each block it
//                       holds for a rank on another host with its own local index.
//
// Bytes moved in total (exact, any S): ring/tree/hierarchical all-reduce 2(n-1)S;
// ring all-gather, ring reduce-scatter and pairwise all-to-all (n-1)S; rail-aligned
// all-to-all (n-1)S + (g-1)(h-1)S (the NVLink forwarding).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::collective {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll };
enum class Algorithm { kRing, kDoubleBinaryTree, kHierarchical, kPairwise, kRailAligned };
enum class Op { kCopy, kReduce };

[[nodiscard]] constexpr std::string_view collective_name(Collective c) noexcept {
  switch (c) {
    case Collective::kAllReduce:
      return "allreduce";
    case Collective::kAllGather:
      return "allgather";
    case Collective::kReduceScatter:
      return "reducescatter";
    case Collective::kAllToAll:
      return "alltoall";
  }
  return "unknown";
}

[[nodiscard]] constexpr std::string_view algorithm_name(Algorithm a) noexcept {
  switch (a) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kDoubleBinaryTree:
      return "double_binary_tree";
    case Algorithm::kHierarchical:
      return "hierarchical";
    case Algorithm::kPairwise:
      return "pairwise";
    case Algorithm::kRailAligned:
      return "rail_aligned";
  }
  return "unknown";
}

inline constexpr Collective kCollectives[] = {Collective::kAllReduce, Collective::kAllGather,
                                              Collective::kReduceScatter, Collective::kAllToAll};
inline constexpr Algorithm kAlgorithms[] = {Algorithm::kRing, Algorithm::kDoubleBinaryTree,
                                            Algorithm::kHierarchical, Algorithm::kPairwise,
                                            Algorithm::kRailAligned};

// A collective by name: allreduce, allgather, reducescatter, alltoall (field
// "collective" in the error).
RAILYARD_LAZY
[[nodiscard]] StatusOr<Collective> parse_collective(std::string_view text) {
  for (Collective c : kCollectives)
    if (text == collective_name(c)) return c;
  return invalid_field("collective", text,
                       text.empty() ? "required (allreduce, allgather, reducescatter or alltoall)"
                                    : "unknown collective (allreduce, allgather, reducescatter, "
                                      "alltoall)");
}

// An algorithm by name (algorithm_name, or "tree" for the double binary tree);
// field "algorithm" in the error.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Algorithm> parse_algorithm(std::string_view text) {
  if (text == "tree") return Algorithm::kDoubleBinaryTree;
  for (Algorithm a : kAlgorithms)
    if (text == algorithm_name(a)) return a;
  return invalid_field("algorithm", text,
                       "unknown algorithm (ring, tree, hierarchical, pairwise, rail_aligned)");
}

// The algorithm a collective runs when none is asked for: NCCL's ring, or a
// pairwise exchange for all-to-all (NCCL posts every peer's send at once).
[[nodiscard]] constexpr Algorithm default_algorithm(Collective kind) {
  return kind == Collective::kAllToAll ? Algorithm::kPairwise : Algorithm::kRing;
}

// Whether `algo` has a schedule for `kind`: ring for all-reduce, all-gather and
// reduce-scatter; tree and hierarchical for all-reduce; pairwise and rail-aligned
// for all-to-all.
[[nodiscard]] constexpr bool supports(Collective kind, Algorithm algo) {
  switch (algo) {
    case Algorithm::kRing:
      return kind != Collective::kAllToAll;
    case Algorithm::kDoubleBinaryTree:
    case Algorithm::kHierarchical:
      return kind == Collective::kAllReduce;
    case Algorithm::kPairwise:
    case Algorithm::kRailAligned:
      return kind == Collective::kAllToAll;
  }
  return false;
}

// InvalidArgument naming the algorithm when it does not run `kind`.
RAILYARD_LAZY
[[nodiscard]] Status check_supported(Collective kind, Algorithm algo) {
  if (supports(kind, algo)) return ok_status();
  return invalid_field(
      "algorithm", algorithm_name(algo),
      str_cat("has no schedule for collective ", collective_name(kind),
              kind == Collective::kAllToAll ? " (alltoall runs pairwise or rail_aligned)"
              : kind == Collective::kAllReduce
                  ? " (allreduce runs ring, tree or hierarchical)"
                  : str_cat(" (", collective_name(kind), " runs ring)")));
}

// Limits: more ranks or bytes than this is treated as a mistake.
inline constexpr int32_t kMaxRanks = 1 << 20;
inline constexpr int32_t kMaxAllToAllRanks = 32768;  // n * n chunk ids fit in int32
inline constexpr int64_t kMaxBytes = int64_t{1} << 50;
inline constexpr int32_t kMaxTreePieces = 1 << 16;

struct Transfer {
  int32_t src = 0;
  int32_t dst = 0;
  int64_t bytes = 0;  // == sum of chunk_bytes over [chunk, chunk + chunk_count)
  int32_t chunk = 0;
  Op op = Op::kCopy;
  int32_t chunk_count = 1;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct Step {
  std::vector<Transfer> transfers;
  friend bool operator==(const Step&, const Step&) = default;
};

struct Schedule {
  Collective kind = Collective::kAllReduce;
  int32_t ranks = 1;
  int64_t bytes = 0;  // S
  std::vector<Step> steps;
  std::string algorithm;  // algorithm_name(algo)
  Algorithm algo = Algorithm::kRing;
  int32_t num_chunks = 1;             // chunk ids are 0..num_chunks-1
  int32_t tree_pieces = 1;            // double binary tree: pieces per tree
  int32_t ranks_per_host = 1;         // hierarchical / rail-aligned: g
  std::vector<int32_t> host_of_rank;  // hierarchical / rail-aligned: as given
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Part i of `total` split into `parts` near-equal integer parts (the first
// total % parts parts are one byte larger); the parts sum to `total`.
[[nodiscard]] constexpr int64_t split_part(int64_t total, int64_t parts, int64_t i) noexcept {
  return total / parts + (i < total % parts ? 1 : 0);
}

// Exact size of chunk `chunk` of schedule `s` (see the numbering above).
RAILYARD_LAZY
[[nodiscard]] int64_t chunk_bytes(const Schedule& s, int32_t chunk) noexcept {
  switch (s.algo) {
    case Algorithm::kRing:
      return split_part(s.bytes, s.ranks, chunk);
    case Algorithm::kDoubleBinaryTree: {
      const int64_t half = split_part(s.bytes, 2, chunk / s.tree_pieces);
      return split_part(half, s.tree_pieces, chunk % s.tree_pieces);
    }
    case Algorithm::kHierarchical: {
      const int32_t hosts = s.ranks / s.ranks_per_host;
      const int64_t shard = split_part(s.bytes, s.ranks_per_host, chunk / hosts);
      return split_part(shard, hosts, chunk % hosts);
    }
    case Algorithm::kPairwise:
    case Algorithm::kRailAligned:
      return split_part(s.bytes, s.ranks, chunk % s.ranks);
  }
  return 0;
}

// Bytes summed over every transfer of the schedule.
RAILYARD_LAZY
[[nodiscard]] int64_t total_bytes(const Schedule& s) noexcept {
  int64_t sum = 0;
  for (const Step& step : s.steps)
    for (const Transfer& t : step.transfers) sum += t.bytes;
  return sum;
}

// Bytes each rank sends, summed over the schedule.
RAILYARD_LAZY
[[nodiscard]] std::vector<int64_t> bytes_sent_per_rank(const Schedule& s) {
  std::vector<int64_t> out(static_cast<size_t>(std::max(s.ranks, 0)), 0);
  for (const Step& step : s.steps)
    for (const Transfer& t : step.transfers)
      if (t.src >= 0 && t.src < s.ranks) out[static_cast<size_t>(t.src)] += t.bytes;
  return out;
}

// ---------------------------------------------------------------------------
// Closed forms.
// ---------------------------------------------------------------------------

// nccl-tests busbw factor: 2(n-1)/n for all-reduce, (n-1)/n otherwise; 0 for n < 1.
[[nodiscard]] constexpr double busbw_factor(Collective kind, int32_t n) noexcept {
  if (n < 1) return 0.0;
  const double f = static_cast<double>(n - 1) / static_cast<double>(n);
  return kind == Collective::kAllReduce ? 2.0 * f : f;
}

// nccl-tests algbw = S / t, in gigabits per second (t in microseconds). 0 when t <= 0.
[[nodiscard]] constexpr double algbw_gbps(int64_t bytes, double t_us) noexcept {
  if (!(t_us > 0.0)) return 0.0;
  return static_cast<double>(bytes) * 8.0 / (t_us * 1e3);
}

[[nodiscard]] constexpr double busbw_gbps(Collective kind, int32_t n, double algbw) noexcept {
  return algbw * busbw_factor(kind, n);
}

// Bytes each rank must send at least: busbw_factor(kind, n) * S.
[[nodiscard]] constexpr double per_rank_send_bytes(Collective kind, int32_t n,
                                                   int64_t bytes) noexcept {
  return busbw_factor(kind, n) * static_cast<double>(bytes);
}

// Bandwidth lower bound in microseconds: per_rank_send_bytes / per-rank bandwidth
// (Gb/s). 0 when nothing must be sent; +infinity when bandwidth <= 0 and bytes must move.
[[nodiscard]] constexpr double ring_lower_bound_us(Collective kind, int32_t n, int64_t bytes,
                                                   double per_rank_gbps) noexcept {
  const double send = per_rank_send_bytes(kind, n, bytes);
  if (send <= 0.0) return 0.0;
  if (!(per_rank_gbps > 0.0)) return std::numeric_limits<double>::infinity();
  return send * 8.0 / (per_rank_gbps * 1e3);
}

namespace detail {

RAILYARD_LAZY
[[nodiscard]] Status check_size(int32_t ranks, int64_t bytes, int32_t max_ranks) {
  if (ranks < 1) return invalid_field("ranks", str_cat(ranks), "must be at least 1");
  if (ranks > max_ranks)
    return invalid_field("ranks", str_cat(ranks), str_cat("more than ", max_ranks));
  if (bytes < 0) return invalid_field("bytes", str_cat(bytes), "must not be negative");
  if (bytes > kMaxBytes) return invalid_field("bytes", str_cat(bytes), "more than 2^50");
  return ok_status();
}

RAILYARD_LAZY
[[nodiscard]] Schedule header(Collective kind, Algorithm algo, int32_t ranks, int64_t bytes,
                                     int32_t num_chunks) {
  Schedule s;
  s.kind = kind;
  s.algo = algo;
  s.algorithm = std::string(algorithm_name(algo));
  s.ranks = ranks;
  s.bytes = bytes;
  s.num_chunks = num_chunks;
  return s;
}

RAILYARD_LAZY
void push_step(Schedule& s, Step&& step) {
  if (!step.transfers.empty()) s.steps.push_back(std::move(step));
}

[[nodiscard]] constexpr int32_t mod(int64_t a, int32_t n) noexcept {
  return static_cast<int32_t>(((a % n) + n) % n);
}

// Hosts of a grouping: members[h] = ranks of the h-th host (by host id), in rank order.
struct Grouping {
  std::vector<std::vector<int32_t>> members;
  std::vector<int32_t> host_index;   // per rank
  std::vector<int32_t> local_index;  // per rank
  int32_t g = 1;
};

RAILYARD_LAZY
[[nodiscard]] StatusOr<Grouping> group_hosts(const std::vector<int32_t>& host_of_rank,
                                                          int32_t ranks) {
  if (static_cast<int64_t>(host_of_rank.size()) != ranks)
    return invalid_field("host_of_rank", str_cat(host_of_rank.size(), " entries"),
                         str_cat("must have one entry per rank (", ranks, ")"));
  std::map<int32_t, std::vector<int32_t>> by_host;
  for (int32_t r = 0; r < ranks; ++r) {
    const int32_t h = host_of_rank[static_cast<size_t>(r)];
    if (h < 0)
      return invalid_field(str_cat("host_of_rank[", r, "]"), str_cat(h), "must not be negative");
    by_host[h].push_back(r);
  }
  Grouping out;
  out.host_index.assign(static_cast<size_t>(ranks), 0);
  out.local_index.assign(static_cast<size_t>(ranks), 0);
  const size_t g = by_host.begin()->second.size();
  for (auto& [host, members] : by_host) {
    if (members.size() != g)
      return invalid_field(
          str_cat("host ", host), str_cat(members.size(), " ranks"),
          str_cat("host groups must be equal; host ", by_host.begin()->first, " has ", g));
    const auto hi = static_cast<int32_t>(out.members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      out.host_index[static_cast<size_t>(members[i])] = hi;
      out.local_index[static_cast<size_t>(members[i])] = static_cast<int32_t>(i);
    }
    out.members.push_back(std::move(members));
  }
  out.g = static_cast<int32_t>(g);
  return out;
}

// NCCL's binary tree: parent of `rank` among n ranks (-1 for the root, rank 0).
[[nodiscard]] constexpr int32_t btree_parent(int32_t n, int32_t rank) noexcept {
  if (rank == 0) return -1;
  int32_t bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  int64_t up = (static_cast<int64_t>(rank) ^ bit) | (static_cast<int64_t>(bit) << 1);
  if (up >= n) up = rank ^ bit;
  return static_cast<int32_t>(up);
}

}  // namespace detail

// Parent of `rank` in tree t of NCCL's double binary tree.
[[nodiscard]] constexpr int32_t dtree_parent(int32_t n, int32_t t, int32_t rank) noexcept {
  using detail::btree_parent;
  using detail::mod;
  if (t == 0) return btree_parent(n, rank);
  if (n % 2 == 1) {  // shift by one
    const int32_t u = btree_parent(n, mod(int64_t{rank} - 1, n));
    return u < 0 ? -1 : mod(int64_t{u} + 1, n);
  }
  const int32_t u = btree_parent(n, n - 1 - rank);  // mirror
  return u < 0 ? -1 : n - 1 - u;
}

namespace detail {

// Ring all-reduce over `ring` (members in ring order) on the chunk ids
// first + i * stride for i in [0, ring.size()), each `count` ids wide.
// Appends 2(k-1) steps' transfers into steps[offset..].
RAILYARD_LAZY
void ring_all_reduce_into(const Schedule& s, std::vector<Step>& steps, size_t offset,
                                 const std::vector<int32_t>& ring, int32_t first, int32_t stride,
                                 int32_t count, bool reduce_scatter, bool all_gather) {
  const auto k = static_cast<int32_t>(ring.size());
  auto block_bytes = [&](int32_t b) {
    int64_t sum = 0;
    for (int32_t c = 0; c < count; ++c) sum += chunk_bytes(s, first + b * stride + c);
    return sum;
  };
  size_t step = offset;
  if (reduce_scatter) {
    for (int32_t st = 0; st + 1 < k; ++st, ++step)
      for (int32_t i = 0; i < k; ++i) {
        const int32_t b = mod(int64_t{i} - st - 1, k);  // position i ends with block i
        steps[step].transfers.push_back({ring[static_cast<size_t>(i)],
                                         ring[static_cast<size_t>((i + 1) % k)], block_bytes(b),
                                         first + b * stride, Op::kReduce, count});
      }
  }
  if (all_gather) {
    for (int32_t st = 0; st + 1 < k; ++st, ++step)
      for (int32_t i = 0; i < k; ++i) {
        const int32_t b = mod(int64_t{i} - st, k);
        steps[step].transfers.push_back({ring[static_cast<size_t>(i)],
                                         ring[static_cast<size_t>((i + 1) % k)], block_bytes(b),
                                         first + b * stride, Op::kCopy, count});
      }
  }
}

RAILYARD_LAZY
void append_steps(Schedule& s, std::vector<Step>&& steps) {
  for (Step& st : steps) push_step(s, std::move(st));
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Builders. Errors name the offending value (ranks < 1 or > kMaxRanks, bytes < 0
// or > 2^50, bad groupings, an algorithm the collective has no schedule for).
// ---------------------------------------------------------------------------

namespace detail {
// One ring over ranks 0..n-1: the reduce-scatter half, the all-gather half, or both.
RAILYARD_LAZY
StatusOr<Schedule> ring_schedule(Collective kind, int32_t ranks, int64_t bytes,
                                              bool reduce, bool gather) {
  RAILYARD_RETURN_IF_ERROR(check_size(ranks, bytes, kMaxRanks));
  Schedule s = header(kind, Algorithm::kRing, ranks, bytes, ranks);
  std::vector<int32_t> ring(static_cast<size_t>(ranks));
  for (int32_t r = 0; r < ranks; ++r) ring[static_cast<size_t>(r)] = r;
  std::vector<Step> steps(static_cast<size_t>((reduce && gather ? 2 : 1) * (ranks - 1)));
  ring_all_reduce_into(s, steps, 0, ring, 0, 1, 1, reduce, gather);
  append_steps(s, std::move(steps));
  return s;
}
}  // namespace detail

// Ring all-reduce: reduce-scatter then all-gather around 0 -> 1 -> ... -> n-1 -> 0.
// Rank r ends the reduce-scatter holding chunk r (fully reduced).
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> ring_all_reduce(int32_t ranks, int64_t bytes) {
  return detail::ring_schedule(Collective::kAllReduce, ranks, bytes, /*reduce=*/true,
                               /*gather=*/true);
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> ring_all_gather(int32_t ranks, int64_t bytes) {
  return detail::ring_schedule(Collective::kAllGather, ranks, bytes, /*reduce=*/false,
                               /*gather=*/true);
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> ring_reduce_scatter(int32_t ranks, int64_t bytes) {
  return detail::ring_schedule(Collective::kReduceScatter, ranks, bytes, /*reduce=*/true,
                               /*gather=*/false);
}

// NCCL's double binary tree, each tree carrying half of S in `pieces` pipelined pieces.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> double_binary_tree_all_reduce(int32_t ranks,
                                                                            int64_t bytes,
                                                                            int32_t pieces = 1) {
  RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxRanks));
  if (pieces < 1 || pieces > kMaxTreePieces)
    return invalid_field("pieces", str_cat(pieces),
                         str_cat("must be in [1, ", kMaxTreePieces, "]"));
  Schedule s = detail::header(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, ranks, bytes,
                              2 * pieces);
  s.tree_pieces = pieces;
  if (ranks == 1) return s;
  const auto n = static_cast<size_t>(ranks);
  std::vector<Step> steps;
  for (int32_t t = 0; t < 2; ++t) {
    std::vector<int32_t> parent(n), depth(n, -1), height(n, 0);
    for (int32_t r = 0; r < ranks; ++r)
      parent[static_cast<size_t>(r)] = dtree_parent(ranks, t, r);
    // depth by walking up (trees have depth O(log n))
    int32_t max_depth = 0;
    for (size_t r = 0; r < n; ++r) {
      int32_t d = 0;
      for (int32_t u = parent[r]; u >= 0; u = parent[static_cast<size_t>(u)]) ++d;
      depth[r] = d;
      max_depth = std::max(max_depth, d);
    }
    // heights: process deepest first
    std::vector<int32_t> order(n);
    for (size_t r = 0; r < n; ++r) order[r] = static_cast<int32_t>(r);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)];
    });
    int32_t root_height = 0;
    for (int32_t r : order) {
      const int32_t u = parent[static_cast<size_t>(r)];
      if (u >= 0)
        height[static_cast<size_t>(u)] =
            std::max(height[static_cast<size_t>(u)], height[static_cast<size_t>(r)] + 1);
      else
        root_height = height[static_cast<size_t>(r)];
    }
    const size_t total = static_cast<size_t>(2 * root_height + pieces - 1);
    if (steps.size() < total) steps.resize(total);
    for (int32_t p = 0; p < pieces; ++p) {
      const int32_t chunk = t * pieces + p;
      const int64_t b = chunk_bytes(s, chunk);
      for (int32_t r = 0; r < ranks; ++r) {  // up: r sends to its parent
        const int32_t u = parent[static_cast<size_t>(r)];
        if (u < 0) continue;
        steps[static_cast<size_t>(height[static_cast<size_t>(r)] + p)].transfers.push_back(
            {r, u, b, chunk, Op::kReduce, 1});
      }
      for (int32_t r = 0; r < ranks; ++r) {  // down: parent sends to r
        const int32_t u = parent[static_cast<size_t>(r)];
        if (u < 0) continue;
        steps[static_cast<size_t>(root_height + p + depth[static_cast<size_t>(u)])]
            .transfers.push_back({u, r, b, chunk, Op::kCopy, 1});
      }
    }
  }
  detail::append_steps(s, std::move(steps));
  return s;
}

// Hierarchical all-reduce: host_of_rank[r] is rank r's host id; every host must
// hold the same number g of ranks. Intra-host ring reduce-scatter of g shards,
// ring all-reduce of each shard among the ranks of equal local index (one ring
// per rail, hosts in id order), intra-host ring all-gather.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> hierarchical_all_reduce(
    const std::vector<int32_t>& host_of_rank, int64_t bytes) {
  const auto ranks = static_cast<int32_t>(
      std::min<size_t>(host_of_rank.size(), static_cast<size_t>(kMaxRanks) + 1));
  RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxRanks));
  RAILYARD_ASSIGN_OR_RETURN(detail::Grouping grouping, detail::group_hosts(host_of_rank, ranks));
  const int32_t g = grouping.g;
  const auto h = static_cast<int32_t>(grouping.members.size());
  Schedule s =
      detail::header(Collective::kAllReduce, Algorithm::kHierarchical, ranks, bytes, ranks);
  s.ranks_per_host = g;
  s.host_of_rank = host_of_rank;
  std::vector<Step> steps(static_cast<size_t>(2 * (g - 1) + 2 * (h - 1)));
  // Block l of the intra-host ring = shard l = chunk ids [l*h, l*h + h).
  for (const auto& host : grouping.members)
    detail::ring_all_reduce_into(s, steps, 0, host, 0, h, h, true, false);
  for (int32_t l = 0; l < g; ++l) {
    std::vector<int32_t> rail;
    rail.reserve(static_cast<size_t>(h));
    for (const auto& host : grouping.members) rail.push_back(host[static_cast<size_t>(l)]);
    detail::ring_all_reduce_into(s, steps, static_cast<size_t>(g - 1), rail, l * h, 1, 1, true,
                                 true);
  }
  for (const auto& host : grouping.members)
    detail::ring_all_reduce_into(s, steps, static_cast<size_t>(g - 1 + 2 * (h - 1)), host, 0, h, h,
                                 false, true);
  detail::append_steps(s, std::move(steps));
  return s;
}

// Pairwise all-to-all: n-1 steps; at step k rank r sends its block for (r+k) mod n.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> pairwise_all_to_all(int32_t ranks, int64_t bytes) {
  RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxAllToAllRanks));
  Schedule s =
      detail::header(Collective::kAllToAll, Algorithm::kPairwise, ranks, bytes, ranks * ranks);
  for (int32_t k = 1; k < ranks; ++k) {
    Step step;
    step.transfers.reserve(static_cast<size_t>(ranks));
    for (int32_t r = 0; r < ranks; ++r) {
      const int32_t d = (r + k) % ranks;
      step.transfers.push_back({r, d, split_part(bytes, ranks, d), r * ranks + d, Op::kCopy, 1});
    }
    detail::push_step(s, std::move(step));
  }
  return s;
}

// Rail-aligned all-to-all (two phases; see the header comment).
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> rail_aligned_all_to_all(
    const std::vector<int32_t>& host_of_rank, int64_t bytes) {
  const auto ranks = static_cast<int32_t>(
      std::min<size_t>(host_of_rank.size(), static_cast<size_t>(kMaxAllToAllRanks) + 1));
  RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxAllToAllRanks));
  RAILYARD_ASSIGN_OR_RETURN(detail::Grouping grp, detail::group_hosts(host_of_rank, ranks));
  Schedule s =
      detail::header(Collective::kAllToAll, Algorithm::kRailAligned, ranks, bytes, ranks * ranks);
  s.ranks_per_host = grp.g;
  s.host_of_rank = host_of_rank;
  auto host = [&](int32_t r) { return grp.host_index[static_cast<size_t>(r)]; };
  auto local = [&](int32_t r) { return grp.local_index[static_cast<size_t>(r)]; };
  Step nvlink, rail;
  for (int32_t r = 0; r < ranks; ++r) {
    for (int32_t d = 0; d < ranks; ++d) {
      if (d == r) continue;
      const int32_t chunk = r * ranks + d;
      const int64_t b = split_part(bytes, ranks, d);
      if (host(d) == host(r)) {
        nvlink.transfers.push_back({r, d, b, chunk, Op::kCopy, 1});
      } else if (local(d) == local(r)) {
        rail.transfers.push_back({r, d, b, chunk, Op::kCopy, 1});
      } else {
        const int32_t via =
            grp.members[static_cast<size_t>(host(r))][static_cast<size_t>(local(d))];
        nvlink.transfers.push_back({r, via, b, chunk, Op::kCopy, 1});
        rail.transfers.push_back({via, d, b, chunk, Op::kCopy, 1});
      }
    }
  }
  // Deterministic order within the rail step: by sender, then destination.
  std::stable_sort(rail.transfers.begin(), rail.transfers.end(),
                   [](const Transfer& a, const Transfer& b) {
                     return std::pair(a.src, a.dst) < std::pair(b.src, b.dst);
                   });
  detail::push_step(s, std::move(nvlink));
  detail::push_step(s, std::move(rail));
  return s;
}

struct ScheduleOptions {
  int32_t tree_pieces = 1;            // double binary tree pipelining
  std::vector<int32_t> host_of_rank;  // hierarchical / rail-aligned
};

// Any (collective, algorithm) pair that has a schedule. For hierarchical and
// rail-aligned, options.host_of_rank must hold `ranks` entries.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Schedule> make_schedule(Collective kind, Algorithm algo,
                                                            int32_t ranks, int64_t bytes,
                                                            const ScheduleOptions& options = {}) {
  auto unsupported = [&] { return check_supported(kind, algo); };
  auto grouped = [&]() -> Status {
    if (static_cast<int64_t>(options.host_of_rank.size()) != ranks)
      return invalid_field("host_of_rank", str_cat(options.host_of_rank.size(), " entries"),
                           str_cat("must have one entry per rank (", ranks, ")"));
    return ok_status();
  };
  switch (algo) {
    case Algorithm::kRing:
      switch (kind) {
        case Collective::kAllReduce:
          return ring_all_reduce(ranks, bytes);
        case Collective::kAllGather:
          return ring_all_gather(ranks, bytes);
        case Collective::kReduceScatter:
          return ring_reduce_scatter(ranks, bytes);
        case Collective::kAllToAll:
          return unsupported();
      }
      break;
    case Algorithm::kDoubleBinaryTree:
      if (kind != Collective::kAllReduce) return unsupported();
      return double_binary_tree_all_reduce(ranks, bytes, options.tree_pieces);
    case Algorithm::kHierarchical:
      if (kind != Collective::kAllReduce) return unsupported();
      RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxRanks));
      RAILYARD_RETURN_IF_ERROR(grouped());
      return hierarchical_all_reduce(options.host_of_rank, bytes);
    case Algorithm::kPairwise:
      if (kind != Collective::kAllToAll) return unsupported();
      return pairwise_all_to_all(ranks, bytes);
    case Algorithm::kRailAligned:
      if (kind != Collective::kAllToAll) return unsupported();
      RAILYARD_RETURN_IF_ERROR(detail::check_size(ranks, bytes, kMaxAllToAllRanks));
      RAILYARD_RETURN_IF_ERROR(grouped());
      return rail_aligned_all_to_all(options.host_of_rank, bytes);
  }
  return unsupported();
}

// The exact total of bytes the schedule's algorithm moves (see the header
// comment); an error when the product overflows int64 or the header is invalid.
RAILYARD_LAZY
[[nodiscard]] StatusOr<int64_t> closed_form_total_bytes(const Schedule& s) {
  RAILYARD_RETURN_IF_ERROR(detail::check_size(s.ranks, s.bytes, kMaxRanks));
  int64_t factor = 0;
  const int64_t n = s.ranks;
  switch (s.algo) {
    case Algorithm::kRing:
      factor = s.kind == Collective::kAllReduce ? 2 * (n - 1) : n - 1;
      break;
    case Algorithm::kDoubleBinaryTree:
    case Algorithm::kHierarchical:
      factor = 2 * (n - 1);
      break;
    case Algorithm::kPairwise:
      factor = n - 1;
      break;
    case Algorithm::kRailAligned: {
      const int64_t g = s.ranks_per_host;
      if (g < 1 || n % g != 0)
        return invalid_field("ranks_per_host", str_cat(g), str_cat("does not divide ", n));
      factor = (n - 1) + (g - 1) * (n / g - 1);
      break;
    }
  }
  int64_t out = 0;
  if (__builtin_mul_overflow(factor, s.bytes, &out))
    return invalid_field("bytes", str_cat(s.bytes), "total bytes moved overflow int64");
  return out;
}

}  // namespace railyard::collective
