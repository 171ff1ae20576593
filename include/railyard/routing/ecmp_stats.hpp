// railyard/routing/ecmp_stats.hpp — what to expect from ECMP when the hash is
// unknown: flows thrown into uplinks like balls into bins (docs/models.md#routing).
//
//   using namespace railyard::routing;
//   double used = expected_used_links(32, 32);          // 20.4 of 32 uplinks carry a flow
//   double worst = expected_max_load(32, 32, 1, 20000, /*seed=*/1);   // ~3.53 flows
//   double eff = synchronized_efficiency(32, 32, 4, 20000, 1);        // ~0.46
//   double exact = expected_max_load_exact(32, 32, 1);   // the same, computed exactly
//
// Model. n flows of equal size cross m uplinks; each flow is split into k equal
// sub-flows (QPs), and every sub-flow lands on an independent uniform uplink.
// A synchronized collective finishes when the most loaded uplink does, so its
// efficiency against a perfect spread is (n/m) / E[max load], with the load
// counted in flows (a sub-flow is 1/k of a flow). With n = m:
//
//   n=m   E[max] k=1   eff k=1   eff k=4   eff k=16
//     8     2.60         0.38      0.57      0.73
//   128     4.38         0.23      0.40      0.59
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "railyard/core/lazy.hpp"

namespace railyard::routing {

// Expected number of the m links that carry at least one of n flows:
// m·(1 − (1 − 1/m)^n). Preconditions: n >= 0, m >= 1. O(1).
RAILYARD_LAZY
[[nodiscard]] double expected_used_links(int64_t n_flows, int64_t m_links) {
  if (n_flows <= 0 || m_links <= 0) return 0.0;
  const auto m = static_cast<double>(m_links);
  // (1 - 1/m)^n as exp(n·log1p(-1/m)): exact to rounding even for large m.
  return m * -std::expm1(static_cast<double>(n_flows) * std::log1p(-1.0 / m));
}

namespace detail {

// A small deterministic generator (splitmix64): the Monte Carlo results depend
// only on the seed, on every platform.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) noexcept : state_(seed) {}
  constexpr uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n < 2^32, by multiply-shift on the top 32 bits.
  constexpr uint32_t below(uint32_t n) noexcept {
    return static_cast<uint32_t>(((next() >> 32) * n) >> 32);
  }

 private:
  uint64_t state_;
};

}  // namespace detail

// Monte Carlo estimate of E[max uplink load], in flows, when each of n flows is
// split into k equal sub-flows thrown independently and uniformly into m
// uplinks; the mean over `trials` throws drawn from `seed`. Deterministic in
// all arguments. Preconditions: n >= 1, m >= 1, k >= 1, trials >= 1.
// O(trials · (n·k + m)) time, O(m) memory.
RAILYARD_LAZY
[[nodiscard]] double expected_max_load(int64_t n_flows, int64_t m_links, int64_t k_qps,
                                              int64_t trials, uint64_t seed) {
  if (n_flows <= 0 || m_links <= 0 || k_qps <= 0 || trials <= 0) return 0.0;
  detail::SplitMix64 rng(seed);
  std::vector<int32_t> bins(static_cast<size_t>(m_links));
  const int64_t balls = n_flows * k_qps;
  const auto m = static_cast<uint32_t>(m_links);
  int64_t sum_max = 0;
  for (int64_t t = 0; t < trials; ++t) {
    std::fill(bins.begin(), bins.end(), 0);
    int32_t top = 0;
    for (int64_t b = 0; b < balls; ++b) top = std::max(top, ++bins[rng.below(m)]);
    sum_max += top;
  }
  return static_cast<double>(sum_max) / static_cast<double>(trials) / static_cast<double>(k_qps);
}

// (n/m) / E[max load]: the fraction of the ideal (perfectly spread) bandwidth a
// synchronized collective gets under ECMP, with E[max load] from
// expected_max_load(n, m, k, trials, seed). In (0, 1].
RAILYARD_LAZY
[[nodiscard]] double synchronized_efficiency(int64_t n_flows, int64_t m_links, int64_t k_qps,
                                                    int64_t trials, uint64_t seed) {
  const double max_load = expected_max_load(n_flows, m_links, k_qps, trials, seed);
  if (max_load <= 0.0) return 0.0;
  return static_cast<double>(n_flows) / static_cast<double>(m_links) / max_load;
}

// E[max load] computed exactly rather than sampled: with N = n·k sub-flows,
// P(max bin <= t) is built bin by bin (the count in the next of r remaining
// bins is Binomial(s, 1/r)), and E[max] = Σ_t P(max > t), divided by k.
// Independent of expected_max_load() and used to check it. Preconditions as
// there; O(m · N · t_max²) time with t_max the largest load that matters, so
// keep N = n·k to a few thousand.
RAILYARD_LAZY
[[nodiscard]] double expected_max_load_exact(int64_t n_flows, int64_t m_links,
                                                    int64_t k_qps) {
  if (n_flows <= 0 || m_links <= 0 || k_qps <= 0) return 0.0;
  const int64_t balls = n_flows * k_qps;
  // log C(s, j) + j·log p + (s−j)·log(1−p): the Binomial pmf without underflow
  // in the intermediate terms.
  std::vector<double> log_fact(static_cast<size_t>(balls) + 1, 0.0);
  for (int64_t i = 2; i <= balls; ++i)
    log_fact[static_cast<size_t>(i)] =
        log_fact[static_cast<size_t>(i - 1)] + std::log(static_cast<double>(i));
  auto binomial_pmf = [&log_fact](int64_t s, int64_t j, int64_t r) {
    if (r == 1) return j == s ? 1.0 : 0.0;
    const double p = 1.0 / static_cast<double>(r);
    return std::exp(log_fact[static_cast<size_t>(s)] - log_fact[static_cast<size_t>(j)] -
                    log_fact[static_cast<size_t>(s - j)] + static_cast<double>(j) * std::log(p) +
                    static_cast<double>(s - j) * std::log1p(-p));
  };
  std::vector<double> prob(static_cast<size_t>(balls) + 1);
  std::vector<double> next(prob.size());
  // Loads below ceil(N/m) are impossible as maxima: P(max > t) = 1 there.
  const int64_t lowest = (balls + m_links - 1) / m_links;
  double expected = static_cast<double>(lowest);
  for (int64_t t = lowest; t < balls; ++t) {
    // prob[s] = P(r bins, s balls thrown uniformly into them, all hold <= t).
    for (int64_t s = 0; s <= balls; ++s) prob[static_cast<size_t>(s)] = s <= t ? 1.0 : 0.0;
    for (int64_t r = 2; r <= m_links; ++r) {
      for (int64_t s = 0; s <= balls; ++s) {
        double p = 0.0;
        for (int64_t j = 0; j <= std::min(s, t); ++j)
          p += binomial_pmf(s, j, r) * prob[static_cast<size_t>(s - j)];
        next[static_cast<size_t>(s)] = p;
      }
      std::swap(prob, next);
    }
    const double exceed = 1.0 - prob[static_cast<size_t>(balls)];
    expected += exceed;
    if (exceed < 1e-13) break;
  }
  return expected / static_cast<double>(k_qps);
}

}  // namespace railyard::routing
