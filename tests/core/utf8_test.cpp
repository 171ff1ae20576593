#include "railyard/core/utf8.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/utf8_reference.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_utf8_test {

namespace {

namespace ref = railyard::test::utf8_ref;
using railyard::decode_utf8;
using railyard::first_invalid_utf8;
using railyard::sanitize_utf8;
using railyard::Utf8Char;

constexpr size_t kNpos = std::string_view::npos;

std::string hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += kDigits[u >> 4];
    out += kDigits[u & 15];
    out += ' ';
  }
  return out;
}

// decode_utf8(s, i) against the reference: same verdict, same length, and a
// valid code point that encodes back to exactly the bytes it came from.
bool agrees_at(std::string_view s, size_t i) {
  const Utf8Char got = decode_utf8(s, i);
  const ref::Step want = ref::step(s, i);
  if (got.valid != want.valid || got.length != want.length) return false;
  return !got.valid || ref::encode(got.code_point) == s.substr(i, got.length);
}

// Everything about `s` the API answers, against the reference.
void check_against_reference(std::string_view s) {
  INFO("bytes: ", hex(s));
  CHECK(agrees_at(s, 0));
  CHECK(first_invalid_utf8(s) == ref::first_invalid(s));
  CHECK(sanitize_utf8(s) == ref::sanitize(s));
}

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s += static_cast<char>(v);
  return s;
}

}  // namespace

TEST_CASE("utf8: every Unicode scalar value decodes from its encoding") {
  std::string all;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp == 0xD800) cp = 0xE000;  // surrogates are not scalar values
    const std::string e = ref::encode(cp);
    const Utf8Char c = decode_utf8(e, 0);
    if (!c.valid || c.code_point != cp || c.length != e.size()) {
      FAIL("U+", cp, " (", hex(e), "): valid=", c.valid, " cp=", c.code_point,
           " length=", c.length);
    }
    if (cp % 64 == 0) all += e;
  }
  CHECK(first_invalid_utf8(all) == kNpos);
  CHECK(railyard::is_valid_utf8(all));
  CHECK(sanitize_utf8(all) == all);
}

TEST_CASE("utf8: overlong forms, surrogates and code points above U+10FFFF are invalid") {
  // Every overlong form: each code point in every longer form than its own.
  for (uint32_t cp = 0; cp < 0x10000; ++cp) {
    const size_t shortest = ref::encode(cp).size();
    for (size_t n = std::max<size_t>(shortest + 1, 2); n <= 4; ++n) {
      const std::string e = ref::encode_as(cp, n);
      const Utf8Char c = decode_utf8(e, 0);
      if (c.valid || first_invalid_utf8(e) != 0 || !agrees_at(e, 0))
        FAIL("overlong ", hex(e), " of U+", cp, " accepted or misreported");
    }
  }
  for (uint32_t cp = 0xD800; cp <= 0xDFFF; ++cp) {
    const std::string e = ref::encode_as(cp, 3);
    if (decode_utf8(e, 0).valid || decode_utf8(e, 0).length != 1)
      FAIL("surrogate ", hex(e), " accepted or misreported");
  }
  for (uint32_t cp = 0x110000; cp <= 0x1FFFFF; cp += 0x3FF) {
    const std::string e = ref::encode_as(cp, 4);
    if (decode_utf8(e, 0).valid || decode_utf8(e, 0).length != 1)
      FAIL("above U+10FFFF ", hex(e), " accepted or misreported");
  }
  // The boundaries themselves.
  CHECK(decode_utf8(bytes({0xC2, 0x80}), 0).code_point == 0x80);
  CHECK(decode_utf8(bytes({0xE0, 0xA0, 0x80}), 0).code_point == 0x800);
  CHECK(decode_utf8(bytes({0xED, 0x9F, 0xBF}), 0).code_point == 0xD7FF);
  CHECK(decode_utf8(bytes({0xEE, 0x80, 0x80}), 0).code_point == 0xE000);
  CHECK(decode_utf8(bytes({0xEF, 0xBF, 0xBF}), 0).code_point == 0xFFFF);  // noncharacter, valid
  CHECK(decode_utf8(bytes({0xF0, 0x90, 0x80, 0x80}), 0).code_point == 0x10000);
  CHECK(decode_utf8(bytes({0xF4, 0x8F, 0xBF, 0xBF}), 0).code_point == 0x10FFFF);
  CHECK_FALSE(decode_utf8(bytes({0xF4, 0x90, 0x80, 0x80}), 0).valid);
}

TEST_CASE("utf8: every 1-, 2- and 3-byte string agrees with the RFC 3629 grammar") {
  std::string s;
  for (int a = 0; a < 256; ++a) {
    s = bytes({a});
    check_against_reference(s);
    for (int b = 0; b < 256; ++b) {
      s = bytes({a, b});
      check_against_reference(s);
    }
  }
  // All 16,777,216 three-byte strings; failures are counted, not reported one
  // by one, and the first few are shown.
  s.assign(3, '\0');
  int64_t failures = 0;
  std::string first_failures;
  for (uint32_t v = 0; v < (1u << 24); ++v) {
    s[0] = static_cast<char>(v >> 16);
    s[1] = static_cast<char>(v >> 8);
    s[2] = static_cast<char>(v);
    if (!agrees_at(s, 0) || first_invalid_utf8(s) != ref::first_invalid(s)) {
      if (++failures <= 5) first_failures += hex(s) + "; ";
    }
  }
  CHECK_MESSAGE(failures == 0, first_failures);
}

