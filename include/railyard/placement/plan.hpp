// railyard/placement/plan.hpp — a job's parallelism plan: sizes of the five
// parallel dimensions, the order that numbers ranks, and how many bytes each
// dimension moves per training step.
//
//   auto plan = railyard::placement::parse_plan("tp=8,pp=4,dp=32");
//   plan->world();                       // 1024 ranks
//   plan->order_string();                // "tp-cp-ep-dp-pp" (Megatron default)
//   plan->size(railyard::placement::Dim::kDp);  // 32
//   auto dim = railyard::placement::parse_dim("group", "ep");  // Dim::kEp
//
// Grammar: comma-separated `dim=N` for tp, cp, ep, dp, pp (absent = 1),
// `order=a-b-c-d-e` (a permutation of the five names, first = fastest-varying,
// Megatron's convention), and `<dim>_bytes=SIZE` (what the dimension moves per
// step, e.g. tp_bytes=4GiB, at most 2^53; dimensions without one keep the
// defaults below). Errors name the key and the value.
//
// A training step (step_collectives): the groups of tp, cp, ep and dp each run
// one collective whose size S (nccl-tests' convention) is that dimension's bytes:
// dp all-reduce (ring: gradients), ep all-to-all (pairwise: token dispatch), cp
// all-gather (ring: ring attention's exchange), tp all-reduce (ring:
// activations); pp is point to point: each stage sends pp_bytes to each
// neighbouring stage. The traffic model (ordering.hpp) and the simulator both
// take the step from here.
//
// Rank numbering (Megatron): with order d0-d1-..., rank = c(d0) + n(d0)*(c(d1) +
// n(d1)*(...)) where c is a rank's coordinate and n the dimension's size.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/spec.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/placement/layout.hpp"

namespace railyard::placement {

enum class Dim : uint8_t { kTp, kCp, kEp, kDp, kPp };
inline constexpr int kDimCount = 5;
inline constexpr std::array<std::string_view, kDimCount> kDimNames = {"tp", "cp", "ep", "dp", "pp"};
[[nodiscard]] constexpr std::string_view to_string(Dim d) {
  return kDimNames[static_cast<size_t>(d)];
}

// A dimension by name (tp, cp, ep, dp, pp); the error names `field` (the input
// the name came from, e.g. "group").
RAILYARD_LAZY
[[nodiscard]] StatusOr<Dim> parse_dim(std::string_view field, std::string_view text) {
  for (size_t d = 0; d < kDimNames.size(); ++d)
    if (text == kDimNames[d]) return static_cast<Dim>(d);
  return invalid_field(field, text, "unknown dimension (tp, cp, ep, dp or pp)");
}

// Default bytes per rank per step when a plan gives none: the order of
// magnitude for a dense ~70B-parameter transformer step (bf16), so that the
// ranking of dimensions is right even when the absolute values are not yours:
// TP all-reduces activations in every layer (heaviest, ~8 GiB), CP exchanges
// key/value blocks (~2 GiB), EP dispatches and combines tokens (~2 GiB), DP
// all-reduces its gradient shard once per step (~1 GiB), PP passes one boundary
// activation per micro-batch (~256 MiB). Give <dim>_bytes to use real numbers.
inline constexpr std::array<double, kDimCount> kDefaultBytesPerStep = {
    8.0 * kGiB, 2.0 * kGiB, 2.0 * kGiB, 1.0 * kGiB, 0.25 * kGiB};

struct ParallelPlan {
  std::array<int32_t, kDimCount> sizes{1, 1, 1, 1, 1};  // by Dim
  std::array<Dim, kDimCount> order{Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp};
  std::array<double, kDimCount> bytes_per_step = kDefaultBytesPerStep;  // by Dim
  bool bytes_given = false;  // any <dim>_bytes key present

