// tests/support/xml_parser.hpp — a small strict XML parser for tests.
//
// Written independently of any railyard emitter, to check emitted XML: it accepts
// an optional <?xml ...?> declaration, comments and whitespace around exactly one
// root element; elements with attributes (double- or single-quoted values,
// unique names), child elements, comments and character data; the five predefined
// entities and numeric character references. It rejects mismatched or unclosed
// tags, unquoted or duplicated attributes, a raw '<' or a bare '&' in values or
// text, "--" inside comments, and anything after the root but whitespace/comments.
//
//   auto doc = railyard::test::parse_xml("<a x=\"1\"><b/></a>");
//   REQUIRE(doc.ok);
//   CHECK(doc.root.name == "a");
//   CHECK(*doc.root.attr("x") == "1");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard::test {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;  // in document order, decoded
  std::vector<XmlElement> children;
  std::string text;  // concatenated character data directly inside this element

  [[nodiscard]] std::optional<std::string> attr(std::string_view key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return v;
    return std::nullopt;
  }
  [[nodiscard]] bool has(std::string_view key) const { return attr(key).has_value(); }
  // Children with this name.
  [[nodiscard]] std::vector<const XmlElement*> all(std::string_view child) const {
    std::vector<const XmlElement*> out;
    for (const XmlElement& c : children)
      if (c.name == child) out.push_back(&c);
    return out;
  }
};

struct XmlDocument {
  bool ok = false;
  std::string error;  // "offset N: what" when !ok
  XmlElement root;
};

namespace detail_xml {

class Parser {
 public:
  explicit Parser(std::string_view in) : in_(in) {}

  XmlDocument run() {
    XmlDocument doc;
    if (starts("<?xml")) {
      const size_t end = in_.find("?>", pos_);
      if (end == std::string_view::npos) return fail(doc, "unterminated XML declaration");
      pos_ = end + 2;
    }
    if (!misc()) return fail(doc, error_);
    if (!starts("<")) return fail(doc, "expected the root element");
    if (!element(doc.root, 0)) return fail(doc, error_);
    if (!misc()) return fail(doc, error_);
    if (pos_ != in_.size()) return fail(doc, "content after the root element");
    doc.ok = true;
    return doc;
  }

 private:
  XmlDocument& fail(XmlDocument& doc, const std::string& what) {
    doc.ok = false;
    doc.error = "offset " + std::to_string(pos_) + ": " + what;
    return doc;
  }
  bool err(std::string what) {
    error_ = std::move(what);
    return false;
  }
  [[nodiscard]] bool starts(std::string_view s) const { return in_.substr(pos_, s.size()) == s; }
  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }
  static bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
  }
  void skip_space() {
    while (pos_ < in_.size() && space(in_[pos_])) ++pos_;
  }
  // Whitespace and comments.
  bool misc() {
    for (;;) {
      skip_space();
      if (!starts("<!--")) return true;
      if (!comment()) return false;
    }
  }
  bool comment() {
    pos_ += 4;
    const size_t end = in_.find("--", pos_);
    if (end == std::string_view::npos) return err("unterminated comment");
    if (in_.substr(end, 3) != "-->") return err("'--' inside a comment");
    pos_ = end + 3;
    return true;
  }
  bool name(std::string& out) {
    if (pos_ >= in_.size() || !name_start(in_[pos_])) return err("expected a name");
    const size_t start = pos_;
    while (pos_ < in_.size() && name_char(in_[pos_])) ++pos_;
    out = std::string(in_.substr(start, pos_ - start));
    return true;
  }
  // Decodes an entity or character reference at pos_ ('&') into out.
  bool reference(std::string& out) {
    const size_t semi = in_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) return err("bare '&'");
    const std::string_view ref = in_.substr(pos_ + 1, semi - pos_ - 1);
    if (ref == "amp")
      out += '&';
    else if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "quot")
      out += '"';
    else if (ref == "apos")
      out += '\'';
    else if (ref.size() >= 2 && ref[0] == '#') {
      uint32_t code = 0;
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return err("empty character reference");
      for (char c : digits) {
        int v = -1;
        if (c >= '0' && c <= '9')
          v = c - '0';
        else if (hex && c >= 'a' && c <= 'f')
          v = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F')
          v = c - 'A' + 10;
        if (v < 0) return err("bad character reference");
        code = code * (hex ? 16 : 10) + static_cast<uint32_t>(v);
        if (code > 0x10FFFF) return err("character reference out of range");
      }
      if (code >= 0x80) return err("non-ASCII character reference (unsupported here)");
      out += static_cast<char>(code);
    } else {
      return err("unknown entity &" + std::string(ref) + ";");
    }
    pos_ = semi + 1;
    return true;
  }
  bool attribute_value(std::string& out) {
    if (pos_ >= in_.size() || (in_[pos_] != '"' && in_[pos_] != '\''))
      return err("attribute value not quoted");
    const char quote = in_[pos_++];
    for (;;) {
      if (pos_ >= in_.size()) return err("unterminated attribute value");
      const char c = in_[pos_];
      if (c == quote) {
        ++pos_;
        return true;
      }
      if (c == '<') return err("'<' in an attribute value");
      if (c == '&') {
        if (!reference(out)) return false;
        continue;
      }
      out += c;
      ++pos_;
    }
  }
  bool element(XmlElement& e, int depth) {
    if (depth > 256) return err("nesting too deep");
    ++pos_;  // '<'
    if (!name(e.name)) return false;
    for (;;) {
      const size_t before = pos_;
      skip_space();
      if (starts("/>")) {
        pos_ += 2;
        return true;
      }
      if (starts(">")) {
        ++pos_;
        break;
      }
      if (pos_ == before) return err("expected whitespace before an attribute");
      std::string key;
      if (!name(key)) return false;
      if (e.has(key)) return err("duplicate attribute " + key);
      skip_space();
      if (!starts("=")) return err("expected '=' after attribute " + key);
      ++pos_;
      skip_space();
      std::string value;
      if (!attribute_value(value)) return false;
      e.attrs.emplace_back(std::move(key), std::move(value));
    }
    // Content.
    for (;;) {
      if (pos_ >= in_.size()) return err("unclosed element <" + e.name + ">");
      if (starts("</")) {
        pos_ += 2;
        std::string closing;
        if (!name(closing)) return false;
        if (closing != e.name) return err("</" + closing + "> closes <" + e.name + ">");
        skip_space();
        if (!starts(">")) return err("expected '>' in end tag");
        ++pos_;
        return true;
      }
      if (starts("<!--")) {
        if (!comment()) return false;
        continue;
      }
      if (starts("<?") || starts("<!")) return err("unsupported markup");
      if (starts("<")) {
        e.children.emplace_back();
        if (!element(e.children.back(), depth + 1)) return false;
        continue;
      }
      if (in_[pos_] == '&') {
        if (!reference(e.text)) return false;
        continue;
      }
      e.text += in_[pos_++];
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace detail_xml

[[nodiscard]] inline XmlDocument parse_xml(std::string_view text) {
  return detail_xml::Parser(text).run();
}

// Every element of the tree rooted at `e` (pre-order, `e` first), with its parent
// (nullptr for `e`).
inline void walk(const XmlElement& e, const XmlElement* parent,
                 std::vector<std::pair<const XmlElement*, const XmlElement*>>& out) {
  out.emplace_back(&e, parent);
  for (const XmlElement& c : e.children) walk(c, &e, out);
}

}  // namespace railyard::test
