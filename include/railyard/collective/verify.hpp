// railyard/collective/verify.hpp — checks a schedule by executing it symbolically.
//
//   auto s = railyard::collective::ring_all_reduce(5, 1000);
//   railyard::Status ok = railyard::collective::verify(*s);  // ok
//
// State: for every rank and chunk, the set of ranks whose contribution the rank
// holds (a bitset; empty = the rank does not hold the chunk). Initially:
//   all-reduce, reduce-scatter  every rank holds {r} in every chunk;
//   all-gather                  rank r holds {r} in chunk r;
//   all-to-all                  rank s holds {s} in chunks s*n .. s*n+n-1.
// A step's transfers read the sender's content at the start of the step. A copy
// replaces the receiver's content; a reduce adds it and fails if a contribution
// would be counted twice. Every transfer must carry chunks its sender holds, and
// its bytes must equal the sizes of those chunks. Required end state:
//   all-reduce      every rank holds every chunk reduced over all n ranks;
//   all-gather      every rank holds chunk c = {c};
//   reduce-scatter  rank r holds chunk r reduced over all n ranks;
//   all-to-all      rank d holds chunk s*n+d = {s} for every s.
// Finally the bytes moved must equal closed_form_total_bytes(). The first error
// found is returned, naming the step, rank and chunk. Meant for small schedules:
// ranks * chunks * ceil(ranks / 64) words of state, at most 2^26.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::collective {

namespace detail {

inline constexpr int64_t kMaxVerifyWords = int64_t{1} << 26;

class SymbolicState {
 public:
  SymbolicState(int32_t ranks, int32_t chunks)
      : ranks_(ranks),
        chunks_(chunks),
        words_((ranks + 63) / 64),
        bits_(static_cast<size_t>(ranks) * static_cast<size_t>(chunks) *
                  static_cast<size_t>(words_),
              0) {}

  [[nodiscard]] uint64_t* at(int32_t rank, int32_t chunk) {
    return bits_.data() +
           (static_cast<size_t>(rank) * static_cast<size_t>(chunks_) + static_cast<size_t>(chunk)) *
               static_cast<size_t>(words_);
  }
  void set(int32_t rank, int32_t chunk, int32_t contributor) {
    at(rank, chunk)[contributor / 64] |= uint64_t{1} << (contributor % 64);
  }
  [[nodiscard]] int32_t words() const noexcept { return words_; }
  [[nodiscard]] int32_t ranks() const noexcept { return ranks_; }

 private:
  int32_t ranks_, chunks_, words_;
  std::vector<uint64_t> bits_;
};

RAILYARD_LAZY
[[nodiscard]] int32_t popcount_words(const uint64_t* w, int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; ++i) c += __builtin_popcountll(w[i]);
  return c;
}

// "{0,2,5}" (at most 8 entries, then "...").
RAILYARD_LAZY
[[nodiscard]] std::string describe_set(const uint64_t* w, int32_t ranks) {
  std::string out = std::string("{");
  int32_t shown = 0;
  for (int32_t r = 0; r < ranks; ++r) {
    if ((w[r / 64] >> (r % 64) & 1) == 0) continue;
    if (shown == 8) {
      out += ",...";
      break;
    }
    if (shown > 0) out += ',';
    str_append(out, r);
    ++shown;
  }
  out += '}';
  return out;
}

RAILYARD_LAZY
[[nodiscard]] int32_t expected_chunks(const Schedule& s) {
  switch (s.algo) {
    case Algorithm::kRing:
    case Algorithm::kHierarchical: return s.ranks;
    case Algorithm::kDoubleBinaryTree: return 2 * s.tree_pieces;
    case Algorithm::kPairwise:
    case Algorithm::kRailAligned: return s.ranks * s.ranks;
  }
  return -1;
}

}  // namespace detail

