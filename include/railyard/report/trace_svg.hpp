// railyard/report/trace_svg.hpp — a DCQCN fluid-model trace (queue and sending
// rates over time) as a standalone SVG plot.
//
//   auto r = railyard::cc::simulate_dcqcn(params, red, scenario);
//   railyard::StatusOr<std::string> svg =
//       railyard::report::trace_svg(*r, red, scenario, "8:1 incast, vendor defaults");
//   // Write *svg to trace.svg and open it in a browser.
//
// Two panels share the time axis (µs, or ms from 10 ms on):
//
//   <title>
//   queue    : the queue (blue) with dashed horizontal lines at Kmin (orange),
//              Kmax (red) and the buffer (black; off-scale buffers are named
//              in the legend instead of squashing the plot)
//   rates    : R_C of each traced flow (palette colours), their sum (black),
//              the bottleneck capacity (dashed grey) and the fair share
//              (dotted green)
//
// Axes start at 0; their maxima are the data maxima (and Kmax, capacity) rounded
// up to the next 1/2/5·10^k tick step with 4–8 ticks. The queue axis is in KB
// (10^3 bytes), or MB from 10 MB on; rates in Gb/s. Each panel has a legend on
// its right. Traces with more samples than twice the plot width are thinned
// per pixel column to the first, minimum, maximum and last sample (so peaks
// survive).
//
// The document is standalone SVG 1.1, written by report/svg.hpp; the title is
// XML-escaped (invalid UTF-8 and control characters become '?'). The bytes
// depend only on the input: numbers have fixed decimals (coordinates one, tick
// labels as many as the tick step needs) and '.' whatever the process locale.
//
// Errors (absl::InvalidArgumentError) name the field and value:
// "t_us: 1 samples, need >= 2", "queue_bytes: 3 values for 4 samples",
// "t_us[2]=5: must be greater than t_us[1]=5", "total_gbps[0]=nan: must be a
// finite number >= 0", "width_px=100: must be in [480, 20000]",
// "kmin_bytes=5: must be <= kmax_bytes=2". O(samples) time and output.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/svg.hpp"

namespace railyard::report {

// What trace_svg() draws besides the trace.
struct TraceSvgOptions {
  std::string title = {};
  double kmin_bytes = 0;  // Kmin/Kmax lines when kmax_bytes > 0
  double kmax_bytes = 0;
  double buffer_bytes = std::numeric_limits<double>::infinity();  // line when finite
  double capacity_gbps = 0;                                       // line when > 0
  double fair_share_gbps = 0;                                     // line when > 0
  int32_t width_px = 960;                                         // [480, 20000]
  int32_t panel_height_px = 240;                                  // [120, 4000]
};

namespace detail {

inline constexpr int kTraceMarginLeft = 78;
inline constexpr int kTraceLegendW = 190;
inline constexpr int kTraceTop = 36;
inline constexpr int kTracePanelGap = 56;
inline constexpr int kTraceBottom = 44;
inline constexpr std::array<std::string_view, 8> kTracePalette = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// A 0-based axis up to max ≥ `hi` in 4..8 intervals of a 1/2/5·10^k step
// (the smallest such step ≥ hi/8).
struct TraceAxis {
  double step = 1;
  double max = 1;
  int decimals = 0;  // digits a tick label needs
  [[nodiscard]] int ticks() const { return static_cast<int>(std::llround(max / step)); }
};

RAILYARD_LAZY
TraceAxis trace_axis(double hi) {
  TraceAxis a;
  if (!(hi > 0)) hi = 1;
  const double raw = hi / 8;
  const double base = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double mult : {1.0, 2.0, 5.0, 10.0}) {
    a.step = mult * base;
    if (a.step >= raw * (1 - 1e-12)) break;
  }
  a.max = std::ceil(hi / a.step - 1e-9) * a.step;
  a.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(a.step) + 1e-9)));
  return a;
}

RAILYARD_LAZY
Status trace_values(std::string_view name, std::span<const double> v, size_t n) {
  if (v.size() != n) {
    return invalid_argument_error(str_cat(name, ": ", v.size(), " values for ", n, " samples"));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!(v[i] >= 0) || !std::isfinite(v[i])) {
      return invalid_field(str_cat(name, "[", i, "]"), number_text(v[i]),
                           "must be a finite number >= 0");
    }
  }
  return ok_status();
}

