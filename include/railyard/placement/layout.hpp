// railyard/placement/layout.hpp — a layout algebra for rank orderings:
// (shape):(stride) maps from coordinates to integer offsets, with the two
// operations rank groups need: complement and inverse.
//
// A Layout with shape (s0, s1, ...) and stride (d0, d1, ...) maps a coordinate
// (c0, c1, ...) with 0 <= ck < sk to the offset c0*d0 + c1*d1 + ...  A flat index
// i in [0, size) names a coordinate colexicographically — the first mode is the
// fastest, as in Megatron's order string `tp-cp-ep-dp-pp` (and in CuTe, whose
// algebra this borrows: NVIDIA CUTLASS include/cute/layout.hpp). The notation is
// `(8,4,2):(1,8,32)`.
//
// For rank orderings the coordinates are parallel coordinates (tp, cp, ep, dp, pp)
// and the offset is the global rank:
//
//   using namespace railyard::placement;
//   // tp=8, cp=1, ep=1, dp=4, pp=2, order tp-cp-ep-dp-pp (dims numbered 0..4).
//   constexpr Layout ranks = rank_layout({8, 1, 1, 4, 2}, {0, 1, 2, 3, 4}).value();
//   // ranks.to_string() == "(8,1,1,4,2):(1,8,8,8,32)"
//   static_assert(ranks({3, 0, 0, 2, 1}) == 3 + 2 * 8 + 32);  // tp=3, dp=2, pp=1 -> 51
//   constexpr Layout dp_group = group_layout(ranks, 3);        // (4):(8): members 0,8,16,24
//   constexpr Layout dp_firsts = group_offsets(ranks, 3).value();  // (8,2):(1,32)
//   // DP group g (g < 16) holds the ranks dp_firsts(g) + dp_group(m), m < 4; the 16
//   // groups partition [0, 64) exactly once, numbered by their lowest rank.
//
// The algebra (every result is a plain constexpr value; an input an operation
// cannot handle gives an error value, never undefined behaviour):
//
//   complement(A, M)       C such that (A, C) is a bijection onto [0, M)
//   inverse(L)             L^-1 for a bijection onto [0, size(L))
//
// (CuTe defines more — coalesce, composition, concatenation, logical_divide —
// which rank orderings do not need; railyard keeps only what it uses.)
//
// Values are limited so that no arithmetic overflows: at most kMaxModes (8) modes,
// shapes >= 1, strides >= 0 (no negative strides), and size and cosize at most
// kMaxExtent (2^40). Operations that can fail return AlgebraResult<T> (`ok()`,
// `value()`, `problem()`, `status()`); `make_layout` is for trusted input (a
// compile error in constant evaluation, the trivial layout `():()` at run time when
// violated) and `try_make_layout` for anything else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::placement {

// The most modes a Layout holds.
inline constexpr int kMaxModes = 8;
// The largest size, cosize, shape or stride a Layout holds (2^40).
inline constexpr int64_t kMaxExtent = int64_t{1} << 40;

// A coordinate: one entry per mode; entries past the layout's rank are 0.
using Coord = std::array<int64_t, kMaxModes>;

namespace detail {
struct LayoutAccess;
}  // namespace detail

// (shape):(stride). Invariant: 0 <= rank <= kMaxModes, 1 <= shape(k),
// 0 <= stride(k), size() and cosize() <= kMaxExtent; entries past the rank are 0.
// The default Layout has rank 0: size 1, mapping 0 -> 0, written `():()`.
class Layout {
 public:
  constexpr Layout() = default;

  [[nodiscard]] constexpr int rank() const { return rank_; }
  // The shape and stride of `mode`; a mode outside [0, rank) reads as the
  // trivial mode (1):(0).
  [[nodiscard]] constexpr int64_t shape(int mode) const {
    return mode >= 0 && mode < rank_ ? shape_[static_cast<size_t>(mode)] : 1;
  }
  [[nodiscard]] constexpr int64_t stride(int mode) const {
    return mode >= 0 && mode < rank_ ? stride_[static_cast<size_t>(mode)] : 0;
  }
  [[nodiscard]] constexpr std::span<const int64_t> shapes() const {
    return {shape_.data(), static_cast<size_t>(rank_)};
  }
  [[nodiscard]] constexpr std::span<const int64_t> strides() const {
    return {stride_.data(), static_cast<size_t>(rank_)};
  }

