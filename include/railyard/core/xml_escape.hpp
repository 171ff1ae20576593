// railyard/core/xml_escape.hpp — text made safe for XML (SVG and other XML
// writers): the five special characters become entities, and what would make
// the document ill-formed becomes '?': each invalid UTF-8 sequence (decoded by
// core/utf8.hpp; one '?' per maximal subpart) and each character outside XML
// 1.0's Char production (section 2.2) — C0 controls other than tab, newline and
// return, and U+FFFE/U+FFFF.
//
//   std::string out;
//   railyard::append_xml_escaped(out, "a < b & \"c\"");   // a &lt; b &amp; &quot;c&quot;
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "railyard/core/utf8.hpp"

namespace railyard {

inline void append_xml_escaped(std::string& out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const Utf8Char c = decode_utf8(s, i);
    const uint32_t cp = c.code_point;
    if (!c.valid || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE ||
        cp == 0xFFFF) {
      out += '?';
    } else {
      switch (cp) {
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
          out.append(s.substr(i, c.length));
      }
    }
    i += c.length;
  }
}

}  // namespace railyard
