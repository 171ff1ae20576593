// railyard/report/json.hpp — a small streaming JSON writer with deterministic output.
//
// railyard writes JSON for reports and CLI output; it never reads it, so a
// writer is all that is needed. Keys appear in the order written, numbers in
// shortest round-trip form, strings escaped per RFC 8259 and always valid UTF-8
// (invalid input sequences become U+FFFD):
//
//   railyard::report::JsonWriter w;
//   w.begin_object();
//   w.key("hosts").value(128);
//   w.key("switches").begin_object();
//   w.key("leaf").value(32);
//   w.end_object();
//   w.end_object();
//   std::string text = std::move(w).str();  // {"hosts":128,"switches":{"leaf":32}}
//
// With `indent > 0` the output is pretty-printed. Non-finite doubles are written
// as null (JSON has no NaN/Inf).
#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/strings.hpp"
#include "railyard/core/utf8.hpp"

namespace railyard::report {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 0) : indent_(indent) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  JsonWriter& key(std::string_view k) {
    separate();
    write_string(k);
    out_ += indent_ > 0 ? ": " : ":";
    after_key_ = true;
    return *this;
  }

  JsonWriter& value(std::string_view s) {
    separate();
    write_string(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonWriter& value(double d) {
    separate();
    if (!std::isfinite(d))
      out_ += "null";
    else if (d == std::floor(d) && std::fabs(d) < 9e15)
      str_append(out_, static_cast<int64_t>(d));
    else
      str_append(out_, d);
    return *this;
  }
  JsonWriter& value(int64_t i) {
    separate();
    str_append(out_, i);
    return *this;
  }
  JsonWriter& value(int32_t i) { return value(int64_t{i}); }
  JsonWriter& value(uint64_t i) {
    separate();
    str_append(out_, i);
    return *this;
  }
  JsonWriter& null() {
    separate();
    out_ += "null";
    return *this;
  }

  // The finished text. Precondition: every object and array was closed.
  [[nodiscard]] std::string str() && {
    assert(stack_.empty());
    return std::move(out_);
  }
  // The finished text with a final newline (how reports end on stdout).
  [[nodiscard]] std::string line() && {
    assert(stack_.empty());
    out_ += '\n';
    return std::move(out_);
  }
  [[nodiscard]] const std::string& text() const { return out_; }

 private:
  struct Level {
    char close;
    bool empty;
  };

  JsonWriter& open(char c) {
    separate();
    out_ += c;
    stack_.push_back({c == '{' ? '}' : ']', true});
    return *this;
  }
  JsonWriter& close(char c) {
    assert(!stack_.empty() && stack_.back().close == c);
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty) newline();
    out_ += c;
    return *this;
  }
  // Writes the comma/newline that precedes a new element.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (stack_.empty()) return;
    if (!stack_.back().empty) out_ += ',';
    stack_.back().empty = false;
    newline();
  }
  void newline() {
    if (indent_ <= 0) return;
    out_ += '\n';
    out_.append(stack_.size() * static_cast<size_t>(indent_), ' ');
  }
  // RFC 8259 section 7: '"', '\\' and control characters escaped, everything
  // else as is. JSON text must be UTF-8 (section 8.1), so each invalid sequence
  // becomes U+FFFD (core/utf8.hpp) instead of passing through to break parsers.
  void write_string(std::string_view s) {
    out_ += '"';
    size_t i = 0;
    while (i < s.size()) {
      const Utf8Char c = decode_utf8(s, i);
      if (!c.valid) {
        out_ += kReplacementUtf8;
        i += c.length;
        continue;
      }
      switch (c.code_point) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c.code_point < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out_ += "\\u00";
            out_ += kHex[c.code_point >> 4];
            out_ += kHex[c.code_point & 15];
          } else {
            out_.append(s.substr(i, c.length));
          }
      }
      i += c.length;
    }
    out_ += '"';
  }

  int indent_;
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace railyard::report
