// railyard/routing/hash.hpp — ECMP hash models: which candidate a switch picks
// for a flow, and the search for a source port that steers a flow onto a path.
//
//   using namespace railyard::routing;
//   auto desc = railyard::topology::make_descriptor(
//       *railyard::topology::parse_cluster("h100-1024"));
//   railyard::NicPort a{railyard::HostId{0}, railyard::NicIndex{0}};
//   railyard::NicPort b{railyard::HostId{40}, railyard::NicIndex{0}};
//   std::vector<EcmpHop> hops = ecmp_hops(*desc, a, b);     // leaf up 32, spine down 2
//   FiveTuple base = rocev2_tuple(*desc, a, b, kSportBase, /*dst_qp=*/0x51);
//
//   Crc5TupleHash crc(/*seed=*/7);                           // CRC-32, per-switch seeds
//   int32_t uplink = crc.pick(hops[0], base);                // in [0, 32)
//   std::array<int32_t, 2> wanted{5, 1};
//   std::optional<uint16_t> sport = find_sport(crc, hops, wanted, base);
//   // with base.src_port = *sport every hop picks the wanted candidate
//
//   auto table = MeasuredTableHash::parse("src_leaf_up 3 0xC001 17\n");
//   auto model = parse_hash_model("hash", "table:measured.txt", /*seed=*/7);  // reads the file
//
// Models (all final, deterministic; pick() is noexcept and allocation-free):
//   UniformRandomHash  an unknown vendor hash: an independent uniform draw per
//                      (flow, switch). Not steerable: it only has statistics.
//   Crc5TupleHash      CRC-32 or CRC-32C over the packed 5-tuple with a
//                      per-switch seed. Steerable.
//   QpAwareHash        the same, also covering the 24-bit destination QP
//                      (Meta, SIGCOMM'24; docs/constants.md#ecmp). Steerable.
//   MeasuredTableHash  a measured "switch X sends source port P to uplink U"
//                      table, CRC-32 for what it does not list. Steerable.
//
// Polarization. A CRC is affine over GF(2): with the same polynomial, two
// switches whose only difference is the initial value compute crc_A(m) =
// crc_B(m) ^ K for a constant K. Reduced modulo a power of two, switch B's pick
// is then a fixed function of switch A's — every flow a leaf sends to spine s
// leaves s on the same uplink (hash polarization). CrcFinish::kModulo keeps that
// textbook behaviour (`crc % candidates`) for studying it; the default
// CrcFinish::kPerSwitchMix passes the CRC through a per-switch nonlinear mix
// before the reduction, as real switches do with per-switch hash offsets and
// function selection, so that different switches pick independently.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/file.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/routing/flow.hpp"

