#include "railyard/report/json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "../support/utf8_reference.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_json_test {

using railyard::report::JsonWriter;
namespace utf8_ref = railyard::test::utf8_ref;

namespace {

// The value of one JSON string literal (RFC 8259 section 7), or nullopt when
// `json` is not exactly one well-formed string: raw control characters and
// unknown escapes are errors. Written without the writer's code.
std::optional<std::string> parse_json_string(std::string_view json) {
  if (json.size() < 2 || json.front() != '"' || json.back() != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < json.size(); ++i) {
    const char c = json[i];
    if (static_cast<unsigned char>(c) < 0x20 || c == '"') return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i + 1 >= json.size()) return std::nullopt;
    static constexpr std::string_view kEscape = "\"\\/bfnrt", kMeaning = "\"\\/\b\f\n\r\t";
    if (const size_t k = kEscape.find(json[i]); k != std::string_view::npos) {
      out += kMeaning[k];
      continue;
    }
    if (json[i] != 'u' || i + 5 >= json.size()) return std::nullopt;
    uint32_t cp = 0;
    for (char h : json.substr(i + 1, 4)) {
      const int v = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (v < 0) return std::nullopt;
      cp = cp * 16 + static_cast<uint32_t>(v);
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) return std::nullopt;  // the writer never splits pairs
    out += utf8_ref::encode(cp);
    i += 4;
  }
  return out;
}

std::string json_of(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return std::move(w).str();
}

}  // namespace

TEST_CASE("json: compact nesting, separators and escapes") {
  JsonWriter w;
  w.begin_object();
  w.key("a").value(int64_t{1});
  w.key("b").begin_array().value(1.5).value("x\"y\\z\n\x01").value(true).null().end_array();
  w.key("c").begin_object().end_object();
  w.key("d").begin_array().end_array();
  w.key("e").value(std::numeric_limits<double>::quiet_NaN());
  w.key("f").value(204800.0);
  w.end_object();
  CHECK(std::move(w).str() ==
        R"({"a":1,"b":[1.5,"x\"y\\z\n\u0001",true,null],"c":{},"d":[],"e":null,"f":204800})");
}

TEST_CASE("json: indented output") {
  JsonWriter w(2);
  w.begin_object();
  w.key("k").begin_array().value(int64_t{1}).value(int64_t{2}).end_array();
  w.end_object();
  CHECK(std::move(w).str() == "{\n  \"k\": [\n    1,\n    2\n  ]\n}");
}

TEST_CASE("json: strings are valid UTF-8, invalid input bytes become U+FFFD") {
  const std::string r = "\xEF\xBF\xBD";
  CHECK(json_of("tr\xff.csv") == "\"tr" + r + ".csv\"");      // `plan --trace $'tr\xff.csv' --json`
  CHECK(json_of("\xe2\x82") == "\"" + r + "\"");              // one per maximal subpart
  CHECK(json_of("\xc0\xaf\"") == "\"" + r + r + "\\\"\"");    // overlong '/', then an escape
  CHECK(json_of("\xed\xa0\x80") == "\"" + r + r + r + "\"");  // a surrogate
  CHECK(json_of("\xf4\x90\x80\x80") == "\"" + r + r + r + r + "\"");  // above U+10FFFF
  CHECK(json_of("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f") ==
        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"");  // valid text as is
  JsonWriter w;
  w.begin_object().key("k\xff").value("v").end_object();
  CHECK(std::move(w).str() == "{\"k" + r + "\":\"v\"}");
}

TEST_CASE("json: random bytes give a valid string of their sanitized text") {
  std::mt19937_64 rng(8259);
  for (int n = 0; n < 20'000; ++n) {
    std::string s(static_cast<size_t>(rng() % 20), '\0');
    for (char& c : s) {
      const uint64_t x = rng();
      // Controls, quotes and backslashes, other ASCII, and bytes >= 0x80 alike.
      c = static_cast<char>(x % 4 == 0   ? x % 0x20
                            : x % 4 == 1 ? "\"\\/a"[(x >> 8) % 4]
                                         : (x >> 8) & 0xFF);
    }
    const std::string json = json_of(s);
    INFO("input bytes: ", s);
    CHECK(utf8_ref::first_invalid(json) == std::string_view::npos);
    const std::optional<std::string> back = parse_json_string(json);
    REQUIRE(back.has_value());
    CHECK(*back == utf8_ref::sanitize(s));
  }
}

TEST_CASE("json: valid UTF-8 round-trips unchanged") {
  std::mt19937_64 rng(3629);
  for (int n = 0; n < 20'000; ++n) {
    std::string s;
    for (uint64_t k = rng() % 10; k > 0; --k) {
      const uint64_t x = rng();
      // 1- to 4-byte code points equally often; ASCII includes the controls.
      static constexpr uint32_t kLimit[] = {0x80, 0x800, 0x10000, 0x110000};
      uint32_t cp = static_cast<uint32_t>((x >> 8) % kLimit[x % 4]);
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // surrogates are no scalar values
      s += utf8_ref::encode(cp);
    }
    const std::string json = json_of(s);
    CHECK(utf8_ref::first_invalid(json) == std::string_view::npos);
    const std::optional<std::string> back = parse_json_string(json);
    REQUIRE(back.has_value());
    CHECK(*back == s);
  }
}

}  // namespace railyard_test_report_json_test
