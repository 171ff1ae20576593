// Congestion-control derivation against hand-worked figures (RTT, BDP, ECN
// thresholds, PFC headroom), the DCQCN equilibrium against an independent
// evaluation of the fixed-point equations, and the rules' properties.
#include "railyard/cc/derive.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "railyard/placement/jobs.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_cc_derive_test {

namespace {

using railyard::cc::CcInputs;
using railyard::cc::derive_cc;

std::string env(const railyard::cc::CcPlan& p, const std::string& name) {
  for (const auto& v : p.nccl_env)
    if (v.name == name) return v.value;
  return "<missing>";
}

// dR_C/dt of the DCQCN fluid model at R_C = R (packets/µs), written with plain
// pow (no expm1/log1p), for an independent check of the equilibrium solver.
double rate_drift(const railyard::cc::DcqcnParams& q, double R, double p, double pkt) {
  const double x = 1 - p, B = q.byte_counter_bytes / pkt, T = q.increase_timer_us;
  const double tau = q.decrease_period_us, rai = q.ai_mbps * 0.125 / pkt;
  const double alpha = 1 - std::pow(x, q.alpha_period_us * R);
  const double cut = 1 - std::pow(x, tau * R);
  const double eb = p / (std::pow(x, -B) - 1), et = p / (std::pow(x, -T * R) - 1);
  const double F = q.fast_recovery;
  const double gap = tau * rai * R * (std::pow(x, F * B) * eb + std::pow(x, F * T * R) * et) / cut;
  return -R * alpha / (2 * tau) * cut + 0.5 * gap * R * (eb + et);
}

}  // namespace

TEST_CASE("cc: RTT, BDP and ECN thresholds on h100-1024 match the hand computation") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.incast = 8;
  auto plan = derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  // via a spine: cables 2 x (30 + 50) m at 5 ns/m, 3 switches x 600 ns, 2 NICs x
  // 500 ns, one 4158-byte frame at 400 Gb/s (83.16 ns) -> 3683.16 ns one way.
  REQUIRE(plan->paths.size() == 2);
  CHECK(plan->paths[1].path == "via_spine");
  CHECK(plan->paths[1].rtt_us == doctest::Approx(2 * 3.68316));
  const double bdp = 50.0 * 2 * 3683.16;  // 400 Gb/s = 50 bytes/ns
  CHECK(plan->paths[1].bdp_bytes == doctest::Approx(bdp));
  CHECK(plan->paths[0].rtt_us == doctest::Approx(2 * (0.300 + 0.600 + 1.000 + 0.08316)));
  // The recommendation (without a search): the switch vendor's curve on every tier.
  REQUIRE(plan->ecn.size() == 3);  // leaf->host, leaf->spine, spine->leaf
  for (const auto& e : plan->ecn) {
    CHECK(e.kmin_bytes == 150000);
    CHECK(e.kmax_bytes == 1500000);
    CHECK(e.pmax == 1.0);
    CHECK(e.incast_burst_bytes == doctest::Approx(7 * bdp));
  }
  // The DCQCN recommendation without a search: the ConnectX defaults.
  CHECK(plan->dcqcn.decrease_period_us == 4);
  CHECK(plan->dcqcn.increase_timer_us == 300);
  CHECK(plan->dcqcn.initial_alpha == doctest::Approx(1023.0 / 1024));
  // The rule-derived candidate, tier by tier.
  REQUIRE(plan->derived_ecn.size() == 3);
  for (const auto& e : plan->derived_ecn) {
    CHECK(e.kmin_bytes == 63000);   // ceil(0.17 x 368,316 / 1000) KB
    CHECK(e.kmax_bytes == 800000);  // ceil((63,000 + 2 x 368,316) / 1000) KB
    CHECK(e.pmax == doctest::Approx(2 * e.equilibrium_p));
    CHECK(e.incast_burst_bytes == doctest::Approx(7 * bdp));
    CHECK(e.fits);
  }
  // PFC headroom: longest cable 50 m (250 ns); 2(400 x 250 + 400 x 1228.8) bits
  // + 2 x 9216 x 8 + 463,360 bits.
  const double bits = 2 * (400 * 250.0 + 400 * 1228.8) + 2 * 9216 * 8 + 463360;
  CHECK(plan->pfc_headroom_bytes == doctest::Approx(bits / 8));
  // Buffer: 160 MB / 51.2 Tb/s x 64 x 400 Gb/s = 80 MB shared, half per hot port.
  CHECK(plan->buffer_bytes_per_port == doctest::Approx(40e6));
}

