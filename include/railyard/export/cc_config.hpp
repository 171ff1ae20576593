// railyard/export/cc_config.hpp — a congestion-control plan (cc::CcPlan) as the
// devices take it: NVIDIA Cumulus Linux NVUE commands, a SONiC config_db JSON
// fragment, ConnectX host commands (mlnx_qos, ECN enables, the mlx5 debugfs
// cc_params and the mlxconfig firmware names) and the NCCL/UCX environment. What
// `railyard cc --format nvue|sonic|connectx|nccl-env` prints.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   railyard::cc::CcInputs in;
//   in.incast = 8;
//   auto plan = railyard::cc::derive_cc(*cluster, in);            // the settings to apply
//   std::string nvue = railyard::exports::nvue_commands(*plan);   // `nv set qos ...` lines
//   std::string sonic = railyard::exports::sonic_config(*plan);   // JSON for `config load`
//   std::string nic = railyard::exports::connectx_commands(*plan); // per host NIC port
//   std::string env = railyard::exports::nccl_env(*plan);          // NAME=value lines
//
// Every writer is deterministic (same plan, same bytes) and states the unit of
// every value: the shell formats (NVUE, ConnectX) as a trailing `# unit` comment
// on each command, the environment as a `# ...` line before each variable (env-file
// parsers do not all strip trailing comments). JSON has no comment syntax: the
// SONiC fragment's units are the schema's (thresholds and buffer sizes in bytes,
// drop probability in percent, dynamic_th a power-of-two exponent), stated in the
// header comment of sonic_config() and in docs/cc-config.md.
//
// Placeholders for what railyard cannot know: `$IF` (the host netdev of a NIC port,
// e.g. from `ibdev2netdev`), `$DEV` (its PCI address, e.g. 0000:17:00.0), `<PORTS>`
// (SONiC port names, comma-separated, e.g. Ethernet0,Ethernet8), `$PORTS_<TIER>`
// (the NVUE ports of one egress tier, only when tiers need different ECN
// thresholds). The lossless class is DSCP 26 -> priority 3 -> traffic class 3 and
// CNPs DSCP 48 -> priority 6 (the plan's NCCL_IB_TC and np_cnp_* values).
//
// Sources (syntax checked against them; docs/cc-config.md lists them per format):
// * NVUE: NVIDIA, "NVUE Command Reference: QoS" (nv set qos congestion-control
//   <profile> traffic-class <tc> ecn|min-threshold|max-threshold|probability;
//   nv set qos pfc <profile> switch-priority|tx|rx|cable-length|xoff-threshold|
//   xon-threshold|port-buffer; nv set qos mapping <profile> trust|dscp <d>
//   switch-priority <p>), https://docs.nvidia.com/networking-ethernet-software/
//   nvue-reference/Set-and-Unset-Commands/QoS/ (CumulusNetworks/docs
//   content/nvue-reference/Set-and-Unset-Commands/QoS.md); and Cumulus Linux 5.14
//   "RDMA over Converged Ethernet - RoCE" (nv set qos roce mode lossless; the
//   default classes above), content/cumulus-linux-514/Layer-1-and-Switch-Ports/
//   Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md.
// * SONiC: sonic-net/SONiC doc/Configuration.md ("WRED_PROFILE" AZURE_LOSSLESS with
//   green_min_threshold, green_max_threshold, green_drop_probability, ecn ecn_all;
//   "Buffer profile" pg_lossless_* with pool, size, xon, xon_offset, xoff,
//   dynamic_th; "Port QoS Map" pfc_enable; "Queue" wred_profile; DSCP_TO_TC_MAP);
//   field meanings from opencomputeproject/SAI inc/saibuffer.h (XOFF_TH = the PG's
//   headroom in bytes; XON_TH / XON_OFFSET_TH; SHARED_DYNAMIC_TH = 2^n of the free
//   pool).
// * ConnectX: Linux drivers/infiniband/hw/mlx5/cong.c (debugfs directory
//   cc_params under /sys/kernel/debug/mlx5/<pci>/, file names mlx5_ib_dbg_cc_name[]);
//   NVIDIA MLNX_EN / DOCA "Explicit Congestion Notification (ECN)"
//   (/sys/class/net/<if>/ecn/roce_rp|roce_np/enable/<prio>); Mellanox/mlnx-tools
//   python/mlnx_qos (-i, --trust pcp|dscp, --pfc: 8 comma-separated 0/1);
//   mlxconfig parameter names (RPG_TIME_RESET_P1 ...) as Mellanox/mstflint's
//   mlxconfig prints them (`mlxconfig -q` listings).
// * Per-QP rate limits: linux-rdma/rdma-core libibverbs ibv_modify_qp_rate_limit(3)
//   (struct ibv_qp_rate_limit_attr: rate_limit in kbps, max_burst_sz and
//   typical_pkt_sz in bytes) — a verbs call by the program that owns the QP, no
//   device setting; railyard knows of no NCCL or UCX variable for it.
// * UCX: openucx/ucx src/uct/ib/base/ib_iface.c config table (UCX_IB_SL "IB
//   Service Level / RoCEv2 Ethernet Priority"; UCX_IB_TRAFFIC_CLASS "IB Traffic
//   Class / RoCEv2 DSCP", "auto" = 106 on RoCEv2).
//
// Not confirmed (said again in the output's comments): how NVUE's PFC
// xoff-threshold / xon-threshold / port-buffer divide a port's buffer (the
// reference gives only "stop threshold" / "start threshold" / "port buffer" in
// bytes and recommends leaving them to Cumulus, which sizes them from
// cable-length); railyard writes xoff-threshold = headroom, xon-threshold = XON
// offset, port-buffer = their sum, as SONiC's profiles do (size = xon + xoff).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/cc/derive.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/json.hpp"