  // Number of coordinates: the product of the shapes (1 for rank 0). O(rank).
  [[nodiscard]] constexpr int64_t size() const {
    int64_t n = 1;
    for (int k = 0; k < rank_; ++k) n *= shape_[static_cast<size_t>(k)];
    return n;
  }
  // One past the largest offset: 1 + sum (shape(k) - 1) * stride(k). O(rank).
  [[nodiscard]] constexpr int64_t cosize() const {
    int64_t n = 1;
    for (int k = 0; k < rank_; ++k) {
      n += (shape_[static_cast<size_t>(k)] - 1) * stride_[static_cast<size_t>(k)];
    }
    return n;
  }

  // The coordinate of flat index `index` (colexicographic, first mode fastest).
  // Precondition 0 <= index < size(); past the end the last mode keeps counting
  // (its coordinate may reach or exceed its shape). O(rank).
  [[nodiscard]] constexpr Coord coord(int64_t index) const {
    Coord c{};
    for (int k = 0; k + 1 < rank_; ++k) {
      const int64_t s = shape_[static_cast<size_t>(k)];
      c[static_cast<size_t>(k)] = index % s;
      index /= s;
    }
    if (rank_ > 0) c[static_cast<size_t>(rank_ - 1)] = index;
    return c;
  }

  // The offset of flat index `index`, same precondition as coord(). O(rank).
  [[nodiscard]] constexpr int64_t operator()(int64_t index) const {
    int64_t offset = 0;
    for (int k = 0; k + 1 < rank_; ++k) {
      const int64_t s = shape_[static_cast<size_t>(k)];
      offset += (index % s) * stride_[static_cast<size_t>(k)];
      index /= s;
    }
    if (rank_ > 0) offset += index * stride_[static_cast<size_t>(rank_ - 1)];
    return offset;
  }
  // The offset of a coordinate (c0, c1, ...). Entries past the rank are ignored
  // and missing entries read as 0; precondition 0 <= ck < shape(k). O(rank).
  [[nodiscard]] constexpr int64_t operator()(std::span<const int64_t> coords) const {
    int64_t offset = 0;
    const size_t n =
        coords.size() < static_cast<size_t>(rank_) ? coords.size() : static_cast<size_t>(rank_);
    for (size_t k = 0; k < n; ++k) offset += coords[k] * stride_[k];
    return offset;
  }
  [[nodiscard]] constexpr int64_t operator()(std::initializer_list<int64_t> coords) const {
    return (*this)(std::span<const int64_t>(coords.begin(), coords.size()));
  }

  // `(8,4,2):(1,8,32)`; rank 0 prints as `():()`.
  [[nodiscard]] std::string to_string() const {
    std::string out = "(";
    for (int k = 0; k < rank_; ++k) str_append(out, k ? "," : "", shape(k));
    out += "):(";
    for (int k = 0; k < rank_; ++k) str_append(out, k ? "," : "", stride(k));
    out += ")";
    return out;
  }
  // Structural equality: same rank, shapes and strides. (Layouts that are equal
  // as functions may differ structurally.)
  friend constexpr bool operator==(const Layout& a, const Layout& b) {
    if (a.rank_ != b.rank_) return false;
    for (int k = 0; k < a.rank_; ++k) {
      if (a.shape(k) != b.shape(k) || a.stride(k) != b.stride(k)) return false;
    }
    return true;
  }

 private:
  friend struct detail::LayoutAccess;
  std::array<int64_t, kMaxModes> shape_{};
  std::array<int64_t, kMaxModes> stride_{};
  int rank_ = 0;
};

// The value of an operation that may reject its input. `problem()` is static text
// that starts with the operation's name and states the violated condition;
// `mode()` is the offending mode of the input (or -1). value() of a failed result
// is a default T (the trivial layout), never garbage.
template <class T>
class AlgebraResult {
 public:
  constexpr AlgebraResult(const T& value) : value_(value) {}  // NOLINT: implicit by design
  [[nodiscard]] static constexpr AlgebraResult failure(std::string_view problem, int mode = -1) {
    AlgebraResult r{T{}};
    r.problem_ = problem;
    r.mode_ = mode;
    return r;
  }