namespace railyard::routing {

namespace detail {

// A bijective 64-bit finalizer (the splitmix64 output function): every input bit
// flips each output bit with probability ~1/2.
[[nodiscard]] constexpr uint64_t mix64(uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// Maps a uniform 64-bit value to [0, n) by multiply-shift on its top 32 bits:
// bias at most n / 2^32 per value (< 3e-8 for n <= 128), no division.
[[nodiscard]] constexpr int32_t reduce(uint64_t h, int32_t n) noexcept {
  return static_cast<int32_t>(((h >> 32) * static_cast<uint64_t>(static_cast<uint32_t>(n))) >> 32);
}

// The (kind, switch) identity of a decision point as one 64-bit word.
[[nodiscard]] constexpr uint64_t hop_word(const EcmpHop& hop) noexcept {
  return (static_cast<uint64_t>(hop.kind) << 32) | static_cast<uint32_t>(hop.switch_index.value());
}

// Byte-wise table for a reflected CRC-32 polynomial (LSB first).
[[nodiscard]] constexpr std::array<uint32_t, 256> make_crc32_table(uint32_t reflected_poly) {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ reflected_poly : c >> 1;
    table[i] = c;
  }
  return table;
}

inline constexpr std::array<uint32_t, 256> kCrc32Table = make_crc32_table(0xEDB88320u);
inline constexpr std::array<uint32_t, 256> kCrc32cTable = make_crc32_table(0x82F63B78u);

// Register update over `bytes` (no initial or final inversion).
[[nodiscard]] constexpr uint32_t crc32_update(const std::array<uint32_t, 256>& table, uint32_t reg,
                                              std::span<const uint8_t> bytes) noexcept {
  for (uint8_t b : bytes) reg = table[(reg ^ b) & 0xFFu] ^ (reg >> 8);
  return reg;
}

}  // namespace detail

// The CRC polynomials the CRC models can use. Both are the reflected (LSB-first)
// forms with initial value 0xFFFFFFFF and final XOR 0xFFFFFFFF, as in Ethernet:
//   kCrc32   CRC-32 (IEEE 802.3), polynomial 0x04C11DB7, reflected 0xEDB88320;
//            check value crc("123456789") = 0xCBF43926.
//   kCrc32c  CRC-32C (Castagnoli), polynomial 0x1EDC6F41, reflected 0x82F63B78;
//            check value 0xE3069283.
enum class CrcPolynomial : uint8_t { kCrc32, kCrc32c };

[[nodiscard]] constexpr std::string_view crc_polynomial_name(CrcPolynomial p) noexcept {
  return p == CrcPolynomial::kCrc32 ? "crc32" : "crc32c";
}

// The standard CRC of `bytes` with initial register `init` (0xFFFFFFFF for the
// standard check values) and final inversion. O(bytes), table-driven, constexpr.
[[nodiscard]] constexpr uint32_t crc32(CrcPolynomial poly, std::span<const uint8_t> bytes,
                                       uint32_t init = 0xFFFFFFFFu) noexcept {
  const auto& table = poly == CrcPolynomial::kCrc32 ? detail::kCrc32Table : detail::kCrc32cTable;
  return ~detail::crc32_update(table, init, bytes);
}

// Convenience for text: crc32(kCrc32, "123456789") == 0xCBF43926.
[[nodiscard]] constexpr uint32_t crc32(CrcPolynomial poly, std::string_view text,
                                       uint32_t init = 0xFFFFFFFFu) noexcept {
  const auto& table = poly == CrcPolynomial::kCrc32 ? detail::kCrc32Table : detail::kCrc32cTable;
  uint32_t reg = init;
  for (char c : text) reg = table[(reg ^ static_cast<uint8_t>(c)) & 0xFFu] ^ (reg >> 8);
  return ~reg;
}

// How a CRC model turns the 32-bit CRC into a candidate index (see the
// polarization note at the top of this file).
enum class CrcFinish : uint8_t {
  // mix64(crc ^ switch salt) reduced by multiply-shift: switches pick
  // independently of one another. The default.
  kPerSwitchMix,
  // crc % candidates: the textbook form; polarizes for power-of-two candidates.
  kModulo,
};

// The packed bytes a CRC model hashes, in network byte order: src IP (4), dst
// IP (4), src port (2), dst port (2), protocol (1) and, for QP-aware hashing,
// the 24-bit destination QP (3). Returns the number of bytes written (13 or 16).
[[nodiscard]] constexpr size_t pack_tuple(const FiveTuple& t, bool with_qp,
                                          std::array<uint8_t, 16>& out) noexcept {
  auto put = [&out](size_t at, uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
      out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(value >> (8 * (bytes - 1 - i)));
  };
  put(0, t.src_ip, 4);
  put(4, t.dst_ip, 4);
  put(8, t.src_port, 2);
  put(10, t.dst_port, 2);
  out[12] = t.protocol;
  if (!with_qp) return 13;
  put(13, t.dst_qp & 0xFFFFFFu, 3);
  return 16;
}

// A uniform-random stand-in for an unknown vendor hash: every (flow, switch)
// gets an independent uniform draw from [0, candidates). The flow is the whole
// FiveTuple, destination QP included; the switch is (hop.kind,
// hop.switch_index). Implemented as chained mix64 rounds over (seed, switch,
// addresses, ports and protocol and QP) with a multiply-shift reduction.
// Not steerable: plans under this model state expected statistics only.
class UniformRandomHash final : public HashModel {
 public:
  explicit constexpr UniformRandomHash(uint64_t seed = 0) noexcept
      : seed_(seed), seed_mix_(detail::mix64(seed ^ 0x6A09E667F3BCC909ull)) {}

