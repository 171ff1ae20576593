#include "railyard/sim/flow_sim.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_flow_sim_test {

using railyard::sim::FlowStep;
using railyard::sim::SimFlow;
using railyard::sim::SimOptions;

namespace {

// µs for `bytes` alone on a link of `gbps`.
double alone_us(double bytes, double gbps) { return bytes * 8.0 / gbps * 1e-3; }

std::vector<double> finish_times(const std::vector<double>& caps, const std::vector<SimFlow>& flows) {
  auto r = railyard::sim::simulate_step(caps, flows);
  REQUIRE(r.ok());
  return r->finish_us;
}

// Independent reference: naive max-min rates (O(F·L) per bottleneck round, no
// heap, no CSR) and fixed time slices of dt. Returns per-flow finish times.
std::vector<double> rates_naive(const std::vector<double>& caps_bpus, const std::vector<SimFlow>& fl,
                                const std::vector<bool>& live) {
  const size_t nf = fl.size();
  std::vector<double> rate(nf, 0.0);
  std::vector<bool> frozen(nf, false);
  std::vector<double> left = caps_bpus;
  for (size_t i = 0; i < nf; ++i) frozen[i] = !live[i];
  while (true) {
    double best = INFINITY;
    size_t best_link = 0;
    for (size_t l = 0; l < left.size(); ++l) {
      int n = 0;
      for (size_t i = 0; i < nf; ++i) {
        if (frozen[i]) continue;
        for (int32_t x : fl[i].links) n += (static_cast<size_t>(x) == l);
      }
      if (n > 0 && left[l] / n < best) {
        best = left[l] / n;
        best_link = l;
      }
    }
    if (best == INFINITY) break;
    for (size_t i = 0; i < nf; ++i) {
      if (frozen[i]) continue;
      bool on = std::find(fl[i].links.begin(), fl[i].links.end(), static_cast<int32_t>(best_link)) !=
                fl[i].links.end();
      if (!on) continue;
      frozen[i] = true;
      rate[i] = best;
      for (int32_t x : fl[i].links) left[static_cast<size_t>(x)] -= best;
    }
  }
  return rate;
}

std::vector<double> brute_force(const std::vector<double>& caps, const std::vector<SimFlow>& fl,
                                double dt) {
  std::vector<double> c(caps.size());
  for (size_t l = 0; l < caps.size(); ++l) c[l] = caps[l] * 125.0;
  std::vector<double> rem(fl.size());
  std::vector<bool> live(fl.size());
  std::vector<double> fin(fl.size(), 0.0);
  for (size_t i = 0; i < fl.size(); ++i) {
    rem[i] = fl[i].bytes;
    live[i] = fl[i].bytes > 0 && !fl[i].links.empty();
  }
  double t = 0.0;
  while (std::any_of(live.begin(), live.end(), [](bool b) { return b; })) {
    auto r = rates_naive(c, fl, live);
    for (size_t i = 0; i < fl.size(); ++i) {
      if (!live[i]) continue;
      rem[i] -= r[i] * dt;
      if (rem[i] <= 0) {
        live[i] = false;
        fin[i] = t + dt + rem[i] / r[i];  // interpolate inside the slice
      }
    }
    t += dt;
  }
  return fin;
}

}  // namespace

TEST_CASE("flow_sim: one flow on one link takes bytes*8/gbps*1e-3 us") {
  const std::vector<double> caps = {400.0};
  auto f = finish_times(caps, {{{0}, 1e6}});
  CHECK(f[0] == doctest::Approx(20.0).epsilon(1e-12));  // 1 MB at 400 Gb/s = 20 us
  CHECK(f[0] == doctest::Approx(alone_us(1e6, 400.0)).epsilon(1e-12));
}

TEST_CASE("flow_sim: n equal flows on one link finish together at n times the single time") {
  const std::vector<double> caps = {100.0};
  for (int n : {1, 2, 7, 64}) {
    std::vector<SimFlow> flows(static_cast<size_t>(n), SimFlow{{0}, 5e5});
    auto r = railyard::sim::simulate_step(caps, flows);
    REQUIRE(r.ok());
    CHECK(r->events == 1);
    for (double t : r->finish_us) CHECK(t == doctest::Approx(n * alone_us(5e5, 100.0)).epsilon(1e-12));
    CHECK(r->time_us == doctest::Approx(n * alone_us(5e5, 100.0)).epsilon(1e-12));
  }
}