  [[nodiscard]] constexpr bool ok() const { return problem_.empty(); }
  [[nodiscard]] constexpr const T& value() const { return value_; }
  [[nodiscard]] constexpr const T& operator*() const { return value_; }
  [[nodiscard]] constexpr const T* operator->() const { return &value_; }
  [[nodiscard]] constexpr std::string_view problem() const { return problem_; }
  [[nodiscard]] constexpr int mode() const { return mode_; }

  // OkStatus, or InvalidArgument with the problem and the offending mode.
  [[nodiscard]] Status status() const {
    if (ok()) return ok_status();
    std::string message(problem_);
    if (mode_ >= 0) str_append(message, " (mode ", mode_, ")");
    return invalid_argument_error(message);
  }
  [[nodiscard]] StatusOr<T> status_or() const {
    if (!ok()) return status();
    return value_;
  }

 private:
  T value_{};
  std::string_view problem_{};
  int mode_ = -1;
};

using LayoutResult = AlgebraResult<Layout>;

namespace detail {

// Scratch list of modes, larger than a Layout, for intermediate results.
struct Modes {
  static constexpr int kCapacity = 64;
  std::array<int64_t, kCapacity> shape{};
  std::array<int64_t, kCapacity> stride{};
  int rank = 0;

  constexpr bool push(int64_t s, int64_t d) {
    if (rank == kCapacity) return false;
    shape[static_cast<size_t>(rank)] = s;
    stride[static_cast<size_t>(rank)] = d;
    ++rank;
    return true;
  }
  constexpr void push_all(const Layout& l) {
    for (int k = 0; k < l.rank(); ++k) push(l.shape(k), l.stride(k));
  }
};

// a * b for 0 <= a, b, saturating at kMaxExtent + 1 (so "too large" stays too large).
[[nodiscard]] constexpr int64_t mul_capped(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > kMaxExtent / b) return kMaxExtent + 1;
  return a * b;
}
[[nodiscard]] constexpr int64_t add_capped(int64_t a, int64_t b) {
  const int64_t s = a + b;  // both <= kMaxExtent + 1
  return s > kMaxExtent ? kMaxExtent + 1 : s;
}

struct LayoutAccess {
  // Validates the invariant and builds; modes [first, last) of `m`.
  [[nodiscard]] static constexpr LayoutResult build(const Modes& m, int first, int last) {
    if (last - first > kMaxModes) return LayoutResult::failure("layout: more than 8 modes");
    Layout l;
    int64_t size = 1;
    int64_t cosize = 1;
    for (int k = first; k < last; ++k) {
      const int64_t s = m.shape[static_cast<size_t>(k)];
      const int64_t d = m.stride[static_cast<size_t>(k)];
      if (s < 1 || s > kMaxExtent) {
        return LayoutResult::failure("layout: shape outside [1, 2^40]", k - first);
      }
      if (d < 0 || d > kMaxExtent) {
        return LayoutResult::failure("layout: stride outside [0, 2^40]", k - first);
      }
      size = mul_capped(size, s);
      cosize = add_capped(cosize, mul_capped(s - 1, d));
      l.shape_[static_cast<size_t>(k - first)] = s;
      l.stride_[static_cast<size_t>(k - first)] = d;
    }
    if (size > kMaxExtent) return LayoutResult::failure("layout: size exceeds 2^40");
    if (cosize > kMaxExtent) return LayoutResult::failure("layout: cosize exceeds 2^40");
    l.rank_ = last - first;
    return l;
  }
  [[nodiscard]] static constexpr LayoutResult build(const Modes& m) { return build(m, 0, m.rank); }
};

// Called only for invalid make_layout() arguments: not constexpr, so constant
// evaluation stops here with a compile error at the caller (the {fmt} trick).
RAILYARD_LAZY
void layout_arguments_are_invalid() {}

[[nodiscard]] constexpr Layout trusted(const LayoutResult& r) {
  if (!r.ok()) layout_arguments_are_invalid();
  return r.value();
}

template <class T>
constexpr void sort_small(T* first, int n) {  // insertion sort: stable, n <= 64
  for (int i = 1; i < n; ++i) {
    T x = first[i];
    int j = i;
    for (; j > 0 && x < first[j - 1]; --j) first[j] = first[j - 1];
    first[j] = x;
  }
}

