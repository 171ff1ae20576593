#include "railyard/report/trace_svg.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/xml_parser.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_trace_svg_test {

namespace {

using railyard::cc::FluidTrace;
using railyard::report::trace_svg;
using railyard::report::TraceSvgOptions;
using railyard::test::parse_xml;
using railyard::test::XmlElement;

// A hand-made trace: n samples over [0, t_max], a triangle-shaped queue
// peaking at q_peak in the middle, two flows.
FluidTrace make_trace(size_t n, double t_max, double q_peak) {
  FluidTrace t;
  t.flows = {0, 1};
  t.flow_gbps.assign(2, {});
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) / static_cast<double>(n - 1);
    t.t_us.push_back(x * t_max);
    t.queue_bytes.push_back(q_peak * (1 - std::abs(2 * x - 1)));
    t.flow_gbps[0].push_back(100 + 100 * x);  // 100 -> 200
    t.flow_gbps[1].push_back(250 - 100 * x);  // 250 -> 150, equal (175) at x = 0.75
    t.total_gbps.push_back(350);
  }
  return t;
}

std::string render(const FluidTrace& t, const TraceSvgOptions& o = {}) {
  auto svg = trace_svg(t, o);
  REQUIRE_MESSAGE(svg.ok(), svg.status().ToString());
  return *std::move(svg);
}

XmlElement parse(const std::string& text) {
  auto doc = parse_xml(text);  // strict
  REQUIRE_MESSAGE(doc.ok, doc.error);
  return doc.root;
}

void collect(const XmlElement& e, std::string_view name, std::vector<const XmlElement*>& out) {
  if (e.name == name) out.push_back(&e);
  for (const XmlElement& c : e.children) collect(c, name, out);
}
std::vector<const XmlElement*> all(const XmlElement& root, std::string_view name) {
  std::vector<const XmlElement*> out;
  collect(root, name, out);
  return out;
}
const XmlElement* with_class(const XmlElement& root, std::string_view name, std::string_view cls) {
  for (const XmlElement* e : all(root, name))
    if (e->attr("class") == std::string(cls)) return e;
  return nullptr;
}
std::string texts(const XmlElement& root) {
  std::string s;
  for (const XmlElement* e : all(root, "text")) s += e->text + "\n";
  return s;
}

std::vector<std::pair<double, double>> points(const XmlElement& polyline) {
  std::vector<std::pair<double, double>> out;
  const std::string p = *polyline.attr("points");
  size_t i = 0;
  while (i < p.size()) {
    const size_t sp = p.find(' ', i);
    const std::string pt = p.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
    const size_t comma = pt.find(',');
    REQUIRE(comma != std::string::npos);
    out.emplace_back(std::strtod(pt.substr(0, comma).c_str(), nullptr),
                     std::strtod(pt.substr(comma + 1).c_str(), nullptr));
    if (sp == std::string::npos) break;
    i = sp + 1;
  }
  return out;
}

double y_of(const XmlElement& line) { return std::strtod(line.attr("y1")->c_str(), nullptr); }

}  // namespace

TEST_CASE("trace_svg: a standalone, well-formed SVG 1.1 document with both panels") {
  TraceSvgOptions o;
  o.title = "incast <8:1> & more";
  o.kmin_bytes = 150e3;
  o.kmax_bytes = 1500e3;
  o.buffer_bytes = 2e6;
  o.capacity_gbps = 400;
  o.fair_share_gbps = 50;
  const std::string svg = render(make_trace(101, 2000, 1.8e6), o);
  CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"));
  const XmlElement root = parse(svg);
  CHECK(root.name == "svg");
  CHECK(root.attr("xmlns") == std::string("http://www.w3.org/2000/svg"));
  CHECK(root.attr("version") == std::string("1.1"));
  CHECK(root.attr("width") == std::string("960"));
  CHECK(root.attr("viewBox") == "0 0 960 " + *root.attr("height"));
  REQUIRE(root.all("title").size() == 1);
  CHECK(root.all("title")[0]->text == "incast <8:1> & more");  // escaped in the file
  CHECK(svg.find("incast &lt;8:1&gt; &amp; more") != std::string::npos);
  // Two framed panels, one polyline each for the queue and the total, one per flow.
  CHECK(all(root, "g").size() >= 4);
  CHECK(with_class(root, "polyline", "queue") != nullptr);
  CHECK(with_class(root, "polyline", "total") != nullptr);
  CHECK(with_class(root, "polyline", "flow flow-0") != nullptr);
  CHECK(with_class(root, "polyline", "flow flow-1") != nullptr);
  for (std::string_view cls : {"kmin", "kmax", "buffer", "capacity", "fair-share"}) {
    CAPTURE(cls);
    CHECK(with_class(root, "line", cls) != nullptr);
  }
  const std::string t = texts(root);
  for (std::string_view label :
       {"queue (KB)", "rate (Gb/s)", "time (\xc2\xb5s)", "Kmin 150 KB", "Kmax 1500 KB",
        "buffer 2000 KB", "queue, peak 1800 KB", "capacity 400.0 Gb/s", "fair share 50.00 Gb/s",
        "flow 0 R_C", "flow 1 R_C", "total of all flows"}) {
    CAPTURE(label);
    CHECK(t.find(label) != std::string::npos);
  }
}

