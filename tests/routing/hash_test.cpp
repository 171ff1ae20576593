#include "railyard/routing/hash.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../support/clusters.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_hash_test {

using namespace railyard;
using namespace railyard::routing;

// The standard check values, at compile time.
static_assert(crc32(CrcPolynomial::kCrc32, std::string_view("123456789")) == 0xCBF43926u);
static_assert(crc32(CrcPolynomial::kCrc32c, std::string_view("123456789")) == 0xE3069283u);
static_assert(railyard::routing::detail::kCrc32Table[1] ==
              0x77073096u);  // first non-zero entry of the IEEE table
static_assert(railyard::routing::detail::kCrc32cTable[1] == 0xF26B8303u);

namespace {

// Every model under test, by name. The measured table lists a few entries so
// that both its table and its fallback paths are exercised.
std::vector<std::unique_ptr<HashModel>> all_models() {
  std::vector<std::unique_ptr<HashModel>> out;
  out.push_back(std::make_unique<UniformRandomHash>(11));
  out.push_back(std::make_unique<Crc5TupleHash>(11, CrcPolynomial::kCrc32));
  out.push_back(std::make_unique<Crc5TupleHash>(11, CrcPolynomial::kCrc32c));
  out.push_back(std::make_unique<QpAwareHash>(11));
  auto table = MeasuredTableHash::parse("src_leaf_up 0 0xC001 3\nspine_down 7 0xC002 1\n", 11);
  REQUIRE(table.ok());
  out.push_back(std::make_unique<MeasuredTableHash>(*table));
  return out;
}

// Random distinct-looking flows: addresses in 10/8, RoCEv2 source ports, QPs.
FiveTuple random_tuple(std::mt19937_64& rng) {
  FiveTuple t;
  t.src_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
  t.dst_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
  t.src_port = static_cast<uint16_t>(kSportBase | (rng() & 0x3FFF));
  t.dst_qp = static_cast<uint32_t>(rng() & 0xFFFFFF);
  return t;
}

// Pearson chi-square of `counts` against a uniform expectation.
double chi_square_uniform(const std::vector<int64_t>& counts) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  const double expected = static_cast<double>(total) / static_cast<double>(counts.size());
  double chi = 0;
  for (int64_t c : counts)
    chi += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return chi;
}

// A bound a uniform sample exceeds with negligible probability: mean + 6 sd of
// the chi-square distribution with `dof` degrees of freedom.
double chi_square_bound(int64_t dof) {
  return static_cast<double>(dof) + 6.0 * std::sqrt(2.0 * static_cast<double>(dof));
}

}  // namespace

TEST_CASE("hash: CRC-32 and CRC-32C match their check values at run time too") {
  const std::string check("123456789");
  const std::vector<uint8_t> bytes(check.begin(), check.end());
  CHECK(crc32(CrcPolynomial::kCrc32, bytes) == 0xCBF43926u);
  CHECK(crc32(CrcPolynomial::kCrc32c, bytes) == 0xE3069283u);
  CHECK(crc32(CrcPolynomial::kCrc32, std::string_view(check)) == 0xCBF43926u);
  // Empty input: the two inversions cancel.
  CHECK(crc32(CrcPolynomial::kCrc32, std::string_view()) == 0u);
}

TEST_CASE("hash: pack_tuple writes the 5-tuple in network byte order") {
  FiveTuple t{0x0A000102, 0x0A000304, 0xC123, kRoceV2Port, kUdpProtocol, 0xABCDEF};
  std::array<uint8_t, 16> b{};
  REQUIRE(pack_tuple(t, false, b) == 13);
  const std::array<uint8_t, 13> want{0x0A, 0x00, 0x01, 0x02, 0x0A, 0x00, 0x03,
                                     0x04, 0xC1, 0x23, 0x12, 0xB7, 17};
  for (size_t i = 0; i < want.size(); ++i) CHECK(b[i] == want[i]);
  REQUIRE(pack_tuple(t, true, b) == 16);
  CHECK(b[13] == 0xAB);
  CHECK(b[14] == 0xCD);
  CHECK(b[15] == 0xEF);
}

