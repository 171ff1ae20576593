// railyard/report/svg.hpp — the one SVG writer behind railyard's pictures (link
// heat maps, DCQCN traces): a streaming element writer that produces standalone,
// well-formed SVG 1.1 with deterministic bytes.
//
//   railyard::report::SvgWriter svg;
//   svg.begin_document({.width = 200, .height = 100, .title = "demo"});
//   svg.background("#ffffff");
//   svg.group().attr("class", "bars").open();
//   svg.rect(10, 20, 30, 40.25).attr("fill", railyard::report::svg_color(0xfd8d3c)).end();
//   svg.line(0, 99.5, 200, 99.5).attr("stroke", "#404040").end();
//   svg.text(10, 15).attr("text-anchor", "start").end("a < b");  // escaped: a &lt; b
//   svg.close();                                                  // </g>
//   std::string text = std::move(svg).finish();                   // ... </svg>
//
// An element is written in steps: start(name) (or a shape helper: rect, line,
// text, group) opens its start tag; attr() and points() add attributes in the
// order called; then end() makes it empty ("/>"), end(text) gives it escaped
// character data, or open() lets children, content() and raw() follow until
// close(). Each finished element and each start tag of an element with children
// is followed by a newline, except inside an element opened with
// SvgLayout::kOneLine, which is written on one line with all of its descendants
// (a row of a heat map: one line of output per row of cells).
//
// Text and attribute values are escaped by core/xml_escape.hpp (the five special
// characters become entities; invalid UTF-8 and characters XML forbids become
// '?'), so any std::string_view is safe to pass. Numbers (SvgNumber) print in the
// C locale: integers exactly, other values with the writer's fixed number of
// decimals (railyard::fixed, '.' separator whatever LC_NUMERIC says), so the
// bytes depend only on the input.
//
// The document (begin_document) is standalone SVG 1.1 (SVG 1.1 section 5.1): an
// XML declaration, the root <svg> with xmlns, version, width, height and a
// viewBox of the same size (one user unit = one pixel), optional root font
// attributes that the text inherits, then <title> and <desc> (SVG 1.1 section
// 5.4: the name a viewer shows for the document).
#pragma once

#include <cassert>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/xml_escape.hpp"

namespace railyard::report {

// A coordinate or length: an integer prints as an integer, a double with the
// writer's decimals. Precondition: finite.
class SvgNumber {
 public:
  template <std::integral T>
  constexpr SvgNumber(T v) : integer_(static_cast<int64_t>(v)), integral_(true) {}
  constexpr SvgNumber(double v) : real_(v) {}

  void append_to(std::string& out, int decimals) const {
    if (integral_)
      str_append(out, integer_);
    else
      out += fixed(real_, decimals);
  }

 private:
  int64_t integer_ = 0;
  double real_ = 0;
  bool integral_ = false;
};

struct SvgPoint {
  SvgNumber x, y;
};

// "#rrggbb" of a 24-bit RGB value.
RAILYARD_LAZY
[[nodiscard]] std::string svg_color(uint32_t rgb) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "#";
  for (int shift = 20; shift >= 0; shift -= 4) s += kDigits[(rgb >> shift) & 0xfu];
  return s;
}

// What begin_document() writes before the content.
struct SvgDocument {
  SvgNumber width = 0;
  SvgNumber height = 0;
  std::string_view title = {};        // <title> (escaped)
  std::string_view desc = {};         // <desc> when not empty (escaped)
  std::string_view font_family = {};  // root attributes when not empty / > 0
  int font_size = 0;
  // Declares the xlink namespace, which SVG 1.1 requires for <use xlink:href>.
  bool xlink = false;
};

// How the children of an open() element are laid out in the output.
enum class SvgLayout {
  kLines,    // a newline after each child element
  kOneLine,  // the element and everything inside it on one line
};

class SvgWriter {
 public:
  // `decimals`: digits after the point for non-integer numbers.
  explicit SvgWriter(int decimals = 1) : decimals_(decimals) {}

  // The XML declaration, the open root <svg> element, its <title> and <desc>.
  // finish() closes the root.
  SvgWriter& begin_document(const SvgDocument& doc) {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    start("svg").attr("xmlns", "http://www.w3.org/2000/svg");
    if (doc.xlink) attr("xmlns:xlink", "http://www.w3.org/1999/xlink");
    attr("version", "1.1").attr("width", doc.width).attr("height", doc.height);
    std::string view_box = "0 0 ";
    doc.width.append_to(view_box, decimals_);
    view_box += ' ';
    doc.height.append_to(view_box, decimals_);
    attr("viewBox", view_box);
    if (!doc.font_family.empty()) attr("font-family", doc.font_family);
    if (doc.font_size > 0) attr("font-size", doc.font_size);
    open();
    title(doc.title);
    if (!doc.desc.empty()) start("desc").end(doc.desc);
    width_ = doc.width;
    height_ = doc.height;
    return *this;
  }
  // A rectangle filling the document (an SVG canvas is transparent otherwise).
  SvgWriter& background(std::string_view fill) {
    return start("rect").attr("width", width_).attr("height", height_).attr("fill", fill).end();
  }

