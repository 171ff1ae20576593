// tests/support/utf8_reference.hpp — UTF-8 answers for tests, written from RFC
// 3629 without the library's decoder: well-formed sequences are matched against
// the ABNF alternatives of section 4 as data, and code points are encoded with
// the bit layout table of section 3 (decoded code points are checked by encoding
// them back).
//
//   auto s = railyard::test::utf8_ref::step("\xe2\x82", 0);    // {false, 2}
//   std::string e = railyard::test::utf8_ref::encode(0x20AC);  // "\xe2\x82\xac"
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace railyard::test::utf8_ref {

struct Range {
  unsigned char lo, hi;
};
struct Form {
  size_t length;
  Range bytes[4];
};

// RFC 3629 section 4, UTF8-char = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4, one row
// per alternative (UTF8-tail = %x80-BF).
inline constexpr Form kForms[] = {
    {1, {{0x00, 0x7F}}},
    {2, {{0xC2, 0xDF}, {0x80, 0xBF}}},
    {3, {{0xE0, 0xE0}, {0xA0, 0xBF}, {0x80, 0xBF}}},
    {3, {{0xE1, 0xEC}, {0x80, 0xBF}, {0x80, 0xBF}}},
    {3, {{0xED, 0xED}, {0x80, 0x9F}, {0x80, 0xBF}}},
    {3, {{0xEE, 0xEF}, {0x80, 0xBF}, {0x80, 0xBF}}},
    {4, {{0xF0, 0xF0}, {0x90, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}}},
    {4, {{0xF1, 0xF3}, {0x80, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}}},
    {4, {{0xF4, 0xF4}, {0x80, 0x8F}, {0x80, 0xBF}, {0x80, 0xBF}}},
};

struct Step {
  bool valid;
  size_t length;  // the sequence, or the maximal subpart of an invalid one
};

// At s[i]: a whole UTF8-char, or else the longest prefix of one (the maximal
// subpart, Unicode Standard section 3.9), at least one byte.
inline Step step(std::string_view s, size_t i) {
  size_t longest = 1;
  for (const Form& f : kForms) {
    size_t k = 0;
    while (k < f.length && i + k < s.size() &&
           static_cast<unsigned char>(s[i + k]) >= f.bytes[k].lo &&
           static_cast<unsigned char>(s[i + k]) <= f.bytes[k].hi)
      ++k;
    if (k == f.length) return {true, k};
    longest = std::max(longest, k);
  }
  return {false, longest};
}

inline size_t first_invalid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Step st = step(s, i);
    if (!st.valid) return i;
    i += st.length;
  }
  return std::string_view::npos;
}

// Each maximal subpart of an invalid sequence replaced by U+FFFD.
inline std::string sanitize(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const Step st = step(s, i);
    out += st.valid ? std::string(s.substr(i, st.length)) : std::string("\xEF\xBF\xBD");
    i += st.length;
  }
  return out;
}

// The `length`-byte form of `cp` per the table of RFC 3629 section 3: the
// code point's bits fill the x positions of 0xxxxxxx, 110xxxxx 10xxxxxx, ...
// from the right. With a longer length than needed this is an overlong form.
inline std::string encode_as(uint32_t cp, size_t length) {
  std::string out(length, '\0');
  for (size_t k = length; k-- > 1;) {
    out[k] = static_cast<char>(0x80 | (cp % 64));
    cp /= 64;
  }
  static constexpr unsigned char kLead[5] = {0, 0x00, 0xC0, 0xE0, 0xF0};
  out[0] = static_cast<char>(kLead[length] | cp);
  return out;
}

// The shortest form: 1 byte to U+007F, 2 to U+07FF, 3 to U+FFFF, else 4.
inline std::string encode(uint32_t cp) {
  return encode_as(cp, cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
}

}  // namespace railyard::test::utf8_ref
