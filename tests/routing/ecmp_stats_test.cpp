#include "railyard/routing/ecmp_stats.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "railyard/routing/hash.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_ecmp_stats_test {

using namespace railyard::routing;

namespace {

// Monte Carlo budget for the table of docs/constants.md#ecmp: 20,000 throws per cell in
// optimized builds; sanitized debug builds (CI) run a quarter of that. The
// E[max] k=1 column gets 200,000 throws in both (they are cheap): its n=64
// entry, 3.94, sits 0.018 below the exact 3.958, so the ±0.02 check there has
// only 0.002 of slack and needs a standard error of ~0.0016.
#ifdef NDEBUG
constexpr int64_t kTableTrials = 20000;
#else
constexpr int64_t kTableTrials = 5000;
#endif
constexpr int64_t kMaxColumnTrials = 200000;
constexpr int64_t kSeeds = 4;

// Every assignment of `balls` balls to `m` bins, enumerated: E[max bin count].
double brute_force_expected_max(int64_t balls, int64_t m) {
  int64_t assignments = 1;
  for (int64_t i = 0; i < balls; ++i) assignments *= m;
  int64_t sum = 0;
  std::vector<int64_t> bins(static_cast<size_t>(m));
  for (int64_t a = 0; a < assignments; ++a) {
    std::fill(bins.begin(), bins.end(), 0);
    int64_t code = a;
    for (int64_t i = 0; i < balls; ++i, code /= m) ++bins[static_cast<size_t>(code % m)];
    sum += *std::max_element(bins.begin(), bins.end());
  }
  return static_cast<double>(sum) / static_cast<double>(assignments);
}

// docs/constants.md#ecmp: n = m, E[max] for k = 1 and the efficiency for k = 1, 4, 16.
struct Row {
  int64_t n;
  double max_k1;
  double eff_k1;
  double eff_k4;
  double eff_k16;
};
constexpr std::array<Row, 5> kFactsTable{{
    {8, 2.61, 0.38, 0.57, 0.73},
    {16, 3.09, 0.32, 0.51, 0.68},
    {32, 3.53, 0.28, 0.46, 0.64},
    {64, 3.94, 0.25, 0.43, 0.61},
    {128, 4.38, 0.23, 0.40, 0.59},
}};

// The mean of expected_max_load over kSeeds seeds, `trials` throws in all.
double mean_max_load(int64_t n, int64_t k, int64_t trials = kTableTrials) {
  double sum = 0;
  for (int64_t s = 0; s < kSeeds; ++s)
    sum += expected_max_load(n, n, k, trials / kSeeds, static_cast<uint64_t>(1000 + s));
  return sum / static_cast<double>(kSeeds);
}

}  // namespace

TEST_CASE("ecmp_stats: expected_used_links matches its closed form and enumeration") {
  CHECK(expected_used_links(0, 8) == 0.0);
  CHECK(expected_used_links(1, 8) == doctest::Approx(1.0));
  CHECK(expected_used_links(5, 1) == doctest::Approx(1.0));
  for (int64_t m : {2, 8, 32, 128, 4096})
    for (int64_t n : {1, 3, 8, 32, 128, 1000}) {
      const double direct =
          static_cast<double>(m) *
          (1.0 - std::pow(1.0 - 1.0 / static_cast<double>(m), static_cast<double>(n)));
      CHECK(expected_used_links(n, m) == doctest::Approx(direct).epsilon(1e-12));
      CHECK(expected_used_links(n, m) <= static_cast<double>(std::min(n, m)) + 1e-9);
    }
  // Enumeration: 3 bins, 4 balls.
  int64_t used_sum = 0;
  for (int64_t a = 0; a < 81; ++a) {
    std::array<int, 3> bins{};
    for (int64_t i = 0, c = a; i < 4; ++i, c /= 3) ++bins[static_cast<size_t>(c % 3)];
    used_sum += (bins[0] > 0) + (bins[1] > 0) + (bins[2] > 0);
  }
  CHECK(expected_used_links(4, 3) == doctest::Approx(static_cast<double>(used_sum) / 81.0));
  CHECK(expected_used_links(32, 32) == doctest::Approx(20.41).epsilon(0.001));
}

