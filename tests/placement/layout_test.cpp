#include "railyard/placement/layout.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_layout_test {

namespace {

using railyard::placement::complement;
using railyard::placement::group_layout;
using railyard::placement::group_offsets;
using railyard::placement::inverse;
using railyard::placement::Layout;
using railyard::placement::make_layout;
using railyard::placement::rank_layout;
using railyard::placement::try_make_layout;

using Ints = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// Compile-time checks: the algebra is usable in constant expressions.
// ---------------------------------------------------------------------------
constexpr Layout kRanks = rank_layout({8, 1, 1, 4, 2}, {0, 1, 2, 3, 4}).value();
static_assert(kRanks == make_layout({8, 1, 1, 4, 2}));
static_assert(kRanks({3, 0, 0, 2, 1}) == 51);
static_assert(group_layout(kRanks, 3) == make_layout({4}, {8}));
static_assert(group_offsets(kRanks, 3).value() == make_layout({8, 2}, {1, 32}));
static_assert(complement(make_layout({4}, {2}), 16).value() == make_layout({2, 2}, {1, 8}));
static_assert(inverse(make_layout({2, 3}, {3, 1})).value() == make_layout({3, 2}, {2, 1}));
static_assert(!try_make_layout({2, 0}).ok());
static_assert(Layout{}.size() == 1 && Layout{}(0) == 0);

// ---------------------------------------------------------------------------
// Independent brute force (never calls the algebra).
// ---------------------------------------------------------------------------

// Offsets of every index, computed from the colexicographic definition.
Ints offsets(const Layout& l) {
  const int64_t n = l.size();
  Ints out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i;
    int64_t off = 0;
    for (int k = 0; k < l.rank(); ++k) {
      off += (rest % l.shape(k)) * l.stride(k);
      rest /= l.shape(k);
    }
    out[static_cast<size_t>(i)] = off;
  }
  return out;
}

bool bijective_onto(const Ints& image, int64_t m) {
  if (static_cast<int64_t>(image.size()) != m) return false;
  std::vector<char> hit(static_cast<size_t>(m), 0);
  for (int64_t o : image) {
    if (o < 0 || o >= m || hit[static_cast<size_t>(o)]) return false;
    hit[static_cast<size_t>(o)] = 1;
  }
  return true;
}

// Every shape with `rank` modes, each in [1, max_mode].
std::vector<Ints> shapes_of_rank(int rank, int64_t max_mode) {
  std::vector<Ints> out{{}};
  for (int k = 0; k < rank; ++k) {
    std::vector<Ints> next;
    for (const Ints& s : out) {
      for (int64_t v = 1; v <= max_mode; ++v) {
        Ints t = s;
        t.push_back(v);
        next.push_back(t);
      }
    }
    out = next;
  }
  return out;
}

// Every stride vector with `rank` entries from `values`.
std::vector<Ints> strides_of_rank(int rank, const Ints& values) {
  std::vector<Ints> out{{}};
  for (int k = 0; k < rank; ++k) {
    std::vector<Ints> next;
    for (const Ints& s : out) {
      for (int64_t v : values) {
        Ints t = s;
        t.push_back(v);
        next.push_back(t);
      }
    }
    out = next;
  }
  return out;
}

Layout must(const Ints& shape, const Ints& stride) {
  auto r = try_make_layout(shape, stride);
  REQUIRE(r.ok());
  return r.value();
}

