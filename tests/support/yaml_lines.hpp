// A small, strict, line-based reader for the block-YAML subset that Kubernetes
// manifests use, written independently of railyard's emitters so tests check
// their output's structure rather than string equality with the emitter's own
// pieces.
//
// Supported: documents separated by `---`; full-line `#` comments; block
// mappings `key: value` / `key:` with a nested block; block sequences `- item`
// (nested at a deeper indent or at the key's own indent, and `- key: value`
// compact mappings); plain scalars and double-quoted scalars with \" and \\.
// Rejected with YamlError (naming the line): tabs in indentation, duplicate keys,
// inconsistent indentation, flow collections, anchors, tags, block scalars,
// unterminated quotes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard::testing {

struct YamlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct YamlNode {
  enum class Kind { kScalar, kMap, kSeq };
  Kind kind = Kind::kScalar;
  std::string scalar;
  bool quoted = false;  // a double-quoted scalar (always a string in YAML)
  std::vector<std::pair<std::string, YamlNode>> map;
  std::vector<YamlNode> seq;

  [[nodiscard]] bool has(std::string_view key) const {
    for (const auto& [k, v] : map)
      if (k == key) return true;
    return false;
  }
  [[nodiscard]] const YamlNode& at(std::string_view key) const {
    if (kind != Kind::kMap) throw YamlError("not a mapping, looking up " + std::string(key));
    for (const auto& [k, v] : map)
      if (k == key) return v;
    throw YamlError("no key " + std::string(key));
  }
  [[nodiscard]] const std::string& str() const {
    if (kind != Kind::kScalar) throw YamlError("not a scalar");
    return scalar;
  }
};

namespace yaml_detail {

struct Line {
  int number;  // 1-based, in the whole text
  int indent;
  std::string text;  // without indentation
};

inline std::string where(const Line& l) { return "line " + std::to_string(l.number) + ": "; }

inline YamlNode scalar(const Line& l, std::string_view v) {
  YamlNode n;
  if (!v.empty() && v.front() == '"') {
    if (v.size() < 2 || v.back() != '"') throw YamlError(where(l) + "unterminated quote");
    n.quoted = true;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      char c = v[i];
      if (c == '"') throw YamlError(where(l) + "unescaped quote");
      if (c == '\\') {
        if (i + 2 >= v.size()) throw YamlError(where(l) + "dangling escape");
        c = v[++i];
        if (c != '"' && c != '\\') throw YamlError(where(l) + "unsupported escape");
      }
      n.scalar += c;
    }
    return n;
  }
  if (v.empty()) throw YamlError(where(l) + "empty value");
  const std::string_view special = "{[&*!|>'%@`";
  if (special.find(v.front()) != std::string_view::npos)
    throw YamlError(where(l) + "unsupported YAML construct: " + std::string(v));
  if (v.find(": ") != std::string_view::npos || v.find(" #") != std::string_view::npos)
    throw YamlError(where(l) + "ambiguous plain scalar: " + std::string(v));
  n.scalar = std::string(v);
  return n;
}

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  YamlNode document() {
    if (lines_.empty()) throw YamlError("empty document");
    if (lines_[0].indent != 0) throw YamlError(where(lines_[0]) + "document is indented");
    YamlNode n = block(0);
    if (i_ != lines_.size()) throw YamlError(where(lines_[i_]) + "unexpected indentation");
    return n;
  }

 private:
  static bool is_item(const std::string& t) { return t == "-" || t.rfind("- ", 0) == 0; }

  YamlNode block(int indent) {
    return is_item(lines_[i_].text) ? sequence(indent) : mapping(indent);
  }

  YamlNode sequence(int indent) {
    YamlNode n;
    n.kind = YamlNode::Kind::kSeq;
    while (i_ < lines_.size() && lines_[i_].indent == indent && is_item(lines_[i_].text)) {
      Line& l = lines_[i_];
      if (l.text == "-") {
        ++i_;
        if (i_ >= lines_.size() || lines_[i_].indent <= indent)
          throw YamlError(where(l) + "empty sequence item");
        n.seq.push_back(block(lines_[i_].indent));
        continue;
      }
      // "- rest": rest is a node at indent + 2 (a compact mapping or a scalar).
      std::string rest = l.text.substr(2);
      if (rest.empty() || rest.front() == ' ') throw YamlError(where(l) + "bad item indentation");
      if (is_item(rest)) throw YamlError(where(l) + "nested compact sequences unsupported");
      if (rest.find(':') == std::string::npos || rest.front() == '"') {
        n.seq.push_back(scalar(l, rest));
        ++i_;
        continue;
      }
      l.indent = indent + 2;
      l.text = rest;
      n.seq.push_back(mapping(indent + 2));
    }
    return n;
  }

  YamlNode mapping(int indent) {
    YamlNode n;
    n.kind = YamlNode::Kind::kMap;
    while (i_ < lines_.size() && lines_[i_].indent == indent) {
      const Line l = lines_[i_];
      if (is_item(l.text)) throw YamlError(where(l) + "sequence item inside a mapping");
      const size_t colon = l.text.find(':');
      if (colon == std::string::npos || colon == 0)
        throw YamlError(where(l) + "expected key: value");
      std::string key = l.text.substr(0, colon);
      if (key.find(' ') != std::string::npos || key.front() == '"')
        throw YamlError(where(l) + "unsupported key: " + key);
      if (n.has(key)) throw YamlError(where(l) + "duplicate key " + key);
      const std::string after = l.text.substr(colon + 1);
      ++i_;
      if (after.empty()) {
        if (i_ >= lines_.size()) throw YamlError(where(l) + "key without value");
        const Line& next = lines_[i_];
        if (next.indent > indent)
          n.map.emplace_back(key, block(next.indent));
        else if (next.indent == indent && is_item(next.text))
          n.map.emplace_back(key, sequence(indent));
        else
          throw YamlError(where(l) + "key without value");
      } else {
        if (after.front() != ' ') throw YamlError(where(l) + "expected a space after ':'");
        n.map.emplace_back(key, scalar(l, std::string_view(after).substr(1)));
      }
    }
    if (i_ < lines_.size() && lines_[i_].indent > indent)
      throw YamlError(where(lines_[i_]) + "unexpected indentation");
    return n;
  }

  std::vector<Line> lines_;
  size_t i_ = 0;
};

}  // namespace yaml_detail

// Parses every document of `text`. Throws YamlError on anything outside the
// subset or malformed.
inline std::vector<YamlNode> parse_yaml_documents(std::string_view text) {
  std::vector<std::vector<yaml_detail::Line>> docs(1);
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) throw YamlError("text does not end with a newline");
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (raw == "---") {
      docs.emplace_back();
      continue;
    }
    size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    if (indent < raw.size() && raw[indent] == '\t')
      throw YamlError("line " + std::to_string(number) + ": tab in indentation");
    const std::string_view body = raw.substr(indent);
    if (body.empty() || body.front() == '#') continue;
    if (body.back() == ' ') throw YamlError("line " + std::to_string(number) + ": trailing space");
    docs.back().push_back({number, static_cast<int>(indent), std::string(body)});
  }
  std::vector<YamlNode> out;
  for (auto& lines : docs) out.push_back(yaml_detail::Parser(std::move(lines)).document());
  return out;
}

}  // namespace railyard::testing