// A mode of some layout, with its position; ordered by stride, then position.
struct StrideKey {
  int64_t stride = 0;
  int64_t shape = 1;
  int position = 0;
  friend constexpr bool operator<(const StrideKey& a, const StrideKey& b) {
    return a.stride != b.stride ? a.stride < b.stride : a.position < b.position;
  }
};

}  // namespace detail

// ---------------------------------------------------------------------------
// Construction.
// ---------------------------------------------------------------------------

// (shape):(stride) with the given strides. Fails when the ranks differ, the rank
// exceeds kMaxModes, a shape is < 1, a stride is < 0, or size/cosize > kMaxExtent.
// O(rank).
[[nodiscard]] constexpr LayoutResult try_make_layout(std::span<const int64_t> shape,
                                                     std::span<const int64_t> stride) {
  if (shape.size() != stride.size()) {
    return LayoutResult::failure("layout: shape and stride have different ranks");
  }
  if (shape.size() > static_cast<size_t>(kMaxModes)) {
    return LayoutResult::failure("layout: more than 8 modes");
  }
  detail::Modes m;
  for (size_t k = 0; k < shape.size(); ++k) m.push(shape[k], stride[k]);
  return detail::LayoutAccess::build(m);
}
// The compact colexicographic layout of `shape`: stride(k) = shape(0)*...*shape(k-1),
// a bijection onto [0, size). Fails as above. O(rank).
[[nodiscard]] constexpr LayoutResult try_make_layout(std::span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxModes)) {
    return LayoutResult::failure("layout: more than 8 modes");
  }
  detail::Modes m;
  int64_t stride = 1;
  for (int64_t s : shape) {
    m.push(s, stride);
    stride = s < 1 ? 0 : detail::mul_capped(stride, s);
  }
  return detail::LayoutAccess::build(m);
}
[[nodiscard]] constexpr LayoutResult try_make_layout(std::initializer_list<int64_t> shape) {
  return try_make_layout(std::span<const int64_t>(shape.begin(), shape.size()));
}
[[nodiscard]] constexpr LayoutResult try_make_layout(std::initializer_list<int64_t> shape,
                                                     std::initializer_list<int64_t> stride) {
  return try_make_layout(std::span<const int64_t>(shape.begin(), shape.size()),
                         std::span<const int64_t>(stride.begin(), stride.size()));
}

// Trusted-input forms of try_make_layout: an invalid argument is a compile error
// in constant evaluation and gives the trivial layout `():()` at run time.
[[nodiscard]] constexpr Layout make_layout(std::span<const int64_t> shape) {
  return detail::trusted(try_make_layout(shape));
}
[[nodiscard]] constexpr Layout make_layout(std::span<const int64_t> shape,
                                           std::span<const int64_t> stride) {
  return detail::trusted(try_make_layout(shape, stride));
}
[[nodiscard]] constexpr Layout make_layout(std::initializer_list<int64_t> shape) {
  return detail::trusted(try_make_layout(shape));
}
[[nodiscard]] constexpr Layout make_layout(std::initializer_list<int64_t> shape,
                                           std::initializer_list<int64_t> stride) {
  return detail::trusted(try_make_layout(shape, stride));
}

// ---------------------------------------------------------------------------
// The algebra.
// ---------------------------------------------------------------------------