  [[nodiscard]] int32_t pick(const EcmpHop& hop, const FiveTuple& t) const noexcept override {
    return detail::reduce(hash(hop, t), hop.candidates);
  }
  [[nodiscard]] std::string_view name() const noexcept override { return "random"; }
  [[nodiscard]] bool steerable() const noexcept override { return false; }

  // The full 64-bit draw for (hop's switch, t); pick() reduces it.
  [[nodiscard]] constexpr uint64_t hash(const EcmpHop& hop, const FiveTuple& t) const noexcept {
    uint64_t h = detail::mix64(seed_mix_ ^ detail::hop_word(hop));
    h = detail::mix64(h ^ ((static_cast<uint64_t>(t.src_ip) << 32) | t.dst_ip));
    h = detail::mix64(h ^ ((static_cast<uint64_t>(t.src_port) << 48) |
                           (static_cast<uint64_t>(t.dst_port) << 32) |
                           (static_cast<uint64_t>(t.protocol) << 24) | (t.dst_qp & 0xFFFFFFu)));
    return h;
  }
  [[nodiscard]] constexpr uint64_t seed() const noexcept { return seed_; }

 private:
  uint64_t seed_;
  uint64_t seed_mix_;
};

namespace detail {

// What Crc5TupleHash and QpAwareHash share: the per-switch initial value, the
// CRC over the packed tuple and the finish.
class CrcTupleHasher {
 public:
  constexpr CrcTupleHasher(uint32_t seed, CrcPolynomial poly, CrcFinish finish,
                           bool with_qp) noexcept
      : seed_(seed), poly_(poly), finish_(finish), with_qp_(with_qp) {}

  // The per-switch salt: mixes (kind, switch index) so that neighbouring switch
  // indices get unrelated initial values.
  [[nodiscard]] static constexpr uint64_t salt(const EcmpHop& hop) noexcept {
    return mix64(hop_word(hop) ^ 0xA54FF53A5F1D36F1ull);
  }
  // Initial CRC register at `hop`: seed XOR the low 32 bits of the salt.
  [[nodiscard]] constexpr uint32_t initial_value(const EcmpHop& hop) const noexcept {
    return seed_ ^ static_cast<uint32_t>(salt(hop));
  }
  [[nodiscard]] constexpr uint32_t crc(const EcmpHop& hop, const FiveTuple& t) const noexcept {
    std::array<uint8_t, 16> bytes{};
    const size_t n = pack_tuple(t, with_qp_, bytes);
    return crc32(poly_, std::span<const uint8_t>(bytes.data(), n), initial_value(hop));
  }
  [[nodiscard]] constexpr int32_t pick(const EcmpHop& hop, const FiveTuple& t) const noexcept {
    const uint32_t c = crc(hop, t);
    if (finish_ == CrcFinish::kModulo)
      return static_cast<int32_t>(c % static_cast<uint32_t>(hop.candidates));
    return reduce(mix64((static_cast<uint64_t>(seed_) << 32 | c) ^ salt(hop)), hop.candidates);
  }

  [[nodiscard]] constexpr uint32_t seed() const noexcept { return seed_; }
  [[nodiscard]] constexpr CrcPolynomial polynomial() const noexcept { return poly_; }
  [[nodiscard]] constexpr CrcFinish finish() const noexcept { return finish_; }

 private:
  uint32_t seed_;
  CrcPolynomial poly_;
  CrcFinish finish_;
  bool with_qp_;
};

}  // namespace detail

// A CRC-style 5-tuple hash with per-switch seeds, the kind of function switch
// ASICs use (docs/models.md#routing). At hop h the CRC register starts at
// seed ^ low32(mix64(kind, switch index)); the CRC runs over the 13 packed
// tuple bytes (pack_tuple) and is finished per CrcFinish. The destination QP
// is not hashed. Steerable: find_sport can pick a source port for a path.
// pick() costs one 13-byte table CRC plus one mix64.
class Crc5TupleHash final : public HashModel {
 public:
  explicit constexpr Crc5TupleHash(uint32_t seed = 0, CrcPolynomial poly = CrcPolynomial::kCrc32,
                                   CrcFinish finish = CrcFinish::kPerSwitchMix) noexcept
      : hasher_(seed, poly, finish, /*with_qp=*/false) {}

