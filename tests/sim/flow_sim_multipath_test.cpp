// Weighted multipath flows in the flow simulator: hand-worked cases,
// conservation, and agreement with an independent brute force (naive weighted
// progressive filling, recomputed from scratch at every completion).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "railyard/sim/flow_sim.hpp"

using railyard::sim::FlowStep;

namespace {

struct WFlow {
  std::vector<int32_t> links;
  std::vector<double> weights;
  double bytes = 0.0;
};

FlowStep make_step(const std::vector<WFlow>& flows) {
  FlowStep s;
  for (const WFlow& f : flows) s.add_multipath(f.links, f.weights, f.bytes);
  return s;
}

// Naive weighted max-min: raise a common level over all unfrozen flows; the
// next link to saturate is the one with the smallest left / Σ weights. O(F·L·P)
// per round, no incremental state.
std::vector<double> naive_rates(const std::vector<double>& cap_bpus, const std::vector<WFlow>& fl,
                                const std::vector<bool>& live) {
  const size_t nf = fl.size();
  std::vector<double> rate(nf, 0.0);
  std::vector<bool> frozen(nf);
  for (size_t i = 0; i < nf; ++i) frozen[i] = !live[i];
  std::vector<double> left = cap_bpus;
  while (true) {
    double best = INFINITY;
    size_t best_link = 0;
    for (size_t l = 0; l < left.size(); ++l) {
      double w = 0.0;
      for (size_t i = 0; i < nf; ++i) {
        if (frozen[i]) continue;
        for (size_t k = 0; k < fl[i].links.size(); ++k) {
          if (static_cast<size_t>(fl[i].links[k]) == l) w += fl[i].weights[k];
        }
      }
      if (w > 0.0 && left[l] / w < best) {
        best = left[l] / w;
        best_link = l;
      }
    }
    if (best == INFINITY) break;
    for (size_t i = 0; i < nf; ++i) {
      if (frozen[i]) continue;
      const bool on = std::find(fl[i].links.begin(), fl[i].links.end(),
                                static_cast<int32_t>(best_link)) != fl[i].links.end();
      if (!on) continue;
      frozen[i] = true;
      rate[i] = best;
      for (size_t k = 0; k < fl[i].links.size(); ++k) {
        left[static_cast<size_t>(fl[i].links[k])] -= best * fl[i].weights[k];
      }
    }
  }
  return rate;
}

// Exact event-driven reference: full recomputation after every completion.
std::vector<double> brute_force(const std::vector<double>& caps, const std::vector<WFlow>& fl) {
  std::vector<double> c(caps.size());
  for (size_t l = 0; l < caps.size(); ++l) c[l] = caps[l] * 125.0;
  std::vector<double> rem(fl.size()), fin(fl.size(), 0.0);
  std::vector<bool> live(fl.size());
  for (size_t i = 0; i < fl.size(); ++i) {
    rem[i] = fl[i].bytes;
    live[i] = fl[i].bytes > 0 && !fl[i].links.empty();
  }
  double t = 0.0;
  while (std::any_of(live.begin(), live.end(), [](bool b) { return b; })) {
    const auto r = naive_rates(c, fl, live);
    double dt = INFINITY;
    for (size_t i = 0; i < fl.size(); ++i) {
      if (live[i]) dt = std::min(dt, rem[i] / r[i]);
    }
    t += dt;
    for (size_t i = 0; i < fl.size(); ++i) {
      if (!live[i]) continue;
      rem[i] -= r[i] * dt;
      if (rem[i] <= 1e-9 * fl[i].bytes) {
        live[i] = false;
        fin[i] = t;
      }
    }
  }
  return fin;
}

}  // namespace

TEST_CASE("flow_sim multipath: hand-worked sprayed flow against a single-path flow") {
  // Links 0 and 1 (100 Gb/s each) are two parallel up-ports, link 2
  // (100 Gb/s) the common last hop. Flow A is sprayed: half its rate on 0,
  // half on 1, all of it on 2. Flow B uses link 0 alone.
  // At level r link 0 carries r/2 + r = 1.5 r, link 1 r/2, link 2 r, so link
  // 0 saturates first, at r = 100/1.5 = 66.7 Gb/s, and freezes both flows.
  const std::vector<double> caps = {100.0, 100.0, 100.0};
  const double rate = 100.0 / 1.5 * 125.0;  // B/us
  FlowStep s = make_step({{{0, 1, 2}, {0.5, 0.5, 1.0}, 1e6}, {{0}, {1.0}, 1e6}});
  auto r = railyard::sim::simulate_step(caps, s);
  REQUIRE(r.ok());
  // Both finish together at 1e6 / rate.
  CHECK(r->finish_us[0] == doctest::Approx(1e6 / rate).epsilon(1e-12));
  CHECK(r->finish_us[1] == doctest::Approx(1e6 / rate).epsilon(1e-12));

  // Unequal sizes: B (2e5 bytes) finishes first at 2e5 / rate; then A alone
  // gets min(100/0.5, 100/0.5, 100/1) = 100 Gb/s.
  FlowStep s2 = make_step({{{0, 1, 2}, {0.5, 0.5, 1.0}, 1e6}, {{0}, {1.0}, 2e5}});
  auto r2 = railyard::sim::simulate_step(caps, s2);
  REQUIRE(r2.ok());
  const double t1 = 2e5 / rate;
  CHECK(r2->finish_us[1] == doctest::Approx(t1).epsilon(1e-12));
  CHECK(r2->finish_us[0] == doctest::Approx(t1 + (1e6 - rate * t1) / 12500.0).epsilon(1e-12));
}

