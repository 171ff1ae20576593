// The device formats of a congestion-control plan (export/cc_config.hpp), each
// read back without railyard's writer and checked against the syntax its
// documentation gives (sources in the header and docs/cc-config.md): NVUE
// `nv set qos` command forms, SONiC config_db table and field names with numeric
// strings, the mlx5 debugfs cc_params file names and mlxconfig names, and the
// NCCL/UCX variables. Values are checked to round-trip to the plan's numbers.
#include "railyard/export/cc_config.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "railyard/placement/jobs.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_export_cc_config_test {

namespace {

using railyard::cc::CcInputs;
using railyard::cc::CcPlan;

CcPlan plan_for(const char* cluster_name, int32_t incast, double cable_m = 0) {
  auto cluster = railyard::topology::make_cluster(cluster_name);
  REQUIRE(cluster.ok());
  CcInputs in;
  in.incast = incast;
  in.cable_m = cable_m;
  auto plan = railyard::cc::derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  return *plan;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// The command part of a shell line (before "  # ").
std::string command_of(const std::string& line) {
  const size_t hash = line.find("  # ");
  return hash == std::string::npos ? line : line.substr(0, hash);
}

// A minimal JSON reader for the SONiC fragment: objects of objects whose leaves
// are strings (what config_db holds). Returns path "A/B/C" -> value.
struct FlatJson {
  std::map<std::string, std::string> leaves;
  bool ok = true;
};
void skip_ws(const std::string& s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
}
std::string read_string(const std::string& s, size_t& i, bool& ok) {
  if (i >= s.size() || s[i] != '"') return ok = false, "";
  std::string out;
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\') return ok = false, "";  // the fragment needs no escapes
    out += s[i];
  }
  ++i;
  return out;
}
void read_object(const std::string& s, size_t& i, const std::string& path, FlatJson& out) {
  skip_ws(s, i);
  if (i >= s.size() || s[i] != '{') return void(out.ok = false);
  ++i;
  skip_ws(s, i);
  if (s[i] == '}') return void(++i);
  while (out.ok) {
    skip_ws(s, i);
    const std::string key = read_string(s, i, out.ok);
    skip_ws(s, i);
    if (i >= s.size() || s[i] != ':') return void(out.ok = false);
    ++i;
    skip_ws(s, i);
    const std::string child = path.empty() ? key : path + "/" + key;
    if (s[i] == '{') {
      read_object(s, i, child, out);
    } else {
      out.leaves[child] = read_string(s, i, out.ok);
    }
    skip_ws(s, i);
    if (s[i] == ',') {
      ++i;
      continue;
    }
    if (s[i] == '}') return void(++i);
    return void(out.ok = false);
  }
}
FlatJson parse_flat(const std::string& s) {
  FlatJson out;
  size_t i = 0;
  read_object(s, i, "", out);
  skip_ws(s, i);
  if (i != s.size()) out.ok = false;
  return out;
}

bool is_number_string(const std::string& s) {
  return std::regex_match(s, std::regex("-?[0-9]+"));
}

}  // namespace