  [[nodiscard]] int32_t pick(const EcmpHop& hop, const FiveTuple& t) const noexcept override {
    return hasher_.pick(hop, t);
  }
  [[nodiscard]] std::string_view name() const noexcept override {
    return crc_polynomial_name(hasher_.polynomial());
  }
  [[nodiscard]] bool steerable() const noexcept override { return true; }

  // The finished-before-reduction CRC at `hop` (what kModulo reduces).
  [[nodiscard]] constexpr uint32_t crc(const EcmpHop& hop, const FiveTuple& t) const noexcept {
    return hasher_.crc(hop, t);
  }
  [[nodiscard]] constexpr uint32_t seed() const noexcept { return hasher_.seed(); }
  [[nodiscard]] constexpr CrcPolynomial polynomial() const noexcept { return hasher_.polynomial(); }
  [[nodiscard]] constexpr CrcFinish finish() const noexcept { return hasher_.finish(); }

 private:
  detail::CrcTupleHasher hasher_;
};

// Crc5TupleHash that also hashes the 24-bit destination QP (16 packed bytes),
// as Meta's fabric does (SIGCOMM'24, docs/constants.md#ecmp): several QPs of one
// connection with the same source port then still spread. Steerable.
class QpAwareHash final : public HashModel {
 public:
  explicit constexpr QpAwareHash(uint32_t seed = 0, CrcPolynomial poly = CrcPolynomial::kCrc32,
                                 CrcFinish finish = CrcFinish::kPerSwitchMix) noexcept
      : hasher_(seed, poly, finish, /*with_qp=*/true) {}
  // The QP-aware form of `inner` (same seed, polynomial and finish).
  explicit constexpr QpAwareHash(const Crc5TupleHash& inner) noexcept
      : QpAwareHash(inner.seed(), inner.polynomial(), inner.finish()) {}

  [[nodiscard]] int32_t pick(const EcmpHop& hop, const FiveTuple& t) const noexcept override {
    return hasher_.pick(hop, t);
  }
  [[nodiscard]] std::string_view name() const noexcept override {
    return hasher_.polynomial() == CrcPolynomial::kCrc32 ? "crc32+qp" : "crc32c+qp";
  }
  [[nodiscard]] bool steerable() const noexcept override { return true; }

  [[nodiscard]] constexpr uint32_t seed() const noexcept { return hasher_.seed(); }
  [[nodiscard]] constexpr CrcPolynomial polynomial() const noexcept { return hasher_.polynomial(); }

 private:
  detail::CrcTupleHasher hasher_;
};

// The token of a hop kind in measured tables and reports.
[[nodiscard]] constexpr std::string_view hop_kind_token(HopKind k) noexcept {
  switch (k) {
    case HopKind::kSrcLeafUp:
      return "src_leaf_up";
    case HopKind::kSrcSpineUp:
      return "src_spine_up";
    case HopKind::kCoreDown:
      return "core_down";
    case HopKind::kSpineDown:
      return "spine_down";
  }
  return "?";
}

[[nodiscard]] constexpr std::optional<HopKind> parse_hop_kind(std::string_view token) noexcept {
  for (HopKind k :
       {HopKind::kSrcLeafUp, HopKind::kSrcSpineUp, HopKind::kCoreDown, HopKind::kSpineDown})
    if (hop_kind_token(k) == token) return k;
  return std::nullopt;
}

// A measured ECMP table: "switch X sends source port P to candidate U".
//
// File format, one entry per line, fields separated by spaces or tabs:
//   <kind> <switch_index> <sport> <uplink>
//   # comment lines, trailing "# ..." comments and blank lines are ignored
// kind is src_leaf_up, src_spine_up, core_down or spine_down; switch_index a
// non-negative integer below 2^31; sport decimal or 0x-hex in 0xC000..0xFFFF
// (the RoCEv2 range); uplink a non-negative integer below 2^31. An entry
// (kind, switch, sport) may appear once.
//
// pick(): the entry for (hop.kind, hop.switch_index, t.src_port) when there is
// one and its uplink is < hop.candidates; otherwise the fallback model, a
// Crc5TupleHash(fallback_seed) with CRC-32 and per-switch mixing. An uplink
// beyond the candidates (a table measured on another fabric) thus never
// crashes; out_of_range_entries(hop) lets a caller detect it. Lookup is a
// binary search over a sorted vector: O(log entries), no allocation.
class MeasuredTableHash final : public HashModel {
 public:
  struct Entry {
    HopKind kind;
    SwitchIndex switch_index;
    uint16_t sport;
    int32_t uplink;
    friend constexpr bool operator==(const Entry&, const Entry&) = default;
  };