TEST_CASE("flow_sim multipath: a flow sprayed over k ports is one fair share, not k") {
  // Four parallel 100 Gb/s ports; flow A sprayed over all four (w = 1/4),
  // flows B..E one per port. Level r: each port carries r/4 + r = 1.25 r ->
  // r = 80 Gb/s for everyone. Split into 4 unweighted subflows instead, A
  // would get 4 × 50 = 200 Gb/s.
  const std::vector<double> caps = {100.0, 100.0, 100.0, 100.0};
  std::vector<WFlow> fl = {{{0, 1, 2, 3}, {0.25, 0.25, 0.25, 0.25}, 1e6}};
  for (int32_t p = 0; p < 4; ++p) fl.push_back({{p}, {1.0}, 1e6});
  auto r = railyard::sim::simulate_step(caps, make_step(fl));
  REQUIRE(r.ok());
  for (double t : r->finish_us) CHECK(t == doctest::Approx(1e6 / (80.0 * 125.0)).epsilon(1e-12));
}

TEST_CASE("flow_sim multipath: all-ones weights equal plain add, mixed steps work") {
  std::mt19937_64 rng(7);
  const std::vector<double> caps = {40.0, 100.0, 25.0, 100.0, 60.0};
  for (int trial = 0; trial < 20; ++trial) {
    FlowStep plain, ones;
    for (int f = 0; f < 6; ++f) {
      std::vector<int32_t> links;
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) links.push_back(static_cast<int32_t>(rng() % caps.size()));
      const double bytes = 1e3 * static_cast<double>(1 + rng() % 50);
      plain.add(links, bytes);
      if (f % 2 == 0) {
        std::vector<double> w(links.size(), 1.0);
        ones.add_multipath(links, w, bytes);
      } else {
        ones.add(links, bytes);
      }
    }
    auto a = railyard::sim::simulate_step(caps, plain);
    auto b = railyard::sim::simulate_step(caps, ones);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    for (size_t i = 0; i < a->finish_us.size(); ++i) {
      CHECK(b->finish_us[i] == doctest::Approx(a->finish_us[i]).epsilon(1e-9));
    }
  }
}

TEST_CASE("flow_sim multipath: random small instances agree with the brute force; bytes conserved") {
  std::mt19937_64 rng(20261202);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t nl = 2 + rng() % 6;
    std::vector<double> caps(nl);
    for (double& c : caps) c = 10.0 * static_cast<double>(1 + rng() % 40);
    const size_t nf = 1 + rng() % 9;
    std::vector<WFlow> fl(nf);
    for (WFlow& f : fl) {
      const size_t n = 1 + rng() % 4;
      for (size_t k = 0; k < n; ++k) {
        f.links.push_back(static_cast<int32_t>(rng() % nl));
        // Weights in (0, 1], including repeated links.
        f.weights.push_back(static_cast<double>(1 + rng() % 8) / 8.0);
      }
      f.bytes = trial % 5 == 0 ? 1e4 : 1e3 * static_cast<double>(1 + rng() % 100);
    }
    const FlowStep step = make_step(fl);
    auto r = railyard::sim::simulate_step(caps, step);
    REQUIRE(r.ok());
    const auto ref = brute_force(caps, fl);
    for (size_t i = 0; i < nf; ++i) {
      CHECK(r->finish_us[i] == doctest::Approx(ref[i]).epsilon(1e-7));
    }
    // Conservation through the multi-step API: every link carries Σ bytes·w
    // of its entries, and no link exceeds its capacity over the step.
    std::vector<FlowStep> steps = {step};
    auto sim = railyard::sim::simulate(caps, std::span<const FlowStep>(steps));
    REQUIRE(sim.ok());
    std::vector<double> expect(nl, 0.0);
    for (const WFlow& f : fl) {
      for (size_t k = 0; k < f.links.size(); ++k) {
        expect[static_cast<size_t>(f.links[k])] += f.bytes * f.weights[k];
      }
    }
    for (size_t l = 0; l < nl; ++l) {
      CHECK(sim->link_bytes[l] == doctest::Approx(expect[l]).epsilon(1e-12));
      CHECK(sim->link_utilization[l] <= 1.0 + 1e-9);
    }
  }
}

TEST_CASE("flow_sim multipath: bad weights are errors naming the flow") {
  const std::vector<double> caps = {100.0, 100.0};
  FlowStep mismatch;
  mismatch.add(std::vector<int32_t>{0}, 1e3);
  mismatch.add_multipath(std::vector<int32_t>{0, 1}, std::vector<double>{0.5}, 1e3);
  auto a = railyard::sim::simulate_step(caps, mismatch);
  REQUIRE_FALSE(a.ok());
  CHECK(a.status().message().find("flow 1: 1 weights for 2 links") != std::string::npos);
  for (double w : std::vector<double>{0.0, -1.0, std::nan(""), INFINITY}) {
    FlowStep bad;
    bad.add_multipath(std::vector<int32_t>{0, 1}, std::vector<double>{0.5, w}, 1e3);
    auto b = railyard::sim::simulate_step(caps, bad);
    REQUIRE_FALSE(b.ok());
    CHECK(b.status().message().find("flow 0: weight") != std::string::npos);
  }
}