namespace railyard::exports {

// The classes railyard's plan uses (docs/cc-config.md): RoCE data on DSCP 26,
// switch priority 3, traffic class 3; CNPs on DSCP 48, switch priority 6.
inline constexpr int32_t kRoceDscp = 26;
inline constexpr int32_t kCnpDscp = 48;
inline constexpr int32_t kCnpSwitchPriority = 6;
// UCX_IB_TRAFFIC_CLASS: the IP traffic-class byte, DSCP << 2 | ECT(0) (as NCCL_IB_TC).
inline constexpr int32_t kRoceTrafficClassByte = kRoceDscp << 2 | 2;

namespace detail {

// A number as a device takes it: integers without a fraction, else up to 10
// significant digits.
RAILYARD_LAZY
std::string cc_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return str_cat(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

RAILYARD_LAZY
int64_t whole_bytes(double bytes) { return std::llround(std::ceil(bytes)); }

// Pmax as the whole percent NVUE and SONiC take (1..100).
RAILYARD_LAZY
int32_t pmax_percent(double pmax) {
  return static_cast<int32_t>(std::clamp<long>(std::lround(pmax * 100), 1, 100));
}

// ECN thresholds that differ between egress tiers: the first entry is the
// leaf->host tier's (every host's traffic ends there), each later one a tier
// whose thresholds differ from all before it.
struct EcnGroup {
  std::string tiers;  // "leaf->host, leaf->spine"
  const cc::EcnTier* tier = nullptr;
};
RAILYARD_LAZY
std::vector<EcnGroup> ecn_groups(const cc::CcPlan& plan) {
  std::vector<EcnGroup> out;
  for (const cc::EcnTier& e : plan.ecn) {
    auto same = [&](const EcnGroup& g) {
      return g.tier->kmin_bytes == e.kmin_bytes && g.tier->kmax_bytes == e.kmax_bytes &&
             pmax_percent(g.tier->pmax) == pmax_percent(e.pmax);
    };
    auto it = std::find_if(out.begin(), out.end(), same);
    if (it == out.end())
      out.push_back({e.tier, &e});
    else
      str_append(it->tiers, ", ", e.tier);
  }
  return out;
}

// "leaf->spine" -> "leaf-to-spine" (a name NVUE and shells accept).
RAILYARD_LAZY
std::string tier_name(std::string_view tier) {
  std::string out;
  for (size_t i = 0; i < tier.size(); ++i) {
    if (tier.substr(i, 2) == "->") {
      out += "-to-";
      ++i;
    } else {
      out += tier[i];
    }
  }
  return out;
}

RAILYARD_LAZY
std::string upper_name(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return out;
}

}  // namespace detail

// Cumulus Linux NVUE commands for every leaf and spine switch (profile
// default-global: all ports). ECN on traffic class 3 (min/max threshold in bytes,
// probability in whole percent 1..100), trust DSCP with DSCP 26 -> switch priority 3
// and 48 -> 6, PFC on switch priority 3 with cable length (m) and the thresholds
// (bytes), then `nv config apply`.
RAILYARD_LAZY
[[nodiscard]] std::string nvue_commands(const cc::CcPlan& plan) {
  using detail::cc_number;
  const int32_t prio = plan.pfc.priority;
  const int32_t tc = prio;  // RoCE mode maps switch priority 3 to traffic class 3
  std::string out;
  str_append(out,
             "# railyard cc: NVIDIA Cumulus Linux (NVUE) settings for every leaf and spine switch.\n"
             "# Syntax: NVUE Command Reference, QoS (nv set qos ...),\n"
             "#   https://docs.nvidia.com/networking-ethernet-software/nvue-reference/"
             "Set-and-Unset-Commands/QoS/\n"
             "# Units: thresholds and buffers in bytes (1 KB = 1000 bytes), probability in "
             "percent, cable length in metres.\n",
             "# Settings: ", plan.recommendation, "\n");
  str_append(out, "nv set qos roce mode lossless  # RoCE lossless profile (mode, no unit)\n");
  str_append(out, "nv set qos mapping default-global trust l3  # trust DSCP (mode, no unit)\n");
  str_append(out, "nv set qos mapping default-global dscp ", kRoceDscp, " switch-priority ", prio,
             "  # DSCP codepoint -> switch priority (RoCE data)\n");
  str_append(out, "nv set qos mapping default-global dscp ", kCnpDscp, " switch-priority ",
             kCnpSwitchPriority, "  # DSCP codepoint -> switch priority (CNPs)\n");
  const std::vector<detail::EcnGroup> groups = detail::ecn_groups(plan);
  for (size_t g = 0; g < groups.size(); ++g) {
    const cc::EcnTier& e = *groups[g].tier;
    std::string profile = "default-global";
    if (g > 0) {
      profile = str_cat("railyard-", detail::tier_name(e.tier));
      str_append(out, "# egress tier ", groups[g].tiers,
                 " needs other ECN thresholds: a profile for its ports\n");
    } else {
      str_append(out, "# ECN for egress tiers ", groups[g].tiers, "\n");
    }
    const std::string base =
        str_cat("nv set qos congestion-control ", profile, " traffic-class ", tc, " ");
    str_append(out, base, "ecn enable  # ECN marking (state, no unit)\n");
    str_append(out, base, "min-threshold ", detail::whole_bytes(e.kmin_bytes),
               "  # bytes (Kmin ", cc_number(e.kmin_bytes / 1000), " KB)\n");
    str_append(out, base, "max-threshold ", detail::whole_bytes(e.kmax_bytes),
               "  # bytes (Kmax ", cc_number(e.kmax_bytes / 1000), " KB)\n");
    char pmax[32];
    std::snprintf(pmax, sizeof pmax, "%.4f", e.pmax);
    str_append(out, base, "probability ", detail::pmax_percent(e.pmax), "  # percent (Pmax ",
               pmax, ", NVUE takes whole percent 1..100)\n");
    if (g > 0)
      str_append(out, "nv set interface $PORTS_", detail::upper_name(detail::tier_name(e.tier)),
                 " qos congestion-control profile ", profile,
                 "  # profile name (no unit); $PORTS_...: this tier's ports, e.g. swp1-32\n");
  }
  const double cable_m = plan.pfc.cable_m;
  const int64_t xoff = detail::whole_bytes(plan.pfc.headroom_bytes);
  const int64_t xon = detail::whole_bytes(plan.pfc.xon_offset_bytes);
  str_append(out, "# PFC on the lossless priority (per ingress port)\n");
  str_append(out, "nv set qos pfc default-global switch-priority ", prio,
             "  # 802.1p switch priority (0-7)\n");
  str_append(out, "nv set qos pfc default-global tx enable  # send PFC frames (state, no unit)\n");
  str_append(out, "nv set qos pfc default-global rx enable  # honour PFC frames (state, no unit)\n");
  str_append(out, "nv set qos pfc default-global cable-length ",
             std::max<int64_t>(1, std::llround(std::ceil(cable_m))),
             "  # metres (the longest cable the headroom counts)\n");
  str_append(out,
             "# Buffer thresholds: NVIDIA recommends letting Cumulus size them from cable-length; "
             "the three lines below\n"
             "# are railyard's headroom (xoff), XON offset (xon) and their sum (port buffer) — "
             "how NVUE divides the\n"
             "# port buffer between them is not stated in its reference (unconfirmed); omit them "
             "to keep Cumulus's sizing.\n");
  str_append(out, "nv set qos pfc default-global xoff-threshold ", xoff,
             "  # bytes (PFC headroom: in flight after XOFF)\n");
  str_append(out, "nv set qos pfc default-global xon-threshold ", xon,
             "  # bytes (XON offset: 2 switch MTUs)\n");
  str_append(out, "nv set qos pfc default-global port-buffer ", xoff + xon,
             "  # bytes (xoff + xon)\n");
  str_append(out, "nv config apply  # apply the staged configuration (no unit)\n");
  return out;
}

// SONiC config_db JSON fragment (for `config load FILE`, or merged into
// /etc/sonic/config_db.json). JSON has no comments, so the units are the schema's:
// WRED thresholds in bytes and drop probability in percent (strings, as SONiC
// stores every value); BUFFER_PROFILE size/xon/xon_offset/xoff in bytes and
// dynamic_th the exponent n of alpha = 2^n (SAI SHARED_DYNAMIC_TH); pfc_enable a
// list of 802.1p priorities. `<PORTS>` stands for the switch's port names.
RAILYARD_LAZY
[[nodiscard]] std::string sonic_config(const cc::CcPlan& plan) {
  using detail::cc_number;
  const int32_t prio = plan.pfc.priority;
  const std::string pg_profile =
      str_cat("pg_lossless_", cc_number(plan.link_gbps * 1000), "_",
              cc_number(std::ceil(plan.pfc.cable_m)), "m_profile");
  const int64_t xoff = detail::whole_bytes(plan.pfc.headroom_bytes);
  const int64_t xon = detail::whole_bytes(plan.pfc.xon_offset_bytes);
  const int64_t dynamic_th = std::lround(std::log2(plan.pfc.dynamic_alpha));
  report::JsonWriter w(4);
  w.begin_object();
  w.key("DSCP_TO_TC_MAP").begin_object();
  w.key("AZURE").begin_object();
  w.key(str_cat(kRoceDscp)).value(str_cat(prio));
  w.key(str_cat(kCnpDscp)).value(str_cat(kCnpSwitchPriority));
  w.end_object();
  w.end_object();
  w.key("WRED_PROFILE").begin_object();
  const std::vector<detail::EcnGroup> groups = detail::ecn_groups(plan);
  std::vector<std::string> profiles;
  for (size_t g = 0; g < groups.size(); ++g) {
    const cc::EcnTier& e = *groups[g].tier;
    const std::string name =
        g == 0 ? std::string("AZURE_LOSSLESS")
               : str_cat("RAILYARD_", detail::upper_name(detail::tier_name(e.tier)));
    profiles.push_back(name);
    w.key(name).begin_object();
    w.key("ecn").value("ecn_all");
    for (std::string_view color : {"green", "yellow", "red"}) {
      w.key(str_cat("wred_", color, "_enable")).value("true");
      w.key(str_cat(color, "_min_threshold")).value(str_cat(detail::whole_bytes(e.kmin_bytes)));
      w.key(str_cat(color, "_max_threshold")).value(str_cat(detail::whole_bytes(e.kmax_bytes)));
      w.key(str_cat(color, "_drop_probability")).value(str_cat(detail::pmax_percent(e.pmax)));
    }
    w.end_object();
  }
  w.end_object();
  w.key("BUFFER_PROFILE").begin_object();
  w.key(pg_profile).begin_object();
  w.key("pool").value("ingress_lossless_pool");
  w.key("size").value(str_cat(xoff + xon));
  w.key("xon").value(str_cat(xon));
  w.key("xon_offset").value(str_cat(xon));
  w.key("xoff").value(str_cat(xoff));
  w.key("dynamic_th").value(str_cat(dynamic_th));
  w.end_object();
  w.end_object();
  w.key("BUFFER_PG").begin_object();
  w.key(str_cat("<PORTS>|", prio)).begin_object();
  w.key("profile").value(pg_profile);
  w.end_object();
  w.end_object();
  w.key("PORT_QOS_MAP").begin_object();
  w.key("<PORTS>").begin_object();
  w.key("dscp_to_tc_map").value("AZURE");
  w.key("pfc_enable").value(str_cat(prio));
  w.end_object();
  w.end_object();
  w.key("QUEUE").begin_object();
  w.key(str_cat("<PORTS>|", prio)).begin_object();
  w.key("wred_profile").value(profiles.front());
  w.end_object();
  w.end_object();
  w.end_object();
  return std::move(w).line();
}

namespace detail {

// mlxconfig's firmware name of an mlx5 debugfs cc_params file (port 1), or "".
RAILYARD_LAZY
std::string_view mlxconfig_name(std::string_view debugfs) {
  constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"rp_time_reset", "RPG_TIME_RESET_P1"},
      {"rp_byte_reset", "RPG_BYTE_RESET_P1"},
      {"rp_threshold", "RPG_THRESHOLD_P1"},
      {"rp_ai_rate", "RPG_AI_RATE_P1"},
      {"rp_hai_rate", "RPG_HAI_RATE_P1"},
      {"rp_min_dec_fac", "RPG_MIN_DEC_FAC_P1"},
      {"rp_min_rate", "RPG_MIN_RATE_P1"},
      {"rp_dce_tcp_g", "DCE_TCP_G_P1"},
      {"rp_dce_tcp_rtt", "DCE_TCP_RTT_P1"},
      {"rp_rate_reduce_monitor_period", "RATE_REDUCE_MONITOR_PERIOD_P1"},
      {"rp_initial_alpha_value", "INITIAL_ALPHA_VALUE_P1"},
      {"np_min_time_between_cnps", "MIN_TIME_BETWEEN_CNPS_P1"},
      {"np_cnp_dscp", "CNP_DSCP_P1"},
      {"np_cnp_prio", "CNP_802P_PRIO_P1"},
      {"rp_gd", "RPG_GD_P1"},
      {"rp_rate_to_set_on_first_cnp", "RATE_TO_SET_ON_FIRST_CNP_P1"},
      {"rp_clamp_tgt_rate", "CLAMP_TGT_RATE_P1"},
      {"rp_clamp_tgt_rate_ati", "CLAMP_TGT_RATE_AFTER_TIME_INC_P1"},
  };
  for (const auto& [from, to] : kNames)
    if (from == debugfs) return to;
  return {};
}

// The unit of a DCQCN setting as a comment says it.
RAILYARD_LAZY
std::string setting_unit(const cc::Value& v) {
  if (v.unit == "us") return "microseconds";
  if (v.unit == "Mb/s") return "Mb/s";
  if (v.unit == "bytes") return "bytes";
  if (v.unit == "%") return "percent";
  if (v.unit == "stages") return "stages (count)";
  if (v.unit == "1/1024") return "1/1024 fixed point (g = (1024 - value) / 1024)";
  if (v.unit == "1/1023") return "units of 1/1024 (1023 = 0.999)";
  if (v.name == "np_cnp_dscp") return "DSCP codepoint (0-63)";
  if (v.name == "np_cnp_prio") return "802.1p priority (0-7)";
  return v.unit.empty() ? std::string("no unit") : v.unit;
}

}  // namespace detail