TEST_CASE("trace_svg: curves and lines sit where the values are") {
  TraceSvgOptions o;
  o.kmin_bytes = 200e3;
  o.kmax_bytes = 800e3;
  o.capacity_gbps = 400;
  const FluidTrace tr = make_trace(21, 1000, 1e6);
  const XmlElement root = parse(render(tr, o));
  const auto q = points(*with_class(root, "polyline", "queue"));
  REQUIRE(q.size() == 21);
  // x: left edge at t = 0, evenly spaced, increasing.
  for (size_t i = 1; i < q.size(); ++i) {
    CHECK(q[i].first > q[i - 1].first);
    CHECK(q[i].first - q[i - 1].first == doctest::Approx(q[1].first - q[0].first).epsilon(0.01));
  }
  // y: the queue's zero is the panel bottom, its peak the highest point; the
  // Kmin and Kmax lines are at the heights of 200 KB and 800 KB.
  const double y0 = q.front().second;
  CHECK(q.back().second == y0);
  const auto top =
      std::min_element(q.begin(), q.end(), [](auto& a, auto& b) { return a.second < b.second; });
  CHECK(top - q.begin() == 10);
  const double y_peak = top->second;  // 1e6 bytes
  const double kmin_y = y_of(*with_class(root, "line", "kmin"));
  const double kmax_y = y_of(*with_class(root, "line", "kmax"));
  CHECK((y0 - kmin_y) / (y0 - y_peak) == doctest::Approx(0.2).epsilon(0.01));
  CHECK((y0 - kmax_y) / (y0 - y_peak) == doctest::Approx(0.8).epsilon(0.01));
  // Rates: total at 350 below the capacity line at 400; flows cross midway.
  const auto total = points(*with_class(root, "polyline", "total"));
  const double cap_y = y_of(*with_class(root, "line", "capacity"));
  for (const auto& [x, y] : total) CHECK(y > cap_y);
  const auto f0 = points(*with_class(root, "polyline", "flow flow-0"));
  const auto f1 = points(*with_class(root, "polyline", "flow flow-1"));
  CHECK(f0.front().second > f1.front().second);  // 100 below 250: lower on the page
  CHECK(f0.back().second < f1.back().second);    // 200 above 150
  CHECK(f0[15].second == doctest::Approx(f1[15].second).epsilon(1e-3));  // both 175
}

