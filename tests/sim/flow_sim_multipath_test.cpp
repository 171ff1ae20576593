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

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_flow_sim_multipath_test {

using railyard::sim::FlowStep;

namespace {

struct WFlow {
  std::vector<int32_t> links;
  std::vector<double> weights;
  double bytes = 0.0;
  double start = 0.0;
};

FlowStep make_step(const std::vector<WFlow>& flows) {
  FlowStep s;
  for (const WFlow& f : flows) {
    s.add_multipath(f.links, f.weights, f.bytes);
    if (f.start > 0.0) s.set_start_us(s.size() - 1, f.start);
  }
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

// Exact event-driven reference: full recomputation at every completion and
// arrival.
std::vector<double> brute_force(const std::vector<double>& caps, const std::vector<WFlow>& fl) {
  std::vector<double> c(caps.size());
  for (size_t l = 0; l < caps.size(); ++l) c[l] = caps[l] * 125.0;
  std::vector<double> rem(fl.size()), fin(fl.size(), 0.0);
  std::vector<bool> live(fl.size()), pending(fl.size());
  for (size_t i = 0; i < fl.size(); ++i) {
    rem[i] = fl[i].bytes;
    pending[i] = fl[i].bytes > 0 && !fl[i].links.empty();
    fin[i] = fl[i].start;
  }
  double t = 0.0;
  auto any = [](const std::vector<bool>& v) { return std::any_of(v.begin(), v.end(), [](bool b) { return b; }); };
  while (any(live) || any(pending)) {
    for (size_t i = 0; i < fl.size(); ++i) {
      if (pending[i] && fl[i].start <= t) {
        pending[i] = false;
        live[i] = true;
      }
    }
    const auto r = naive_rates(c, fl, live);
    double dt = INFINITY;
    for (size_t i = 0; i < fl.size(); ++i) {
      if (live[i]) dt = std::min(dt, rem[i] / r[i]);
      if (pending[i]) dt = std::min(dt, fl[i].start - t);
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

TEST_CASE("flow_sim multipath: random small instances agree with the brute force, bytes conserved") {
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

TEST_CASE("flow_sim arrivals: hand-worked late arrival halves the first flow's rate") {
  // One 100 Gb/s link (12,500 B/us). A: 1e6 bytes at 0; B: 2.5e5 bytes at 40 us.
  // A alone for 40 us sends 5e5; then both at 6,250 B/us: B needs 40 us (done
  // at 80, A has 2.5e5 left), then A alone 20 us: A done at 100.
  const std::vector<double> caps = {100.0};
  FlowStep s;
  s.add(std::vector<int32_t>{0}, 1e6);
  s.add(std::vector<int32_t>{0}, 2.5e5);
  s.set_start_us(1, 40.0);
  s.add(std::vector<int32_t>{0}, 0.0);  // zero bytes: finishes at its start
  s.set_start_us(2, 7.0);
  auto r = railyard::sim::simulate_step(caps, s);
  REQUIRE(r.ok());
  CHECK(r->finish_us[1] == doctest::Approx(80.0).epsilon(1e-12));
  CHECK(r->finish_us[0] == doctest::Approx(100.0).epsilon(1e-12));
  CHECK(r->finish_us[2] == 7.0);
  CHECK(r->time_us == doctest::Approx(100.0).epsilon(1e-12));
  // A flow arriving after everything finished: idle gap, then alone.
  FlowStep g;
  g.add(std::vector<int32_t>{0}, 1.25e5);  // 10 us
  g.add(std::vector<int32_t>{0}, 1.25e5);
  g.set_start_us(1, 50.0);
  auto rg = railyard::sim::simulate_step(caps, g);
  REQUIRE(rg.ok());
  CHECK(rg->finish_us[0] == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(rg->finish_us[1] == doctest::Approx(60.0).epsilon(1e-12));
  // Bad start times name the flow.
  for (double t0 : std::vector<double>{-1.0, std::nan(""), INFINITY}) {
    FlowStep b;
    b.add(std::vector<int32_t>{0}, 1e3);
    b.set_start_us(0, t0);
    auto rb = railyard::sim::simulate_step(caps, b);
    REQUIRE_FALSE(rb.ok());
    CHECK(rb.status().message().find("flow 0: start") != std::string::npos);
  }
}

TEST_CASE("flow_sim arrivals: random weighted instances with start times agree with the brute force") {
  std::mt19937_64 rng(424242);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t nl = 2 + rng() % 5;
    std::vector<double> caps(nl);
    for (double& c : caps) c = 10.0 * static_cast<double>(1 + rng() % 40);
    const size_t nf = 1 + rng() % 9;
    std::vector<WFlow> fl(nf);
    for (WFlow& f : fl) {
      const size_t n = 1 + rng() % 3;
      for (size_t k = 0; k < n; ++k) {
        f.links.push_back(static_cast<int32_t>(rng() % nl));
        f.weights.push_back(trial % 3 == 0 ? 1.0 : static_cast<double>(1 + rng() % 4) / 4.0);
      }
      f.bytes = 1e3 * static_cast<double>(1 + rng() % 100);
      // Half the flows arrive later; some at identical times.
      if (rng() % 2) f.start = trial % 4 == 0 ? 5.0 : static_cast<double>(rng() % 200) / 4.0;
    }
    auto r = railyard::sim::simulate_step(caps, make_step(fl));
    REQUIRE(r.ok());
    const auto ref = brute_force(caps, fl);
    for (size_t i = 0; i < nf; ++i) {
      CHECK(r->finish_us[i] == doctest::Approx(ref[i]).epsilon(1e-7));
      CHECK(r->finish_us[i] >= fl[i].start);
    }
  }
}

TEST_CASE("flow_sim queueing: M/D/1 wait on merged links, none on a single paced stream") {
  // Link 0 (100 Gb/s = 12,500 B/us) merges A (bottlenecked at 30 Gb/s on its
  // first link, 1) and B (20 Gb/s on link 2): ρ0 = 0.5 while both run.
  const std::vector<double> caps = {100.0, 30.0, 20.0};
  railyard::sim::QueueingModel q;
  q.enabled = true;
  q.mtu_bytes = 4096;
  q.standing_queue_bytes = 150000;
  railyard::sim::FlowSimulator sim(caps);
  REQUIRE(sim.set_queueing(q).ok());
  FlowStep s;
  s.add(std::vector<int32_t>{1, 0}, 1e6);
  s.add(std::vector<int32_t>{2, 0}, 1e5);
  auto r = sim.run_step(s);
  REQUIRE(r.ok());
  REQUIRE(r->queue_us.size() == 2);
  // B finishes first (1e5 / 2,500 = 40 us) and waits at link 0 only:
  // ρ/(2(1−ρ)) · s = 0.5 · 4096 / 12,500 us. Links 1 and 2 carry one stream.
  CHECK(r->finish_us[1] == doctest::Approx(40.0).epsilon(1e-12));
  CHECK(r->queue_us[1] == doctest::Approx(0.5 * 4096.0 / 12500.0).epsilon(1e-12));
  // A finishes alone on every link: no wait; the fluid times are unchanged.
  CHECK(r->queue_us[0] == 0.0);
  CHECK(r->finish_us[0] == doctest::Approx(1e6 / 3750.0).epsilon(1e-12));

  // Two equal flows from two 100 Gb/s feeders saturate link 0 together: ρ = 1,
  // the wait is the standing queue's drain time Q / C.
  const std::vector<double> caps3 = {100.0, 100.0, 100.0, 100.0};
  railyard::sim::FlowSimulator sim3(caps3);
  REQUIRE(sim3.set_queueing(q).ok());
  FlowStep sat;
  sat.add(std::vector<int32_t>{1, 0}, 1e5);
  sat.add(std::vector<int32_t>{2, 0}, 1e5);
  auto rs = sim3.run_step(sat);
  REQUIRE(rs.ok());
  for (double w : rs->queue_us) CHECK(w == doctest::Approx(150000.0 / 12500.0).epsilon(1e-12));
  // Two flows from one feeder (one sender NIC, then a shared link 0 and on
  // to link 3): each link sees one stream's pacing — no wait anywhere.
  FlowStep paced;
  paced.add(std::vector<int32_t>{1, 0}, 1e5);
  paced.add(std::vector<int32_t>{1, 0, 3}, 1e5);
  auto rpc = sim3.run_step(paced);
  REQUIRE(rpc.ok());
  for (double w : rpc->queue_us) CHECK(w == 0.0);

  // A sprayed flow alone: its first hop (before the split) is one paced
  // stream; the halves wait w·W at ρ = 0.5 each, and the last hop (weight 1,
  // reassembled from two paths, ρ = 1) waits Q / C.
  const std::vector<double> caps4 = {100.0, 100.0, 100.0, 100.0};
  railyard::sim::FlowSimulator sim4(caps4);
  REQUIRE(sim4.set_queueing(q).ok());
  FlowStep sp;
  sp.add_multipath(std::vector<int32_t>{0, 1, 2, 3}, std::vector<double>{1.0, 0.5, 0.5, 1.0}, 1e6);
  auto rp = sim4.run_step(sp);
  REQUIRE(rp.ok());
  const double half = 0.5 / (2 * 0.5) * 4096.0 / 12500.0;
  CHECK(rp->queue_us[0] == doctest::Approx(2 * 0.5 * half + 150000.0 / 12500.0).epsilon(1e-12));
  CHECK(rp->finish_us[0] == doctest::Approx(80.0).epsilon(1e-12));  // rate unchanged

  // Off (the default): no queue_us; bad parameters are errors.
  railyard::sim::FlowSimulator off(caps);
  auto ro = off.run_step(sat);
  REQUIRE(ro.ok());
  CHECK(ro->queue_us.empty());
  q.mtu_bytes = 0;
  CHECK_FALSE(off.set_queueing(q).ok());
}

}  // namespace railyard_test_sim_flow_sim_multipath_test