// The complement of A in [0, M): a layout C that enumerates the offsets A's image
// must be shifted by to tile [0, M) exactly once.
// Admissible when (else an error value naming the mode of A):
//   * A is injective in the tileable way: sorting the modes of shape > 1 by stride,
//     every stride is > 0 and a multiple of the previous mode's shape * stride;
//   * M is a multiple of the last such shape * stride (the span of A), 1 <= M <= 2^40.
// Post: for every offset o < M exactly one pair (i < size(A), j < size(C)) has
// A(i) + C(j) == o, i.e. the modes of A followed by those of C are a bijection
// onto [0, M); size(A) * size(C) == M; C's strides strictly increase and C has no
// shape-1 mode, so C(j) increases with j (C(j) is the least offset of the j-th
// shifted copy of A); no two of C's modes could merge. O(rank^2).
[[nodiscard]] constexpr LayoutResult complement(const Layout& a, int64_t m) {
  if (m < 1 || m > kMaxExtent) return LayoutResult::failure("complement: M outside [1, 2^40]");
  std::array<detail::StrideKey, kMaxModes> keys{};
  int n = 0;
  for (int k = 0; k < a.rank(); ++k) {
    if (a.shape(k) == 1) continue;
    if (a.stride(k) == 0) {
      return LayoutResult::failure("complement: A is not injective (stride 0)", k);
    }
    keys[static_cast<size_t>(n++)] = {a.stride(k), a.shape(k), k};
  }
  detail::sort_small(keys.data(), n);
  detail::Modes c;
  int64_t covered = 1;  // A's sorted modes so far tile [0, covered) with gaps filled by C
  for (int i = 0; i < n; ++i) {
    const auto& key = keys[static_cast<size_t>(i)];
    if (key.stride % covered != 0) {
      return LayoutResult::failure(
          "complement: A is not tileable (a stride is not a multiple of the previous "
          "modes' span)",
          key.position);
    }
    if (key.stride / covered > 1) c.push(key.stride / covered, covered);
    covered = key.stride * key.shape;  // <= cosize(A) <= 2^40
  }
  if (m % covered != 0) {
    return LayoutResult::failure("complement: M is not a multiple of A's span");
  }
  if (m / covered > 1) c.push(m / covered, covered);
  return detail::LayoutAccess::build(c);
}

namespace detail {
// L's modes of shape > 1 (and, if asked, stride > 0) sorted by stride, with the
// index-space stride (prefix product of shapes) of each mode.
struct StrideChain {
  std::array<StrideKey, kMaxModes> keys{};
  std::array<int64_t, kMaxModes> index_stride{};
  int count = 0;
};
constexpr StrideChain stride_chain(const Layout& l, bool skip_zero_strides) {
  StrideChain c;
  int64_t prefix = 1;
  for (int k = 0; k < l.rank(); ++k) {
    c.index_stride[static_cast<size_t>(k)] = prefix;
    prefix *= l.shape(k);
    if (l.shape(k) > 1 && (!skip_zero_strides || l.stride(k) > 0))
      c.keys[static_cast<size_t>(c.count++)] = {l.stride(k), l.shape(k), k};
  }
  sort_small(c.keys.data(), c.count);
  return c;
}
}  // namespace detail

// The inverse of a bijection onto [0, size(L)) (a compact layout, possibly with
// permuted modes): inverse(L)(L(i)) == i for i < size(L) and L(inverse(L)(o)) == o
// for o < size(L). Admissible when the modes of shape > 1, sorted by stride, have
// strides 1, s0, s0*s1, ... (else "not a bijection", naming the first mode out
// of place). Post: size and cosize equal size(L); no shape-1 modes; strides of the
// result are L's index-space strides (prefix products of L's shapes).
// O(rank^2).
[[nodiscard]] constexpr LayoutResult inverse(const Layout& l) {
  const auto [keys, index_stride, n] = detail::stride_chain(l, /*skip_zero_strides=*/false);
  detail::Modes m;
  int64_t expected = 1;
  for (int i = 0; i < n; ++i) {
    const auto& key = keys[static_cast<size_t>(i)];
    if (key.stride != expected) {
      return LayoutResult::failure("inverse: L is not a bijection onto [0, size(L))", key.position);
    }
    m.push(key.shape, index_stride[static_cast<size_t>(key.position)]);
    expected *= key.shape;
  }
  return detail::LayoutAccess::build(m);
}

// ---------------------------------------------------------------------------
// Rank orderings.
// ---------------------------------------------------------------------------