TEST_CASE("cc: the DCQCN equilibrium solves the fixed-point equations and grows with N") {
  const auto q = railyard::cc::connectx_default_dcqcn();
  double last = 0;
  for (int n : {2, 4, 8, 16, 64, 256}) {
    CAPTURE(n);
    const double pkt = 4158;
    const auto found = railyard::cc::dcqcn_equilibrium_p(q, 400, n, pkt);
    REQUIRE(found.has_value());
    const double p = *found;
    const double R = 400 * 125.0 / pkt / n;
    CHECK(p > last);
    last = p;
    // dR_C/dt = 0 at p*, positive below, negative above.
    const double scale = R * (1 - std::pow(1 - p, q.alpha_period_us * R)) / q.decrease_period_us;
    CHECK(std::abs(rate_drift(q, R, p, pkt)) < 1e-6 * scale);
    CHECK(rate_drift(q, R, p * 0.9, pkt) > 0);
    CHECK(rate_drift(q, R, p * 1.1, pkt) < 0);
  }
}

TEST_CASE("cc: incast that overflows the buffer is flagged with a remedy") {
  auto cluster = railyard::topology::make_cluster("h100-16k-3tier");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.incast = 64;
  in.buffer_bytes_per_port = 8e6;
  auto plan = derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  REQUIRE(plan->paths.size() == 3);
  CHECK(plan->ecn.size() == 5);
  CHECK_FALSE(plan->ecn.front().fits);
  REQUIRE_FALSE(plan->warnings.empty());
  CHECK(plan->warnings.front().find("6.25 Gb/s") != std::string::npos);  // 400 / 64
  in.incast = 4;
  auto small = derive_cc(*cluster, in);
  REQUIRE(small.ok());
  CHECK(small->ecn.front().fits);
  CHECK(small->warnings.empty());
}

TEST_CASE("cc: NCCL environment follows the fabric") {
  auto rail = railyard::topology::make_cluster("h100-1024-2to1");
  auto tor = railyard::topology::make_cluster("h100-1024-tor");
  auto dual = railyard::topology::make_cluster("h100-1024-dualplane");
  REQUIRE(rail.ok());
  REQUIRE(tor.ok());
  REQUIRE(dual.ok());
  CcInputs in;
  auto r = derive_cc(*rail, in);
  auto t = derive_cc(*tor, in);
  auto d = derive_cc(*dual, in);
  REQUIRE(r.ok());
  REQUIRE(t.ok());
  REQUIRE(d.ok());
  CHECK(env(*r, "NCCL_CROSS_NIC") == "0");
  CHECK(env(*t, "NCCL_CROSS_NIC") == "2");
  CHECK(env(*r, "NCCL_IB_QPS_PER_CONNECTION") == "8");  // 4 MiB / 512 KB, 16 uplinks
  CHECK(env(*r, "NCCL_IB_SPLIT_DATA_ON_QPS") == "1");
  CHECK(env(*r, "NCCL_IB_TC") == "106");
  CHECK(env(*r, "NCCL_IB_HCA") ==
        "=mlx5_0:1:0:0,mlx5_1:1:1:0,mlx5_2:1:2:0,mlx5_3:1:3:0,mlx5_4:1:4:0,mlx5_5:1:5:0,"
        "mlx5_6:1:6:0,mlx5_7:1:7:0");
  CHECK(env(*d, "NCCL_IB_HCA").find("mlx5_15:2:7:1") != std::string::npos);
  CHECK(env(*d, "NCCL_MIN_NCHANNELS") == "16");
  in.message_bytes = 1 << 20;
  auto small = derive_cc(*rail, in);
  REQUIRE(small.ok());
  CHECK(env(*small, "NCCL_IB_QPS_PER_CONNECTION") == "2");
  for (const auto& v : r->nccl_env) CHECK_FALSE(v.reason.empty());
  for (const auto& v : r->dcqcn_settings) CHECK_FALSE(v.reason.empty());
}

TEST_CASE("cc: per-QP rate limits keep each tenant within its spine lanes") {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  auto placed = railyard::placement::place_jobs(cluster->descriptor,
                                                "a:gpus=384,tenant=t1;b:gpus=384,tenant=t2", {});
  REQUIRE(placed.ok());
  CcInputs in;
  in.tenants = placed->placed;
  in.qps_per_nic = 4;
  auto plan = derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  REQUIRE(plan->rate_limits.size() == 2);
  for (const auto& lim : plan->rate_limits) {
    CAPTURE(lim.name);
    CHECK(lim.value > 0);
    CHECK(lim.value <= 400e6 / 4);  // never above the NIC's share per QP
    CHECK(lim.unit == "kbps");
  }
}