TEST_CASE("hash: picks are deterministic, in range and named") {
  std::mt19937_64 rng(1);
  const auto models = all_models();
  const auto again = all_models();  // independently constructed, same arguments
  for (size_t m = 0; m < models.size(); ++m) {
    const HashModel& model = *models[m];
    CAPTURE(std::string(model.name()));
    CHECK(!model.name().empty());
    CHECK(model.steerable() == (model.name() != "random"));
    for (int i = 0; i < 2000; ++i) {
      const FiveTuple t = random_tuple(rng);
      const EcmpHop hop{static_cast<HopKind>(i % 4), SwitchIndex{i % 97},
                        static_cast<int32_t>(2 + i % 127)};
      const int32_t p = model.pick(hop, t);
      CHECK(p >= 0);
      CHECK(p < hop.candidates);
      CHECK(model.pick(hop, t) == p);
      CHECK(again[m]->pick(hop, t) == p);
    }
  }
  // Seeds matter: two seeds disagree on about (1 - 1/32) of the flows.
  UniformRandomHash r1(1), r2(2);
  Crc5TupleHash c1(1), c2(2);
  int differ_random = 0, differ_crc = 0;
  for (int i = 0; i < 1000; ++i) {
    const FiveTuple t = random_tuple(rng);
    const EcmpHop hop{HopKind::kSrcLeafUp, SwitchIndex{3}, 32};
    differ_random += r1.pick(hop, t) != r2.pick(hop, t);
    differ_crc += c1.pick(hop, t) != c2.pick(hop, t);
  }
  CHECK(differ_random > 930);
  CHECK(differ_crc > 930);
}

TEST_CASE("hash: picks are uniform over 2 to 128 candidates (chi-square)") {
  const auto models = all_models();
  std::vector<std::unique_ptr<HashModel>> modulo;
  modulo.push_back(std::make_unique<Crc5TupleHash>(5, CrcPolynomial::kCrc32, CrcFinish::kModulo));
  modulo.push_back(std::make_unique<Crc5TupleHash>(5, CrcPolynomial::kCrc32c, CrcFinish::kModulo));
  using ModelList = std::vector<std::unique_ptr<HashModel>>;
  for (const ModelList* set : std::array<const ModelList*, 2>{&models, &modulo}) {
    for (const auto& model : *set) {
      CAPTURE(std::string(model->name()));
      std::mt19937_64 rng(7);
      for (int32_t m : {2, 3, 5, 7, 8, 12, 16, 24, 31, 32, 48, 64, 96, 100, 127, 128}) {
        CAPTURE(m);
        std::vector<int64_t> counts(static_cast<size_t>(m));
        const EcmpHop hop{HopKind::kSrcLeafUp, SwitchIndex{m}, m};
        for (int64_t i = 0; i < 200 * int64_t{m}; ++i)
          ++counts[static_cast<size_t>(model->pick(hop, random_tuple(rng)))];
        CHECK(chi_square_uniform(counts) < chi_square_bound(m - 1));
      }
    }
  }
  // Only the source port varies (one connection re-pathed): still uniform.
  const FiveTuple base{0x0A000001, 0x0A000101, kSportBase, kRoceV2Port, kUdpProtocol, 0x42};
  for (const auto& model : models) {
    CAPTURE(std::string(model->name()));
    for (int32_t m : {3, 32, 100, 128}) {
      CAPTURE(m);
      std::vector<int64_t> counts(static_cast<size_t>(m));
      FiveTuple t = base;
      for (int p = 0; p < kSportCount; ++p) {
        t.src_port = static_cast<uint16_t>(kSportBase + p);
        ++counts[static_cast<size_t>(model->pick({HopKind::kSrcSpineUp, SwitchIndex{1}, m}, t))];
      }
      CHECK(chi_square_uniform(counts) < chi_square_bound(m - 1));
    }
  }
}

