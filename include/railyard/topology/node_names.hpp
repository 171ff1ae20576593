// railyard/topology/node_names.hpp — host names from a pattern, for every file railyard
// writes for schedulers (SLURM topology, Kubernetes labels, hostfiles).
//
// A pattern is text with placeholders in braces: {host} (host id), {su} (scalable
// unit), {pod}, {slot} (host index inside its SU) and {domain} (NVLink domain).
// `{name:0N}` pads with zeros to at least N digits — and to the digit count of the
// largest value that placeholder takes in the cluster, so that names always sort
// in topology order (node9999 < node10000 would not). `{name+N}` adds N (0 to
// 10^9) to the value, for sites that number from 1 as Slurm configurations
// usually do: `gpu-a{host+1:03}` names host 0 gpu-a001; the padding then counts
// the digits of the largest value plus N:
//
//   auto namer = railyard::topology::NodeNamer::parse("gpu-{su:02}-{slot:03}");
//   std::string n = namer->name(descriptor, railyard::HostId{33});   // "gpu-01-001"
//   RAILYARD_RETURN_IF_ERROR(namer->check(descriptor));  // every host gets a distinct name
//
// The default pattern is `node{host:04}`.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::topology {

inline constexpr std::string_view kDefaultNodePattern = "node{host:04}";

class NodeNamer {
 public:
  enum class Field : uint8_t { kHost, kSu, kPod, kSlot, kDomain };
  static constexpr std::array<std::string_view, 5> kFieldNames = {"host", "su", "pod", "slot",
                                                                  "domain"};

  // Parses a pattern. Errors (naming `node_pattern` and the text): unbalanced
  // braces, unknown placeholder, bad offset or width, no placeholder at all, characters
  // that schedulers reject in host names (anything but letters, digits, '-',
  // '_' and '.').
  [[nodiscard]] static StatusOr<NodeNamer> parse(std::string_view pattern) {
    NodeNamer namer;
    namer.pattern_ = std::string(pattern);
    std::string literal;
    for (size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (c == '}') return invalid_field(kKey, pattern, "'}' without a matching '{'");
      if (c != '{') {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                        c == '-' || c == '_' || c == '.';
        if (!ok)
          return invalid_field(kKey, pattern,
                               str_cat("character '", c, "' is not allowed in a host name"));
        literal += c;
        continue;
      }
      const size_t close = pattern.find('}', i);
      if (close == std::string_view::npos)
        return invalid_field(kKey, pattern, "'{' without a matching '}'");
      const std::string_view body = pattern.substr(i + 1, close - i - 1);
      const size_t colon = body.find(':');
      std::string_view name = body.substr(0, colon);
      Piece piece{std::move(literal), Field::kHost, 0, 0};
      if (const size_t plus = name.find('+'); plus != std::string_view::npos) {
        const std::string_view offset = name.substr(plus + 1);
        name = name.substr(0, plus);
        if (offset.empty() || offset.size() > 10 ||
            !std::all_of(offset.begin(), offset.end(), is_digit) ||
            std::stoll(std::string(offset)) > kMaxOffset)
          return invalid_field(kKey, pattern,
                               str_cat("bad offset '+", offset, "' in {", body,
                                       "}; use a number from 0 to 1000000000, e.g. {", name,
                                       "+1}"));
        piece.offset = std::stoll(std::string(offset));
      }
      literal.clear();
      bool known = false;
      for (size_t f = 0; f < kFieldNames.size(); ++f)
        if (name == kFieldNames[f]) {
          piece.field = static_cast<Field>(f);
          known = true;
        }
      if (!known)
        return invalid_field(kKey, pattern,
                             str_cat("unknown placeholder {", name,
                                     "}; use {host}, {su}, {pod}, {slot} or {domain}"));
      if (colon != std::string_view::npos) {
        const std::string_view width = body.substr(colon + 1);
        if (width.size() < 2 || width[0] != '0' || width.size() > 3 ||
            !std::all_of(width.begin(), width.end(), is_digit))
          return invalid_field(
              kKey, pattern,
              str_cat("bad width '", width, "' in {", body, "}; use e.g. {", name, ":04}"));
        piece.min_width = std::stoi(std::string(width.substr(1)));
        if (piece.min_width < 1 || piece.min_width > 12)
          return invalid_field(kKey, pattern, "width must be between 1 and 12");
      }
      namer.pieces_.push_back(std::move(piece));
      i = close;
    }
    if (namer.pieces_.empty())
      return invalid_field(kKey, pattern, "needs a placeholder such as {host}");
    namer.tail_ = std::move(literal);
    return namer;
  }

  [[nodiscard]] const std::string& pattern() const { return pattern_; }

  // The value a placeholder takes for host `h`.
  [[nodiscard]] inline static int64_t value(const topology::ClusterDescriptor<>& d, Field f, HostId h) {
    switch (f) {
      case Field::kHost:
        return h.value();
      case Field::kSu:
        return d.su_of(h).value();
      case Field::kPod:
        return d.pod_of(h).value();
      case Field::kSlot:
        return h.value() % d.hosts_per_su();
      case Field::kDomain:
        return d.domain_of(h);
    }
    return 0;
  }

  // The largest value a placeholder takes in the cluster.
  [[nodiscard]] inline static int64_t max_value(const topology::ClusterDescriptor<>& d, Field f) {
    if (f == Field::kSlot) return d.hosts_per_su() - 1;
    return value(d, f, HostId{d.hosts() - 1});  // ids are SU-major: the last host maxes all
  }

  // The name of host `h`. Precondition: h < d.hosts().
  [[nodiscard]] inline std::string name(const topology::ClusterDescriptor<>& d, HostId h) const {
    std::string out;
    for (const Piece& p : pieces_) {
      out += p.literal;
      std::string digits = str_cat(value(d, p.field, h) + p.offset);
      if (p.min_width > 0) {
        const size_t width = std::max(static_cast<size_t>(p.min_width),
                                      str_cat(max_value(d, p.field) + p.offset).size());
        if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
      }
      out += digits;
    }
    out += tail_;
    return out;
  }

  // Every host name, by host id.
  [[nodiscard]] inline std::vector<std::string> names(const topology::ClusterDescriptor<>& d) const {
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(d.hosts()));
    for (int32_t h = 0; h < d.hosts(); ++h) out.push_back(name(d, HostId{h}));
    return out;
  }

  // The pattern must give every host its own name; error names the first clash.
  [[nodiscard]] inline Status check(const topology::ClusterDescriptor<>& d) const {
    std::vector<std::string> sorted = names(d);
    std::sort(sorted.begin(), sorted.end());
    const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end())
      return invalid_field(kKey, pattern_,
                           str_cat("two hosts would both be named '", *dup,
                                   "'; include {host}, or {su} with {slot}"));
    return ok_status();
  }

 private:
  static constexpr std::string_view kKey = "node_pattern";
  static constexpr int64_t kMaxOffset = 1'000'000'000;
  struct Piece {
    std::string literal;  // text before the placeholder
    Field field;
    int min_width;   // 0: no padding; else zero-pad to max(min_width, widest value)
    int64_t offset;  // {field+N}: added to the value
  };
  std::string pattern_;
  std::vector<Piece> pieces_;
  std::string tail_;
};

}  // namespace railyard::topology
