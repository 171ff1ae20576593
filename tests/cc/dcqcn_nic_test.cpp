// The ConnectX reaction point, event by event, against sequences worked by hand
// from the documented state machine (docs/models.md#dcqcn-nic): the first CNP,
// the cut at the next rate-decrease tick, fast recovery, additive and hyper
// increase by byte counter and timer, the two target-rate clamp flags, the cut
// bounds (rpg_gd, rpg_min_dec_fac, rpg_min_rate) and the paper's rules.
#include "railyard/cc/dcqcn_nic.hpp"

#include <doctest/doctest.h>

#include <cmath>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_dcqcn_nic_test {

namespace {

using railyard::cc::DcqcnParams;
using railyard::cc::NicReadings;
using railyard::cc::ReactionPoint;

// The defaults with g, α and the rates kept simple enough to follow by hand.
DcqcnParams defaults() { return railyard::cc::connectx_default_dcqcn(); }

constexpr double kG = 5.0 / 1024;       // 1 - 1019/1024
constexpr double kAlpha0 = 1023.0 / 1024;
constexpr double kByte = 32767;

}  // namespace

TEST_CASE("dcqcn nic: a flow is unlimited until its first CNP, the cut waits for the next tick") {
  ReactionPoint rp(defaults(), NicReadings{}, 400);
  CHECK_FALSE(rp.limited());
  CHECK(rp.rate_gbps() == 400);
  CHECK(rp.next_event_us() == ReactionPoint::kNever);
  rp.on_bytes_sent(1, 10 * kByte);  // no limiter: the byte counter does not run
  CHECK(rp.increases() == 0);

  rp.on_cnp(10);
  CHECK(rp.limited());
  CHECK(rp.rate_gbps() == 400);  // rate_to_set_on_first_cnp = 0: unchanged
  CHECK(rp.alpha() == doctest::Approx(kAlpha0));
  CHECK(rp.next_event_us() == doctest::Approx(11));  // the first α tick

  // α ticks at 11, 12, 13 and 14 with no CNP sample (the first CNP feeds none),
  // then the cut at 14 (the first rate-decrease tick, 4 µs after the CNP).
  rp.advance_to(13.9);
  CHECK(rp.cuts() == 0);
  CHECK(rp.alpha() == doctest::Approx(kAlpha0 * std::pow(1 - kG, 3)));
  rp.advance_to(14);
  const double a = kAlpha0 * std::pow(1 - kG, 4);
  CHECK(rp.alpha() == doctest::Approx(a));
  REQUIRE(rp.cuts() == 1);
  CHECK(rp.rate_gbps() == doctest::Approx(400 * (1 - a / 2)));
  CHECK(rp.target_gbps() == 400);  // no increase since the "last cut": no clamp
  CHECK(rp.byte_stage() == 0);
  CHECK(rp.timer_stage() == 0);
}

TEST_CASE("dcqcn nic: fast recovery, additive and hyper increase by byte counter and timer") {
  ReactionPoint rp(defaults(), NicReadings{}, 400);
  rp.on_cnp(0);
  rp.advance_to(4);  // cut 1 at t = 4
  const double a4 = kAlpha0 * std::pow(1 - kG, 4);
  double rc = 400 * (1 - a4 / 2), rt = 400;
  REQUIRE(rp.rate_gbps() == doctest::Approx(rc));

  // Byte event 1 (stages b=0, t=0 < F=1): fast recovery, the target stays.
  rp.on_bytes_sent(5, kByte);
  rc = (rt + rc) / 2;
  CHECK(rp.rate_gbps() == doctest::Approx(rc));
  CHECK(rp.target_gbps() == rt);
  CHECK(rp.byte_stage() == 1);

  // A CNP at 6: cut 2 at the tick at 8. The rate rose by the byte counter since
  // cut 1, so the target takes the current rate first.
  rp.on_cnp(6);
  rp.advance_to(8);
  REQUIRE(rp.cuts() == 2);
  // α: ticks 5 and 6 without a sample, the tick at 7 with the CNP of 6, tick 8 without.
  const double a8 = ((a4 * (1 - kG) * (1 - kG)) * (1 - kG) + kG) * (1 - kG);
  CHECK(rp.alpha() == doctest::Approx(a8));
  rt = rc;
  rc = rc * (1 - a8 / 2);
  CHECK(rp.target_gbps() == doctest::Approx(rt));
  CHECK(rp.rate_gbps() == doctest::Approx(rc));

  // Byte event (b=0,t=0): fast recovery. Byte event (b=1,t=0): additive, +5 Mb/s.
  rp.on_bytes_sent(9, kByte);
  rc = (rt + rc) / 2;
  CHECK(rp.rate_gbps() == doctest::Approx(rc));
  rp.on_bytes_sent(10, kByte);
  rt += 0.005;
  rc = (rt + rc) / 2;
  CHECK(rp.target_gbps() == doctest::Approx(rt));
  CHECK(rp.rate_gbps() == doctest::Approx(rc));

  // The timer fires 300 µs after cut 2, at 308 (b=2, t=0): additive.
  rp.advance_to(308);
  rt += 0.005;
  rc = (rt + rc) / 2;
  CHECK(rp.timer_stage() == 1);
  CHECK(rp.target_gbps() == doctest::Approx(rt));
  CHECK(rp.rate_gbps() == doctest::Approx(rc));

  // Byte event (b=2, t=1): both counters past F = 1: hyper, i = min(2,1) - 1 + 1 = 1.
  rp.on_bytes_sent(309, kByte);
  rt += 0.050;
  rc = (rt + rc) / 2;
  CHECK(rp.target_gbps() == doctest::Approx(rt));
  // Timer at 608 (b=3, t=1): hyper, i = 1; then byte event (b=3, t=2): i = 2.
  rp.advance_to(608);
  rt += 0.050;
  rc = (rt + rc) / 2;
  rp.on_bytes_sent(609, kByte);
  rt += 2 * 0.050;
  rc = (rt + rc) / 2;
  CHECK(rp.target_gbps() == doctest::Approx(rt));
  CHECK(rp.rate_gbps() == doctest::Approx(rc));
  CHECK(rp.byte_stage() == 4);
  CHECK(rp.timer_stage() == 2);
}

