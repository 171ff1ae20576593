// railyard/report/cc_report.hpp — derived congestion-control settings (cc::CcPlan) as a
// text report and as JSON (what `railyard cc` prints).
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   railyard::cc::CcInputs in;
//   in.incast = 15;
//   auto plan = railyard::cc::derive_cc(*cluster, in);
//   railyard::report::CcReportContext ctx;
//   ctx.cluster = "h100-1024";
//   ctx.incast_source = "alltoall over 16 hosts";
//   std::string text = railyard::report::cc_text(*plan, in, ctx);
//   std::string json = railyard::report::cc_json(*plan, in, ctx);
//   auto check = railyard::cc::validate_cc(*plan);
//   auto svg = railyard::report::cc_fluid_svg(*check);  // queue and rates of the derived run
//
// Text: link speed, RoCE MTU and the switch MTU the PFC headroom counts, incast
// (and where it came from), buffer per port (1 KB = 1000 bytes throughout) and the
// PFC settings (lossless priority, headroom, XON offset, dynamic-threshold alpha)
// with their reasons; tables of the path classes (path, switches, cable m,
// RTT µs, BDP KB), ECN per egress tier (Kmin KB, Kmax KB, Pmax, Pmax %, p*, burst KB,
// fits; reasons below, one line per distinct reason), DCQCN (mlx5 cc_params /
// debugfs names: name, value, unit, reason), HPCC and UEC NSCC; the NCCL
// environment as `# reason` then `NAME=value` lines (an env file as is; a shell after `export`,
// or into an env file whose parser strips trailing comments); per-QP rate limits
// when tenants were given; warnings. The recommendation line, the recommended ECN
// table and DCQCN settings come first, the rule-derived candidate beside them
// (ECN table with p*, one line of DCQCN changes). With a cc::CcValidation: the
// NIC model's search (scenarios; per profile and scenario: pauses, paused µs,
// drops, peak KB, utilization, standing queue KB, Jain, convergence µs; each
// candidate's verdict; the recommendation), the paper's fluid model (vendor and
// derived) and the sensitivity table.
//
// JSON keys: inputs {cluster, incast, incast_source, buffer_bytes_per_port (null
// = derived), mtu_bytes, frame_overhead_bytes, switch_mtu_bytes, dt_alpha,
// message_bytes (null = NCCL's default buffer), switch_ns, nic_ns, cable_m (null =
// the cluster's lengths), qps_per_nic, jobs, tenants[] {name, tenant, gpus, hosts}},
// link_gbps, incast, incast_source, mtu_bytes, switch_mtu_bytes, frame_bytes,
// buffer_bytes_per_port, buffer_reason, pfc_headroom_bytes, pfc_reason, pfc
// {priority, headroom_bytes, xon_offset_bytes, dynamic_alpha, shared_buffer_bytes,
// cable_m, reason}, paths[] {path, switches, cable_m, one_way_us, rtt_us, bdp_bytes}, ecn
// {tier, kmin_bytes, kmax_bytes, pmax, pmax_percent} (the leaf->host tier, the one
// every host's traffic ends on), ecn_tiers[] {tier, rtt_us, bdp_bytes, kmin_bytes,
// kmax_bytes, pmax, pmax_percent, equilibrium_p, incast_burst_bytes,
// buffer_bytes, usable_bytes, fits, reason}, dcqcn {NAME: {value, unit, reason}},
// hpcc {...}, nscc {...} (same shape), nccl_env {NAME: {value, reason}} (values
// are strings, as the environment holds them), rate_limits[] {tenant,
// kbps_per_qp, reason}, warnings[], derived_ecn_tiers[] {tier, kmin_bytes,
// kmax_bytes, pmax, pmax_percent, equilibrium_p, fits, reason}, recommendation,
// derived_dcqcn {NAME: {value, unit, reason}}, and with a cc::CcValidation:
// validation {senders, start_fraction, base_rtt_us, usable_buffer_bytes,
// duration_us, readings, scenarios[] {name, description}, candidates[] {name,
// description, kmin_bytes, kmax_bytes, pmax, no_worse, dominates, worse (the first
// scenario and metric where it loses; "" when none), metrics[] (per
// scenario) {pauses, paused_us_max, drops, peak_queue_bytes, utilization,
// steady_utilization, steady_queue_bytes, jain_fairness, convergence_us (null:
// never)}}, recommended, reason, fluid {vendor, derived: {peak_queue_bytes,
// utilization, steady_utilization, steady_queue_bytes, jain_fairness,
// convergence_us, under_buffer}}, sensitivity[] {variant, recommended, holds},
// warnings[]}.
//
// Numbers are rounded so the bytes are deterministic: bytes to whole bytes,
// times and lengths to 3 decimals (ns resolution), probabilities to 6
// significant digits; setting values to 3 decimals (6 significant digits below 1).
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
#include "railyard/cc/validate.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/json.hpp"
#include "railyard/report/trace_svg.hpp"
#include "railyard/placement/allocator.hpp"