  MeasuredTableHash() = default;

  // Parses a table. Errors (InvalidArgument) name the line number (1-based),
  // the token and what was wrong with it.
  [[nodiscard]] static StatusOr<MeasuredTableHash> parse(std::string_view text,
                                                               uint32_t fallback_seed = 0);
  // Builds a table from entries (any order). Same checks as parse(), errors
  // name the entry index.
  [[nodiscard]] static StatusOr<MeasuredTableHash> from_entries(std::vector<Entry> entries,
                                                                      uint32_t fallback_seed = 0);

  [[nodiscard]] int32_t pick(const EcmpHop& hop, const FiveTuple& t) const noexcept override {
    if (const Entry* e = find(hop.kind, hop.switch_index, t.src_port);
        e != nullptr && e->uplink < hop.candidates)
      return e->uplink;
    return fallback_.pick(hop, t);
  }
  [[nodiscard]] std::string_view name() const noexcept override { return "measured"; }
  [[nodiscard]] bool steerable() const noexcept override { return true; }

  // The entry for (kind, switch, sport), or nullptr. No allocation.
  [[nodiscard]] const Entry* find(HopKind kind, SwitchIndex sw, uint16_t sport) const noexcept {
    const uint64_t k = key(kind, sw, sport);
    auto it = std::lower_bound(entries_.begin(), entries_.end(), k,
                               [](const Entry& e, uint64_t v) { return key(e) < v; });
    return it != entries_.end() && key(*it) == k ? &*it : nullptr;
  }
  // Entries sorted by (kind, switch, sport).
  [[nodiscard]] std::span<const Entry> entries() const noexcept { return entries_; }
  [[nodiscard]] const Crc5TupleHash& fallback() const noexcept { return fallback_; }
  // Entries at hop's switch whose uplink is >= hop.candidates (ignored by pick()).
  [[nodiscard]] int64_t out_of_range_entries(const EcmpHop& hop) const noexcept {
    int64_t n = 0;
    for (const Entry& e : entries_)
      n += e.kind == hop.kind && e.switch_index == hop.switch_index && e.uplink >= hop.candidates;
    return n;
  }
  // The table in the file format, one entry per line in sorted order with hex
  // ports; parse(to_text()) gives back the same entries.
  [[nodiscard]] std::string to_text() const;

 private:
  [[nodiscard]] static constexpr uint64_t key(HopKind kind, SwitchIndex sw,
                                              uint16_t sport) noexcept {
    return (static_cast<uint64_t>(kind) << 48) |
           (static_cast<uint64_t>(static_cast<uint32_t>(sw.value())) << 16) | sport;
  }
  [[nodiscard]] static constexpr uint64_t key(const Entry& e) noexcept {
    return key(e.kind, e.switch_index, e.sport);
  }

  std::vector<Entry> entries_;
  Crc5TupleHash fallback_;
};

namespace detail {

// Strict unsigned decimal or 0x-hex; nullopt on anything else or above `max`.
// Any number of leading zeros: the running value, not the digit count, is
// bounded; it stays <= max (< 2^59 for every caller), so v * 16 + 15 cannot
// overflow.
RAILYARD_LAZY
[[nodiscard]] std::optional<int64_t> parse_table_number(std::string_view s,
                                                               int64_t max) noexcept {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    if (d < 0) return std::nullopt;
    v = v * base + d;
    if (v > max) return std::nullopt;
  }
  return v;
}

RAILYARD_LAZY
Status table_error(std::string_view where, int token, std::string_view field,
                                std::string_view value, std::string_view problem) {
  return invalid_argument_error(
      str_cat(where, ", token ", token, " (", field, ") '", value, "': ", problem));
}

}  // namespace detail