TEST_CASE("hash: per-switch seeds make switches pick independently") {
  // All 16,384 source ports of one connection, seen by two switches with 32
  // candidates each: the 32 x 32 joint table is uniform (chi-square), and the
  // two agree on about 1/32 of the ports.
  const FiveTuple base{0x0A000001, 0x0A000207, kSportBase, kRoceV2Port, kUdpProtocol, 0x77};
  const std::array<std::pair<EcmpHop, EcmpHop>, 4> pairs{{
      {{HopKind::kSrcLeafUp, SwitchIndex{0}, 32}, {HopKind::kSrcLeafUp, SwitchIndex{1}, 32}},
      {{HopKind::kSrcLeafUp, SwitchIndex{0}, 32}, {HopKind::kSrcSpineUp, SwitchIndex{0}, 32}},
      {{HopKind::kSrcLeafUp, SwitchIndex{5}, 32}, {HopKind::kSrcSpineUp, SwitchIndex{17}, 32}},
      {{HopKind::kSrcSpineUp, SwitchIndex{3}, 32}, {HopKind::kCoreDown, SwitchIndex{3}, 32}},
  }};
  const auto models = all_models();
  for (const auto& model : models) {
    CAPTURE(std::string(model->name()));
    for (const auto& [a, b] : pairs) {
      std::vector<int64_t> joint(32 * 32);
      int64_t agree = 0;
      FiveTuple t = base;
      for (int p = 0; p < kSportCount; ++p) {
        t.src_port = static_cast<uint16_t>(kSportBase + p);
        const int32_t pa = model->pick(a, t);
        const int32_t pb = model->pick(b, t);
        ++joint[static_cast<size_t>(pa * 32 + pb)];
        agree += pa == pb;
      }
      CHECK(chi_square_uniform(joint) < chi_square_bound(32 * 32 - 1));
      CHECK(agree > kSportCount / 32 - 5 * 23);  // sd of Binomial(16384, 1/32) ~ 22
      CHECK(agree < kSportCount / 32 + 5 * 23);
    }
  }
}

TEST_CASE("hash: plain crc mod candidates polarizes, as documented") {
  // With kModulo two switches differ only by a constant XOR of the CRC, so over
  // a power-of-two candidate count one switch's pick fixes the other's.
  Crc5TupleHash modulo(9, CrcPolynomial::kCrc32, CrcFinish::kModulo);
  const EcmpHop a{HopKind::kSrcLeafUp, SwitchIndex{0}, 32};
  const EcmpHop b{HopKind::kSrcSpineUp, SwitchIndex{4}, 32};
  FiveTuple t{0x0A000001, 0x0A000207, kSportBase, kRoceV2Port, kUdpProtocol, 0};
  const int32_t offset = modulo.pick(a, t) ^ modulo.pick(b, t);
  bool all_polarized = true;
  for (int p = 0; p < kSportCount; ++p) {
    t.src_port = static_cast<uint16_t>(kSportBase + p);
    all_polarized = all_polarized && ((modulo.pick(a, t) ^ modulo.pick(b, t)) == offset);
    CHECK(modulo.pick(a, t) == static_cast<int32_t>(modulo.crc(a, t) % 32));
  }
  CHECK(all_polarized);
}

TEST_CASE("hash: QP-aware hashing spreads QPs that share a source port") {
  Crc5TupleHash crc(3);
  QpAwareHash qp(crc);
  CHECK(qp.seed() == 3);
  const EcmpHop hop{HopKind::kSrcLeafUp, SwitchIndex{2}, 16};
  FiveTuple t{0x0A000001, 0x0A000207, 0xC555, kRoceV2Port, kUdpProtocol, 0};
  std::vector<int64_t> counts(16);
  const int32_t crc_pick = crc.pick(hop, t);
  bool crc_ignores_qp = true;
  for (uint32_t q = 0; q < 4096; ++q) {
    t.dst_qp = q * 0x1F3 + 0x100;
    crc_ignores_qp = crc_ignores_qp && crc.pick(hop, t) == crc_pick;
    ++counts[static_cast<size_t>(qp.pick(hop, t))];
  }
  CHECK(crc_ignores_qp);
  CHECK(chi_square_uniform(counts) < chi_square_bound(15));
  // Only the low 24 bits of the QP count.
  t.dst_qp = 0x123456;
  FiveTuple high = t;
  high.dst_qp = 0xFF123456;
  CHECK(qp.pick(hop, t) == qp.pick(hop, high));
}