TEST_CASE("utf8: 4-byte strings of boundary bytes, and random ones, agree with the grammar") {
  // Bytes at and next to every range edge of the grammar.
  const std::vector<int> edges = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                  0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                  0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  int64_t failures = 0;
  std::string first_failures;
  auto check = [&](const std::string& s) {
    bool ok =
        first_invalid_utf8(s) == ref::first_invalid(s) && sanitize_utf8(s) == ref::sanitize(s);
    for (size_t i = 0; i < s.size(); ++i) ok = ok && agrees_at(s, i);
    if (!ok && ++failures <= 5) first_failures += hex(s) + "; ";
  };
  for (int a : edges)
    for (int b : edges)
      for (int c : edges)
        for (int d : edges) check(bytes({a, b, c, d}));
  std::mt19937_64 rng(20240229);
  for (int n = 0; n < 250'000; ++n) {
    const uint64_t r = rng();
    // Half the strings start with a 4-byte lead so that long forms are common.
    const int lead = n % 2 == 0 ? 0xF0 + static_cast<int>(r % 5) : static_cast<int>(r & 0xFF);
    check(bytes({lead, static_cast<int>((r >> 8) & 0xFF), static_cast<int>((r >> 16) & 0xFF),
                 static_cast<int>((r >> 24) & 0xFF)}));
  }
  CHECK_MESSAGE(failures == 0, first_failures);
}

TEST_CASE("utf8: for_each_utf8 visits code points in order and stops at the first invalid byte") {
  std::vector<std::pair<uint32_t, size_t>> seen;
  auto visit = [&](uint32_t cp, size_t at) { seen.emplace_back(cp, at); };
  CHECK(railyard::for_each_utf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", visit) == kNpos);
  CHECK(seen ==
        std::vector<std::pair<uint32_t, size_t>>{{'a', 0}, {0xE9, 1}, {0x20AC, 3}, {0x1F600, 6}});
  seen.clear();
  CHECK(railyard::for_each_utf8("ab\xe2\x82"
                                "c",
                                visit) == 2);
  CHECK(seen == std::vector<std::pair<uint32_t, size_t>>{{'a', 0}, {'b', 1}});
  CHECK(railyard::for_each_utf8("", visit) == kNpos);
  static_assert(railyard::first_invalid_utf8("ok\xff") == 2);
  static_assert(railyard::decode_utf8("\xc3\xa9", 0).code_point == 0xE9);
}

TEST_CASE("utf8: sanitize_utf8 replaces each maximal subpart by one U+FFFD") {
  const std::string r = std::string(railyard::kReplacementUtf8);
  CHECK(r == "\xEF\xBF\xBD");
  CHECK(sanitize_utf8("") == "");
  CHECK(sanitize_utf8("plain \xc3\xa9") == "plain \xc3\xa9");
  CHECK(sanitize_utf8("a\xff"
                      "b") == "a" + r + "b");
  CHECK(sanitize_utf8("\xe2\x82") == r);  // a truncated sequence is one subpart
  CHECK(sanitize_utf8("\xe2\x82"
                      "A") == r + "A");
  CHECK(sanitize_utf8("\xc0\xaf") == r + r);          // overlong '/': C0 never starts a sequence
  CHECK(sanitize_utf8("\xed\xa0\x80") == r + r + r);  // a surrogate: ED then two stray bytes
  // The examples of the Unicode Standard, section 3.9 (U+FFFD substitution).
  CHECK(sanitize_utf8(bytes({0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF,
                             0x64})) == "a" + r + r + r + "b" + r + "c" + r + r + "d");
  CHECK(sanitize_utf8(bytes({0xC0, 0xAF, 0xE0, 0x80, 0xBF, 0xF0, 0x81, 0x82, 0x41})) ==
        r + r + r + r + r + r + r + r + "A");
  CHECK(sanitize_utf8(bytes({0xED, 0xA0, 0x80, 0xED, 0xBF, 0xBF, 0xED, 0xAF, 0x41})) ==
        r + r + r + r + r + r + r + r + "A");
  CHECK(sanitize_utf8(bytes({0xF4, 0x91, 0x92, 0x93, 0xFF, 0x41, 0x80, 0xBF, 0x42})) ==
        r + r + r + r + r + "A" + r + r + "B");
  CHECK(sanitize_utf8(bytes({0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41})) ==
        r + r + r + r + "A");
}

TEST_CASE("utf8: sanitized random bytes are valid and keep every valid sequence") {
  std::mt19937_64 rng(7);
  for (int n = 0; n < 20'000; ++n) {
    std::string s(static_cast<size_t>(rng() % 24), '\0');
    for (char& c : s) {
      const uint64_t r = rng();
      // Mostly non-ASCII, so that multi-byte sequences (valid or not) are common.
      c = static_cast<char>(r % 4 == 0 ? r % 0x80 : 0x80 + (r >> 8) % 0x80);
    }
    const std::string clean = sanitize_utf8(s);
    INFO("bytes: ", hex(s));
    CHECK(ref::first_invalid(clean) == kNpos);
    CHECK(clean == ref::sanitize(s));
    CHECK(sanitize_utf8(clean) == clean);
  }
}

}  // namespace railyard_test_core_utf8_test