RAILYARD_LAZY
[[nodiscard]] Status verify(const Schedule& s) {
  const int32_t n = s.ranks;
  RAILYARD_RETURN_IF_ERROR(
      detail::check_size(n, s.bytes, s.kind == Collective::kAllToAll ? kMaxAllToAllRanks : kMaxRanks));
  if (s.algo == Algorithm::kDoubleBinaryTree && (s.tree_pieces < 1 || s.tree_pieces > kMaxTreePieces))
    return invalid_field("tree_pieces", str_cat(s.tree_pieces), "out of range");
  if ((s.algo == Algorithm::kHierarchical || s.algo == Algorithm::kRailAligned) &&
      (s.ranks_per_host < 1 || n % s.ranks_per_host != 0))
    return invalid_field("ranks_per_host", str_cat(s.ranks_per_host), str_cat("does not divide ", n));
  if (s.num_chunks != detail::expected_chunks(s))
    return invalid_field("num_chunks", str_cat(s.num_chunks),
                         str_cat("algorithm ", s.algorithm, " over ", n, " ranks uses ",
                                 detail::expected_chunks(s)));
  const int32_t C = s.num_chunks;
  const int64_t words = static_cast<int64_t>(n) * C * ((n + 63) / 64);
  if (words > detail::kMaxVerifyWords)
    return resource_exhausted_error(
        str_cat("schedule too large to verify symbolically: ", n, " ranks x ", C, " chunks"));

  detail::SymbolicState st(n, C);
  const int32_t W = st.words();
  switch (s.kind) {
    case Collective::kAllReduce:
    case Collective::kReduceScatter:
      for (int32_t r = 0; r < n; ++r)
        for (int32_t c = 0; c < C; ++c) st.set(r, c, r);
      break;
    case Collective::kAllGather:
      if (C != n) return invalid_field("num_chunks", str_cat(C), "all-gather needs one per rank");
      for (int32_t r = 0; r < n; ++r) st.set(r, r, r);
      break;
    case Collective::kAllToAll:
      if (static_cast<int64_t>(C) != static_cast<int64_t>(n) * n)
        return invalid_field("num_chunks", str_cat(C), "all-to-all needs ranks^2");
      for (int32_t r = 0; r < n; ++r)
        for (int32_t d = 0; d < n; ++d) st.set(r, r * n + d, r);
      break;
  }
  const bool reducing = s.kind == Collective::kAllReduce || s.kind == Collective::kReduceScatter;

  int64_t moved = 0;
  std::vector<uint64_t> payload;
  std::unordered_map<int64_t, Op> touched;
  for (size_t si = 0; si < s.steps.size(); ++si) {
    const Step& step = s.steps[si];
    if (step.transfers.empty()) return invalid_argument_error(str_cat("step ", si, ": empty"));
    payload.clear();
    touched.clear();
    // Read every sender's content as of the start of the step.
    for (size_t ti = 0; ti < step.transfers.size(); ++ti) {
      const Transfer& t = step.transfers[ti];
      const std::string where = str_cat("step ", si, " transfer ", ti, " (", t.src, "->", t.dst,
                                        " chunk ", t.chunk, "): ");
      if (t.src < 0 || t.src >= n || t.dst < 0 || t.dst >= n)
        return invalid_argument_error(str_cat(where, "rank out of [0, ", n, ")"));
      if (t.src == t.dst) return invalid_argument_error(str_cat(where, "sends to itself"));
      if (t.chunk_count < 1 || t.chunk < 0 || static_cast<int64_t>(t.chunk) + t.chunk_count > C)
        return invalid_argument_error(
            str_cat(where, "chunks [", t.chunk, ", +", t.chunk_count, ") out of [0, ", C, ")"));
      if (t.op == Op::kReduce && !reducing)
        return invalid_argument_error(
            str_cat(where, "reduce in a ", collective_name(s.kind), " schedule"));
      int64_t want = 0;
      for (int32_t c = t.chunk; c < t.chunk + t.chunk_count; ++c) {
        want += chunk_bytes(s, c);
        const uint64_t* src = st.at(t.src, c);
        if (detail::popcount_words(src, W) == 0)
          return invalid_argument_error(
              str_cat(where, "rank ", t.src, " sends chunk ", c, " it does not hold"));
        payload.insert(payload.end(), src, src + W);
        const int64_t key = static_cast<int64_t>(t.dst) * C + c;
        auto [it, fresh] = touched.try_emplace(key, t.op);
        if (!fresh && (t.op == Op::kCopy || it->second == Op::kCopy))
          return invalid_argument_error(
              str_cat(where, "rank ", t.dst, " chunk ", c, " written twice in one step by a copy"));
      }
      if (t.bytes != want)
        return invalid_argument_error(
            str_cat(where, "carries ", t.bytes, " bytes; its chunks hold ", want));
      if (__builtin_add_overflow(moved, t.bytes, &moved))
        return invalid_argument_error(str_cat(where, "total bytes overflow int64"));
    }
    // Apply.
    size_t pos = 0;
    for (const Transfer& t : step.transfers) {
      for (int32_t c = t.chunk; c < t.chunk + t.chunk_count; ++c, pos += static_cast<size_t>(W)) {
        uint64_t* dst = st.at(t.dst, c);
        const uint64_t* in = payload.data() + pos;
        if (t.op == Op::kCopy) {
          std::copy(in, in + W, dst);
          continue;
        }
        for (int32_t w = 0; w < W; ++w) {
          if ((dst[w] & in[w]) != 0) {
            std::vector<uint64_t> both(dst, dst + W);
            for (int32_t k = 0; k < W; ++k) both[static_cast<size_t>(k)] &= in[k];
            return invalid_argument_error(
                str_cat("step ", si, " (", t.src, "->", t.dst, " chunk ", c, "): rank ", t.dst,
                        " would count contributions ", detail::describe_set(both.data(), n),
                        " twice"));
          }
          dst[w] |= in[w];
        }
      }
    }
  }

  // End state.
  auto check = [&](int32_t rank, int32_t chunk, int32_t expect_single) -> Status {
    const uint64_t* w = st.at(rank, chunk);
    const int32_t have = detail::popcount_words(w, W);
    if (expect_single < 0) {
      if (have != n)
        return failed_precondition_error(
            str_cat("rank ", rank, " chunk ", chunk, ": holds ", have, " of ", n,
                    " contributions ", detail::describe_set(w, n)));
      return ok_status();
    }
    if (have != 1 || (w[expect_single / 64] >> (expect_single % 64) & 1) == 0)
      return failed_precondition_error(
          str_cat("rank ", rank, " chunk ", chunk, ": holds ", detail::describe_set(w, n),
                  ", expected rank ", expect_single, "'s block"));
    return ok_status();
  };
  switch (s.kind) {
    case Collective::kAllReduce:
      for (int32_t r = 0; r < n; ++r)
        for (int32_t c = 0; c < C; ++c) RAILYARD_RETURN_IF_ERROR(check(r, c, -1));
      break;
    case Collective::kReduceScatter:
      for (int32_t r = 0; r < n; ++r) RAILYARD_RETURN_IF_ERROR(check(r, r, -1));
      break;
    case Collective::kAllGather:
      for (int32_t r = 0; r < n; ++r)
        for (int32_t c = 0; c < C; ++c) RAILYARD_RETURN_IF_ERROR(check(r, c, c));
      break;
    case Collective::kAllToAll:
      for (int32_t d = 0; d < n; ++d)
        for (int32_t src = 0; src < n; ++src) RAILYARD_RETURN_IF_ERROR(check(d, src * n + d, src));
      break;
  }

  RAILYARD_ASSIGN_OR_RETURN(const int64_t expect, closed_form_total_bytes(s));
  if (moved != expect)
    return failed_precondition_error(str_cat("bytes moved ", moved, " != closed form ", expect,
                                                 " for ", s.algorithm, " ",
                                                 collective_name(s.kind)));
  return ok_status();
}

}  // namespace railyard::collective