  // --- Elements, step by step ---

  // "<name": attributes follow.
  SvgWriter& start(std::string_view name) {
    assert(!in_start_tag_);
    out_ += '<';
    out_ += name;
    stack_.push_back({std::string(name), false});
    in_start_tag_ = true;
    return *this;
  }
  SvgWriter& attr(std::string_view name, std::string_view value) {
    begin_attr(name);
    append_xml_escaped(out_, value);
    out_ += '"';
    return *this;
  }
  SvgWriter& attr(std::string_view name, SvgNumber value) {
    begin_attr(name);
    value.append_to(out_, decimals_);
    out_ += '"';
    return *this;
  }
  // A plain number (a literal 0 would otherwise also convert to string_view).
  template <class T>
  requires(std::integral<T> || std::floating_point<T>) SvgWriter& attr(std::string_view name,
                                                                       T value) {
    return attr(name, SvgNumber(value));
  }
  // points="x,y x,y ..." (<polyline>, <polygon>).
  SvgWriter& points(std::span<const SvgPoint> pts) {
    begin_attr("points");
    for (size_t i = 0; i < pts.size(); ++i) {
      if (i > 0) out_ += ' ';
      pts[i].x.append_to(out_, decimals_);
      out_ += ',';
      pts[i].y.append_to(out_, decimals_);
    }
    out_ += '"';
    return *this;
  }
  // Ends the started element as an empty one: "/>".
  SvgWriter& end() {
    assert(in_start_tag_);
    out_ += "/>";
    in_start_tag_ = false;
    stack_.pop_back();
    return line_break();
  }
  // Ends the started element with `text` (escaped) as its content.
  SvgWriter& end(std::string_view text) {
    assert(in_start_tag_);
    out_ += '>';
    append_xml_escaped(out_, text);
    in_start_tag_ = false;
    return close();
  }
  // Ends the start tag: children, content() and raw() follow, then close().
  SvgWriter& open(SvgLayout layout = SvgLayout::kLines) {
    assert(in_start_tag_);
    out_ += '>';
    in_start_tag_ = false;
    if (layout == SvgLayout::kOneLine) {
      stack_.back().one_line = true;
      ++one_line_depth_;
    }
    return line_break();
  }
  // Character data (escaped) inside the open element.
  SvgWriter& content(std::string_view text) {
    assert(!in_start_tag_ && !stack_.empty());
    append_xml_escaped(out_, text);
    return *this;
  }
  // Markup or text written as is. The caller vouches that it is well-formed
  // and valid UTF-8 (e.g. a literal " -> ", where content() would write "-&gt;").
  SvgWriter& raw(std::string_view markup) {
    assert(!in_start_tag_);
    out_ += markup;
    return *this;
  }
  // "</name>" of the innermost open element.
  SvgWriter& close() {
    assert(!in_start_tag_ && !stack_.empty());
    out_ += "</";
    out_ += stack_.back().name;
    out_ += '>';
    if (stack_.back().one_line) --one_line_depth_;
    stack_.pop_back();
    return line_break();
  }
  // Everything `fragment` wrote (a whole number of elements: none left open).
  SvgWriter& append(const SvgWriter& fragment) {
    assert(!in_start_tag_ && fragment.stack_.empty());
    out_ += fragment.out_;
    return *this;
  }

  // --- Shapes: each starts its element with the geometry; add attributes, then end() ---

  SvgWriter& rect(SvgNumber x, SvgNumber y, SvgNumber width, SvgNumber height) {
    return start("rect").attr("x", x).attr("y", y).attr("width", width).attr("height", height);
  }
  SvgWriter& line(SvgNumber x1, SvgNumber y1, SvgNumber x2, SvgNumber y2) {
    return start("line").attr("x1", x1).attr("y1", y1).attr("x2", x2).attr("y2", y2);
  }
  // Ends with end(text): the text sits on the baseline at y.
  SvgWriter& text(SvgNumber x, SvgNumber y) { return start("text").attr("x", x).attr("y", y); }
  // <g>: add attributes, then open(), children and close().
  SvgWriter& group() { return start("g"); }
  // A whole <title> element: the tooltip of its parent (SVG 1.1 section 5.4).
  SvgWriter& title(std::string_view text) { return start("title").end(text); }

  // `v` as attributes print it (for values built into a longer attribute).
  [[nodiscard]] std::string number(SvgNumber v) const {
    std::string s;
    v.append_to(s, decimals_);
    return s;
  }

  // The document: closes every open element (the root last).
  [[nodiscard]] std::string finish() && {
    assert(!in_start_tag_);
    while (!stack_.empty()) close();
    return std::move(out_);
  }

 private:
  struct Open {
    std::string name;
    bool one_line;
  };

  void begin_attr(std::string_view name) {
    assert(in_start_tag_);
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
  }
  SvgWriter& line_break() {
    if (one_line_depth_ == 0) out_ += '\n';
    return *this;
  }

  int decimals_;
  std::string out_;
  std::vector<Open> stack_;
  int one_line_depth_ = 0;
  bool in_start_tag_ = false;
  SvgNumber width_ = 0;
  SvgNumber height_ = 0;
};

}  // namespace railyard::report