TEST_CASE("dcqcn nic: the target-rate clamp flags") {
  // After a cut, one timer increase, then a second cut.
  auto run = [](bool clamp, bool after_time_inc) {
    DcqcnParams p = defaults();
    p.clamp_tgt_rate = clamp;
    p.clamp_tgt_rate_after_time_inc = after_time_inc;
    ReactionPoint rp(p, NicReadings{}, 400);
    rp.on_cnp(0);
    rp.advance_to(4);                // cut 1
    rp.advance_to(304);              // timer: fast recovery (no bytes sent)
    const double before = rp.rate_gbps();
    rp.on_cnp(305);
    rp.advance_to(308);              // cut 2
    return std::pair{rp.target_gbps(), before};
  };
  // Defaults (clamp 0, after_time_inc 1): the timer increase counts: clamp.
  auto [t1, r1] = run(false, true);
  CHECK(t1 == doctest::Approx(r1));
  // Neither flag: a timer increase does not count: the target stays at 400.
  auto [t2, r2] = run(false, false);
  CHECK(t2 == 400);
  CHECK(r2 < 400);
  // clamp_tgt_rate: always.
  auto [t3, r3] = run(true, false);
  CHECK(t3 == doctest::Approx(r3));

  // Back-to-back cuts with no increase between: the target is kept (defaults).
  ReactionPoint rp(defaults(), NicReadings{}, 400);
  rp.on_cnp(0);
  rp.advance_to(4);
  rp.on_cnp(5);
  rp.advance_to(8);
  CHECK(rp.cuts() == 2);
  CHECK(rp.target_gbps() == 400);
  // With clamp_tgt_rate the paper's rule holds on every cut.
  DcqcnParams p = defaults();
  p.clamp_tgt_rate = true;
  ReactionPoint paper(p, NicReadings{}, 400);
  paper.on_cnp(0);
  paper.advance_to(4);
  const double after_first = paper.rate_gbps();
  paper.on_cnp(5);
  paper.advance_to(8);
  CHECK(paper.target_gbps() == doctest::Approx(after_first));
}

TEST_CASE("dcqcn nic: the cut's bounds: rpg_gd, rpg_min_dec_fac, rpg_min_rate, several CNPs, one cut") {
  DcqcnParams p = defaults();
  p.initial_alpha = 1.0;
  p.rate_reduce_gd = 10;  // a cut of alpha x 1024 / 1024 = the whole rate...
  ReactionPoint rp(p, NicReadings{}, 400);
  rp.on_cnp(0);
  rp.on_cnp(1);
  rp.on_cnp(2.5);  // three CNPs in one period: one cut
  rp.advance_to(4);
  CHECK(rp.cuts() == 1);
  CHECK(rp.rate_gbps() == doctest::Approx(200));  // ...bounded: new >= 50 % of old
  // rpg_min_rate: repeated cuts stop at 1 Mb/s.
  for (int k = 1; k < 40; ++k) {
    rp.on_cnp(4.0 * k + 0.5);
    rp.advance_to(4.0 * k + 4);
  }
  CHECK(rp.rate_gbps() == doctest::Approx(0.001));
  // rate_to_set_on_first_cnp: the limiter starts there.
  DcqcnParams q = defaults();
  q.rate_on_first_cnp_mbps = 100'000;
  ReactionPoint first(q, NicReadings{}, 400);
  first.on_cnp(0);
  CHECK(first.rate_gbps() == 100);
  CHECK(first.target_gbps() == 100);
}