  [[nodiscard]] constexpr int32_t size(Dim d) const { return sizes[static_cast<size_t>(d)]; }
  [[nodiscard]] constexpr double bytes(Dim d) const {
    return bytes_per_step[static_cast<size_t>(d)];
  }
  [[nodiscard]] constexpr int64_t world() const {
    int64_t w = 1;
    for (int32_t s : sizes) w *= s;
    return w;
  }
  // "tp-cp-ep-dp-pp" for the order.
  [[nodiscard]] std::string order_string() const {
    std::string out;
    for (Dim d : order) str_append(out, out.empty() ? "" : "-", placement::to_string(d));
    return out;
  }
  // The canonical plan text; parse_plan(to_string()) gives the same plan.
  [[nodiscard]] std::string to_string() const {
    std::string out;
    for (int d = 0; d < kDimCount; ++d) str_append(out, d ? "," : "", kDimNames[d], "=", sizes[d]);
    str_append(out, ",order=", order_string());
    if (bytes_given)
      for (int d = 0; d < kDimCount; ++d)
        str_append(out, ",", kDimNames[d], "_bytes=", static_cast<uint64_t>(bytes_per_step[d]));
    return out;
  }
  // Coordinates of `rank` under the order (by Dim).
  [[nodiscard]] constexpr std::array<int32_t, kDimCount> coords(int64_t rank) const {
    std::array<int32_t, kDimCount> c{};
    for (Dim d : order) {
      const int32_t n = size(d);
      c[static_cast<size_t>(d)] = static_cast<int32_t>(rank % n);
      rank /= n;
    }
    return c;
  }
  // The rank with coordinates `c` (inverse of coords()).
  [[nodiscard]] constexpr int64_t rank_of(const std::array<int32_t, kDimCount>& c) const {
    int64_t rank = 0;
    for (int i = kDimCount - 1; i >= 0; --i) {
      const Dim d = order[static_cast<size_t>(i)];
      rank = rank * size(d) + c[static_cast<size_t>(d)];
    }
    return rank;
  }
  // The rank layout: parallel coordinates (by Dim) -> rank, `(sizes):(strides)`
  // with strides from the order (layout.hpp). Its group_layout / group_offsets
  // enumerate the process groups of each dimension.
  [[nodiscard]] constexpr Layout rank_layout() const {
    std::array<int64_t, kDimCount> dims{};
    std::array<int, kDimCount> by_speed{};
    for (int d = 0; d < kDimCount; ++d) {
      dims[static_cast<size_t>(d)] = sizes[static_cast<size_t>(d)];
      by_speed[static_cast<size_t>(d)] = static_cast<int>(order[static_cast<size_t>(d)]);
    }
    return placement::rank_layout(dims, by_speed).value();  // a valid plan always has one
  }
  // Rank distance between consecutive members of a group of `d`.
  [[nodiscard]] constexpr int64_t stride(Dim d) const {
    int64_t s = 1;
    for (Dim e : order) {
      if (e == d) return s;
      s *= size(e);
    }
    return s;
  }
};

// Parses an order string "tp-cp-ep-dp-pp": a permutation of the five names.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::array<Dim, kDimCount>> parse_order(std::string_view text) {
  std::array<Dim, kDimCount> order{};
  std::array<bool, kDimCount> seen{};
  const auto parts = split(text, '-');
  if (parts.size() != kDimCount)
    return invalid_field("order", text,
                         "must name each of tp, cp, ep, dp, pp once, e.g. tp-cp-ep-dp-pp");
  for (size_t i = 0; i < parts.size(); ++i) {
    int found = -1;
    for (int d = 0; d < kDimCount; ++d)
      if (parts[i] == kDimNames[static_cast<size_t>(d)]) found = d;
    if (found < 0)
      return invalid_field("order", text, str_cat("unknown dimension '", parts[i], "'"));
    if (seen[static_cast<size_t>(found)])
      return invalid_field("order", text, str_cat("dimension '", parts[i], "' appears twice"));
    seen[static_cast<size_t>(found)] = true;
    order[i] = static_cast<Dim>(found);
  }
  return order;
}

