// railyard/core/utf8.hpp — the library's one UTF-8 decoder: strict RFC 3629
// validation, a code-point visitor and a sanitizer, shared by every reader and
// writer that looks inside text (the XML/SVG escaper, the JSON writer, the CSV
// and topology.conf importers).
//
//   railyard::Utf8Char c = railyard::decode_utf8("\xc3\xa9!", 0);  // {U+00E9, 2 bytes, valid}
//   size_t bad = railyard::first_invalid_utf8("ok\xff");          // 2
//   std::string s = railyard::sanitize_utf8("a\xff" "b");          // "a", U+FFFD, "b"
//   railyard::for_each_utf8(text, [](uint32_t cp, size_t offset) { ... });
//
// Valid means exactly the byte sequences of RFC 3629 section 4 (UTF8-octets):
// overlong forms (C0, C1, E0 80..9F, F0 80..8F), UTF-16 surrogates (ED A0..BF),
// code points above U+10FFFF (F4 90..BF, F5..FF) and stray continuation bytes
// are invalid. Noncharacters such as U+FFFE are valid UTF-8; formats that ban
// them (XML's Char production) check the decoded code point themselves.
//
// An invalid sequence is reported with the length of its maximal subpart: the
// longest prefix that could still have begun a valid sequence (at least one
// byte). Replacing each maximal subpart by one U+FFFD is the practice the Unicode
// Standard recommends (section 3.9, "U+FFFD Substitution of Maximal Subparts")
// and the one the WHATWG Encoding Standard's decoder follows, so sanitized text
// matches what browsers and most JSON tools show for the same bytes:
// "\xe2\x82" (a truncated euro sign) is one U+FFFD, "\xc0\xaf" (overlong '/') two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace railyard {

// U+FFFD REPLACEMENT CHARACTER, what sanitizers put in place of invalid bytes.
inline constexpr uint32_t kReplacementCodePoint = 0xFFFD;
inline constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// One decoded position of a byte string.
struct Utf8Char {
  uint32_t code_point = 0;  // when valid
  size_t length = 0;        // bytes: the sequence, or (invalid) its maximal subpart, >= 1
  bool valid = false;
};

// Decodes the sequence starting at `offset`. Precondition: offset < text.size().
[[nodiscard]] constexpr Utf8Char decode_utf8(std::string_view text, size_t offset) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[offset + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return {b0, 1, true};
  // RFC 3629 section 4: the lead byte fixes the length and the range of the
  // second byte (which is where overlong forms, surrogates and > U+10FFFF are
  // excluded); every later byte is 80..BF.
  size_t n = 0;
  uint32_t cp = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;  // below: overlong
    if (b0 == 0xED) hi = 0x9F;  // above: surrogates D800..DFFF
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;  // below: overlong
    if (b0 == 0xF4) hi = 0x8F;  // above: > U+10FFFF
  } else {
    return {0, 1, false};  // 80..C1, F5..FF never start a sequence
  }
  for (size_t k = 1; k < n; ++k) {
    if (offset + k >= text.size()) return {0, k, false};
    const unsigned char b = byte(k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return {0, k, false};
    cp = (cp << 6) | (b & 0x3Fu);
  }
  return {cp, n, true};
}

// Calls on_code_point(code_point, offset) for each code point of `text` in
// order, up to the first invalid sequence; returns that sequence's offset, or
// npos when all of `text` is valid UTF-8.
template <class F>
constexpr size_t for_each_utf8(std::string_view text, F&& on_code_point) {
  size_t i = 0;
  while (i < text.size()) {
    const Utf8Char c = decode_utf8(text, i);
    if (!c.valid) return i;
    on_code_point(c.code_point, i);
    i += c.length;
  }
  return std::string_view::npos;
}

// Offset of the first byte that is not part of valid UTF-8, or npos.
[[nodiscard]] constexpr size_t first_invalid_utf8(std::string_view text) {
  return for_each_utf8(text, [](uint32_t, size_t) {});
}

[[nodiscard]] constexpr bool is_valid_utf8(std::string_view text) {
  return first_invalid_utf8(text) == std::string_view::npos;
}

// Appends `text` with each invalid sequence (maximal subpart) replaced by
// U+FFFD; valid text is appended unchanged.
inline void append_sanitized_utf8(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const Utf8Char c = decode_utf8(text, i);
    if (c.valid)
      out.append(text.substr(i, c.length));
    else
      out += kReplacementUtf8;
    i += c.length;
  }
}

[[nodiscard]] inline std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_sanitized_utf8(out, text);
  return out;
}

}  // namespace railyard