// ConnectX host commands, for every NIC port ($IF its netdev, $DEV its PCI
// address): trust DSCP and PFC on the lossless priority (mlnx_qos), DCQCN on for
// that priority (sysfs ecn enables), the DCQCN values as mlx5 debugfs cc_params
// writes (run-time, lost at reboot), the same values under their mlxconfig names
// (firmware defaults, from the next reboot), and per-QP rate limits as comments
// (a verbs call, no device setting).
RAILYARD_LAZY
[[nodiscard]] std::string connectx_commands(const cc::CcPlan& plan) {
  using detail::cc_number;
  const int32_t prio = plan.pfc.priority;
  std::string pfc;
  for (int32_t p = 0; p < 8; ++p) str_append(pfc, p > 0 ? "," : "", p == prio ? 1 : 0);
  std::string out;
  str_append(
      out,
      "# railyard cc: NVIDIA ConnectX settings, run as root on every host for every NIC port.\n",
      "# Settings: ", plan.recommendation, "\n"
      "# $IF = the port's netdev (ibdev2netdev), $DEV = its PCI address (e.g. 0000:17:00.0); "
      "railyard does not know host device names.\n"
      "# Sources: mlnx_qos (Mellanox/mlnx-tools); ECN enables (NVIDIA MLNX_EN/DOCA, Explicit "
      "Congestion Notification);\n"
      "#   cc_params file names (Linux drivers/infiniband/hw/mlx5/cong.c); mlxconfig names as "
      "mlxconfig -q lists them.\n");
  str_append(out, "mlnx_qos -i $IF --trust dscp  # trust DSCP (mode, no unit); DSCP ", kRoceDscp,
             " -> priority ", prio, " by the default dscp2prio map\n");
  str_append(out, "mlnx_qos -i $IF --pfc ", pfc,
             "  # PFC per 802.1p priority 0..7 (1 = on, no unit): lossless priority ", prio, "\n");
  str_append(out, "echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/", prio,
             "  # DCQCN reaction point on for priority ", prio, " (1 = on, no unit)\n");
  str_append(out, "echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/", prio,
             "  # DCQCN notification point on for priority ", prio, " (1 = on, no unit)\n");
  str_append(out,
             "# DCQCN now (mlx5 debugfs; needs debugfs mounted; np_min_time_between_cnps only on "
             "kernels that list it)\n");
  for (const cc::Value& v : plan.dcqcn_settings)
    str_append(out, "echo ", cc_number(v.value), " > /sys/kernel/debug/mlx5/$DEV/cc_params/",
               v.name, "  # ", detail::setting_unit(v), "\n");
  str_append(out, "# DCQCN as firmware defaults (mlxconfig, port 1; from the next reboot)\n");
  for (const cc::Value& v : plan.dcqcn_settings) {
    const std::string_view name = detail::mlxconfig_name(v.name);
    if (!name.empty())
      str_append(out, "mlxconfig -d $DEV set ", name, "=", cc_number(v.value), "  # ",
                 detail::setting_unit(v), "\n");
  }
  for (const cc::Value& r : plan.rate_limits) {
    if (r.value <= 0) continue;
    str_append(out, "# per-QP rate limit for tenant ", r.name, ": ", cc_number(r.value),
               " kb/s per QP - no device setting: the program that owns the QP calls "
               "ibv_modify_qp_rate_limit(qp, &attr) with attr.rate_limit = ",
               cc_number(r.value), " (kb/s; max_burst_sz and typical_pkt_sz in bytes, 0 = "
               "device default)\n");
  }
  return out;
}