TEST_CASE("trace_svg: axes use 1-2-5 steps, 4 to 8 intervals, covering the data") {
  using railyard::report::detail::trace_axis;
  for (double hi = 1e-3; hi < 1e9; hi *= 1.37) {
    const auto a = trace_axis(hi);
    CAPTURE(hi);
    CHECK(a.max >= hi * (1 - 1e-9));
    CHECK(a.max - a.step < hi);
    CHECK(a.ticks() >= 4);
    CHECK(a.ticks() <= 8);
    const double mant = a.step / std::pow(10.0, std::floor(std::log10(a.step) + 1e-9));
    CHECK((std::abs(mant - 1) < 1e-9 || std::abs(mant - 2) < 1e-9 || std::abs(mant - 5) < 1e-9));
  }
  CHECK(trace_axis(400).step == 50);
  CHECK(trace_axis(400).max == 400);
  CHECK(trace_axis(0.7).decimals == 1);
  CHECK(trace_axis(2000).decimals == 0);
  // Long runs switch to ms, big queues to MB.
  const XmlElement root = parse(render(make_trace(51, 20'000, 25e6)));
  const std::string t = texts(root);
  CHECK(t.find("time (ms)") != std::string::npos);
  CHECK(t.find("queue (MB)") != std::string::npos);
  CHECK(t.find("queue, peak 25.0 MB") != std::string::npos);
}

TEST_CASE("trace_svg: long traces are thinned per pixel column and keep their peaks") {
  FluidTrace tr = make_trace(200'001, 20'000, 0);
  tr.queue_bytes[123'457] = 3e6;  // a one-sample spike
  const std::string svg = render(tr);
  CHECK(svg.size() < 200'000);
  const XmlElement root = parse(svg);
  const auto q = points(*with_class(root, "polyline", "queue"));
  CHECK(q.size() <= 4 * 960);
  const double y0 = q.front().second;
  double y_min = y0;
  for (const auto& p : q) y_min = std::min(y_min, p.second);
  CHECK(y_min < y0);  // the spike is drawn
  CHECK(texts(root).find("queue, peak 3000 KB") != std::string::npos);
}

TEST_CASE("trace_svg: the buffer line, or its name when off scale") {
  TraceSvgOptions o;
  o.kmax_bytes = 100e3;
  o.buffer_bytes = 64e6;  // far above a 120 KB queue
  XmlElement root = parse(render(make_trace(11, 100, 120e3), o));
  CHECK(with_class(root, "line", "buffer") == nullptr);
  CHECK(texts(root).find("buffer 64.0 MB (off scale)") != std::string::npos);
  o.buffer_bytes = 300e3;
  root = parse(render(make_trace(11, 100, 120e3), o));
  CHECK(with_class(root, "line", "buffer") != nullptr);
  o.buffer_bytes = std::numeric_limits<double>::infinity();
  root = parse(render(make_trace(11, 100, 120e3), o));
  CHECK(with_class(root, "line", "buffer") == nullptr);
  CHECK(texts(root).find("buffer") == std::string::npos);
}

TEST_CASE("trace_svg: deterministic bytes, from a simulation result") {
  using namespace railyard::cc;
  FluidScenario s{.senders = 4, .feedback_delay_us = 5, .buffer_bytes = 4e6, .duration_us = 300};
  auto r = simulate_dcqcn(vendor_default_dcqcn(), vendor_default_red(), s);
  REQUIRE(r.ok());
  auto a = trace_svg(*r, vendor_default_red(), s, "4:1");
  auto b = trace_svg(*r, vendor_default_red(), s, "4:1");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  const XmlElement root = parse(*a);
  const std::string t = texts(root);
  CHECK(t.find("Kmin 150 KB") != std::string::npos);
  CHECK(t.find("Kmax 1500 KB") != std::string::npos);
  CHECK(t.find("capacity 400.0 Gb/s") != std::string::npos);
  CHECK(t.find("fair share 100.00 Gb/s") != std::string::npos);
  CHECK(all(root, "polyline").size() == 2 + 4);
  // Invalid UTF-8 and control characters in the title become '?'.
  auto bad = trace_svg(*r, vendor_default_red(), s,
                       "a\x01"
                       "b\xff"
                       "c");
  REQUIRE(bad.ok());
  CHECK(parse(*bad).all("title")[0]->text == "a?b?c");
}

TEST_CASE("trace_svg: errors name the field and the value") {
  auto message = [](const FluidTrace& t, const TraceSvgOptions& o = {}) {
    auto r = trace_svg(t, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  CHECK(message(FluidTrace{}) == "t_us: 0 samples, need >= 2");
  FluidTrace t = make_trace(4, 10, 5);
  t.queue_bytes.pop_back();
  CHECK(message(t) == "queue_bytes: 3 values for 4 samples");
  t = make_trace(4, 10, 5);
  t.t_us[2] = t.t_us[1];
  CHECK(message(t) == "t_us[2]=3.333333333333333: must be greater than t_us[1]=3.333333333333333");
  t = make_trace(4, 10, 5);
  t.total_gbps[0] = std::numeric_limits<double>::quiet_NaN();
  CHECK(message(t) == "total_gbps[0]=nan: must be a finite number >= 0");
  t = make_trace(4, 10, 5);
  t.flow_gbps[1][3] = -1;
  CHECK(message(t) == "flow_gbps[1][3]=-1: must be a finite number >= 0");
  t = make_trace(4, 10, 5);
  t.flows.push_back(7);
  CHECK(message(t) == "flow_gbps: 2 series for 3 flows");
  t = make_trace(4, 10, 5);
  TraceSvgOptions o;
  o.width_px = 100;
  CHECK(message(t, o) == "width_px=100: must be in [480, 20000]");
  o = {};
  o.kmin_bytes = 5;
  o.kmax_bytes = 2;
  CHECK(message(t, o) == "kmin_bytes=5: must be <= kmax_bytes=2");
  o = {};
  o.buffer_bytes = 0;
  CHECK(message(t, o) == "buffer_bytes=0: must be > 0 (infinity = not drawn)");
  o = {};
  o.capacity_gbps = -3;
  CHECK(message(t, o) == "capacity_gbps=-3: must be a finite number >= 0");
}

}  // namespace railyard_test_report_trace_svg_test