// Compact layouts with their modes taken in every stride order: stride of mode
// perm[j] is the product of shape[perm[0..j)]. All are bijections onto [0, size).
std::vector<Layout> compact_family(int max_rank, int64_t max_mode) {
  std::vector<Layout> out;
  for (int r = 1; r <= max_rank; ++r) {
    for (const Ints& shape : shapes_of_rank(r, max_mode)) {
      std::vector<int> perm(static_cast<size_t>(r));
      std::iota(perm.begin(), perm.end(), 0);
      do {
        Ints stride(static_cast<size_t>(r));
        int64_t p = 1;
        for (int k : perm) {
          stride[static_cast<size_t>(k)] = p;
          p *= shape[static_cast<size_t>(k)];
        }
        out.push_back(must(shape, stride));
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
  return out;
}

// Every layout of rank 1..max_rank, modes in [1, max_mode], strides from `values`.
std::vector<Layout> general_family(int max_rank, int64_t max_mode, const Ints& values) {
  std::vector<Layout> out;
  for (int r = 1; r <= max_rank; ++r) {
    const auto strides = strides_of_rank(r, values);
    for (const Ints& shape : shapes_of_rank(r, max_mode)) {
      for (const Ints& stride : strides) out.push_back(must(shape, stride));
    }
  }
  return out;
}

const Ints kStrides = {0, 1, 2, 3, 4, 6, 8};

// The unary-operation pool: 340 shapes (rank 1..4, modes 1..4) in every compact
// stride order, plus rank <= 3 with strides from kStrides, plus rank 4 with strides
// from {0, 1, 2, 4}.
const std::vector<Layout>& unary_pool() {
  static const std::vector<Layout> pool = [] {
    std::vector<Layout> p = compact_family(4, 4);
    for (const Layout& l : general_family(3, 4, kStrides)) p.push_back(l);
    for (const Ints& shape : shapes_of_rank(4, 4)) {
      for (const Ints& stride : strides_of_rank(4, {0, 1, 2, 4})) p.push_back(must(shape, stride));
    }
    return p;
  }();
  return pool;
}

// Ordered factorizations of n into factors >= 2 with at most `max_len` factors.
void factorizations(int64_t n, int max_len, Ints& cur, std::vector<Ints>& out) {
  if (n == 1) {
    out.push_back(cur);
    return;
  }
  if (static_cast<int>(cur.size()) == max_len) return;
  for (int64_t f = 2; f <= n; ++f) {
    if (n % f != 0) continue;
    cur.push_back(f);
    factorizations(n / f, max_len, cur, out);
    cur.pop_back();
  }
}

}  // namespace

TEST_CASE("layout: notation, size, cosize, coordinates and equality") {
  const Layout l = make_layout({8, 4, 2});
  CHECK(l.to_string() == "(8,4,2):(1,8,32)");
  CHECK(l.size() == 64);
  CHECK(l.cosize() == 64);
  CHECK(l(37) == 37);
  CHECK(l({5, 0, 1}) == 37);
  const auto c = l.coord(37);
  CHECK((c[0] == 5 && c[1] == 0 && c[2] == 1));
  const Layout p = make_layout({8, 4, 2}, {8, 1, 32});
  CHECK(p.to_string() == "(8,4,2):(8,1,32)");
  CHECK(p(1) == 8);
  CHECK(p(8) == 1);
  CHECK(Layout{}.to_string() == "():()");
  CHECK(kRanks.to_string() == "(8,1,1,4,2):(1,8,8,8,32)");  // the header's example
  CHECK(group_offsets(kRanks, 3)->to_string() == "(8,2):(1,32)");
  CHECK(make_layout({3}, {0}).cosize() == 1);
  CHECK(make_layout({2, 3}, {1, 2}) != make_layout({6}, {1}));  // structural, not functional
  CHECK(p.shape(7) == 1);
  CHECK(p.stride(-1) == 0);  // out-of-range modes read as (1):(0)
  // Coordinates and offsets agree with the flat index on a non-compact layout.
  const Layout q = make_layout({3, 2, 4}, {5, 1, 7});
  for (int64_t i = 0; i < q.size(); ++i) {
    const auto ci = q.coord(i);
    CHECK(q(std::span<const int64_t>(ci.data(), 3)) == q(i));
    CHECK(ci[0] + 3 * ci[1] + 6 * ci[2] == i);
  }
}

TEST_CASE("layout: invalid construction is an error value") {
  struct Case {
    Ints shape;
    Ints stride;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {{2, 0}, {1, 2}, "shape"},
      {{2, 2}, {1, -1}, "stride"},
      {{2, 2}, {1}, "different ranks"},
      {{2, 2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, "more than 8"},
      {{int64_t{1} << 21, int64_t{1} << 21}, {1, 1}, "size"},
      {{2}, {int64_t{1} << 40}, "cosize"},
  };
  for (const Case& c : cases) {
    const auto r = try_make_layout(c.shape, c.stride);
    REQUIRE_FALSE(r.ok());
    CHECK(r.value() == Layout{});
    CHECK_MESSAGE(std::string(r.status().message()).find(c.needle) != std::string::npos,
                  r.status().message());
    CHECK(!r.status_or().ok());
  }
  CHECK(!try_make_layout(Ints{3, 0}).ok());
  // make_layout() on invalid input at run time gives the trivial layout.
  CHECK(make_layout(Ints{2, -1}) == Layout{});
  CHECK(try_make_layout({2, 3}).status_or().value() == make_layout({2, 3}, {1, 2}));
}

TEST_CASE("layout: complement tiles 0..M-1 exactly once") {
  const auto& pool = unary_pool();
  int64_t ok = 0;
  int64_t rejected = 0;
  int64_t rejected_injective_divisible = 0;
  for (const Layout& a : pool) {
    const Ints fa = offsets(a);
    Ints sorted = fa;
    std::sort(sorted.begin(), sorted.end());
    const bool injective = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    for (int64_t m = 1; m <= 2 * a.cosize() + 8; ++m) {
      const auto c = complement(a, m);
      if (!c.ok()) {
        ++rejected;
        CHECK(c.value() == Layout{});
        if (injective && m % a.size() == 0) ++rejected_injective_divisible;
        continue;
      }
      ++ok;
      REQUIRE_MESSAGE(injective, a.to_string());
      CHECK(a.size() * c->size() == m);
      // (A, C) is a bijection onto [0, M): every offset hit exactly once.
      const Ints fc = offsets(c.value());
      Ints sums;
      for (int64_t x : fc) {
        for (int64_t y : fa) sums.push_back(x + y);
      }
      REQUIRE_MESSAGE(bijective_onto(sums, m), a.to_string(), " M=", m, " C=", c->to_string());
      // Sorted strides, no trivial modes, increasing first offsets.
      for (int k = 0; k < c->rank(); ++k) {
        CHECK(c->shape(k) > 1);
        if (k > 0) CHECK(c->stride(k) > c->stride(k - 1));
      }
      CHECK(std::is_sorted(fc.begin(), fc.end()));
      // No two neighbouring modes could merge into one.
      for (int k = 1; k < c->rank(); ++k)
        CHECK(c->stride(k) != c->shape(k - 1) * c->stride(k - 1));
    }
  }
  MESSAGE("complement: ", ok, " admissible (A, M), ", rejected, " rejected (",
          rejected_injective_divisible, " with A injective and size(A) | M)");
  CHECK(ok > 40000);
}

TEST_CASE("layout: a rejected complement has no tiling at all (small M, brute force)") {
  // For injective A with size(A) | M <= 16 that complement() rejects, no layout C of
  // rank <= 3 with strides < M makes (A, C) a bijection onto [0, M).
  const auto pool = general_family(2, 4, {1, 2, 3, 4, 5, 6});
  int64_t cases = 0;
  for (const Layout& a : pool) {
    const Ints fa = offsets(a);
    Ints sorted = fa;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) continue;
    for (int64_t m = a.size(); m <= 16; m += a.size()) {
      if (complement(a, m).ok()) continue;
      ++cases;
      std::vector<Ints> facts;
      Ints cur;
      factorizations(m / a.size(), 3, cur, facts);
      Ints stride_values;
      for (int64_t d = 1; d < m; ++d) stride_values.push_back(d);
      for (const Ints& shape : facts) {
        for (const Ints& stride : strides_of_rank(static_cast<int>(shape.size()), stride_values)) {
          const Ints fc = offsets(must(shape, stride));
          Ints sums;
          for (int64_t x : fc) {
            for (int64_t y : fa) sums.push_back(x + y);
          }
          REQUIRE_FALSE_MESSAGE(bijective_onto(sums, m), a.to_string(), " M=", m);
        }
      }
    }
  }
  MESSAGE("complement completeness: ", cases, " rejected (A, M) confirmed untileable");
  CHECK(cases > 100);
}

TEST_CASE("layout: inverse") {
  const auto& pool = unary_pool();
  int64_t bijections = 0;
  int64_t others = 0;
  for (const Layout& l : pool) {
    const Ints f = offsets(l);
    const bool bij = bijective_onto(f, l.size());
    const auto inv = inverse(l);
    REQUIRE_MESSAGE(inv.ok() == bij, l.to_string());
    if (bij) {
      ++bijections;
      CHECK(inv->size() == l.size());
      CHECK(inv->cosize() == l.size());
      for (int64_t i = 0; i < l.size(); ++i) {
        CHECK(inv.value()(l(i)) == i);
        CHECK(l(inv.value()(i)) == i);
      }
      CHECK(offsets(inverse(inv.value()).value()) == offsets(l));
    } else {
      ++others;
    }
  }
  MESSAGE("inverse: ", bijections, " bijections, ", others, " others rejected");
  CHECK(bijections > 6000);
}

TEST_CASE("layout: rank ordering groups partition the world for every dim") {
  // Plans: 5 dims (tp, cp, ep, dp, pp). (a) every size in {1,2,3}^5 under all 120
  // orders; (b) every size in {1,2,3,4}^5 under 10 orders (the 5 rotations of
  // tp-cp-ep-dp-pp and of its reverse). For every dim and for the pair
  // {tp, pp}, the groups (offset + member) hit every rank of [0, world) once,
  // group_layout is the dim's mode, and offsets increase.
  std::vector<std::vector<int>> all_orders;
  {
    std::vector<int> p{0, 1, 2, 3, 4};
    do all_orders.push_back(p);
    while (std::next_permutation(p.begin(), p.end()));
  }
  std::vector<std::vector<int>> few_orders;
  for (int r = 0; r < 5; ++r) {
    std::vector<int> fwd, rev;
    for (int k = 0; k < 5; ++k) {
      fwd.push_back((k + r) % 5);
      rev.push_back((4 - k + r) % 5);
    }
    few_orders.push_back(fwd);
    few_orders.push_back(rev);
  }
  int64_t plans = 0;
  int64_t groups_checked = 0;
  auto check_plan = [&](const Ints& sizes, const std::vector<int>& order) {
    const auto rl = rank_layout(sizes, order);
    REQUIRE(rl.ok());
    const Layout& ranks = rl.value();
    const int64_t world = ranks.size();
    const Ints rank_of_index = offsets(ranks);
    REQUIRE(bijective_onto(rank_of_index, world));
    Ints index_of_rank(static_cast<size_t>(world));
    for (int64_t i = 0; i < world; ++i)
      index_of_rank[static_cast<size_t>(rank_of_index[static_cast<size_t>(i)])] = i;
    // Rank of coordinate: Megatron's convention, first in order fastest.
    int64_t probe = 0;
    int64_t scale = 1;
    Ints coord(5);
    for (int dim : order) {
      coord[static_cast<size_t>(dim)] = sizes[static_cast<size_t>(dim)] - 1;
      probe += (sizes[static_cast<size_t>(dim)] - 1) * scale;
      scale *= sizes[static_cast<size_t>(dim)];
    }
    CHECK(ranks(coord) == probe);
    std::vector<std::vector<int>> dim_sets = {{0}, {1}, {2}, {3}, {4}, {0, 4}};
    for (const auto& dims : dim_sets) {
      const Layout g = group_layout(ranks, dims);
      const auto off = group_offsets(ranks, dims);
      REQUIRE(off.ok());
      if (dims.size() == 1) {
        CHECK(g.shape(0) == sizes[static_cast<size_t>(dims[0])]);
        CHECK(g.stride(0) == ranks.stride(dims[0]));
      }
      CHECK(g(0) == 0);
      const Ints fo = offsets(off.value());
      CHECK(std::is_sorted(fo.begin(), fo.end()));
      Ints all;
      std::vector<int64_t> seen_group(static_cast<size_t>(world), -1);
      for (int64_t j = 0; j < off->size(); ++j) {
        for (int64_t m = 0; m < g.size(); ++m) {
          const int64_t rank = fo[static_cast<size_t>(j)] + g(m);
          all.push_back(rank);
          if (rank >= 0 && rank < world) seen_group[static_cast<size_t>(rank)] = j;
        }
      }
      REQUIRE(bijective_onto(all, world));
      // Group membership agrees with coordinates: two ranks share a group iff
      // their coordinates agree on every dim outside `dims`.
      Ints key_of_group(static_cast<size_t>(off->size()), -1);
      int64_t mismatches = 0;
      for (int64_t i = 0; i < world; ++i) {
        int64_t rest = index_of_rank[static_cast<size_t>(i)];
        int64_t key = 0;
        for (int k = 0; k < 5; ++k) {
          const int64_t c = rest % sizes[static_cast<size_t>(k)];
          rest /= sizes[static_cast<size_t>(k)];
          if (std::find(dims.begin(), dims.end(), k) == dims.end()) key = key * 8 + c;
        }
        int64_t& group_key = key_of_group[static_cast<size_t>(seen_group[static_cast<size_t>(i)])];
        if (group_key == -1) group_key = key;
        if (group_key != key) ++mismatches;
      }
      CHECK(mismatches == 0);
      std::sort(key_of_group.begin(), key_of_group.end());
      CHECK(std::adjacent_find(key_of_group.begin(), key_of_group.end()) == key_of_group.end());
      ++groups_checked;
    }
    ++plans;
  };
  for (const Ints& sizes : shapes_of_rank(5, 3)) {
    for (const auto& order : all_orders) check_plan(sizes, order);
  }
  for (const Ints& sizes : shapes_of_rank(5, 4)) {
    for (const auto& order : few_orders) check_plan(sizes, order);
  }
  MESSAGE("rank orderings: ", plans, " plans, ", groups_checked, " group kinds partition-checked");
  CHECK(plans == 243 * 120 + 1024 * 10);
}

TEST_CASE("layout: rank ordering errors are values") {
  CHECK_FALSE(rank_layout({2, 2}, {0, 0}).ok());
  CHECK_FALSE(rank_layout({2, 2}, {0}).ok());
  CHECK_FALSE(rank_layout({2, 2}, {0, 2}).ok());
  CHECK_FALSE(rank_layout({2, 0}, {0, 1}).ok());
  CHECK_FALSE(group_offsets(make_layout({2, 2}, {1, 1}), 0).ok());  // not a bijection
  CHECK_FALSE(group_offsets(make_layout({2, 2}), {0, 0}).ok());     // repeated dim
  const auto r = rank_layout({2, 2}, {1, 1});
  CHECK(std::string(r.status().message()).find("order") != std::string::npos);
  // The Megatron default order for tp=2, dp=2, pp=2 (cp = ep = 1) and a
  // pp-fastest order.
  CHECK(rank_layout({2, 1, 1, 2, 2}, {0, 1, 2, 3, 4})->to_string() == "(2,1,1,2,2):(1,2,2,2,4)");
  CHECK(rank_layout({2, 1, 1, 2, 2}, {4, 0, 1, 2, 3})->to_string() == "(2,1,1,2,2):(2,4,4,4,1)");
}

}  // namespace railyard_test_placement_layout_test