inline StatusOr<MeasuredTableHash> MeasuredTableHash::parse(std::string_view text,
                                                                  uint32_t fallback_seed) {
  constexpr int64_t kIntMax = 0x7FFFFFFF;
  std::vector<Entry> entries;
  std::vector<int64_t> line_of;  // line number of each entry, for duplicate messages
  int64_t line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::array<std::string_view, 5> tok{};
    int n = 0;
    for (size_t i = 0; i < line.size();) {
      const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
      while (i < line.size() && space(line[i])) ++i;
      size_t j = i;
      while (j < line.size() && !space(line[j])) ++j;
      if (j > i) {
        if (n == 4) {
          return invalid_argument_error(
              str_cat("line ", line_no, ", token 5 '", line.substr(i, j - i),
                      "': unexpected; expected <kind> <switch_index> <sport> <uplink>"));
        }
        tok[static_cast<size_t>(n++)] = line.substr(i, j - i);
      }
      i = j;
    }
    if (n == 0) continue;
    const std::string where = str_cat("line ", line_no);
    if (n < 4)
      return invalid_argument_error(str_cat(where,
                                                ": expected 4 tokens <kind> <switch_index> "
                                                "<sport> <uplink>, got ",
                                                n, " ('", std::string_view(line), "')"));
    const std::optional<HopKind> kind = parse_hop_kind(tok[0]);
    if (!kind)
      return detail::table_error(where, 1, "kind", tok[0],
                                 "expected src_leaf_up, src_spine_up, core_down or spine_down");
    const auto sw = detail::parse_table_number(tok[1], kIntMax);
    if (!sw)
      return detail::table_error(where, 2, "switch_index", tok[1],
                                 "expected a non-negative integer below 2^31");
    const auto sport = detail::parse_table_number(tok[2], 0xFFFF);
    if (!sport)
      return detail::table_error(where, 3, "sport", tok[2],
                                 "expected a decimal or 0x-hex port in 0xC000..0xFFFF");
    if (*sport < kSportBase)
      return detail::table_error(where, 3, "sport", tok[2],
                                 "outside the RoCEv2 source port range 0xC000..0xFFFF");
    if (!tok[3].empty() && tok[3].front() == '-')
      return detail::table_error(where, 4, "uplink", tok[3], "uplink must not be negative");
    const auto uplink = detail::parse_table_number(tok[3], kIntMax);
    if (!uplink)
      return detail::table_error(where, 4, "uplink", tok[3],
                                 "expected a non-negative integer below 2^31");
    entries.push_back({*kind, SwitchIndex{static_cast<int32_t>(*sw)}, static_cast<uint16_t>(*sport),
                       static_cast<int32_t>(*uplink)});
    line_of.push_back(line_no);
  }
  // Sort entry indices by key; a duplicate names both lines.
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(entries[a]) < key(entries[b]); });
  for (size_t i = 1; i < order.size(); ++i) {
    const Entry& e = entries[order[i]];
    if (key(e) == key(entries[order[i - 1]])) {
      return invalid_argument_error(str_cat(
          "line ", line_of[order[i]], ": duplicate entry '", hop_kind_token(e.kind), " ",
          e.switch_index.value(), " ", e.sport, "', first given on line ", line_of[order[i - 1]]));
    }
  }
  MeasuredTableHash table;
  table.entries_.reserve(entries.size());
  for (size_t i : order) table.entries_.push_back(entries[i]);
  table.fallback_ = Crc5TupleHash(fallback_seed);
  return table;
}

inline StatusOr<MeasuredTableHash> MeasuredTableHash::from_entries(std::vector<Entry> entries,
                                                                         uint32_t fallback_seed) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (!e.switch_index.valid())
      return invalid_argument_error(
          str_cat("entry ", i, ": switch_index ", e.switch_index.value(), " is negative"));
    if (e.sport < kSportBase)
      return invalid_argument_error(
          str_cat("entry ", i, ": sport ", e.sport, " is outside 0xC000..0xFFFF"));
    if (e.uplink < 0)
      return invalid_argument_error(
          str_cat("entry ", i, ": uplink ", e.uplink, " is negative"));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return key(a) < key(b); });
  for (size_t i = 1; i < entries.size(); ++i)
    if (key(entries[i]) == key(entries[i - 1]))
      return invalid_argument_error(
          str_cat("duplicate entry '", hop_kind_token(entries[i].kind), " ",
                  entries[i].switch_index.value(), " ", entries[i].sport, "'"));
  MeasuredTableHash table;
  table.entries_ = std::move(entries);
  table.fallback_ = Crc5TupleHash(fallback_seed);
  return table;
}