TEST_CASE("cc_config: NVUE lines are the documented nv set qos forms with the plan's values") {
  const CcPlan plan = plan_for("h100-1024", 8);
  const std::string text = railyard::exports::nvue_commands(plan);
  // NVUE Command Reference, QoS: the command forms railyard writes.
  const std::vector<std::regex> forms = {
      std::regex("nv set qos roce mode lossless"),
      std::regex("nv set qos mapping default-global trust l3"),
      std::regex("nv set qos mapping default-global dscp [0-9]+ switch-priority [0-7]"),
      std::regex("nv set qos congestion-control [a-z0-9-]+ traffic-class [0-7] ecn enable"),
      std::regex("nv set qos congestion-control [a-z0-9-]+ traffic-class [0-7] "
                 "(min-threshold|max-threshold) [0-9]+"),
      std::regex("nv set qos congestion-control [a-z0-9-]+ traffic-class [0-7] probability "
                 "([1-9]|[1-9][0-9]|100)"),
      std::regex("nv set interface \\$PORTS_[A-Z_]+ qos congestion-control profile [a-z0-9-]+"),
      std::regex("nv set qos pfc default-global switch-priority [0-7]"),
      std::regex("nv set qos pfc default-global (tx|rx) enable"),
      std::regex("nv set qos pfc default-global cable-length [0-9]+"),
      std::regex("nv set qos pfc default-global (xoff-threshold|xon-threshold|port-buffer) "
                 "[0-9]+"),
      std::regex("nv config apply"),
  };
  std::map<std::string, std::string> last;  // "min-threshold" -> value
  int commands = 0;
  for (const std::string& line : lines_of(text)) {
    CAPTURE(line);
    if (line.empty()) continue;
    if (line[0] == '#') continue;
    ++commands;
    // Every command states its unit (or that it has none) in a trailing comment.
    REQUIRE(line.find("  # ") != std::string::npos);
    const std::string cmd = command_of(line);
    bool matched = false;
    for (const std::regex& f : forms) matched = matched || std::regex_match(cmd, f);
    CHECK(matched);
    std::smatch m;
    if (std::regex_match(cmd, m, std::regex(".* ([a-z-]+) ([0-9]+)"))) last[m[1]] = m[2];
  }
  CHECK(commands >= 16);
  const auto& e = plan.ecn.front();
  CHECK(last["min-threshold"] == std::to_string(std::llround(e.kmin_bytes)));
  CHECK(last["max-threshold"] == std::to_string(std::llround(e.kmax_bytes)));
  CHECK(last["probability"] == std::to_string(std::lround(e.pmax * 100)));
  CHECK(last["xoff-threshold"] == std::to_string(std::llround(std::ceil(plan.pfc.headroom_bytes))));
  CHECK(last["xon-threshold"] == std::to_string(std::llround(plan.pfc.xon_offset_bytes)));
  CHECK(last["cable-length"] == "50");  // the 50 m leaf-spine cable of h100-1024
  CHECK(last["switch-priority"] == "3");
  CHECK(text.find("# bytes (Kmin 150 KB)") != std::string::npos);  // the switch default
  CHECK(text.back() == '\n');
  CHECK(lines_of(text).back() == "nv config apply  # apply the staged configuration (no unit)");
  CHECK(text == railyard::exports::nvue_commands(plan));  // deterministic
}

TEST_CASE("cc_config: NVUE cable-length follows --cable-m and probability stays in 1..100") {
  CcPlan plan = plan_for("h100-1024", 1, 120);
  plan.ecn = plan.derived_ecn;  // as applied when the search picks the derived curve
  const std::string text = railyard::exports::nvue_commands(plan);
  CHECK(text.find("nv set qos pfc default-global cable-length 120  # metres") != std::string::npos);
  CHECK(plan.ecn.front().pmax == doctest::Approx(0.01));
  CHECK(text.find("traffic-class 3 probability 1  # percent") != std::string::npos);
}