TEST_CASE("dcqcn nic: readings: dce_tcp_g as the new sample's weight, constant hyper step") {
  NicReadings r;
  r.alpha_gain = railyard::cc::AlphaGainReading::kNewSampleWeight;
  ReactionPoint rp(defaults(), r, 400);
  rp.on_cnp(0);
  rp.advance_to(1);  // one tick without a sample: α × (1 − 1019/1024)
  CHECK(rp.alpha() == doctest::Approx(kAlpha0 * 5.0 / 1024));
  CHECK(railyard::cc::alpha_gain(defaults(), r.alpha_gain) == doctest::Approx(1019.0 / 1024));

  // A constant hyper step against the growing one, from a target below line
  // rate (clamp_tgt_rate: the target follows the rate at the first cut).
  auto hyper = [](railyard::cc::HyperStep step) {
    DcqcnParams p = defaults();
    p.clamp_tgt_rate = true;
    NicReadings c;
    c.hyper_step = step;
    ReactionPoint h(p, c, 400);
    h.on_cnp(0);
    h.advance_to(4);
    h.on_cnp(5);
    h.advance_to(8);                // cut 2: target = the rate after cut 1
    h.on_bytes_sent(9, 2 * kByte);  // fast recovery, additive
    h.advance_to(308);              // timer (b = 2, t = 0): additive
    h.advance_to(608);              // timer (b = 2, t = 1): hyper, i = 1
    h.on_bytes_sent(609, kByte);    // b = 2, t = 2: hyper, i = 1
    const double rt = h.target_gbps();
    h.on_bytes_sent(610, kByte);    // b = 3, t = 2: hyper, i = 2 (growing) or 1
    return h.target_gbps() - rt;
  };
  CHECK(hyper(railyard::cc::HyperStep::kConstant) == doctest::Approx(0.050));
  CHECK(hyper(railyard::cc::HyperStep::kGrowing) == doctest::Approx(0.100));
}

TEST_CASE("dcqcn nic: the paper's rules: clamp on every cut, marks reset the counters, no hyper") {
  NicReadings r;
  r.paper_semantics = true;
  ReactionPoint rp(defaults(), r, 400);
  rp.on_cnp(0);
  rp.advance_to(4);
  const double after_cut = rp.rate_gbps();
  rp.on_cnp(5);
  rp.advance_to(8);  // back to back: the target is clamped although nothing rose
  CHECK(rp.target_gbps() == doctest::Approx(after_cut));
  rp.on_bytes_sent(9, 2 * kByte);
  CHECK(rp.byte_stage() == 2);
  rp.on_mark(10);
  CHECK(rp.byte_stage() == 0);
  // Past F on both counters, the increase is additive (the fluid model has no hyper term).
  rp.on_bytes_sent(11, kByte);  // fast recovery (b = 0, t = 0)
  rp.advance_to(310);           // timer (b = 1, t = 0): additive
  const double rt = rp.target_gbps();
  rp.on_bytes_sent(311, kByte);  // b = 1, t = 1: the NIC would hyper-increase
  CHECK(rp.target_gbps() == doctest::Approx(rt + 0.005));
}

TEST_CASE("dcqcn nic: bad settings name the field") {
  DcqcnParams p = defaults();
  p.rate_reduce_gd = 12;
  auto s = railyard::cc::validate_nic_params(p);
  REQUIRE_FALSE(s.ok());
  CHECK(std::string(s.message()).find("rpg_gd=12") != std::string::npos);
  p = defaults();
  p.decrease_period_us = 0;
  s = railyard::cc::validate_nic_params(p);
  REQUIRE_FALSE(s.ok());
  CHECK(std::string(s.message()).find("rate_reduce_monitor_period_us=0") != std::string::npos);
  p = defaults();
  p.min_dec_factor = 1.5;
  CHECK_FALSE(railyard::cc::validate_nic_params(p).ok());
  CHECK(railyard::cc::validate_nic_params(defaults()).ok());
}

}  // namespace railyard_test_cc_dcqcn_nic_test