// Parses a plan (grammar above). Sizes 1..2^20, world at most 2^24.
RAILYARD_LAZY
[[nodiscard]] StatusOr<ParallelPlan> parse_plan(std::string_view text) {
  if (text.empty()) return invalid_field("job", text, "empty plan; e.g. tp=8,pp=4,dp=32");
  RAILYARD_ASSIGN_OR_RETURN(SpecReader reader, SpecReader::parse(str_cat("job:", text)));
  ParallelPlan plan;
  for (int d = 0; d < kDimCount; ++d) {
    RAILYARD_ASSIGN_OR_RETURN(
        int64_t n, reader.integer(kDimNames[static_cast<size_t>(d)], 1, 1, int64_t{1} << 20));
    plan.sizes[static_cast<size_t>(d)] = static_cast<int32_t>(n);
    const std::string key = str_cat(kDimNames[static_cast<size_t>(d)], "_bytes");
    if (reader.has(key)) {
      RAILYARD_ASSIGN_OR_RETURN(uint64_t bytes, parse_size(key, reader.text(key)));
      // Bytes are held as a double: above 2^53 they would be rounded, and near
      // 2^64 rounded past what to_string() can print back as an integer.
      if (bytes > (uint64_t{1} << 53))
        return invalid_field(key, reader.text(key), "at most 2^53 bytes (8 PiB) per step");
      plan.bytes_per_step[static_cast<size_t>(d)] = static_cast<double>(bytes);
      plan.bytes_given = true;
    }
  }
  if (reader.has("order")) {
    RAILYARD_ASSIGN_OR_RETURN(plan.order, parse_order(reader.text("order")));
  }
  RAILYARD_RETURN_IF_ERROR(reader.finish({"tp", "cp", "ep", "dp", "pp", "order", "tp_bytes",
                                          "cp_bytes", "ep_bytes", "dp_bytes", "pp_bytes"}));
  // Five sizes of up to 2^20 can multiply past int64 (and wrap to a small world,
  // or 0), so the product is taken with an overflow check before world() is used.
  int64_t world = 1;
  bool overflow = false;
  for (int32_t n : plan.sizes) overflow = overflow || __builtin_mul_overflow(world, n, &world);
  if (overflow || world > (int64_t{1} << 24))
    return invalid_field("job", text,
                         str_cat("world of ", overflow ? "more than 2^63" : str_cat(world),
                                 " ranks is too large (at most 2^24)"));
  return plan;
}

// One collective of a training step: what a parallel dimension's groups run.
struct StepCollective {
  Dim dim = Dim::kDp;
  collective::Collective kind = collective::Collective::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
};

// The collective a dimension's groups run each step (see the overview); pp runs
// none (point to point between neighbouring stages).
[[nodiscard]] constexpr std::optional<StepCollective> step_collective(Dim d) {
  using collective::Algorithm;
  using collective::Collective;
  switch (d) {
    case Dim::kDp:
      return StepCollective{d, Collective::kAllReduce, Algorithm::kRing};
    case Dim::kEp:
      return StepCollective{d, Collective::kAllToAll, Algorithm::kPairwise};
    case Dim::kCp:
      return StepCollective{d, Collective::kAllGather, Algorithm::kRing};
    case Dim::kTp:
      return StepCollective{d, Collective::kAllReduce, Algorithm::kRing};
    case Dim::kPp:
      break;
  }
  return std::nullopt;
}

// The collectives one training step of `plan` runs, network-heavy first (dp, ep,
// cp, tp), for every dimension of size > 1.
RAILYARD_LAZY
[[nodiscard]] std::vector<StepCollective> step_collectives(const ParallelPlan& plan) {
  std::vector<StepCollective> out;
  for (Dim d : {Dim::kDp, Dim::kEp, Dim::kCp, Dim::kTp})
    if (plan.size(d) > 1) out.push_back(*step_collective(d));
  return out;
}

}  // namespace railyard::placement