TEST_CASE("cc_config: SONiC fragment is config_db JSON with the documented tables and fields") {
  const CcPlan plan = plan_for("h100-1024", 8);
  const std::string text = railyard::exports::sonic_config(plan);
  const FlatJson j = parse_flat(text);
  REQUIRE(j.ok);
  // Every value a string, every numeric one a decimal integer (SONiC stores strings).
  const std::set<std::string> non_numeric = {"ecn", "pool", "profile", "dscp_to_tc_map",
                                             "wred_profile", "wred_green_enable",
                                             "wred_yellow_enable", "wred_red_enable"};
  for (const auto& [path, value] : j.leaves) {
    CAPTURE(path);
    const std::string field = path.substr(path.rfind('/') + 1);
    if (!non_numeric.count(field)) CHECK(is_number_string(value));
  }
  const std::string wred = "WRED_PROFILE/AZURE_LOSSLESS/";
  const auto& e = plan.ecn.front();
  CHECK(j.leaves.at(wred + "ecn") == "ecn_all");
  CHECK(j.leaves.at(wred + "wred_green_enable") == "true");
  CHECK(j.leaves.at(wred + "green_min_threshold") == std::to_string(std::llround(e.kmin_bytes)));
  CHECK(j.leaves.at(wred + "green_max_threshold") == std::to_string(std::llround(e.kmax_bytes)));
  CHECK(j.leaves.at(wred + "green_drop_probability") == std::to_string(std::lround(e.pmax * 100)));
  const std::string bp = "BUFFER_PROFILE/pg_lossless_400000_50m_profile/";
  CHECK(j.leaves.at(bp + "pool") == "ingress_lossless_pool");
  const long long xoff = std::stoll(j.leaves.at(bp + "xoff"));
  const long long xon = std::stoll(j.leaves.at(bp + "xon"));
  CHECK(xoff == std::llround(std::ceil(plan.pfc.headroom_bytes)));
  CHECK(xon == std::llround(plan.pfc.xon_offset_bytes));
  CHECK(j.leaves.at(bp + "xon_offset") == std::to_string(xon));
  CHECK(std::stoll(j.leaves.at(bp + "size")) == xoff + xon);
  CHECK(j.leaves.at(bp + "dynamic_th") == "0");  // alpha 1 = 2^0
  CHECK(j.leaves.at("BUFFER_PG/<PORTS>|3/profile") == "pg_lossless_400000_50m_profile");
  CHECK(j.leaves.at("PORT_QOS_MAP/<PORTS>/pfc_enable") == "3");
  CHECK(j.leaves.at("PORT_QOS_MAP/<PORTS>/dscp_to_tc_map") == "AZURE");
  CHECK(j.leaves.at("QUEUE/<PORTS>|3/wred_profile") == "AZURE_LOSSLESS");
  CHECK(j.leaves.at("DSCP_TO_TC_MAP/AZURE/26") == "3");
  CHECK(j.leaves.at("DSCP_TO_TC_MAP/AZURE/48") == "6");
  CHECK(text == railyard::exports::sonic_config(plan));
}

TEST_CASE("cc_config: ConnectX lines use only the mlx5 cc_params, mlxconfig and mlnx_qos names") {
  const CcPlan plan = plan_for("h100-1024", 8);
  const std::string text = railyard::exports::connectx_commands(plan);
  // Linux drivers/infiniband/hw/mlx5/cong.c mlx5_ib_dbg_cc_name[].
  const std::set<std::string> debugfs = {
      "rp_clamp_tgt_rate", "rp_clamp_tgt_rate_ati", "rp_time_reset", "rp_byte_reset",
      "rp_threshold", "rp_ai_rate", "rp_max_rate", "rp_hai_rate", "rp_min_dec_fac",
      "rp_min_rate", "rp_rate_to_set_on_first_cnp", "rp_dce_tcp_g", "rp_dce_tcp_rtt",
      "rp_rate_reduce_monitor_period", "rp_initial_alpha_value", "rp_gd",
      "np_min_time_between_cnps", "np_cnp_dscp", "np_cnp_prio_mode", "np_cnp_prio"};
  // mlxconfig -q names (port 1).
  const std::set<std::string> mlxconfig = {
      "RPG_TIME_RESET_P1", "RPG_BYTE_RESET_P1", "RPG_THRESHOLD_P1", "RPG_AI_RATE_P1",
      "RPG_HAI_RATE_P1", "RPG_MIN_DEC_FAC_P1", "RPG_MIN_RATE_P1", "DCE_TCP_G_P1",
      "DCE_TCP_RTT_P1", "RATE_REDUCE_MONITOR_PERIOD_P1", "INITIAL_ALPHA_VALUE_P1",
      "MIN_TIME_BETWEEN_CNPS_P1", "CNP_DSCP_P1", "CNP_802P_PRIO_P1", "RPG_GD_P1",
      "RATE_TO_SET_ON_FIRST_CNP_P1", "CLAMP_TGT_RATE_P1", "CLAMP_TGT_RATE_AFTER_TIME_INC_P1"};
  std::map<std::string, std::string> written;  // debugfs name -> value
  int mlxconfig_lines = 0;
  for (const std::string& line : lines_of(text)) {
    CAPTURE(line);
    if (line.empty() || line[0] == '#') continue;
    REQUIRE(line.find("  # ") != std::string::npos);  // unit comment
    const std::string cmd = command_of(line);
    std::smatch m;
    if (std::regex_match(cmd, m,
                         std::regex("echo ([0-9]+) > /sys/kernel/debug/mlx5/\\$DEV/cc_params/"
                                    "([a-z_]+)"))) {
      CHECK(debugfs.count(m[2]));
      written[m[2]] = m[1];
    } else if (std::regex_match(cmd, m, std::regex("mlxconfig -d \\$DEV set ([A-Z0-9_]+)=[0-9]+"))) {
      CHECK(mlxconfig.count(m[1]));
      ++mlxconfig_lines;
    } else {
      const bool known =
          std::regex_match(cmd, std::regex("mlnx_qos -i \\$IF --trust dscp")) ||
          std::regex_match(cmd, std::regex("mlnx_qos -i \\$IF --pfc ([01],){7}[01]")) ||
          std::regex_match(cmd, std::regex("echo 1 > /sys/class/net/\\$IF/ecn/roce_(rp|np)/"
                                           "enable/[0-7]"));
      CHECK(known);
    }
  }
  CHECK(text.find("mlnx_qos -i $IF --pfc 0,0,0,1,0,0,0,0  #") != std::string::npos);
  CHECK(mlxconfig_lines == static_cast<int>(plan.dcqcn_settings.size()));
  for (const auto& v : plan.dcqcn_settings) {
    CAPTURE(v.name);
    REQUIRE(written.count(v.name));
    CHECK(std::stod(written[v.name]) == doctest::Approx(v.value));
  }
  CHECK(written["rp_time_reset"] == "300");  // the ConnectX defaults until a search says otherwise
  CHECK(written["rp_rate_reduce_monitor_period"] == "4");
  CHECK(written["rp_clamp_tgt_rate_ati"] == "1");
  CHECK(written["rp_gd"] == "11");
}

