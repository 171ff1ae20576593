// A Slurm hostlist expander for tests, written separately from
// railyard/core/hostlist.hpp (no code shared) so that tests can check the
// compressor against an independent reading of the grammar:
// items split on ',', ' ', '\t' outside brackets; `pre[a-b,c]` groups expanded
// left to right, the first group slowest; zero padding to the width of the
// range's low bound; nothing after the last ']'. Returns nullopt when malformed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railyard::testing {

namespace hostlist_detail {

// Every name of one item, or nullopt. Recursive: expand the first bracket group,
// then the rest of the item behind each of its values.
inline std::optional<std::vector<std::string>> expand_item(const std::string& item) {
  const auto open = item.find('[');
  if (open == std::string::npos) {
    if (item.find(']') != std::string::npos) return std::nullopt;
    return std::vector<std::string>{item};
  }
  const auto close = item.find(']', open);
  if (close == std::string::npos) return std::nullopt;
  const std::string head = item.substr(0, open);
  const std::string body = item.substr(open + 1, close - open - 1);
  const std::string rest = item.substr(close + 1);
  if (head.find(']') != std::string::npos || body.find('[') != std::string::npos)
    return std::nullopt;
  if (!rest.empty() && rest.find('[') == std::string::npos) return std::nullopt;  // suffix
  std::vector<std::string> values;
  std::string piece;
  for (size_t i = 0; i <= body.size(); ++i) {
    if (i < body.size() && body[i] != ',') {
      piece += body[i];
      continue;
    }
    const auto dash = piece.find('-');
    const std::string lo = piece.substr(0, dash);
    const std::string hi = dash == std::string::npos ? lo : piece.substr(dash + 1);
    auto digits_only = [](const std::string& s) {
      if (s.empty() || s.size() > 18) return false;
      for (char c : s)
        if (c < '0' || c > '9') return false;
      return true;
    };
    if (!digits_only(lo) || !digits_only(hi)) return std::nullopt;
    const uint64_t a = std::stoull(lo), b = std::stoull(hi);
    if (a > b || b - a >= 65536) return std::nullopt;
    for (uint64_t v = a; v <= b; ++v) {
      std::string s = std::to_string(v);
      while (s.size() < lo.size()) s.insert(s.begin(), '0');
      values.push_back(s);
    }
    piece.clear();
  }
  std::vector<std::string> out;
  for (const std::string& v : values) {
    if (rest.empty()) {
      out.push_back(head + v);
      continue;
    }
    auto tail = expand_item(rest);
    if (!tail) return std::nullopt;
    for (const std::string& t : *tail) out.push_back(head + v + t);
  }
  return out;
}

}  // namespace hostlist_detail

inline std::optional<std::vector<std::string>> expand_hostlist_for_test(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size();
    const char c = end ? ',' : text[i];
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) return std::nullopt;
    if (depth == 0 && (c == ',' || c == ' ' || c == '\t')) {
      if (!item.empty()) {
        auto names = hostlist_detail::expand_item(item);
        if (!names) return std::nullopt;
        out.insert(out.end(), names->begin(), names->end());
      }
      item.clear();
      continue;
    }
    item += c;
  }
  if (depth != 0) return std::nullopt;
  return out;
}

}  // namespace railyard::testing