// Indices of the samples to draw: all of them, or per pixel column the first,
// minimum, maximum and last (in time order) when there are many.
RAILYARD_LAZY
std::vector<size_t> trace_thin(std::span<const double> t, std::span<const double> v,
                                      double t_max, int plot_w) {
  std::vector<size_t> keep;
  const size_t n = t.size();
  if (n <= static_cast<size_t>(2 * plot_w)) {
    keep.resize(n);
    for (size_t i = 0; i < n; ++i) keep[i] = i;
    return keep;
  }
  size_t i = 0;
  while (i < n) {
    const auto col = static_cast<int64_t>(std::floor(t[i] / t_max * plot_w));
    size_t j = i, lo = i, hi = i;
    while (j < n && static_cast<int64_t>(std::floor(t[j] / t_max * plot_w)) == col) {
      if (v[j] < v[lo]) lo = j;
      if (v[j] > v[hi]) hi = j;
      ++j;
    }
    std::array<size_t, 4> pick = {i, std::min(lo, hi), std::max(lo, hi), j - 1};
    for (size_t p : pick)
      if (keep.empty() || keep.back() < p) keep.push_back(p);
    i = j;
  }
  return keep;
}

}  // namespace detail

// The two-panel plot of `trace` (layout in the overview). Errors: see the
// overview. Deterministic; O(samples).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> trace_svg(const cc::FluidTrace& trace,
                                                           const TraceSvgOptions& options = {}) {
  namespace d = detail;
  const size_t n = trace.t_us.size();
  if (n < 2) return invalid_argument_error(str_cat("t_us: ", n, " samples, need >= 2"));
  for (size_t i = 0; i < n; ++i) {
    const double t = trace.t_us[i];
    if (!(t >= 0) || !std::isfinite(t)) {
      return invalid_field(str_cat("t_us[", i, "]"), number_text(t),
                           "must be a finite number >= 0");
    }
    if (i > 0 && !(t > trace.t_us[i - 1])) {
      return invalid_field(
          str_cat("t_us[", i, "]"), number_text(t),
          str_cat("must be greater than t_us[", i - 1, "]=", number_text(trace.t_us[i - 1])));
    }
  }
  RAILYARD_RETURN_IF_ERROR(d::trace_values("queue_bytes", trace.queue_bytes, n));
  RAILYARD_RETURN_IF_ERROR(d::trace_values("total_gbps", trace.total_gbps, n));
  if (trace.flows.size() != trace.flow_gbps.size()) {
    return invalid_argument_error(str_cat("flow_gbps: ", trace.flow_gbps.size(), " series for ",
                                              trace.flows.size(), " flows"));
  }
  for (size_t f = 0; f < trace.flow_gbps.size(); ++f) {
    RAILYARD_RETURN_IF_ERROR(d::trace_values(str_cat("flow_gbps[", f, "]"), trace.flow_gbps[f], n));
  }
  if (options.width_px < 480 || options.width_px > 20000) {
    return invalid_field("width_px", str_cat(options.width_px), "must be in [480, 20000]");
  }
  if (options.panel_height_px < 120 || options.panel_height_px > 4000) {
    return invalid_field("panel_height_px", str_cat(options.panel_height_px),
                         "must be in [120, 4000]");
  }
  auto finite_non_negative = [](std::string_view key, double v) -> Status {
    if (!(v >= 0) || !std::isfinite(v)) {
      return invalid_field(key, number_text(v), "must be a finite number >= 0");
    }
    return ok_status();
  };
  RAILYARD_RETURN_IF_ERROR(finite_non_negative("kmin_bytes", options.kmin_bytes));
  RAILYARD_RETURN_IF_ERROR(finite_non_negative("kmax_bytes", options.kmax_bytes));
  if (options.kmin_bytes > options.kmax_bytes) {
    return invalid_field("kmin_bytes", number_text(options.kmin_bytes),
                         str_cat("must be <= kmax_bytes=", number_text(options.kmax_bytes)));
  }
  if (!(options.buffer_bytes > 0)) {
    return invalid_field("buffer_bytes", number_text(options.buffer_bytes),
                         "must be > 0 (infinity = not drawn)");
  }
  RAILYARD_RETURN_IF_ERROR(finite_non_negative("capacity_gbps", options.capacity_gbps));
  RAILYARD_RETURN_IF_ERROR(finite_non_negative("fair_share_gbps", options.fair_share_gbps));

  // Geometry.
  const int left = d::kTraceMarginLeft;
  const int plot_w = options.width_px - left - d::kTraceLegendW;
  const int panel_h = options.panel_height_px;
  const int top1 = d::kTraceTop + (options.title.empty() ? 0 : 22);
  const int top2 = top1 + panel_h + d::kTracePanelGap;
  const int height = top2 + panel_h + d::kTraceBottom;
  const int width = options.width_px;

  // Axes.
  const double t_max = trace.t_us.back();
  const bool in_ms = t_max >= 10'000;
  const double t_div = in_ms ? 1e3 : 1.0;
  const d::TraceAxis tx = d::trace_axis(t_max / t_div);
  const double q_peak = *std::max_element(trace.queue_bytes.begin(), trace.queue_bytes.end());
  const bool draw_k = options.kmax_bytes > 0;
  double q_hi = std::max(q_peak, draw_k ? options.kmax_bytes : 0.0);
  const bool buffer_finite = std::isfinite(options.buffer_bytes);
  const bool buffer_on_scale = buffer_finite && options.buffer_bytes <= 4 * std::max(q_hi, 1.0);
  if (buffer_on_scale) q_hi = std::max(q_hi, options.buffer_bytes);
  const bool in_mb = q_hi >= 10e6;
  const double q_div = in_mb ? 1e6 : 1e3;
  const d::TraceAxis qy = d::trace_axis(q_hi / q_div);
  double r_hi = std::max(options.capacity_gbps, options.fair_share_gbps);
  for (double v : trace.total_gbps) r_hi = std::max(r_hi, v);
  for (const auto& f : trace.flow_gbps)
    for (double v : f) r_hi = std::max(r_hi, v);
  const d::TraceAxis ry = d::trace_axis(r_hi);

  auto fx = [&](double t_us) { return left + t_us / t_div / tx.max * plot_w; };
  auto fy = [&](int top, const d::TraceAxis& a, double v) {
    return top + panel_h - v / a.max * panel_h;
  };
  // Coordinates have one decimal (SvgWriter's default); tick labels as many as
  // their step needs.
  SvgWriter svg;
  svg.begin_document({.width = width,
                      .height = height,
                      .title = options.title.empty() ? "DCQCN fluid model trace" : options.title,
                      .desc = "Queue and sending rates over time, written by "
                              "railyard::report::trace_svg.",
                      .font_family = "sans-serif",
                      .font_size = 11});
  svg.background("#ffffff");
  if (!options.title.empty()) {
    svg.text(left, 24).attr("font-size", 14).attr("font-weight", "bold").end(options.title);
  }

  auto text = [&](double x, double y, std::string_view s, std::string_view anchor = {}) {
    svg.text(x, y);
    if (!anchor.empty()) svg.attr("text-anchor", anchor);
    svg.end(s);
  };
  auto dashed = [&](std::string_view dash) {
    if (!dash.empty()) svg.attr("stroke-dasharray", dash);
  };
  auto hline = [&](int top, const d::TraceAxis& a, double v, std::string_view stroke,
                   std::string_view dash, std::string_view cls) {
    const double y = fy(top, a, v);
    svg.start("line")
        .attr("class", cls)
        .attr("x1", left)
        .attr("y1", y)
        .attr("x2", left + plot_w)
        .attr("y2", y)
        .attr("stroke", stroke)
        .attr("stroke-width", "1.2");
    dashed(dash);
    svg.end();
  };
  auto polyline = [&](int top, const d::TraceAxis& a, std::span<const double> v, double div,
                      std::string_view stroke, double w, std::string_view cls) {
    std::vector<SvgPoint> points;
    for (size_t i : d::trace_thin(trace.t_us, v, t_max, plot_w))
      points.push_back({fx(trace.t_us[i]), fy(top, a, v[i] / div)});
    svg.start("polyline")
        .attr("class", cls)
        .attr("fill", "none")
        .attr("stroke", stroke)
        .attr("stroke-width", w)
        .attr("stroke-linejoin", "round")
        .points(points)
        .end();
  };
  auto frame = [&](int top, const d::TraceAxis& a, std::string_view y_label, int id) {
    svg.group().attr("class", "axes").attr("id", str_cat("axes-", id)).open();
    for (int k = 0; k <= a.ticks(); ++k) {
      const double v = k * a.step;
      svg.line(left, fy(top, a, v), left + plot_w, fy(top, a, v)).attr("stroke", "#e6e6e6").end();
      text(left - 6, fy(top, a, v) + 3.5, fixed(v, a.decimals), "end");
    }
    for (int k = 0; k <= tx.ticks(); ++k) {
      const double v = k * tx.step;
      const double x = left + v / tx.max * plot_w;
      svg.line(x, top + panel_h, x, top + panel_h + 4).attr("stroke", "#404040").end();
      text(x, top + panel_h + 16, fixed(v, tx.decimals), "middle");
    }
    svg.rect(left, top, plot_w, panel_h).attr("fill", "none").attr("stroke", "#404040").end();
    text(left + plot_w / 2.0, top + panel_h + 32, in_ms ? "time (ms)" : "time (\xc2\xb5s)",
         "middle");
    svg.text(16.0, top + panel_h / 2.0)
        .attr("text-anchor", "middle")
        .attr("transform", str_cat("rotate(-90 16 ", svg.number(top + panel_h / 2.0), ")"))
        .end(y_label);
    svg.close();
  };
  int legend_y = 0;
  auto legend = [&](int top, std::string_view stroke, std::string_view dash, std::string_view s) {
    if (legend_y == 0) legend_y = top + 8;
    const int x = left + plot_w + 14;
    svg.line(x, legend_y, x + 22, legend_y).attr("stroke", stroke).attr("stroke-width", 2);
    dashed(dash);
    svg.end();
    text(x + 28, legend_y + 4, s);
    legend_y += 16;
  };
  auto bytes_label = [&](double b) {
    return b >= 10e6 ? str_cat(fixed(b / 1e6, 1), " MB")
                     : str_cat(fixed(b / 1e3, b >= 1e5 ? 0 : 1), " KB");
  };

  // Queue panel.
  frame(top1, qy, in_mb ? "queue (MB)" : "queue (KB)", 1);
  svg.group().attr("class", "queue-panel").open();
  if (draw_k) {
    hline(top1, qy, options.kmin_bytes / q_div, "#ff7f0e", "6 4", "kmin");
    hline(top1, qy, options.kmax_bytes / q_div, "#d62728", "6 4", "kmax");
  }
  if (buffer_on_scale) hline(top1, qy, options.buffer_bytes / q_div, "#000000", "2 3", "buffer");
  polyline(top1, qy, trace.queue_bytes, q_div, "#1f77b4", 1.6, "queue");
  legend_y = 0;
  legend(top1, "#1f77b4", "", str_cat("queue, peak ", bytes_label(q_peak)));
  if (draw_k) {
    legend(top1, "#ff7f0e", "6 4", str_cat("Kmin ", bytes_label(options.kmin_bytes)));
    legend(top1, "#d62728", "6 4", str_cat("Kmax ", bytes_label(options.kmax_bytes)));
  }
  if (buffer_finite) {
    legend(top1, "#000000", "2 3",
           str_cat("buffer ", bytes_label(options.buffer_bytes),
                   buffer_on_scale ? "" : " (off scale)"));
  }
  svg.close();

  // Rate panel.
  frame(top2, ry, "rate (Gb/s)", 2);
  svg.group().attr("class", "rate-panel").open();
  if (options.capacity_gbps > 0)
    hline(top2, ry, options.capacity_gbps, "#7f7f7f", "6 4", "capacity");
  if (options.fair_share_gbps > 0) {
    hline(top2, ry, options.fair_share_gbps, "#2ca02c", "2 3", "fair-share");
  }
  for (size_t f = 0; f < trace.flow_gbps.size(); ++f) {
    polyline(top2, ry, trace.flow_gbps[f], 1.0, d::kTracePalette[f % d::kTracePalette.size()], 1.2,
             str_cat("flow flow-", trace.flows[f]));
  }
  polyline(top2, ry, trace.total_gbps, 1.0, "#000000", 1.6, "total");
  legend_y = 0;
  legend(top2, "#000000", "", "total of all flows");
  for (size_t f = 0; f < trace.flow_gbps.size(); ++f) {
    legend(top2, d::kTracePalette[f % d::kTracePalette.size()], "",
           str_cat("flow ", trace.flows[f], " R_C"));
  }
  if (options.capacity_gbps > 0) {
    legend(top2, "#7f7f7f", "6 4", str_cat("capacity ", fixed(options.capacity_gbps, 1), " Gb/s"));
  }
  if (options.fair_share_gbps > 0) {
    legend(top2, "#2ca02c", "2 3",
           str_cat("fair share ", fixed(options.fair_share_gbps, 2), " Gb/s"));
  }
  svg.close();
  return std::move(svg).finish();
}

// trace_svg() of a simulation result, with the lines taken from its inputs:
// Kmin/Kmax from `red`, the buffer from `scenario`, the capacity and the fair
// share from both.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> trace_svg(const cc::FluidResult& result,
                                                           const cc::RedMarking& red,
                                                           const cc::FluidScenario& scenario,
                                                           std::string_view title = {}) {
  TraceSvgOptions o;
  o.title = std::string(title);
  o.kmin_bytes = red.kmin_bytes;
  o.kmax_bytes = red.kmax_bytes;
  o.buffer_bytes = scenario.buffer_bytes;
  o.capacity_gbps = scenario.bottleneck_gbps;
  o.fair_share_gbps = result.fair_share_gbps;
  return trace_svg(result.trace, o);
}

}  // namespace railyard::report