TEST_CASE("cc_config: NCCL/UCX environment lines are the plan's, each after a unit comment") {
  const CcPlan plan = plan_for("h100-1024", 8);
  const std::string text = railyard::exports::nccl_env(plan);
  std::map<std::string, std::string> vars;
  bool comment_before = false;
  for (const std::string& line : lines_of(text)) {
    CAPTURE(line);
    if (line.empty()) continue;
    if (line[0] == '#') {
      comment_before = true;
      continue;
    }
    std::smatch m;
    REQUIRE(std::regex_match(line, m, std::regex("((NCCL|UCX)_[A-Z_]+)=([^ ]+)")));
    CHECK(comment_before);
    comment_before = false;
    vars[m[1]] = m[3];
  }
  for (const auto& v : plan.nccl_env) CHECK(vars.at(v.name) == v.value);
  CHECK(vars.at("UCX_IB_TRAFFIC_CLASS") == "106");
  CHECK(vars.at("UCX_IB_SL") == "3");
  CHECK(vars.at("NCCL_IB_TC") == vars.at("UCX_IB_TRAFFIC_CLASS"));
  CHECK(vars.size() == plan.nccl_env.size() + 2);
}

TEST_CASE("cc_config: tenants' per-QP rate limits are named as the verbs call, not a setting") {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  REQUIRE(cluster.ok());
  auto placed = railyard::placement::place_jobs(cluster->descriptor,
                                                "a:gpus=384,tenant=t1;b:gpus=384,tenant=t2", {});
  REQUIRE(placed.ok());
  CcInputs in;
  in.tenants = placed->placed;
  auto plan = railyard::cc::derive_cc(*cluster, in);
  REQUIRE(plan.ok());
  REQUIRE(!plan->rate_limits.empty());
  const std::string nic = railyard::exports::connectx_commands(*plan);
  CHECK(nic.find("# per-QP rate limit for tenant t1: 12500000 kb/s per QP") != std::string::npos);
  CHECK(nic.find("ibv_modify_qp_rate_limit(qp, &attr) with attr.rate_limit = 12500000 (kb/s") !=
        std::string::npos);
  CHECK(plan->rate_limits.front().reason.find("ibv_modify_qp_rate_limit") != std::string::npos);
  CHECK(railyard::exports::nccl_env(*plan).find("has no NCCL or UCX variable") != std::string::npos);
}

}  // namespace railyard_test_export_cc_config_test