TEST_CASE("hash: find_sport realizes every 2-hop path on h100-1024") {
  const auto desc = railyard::testing::descriptor_of("h100-1024");
  const NicPort a{HostId{0}, NicIndex{0}};
  const NicPort b{HostId{40}, NicIndex{0}};
  const std::vector<EcmpHop> hops = ecmp_hops(desc, a, b);
  REQUIRE(hops.size() == 2);
  const FiveTuple base = rocev2_tuple(desc, a, b, kSportBase, 0x51);
  const auto models = all_models();
  for (const auto& model : models) {
    CAPTURE(std::string(model->name()));
    if (!model->steerable()) {
      const std::array<int32_t, 2> wanted{0, 0};
      CHECK_FALSE(find_sport(*model, hops, wanted, base).has_value());
      continue;
    }
    for (int32_t u = 0; u < hops[0].candidates; ++u) {
      for (int32_t d = 0; d < hops[1].candidates; ++d) {
        const std::array<int32_t, 2> wanted{u, d};
        const auto sport = find_sport(*model, hops, wanted, base, static_cast<uint16_t>(u * 97));
        REQUIRE(sport.has_value());
        CHECK(*sport >= kSportBase);
        FiveTuple t = base;
        t.src_port = *sport;
        CHECK(model->pick(hops[0], t) == u);
        CHECK(model->pick(hops[1], t) == d);
      }
    }
  }
}

TEST_CASE("hash: find_sport on 3-hop cross-pod paths of h100-16k-3tier") {
  const auto desc = railyard::testing::descriptor_of("h100-16k-3tier");
  const NicPort a{HostId{0}, NicIndex{3}};
  const NicPort b{HostId{1000}, NicIndex{3}};
  const std::vector<EcmpHop> hops = ecmp_hops(desc, a, b);
  REQUIRE(hops.size() >= 3);
  int64_t combos = 1;
  for (const EcmpHop& h : hops) combos *= h.candidates;
  const FiveTuple base = rocev2_tuple(desc, a, b, kSportBase, 0x1234);
  Crc5TupleHash crc(21);
  // Brute force: how many ports realize each path.
  std::vector<int32_t> ports_per_path(static_cast<size_t>(combos));
  FiveTuple t = base;
  for (int p = 0; p < kSportCount; ++p) {
    t.src_port = static_cast<uint16_t>(kSportBase + p);
    int64_t index = 0;
    for (const EcmpHop& h : hops) index = index * h.candidates + crc.pick(h, t);
    ++ports_per_path[static_cast<size_t>(index)];
  }
  // 14 bits of entropy against log2(combos) bits of path choice: a few paths
  // have no port at all; find_sport must say so exactly then.
  int64_t found = 0;
  std::vector<int32_t> wanted(hops.size());
  for (int64_t index = 0; index < combos; index += 7) {
    int64_t rest = index;
    for (size_t h = hops.size(); h-- > 0;) {
      wanted[h] = static_cast<int32_t>(rest % hops[h].candidates);
      rest /= hops[h].candidates;
    }
    const auto sport = find_sport(crc, hops, wanted, base);
    REQUIRE(sport.has_value() == (ports_per_path[static_cast<size_t>(index)] > 0));
    if (!sport) continue;
    ++found;
    t.src_port = *sport;
    for (size_t h = 0; h < hops.size(); ++h) CHECK(crc.pick(hops[h], t) == wanted[h]);
  }
  // Expected share of reachable paths: 1 - exp(-16384 / combos).
  const double reachable =
      1.0 - std::exp(-static_cast<double>(kSportCount) / static_cast<double>(combos));
  const double share = static_cast<double>(found) / static_cast<double>((combos + 6) / 7);
  CHECK(share == doctest::Approx(reachable).epsilon(0.03));
}

TEST_CASE("hash: find_sport rejects bad requests and honours the start offset") {
  Crc5TupleHash crc(1);
  const std::array<EcmpHop, 2> hops{
      {{HopKind::kSrcLeafUp, SwitchIndex{0}, 8}, {HopKind::kSpineDown, SwitchIndex{0}, 2}}};
  const FiveTuple base{0x0A000001, 0x0A000207, kSportBase, kRoceV2Port, kUdpProtocol, 0};
  CHECK_FALSE(find_sport(crc, hops, std::array<int32_t, 1>{0}, base).has_value());
  CHECK_FALSE(find_sport(crc, hops, std::array<int32_t, 2>{8, 0}, base).has_value());
  CHECK_FALSE(find_sport(crc, hops, std::array<int32_t, 2>{-1, 0}, base).has_value());
  // No hops: the first port tried.
  CHECK(find_sport(crc, std::span<const EcmpHop>(), std::span<const int32_t>(), base, 5) ==
        std::optional<uint16_t>(kSportBase + 5));
  // The answer is the first matching port at or after start (cyclically).
  const std::array<int32_t, 2> wanted{3, 1};
  for (uint16_t start : {uint16_t{0}, uint16_t{1000}, uint16_t{16383}}) {
    const auto sport = find_sport(crc, hops, wanted, base, start);
    REQUIRE(sport.has_value());
    FiveTuple t = base;
    for (int i = 0; i < kSportCount; ++i) {
      t.src_port = static_cast<uint16_t>(kSportBase | ((start + i) & 0x3FFF));
      if (crc.pick(hops[0], t) == 3 && crc.pick(hops[1], t) == 1) break;
    }
    CHECK(*sport == t.src_port);
  }
}