TEST_CASE("cc: bad input names the field and value") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  auto msg = [](const auto& r) { return std::string(r.status().message()); };
  CcInputs in;
  in.incast = 0;
  auto a = derive_cc(*cluster, in);
  REQUIRE_FALSE(a.ok());
  CHECK(msg(a).find("incast=0") != std::string::npos);
  in = {};
  in.buffer_bytes_per_port = 100e3;  // below one BDP (368 KB)
  auto b = derive_cc(*cluster, in);
  REQUIRE_FALSE(b.ok());
  CHECK(msg(b).find("buffer_bytes=100000") != std::string::npos);
  auto fast = railyard::topology::make_cluster("rail_fat_tree:hosts=64,nic_gbps=800");
  REQUIRE(fast.ok());
  auto c = derive_cc(*fast, {});
  REQUIRE_FALSE(c.ok());
  CHECK(msg(c).find("nic_gbps=800") != std::string::npos);
  in = {};
  in.mtu_bytes = 100;
  auto d = derive_cc(*cluster, in);
  REQUIRE_FALSE(d.ok());
  CHECK(msg(d).find("mtu_bytes=100") != std::string::npos);
  in = {};
  in.buffer_bytes_per_port = 2 * railyard::cc::kMaxBufferBytesPerPort;  // a typo, not a switch
  auto e = derive_cc(*cluster, in);
  REQUIRE_FALSE(e.ok());
  CHECK(railyard::has_field(e.status(), "buffer_bytes"));
}

TEST_CASE("cc: same input, same plan") {
  auto cluster = railyard::topology::make_cluster("h100-16k-3tier");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.incast = 8;
  auto a = derive_cc(*cluster, in);
  auto b = derive_cc(*cluster, in);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->ecn.front().kmin_bytes == b->ecn.front().kmin_bytes);
  CHECK(a->nccl_env == b->nccl_env);
  CHECK(a->ecn.front().reason == b->ecn.front().reason);
}

TEST_CASE("cc: --cable-m, switch latency and switch MTU feed the RTTs and the PFC headroom") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.cable_m = 100;         // every cable 100 m
  in.latency.switch_ns = 800;
  in.switch_mtu_bytes = 4200;
  auto plan = derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  // via a spine: 4 cables x 100 m at 5 ns/m = 2000 ns, 3 switches x 800 ns, 2 NICs
  // x 500 ns, one 4158-byte frame at 50 B/ns (83.16 ns): 5483.16 ns one way.
  CHECK(plan->paths[1].cable_m == doctest::Approx(400));
  CHECK(plan->paths[1].rtt_us == doctest::Approx(2 * 5.48316));
  // Headroom: longest cable 100 m (500 ns); 2(400 x 500 + 400 x 1228.8) + 2 x 4200 x 8
  // + 463,360 bits.
  const double bits = 2 * (400 * 500.0 + 400 * 1228.8) + 2 * 4200 * 8 + 463360;
  CHECK(plan->pfc.headroom_bytes == doctest::Approx(bits / 8));
  CHECK(plan->pfc.cable_m == doctest::Approx(100));
  CHECK(plan->pfc.xon_offset_bytes == doctest::Approx(8400));
  CHECK(plan->pfc_reason.find("2 * 4200 B (switch MTU)") != std::string::npos);
}

TEST_CASE("cc: NSCC's target is a queueing-delay target of one base RTT, HPCC's N is stated") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.incast = 8;
  auto plan = derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  auto find = [](const std::vector<railyard::cc::Value>& vs, const std::string& name) {
    for (const auto& v : vs)
      if (v.name == name) return v;
    return railyard::cc::Value{};
  };
  // uet-htsim initNsccParams: _target_Qdelay = network RTT without trimming.
  const auto target = find(plan->nscc, "target_delay");
  CHECK(target.value == doctest::Approx(plan->paths.back().rtt_us));
  CHECK(target.reason.find("queueing-delay target") != std::string::npos);
  CHECK(find(plan->nscc, "b").value == doctest::Approx(plan->paths.back().rtt_us / 12));
  CHECK(find(plan->nscc, "md_factor").reason.find("max(1 - 0.8 (delay - target) / delay, 0.5)") !=
        std::string::npos);
  CHECK(find(plan->hpcc, "w_ai").reason.find("flows sharing a link") != std::string::npos);
}

TEST_CASE("cc: bad cable length, switch latency and switch MTU name the field") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CcInputs in;
  in.cable_m = -1;
  CHECK(railyard::has_field(derive_cc(*cluster, in).status(), "cable_m"));
  in = {};
  in.latency.switch_ns = 1e6;
  CHECK(railyard::has_field(derive_cc(*cluster, in).status(), "switch_ns"));
  in = {};
  in.switch_mtu_bytes = 1500;  // below the 4158-byte RoCE frame
  auto s = derive_cc(*cluster, in);
  REQUIRE_FALSE(s.ok());
  CHECK(railyard::has_field(s.status(), "switch_mtu_bytes"));
  CHECK(std::string(s.status().message()).find("switch_mtu_bytes=1500") != std::string::npos);
}

}  // namespace railyard_test_cc_derive_test