TEST_CASE("ecmp_stats: exact expected max load matches brute-force enumeration") {
  // (n, m, k) with n·k balls small enough to enumerate every assignment.
  const std::array<std::array<int64_t, 3>, 8> cases{
      {{1, 4, 1}, {2, 2, 1}, {3, 3, 1}, {4, 4, 1}, {6, 3, 1}, {2, 4, 2}, {2, 2, 4}, {8, 4, 1}}};
  for (const auto& [n, m, k] : cases) {
    CAPTURE(n);
    CAPTURE(m);
    CAPTURE(k);
    const double brute = brute_force_expected_max(n * k, m) / static_cast<double>(k);
    CHECK(expected_max_load_exact(n, m, k) == doctest::Approx(brute).epsilon(1e-9));
    // The Monte Carlo estimate converges on it.
    CHECK(expected_max_load(n, m, k, 20000, 3) == doctest::Approx(brute).epsilon(0.02));
  }
  CHECK(expected_max_load_exact(5, 1, 1) == doctest::Approx(5.0));
  CHECK(expected_max_load_exact(1, 100, 1) == doctest::Approx(1.0));
}

TEST_CASE("ecmp_stats: reproduces the published balls-into-bins table (docs/constants.md#ecmp)") {
  for (const Row& row : kFactsTable) {
    CAPTURE(row.n);
    const double max1 = mean_max_load(row.n, 1, kMaxColumnTrials);
    const double eff1 = static_cast<double>(row.n) / static_cast<double>(row.n) / max1;
    const double eff4 = 1.0 / mean_max_load(row.n, 4);
    const double eff16 = 1.0 / mean_max_load(row.n, 16);
    MESSAGE("n=m=", row.n, ": E[max] k=1 ", max1, " (table ", row.max_k1, "), eff k=1 ", eff1, " (",
            row.eff_k1, "), k=4 ", eff4, " (", row.eff_k4, "), k=16 ", eff16, " (", row.eff_k16,
            ")");
    CHECK(std::abs(max1 - row.max_k1) <= 0.02 + 1e-9);
    CHECK(std::abs(eff1 - row.eff_k1) <= 0.02);
    CHECK(std::abs(eff4 - row.eff_k4) <= 0.02);
    CHECK(std::abs(eff16 - row.eff_k16) <= 0.02);
    // The k = 1 column computed exactly: no sampling error at all; the Monte
    // Carlo mean is within 4 standard errors (sd of the max < 1) of it.
    const double exact = expected_max_load_exact(row.n, row.n, 1);
    CHECK(std::abs(exact - row.max_k1) <= 0.02);
    CHECK(std::abs(max1 - exact) <= 4.0 / std::sqrt(static_cast<double>(kMaxColumnTrials)));
    // synchronized_efficiency is the same ratio.
    CHECK(synchronized_efficiency(row.n, row.n, 4, kTableTrials / kSeeds, 1000) ==
          doctest::Approx(1.0 / expected_max_load(row.n, row.n, 4, kTableTrials / kSeeds, 1000)));
  }
}

TEST_CASE("ecmp_stats: Monte Carlo agrees with the exact value beyond the table") {
  // Non-square cases and k > 1, against the independent exact computation.
  const std::array<std::array<int64_t, 3>, 5> cases{
      {{8, 8, 4}, {16, 32, 1}, {48, 16, 1}, {24, 12, 4}, {10, 7, 3}}};
  for (const auto& [n, m, k] : cases) {
    CAPTURE(n);
    CAPTURE(m);
    CAPTURE(k);
    const double exact = expected_max_load_exact(n, m, k);
    CHECK(expected_max_load(n, m, k, kTableTrials, 5) == doctest::Approx(exact).epsilon(0.01));
  }
}