TEST_CASE("hash: measured table errors name the line and the token") {
  struct Bad {
    const char* text;
    std::vector<std::string> says;
  };
  const std::vector<Bad> bad{
      {"src_leaf_up 0 0xC000 1\nleaf_up 0 0xC001 1\n", {"line 2", "token 1", "leaf_up", "kind"}},
      {"src_leaf_up x 0xC000 1", {"line 1", "token 2", "'x'", "switch_index"}},
      {"# header\n\nsrc_leaf_up -3 0xC000 1", {"line 3", "token 2", "'-3'"}},
      {"spine_down 0 0xBFFF 1", {"line 1", "token 3", "0xBFFF", "0xC000..0xFFFF"}},
      {"spine_down 0 1000 1", {"line 1", "token 3", "'1000'", "0xC000..0xFFFF"}},
      {"spine_down 0 0x1C000 1", {"line 1", "token 3", "0x1C000"}},
      {"spine_down 0 49152z 1", {"line 1", "token 3", "49152z"}},
      {"core_down 2 0xC000 -1", {"line 1", "token 4", "'-1'", "negative"}},
      {"core_down 2 0xC000 two", {"line 1", "token 4", "'two'", "uplink"}},
      {"core_down 2 0xC000", {"line 1", "expected 4 tokens", "got 3"}},
      {"core_down 2 0xC000 1 9", {"line 1", "token 5", "'9'"}},
      {"src_spine_up 1 0xC00A 2\n\nsrc_spine_up 1 49162 3\n",
       {"line 3", "duplicate", "first given on line 1"}},
      {"src_leaf_up 99999999999 0xC000 1", {"line 1", "token 2", "99999999999"}},
  };
  for (const Bad& b : bad) {
    CAPTURE(std::string(b.text));
    const auto parsed = MeasuredTableHash::parse(b.text);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message = railyard::testing::message_text(parsed.status());
    for (const std::string& s : b.says) {
      CAPTURE(message);
      CAPTURE(s);
      CHECK(message.find(s) != std::string::npos);
    }
  }
  // from_entries applies the same checks.
  using Entry = MeasuredTableHash::Entry;
  CHECK_FALSE(
      MeasuredTableHash::from_entries({{HopKind::kCoreDown, SwitchIndex{0}, 0x100, 1}}).ok());
  CHECK_FALSE(
      MeasuredTableHash::from_entries({{HopKind::kCoreDown, SwitchIndex{0}, 0xC000, -1}}).ok());
  CHECK_FALSE(
      MeasuredTableHash::from_entries({Entry{HopKind::kCoreDown, SwitchIndex{0}, 0xC000, 1},
                                       Entry{HopKind::kCoreDown, SwitchIndex{0}, 0xC000, 2}})
          .ok());
}