TEST_CASE("flow_sim: classic max-min example with a slower second link") {
  // Link A 10 Gb/s: f1, f2. Link B 4 Gb/s: f2 only. f2 gets 4 Gb/s (500 B/us),
  // f1 gets 6 (750 B/us); after f2 finishes f1 gets all 10 (1250 B/us).
  const std::vector<double> caps = {10.0, 4.0};
  auto f = finish_times(caps, {{{0}, 3000.0}, {{0, 1}, 1000.0}});
  CHECK(f[1] == doctest::Approx(2.0).epsilon(1e-12));          // 1000 / 500
  CHECK(f[0] == doctest::Approx(2.0 + 1500.0 / 1250.0).epsilon(1e-12));  // 3.2 us
}

TEST_CASE("flow_sim: parking lot") {
  // Three links of 10 Gb/s in a chain; a long flow crosses all three, a short
  // flow crosses each one. Every link carries two flows: all at 5 Gb/s
  // (625 B/us) until the shorts finish one by one; the long flow stays at 625
  // while any short remains (another link still binds it), then takes 1250.
  const std::vector<double> caps = {10.0, 10.0, 10.0};
  const double b1 = 625.0, b2 = 1250.0, b3 = 2500.0, big = 10000.0;
  auto f = finish_times(caps, {{{0, 1, 2}, big}, {{0}, b1}, {{1}, b2}, {{2}, b3}});
  CHECK(f[1] == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f[2] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(f[3] == doctest::Approx(4.0).epsilon(1e-12));
  CHECK(f[0] == doctest::Approx(4.0 + (big - 4.0 * 625.0) / 1250.0).epsilon(1e-12));

  // Classic parking lot with equal shorts: long gets 1/2 everywhere.
  auto g = finish_times(caps, {{{0, 1, 2}, 625.0}, {{0}, 625.0}, {{1}, 625.0}, {{2}, 625.0}});
  for (double t : g) CHECK(t == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("flow_sim: zero-byte and no-link flows finish at t=0, zero capacity is an error") {
  const std::vector<double> caps = {10.0, 0.0};
  auto f = finish_times(caps, {{{0}, 0.0}, {{}, 1e9}, {{1}, 0.0}, {{0}, 1250.0}});
  CHECK(f[0] == 0.0);
  CHECK(f[1] == 0.0);
  CHECK(f[2] == 0.0);  // zero bytes across a down link: nothing to send
  CHECK(f[3] == doctest::Approx(1.0).epsilon(1e-12));

  auto bad = railyard::sim::simulate_step(caps, std::vector<SimFlow>{{{0}, 1.0}, {{0, 1}, 1.0}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.status().message()).find("flow 1") != std::string::npos);
  CHECK(std::string(bad.status().message()).find("link 1") != std::string::npos);

  CHECK_FALSE(railyard::sim::simulate_step(caps, std::vector<SimFlow>{{{2}, 1.0}}).ok());
  CHECK_FALSE(railyard::sim::simulate_step(caps, std::vector<SimFlow>{{{0}, -1.0}}).ok());
  const std::vector<double> neg = {-1.0};
  CHECK_FALSE(railyard::sim::simulate_step(neg, std::vector<SimFlow>{}).ok());

  auto empty = railyard::sim::simulate_step(caps, std::vector<SimFlow>{});
  REQUIRE(empty.ok());
  CHECK(empty->time_us == 0.0);
}

TEST_CASE("flow_sim: steps run sequentially, byte conservation, utilization at most 1") {
  const std::vector<double> caps = {10.0, 4.0, 10.0, 10.0};
  std::vector<std::vector<SimFlow>> steps = {
      {{{0}, 3000.0}, {{0, 1}, 1000.0}},
      {{{0, 2, 3}, 625.0}, {{0}, 625.0}, {{2}, 625.0}, {{3}, 625.0}},
      {},
      {{{3}, 12500.0}},
  };
  SimOptions opt;
  opt.alpha_us = 0.5;
  auto r = railyard::sim::simulate(caps, std::span<const std::vector<SimFlow>>(steps), opt);
  REQUIRE(r.ok());
  REQUIRE(r->step_us.size() == 4);
  CHECK(r->step_us[0] == doctest::Approx(0.5 + 3.2).epsilon(1e-12));
  CHECK(r->step_us[1] == doctest::Approx(0.5 + 1.0).epsilon(1e-12));
  CHECK(r->step_us[2] == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(r->step_us[3] == doctest::Approx(0.5 + 10.0).epsilon(1e-12));
  CHECK(r->total_us == doctest::Approx(0.5 * 4 + 3.2 + 1.0 + 10.0).epsilon(1e-12));

  double carried = std::accumulate(r->link_bytes.begin(), r->link_bytes.end(), 0.0);
  double expected = 0.0;
  for (const auto& s : steps) {
    for (const auto& f : s) expected += f.bytes * static_cast<double>(f.links.size());
  }
  CHECK(carried == doctest::Approx(expected).epsilon(1e-12));
  CHECK(r->link_bytes[0] == doctest::Approx(3000.0 + 1000.0 + 1250.0));
  for (double u : r->link_utilization) {
    CHECK(u >= 0.0);
    CHECK(u <= 1.0 + 1e-12);
  }
  // Link 3 carries 625·2 + 12500 bytes at 1250 B/us -> 11 us busy of 16.2.
  CHECK(r->max_link == 3);
  CHECK(r->max_utilization == doctest::Approx(11.0 / 16.2).epsilon(1e-12));

  // Per-step alphas replace the uniform alpha; a wrong count is an error.
  opt.step_alpha_us = {1.0, 2.0, 3.0, 4.0};
  auto r2 = railyard::sim::simulate(caps, std::span<const std::vector<SimFlow>>(steps), opt);
  REQUIRE(r2.ok());
  CHECK(r2->total_us == doctest::Approx(10.0 + 3.2 + 1.0 + 10.0).epsilon(1e-12));
  opt.step_alpha_us = {1.0};
  CHECK_FALSE(railyard::sim::simulate(caps, std::span<const std::vector<SimFlow>>(steps), opt).ok());
}

TEST_CASE("flow_sim: random small instances agree with a brute-force time-slicing simulation") {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 25; ++trial) {
    const int n_links = 2 + static_cast<int>(rng() % 6);
    const int n_flows = 1 + static_cast<int>(rng() % 8);
    std::vector<double> caps(static_cast<size_t>(n_links));
    for (double& c : caps) c = 1.0 + static_cast<double>(rng() % 40);
    std::vector<SimFlow> flows;
    for (int i = 0; i < n_flows; ++i) {
      SimFlow f;
      std::vector<int32_t> all(static_cast<size_t>(n_links));
      std::iota(all.begin(), all.end(), 0);
      std::shuffle(all.begin(), all.end(), rng);
      const size_t hops = 1 + rng() % 3;
      f.links.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(hops, all.size())));
      f.bytes = 100.0 + static_cast<double>(rng() % 5000);
      flows.push_back(f);
    }
    auto exact = finish_times(caps, flows);
    const double horizon = *std::max_element(exact.begin(), exact.end());
    auto approx = brute_force(caps, flows, horizon / 4000.0);
    CAPTURE(trial);
    for (size_t i = 0; i < flows.size(); ++i) {
      CAPTURE(i);
      CHECK(approx[i] == doctest::Approx(exact[i]).epsilon(0.01));
    }
  }
}

TEST_CASE("flow_sim: deterministic and independent of FlowSimulator reuse") {
  std::mt19937_64 rng(7);
  const int n_links = 200;
  std::vector<double> caps(static_cast<size_t>(n_links));
  for (double& c : caps) c = 100.0 * static_cast<double>(1 + rng() % 4);
  std::vector<FlowStep> steps(3);
  for (auto& st : steps) {
    for (int i = 0; i < 2000; ++i) {
      std::vector<int32_t> p;
      for (int h = 0; h < 4; ++h) p.push_back(static_cast<int32_t>(rng() % n_links));
      st.add(p, static_cast<double>(1 + rng() % 4) * 1e5);
    }
  }
  auto a = railyard::sim::simulate(caps, std::span<const FlowStep>(steps));
  auto b = railyard::sim::simulate(caps, std::span<const FlowStep>(steps));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->total_us == b->total_us);
  CHECK(a->step_us == b->step_us);
  CHECK(a->link_utilization == b->link_utilization);
  CHECK(a->max_link == b->max_link);

  // A fresh simulator per step gives the same step times as one reused.
  double sum = 0.0;
  for (const auto& st : steps) {
    auto r = railyard::sim::simulate_step(caps, st);
    REQUIRE(r.ok());
    sum += r->time_us;
  }
  CHECK(sum == a->total_us);
  for (double u : a->link_utilization) CHECK(u <= 1.0 + 1e-9);
}

}  // namespace railyard_test_sim_flow_sim_test