inline std::string MeasuredTableHash::to_text() const {
  std::string out = "# kind switch_index sport uplink\n";
  for (const Entry& e : entries_) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    const char port[] = {'0',
                         'x',
                         kHex[(e.sport >> 12) & 15],
                         kHex[(e.sport >> 8) & 15],
                         kHex[(e.sport >> 4) & 15],
                         kHex[e.sport & 15],
                         '\0'};
    str_append(out, hop_kind_token(e.kind), " ", e.switch_index.value(), " ",
               std::string_view(port), " ", e.uplink, "\n");
  }
  return out;
}

// Searches the 16,384 RoCEv2 source ports for one with which every hop picks
// its wanted candidate: base with src_port = p gives
// model.pick(hops[i], ·) == wanted[i] for all i. Ports are tried in the fixed
// order 0xC000 | ((start + i) mod 2^14), i = 0, 1, ..., so different `start`
// values give different (still deterministic) answers for repeated queries.
// Returns nullopt when the model is not steerable, the spans differ in length,
// a wanted index is outside [0, candidates), or no port works. An empty path
// returns the first port tried.
// Cost: about prod(candidates) picks on average, at most 16,384 x hops.size();
// no allocation.
RAILYARD_LAZY
[[nodiscard]] std::optional<uint16_t> find_sport(const HashModel& model,
                                                        std::span<const EcmpHop> hops,
                                                        std::span<const int32_t> wanted,
                                                        FiveTuple base,
                                                        uint16_t start = 0) noexcept {
  if (!model.steerable() || hops.size() != wanted.size()) return std::nullopt;
  for (size_t i = 0; i < hops.size(); ++i)
    if (wanted[i] < 0 || wanted[i] >= hops[i].candidates) return std::nullopt;
  for (int i = 0; i < kSportCount; ++i) {
    base.src_port = static_cast<uint16_t>(kSportBase | ((start + i) & (kSportCount - 1)));
    bool all = true;
    for (size_t h = 0; h < hops.size() && all; ++h) all = model.pick(hops[h], base) == wanted[h];
    if (all) return base.src_port;
  }
  return std::nullopt;
}

// A hash model by name, as `railyard spray --hash` takes it: crc32, crc32c
// (Crc5TupleHash with that polynomial), qp (QpAwareHash), random
// (UniformRandomHash) or table:FILE (a MeasuredTableHash read from FILE), each
// seeded with `seed` (the CRC models and the table's fallback take its low 32
// bits). Errors carry `field` with the whole name: an unknown model, a table file
// that cannot be read, or the table's own line-numbered errors.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::unique_ptr<HashModel>> parse_hash_model(std::string_view field,
                                                                           std::string_view name,
                                                                           uint64_t seed) {
  const auto seed32 = static_cast<uint32_t>(seed);
  if (name == "crc32") return std::make_unique<Crc5TupleHash>(seed32, CrcPolynomial::kCrc32);
  if (name == "crc32c") return std::make_unique<Crc5TupleHash>(seed32, CrcPolynomial::kCrc32c);
  if (name == "qp") return std::make_unique<QpAwareHash>(seed32);
  if (name == "random") return std::make_unique<UniformRandomHash>(seed);
  constexpr std::string_view kTable = "table:";
  if (name.substr(0, kTable.size()) == kTable) {
    std::string text;
    if (const std::string_view problem = read_file_into(name.substr(kTable.size()), text);
        !problem.empty())
      return invalid_field(field, name, problem);
    auto table = MeasuredTableHash::parse(text, seed32);
    if (!table.ok()) return invalid_field(field, name, message_of(table.status()));
    return std::make_unique<MeasuredTableHash>(*std::move(table));
  }
  return invalid_field(field, name, "unknown model (crc32, crc32c, qp, random, table:FILE)");
}

}  // namespace railyard::routing