namespace detail {

// What the value of an NCCL variable is measured in.
RAILYARD_LAZY
std::string_view nccl_unit(std::string_view name) {
  if (name == "NCCL_IB_QPS_PER_CONNECTION") return "count of queue pairs per connection";
  if (name == "NCCL_IB_SPLIT_DATA_ON_QPS") return "switch (0 or 1)";
  if (name == "NCCL_IB_ADAPTIVE_ROUTING") return "switch (0 or 1)";
  if (name == "NCCL_IB_TC") return "IP traffic-class byte: DSCP << 2 | ECN bits";
  if (name == "NCCL_CROSS_NIC") return "mode (0, 1 or 2)";
  if (name == "NCCL_IB_HCA") return "list of device:port:rail:plane (names, no unit)";
  if (name == "NCCL_MIN_NCHANNELS") return "count of channels";
  return "no unit";
}

}  // namespace detail

// The NCCL environment (plan.nccl_env) and the UCX variables that exist for the
// same classes (UCX_IB_TRAFFIC_CLASS, UCX_IB_SL): `# unit: reason` then NAME=value,
// an env file as is (or a shell after `export`).
RAILYARD_LAZY
[[nodiscard]] std::string nccl_env(const cc::CcPlan& plan) {
  std::string out;
  str_append(out,
             "# railyard cc: NCCL and UCX environment for every rank. Sources: NCCL env.rst "
             "(2.30.7); UCX src/uct/ib/base/ib_iface.c.\n");
  for (const cc::EnvVar& v : plan.nccl_env)
    str_append(out, "# ", detail::nccl_unit(v.name), ": ", v.reason, "\n", v.name, "=", v.value,
               "\n");
  str_append(out, "# IP traffic-class byte (DSCP ", kRoceDscp,
             " << 2 | ECT(0)): UCX's RoCEv2 DSCP setting, as NCCL_IB_TC\n");
  str_append(out, "UCX_IB_TRAFFIC_CLASS=", kRoceTrafficClassByte, "\n");
  str_append(out, "# 802.1p priority (0-7): UCX's RoCEv2 Ethernet priority, the lossless one\n");
  str_append(out, "UCX_IB_SL=", plan.pfc.priority, "\n");
  for (const cc::Value& r : plan.rate_limits)
    if (r.value > 0)
      str_append(out, "# tenant ", r.name, ": ", detail::cc_number(r.value),
                 " kb/s per QP has no NCCL or UCX variable (ibv_modify_qp_rate_limit, by the "
                 "program that owns the QP)\n");
  return out;
}

}  // namespace railyard::exports