namespace railyard::report {

// What the report says about its inputs beyond CcInputs.
struct CcReportContext {
  std::string cluster;                // the spec or preset name, as given
  std::string incast_source;          // why this incast, e.g. "alltoall over 16 hosts"
  std::string jobs;                   // the tenant list text, if any
  std::vector<std::string> warnings;  // the caller's own (e.g. unplaced tenants)
};

namespace detail {

// Decimals that keep 6 significant digits of |x| < 1 (at most 12).
RAILYARD_LAZY
int cc_small_decimals(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  return std::clamp(5 - exponent, 0, 12);
}

// Probabilities: 6 significant digits.
RAILYARD_LAZY
double cc_round_p(double p) { return rounded(p, std::max(3, cc_small_decimals(p))); }

// Setting values: 3 decimals, 6 significant digits below 1.
RAILYARD_LAZY
double cc_round_value(double x) {
  return rounded(x, std::fabs(x) < 1 ? std::max(3, cc_small_decimals(x)) : 3);
}

// A setting's value as text: as cc_round_value keeps it, in shortest form
// (integers as integers).
RAILYARD_LAZY
std::string cc_value_text(double x) {
  const double r = cc_round_value(x);
  if (!std::isfinite(r)) return "-";
  if (r == std::floor(r) && std::fabs(r) < 9e15) return str_cat(static_cast<int64_t>(r));
  return str_cat(r);
}

RAILYARD_LAZY
std::string cc_kb(double bytes) { return fixed(bytes / 1000.0, 1); }

// A table: left-aligned or right-aligned columns, widths from the content; the
// last column is never padded (it holds free text).
class CcTable {
 public:
  explicit CcTable(std::vector<std::pair<std::string, bool>> columns)  // {title, right-aligned}
      : columns_(std::move(columns)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void render(std::string& out, std::string_view indent = "") const {
    std::vector<size_t> width(columns_.size(), 0);
    for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].first.size();
    for (const auto& r : rows_)
      for (size_t c = 0; c < r.size() && c < width.size(); ++c)
        width[c] = std::max(width[c], r[c].size());
    auto line = [&](const std::vector<std::string>& cells) {
      std::string text(indent);
      for (size_t c = 0; c < columns_.size(); ++c) {
        const std::string& cell = c < cells.size() ? cells[c] : std::string();
        const bool last = c + 1 == columns_.size();
        if (c > 0) text += "  ";
        const size_t fill = width[c] - std::min(width[c], cell.size());
        if (columns_[c].second) text.append(fill, ' ');
        text += cell;
        if (!columns_[c].second && !last) text.append(fill, ' ');
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      out += text;
      out += '\n';
    };
    std::vector<std::string> titles;
    for (const auto& c : columns_) titles.push_back(c.first);
    line(titles);
    for (const auto& r : rows_) line(r);
  }

 private:
  std::vector<std::pair<std::string, bool>> columns_;
  std::vector<std::vector<std::string>> rows_;
};

RAILYARD_LAZY
void cc_values_table(std::string& out, const std::vector<cc::Value>& values) {
  CcTable t({{"name", false}, {"value", true}, {"unit", false}, {"reason", false}});
  for (const cc::Value& v : values) t.row({v.name, cc_value_text(v.value), v.unit, v.reason});
  t.render(out, "  ");
}

RAILYARD_LAZY
void cc_values_json(JsonWriter& w, const std::vector<cc::Value>& values) {
  w.begin_object();
  for (const cc::Value& v : values) {
    w.key(v.name).begin_object();
    w.key("value").value(cc_round_value(v.value));
    w.key("unit").value(v.unit);
    w.key("reason").value(v.reason);
    w.end_object();
  }
  w.end_object();
}

// The NCCL variables in order: name, value (text), reason.
struct CcEnvLine {
  std::string name;
  std::string value;
  std::string reason;
};
RAILYARD_LAZY
std::vector<CcEnvLine> cc_env_lines(const cc::CcPlan& plan) {
  std::vector<CcEnvLine> out;
  for (const cc::EnvVar& v : plan.nccl_env) out.push_back({v.name, v.value, v.reason});
  return out;
}

RAILYARD_LAZY
std::string cc_hosts_text(const std::vector<HostId>& hosts) {
  std::vector<HostId> ids(hosts.begin(), hosts.end());
  std::sort(ids.begin(), ids.end());
  return format_host_list(ids);
}

RAILYARD_LAZY
std::string cc_incast_text(const cc::CcPlan& plan, const CcReportContext& ctx) {
  return str_cat(plan.incast, plan.incast == 1 ? " sender" : " senders", " into one port at once",
                 ctx.incast_source.empty() ? std::string() : str_cat(" (", ctx.incast_source, ")"));
}

// The NIC-model search, the paper's fluid model and the sensitivity of
// cc::validate_cc, as text.
RAILYARD_LAZY
std::string cc_metric_cells_conv(const std::optional<double>& us) {
  return us ? fixed(*us, 0) : std::string("never");
}

RAILYARD_LAZY
void cc_validation_text(std::string& out, const cc::CcValidation& v) {
  const cc::CcSearch& s = v.search;
  str_append(out, "\nNIC model (DCQCN as ConnectX runs it, switch RED ECN and PFC): ", v.senders,
             " senders into one ", fixed(v.link_gbps, 0), " Gb/s port",
             v.start_fraction < 1
                 ? str_cat(" (the job's start at ", fixed(v.start_fraction * 100, 1), "% of line rate)")
                 : std::string(),
             ", base RTT ", fixed(v.feedback_delay_us, 3), " us, ",
             fixed(v.duration_us / 1000, 0), " ms per scenario\n  readings: ",
             cc::describe(s.readings), "\n");
  for (const cc::CcScenario& sc : s.scenarios)
    str_append(out, "  scenario ", sc.name, ": ", sc.description, "\n");
  CcTable t({{"profile", false},
             {"scenario", false},
             {"pauses", true},
             {"paused us", true},
             {"drops", true},
             {"peak KB", true},
             {"util", true},
             {"steady q KB", true},
             {"Jain", true},
             {"converged us", true}});
  auto rows = [&](const cc::CandidateScore& c, std::string label) {
    for (size_t i = 0; i < s.scenarios.size(); ++i) {
      const cc::IncastMetrics& m = c.metrics[i];
      t.row({i == 0 ? label : std::string(), s.scenarios[i].name, str_cat(m.pauses),
             fixed(m.paused_us_max, 0), str_cat(m.drops), fixed(m.peak_queue_bytes / 1e3, 0),
             fixed(m.utilization, 3), fixed(m.steady_queue_bytes / 1e3, 0),
             fixed(m.jain_fairness, 3), cc_metric_cells_conv(m.convergence_us)});
    }
  };
  rows(s.candidates[0], "vendor");
  rows(s.candidates[1], "derived");
  if (s.recommended > 1) rows(s.candidates[s.recommended], s.candidates[s.recommended].candidate.name);
  t.render(out, "  ");
  for (size_t i = 0; i < s.candidates.size(); ++i) {
    const cc::CandidateScore& c = s.candidates[i];
    if (i == 0) continue;
    str_append(out, "  ", c.candidate.name, ": ", c.candidate.description, " -> ",
               c.dominates ? "beats the defaults"
               : c.no_worse ? "no better than the defaults"
                            : str_cat("worse (", c.worse, ")"),
               "\n");
  }
  str_append(out, "  recommendation: ", s.recommended == 0 ? std::string("vendor defaults") : s.candidates[s.recommended].candidate.name,
             " (", s.reason, ")\n");

  str_append(out, "\npaper fluid model (CoNEXT'16 equations: target clamped on every cut, no hyper "
             "increase, no PFC): ", v.senders, " senders at ", fixed(v.start_fraction * 100, 1),
             "% of line rate into one ", fixed(v.buffer_bytes / 1e6, 1), " MB port, ",
             fixed(v.duration_us / 1000, 0), " ms\n");
  CcTable f({{"profile", false},
             {"peak KB", true},
             {"util", true},
             {"steady util", true},
             {"steady q KB", true},
             {"Jain", true},
             {"settled us", true},
             {"under buffer", false}});
  for (const cc::FluidSummary* x : {&v.fluid_vendor, &v.fluid_derived})
    f.row({x->profile, fixed(x->peak_queue_bytes / 1e3, 0), fixed(x->utilization, 3),
           fixed(x->steady_utilization, 3), fixed(x->steady_queue_bytes / 1e3, 0),
           fixed(x->jain_fairness, 3), cc_metric_cells_conv(x->convergence_us),
           x->under_buffer ? "yes" : "no"});
  f.render(out, "  ");

  if (!v.sensitivity.empty()) {
    out += "\nsensitivity (the search again under each change)\n";
    CcTable st({{"variant", false}, {"recommendation", false}, {"verdict", false}});
    for (const cc::SensitivityRow& r : v.sensitivity)
      st.row({r.variant, r.recommended_name == "vendor" ? std::string("vendor defaults") : r.recommended_name,
              r.holds ? "holds" : "changes"});
    st.render(out, "  ");
  }
  for (const std::string& w : v.warnings) str_append(out, "  ", w, "\n");
}

// The same as JSON (the "validation" key of cc_json).
RAILYARD_LAZY
void cc_validation_json(JsonWriter& w, const cc::CcValidation& v) {
  auto metrics = [&](const cc::IncastMetrics& m) {
    w.begin_object();
    w.key("pauses").value(m.pauses);
    w.key("paused_us_max").value(rounded(m.paused_us_max, 3));
    w.key("drops").value(m.drops);
    w.key("peak_queue_bytes").value(rounded(m.peak_queue_bytes, 0));
    w.key("utilization").value(rounded(m.utilization, 4));
    w.key("steady_utilization").value(rounded(m.steady_utilization, 4));
    w.key("steady_queue_bytes").value(rounded(m.steady_queue_bytes, 0));
    w.key("jain_fairness").value(rounded(m.jain_fairness, 4));
    w.key("convergence_us");
    if (m.convergence_us) {
      w.value(rounded(*m.convergence_us, 1));
    } else {
      w.null();
    }
    w.end_object();
  };
  const cc::CcSearch& s = v.search;
  w.key("validation").begin_object();
  w.key("senders").value(v.senders);
  w.key("start_fraction").value(rounded(v.start_fraction, 6));
  w.key("base_rtt_us").value(rounded(v.feedback_delay_us, 3));
  w.key("usable_buffer_bytes").value(rounded(v.buffer_bytes, 0));
  w.key("duration_us").value(rounded(v.duration_us, 3));
  w.key("readings").value(cc::describe(s.readings));
  w.key("scenarios").begin_array();
  for (const cc::CcScenario& sc : s.scenarios) {
    w.begin_object();
    w.key("name").value(sc.name);
    w.key("description").value(sc.description);
    w.end_object();
  }
  w.end_array();
  w.key("candidates").begin_array();
  for (const cc::CandidateScore& c : s.candidates) {
    w.begin_object();
    w.key("name").value(c.candidate.name);
    w.key("description").value(c.candidate.description);
    w.key("kmin_bytes").value(rounded(c.candidate.red.kmin_bytes, 0));
    w.key("kmax_bytes").value(rounded(c.candidate.red.kmax_bytes, 0));
    w.key("pmax").value(cc_round_p(c.candidate.red.pmax));
    w.key("no_worse").value(c.no_worse);
    w.key("dominates").value(c.dominates);
    w.key("worse").value(c.worse);
    w.key("metrics").begin_array();
    for (const cc::IncastMetrics& m : c.metrics) metrics(m);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("recommended").value(s.candidates[s.recommended].candidate.name);
  w.key("reason").value(s.reason);
  w.key("fluid").begin_object();
  for (const cc::FluidSummary* f : {&v.fluid_vendor, &v.fluid_derived}) {
    w.key(f->profile).begin_object();
    w.key("peak_queue_bytes").value(rounded(f->peak_queue_bytes, 0));
    w.key("utilization").value(rounded(f->utilization, 4));
    w.key("steady_utilization").value(rounded(f->steady_utilization, 4));
    w.key("steady_queue_bytes").value(rounded(f->steady_queue_bytes, 0));
    w.key("jain_fairness").value(rounded(f->jain_fairness, 4));
    w.key("convergence_us");
    if (f->convergence_us) {
      w.value(rounded(*f->convergence_us, 1));
    } else {
      w.null();
    }
    w.key("under_buffer").value(f->under_buffer);
    w.end_object();
  }
  w.end_object();
  w.key("sensitivity").begin_array();
  for (const cc::SensitivityRow& r : v.sensitivity) {
    w.begin_object();
    w.key("variant").value(r.variant);
    w.key("recommended").value(r.recommended_name);
    w.key("holds").value(r.holds);
    w.end_object();
  }
  w.end_array();
  w.key("warnings").begin_array();
  for (const std::string& x : v.warnings) w.value(x);
  w.end_array();
  w.end_object();
}

}  // namespace detail

RAILYARD_LAZY
[[nodiscard]] std::string cc_json(const cc::CcPlan& plan, const cc::CcInputs& in,
                                         const CcReportContext& ctx = {}, int indent = 2,
                                         const cc::CcValidation* fluid = nullptr) {
  using detail::cc_round_p;
  JsonWriter w(indent);
  w.begin_object();
  w.key("inputs").begin_object();
  w.key("cluster").value(ctx.cluster);
  w.key("incast").value(in.incast);
  w.key("incast_source").value(ctx.incast_source);
  w.key("buffer_bytes_per_port");
  if (in.buffer_bytes_per_port > 0)
    w.value(rounded(in.buffer_bytes_per_port, 0));
  else
    w.null();
  w.key("mtu_bytes").value(rounded(in.mtu_bytes, 0));
  w.key("frame_overhead_bytes").value(rounded(in.frame_overhead_bytes, 0));
  w.key("switch_mtu_bytes").value(rounded(in.switch_mtu_bytes, 0));
  w.key("dt_alpha").value(rounded(in.dt_alpha, 6));
  w.key("message_bytes");
  if (in.message_bytes > 0)
    w.value(rounded(in.message_bytes, 0));
  else
    w.null();
  w.key("switch_ns").value(rounded(in.latency.switch_ns, 3));
  w.key("nic_ns").value(rounded(in.latency.nic_ns, 3));
  w.key("cable_m");
  if (in.cable_m > 0)
    w.value(rounded(in.cable_m, 3));
  else
    w.null();
  w.key("qps_per_nic").value(in.qps_per_nic);
  w.key("jobs").value(ctx.jobs);
  w.key("tenants").begin_array();
  for (const placement::Allocation& a : in.tenants) {
    w.begin_object();
    w.key("name").value(a.name);
    w.key("tenant").value(a.tenant);
    w.key("gpus").value(a.gpus);
    w.key("hosts").value(detail::cc_hosts_text(a.hosts));
    w.end_object();
  }
  w.end_array();
  w.end_object();

  w.key("link_gbps").value(rounded(plan.link_gbps, 3));
  w.key("incast").value(plan.incast);
  w.key("incast_source").value(ctx.incast_source);
  w.key("mtu_bytes").value(rounded(plan.mtu_bytes, 0));
  w.key("switch_mtu_bytes").value(rounded(in.switch_mtu_bytes, 0));
  w.key("frame_bytes").value(rounded(plan.frame_bytes, 0));
  w.key("buffer_bytes_per_port").value(rounded(plan.buffer_bytes_per_port, 0));
  w.key("buffer_reason").value(plan.buffer_reason);
  w.key("pfc_headroom_bytes").value(rounded(plan.pfc_headroom_bytes, 0));
  w.key("pfc_reason").value(plan.pfc_reason);
  w.key("pfc").begin_object();
  w.key("priority").value(plan.pfc.priority);
  w.key("headroom_bytes").value(rounded(plan.pfc.headroom_bytes, 0));
  w.key("xon_offset_bytes").value(rounded(plan.pfc.xon_offset_bytes, 0));
  w.key("dynamic_alpha").value(rounded(plan.pfc.dynamic_alpha, 6));
  w.key("shared_buffer_bytes").value(rounded(plan.pfc.shared_buffer_bytes, 0));
  w.key("cable_m").value(rounded(plan.pfc.cable_m, 3));
  w.key("reason").value(plan.pfc.reason);
  w.end_object();

  w.key("paths").begin_array();
  for (const cc::PathRtt& p : plan.paths) {
    w.begin_object();
    w.key("path").value(p.path);
    w.key("switches").value(p.switches);
    w.key("cable_m").value(rounded(p.cable_m, 3));
    w.key("one_way_us").value(rounded(p.one_way_us, 3));
    w.key("rtt_us").value(rounded(p.rtt_us, 3));
    w.key("bdp_bytes").value(rounded(p.bdp_bytes, 0));
    w.end_object();
  }
  w.end_array();

  w.key("ecn");
  if (plan.ecn.empty()) {
    w.null();
  } else {
    const cc::EcnTier& e = plan.ecn.front();  // leaf->host
    w.begin_object();
    w.key("tier").value(e.tier);
    w.key("kmin_bytes").value(rounded(e.kmin_bytes, 0));
    w.key("kmax_bytes").value(rounded(e.kmax_bytes, 0));
    w.key("pmax").value(cc_round_p(e.pmax));
    w.key("pmax_percent").value(cc_round_p(e.pmax * 100));
    w.end_object();
  }
  w.key("ecn_tiers").begin_array();
  for (const cc::EcnTier& e : plan.ecn) {
    w.begin_object();
    w.key("tier").value(e.tier);
    w.key("rtt_us").value(rounded(e.rtt_us, 3));
    w.key("bdp_bytes").value(rounded(e.bdp_bytes, 0));
    w.key("kmin_bytes").value(rounded(e.kmin_bytes, 0));
    w.key("kmax_bytes").value(rounded(e.kmax_bytes, 0));
    w.key("pmax").value(cc_round_p(e.pmax));
    w.key("pmax_percent").value(cc_round_p(e.pmax * 100));
    w.key("equilibrium_p").value(cc_round_p(e.equilibrium_p));
    w.key("incast_burst_bytes").value(rounded(e.incast_burst_bytes, 0));
    w.key("buffer_bytes").value(rounded(e.buffer_bytes, 0));
    w.key("usable_bytes").value(rounded(e.usable_bytes, 0));
    w.key("fits").value(e.fits);
    w.key("reason").value(e.reason);
    w.end_object();
  }
  w.end_array();

  w.key("derived_ecn_tiers").begin_array();
  for (const cc::EcnTier& e : plan.derived_ecn) {
    w.begin_object();
    w.key("tier").value(e.tier);
    w.key("kmin_bytes").value(rounded(e.kmin_bytes, 0));
    w.key("kmax_bytes").value(rounded(e.kmax_bytes, 0));
    w.key("pmax").value(cc_round_p(e.pmax));
    w.key("pmax_percent").value(cc_round_p(e.pmax * 100));
    w.key("equilibrium_p").value(cc_round_p(e.equilibrium_p));
    w.key("fits").value(e.fits);
    w.key("reason").value(e.reason);
    w.end_object();
  }
  w.end_array();
  w.key("recommendation").value(plan.recommendation);
  w.key("dcqcn");
  detail::cc_values_json(w, plan.dcqcn_settings);
  w.key("derived_dcqcn");
  detail::cc_values_json(w, cc::dcqcn_settings(plan.derived_dcqcn, "candidate derived by rule"));
  w.key("hpcc");
  detail::cc_values_json(w, plan.hpcc);
  w.key("nscc");
  detail::cc_values_json(w, plan.nscc);
  w.key("nccl_env").begin_object();
  for (const detail::CcEnvLine& e : detail::cc_env_lines(plan)) {
    w.key(e.name).begin_object();
    w.key("value").value(e.value);
    w.key("reason").value(e.reason);
    w.end_object();
  }
  w.end_object();
  w.key("rate_limits").begin_array();
  for (const cc::Value& r : plan.rate_limits) {
    w.begin_object();
    w.key("tenant").value(r.name);
    w.key("kbps_per_qp").value(rounded(r.value, 0));
    w.key("reason").value(r.reason);
    w.end_object();
  }
  w.end_array();
  w.key("warnings").begin_array();
  for (const std::string& s : plan.warnings) w.value(s);
  for (const std::string& s : ctx.warnings) w.value(s);
  w.end_array();
  if (fluid != nullptr) detail::cc_validation_json(w, *fluid);
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string cc_text(const cc::CcPlan& plan, const cc::CcInputs& in,
                                         const CcReportContext& ctx = {},
                                         const cc::CcValidation* fluid = nullptr) {
  using detail::cc_kb;
  using detail::CcTable;
  std::string out;
  str_append(out, "cluster     ", ctx.cluster.empty() ? std::string("-") : ctx.cluster, ": ",
             fixed(plan.link_gbps, 0), " Gb/s links, RoCE MTU ", fixed(plan.mtu_bytes, 0),
             " B (", fixed(plan.frame_bytes, 0), " B frames on the wire), switch MTU ",
             fixed(in.switch_mtu_bytes, 0), " B\n");
  str_append(out, "incast      ", detail::cc_incast_text(plan, ctx), "\n");
  str_append(out, "buffer      ", cc_kb(plan.buffer_bytes_per_port),
             " KB per port (1 KB = 1000 bytes): ", plan.buffer_reason, "\n");
  str_append(out, "PFC         ", cc_kb(plan.pfc_headroom_bytes),
             " KB headroom per port: ", plan.pfc_reason, "\n");
  str_append(out, "PFC         lossless priority ", plan.pfc.priority, ", headroom ",
             cc_kb(plan.pfc.headroom_bytes), " KB, XON offset ", cc_kb(plan.pfc.xon_offset_bytes),
             " KB, dynamic-threshold alpha ", detail::cc_value_text(plan.pfc.dynamic_alpha),
             " (per ingress port and priority)\n");
  if (in.message_bytes > 0)
    str_append(out, "message     ", fixed(in.message_bytes, 0), " bytes per connection\n");

  str_append(out,
             "\npath classes (one way: cables at 5 ns/m + switches + 2 NICs + one frame; "
             "RTT = 2 x one way; BDP = link x RTT)\n");
  CcTable paths(
      {{"path", false}, {"switches", true}, {"cable m", true}, {"RTT us", true}, {"BDP KB", true}});
  for (const cc::PathRtt& p : plan.paths)
    paths.row({p.path, str_cat(p.switches), fixed(p.cable_m, 1), fixed(p.rtt_us, 3),
               cc_kb(p.bdp_bytes)});
  paths.render(out, "  ");

  const double usable = plan.ecn.empty() ? 0 : plan.ecn.front().usable_bytes;
  auto ecn_table = [&](const std::vector<cc::EcnTier>& tiers, bool with_p) {
    std::vector<std::pair<std::string, bool>> columns = {
        {"tier", false}, {"Kmin KB", true}, {"Kmax KB", true}, {"Pmax", true}, {"Pmax %", true}};
    if (with_p) columns.push_back({"p*", true});
    columns.push_back({"burst KB", true});
    columns.push_back({"fits", false});
    CcTable ecn(std::move(columns));
    for (const cc::EcnTier& e : tiers) {
      std::vector<std::string> row = {e.tier, cc_kb(e.kmin_bytes), cc_kb(e.kmax_bytes),
                                      fixed(e.pmax, 4), fixed(e.pmax * 100, 2)};
      if (with_p) {
        const double p = detail::cc_round_p(e.equilibrium_p);
        row.push_back(fixed(p, std::max(4, detail::cc_small_decimals(p))));
      }
      row.push_back(cc_kb(e.incast_burst_bytes));
      row.push_back(e.fits ? "yes" : "NO");
      ecn.row(std::move(row));
    }
    ecn.render(out, "  ");
    // One line per distinct reason, naming the tiers it covers.
    std::vector<std::pair<std::string, std::string>> reasons;  // tiers, reason
    for (const cc::EcnTier& e : tiers) {
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& r) { return r.second == e.reason; });
      if (it == reasons.end())
        reasons.emplace_back(e.tier, e.reason);
      else
        str_append(it->first, ", ", e.tier);
    }
    for (const auto& [tiers_text, reason] : reasons)
      str_append(out, "  why ", tiers_text, ": ", reason, "\n");
  };
  str_append(out, "\nrecommendation: ", plan.recommendation, "\n");
  str_append(out, "\nECN per egress tier, recommended (usable before PFC = buffer - headroom = ",
             cc_kb(usable), " KB; burst = (incast - 1) x BDP)\n");
  ecn_table(plan.ecn, false);
  if (!plan.derived_ecn.empty()) {
    out += "\nECN candidate derived by rule (--simulate checks it against the defaults)\n";
    ecn_table(plan.derived_ecn, true);
  }

