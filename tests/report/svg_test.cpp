#include "railyard/report/svg.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../support/utf8_reference.hpp"
#include "../support/xml_parser.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_svg_test {

namespace {

using railyard::report::svg_color;
using railyard::report::SvgLayout;
using railyard::report::SvgPoint;
using railyard::report::SvgWriter;
using railyard::test::parse_xml;
using railyard::test::XmlElement;

XmlElement parse(const std::string& text) {
  auto doc = parse_xml(text);  // strict: rejects unclosed or mismatched tags, bare '&', ...
  REQUIRE_MESSAGE(doc.ok, doc.error, "\n", text);
  return doc.root;
}

// Every character is one XML 1.0 allows (section 2.2, Char): valid UTF-8, no
// C0 control but tab, newline and return, no U+FFFE or U+FFFF.
bool xml_chars_only(std::string_view s) {
  if (railyard::test::utf8_ref::first_invalid(s) != std::string_view::npos) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r') return false;
  }
  return s.find("\xEF\xBF\xBE") == std::string_view::npos &&
         s.find("\xEF\xBF\xBF") == std::string_view::npos;
}

std::string demo() {
  SvgWriter svg;
  svg.begin_document({.width = 200,
                      .height = 100.5,
                      .title = "demo <1>",
                      .desc = "a & b",
                      .font_family = "monospace",
                      .font_size = 10});
  svg.background("#ffffff");
  svg.group().attr("class", "shapes").attr("id", "g1").open();
  svg.rect(10, 20, 30, 40.25).attr("fill", svg_color(0xfd8d3c)).end();
  svg.line(0, 99.96, 200, 1.0 / 3).attr("stroke", "#404040").attr("stroke-width", 1.5).end();
  const std::vector<SvgPoint> pts = {{0, 0}, {1.25, 2}, {3, 4.75}};
  svg.start("polyline").attr("fill", "none").points(pts).end();
  svg.text(5, 6).attr("text-anchor", "end").end("x < y & \"q\" 'r'");
  svg.close();
  svg.group().attr("class", "row").open(SvgLayout::kOneLine);
  svg.title("row <title>");
  svg.start("use").attr("xlink:href", "#c").attr("x", -3).end();
  svg.start("use").attr("x", 9).open().start("title").open();
  svg.content("a").raw(" -> ").content("b>c");
  svg.close().close();
  svg.close();
  return std::move(svg).finish();
}

}  // namespace

