// railyard/core/xml_escape.hpp — text made safe for XML (SVG and other XML
// writers): the five special characters become entities, and bytes that would
// make the document ill-formed — C0 controls other than tab/newline/return,
// invalid or overlong UTF-8, surrogates, U+FFFE/U+FFFF — become '?'.
//
//   std::string out;
//   railyard::append_xml_escaped(out, "a < b & \"c\"");   // a &lt; b &amp; &quot;c&quot;
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace railyard {

inline void append_xml_escaped(std::string& out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        default:
          out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    uint32_t cp = len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
    bool ok = len != 0 && c < 0xf5 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xc0u) == 0x80u;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kMin[len] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) &&
         cp != 0xfffe && cp != 0xffff;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
}

}  // namespace railyard