  out += "\nDCQCN, recommended (mlx5 cc_params, as in /sys/kernel/debug/mlx5/<pci>/cc_params/)\n";
  detail::cc_values_table(out, plan.dcqcn_settings);
  str_append(out, "  candidate derived by rule: rp_rate_reduce_monitor_period ",
             detail::cc_value_text(plan.derived_dcqcn.decrease_period_us), " us, rp_time_reset ",
             detail::cc_value_text(plan.derived_dcqcn.increase_timer_us), " us, rp_ai_rate ",
             detail::cc_value_text(plan.derived_dcqcn.ai_mbps), " Mb/s, rp_hai_rate ",
             detail::cc_value_text(plan.derived_dcqcn.hai_mbps),
             " Mb/s (--simulate checks it against the defaults)\n");
  out += "\nHPCC\n";
  detail::cc_values_table(out, plan.hpcc);
  out += "\nNSCC (UEC)\n";
  detail::cc_values_table(out, plan.nscc);

  out += "\nNCCL environment (export these, or put them in the job's env file)\n";
  for (const detail::CcEnvLine& e : detail::cc_env_lines(plan))
    str_append(out, "# ", e.reason, "\n", e.name, "=", e.value, "\n");

  if (!in.tenants.empty()) {
    out += "\nrate limits per QP (ibv_modify_qp_rate_limit: ibv_qp_rate_limit_attr.rate_limit, kb/s)\n";
    if (plan.rate_limits.empty()) {
      const bool no_partition =
          std::any_of(plan.warnings.begin(), plan.warnings.end(),
                      [](const std::string& w) { return w.starts_with("no spine partition"); });
      out += no_partition ? "  (none: see the warnings)\n"
                          : "  (none: no tenant's traffic crosses a spine)\n";
    } else {
      CcTable rl({{"tenant", false}, {"kbps/QP", true}, {"Gb/s/QP", true}, {"reason", false}});
      for (const cc::Value& r : plan.rate_limits)
        rl.row({r.name, fixed(r.value, 0), fixed(r.value / 1e6, 3), r.reason});
      rl.render(out, "  ");
    }
  }

  if (fluid != nullptr) detail::cc_validation_text(out, *fluid);

  if (!plan.warnings.empty() || !ctx.warnings.empty()) {
    out += "\nwarnings\n";
    for (const std::string& s : plan.warnings) str_append(out, "  ", s, "\n");
    for (const std::string& s : ctx.warnings) str_append(out, "  ", s, "\n");
  }
  return out;
}

// The paper fluid model's run of the derived settings (cc::validate_cc) as an
// SVG plot of the queue and the senders' rates (report/trace_svg.hpp).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> cc_fluid_svg(const cc::CcValidation& v) {
  return trace_svg(v.fluid_derived.result, v.fluid_derived.red, v.scenario,
                   str_cat("railyard cc: ", v.senders, " DCQCN senders into one ", v.link_gbps,
                           " Gb/s port (derived settings, the paper's fluid model)"));
}

}  // namespace railyard::report