// The rank layout of a parallelism plan. `dim_sizes[k]` is the extent of
// parallel dim k (in the caller's numbering, e.g. tp=0, cp=1, ep=2, dp=3, pp=4)
// and `order` lists the dims from fastest to slowest (Megatron's order string,
// `tp-cp-ep-dp-pp` = {0, 1, 2, 3, 4}). Mode k of the result is dim k: shape
// dim_sizes[k], stride the product of the sizes of the dims before k in `order`.
// Fails when `order` is not a permutation of 0..n-1 or the sizes are invalid.
// Post: a bijection from (c0, ..., c(n-1)) onto ranks [0, product of sizes).
// O(n^2).
[[nodiscard]] constexpr LayoutResult rank_layout(std::span<const int64_t> dim_sizes,
                                                 std::span<const int> order) {
  const size_t n = dim_sizes.size();
  if (n > static_cast<size_t>(kMaxModes))
    return LayoutResult::failure("rank_layout: more than 8 dims");
  if (order.size() != n) {
    return LayoutResult::failure("rank_layout: order does not list every dim once");
  }
  std::array<bool, kMaxModes> seen{};
  for (int dim : order) {
    if (dim < 0 || static_cast<size_t>(dim) >= n || seen[static_cast<size_t>(dim)]) {
      return LayoutResult::failure("rank_layout: order does not list every dim once");
    }
    seen[static_cast<size_t>(dim)] = true;
  }
  detail::Modes m;
  for (size_t k = 0; k < n; ++k) m.push(dim_sizes[k], 0);
  int64_t stride = 1;
  for (int dim : order) {
    const int64_t s = dim_sizes[static_cast<size_t>(dim)];
    if (s < 1) return LayoutResult::failure("rank_layout: a dim size is below 1", dim);
    m.stride[static_cast<size_t>(dim)] = stride;
    stride = detail::mul_capped(stride, s);
  }
  return detail::LayoutAccess::build(m);
}
[[nodiscard]] constexpr LayoutResult rank_layout(std::initializer_list<int64_t> dim_sizes,
                                                 std::initializer_list<int> order) {
  return rank_layout(std::span<const int64_t>(dim_sizes.begin(), dim_sizes.size()),
                     std::span<const int>(order.begin(), order.size()));
}

// One group of the dims `dims` (e.g. {3} for dp, {0, 4} for tp x pp): the modes of
// `ranks` for those dims, in the order given. group(m) is the rank offset of member
// m from the group's first rank; group(0) == 0. Dims outside [0, rank) read as the
// trivial mode (1):(0); dims past the eighth are ignored. Post: with `ranks` a
// bijection, the members of every group are distinct. O(dims).
[[nodiscard]] constexpr Layout group_layout(const Layout& ranks, std::span<const int> dims) {
  detail::Modes m;
  for (size_t i = 0; i < dims.size() && i < static_cast<size_t>(kMaxModes); ++i) {
    m.push(ranks.shape(dims[i]), ranks.stride(dims[i]));
  }
  return detail::LayoutAccess::build(m).value();  // a sub-layout of a valid layout
}
[[nodiscard]] constexpr Layout group_layout(const Layout& ranks, std::initializer_list<int> dims) {
  return group_layout(ranks, std::span<const int>(dims.begin(), dims.size()));
}
[[nodiscard]] constexpr Layout group_layout(const Layout& ranks, int dim) {
  return group_layout(ranks, {dim});
}

// The first rank of every group of the dims `dims`: the complement of
// group_layout(ranks, dims) in [0, size(ranks)). Group g holds the ranks
// group_offsets(g) + group_layout(m); group_offsets(g) is the group's least rank
// and increases with g. Fails when `ranks` is not a bijection onto
// [0, size(ranks)) or a dim repeats (the group would not be injective).
// Post: for every dims, the groups partition [0, size(ranks)) exactly once;
// size(group) * size(offsets) == size(ranks). O(rank^2).
[[nodiscard]] constexpr LayoutResult group_offsets(const Layout& ranks, std::span<const int> dims) {
  if (const LayoutResult inv = inverse(ranks); !inv.ok()) {
    return LayoutResult::failure(
        "group_offsets: the rank layout is not a bijection onto [0, world)", inv.mode());
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (dims[i] == dims[j] && ranks.shape(dims[i]) > 1) {
        return LayoutResult::failure("group_offsets: a dim repeats", dims[i]);
      }
    }
  }
  return complement(group_layout(ranks, dims), ranks.size());
}
[[nodiscard]] constexpr LayoutResult group_offsets(const Layout& ranks,
                                                   std::initializer_list<int> dims) {
  return group_offsets(ranks, std::span<const int>(dims.begin(), dims.size()));
}
[[nodiscard]] constexpr LayoutResult group_offsets(const Layout& ranks, int dim) {
  return group_offsets(ranks, {dim});
}

}  // namespace railyard::placement