TEST_CASE("hash: measured table round trip, lookups and fallback") {
  const std::string text(
      "# measured on leaf 3 and spine 17\n"
      "src_leaf_up 3 0xC001 17   # trailing comment\n"
      "\n"
      "\tspine_down 17 49154 1\r\n"
      "src_leaf_up 3 0xc000 40\n"
      "core_down 0 0xFFFF 0\n");
  const auto table = MeasuredTableHash::parse(text, 5);
  REQUIRE(table.ok());
  REQUIRE(table->entries().size() == 4);
  // Sorted by (kind, switch, sport).
  CHECK(table->entries()[0].sport == 0xC000);
  CHECK(table->entries()[1].sport == 0xC001);
  CHECK(table->entries()[3].kind == HopKind::kSpineDown);

  const auto again = MeasuredTableHash::parse(table->to_text(), 5);
  REQUIRE(again.ok());
  REQUIRE(again->entries().size() == table->entries().size());
  for (size_t i = 0; i < table->entries().size(); ++i)
    CHECK(again->entries()[i] == table->entries()[i]);
  CHECK(again->to_text() == table->to_text());

  FiveTuple t{0x0A000001, 0x0A000207, 0xC001, kRoceV2Port, kUdpProtocol, 0};
  const EcmpHop leaf{HopKind::kSrcLeafUp, SwitchIndex{3}, 32};
  CHECK(table->pick(leaf, t) == 17);
  t.src_port = 0xC002;  // not listed at the leaf: the fallback CRC-32
  CHECK(table->pick(leaf, t) == Crc5TupleHash(5).pick(leaf, t));
  CHECK(table->pick({HopKind::kSpineDown, SwitchIndex{17}, 2}, t) == 1);
  // Listed uplink 40 >= 32 candidates: falls back instead of crashing.
  t.src_port = 0xC000;
  CHECK(table->pick(leaf, t) == Crc5TupleHash(5).pick(leaf, t));
  CHECK(table->out_of_range_entries(leaf) == 1);
  CHECK(table->pick({HopKind::kSrcLeafUp, SwitchIndex{3}, 64}, t) == 40);
  CHECK(table->find(HopKind::kCoreDown, SwitchIndex{0}, 0xFFFF) != nullptr);
  CHECK(table->find(HopKind::kCoreDown, SwitchIndex{1}, 0xFFFF) == nullptr);

  // find_sport sees the table: starting at 0xC001, the listed port is the
  // first one tried and sends the flow to uplink 17.
  const std::array<EcmpHop, 1> hops{leaf};
  const std::array<int32_t, 1> wanted{17};
  const auto sport = find_sport(*table, hops, wanted, t, 1);
  REQUIRE(sport.has_value());
  CHECK(*sport == 0xC001);

  // An empty table is all fallback; from_entries builds the same table.
  const auto empty = MeasuredTableHash::parse("# nothing\n\n", 5);
  REQUIRE(empty.ok());
  CHECK(empty->entries().empty());
  CHECK(empty->pick(leaf, t) == Crc5TupleHash(5).pick(leaf, t));
  std::vector<MeasuredTableHash::Entry> entries(table->entries().begin(), table->entries().end());
  std::reverse(entries.begin(), entries.end());
  const auto built = MeasuredTableHash::from_entries(entries, 5);
  REQUIRE(built.ok());
  CHECK(built->to_text() == table->to_text());
}

TEST_CASE("hash: hop kind tokens round trip") {
  for (HopKind k :
       {HopKind::kSrcLeafUp, HopKind::kSrcSpineUp, HopKind::kCoreDown, HopKind::kSpineDown})
    CHECK(parse_hop_kind(hop_kind_token(k)) == k);
  CHECK_FALSE(parse_hop_kind("leaf").has_value());
}

TEST_CASE("hash: parse_hash_model by name, errors carry the field and the whole name") {
  for (const char* name : {"crc32", "crc32c", "qp", "random"}) {
    auto model = parse_hash_model("hash", name, 7);
    REQUIRE_MESSAGE(model.ok(), name);
    CHECK(*model != nullptr);
  }
  CHECK((*parse_hash_model("hash", "random", 7))->name() == "random");
  CHECK_FALSE((*parse_hash_model("hash", "random", 7))->steerable());
  CHECK((*parse_hash_model("hash", "qp", 7))->steerable());

  auto unknown = parse_hash_model("hash", "CRC32", 7);
  CHECK(std::string(unknown.status().message()) ==
        "hash=CRC32: unknown model (crc32, crc32c, qp, random, table:FILE)");
  CHECK(railyard::error_field(unknown.status())->field == "hash");

  auto missing = parse_hash_model("hash", "table:/nonexistent/t.txt", 7);
  CHECK(std::string(missing.status().message()) ==
        "hash=table:/nonexistent/t.txt: cannot open the file");
  CHECK(railyard::error_field(missing.status())->value == "table:/nonexistent/t.txt");
  CHECK(std::string(parse_hash_model("hash", "table:", 7).status().message()) ==
        "hash=table:: the file name is empty");
}

}  // namespace railyard_test_routing_hash_test