TEST_CASE("svg: a standalone, well-formed SVG 1.1 document") {
  const std::string text = demo();
  CHECK(text.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<svg ", 0) == 0);
  CHECK(text.ends_with("</svg>\n"));
  CHECK(xml_chars_only(text));
  const XmlElement root = parse(text);
  CHECK(root.name == "svg");
  CHECK(root.attr("xmlns") == std::string("http://www.w3.org/2000/svg"));
  CHECK_FALSE(root.has("xmlns:xlink"));
  CHECK(root.attr("version") == std::string("1.1"));
  CHECK(root.attr("width") == std::string("200"));
  CHECK(root.attr("height") == std::string("100.5"));
  CHECK(root.attr("viewBox") == std::string("0 0 200 100.5"));
  CHECK(root.attr("font-family") == std::string("monospace"));
  CHECK(root.attr("font-size") == std::string("10"));
  REQUIRE(root.children.size() == 5);  // title, desc, background, two groups
  CHECK(root.children[0].name == "title");
  CHECK(root.children[0].text == "demo <1>");
  CHECK(root.children[1].name == "desc");
  CHECK(root.children[1].text == "a & b");
  const XmlElement& bg = root.children[2];
  CHECK(bg.name == "rect");
  CHECK(bg.attr("width") == std::string("200"));
  CHECK(bg.attr("height") == std::string("100.5"));
  CHECK(bg.attr("fill") == std::string("#ffffff"));

  const XmlElement& g = root.children[3];
  CHECK(g.name == "g");
  CHECK(g.attr("id") == std::string("g1"));
  REQUIRE(g.children.size() == 4);
  const XmlElement& rect = g.children[0];
  CHECK(rect.attrs == std::vector<std::pair<std::string, std::string>>{
                          {"x", "10"},
                          {"y", "20"},
                          {"width", "30"},
                          {"height", "40.2"},
                          {"fill", "#fd8d3c"}});  // 40.25 to one decimal, round-half-even
  const XmlElement& line = g.children[1];
  CHECK(line.attrs == std::vector<std::pair<std::string, std::string>>{{"x1", "0"},
                                                                       {"y1", "100.0"},
                                                                       {"x2", "200"},
                                                                       {"y2", "0.3"},
                                                                       {"stroke", "#404040"},
                                                                       {"stroke-width", "1.5"}});
  CHECK(g.children[2].attr("points") == std::string("0,0 1.2,2 3,4.8"));
  const XmlElement& text_el = g.children[3];
  CHECK(text_el.attr("x") == std::string("5"));
  CHECK(text_el.text == "x < y & \"q\" 'r'");

  const XmlElement& row = root.children[4];
  REQUIRE(row.children.size() == 3);
  CHECK(row.children[0].text == "row <title>");
  CHECK(row.children[1].attr("xlink:href") == std::string("#c"));
  CHECK(row.children[1].attr("x") == std::string("-3"));
  CHECK(row.children[2].children.at(0).text == "a -> b>c");
}

TEST_CASE("svg: one element a line, a kOneLine element on one line") {
  const std::string text = demo();
  CHECK(text.find("<g class=\"shapes\" id=\"g1\">\n<rect x=\"10\"") != std::string::npos);
  CHECK(text.find(
            "<g class=\"row\"><title>row &lt;title&gt;</title><use xlink:href=\"#c\" x=\"-3\"/>"
            "<use x=\"9\"><title>a -> b&gt;c</title></use></g>\n</svg>\n") != std::string::npos);
  CHECK(text.find("<text x=\"5\" y=\"6\" text-anchor=\"end\">x &lt; y &amp; &quot;q&quot; "
                  "&#39;r&#39;</text>\n") != std::string::npos);
}

TEST_CASE("svg: xlink namespace, decimals and deterministic bytes") {
  auto doc = [](int decimals) {
    SvgWriter svg(decimals);
    svg.begin_document({.width = 10, .height = 10, .title = "t", .xlink = true});
    svg.rect(0.125, 1, 2.5, 1e-9).end();
    svg.text(-0.04, 3).end("");
    CHECK(svg.number(2.0 / 3) == (decimals == 0 ? "1" : "0.667"));
    return std::move(svg).finish();
  };
  const std::string a = doc(3);
  CHECK(a == doc(3));
  const XmlElement root = parse(a);
  CHECK(root.attr("xmlns:xlink") == std::string("http://www.w3.org/1999/xlink"));
  CHECK_FALSE(root.has("font-family"));
  CHECK_FALSE(root.has("font-size"));
  CHECK(root.all("desc").empty());
  const XmlElement* rect = root.all("rect").at(0);
  CHECK(rect->attr("x") == std::string("0.125"));
  CHECK(rect->attr("width") == std::string("2.500"));
  CHECK(rect->attr("height") == std::string("0.000"));
  CHECK(root.all("text").at(0)->attr("x") == std::string("-0.040"));
  const XmlElement root0 = parse(doc(0));
  CHECK(root0.all("text").at(0)->attr("x") == std::string("0"));  // not "-0"
  CHECK(svg_color(0) == "#000000");
  CHECK(svg_color(0x3f007d) == "#3f007d");
}

TEST_CASE("svg: any text or attribute value gives a well-formed document") {
  std::mt19937_64 rng(11);
  const std::string alphabet[] = {"a",
                                  "<",
                                  ">",
                                  "&",
                                  "\"",
                                  "'",
                                  "\t",
                                  "\n",
                                  "\x01",
                                  "\x7f",
                                  "\xff",
                                  "\xc3\xa9",
                                  "\xe2\x82",
                                  "\xef\xbf\xbe",
                                  "\xed\xa0\x80",
                                  "\xf0\x9f\x98\x80",
                                  "]]>",
                                  " "};
  for (int n = 0; n < 2000; ++n) {
    auto random_text = [&] {
      std::string s;
      for (uint64_t k = rng() % 12; k > 0; --k) s += alphabet[rng() % std::size(alphabet)];
      return s;
    };
    const std::string t = random_text(), a = random_text(), c = random_text();
    SvgWriter svg;
    svg.begin_document({.width = 1, .height = 1, .title = t, .desc = c});
    svg.text(0, 0).attr("class", a).end(t);
    svg.group().attr("id", c).open(SvgLayout::kOneLine).start("title").open().content(a).close();
    svg.close();
    const std::string text = std::move(svg).finish();
    INFO("title: ", t, " attr: ", a);
    CHECK(xml_chars_only(text));
    const auto doc = parse_xml(text);
    REQUIRE_MESSAGE(doc.ok, doc.error);
    CHECK(doc.root.all("text").at(0)->attr("class").has_value());
  }
}

TEST_CASE("svg: text escaping replaces what XML forbids with '?'") {
  auto title_of = [](std::string_view s) {
    SvgWriter svg;
    svg.begin_document({.width = 1, .height = 1, .title = s});
    const std::string text = std::move(svg).finish();
    CHECK(xml_chars_only(text));
    return parse(text).all("title").at(0)->text;
  };
  CHECK(title_of("a\x01"
                 "b\xff"
                 "c") == "a?b?c");
  CHECK(title_of("tab\tnl\ncr\r") == "tab\tnl\ncr\r");
  CHECK(title_of("\xe2\x82"
                 "!") == "?!");                           // one '?' per maximal subpart
  CHECK(title_of("\xc0\xaf") == "??");                    // overlong '/'
  CHECK(title_of("\xef\xbf\xbe|\xef\xbf\xbf") == "?|?");  // U+FFFE, U+FFFF: not XML Chars
  CHECK(title_of("\xef\xbf\xbd \xc3\xa9 \xf0\x9f\x98\x80") ==
        "\xef\xbf\xbd \xc3\xa9 \xf0\x9f\x98\x80");  // valid text unchanged
}

}  // namespace railyard_test_report_svg_test
