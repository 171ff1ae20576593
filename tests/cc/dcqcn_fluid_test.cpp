#include "railyard/cc/dcqcn_fluid.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "railyard/cc/derive.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_dcqcn_fluid_test {

namespace {

using railyard::cc::dcqcn_derivatives;
using railyard::cc::dcqcn_fixed_point;
using railyard::cc::DcqcnDerivatives;
using railyard::cc::DcqcnFlowState;
using railyard::cc::DcqcnModelParams;
using railyard::cc::FluidResult;
using railyard::cc::FluidScenario;
using railyard::cc::paper_dcqcn;
using railyard::cc::paper_red;
using railyard::cc::red_probability;
using railyard::cc::RedMarking;
using railyard::cc::simulate_dcqcn;
using railyard::cc::vendor_default_dcqcn;
using railyard::cc::vendor_default_red;

FluidResult run(const DcqcnModelParams& p, const RedMarking& red, const FluidScenario& s) {
  auto r = simulate_dcqcn(p, red, s);
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  return *std::move(r);
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// Bytes per µs of `gbps`.
double bpus(double gbps) { return gbps * 125.0; }

// The model's right-hand side written straight from the published equations
// with std::pow (no log1p/expm1 rewriting, no limits): rates in packets/µs.
struct Naive {
  double tau, tau_p, timer, b, g, rai;
  int f;
  Naive(const DcqcnModelParams& p, double pkt)
      : tau(p.rate_decrease_period_us),
        tau_p(p.alpha_period_us),
        timer(p.rate_increase_timer_us),
        b(p.byte_counter_bytes / pkt),
        g(p.g),
        rai(p.rai_mbps * 0.125 / pkt),
        f(p.fast_recovery_steps) {}
  [[nodiscard]] double a(double p, double r) const { return 1 - std::pow(1 - p, tau * r); }
  [[nodiscard]] double alpha_target(double p, double r) const {
    return 1 - std::pow(1 - p, tau_p * r);
  }
  [[nodiscard]] double ev_b(double p, double r) const { return r * p / (std::pow(1 - p, -b) - 1); }
  [[nodiscard]] double ev_t(double p, double r) const {
    return r * p / (std::pow(1 - p, -timer * r) - 1);
  }
  [[nodiscard]] double drc(double p, double rd, double rc, double rt, double al) const {
    return -rc * al * a(p, rd) / (2 * tau) + (rt - rc) / 2 * (ev_b(p, rd) + ev_t(p, rd));
  }
  [[nodiscard]] double drt(double p, double rd, double rc, double rt) const {
    return -(rt - rc) * a(p, rd) / tau + rai * (ev_b(p, rd) * std::pow(1 - p, f * b) +
                                                ev_t(p, rd) * std::pow(1 - p, f * timer * rd));
  }
  [[nodiscard]] double dal(double p, double rd, double al) const {
    return g / tau_p * (alpha_target(p, rd) - al);
  }
};

}  // namespace

TEST_CASE("dcqcn_fluid: RED curve is 0 up to Kmin, linear to Pmax at Kmax, 1 above") {
  const RedMarking red{.kmin_bytes = 150'000, .kmax_bytes = 1'500'000, .pmax = 0.2};
  CHECK(red_probability(red, 0) == 0.0);
  CHECK(red_probability(red, 149'999) == 0.0);
  CHECK(red_probability(red, 150'000) == 0.0);
  CHECK(red_probability(red, 825'000) == doctest::Approx(0.1).epsilon(1e-15));
  CHECK(red_probability(red, 487'500) == doctest::Approx(0.05).epsilon(1e-15));
  CHECK(red_probability(red, 1'500'000) == doctest::Approx(0.2).epsilon(1e-15));
  CHECK(red_probability(red, 1'500'001) == 1.0);
  CHECK(red_probability(red, 1e12) == 1.0);
  // Monotone non-decreasing over a sweep.
  double last = 0;
  for (double q = 0; q <= 2e6; q += 1000) {
    const double p = red_probability(red, q);
    CHECK(p >= last);
    last = p;
  }
  // kmin == kmax: a step at K.
  const RedMarking step{.kmin_bytes = 100, .kmax_bytes = 100, .pmax = 0.5};
  CHECK(red_probability(step, 100) == 0.0);
  CHECK(red_probability(step, 100.5) == 1.0);
  // The vendor default (Pmax = 1) is continuous at Kmax.
  const RedMarking v = vendor_default_red();
  CHECK(red_probability(v, v.kmax_bytes) == 1.0);
  CHECK(red_probability(v, 825'000) == doctest::Approx(0.5).epsilon(1e-15));
}

TEST_CASE("dcqcn_fluid: derivatives match the published formulas and their p -> 0 limits") {
  for (const DcqcnModelParams& params : {vendor_default_dcqcn(), paper_dcqcn()}) {
    for (const double pkt : {1000.0, 4096.0}) {
      const Naive nv(params, pkt);
      const double to_pkt = 125.0 / pkt;
      const DcqcnFlowState st{.rc_gbps = 120, .rt_gbps = 260, .alpha = 0.3};
      for (const double rd_gbps : {0.5, 40.0, 120.0, 400.0}) {
        const double rd = rd_gbps * to_pkt;
        // Agreement with std::pow where that is well conditioned.
        for (const double p : {1e-4, 1e-3, 0.01, 0.1, 0.5}) {
          const DcqcnDerivatives d = dcqcn_derivatives(params, pkt, st, rd_gbps, p);
          const double rc = st.rc_gbps * to_pkt, rt = st.rt_gbps * to_pkt;
          CAPTURE(p);
          CAPTURE(rd_gbps);
          CHECK(rel(d.rc_gbps_per_us * to_pkt, nv.drc(p, rd, rc, rt, st.alpha)) < 1e-8);
          CHECK(rel(d.rt_gbps_per_us * to_pkt, nv.drt(p, rd, rc, rt)) < 1e-8);
          CHECK(rel(d.alpha_per_us, nv.dal(p, rd, st.alpha)) < 1e-8);
        }
        // p = 0 exactly: no decrease; byte counter and timer events at R'/B
        // and 1/T, all of them additive (no fast-recovery discount).
        const DcqcnDerivatives z = dcqcn_derivatives(params, pkt, st, rd_gbps, 0.0);
        const double ev = rd / nv.b + 1 / nv.timer;
        const double rc = st.rc_gbps * to_pkt, rt = st.rt_gbps * to_pkt;
        CHECK(rel(z.rc_gbps_per_us * to_pkt, (rt - rc) / 2 * ev) < 1e-14);
        CHECK(rel(z.rt_gbps_per_us * to_pkt, nv.rai * ev) < 1e-14);
        CHECK(rel(z.alpha_per_us, -nv.g / nv.tau_p * st.alpha) < 1e-14);
        // Continuity into p = 0 (the 0/0 forms): the distance to the p = 0
        // value shrinks linearly with p, down to p = 1e-15.
        auto dev = [&](double p) {
          const DcqcnDerivatives s = dcqcn_derivatives(params, pkt, st, rd_gbps, p);
          return std::array<double, 3>{std::abs(s.rc_gbps_per_us - z.rc_gbps_per_us),
                                       std::abs(s.rt_gbps_per_us - z.rt_gbps_per_us),
                                       std::abs(s.alpha_per_us - z.alpha_per_us)};
        };
        const std::array<double, 3> d9 = dev(1e-9), d12 = dev(1e-12), d15 = dev(1e-15);
        const std::array<double, 3> f0 = {std::abs(z.rc_gbps_per_us), std::abs(z.rt_gbps_per_us),
                                          std::abs(z.alpha_per_us)};
        for (size_t k = 0; k < 3; ++k) {
          CAPTURE(k);
          CHECK(std::isfinite(d9[k]));
          CHECK(d12[k] <= 1.05e-3 * d9[k] + 1e-13 * f0[k]);
          CHECK(d15[k] <= 1.05e-6 * d9[k] + 1e-13 * f0[k]);
        }
      }
      // R' -> 0 with p > 0: timer events stay finite (p/L/T), no decrease.
      const DcqcnDerivatives r0 = dcqcn_derivatives(params, pkt, st, 0.0, 0.01);
      const DcqcnDerivatives r1 = dcqcn_derivatives(params, pkt, st, 1e-12, 0.01);
      CHECK(std::isfinite(r0.rc_gbps_per_us));
      CHECK(rel(r1.rc_gbps_per_us, r0.rc_gbps_per_us) < 1e-6);
      CHECK(rel(r1.rt_gbps_per_us, r0.rt_gbps_per_us) < 1e-6);
      // p = 1: every period marked — pure decrease, R_T pulled to R_C, α -> 1.
      const DcqcnDerivatives one = dcqcn_derivatives(params, pkt, st, 100.0, 1.0);
      CHECK(one.rc_gbps_per_us ==
            doctest::Approx(-st.rc_gbps * st.alpha / (2 * params.rate_decrease_period_us)));
      CHECK(one.rt_gbps_per_us ==
            doctest::Approx(-(st.rt_gbps - st.rc_gbps) / params.rate_decrease_period_us));
      CHECK(one.alpha_per_us == doctest::Approx(params.g / params.alpha_period_us * (1 - 0.3)));
      // A smaller largest cut per event (rpg_min_dec_fac) bounds the decrease.
      DcqcnModelParams capped = params;
      capped.max_cut_fraction = 0.1;
      const DcqcnDerivatives c1 = dcqcn_derivatives(capped, pkt, st, 100.0, 1.0);
      CHECK(c1.rc_gbps_per_us ==
            doctest::Approx(-st.rc_gbps * 0.1 / params.rate_decrease_period_us));
      // And p -> 1 approaches it.
      const DcqcnDerivatives near1 = dcqcn_derivatives(params, pkt, st, 100.0, 1 - 1e-12);
      CHECK(rel(near1.rc_gbps_per_us, one.rc_gbps_per_us) < 1e-6);
    }
  }
}

TEST_CASE("dcqcn_fluid: one flow below the bottleneck never queues and climbs to line rate") {
  // 100 Gb/s NIC into a 400 Gb/s port, starting at half its line rate. A
  // larger R_AI than the vendor's 5 Mb/s keeps the climb short.
  DcqcnModelParams p = vendor_default_dcqcn();
  p.rai_mbps = 2000;
  FluidScenario s{.senders = 1,
                  .line_gbps = 100,
                  .bottleneck_gbps = 400,
                  .feedback_delay_us = 10,
                  .duration_us = 2000,
                  .start_rate_fraction = 0.5,
                  .trace_points = 2001,
                  .traced_flows = 1};
  const FluidResult r = run(p, vendor_default_red(), s);
  CHECK(r.peak_queue_bytes == 0.0);
  CHECK(r.final_queue_bytes == 0.0);
  CHECK(r.marked_fraction == 0.0);
  CHECK(r.sent_bytes == r.delivered_bytes);
  CHECK(r.fair_share_gbps == doctest::Approx(100.0).epsilon(1e-15));
  const std::vector<double>& rc = r.trace.flow_gbps.at(0);
  const double line = rc.back();                         // reached and stays at line rate
  CHECK(line == doctest::Approx(100.0).epsilon(1e-15));  // (100 Gb/s up to rounding)
  CHECK(rc.front() == doctest::Approx(50.0).epsilon(1e-15));
  for (size_t i = 1; i < rc.size(); ++i) {
    CHECK(rc[i] >= rc[i - 1]);  // never decreases
    CHECK(rc[i] <= line);       // capped at line rate
  }
  CHECK(rc[rc.size() / 2] == line);
  CHECK(r.second_half.flow_gbps.at(0) == doctest::Approx(100.0).epsilon(1e-12));
  CHECK(r.second_half.utilization == doctest::Approx(0.25).epsilon(1e-12));
  REQUIRE(r.convergence_us.has_value());
  // Convergence time: the first sample from which R_C stays within 5% of 100.
  size_t first_ok = rc.size();
  for (size_t i = rc.size(); i-- > 0;) {
    if (rc[i] < 95.0) break;
    first_ok = i;
  }
  REQUIRE(first_ok < rc.size());
  CHECK(*r.convergence_us <= r.trace.t_us[first_ok]);
  CHECK(*r.convergence_us > r.trace.t_us[first_ok - 1]);
}

TEST_CASE("dcqcn_fluid: senders sharing a port fill it and converge to equal shares") {
  // SIGCOMM'15 parameters at 40 Gb/s, 1 KB packets, four flows starting at
  // different times and rates (together the capacity).
  FluidScenario s{.senders = 4,
                  .line_gbps = 40,
                  .bottleneck_gbps = 40,
                  .feedback_delay_us = 4,
                  .packet_bytes = 1000,
                  .duration_us = 50'000,
                  .trace_points = 0};
  s.start_rate_fractions = {0.1, 0.2, 0.3, 0.4};
  s.start_us = {0, 20, 40, 60};
  const FluidResult r = run(paper_dcqcn(), paper_red(), s);
  CHECK(r.distinct_flows == 4);
  CHECK(r.utilization <= 1.0 + 1e-12);
  CHECK(r.utilization > 0.99);
  CHECK(r.second_half.utilization > 0.9999);
  REQUIRE(r.second_half.flow_gbps.size() == 4);
  double sum = 0;
  for (double f : r.second_half.flow_gbps) {
    CHECK(f == doctest::Approx(10.0).epsilon(0.01));
    sum += f;
  }
  CHECK(sum == doctest::Approx(40.0).epsilon(1e-3));
  CHECK(r.second_half.jain_fairness > 0.9999);
  // Bounded queue, well below Kmax.
  CHECK(r.peak_queue_bytes < 100e3);
  CHECK(r.convergence_us.has_value());

  // Vendor defaults, eight identical flows at 400 Gb/s starting at their fair
  // share: the port stays full.
  FluidScenario v{.senders = 8,
                  .feedback_delay_us = 10,
                  .duration_us = 5000,
                  .start_rate_fraction = 1.0 / 8,
                  .trace_points = 0};
  const FluidResult rv = run(vendor_default_dcqcn(), vendor_default_red(), v);
  CHECK(rv.distinct_flows == 1);
  CHECK(rv.second_half.utilization > 0.99);
  CHECK(rv.second_half.jain_fairness == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(rv.peak_queue_bytes < vendor_default_red().kmax_bytes);
}

TEST_CASE("dcqcn_fluid: long-run averages sit at the independently solved fixed point") {
  // Vendor defaults, 8 x 400 Gb/s into 400 Gb/s, τ* = 4 µs: the trajectory
  // settles, so its second-half averages are the equilibrium.
  const DcqcnModelParams params = vendor_default_dcqcn();
  const RedMarking red = vendor_default_red();
  FluidScenario s{.senders = 8,
                  .feedback_delay_us = 4,
                  .duration_us = 10'000,
                  .start_rate_fraction = 1.0 / 8,
                  .trace_points = 0};
  const FluidResult r = run(params, red, s);

  // Independent equilibrium: with R_C = R' = C/N, dR_T/dt = 0 and dR_C/dt = 0
  // give R·α·a² = τ²·R_AI·(evB·(1-p)^{FB} + evT·(1-p)^{FTR})·(evB + evT), α from
  // dα/dt = 0; solved by bisection on the std::pow formulas.
  const double pkt = s.packet_bytes;
  const Naive nv(params, pkt);
  const double R = bpus(400.0) / pkt / 8;
  auto f = [&](double p) {
    const double a = nv.a(p, R), al = nv.alpha_target(p, R);
    const double eb = nv.ev_b(p, R), et = nv.ev_t(p, R);
    const double ai = eb * std::pow(1 - p, nv.f * nv.b) + et * std::pow(1 - p, nv.f * nv.timer * R);
    return R * al * a * a - nv.tau * nv.tau * nv.rai * ai * (eb + et);
  };
  double lo = 1e-9, hi = 0.5;
  REQUIRE(f(lo) < 0);
  REQUIRE(f(hi) > 0);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  const double p_star = lo;
  const double q_star = red.kmin_bytes + p_star / red.pmax * (red.kmax_bytes - red.kmin_bytes);
  const double alpha_star = nv.alpha_target(p_star, R);

  auto fp = dcqcn_fixed_point(params, red, s);
  REQUIRE(fp.ok());
  CHECK(fp->congested);
  CHECK(fp->on_red_slope);
  CHECK(rel(fp->marking_probability, p_star) < 1e-9);
  CHECK(rel(fp->queue_bytes, q_star) < 1e-9);
  CHECK(rel(fp->alpha, alpha_star) < 1e-9);
  CHECK(fp->rate_gbps == doctest::Approx(50.0).epsilon(1e-12));
  CHECK(fp->target_rate_gbps > fp->rate_gbps);
  CHECK(fp->target_rate_gbps < 400.0);  // the R_T cap does not bind

  // The simulation's long-run averages.
  CHECK(rel(r.second_half.queue_bytes, q_star) < 5e-3);
  CHECK(rel(r.second_half.marking_probability, p_star) < 5e-3);
  CHECK(rel(r.second_half.alpha, alpha_star) < 5e-3);
  CHECK(r.second_half.utilization == doctest::Approx(1.0).epsilon(1e-4));
  // dα/dt = 0 on average: α ≈ 1 - (1 - p)^{τ'R} at the averaged p.
  CHECK(rel(r.second_half.alpha, nv.alpha_target(r.second_half.marking_probability, R)) < 5e-3);

  // Not congested: no queue, line rate.
  FluidScenario light = s;
  light.senders = 1;
  light.bottleneck_gbps = 800;
  auto fl = dcqcn_fixed_point(params, red, light);
  REQUIRE(fl.ok());
  CHECK_FALSE(fl->congested);
  CHECK(fl->marking_probability == 0.0);
  CHECK(fl->queue_bytes == 0.0);
  CHECK(fl->rate_gbps == 400.0);
}

TEST_CASE("dcqcn_fluid: bytes are conserved and delivery never exceeds capacity") {
  struct Case {
    DcqcnModelParams params;
    RedMarking red;
    FluidScenario s;
  };
  FluidScenario incast{.senders = 8, .feedback_delay_us = 10, .duration_us = 2000};
  FluidScenario staggered{.senders = 5,
                          .line_gbps = 100,
                          .bottleneck_gbps = 200,
                          .feedback_delay_us = 6,
                          .duration_us = 3000};
  staggered.start_us = {0, 100, 100, 700, 2900};
  staggered.start_rate_fractions = {1.0, 0.5, 0.5, 0.25, 1.0};
  FluidScenario idle{.senders = 2, .line_gbps = 10, .bottleneck_gbps = 100, .duration_us = 500};
  const std::vector<Case> cases = {{vendor_default_dcqcn(), vendor_default_red(), incast},
                                   {paper_dcqcn(), paper_red(), incast},
                                   {vendor_default_dcqcn(), paper_red(), staggered},
                                   {paper_dcqcn(), vendor_default_red(), idle}};
  for (const Case& c : cases) {
    const FluidResult r = run(c.params, c.red, c.s);
    CAPTURE(c.s.senders);
    CHECK(r.sent_bytes > 0);
    CHECK(std::abs(r.sent_bytes - r.delivered_bytes - r.final_queue_bytes) <= 1e-9 * r.sent_bytes);
    CHECK(r.delivered_bytes <= bpus(c.s.bottleneck_gbps) * r.simulated_us * (1 + 1e-12));
    CHECK(r.utilization <= 1 + 1e-12);
    CHECK(r.final_queue_bytes >= 0);
    CHECK(r.peak_queue_bytes >= r.final_queue_bytes);
    CHECK(r.marked_fraction >= 0);
    CHECK(r.marked_fraction <= 1);
    CHECK(r.simulated_us == doctest::Approx(c.s.duration_us).epsilon(1e-9));
  }
  // Until the first CNP arrives (τ*) an 8:1 line-rate incast adds exactly
  // (N - 1)·C·τ* = 7 x 500 KB to the queue.
  FluidScenario first_rtt = incast;
  first_rtt.duration_us = first_rtt.feedback_delay_us;
  const FluidResult r = run(vendor_default_dcqcn(), vendor_default_red(), first_rtt);
  CHECK(r.final_queue_bytes == doctest::Approx(7 * 500e3).epsilon(1e-9));
  CHECK(r.sent_bytes == doctest::Approx(8 * 500e3).epsilon(1e-9));
}

TEST_CASE("dcqcn_fluid: merging identical flows changes nothing") {
  FluidScenario s{.senders = 8, .feedback_delay_us = 10, .duration_us = 1000, .traced_flows = 8};
  const FluidResult merged = run(vendor_default_dcqcn(), vendor_default_red(), s);
  s.merge_identical_flows = false;
  const FluidResult each = run(vendor_default_dcqcn(), vendor_default_red(), s);
  CHECK(merged.distinct_flows == 1);
  CHECK(each.distinct_flows == 8);
  CHECK(rel(merged.peak_queue_bytes, each.peak_queue_bytes) < 1e-12);
  CHECK(rel(merged.sent_bytes, each.sent_bytes) < 1e-12);
  CHECK(rel(merged.utilization, each.utilization) < 1e-12);
  CHECK(rel(merged.marked_fraction, each.marked_fraction) < 1e-12);
  REQUIRE(merged.trace.t_us.size() == each.trace.t_us.size());
  for (size_t f = 0; f < 8; ++f) {
    for (size_t i = 0; i < merged.trace.t_us.size(); ++i) {
      CHECK(merged.trace.flow_gbps[f][i] == each.trace.flow_gbps[f][i]);
    }
  }
  // Two groups: flows with equal (start, rate) share a trajectory.
  FluidScenario g{.senders = 6, .feedback_delay_us = 10, .duration_us = 500, .traced_flows = 6};
  g.start_us = {0, 50, 0, 50, 0, 50};
  const FluidResult rg = run(vendor_default_dcqcn(), vendor_default_red(), g);
  CHECK(rg.distinct_flows == 2);
  CHECK(rg.trace.flow_gbps[0] == rg.trace.flow_gbps[2]);
  CHECK(rg.trace.flow_gbps[1] == rg.trace.flow_gbps[5]);
  // A flow sends nothing before its start.
  for (size_t i = 0; i < rg.trace.t_us.size(); ++i) {
    if (rg.trace.t_us[i] < 50 - 1e-9) CHECK(rg.trace.flow_gbps[1][i] == 0.0);
    if (rg.trace.t_us[i] >= 50) CHECK(rg.trace.flow_gbps[1][i] > 0.0);
  }
}

TEST_CASE("dcqcn_fluid: results converge as the step shrinks") {
  for (const bool vendor : {true, false}) {
    FluidScenario s{.senders = 8, .feedback_delay_us = 10, .duration_us = 1500, .trace_points = 0};
    const DcqcnModelParams p = vendor ? vendor_default_dcqcn() : paper_dcqcn();
    const RedMarking red = vendor ? vendor_default_red() : paper_red();
    const FluidResult coarse = run(p, red, s);
    s.dt_us = coarse.dt_us / 4;
    const FluidResult fine = run(p, red, s);
    CAPTURE(vendor);
    CHECK(fine.dt_us == doctest::Approx(coarse.dt_us / 4).epsilon(1e-12));
    CHECK(fine.steps == 4 * coarse.steps);
    CHECK(rel(coarse.peak_queue_bytes, fine.peak_queue_bytes) < 5e-3);
    CHECK(std::abs(coarse.utilization - fine.utilization) < 2e-3);
    CHECK(std::abs(coarse.marked_fraction - fine.marked_fraction) < 5e-3);
  }
  // The automatic step divides τ* exactly.
  FluidScenario s{.feedback_delay_us = 7.3, .duration_us = 100};
  const FluidResult r = run(vendor_default_dcqcn(), vendor_default_red(), s);
  const double m = s.feedback_delay_us / r.dt_us;
  CHECK(m == doctest::Approx(std::round(m)).epsilon(1e-12));
  s.dt_us = 1000.0;  // larger than τ*: reduced to τ*
  CHECK(run(vendor_default_dcqcn(), vendor_default_red(), s).dt_us == 7.3);
}

TEST_CASE("dcqcn_fluid: same input, same output") {
  FluidScenario s{.senders = 6, .feedback_delay_us = 5, .duration_us = 800};
  s.start_us = {0, 10, 20, 30, 40, 50};
  const FluidResult a = run(vendor_default_dcqcn(), vendor_default_red(), s);
  const FluidResult b = run(vendor_default_dcqcn(), vendor_default_red(), s);
  CHECK(a.peak_queue_bytes == b.peak_queue_bytes);
  CHECK(a.sent_bytes == b.sent_bytes);
  CHECK(a.trace.queue_bytes == b.trace.queue_bytes);
  CHECK(a.trace.flow_gbps == b.trace.flow_gbps);
  CHECK(a.second_half.flow_gbps == b.second_half.flow_gbps);
}

TEST_CASE("dcqcn_fluid: vendor and paper profiles") {
  const DcqcnModelParams v = vendor_default_dcqcn();
  CHECK(v.g == 1 - 1019.0 / 1024);
  CHECK(v.alpha_period_us == 1);
  CHECK(v.rate_decrease_period_us == 4);
  CHECK(v.rate_increase_timer_us == 300);
  CHECK(v.byte_counter_bytes == 32767);
  CHECK(v.fast_recovery_steps == 1);
  CHECK(v.rai_mbps == 5);
  CHECK(v.rhai_mbps == 50);
  CHECK(v.min_rate_mbps == 1);
  CHECK(v.initial_alpha == 1023.0 / 1024);
  const DcqcnModelParams p = paper_dcqcn();
  CHECK(p.g == 1.0 / 256);
  CHECK(p.alpha_period_us == 55);
  CHECK(p.rate_decrease_period_us == 50);
  CHECK(p.rate_increase_timer_us == 55);
  CHECK(p.byte_counter_bytes == 10e6);
  CHECK(p.fast_recovery_steps == 5);
  CHECK(p.rai_mbps == 40);
  const RedMarking vr = vendor_default_red(), pr = paper_red();
  CHECK(vr.kmin_bytes == 150e3);
  CHECK(vr.kmax_bytes == 1500e3);
  CHECK(vr.pmax == 1.0);
  CHECK(pr.kmin_bytes == 5e3);
  CHECK(pr.kmax_bytes == 200e3);
  CHECK(pr.pmax == 0.01);
  CHECK(railyard::cc::validate_dcqcn(v).ok());
  CHECK(railyard::cc::validate_dcqcn(p).ok());
  CHECK(railyard::cc::validate_red(vr).ok());
  CHECK(railyard::cc::validate_red(pr).ok());
}

TEST_CASE("dcqcn_fluid: errors name the field and the value") {
  const DcqcnModelParams p = vendor_default_dcqcn();
  const RedMarking red = vendor_default_red();
  const FluidScenario s{.duration_us = 100};
  auto message = [&](const DcqcnModelParams& pp, const RedMarking& rr, const FluidScenario& ss) {
    auto r = simulate_dcqcn(pp, rr, ss);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  {
    FluidScenario b = s;
    b.senders = 0;
    CHECK(message(p, red, b) == "senders=0: must be in [1, 1048576]");
  }
  {
    FluidScenario b = s;
    b.bottleneck_gbps = 0;
    CHECK(message(p, red, b) == "bottleneck_gbps=0: must be a finite number > 0");
    b.bottleneck_gbps = -400;
    CHECK(message(p, red, b) == "bottleneck_gbps=-400: must be a finite number > 0");
  }
  {
    FluidScenario b = s;
    b.line_gbps = nan;
    CHECK(message(p, red, b) == "line_gbps=nan: must be a finite number > 0");
    b.line_gbps = inf;
    CHECK(message(p, red, b) == "line_gbps=inf: must be a finite number > 0");
  }
  {
    RedMarking b = red;
    b.kmin_bytes = 300'000;
    b.kmax_bytes = 200'000;
    CHECK(message(p, b, s) == "kmin_bytes=300000: must be <= kmax_bytes=200000");
    b = red;
    b.pmax = 0;
    CHECK(message(p, b, s) == "pmax=0: must be in (0, 1]");
    b.pmax = 1.5;
    CHECK(message(p, b, s) == "pmax=1.5: must be in (0, 1]");
    b.pmax = nan;
    CHECK(message(p, b, s) == "pmax=nan: must be in (0, 1]");
    b = red;
    b.kmin_bytes = nan;
    CHECK(message(p, b, s) == "kmin_bytes=nan: must be a finite number >= 0");
  }
  {
    FluidScenario b = s;
    b.dt_us = 0.0;
    CHECK(message(p, red, b) == "dt_us=0: must be a finite number > 0");
    b.dt_us = -1.0;
    CHECK(message(p, red, b) == "dt_us=-1: must be a finite number > 0");
    b.dt_us = nan;
    CHECK(message(p, red, b) == "dt_us=nan: must be a finite number > 0");
  }
  {
    FluidScenario b = s;
    b.duration_us = 1e9;
    b.dt_us = 0.1;
    CHECK(message(p, red, b) ==
          "duration_us=1000000000: needs 10000000000 steps of 0.1 us, more than 200000000");
    b = s;
    b.feedback_delay_us = 1e6;
    b.dt_us = 0.01;
    b.senders = 4;
    b.merge_identical_flows = false;
    CHECK(message(p, red, b) ==
          "feedback_delay_us=1000000: needs a delay buffer of 100000001 steps x 4 flows, more "
          "than 16777216 values");
    b = s;
    b.trace_points = 1;
    CHECK(message(p, red, b) == "trace_points=1: must be 0 or in [2, 1000000]");
    b.trace_points = 2'000'000;
    CHECK(message(p, red, b) == "trace_points=2000000: must be 0 or in [2, 1000000]");
  }
  {
    DcqcnModelParams b = p;
    b.g = 0;
    CHECK(message(b, red, s) == "g=0: must be in (0, 1]");
    b = p;
    b.rate_decrease_period_us = nan;
    CHECK(message(b, red, s) == "rate_decrease_period_us=nan: must be a finite number > 0");
    b = p;
    b.byte_counter_bytes = -1;
    CHECK(message(b, red, s) == "byte_counter_bytes=-1: must be a finite number > 0");
    b = p;
    b.fast_recovery_steps = -1;
    CHECK(message(b, red, s) == "fast_recovery_steps=-1: must be in [0, 1000]");
    b = p;
    b.initial_alpha = 1.5;
    CHECK(message(b, red, s) == "initial_alpha=1.5: must be in [0, 1]");
    b = p;
    b.min_rate_mbps = 500'000;
    CHECK(message(b, red, s) == "min_rate_mbps=500000: must be <= the line rate, line_gbps=400");
  }
  {
    FluidScenario b = s;
    b.senders = 3;
    b.start_us = {0, 1};
    CHECK(message(p, red, b) == "start_us=2 values: need one per sender (3) or none");
    b.start_us = {0, -1, 2};
    CHECK(message(p, red, b) == "start_us[1]=-1: must be a finite number >= 0");
    b.start_us = {};
    b.start_rate_fractions = {1, 0, 1};
    CHECK(message(p, red, b) == "start_rate_fractions[1]=0: must be in (0, 1]");
    b.start_rate_fractions = {};
    b.start_rate_fraction = 2;
    CHECK(message(p, red, b) == "start_rate_fraction=2: must be in (0, 1]");
    b.start_rate_fraction = 1;
    b.buffer_bytes = 0;
    CHECK(message(p, red, b) == "buffer_bytes=0: must be > 0 (infinity = no limit)");
  }
  // The fixed point validates the same way.
  FluidScenario b = s;
  b.packet_bytes = 0;
  auto fp = dcqcn_fixed_point(p, red, b);
  REQUIRE_FALSE(fp.ok());
  CHECK(fp.status().message() == "packet_bytes=0: must be a finite number > 0");
}

TEST_CASE("dcqcn_fluid: derived ConnectX settings convert, and both equilibria agree") {
  // derive.hpp's DcqcnParams (ConnectX names) → the model's parameters.
  const railyard::cc::DcqcnParams cx = railyard::cc::connectx_default_dcqcn();
  const DcqcnModelParams m = railyard::cc::model_params(cx);
  const DcqcnModelParams v = vendor_default_dcqcn();
  CHECK(m.g == v.g);
  CHECK(m.alpha_period_us == v.alpha_period_us);
  CHECK(m.rate_decrease_period_us == v.rate_decrease_period_us);
  CHECK(m.rate_increase_timer_us == v.rate_increase_timer_us);
  CHECK(m.byte_counter_bytes == v.byte_counter_bytes);
  CHECK(m.fast_recovery_steps == v.fast_recovery_steps);
  CHECK(m.rai_mbps == v.rai_mbps);
  CHECK(m.rhai_mbps == v.rhai_mbps);
  CHECK(m.min_rate_mbps == v.min_rate_mbps);
  CHECK(m.max_cut_fraction == v.max_cut_fraction);
  CHECK(m.initial_alpha == doctest::Approx(v.initial_alpha).epsilon(1e-3));
  CHECK(railyard::cc::validate_dcqcn(m).ok());
  // A CNP spacing longer than the RP's decrease period sets τ.
  railyard::cc::DcqcnParams slow = cx;
  slow.min_time_between_cnps_us = 50;
  CHECK(railyard::cc::model_params(slow).rate_decrease_period_us == 50);

  // derive.hpp solves the same fixed point its own way (residual of dR_C = 0,
  // geometric bisection): the marking probabilities agree.
  for (const int32_t n : {2, 8, 32, 128}) {
    for (const double pkt : {1024.0, 4096.0}) {
      const std::optional<double> theirs = railyard::cc::dcqcn_equilibrium_p(cx, 400, n, pkt);
      FluidScenario s{.senders = n, .packet_bytes = pkt};
      auto ours = dcqcn_fixed_point(m, vendor_default_red(), s);
      REQUIRE(ours.ok());
      CAPTURE(n);
      CAPTURE(pkt);
      REQUIRE(theirs.has_value());
      CHECK(rel(ours->marking_probability, *theirs) < 1e-6);
    }
  }
}

}  // namespace railyard_test_cc_dcqcn_fluid_test