TEST_CASE("ecmp_stats: efficiency lies in 0..1, rises with QPs and falls with size") {
  double previous_n = 1.0;
  for (int64_t n : {8, 32, 128}) {
    double previous_k = 0.0;
    for (int64_t k : {1, 2, 4, 16, 64}) {
      const double eff = synchronized_efficiency(n, n, k, 500, 9);
      CHECK(eff > 0.0);
      CHECK(eff <= 1.0);
      CHECK(eff > previous_k);
      previous_k = eff;
    }
    const double eff1 = synchronized_efficiency(n, n, 1, 2000, 9);
    CHECK(eff1 < previous_n);
    previous_n = eff1;
  }
  // One link: everything on it, efficiency exactly 1.
  CHECK(synchronized_efficiency(7, 1, 3, 10, 1) == doctest::Approx(1.0));
  // Deterministic in the seed.
  CHECK(expected_max_load(32, 32, 4, 100, 77) == expected_max_load(32, 32, 4, 100, 77));
  CHECK(expected_max_load(32, 32, 4, 100, 77) != expected_max_load(32, 32, 4, 100, 78));
  // Bad arguments give 0, not a crash.
  CHECK(expected_max_load(0, 8, 1, 10, 1) == 0.0);
  CHECK(synchronized_efficiency(8, 0, 1, 10, 1) == 0.0);
}

TEST_CASE("ecmp_stats: CRC and random hashes behave like balls into bins") {
  // n flows with random addresses and source ports, each split over k QPs with
  // their own source ports, thrown onto m uplinks of one leaf through pick():
  // the efficiency matches the balls-into-bins model.
  std::vector<std::unique_ptr<HashModel>> models;
  models.push_back(std::make_unique<UniformRandomHash>(3));
  models.push_back(std::make_unique<Crc5TupleHash>(3, CrcPolynomial::kCrc32));
  models.push_back(std::make_unique<Crc5TupleHash>(3, CrcPolynomial::kCrc32c));
  models.push_back(std::make_unique<QpAwareHash>(3));
  constexpr int64_t kTrials = 1000;
  for (const auto& model : models) {
    CAPTURE(std::string(model->name()));
    std::mt19937_64 rng(17);
    for (int32_t m : {8, 32, 64}) {
      for (int64_t k : {1, 4}) {
        CAPTURE(m);
        CAPTURE(k);
        std::vector<int64_t> bins(static_cast<size_t>(m));
        int64_t sum_max = 0;
        for (int64_t trial = 0; trial < kTrials; ++trial) {
          std::fill(bins.begin(), bins.end(), 0);
          // A different leaf each trial, as in a fabric of many leaves.
          const EcmpHop hop{HopKind::kSrcLeafUp, railyard::SwitchIndex{static_cast<int32_t>(trial)},
                            m};
          for (int32_t f = 0; f < m; ++f) {
            FiveTuple t;
            t.src_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
            t.dst_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
            for (int64_t q = 0; q < k; ++q) {
              t.src_port = static_cast<uint16_t>(kSportBase | (rng() & 0x3FFF));
              t.dst_qp = static_cast<uint32_t>(rng() & 0xFFFFFF);
              ++bins[static_cast<size_t>(model->pick(hop, t))];
            }
          }
          sum_max += *std::max_element(bins.begin(), bins.end());
        }
        const double max_load =
            static_cast<double>(sum_max) / static_cast<double>(kTrials) / static_cast<double>(k);
        const double eff_model = 1.0 / max_load;
        const double eff_bins = synchronized_efficiency(m, m, k, kTableTrials, 23);
        CHECK(std::abs(eff_model - eff_bins) <= 0.03);
      }
    }
  }
}

}  // namespace railyard_test_routing_ecmp_stats_test
