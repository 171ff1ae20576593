// railyard/plugin/advisor.hpp — the net-plugin path advisor: QP counts and
// per-QP RoCEv2 source ports from the spraying plan, for an NCCL net plugin.
//
// C++ use (tests, C++ plugins):
//
//   auto adv = railyard::plugin::PathAdvisor::create({.cluster = "h100-1024", .hash_seed = 7});
//   if (!adv.ok()) return adv.status();
//   railyard::NicPort a{railyard::HostId{3}, railyard::NicIndex{5}};
//   railyard::NicPort b{railyard::HostId{40}, railyard::NicIndex{5}};
//   railyard::StatusOr<railyard::plugin::Connection> c = (*adv)->connect(a, b, /*qp_budget=*/16);
//   // c->qps == 16 QPs on 16 distinct leaf uplinks; c->source_ports[i] for QP i
//   uint16_t sport = (*adv)->source_port(c->id, 3);   // O(1), lock-free, no allocation
//   auto rp = (*adv)->rail_plane("mlx5_5");            // {rail 5, plane 0}
//
// C use: railyard/plugin/advisor.h (the C API, documented there). Exactly one
// C++ translation unit of the plugin defines the C functions:
//
//   #define RAILYARD_ADVISOR_IMPLEMENTATION
//   #include "railyard/plugin/advisor.hpp"
//
// Why a macro rather than a compiled library: railyard is header-only and
// installs no binaries; the plugin builds the C functions with its own flags,
// visibility (RAILYARD_ADVISOR_API) and its own Abseil, so nothing here can
// clash with another copy of railyard or Abseil in the process.
//
// What connect returns. For local -> remote and a budget B: the connection's
// usable source-leaf uplinks m (every uplink with a route to the remote leaf;
// 1 when both ports hang off one leaf), k = min(B, m, 256) QPs, and
// routing::plan_connection(desc, fabric, local, remote, k, model) with default
// SprayOptions (only base_dst_qpn may be set) — routing::advised_plan, which the
// simulator's steered routing calls too: QP i's source port, flow label
// and uplink. The plan puts QP i on the (i mod m)-th uplink of the rotation, so
// the k QPs take k distinct uplinks. Identical requests (same ports, budget and
// base_dst_qpn) return the first connection's id without planning again.
//
// Storage and threads. Each connection's ports are written once, back to back
// into 64 KiB chunks that never move, and a 16-byte slot {ports, qps} is
// appended to a table of segments: segment s holds 64 * 2^s slots and is never
// reallocated, so the table grows without moving a published slot. The slot
// is written before the table's size is stored (release); a lookup loads the
// size (acquire), then the segment pointer, the slot and the port: O(1), no
// lock, no allocation, safe while another thread connects. (The flow label is
// computed from the port, as the plan does.)
// connect plans outside the lock (plans are pure functions of const data) and
// takes a mutex only to look up the request and to publish. Destruction must
// not overlap any other call.
#ifndef RAILYARD_PLUGIN_ADVISOR_HPP_
#define RAILYARD_PLUGIN_ADVISOR_HPP_

#include <arpa/inet.h>  // inet_pton: GIDs and addresses as the kernel writes them

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/export/nccl_xml.hpp"
#include "railyard/plugin/advisor.h"
#include "railyard/routing/flow.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/topology/cluster.hpp"

namespace railyard::plugin {

static_assert(RAILYARD_ADVISOR_MAX_QPS == routing::kMaxQpsPerConnection);

// QP i of a connection is assumed to reach destination QP base + i (hashed by
// the QP-aware models only); this is SprayOptions' default.
inline constexpr uint32_t kDefaultBaseDstQpn = 0x100;
static_assert(kDefaultBaseDstQpn == routing::SprayOptions{}.base_dst_qpn);

// The environment variables read when no cluster is given.
inline constexpr std::string_view kClusterEnv = "RAILYARD_CLUSTER";
inline constexpr std::string_view kClusterFileEnv = "RAILYARD_CLUSTER_FILE";

// How PathAdvisor::create is configured (the C railyard_advisor_options).
struct AdvisorOptions {
  std::string cluster;                       // spec or preset; empty: RAILYARD_CLUSTER(_FILE)
  std::string hash_model = "crc32";          // crc32, crc32c, qp (= crc32+qp), crc32c+qp
  uint32_t hash_seed = 0;                    // the model's seed
  std::vector<std::string> nic_busids = {};  // real NIC bus ids per NIC index; empty: nccl_xml's
};

// A NIC port as a plugin names it (the C railyard_nic_id): rail/plane numbers,
// or -1 and a device name / PCI bus id / sysfs path. See advisor.h.
struct NicRef {
  int32_t host = 0;
  int32_t rail = -1;
  int32_t plane = -1;
  std::string_view name_or_pci = {};
};

// NCCL's railId / planeId of a NIC port.
struct RailPlane {
  RailId rail;
  PlaneId plane;
  friend constexpr bool operator==(const RailPlane&, const RailPlane&) = default;
};

// One planned connection. The spans point into the advisor's immutable
// storage and stay valid until the advisor is destroyed.
struct Connection {
  routing::ConnectionId id;
  NicPort local;
  NicPort remote;
  int32_t qps = 0;
  int32_t usable_uplinks = 0;               // m: source-leaf uplinks with a route (1 on one leaf)
  int32_t uplinks_used = 0;                 // distinct uplinks of the QPs: min(qps, m)
  std::span<const uint16_t> source_ports;  // per QP, 0xC000..0xFFFF, distinct
  std::span<const uint32_t> flow_labels;   // per QP, sport_from_flow_label(fl) == sport
  std::span<const int32_t> uplinks;        // per QP source-leaf uplink; -1 on one leaf
};

// What a plugin puts in its listen handle so that the connecting side learns
// the listener's NIC port and QP budget: NCCL's connect() receives only the
// peer's handle, no rank or host (docs/net-plugin.md). kEndpointBytes bytes,
// little-endian, at any offset of the handle the plugin chooses:
//   0  "RYEP"   magic
//   4  u16      format (kEndpointFormat)
//   6  u16      0
//   8  u64      PathAdvisor::digest() of the writer: cluster, hash model, seed
//   16 i32 host, 20 i32 rail, 24 i32 plane, 28 i32 qp_budget
// A reader whose digest differs refuses the handle (StatusCode::kAborted):
// two ranks that describe the cluster differently would plan different ports
// and QP counts, so they must never silently go on.
inline constexpr size_t kEndpointBytes = RAILYARD_ADVISOR_ENDPOINT_BYTES;
inline constexpr uint16_t kEndpointFormat = 1;
inline constexpr std::array<char, 4> kEndpointMagic = {'R', 'Y', 'E', 'P'};

struct Endpoint {
  NicPort port;
  int32_t qp_budget = 1;
  friend constexpr bool operator==(const Endpoint&, const Endpoint&) = default;
};

// What the switches hash for a TCP connection of a socket plugin: the real
// IPv4 addresses of both interfaces and the listener's port (host byte order).
// The protocol is TCP (6).
struct TcpFlow {
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
  uint16_t dst_port = 0;
};
inline constexpr uint8_t kTcpProtocol = 6;

// The source ports of a connection's TCP streams (PathAdvisor::plan_tcp_streams).
struct StreamPlan {
  int32_t streams = 0;
  int32_t usable_uplinks = 0;         // m: source-leaf uplinks with a route (1 on one leaf)
  std::vector<uint16_t> source_ports;  // per stream, distinct, 0xC000..0xFFFF
  std::vector<int32_t> uplinks;        // per stream source-leaf uplink; -1 on one leaf
};

namespace detail {

// Little-endian fields of an endpoint (kEndpointBytes): `bytes` bytes at `at`.
inline void put_le(std::array<uint8_t, kEndpointBytes>& b, size_t at, uint64_t v,
                   size_t bytes) noexcept {
  for (size_t i = 0; i < bytes; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
[[nodiscard]] inline uint64_t get_le(const std::array<uint8_t, kEndpointBytes>& b, size_t at,
                                     size_t bytes) noexcept {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= uint64_t{b[at + i]} << (8 * i);
  return v;
}
[[nodiscard]] inline std::string hex64(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) out += kDigits[(v >> shift) & 0xF];
  return out;
}
[[nodiscard]] inline std::string hex_bytes(const std::array<uint8_t, kEndpointBytes>& b,
                                           size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[b[i] >> 4];
    out += kDigits[b[i] & 0xF];
  }
  return out;
}

// FNV-1a (64-bit) over what two ranks' plans depend on: every link's ends,
// capacity and latency, the hash model's name and the seed. O(links), once per
// advisor.
RAILYARD_LAZY
[[nodiscard]] uint64_t advisor_digest(const topology::Fabric& f, const routing::HashModel& model,
                                      uint32_t seed) {
  uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  };
  mix(static_cast<uint64_t>(f.node_count()));
  mix(static_cast<uint64_t>(f.link_count()));
  for (int32_t l = 0; l < f.link_count(); ++l) {
    const LinkId id{l};
    mix(static_cast<uint64_t>(f.src(id).value()) << 32 | static_cast<uint32_t>(f.dst(id).value()));
    mix(std::bit_cast<uint64_t>(f.capacity_gbps(id)));
    mix(std::bit_cast<uint64_t>(f.latency_ns(id)));
  }
  for (char c : model.name()) mix(static_cast<uint8_t>(c));
  mix(seed);
  return h;
}

// A Status message as std::string_view (Debian's Abseil has its own string_view).
// A PCI bus id "dddd:bb:dd.f", lower case, in a fixed buffer (no allocation).
using BusId = std::array<char, 12>;

[[nodiscard]] constexpr bool advisor_hex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Parses "dddd:bb:dd.f", "bb:dd.f" (domain 0000) or a path whose last
// component is one of them; nullopt when malformed.
[[nodiscard]] inline std::optional<BusId> parse_busid(std::string_view s) noexcept {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  if (const size_t slash = s.rfind('/'); slash != std::string_view::npos)
    s.remove_prefix(slash + 1);
  BusId id = {'0', '0', '0', '0', ':'};
  size_t at = 0;
  if (s.size() == 7) {
    at = 5;
  } else if (s.size() != 12) {
    return std::nullopt;
  }
  for (char c : s) {
    const size_t i = at++;
    const bool sep = i == 4 || i == 7 || i == 10;
    if (sep ? c != (i == 10 ? '.' : ':') : !advisor_hex(c)) return std::nullopt;
    id[i] = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return id;
}

[[nodiscard]] inline std::string_view busid_text(const BusId& id) noexcept {
  return {id.data(), id.size()};
}

// A device found in sysfs: its PCI function and its class directory.
struct SysfsDevice {
  BusId busid{};
  std::string class_dir;  // "infiniband" or "net"
};

// <root>/class/infiniband/<name>/device, else <root>/class/net/<name>/device:
// the last component of where the link points is the PCI bus id.
RAILYARD_LAZY
[[nodiscard]] StatusOr<SysfsDevice> sysfs_device(std::string_view root, std::string_view name) {
  std::vector<std::string> tried;
  for (const char* cls : {"infiniband", "net"}) {
    const std::filesystem::path link =
        std::filesystem::path(std::string(root)) / "class" / cls / std::string(name) / "device";
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(link, ec);
    tried.push_back(link.string());
    if (ec) continue;
    const std::optional<BusId> id = parse_busid(target.filename().string());
    if (!id)
      return not_found_error(str_cat("device=", name, ": ", link.string(), " points to ",
                                     target.string(), ", not a PCI function"));
    return SysfsDevice{*id, cls};
  }
  return not_found_error(
      str_cat("device=", name, ": no such RDMA device or netdev (", join(tried, ", "), ")"));
}

// A GID or an address as 16 bytes: an IPv6 address or GID in any form
// inet_pton reads ("fe80::1", sysfs's "0000:0000:...:0a00:0001"), or an IPv4
// address as the IPv4-mapped GID ::ffff:a.b.c.d that RoCEv2 gives it.
RAILYARD_LAZY
[[nodiscard]] std::optional<std::array<uint8_t, 16>> parse_gid(std::string_view text) {
  const std::string s(text);
  std::array<uint8_t, 16> out{};
  if (s.find(':') == std::string::npos) {
    uint8_t v4[4];
    if (inet_pton(AF_INET, s.c_str(), v4) != 1) return std::nullopt;
    out[10] = out[11] = 0xFF;
    std::memcpy(out.data() + 12, v4, 4);
    return out;
  }
  if (inet_pton(AF_INET6, s.c_str(), out.data()) != 1) return std::nullopt;
  return out;
}

// Every (RDMA device, port) whose GID table, <root>/class/infiniband/<dev>/
// ports/<port>/gids/<index>, holds `gid`, sorted by device name and port.
RAILYARD_LAZY
[[nodiscard]] std::vector<std::pair<std::string, int32_t>> sysfs_gid_owners(
    std::string_view root, const std::array<uint8_t, 16>& gid) {
  std::vector<std::pair<std::string, int32_t>> out;
  const std::filesystem::path ib = std::filesystem::path(std::string(root)) / "class" / "infiniband";
  std::error_code ec;
  for (std::filesystem::directory_iterator dev(ib, ec), end; !ec && dev != end; dev.increment(ec)) {
    std::error_code port_ec;
    for (std::filesystem::directory_iterator port(dev->path() / "ports", port_ec);
         !port_ec && port != end; port.increment(port_ec)) {
      const std::string port_name = port->path().filename().string();
      const int32_t port_number = std::atoi(port_name.c_str());
      std::error_code gid_ec;
      for (std::filesystem::directory_iterator g(port->path() / "gids", gid_ec);
           !gid_ec && g != end; g.increment(gid_ec)) {
        std::ifstream in(g->path());
        std::string line;
        std::getline(in, line);
        const std::optional<std::array<uint8_t, 16>> value = parse_gid(line);
        if (value && *value == gid) {
          out.emplace_back(dev->path().filename().string(), port_number);
          break;
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The distinct PCI functions of every device of a sysfs class, sorted.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<BusId>> sysfs_class_busids(std::string_view root,
                                                              std::string_view cls) {
  const std::filesystem::path dir =
      std::filesystem::path(std::string(root)) / "class" / std::string(cls);
  std::error_code ec;
  std::vector<BusId> out;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code link_ec;
    const std::filesystem::path target =
        std::filesystem::read_symlink(it->path() / "device", link_ec);
    if (link_ec) continue;  // virtual devices (lo, bonds, bridges) have no PCI function
    if (const std::optional<BusId> id = parse_busid(target.filename().string()))
      out.push_back(*id);
  }
  if (ec) return not_found_error(str_cat(dir.string(), ": ", ec.message()));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The NIC bus ids exports::nccl_topology_xml writes for every host.
[[nodiscard]] inline std::vector<BusId> nccl_xml_nic_busids(
    const topology::ClusterDescriptor<>& d) {
  std::vector<BusId> out;
  for (const std::string& id : exports::synthetic_bus_ids(d).nics) out.push_back(*parse_busid(id));
  return out;
}

// "mlx5_<dev>[:<port>]": dev and port (0 when absent); nullopt when `s` does
// not start with "mlx5_"; dev = -1 when the rest is malformed.
struct DeviceName {
  int64_t dev = -1;
  int64_t port = 0;
};
[[nodiscard]] inline std::optional<DeviceName> parse_device_name(std::string_view s) noexcept {
  constexpr std::string_view kPrefix = "mlx5_";
  if (s.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  s.remove_prefix(kPrefix.size());
  auto number = [](std::string_view t) -> int64_t {
    if (t.empty() || t.size() > 9) return -1;
    int64_t v = 0;
    for (char c : t) {
      if (!is_digit(c)) return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  DeviceName out;
  const size_t colon = s.find(':');
  out.dev = number(s.substr(0, colon));
  if (colon != std::string_view::npos) {
    out.port = number(s.substr(colon + 1));
    if (out.port < 1) out.dev = -1;
  }
  return out;
}

[[nodiscard]] inline StatusOr<std::unique_ptr<routing::HashModel>> make_hash_model(
    std::string_view name, uint32_t seed) {
  using routing::CrcPolynomial;
  if (name.empty() || name == "crc32")
    return std::make_unique<routing::Crc5TupleHash>(seed, CrcPolynomial::kCrc32);
  if (name == "crc32c")
    return std::make_unique<routing::Crc5TupleHash>(seed, CrcPolynomial::kCrc32c);
  if (name == "qp" || name == "crc32+qp")
    return std::make_unique<routing::QpAwareHash>(seed, CrcPolynomial::kCrc32);
  if (name == "crc32c+qp")
    return std::make_unique<routing::QpAwareHash>(seed, CrcPolynomial::kCrc32c);
  return invalid_field("hash_model", name,
                       "unknown; expected crc32, crc32c, qp (= crc32+qp) or crc32c+qp");
}

// The one spec of a cluster file: blank lines and '#' comments are skipped.
[[nodiscard]] inline StatusOr<std::string> read_cluster_file(std::string_view path) {
  const std::string where = str_cat(kClusterFileEnv, "=", path);
  std::ifstream in{std::string(path)};
  if (!in) return not_found_error(str_cat(where, ": cannot open the file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();  // split() returns views into it
  std::string spec;
  int64_t line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!line.empty() && space(line.front())) line.remove_prefix(1);
    while (!line.empty() && space(line.back())) line.remove_suffix(1);
    if (line.empty()) continue;
    if (!spec.empty())
      return invalid_argument_error(str_cat(where, ": line ", line_no, " '", line,
                                                "': a second cluster spec (one per file)"));
    spec = std::string(line);
  }
  if (spec.empty()) return invalid_argument_error(str_cat(where, ": no cluster spec in it"));
  return spec;
}

// RAILYARD_CLUSTER, else the file named by RAILYARD_CLUSTER_FILE.
[[nodiscard]] inline StatusOr<std::string> cluster_spec_from_env() {
  if (const char* spec = std::getenv(std::string(kClusterEnv).c_str());
      spec != nullptr && *spec != '\0')
    return std::string(spec);
  if (const char* file = std::getenv(std::string(kClusterFileEnv).c_str());
      file != nullptr && *file != '\0')
    return read_cluster_file(file);
  return invalid_argument_error(str_cat("cluster: none given and neither ", kClusterEnv,
                                            " (a spec) nor ", kClusterFileEnv,
                                            " (a file holding one) is set"));
}

// What a lookup reads: one per connection, written once. 16 bytes, so that a
// large table stays dense in the caches.
struct ConnectionSlot {
  const uint16_t* source_ports = nullptr;  // qps ports in a PortArena chunk
  uint32_t qps = 0;
};

// An append-only array of slots in segments that never move: segment s holds
// 64 * 2^s slots, ids [64 (2^s - 1), 64 (2^(s+1) - 1)). One writer at a time
// (the advisor's mutex); any number of lock-free readers.
class SlotTable {
 public:
  static constexpr uint32_t kFirstBits = 6;
  static constexpr int kSegments = 25;
  // About 2^31 connections.
  static constexpr uint32_t kCapacity = ((uint32_t{1} << kSegments) - 1) << kFirstBits;

  SlotTable() = default;
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;
  ~SlotTable() {
    for (auto& s : segments_) delete[] s.load(std::memory_order_relaxed);
  }

  [[nodiscard]] uint32_t size() const noexcept { return size_.load(std::memory_order_acquire); }

  // The slot of `id`, or nullptr when it is not published.
  [[nodiscard]] const ConnectionSlot* find(uint32_t id) const noexcept {
    if (id >= size_.load(std::memory_order_acquire)) return nullptr;
    const auto [segment, offset] = locate(id);
    // Ordered by the acquire above: the writer stored the pointer before the size.
    return &segments_[segment].load(std::memory_order_relaxed)[offset];
  }

  // Allocates the segment the next append needs (may throw std::bad_alloc).
  // Writer only; precondition: size() < kCapacity.
  void prepare_append() {
    const Place at = locate(size_.load(std::memory_order_relaxed));
    if (segments_[at.segment].load(std::memory_order_relaxed) == nullptr)
      segments_[at.segment].store(new ConnectionSlot[size_t{1} << (at.segment + kFirstBits)],
                                  std::memory_order_relaxed);
  }
  // Writes the next slot and publishes it; returns its id. Writer only, after
  // prepare_append().
  uint32_t append(const ConnectionSlot& slot) noexcept {
    const uint32_t id = size_.load(std::memory_order_relaxed);
    const Place at = locate(id);
    segments_[at.segment].load(std::memory_order_relaxed)[at.offset] = slot;
    size_.store(id + 1, std::memory_order_release);
    return id;
  }

  [[nodiscard]] size_t memory_bytes() const noexcept {
    size_t bytes = 0;
    for (int s = 0; s < kSegments; ++s)
      if (segments_[s].load(std::memory_order_relaxed) != nullptr)
        bytes += (size_t{1} << (s + kFirstBits)) * sizeof(ConnectionSlot);
    return bytes;
  }

 private:
  struct Place {
    uint32_t segment;
    uint32_t offset;
  };
  [[nodiscard]] static Place locate(uint32_t id) noexcept {
    const uint32_t t = (id >> kFirstBits) + 1;
    const auto segment = static_cast<uint32_t>(std::bit_width(t) - 1);
    return {segment, id - (((uint32_t{1} << segment) - 1) << kFirstBits)};
  }

  std::array<std::atomic<ConnectionSlot*>, kSegments> segments_{};
  std::atomic<uint32_t> size_{0};
};

// The source ports of every connection, back to back in chunks that are
// never freed or moved before the arena dies (a connection's ports never
// straddle two chunks). Dense, so that lookups over many connections touch
// few cache lines. Writer only (the advisor's mutex).
class PortArena {
 public:
  static constexpr size_t kChunk = size_t{1} << 15;  // ports per chunk (64 KiB)
  static_assert(kChunk >= routing::kMaxQpsPerConnection);

  // Copies `ports` in and returns where they now live.
  const uint16_t* add(std::span<const uint16_t> ports) {
    if (chunks_.empty() || used_ + ports.size() > kChunk) {
      chunks_.push_back(std::make_unique<uint16_t[]>(kChunk));
      used_ = 0;
    }
    uint16_t* at = chunks_.back().get() + used_;
    std::copy(ports.begin(), ports.end(), at);
    used_ += ports.size();
    return at;
  }
  [[nodiscard]] size_t memory_bytes() const noexcept {
    return chunks_.size() * kChunk * sizeof(uint16_t);
  }

 private:
  std::vector<std::unique_ptr<uint16_t[]>> chunks_;
  size_t used_ = 0;
};

// What the Connection view of a connection points at, besides its ports.
struct ConnectionRecord {
  std::vector<uint32_t> flow_labels;
  std::vector<int32_t> uplinks;
  Connection view;
};

}  // namespace detail

// The advisor: one cluster (descriptor + fabric), one hash model, the table of
// planned connections. Create it once per process (or per net plugin), share
// it between threads; see the header comment for the threading rules.
class PathAdvisor {
 public:
  // The cluster from options.cluster (or the environment), the hash model and
  // the NIC bus ids. Errors (InvalidArgument/NotFound) name the option or the
  // environment variable and the value. Materializes the fabric: O(GPUs).
  [[nodiscard]] static StatusOr<std::unique_ptr<PathAdvisor>> create(
      const AdvisorOptions& options = {}) {
    std::string spec = options.cluster;
    if (spec.empty()) {
      RAILYARD_ASSIGN_OR_RETURN(spec, detail::cluster_spec_from_env());
    }
    StatusOr<topology::Cluster> cluster = topology::make_cluster(spec);
    if (!cluster.ok())
      return make_status(cluster.status().code(),
                          str_cat("cluster '", spec, "': ", message_of(cluster.status())));
    return create(std::move(*cluster), options);
  }
  // The same with a cluster already built (options.cluster is ignored).
  [[nodiscard]] static StatusOr<std::unique_ptr<PathAdvisor>> create(
      topology::Cluster cluster, const AdvisorOptions& options = {}) {
    RAILYARD_ASSIGN_OR_RETURN(std::unique_ptr<routing::HashModel> model,
                              detail::make_hash_model(options.hash_model, options.hash_seed));
    const topology::ClusterDescriptor<>& d = cluster.descriptor;
    std::vector<detail::BusId> busids;
    if (options.nic_busids.empty()) {
      busids = detail::nccl_xml_nic_busids(d);
    } else {
      if (std::ssize(options.nic_busids) != d.nics_per_host())
        return invalid_field("nic_busids", join(options.nic_busids, ","),
                             str_cat("expected ", d.nics_per_host(), " bus ids (one per NIC), got ",
                                     options.nic_busids.size()));
      for (size_t i = 0; i < options.nic_busids.size(); ++i) {
        const std::optional<detail::BusId> id = detail::parse_busid(options.nic_busids[i]);
        if (!id)
          return invalid_field(str_cat("nic_busids[", i, "]"), options.nic_busids[i],
                               "not a PCI bus id dddd:bb:dd.f");
        if (std::find(busids.begin(), busids.end(), *id) != busids.end())
          return invalid_field(str_cat("nic_busids[", i, "]"), options.nic_busids[i],
                               "given twice");
        busids.push_back(*id);
      }
    }
    const uint64_t digest = detail::advisor_digest(cluster.fabric, *model, options.hash_seed);
    auto advisor = std::unique_ptr<PathAdvisor>(
        new PathAdvisor(std::move(cluster), std::move(model), std::move(busids), digest));
    advisor->real_busids_ = !options.nic_busids.empty();
    return advisor;
  }

  PathAdvisor(const PathAdvisor&) = delete;
  PathAdvisor& operator=(const PathAdvisor&) = delete;
  ~PathAdvisor() = default;

  [[nodiscard]] const topology::Cluster& cluster() const noexcept { return cluster_; }
  [[nodiscard]] const topology::ClusterDescriptor<>& descriptor() const noexcept {
    return cluster_.descriptor;
  }
  [[nodiscard]] const routing::HashModel& hash_model() const noexcept { return *model_; }

  // ---- names ---------------------------------------------------------------

  // The device name nccl_xml.hpp gives port p: "mlx5_<nic * planes + plane>".
  [[nodiscard]] std::string nic_name(NicPort p) const {
    return str_cat("mlx5_", p.nic.value() * descriptor().planes() + p.plane.value());
  }
  // The bus id of NIC `nic` (nccl_xml's synthetic one unless real ones were given).
  [[nodiscard]] std::string_view nic_busid(NicIndex nic) const noexcept {
    return detail::busid_text(busids_[static_cast<size_t>(nic.value())]);
  }

  // NCCL's railId/planeId for a device name "mlx5_<dev>[:<port>]" (rail =
  // dev / planes, plane = dev % planes) or a PCI bus id / sysfs path (its NIC;
  // the plane is port - 1, and may be left out, port = 0, on single-plane NICs).
  // `port` is NCCL's 1-based port number, 0 = unknown; with a device name it
  // must agree. Errors: InvalidArgument (malformed, port out of range or
  // disagreeing, PCI name of a multi-plane NIC without a port), NotFound (no
  // such NIC). No allocation on success.
  [[nodiscard]] StatusOr<RailPlane> rail_plane(std::string_view name_or_pci,
                                                     int32_t port = 0) const {
    const int32_t planes = descriptor().planes();
    if (port < 0 || port > planes)
      return invalid_field("port", str_cat(port),
                           str_cat("must be in [1, ", planes, "] (or 0: unknown)"));
    RAILYARD_ASSIGN_OR_RETURN(const Lookup l, lookup(name_or_pci, "nic_name_or_pci"));
    if (l.plane >= 0) {
      if (port != 0 && port != l.plane + 1)
        return invalid_field("port", str_cat(port),
                             str_cat(name_or_pci, " is port ", l.plane + 1, " of NIC ", l.nic));
      return RailPlane{RailId{l.nic}, PlaneId{l.plane}};
    }
    if (port == 0)
      return invalid_field(
          "port", "0",
          str_cat(name_or_pci, " is the PCI function of NIC ", l.nic, ", which has ", planes,
                  " ports (planes): give the port or the device name"));
    return RailPlane{RailId{l.nic}, PlaneId{port - 1}};
  }

  // The NIC port `n` names (see NicRef and advisor.h's railyard_nic_id).
  // Errors name "<field>.host", ".rail", ".plane" or ".name_or_pci" and the value.
  [[nodiscard]] StatusOr<NicPort> resolve(const NicRef& n,
                                                std::string_view field = "nic") const {
    const topology::ClusterDescriptor<>& d = descriptor();
    if (n.host < 0 || n.host >= d.hosts())
      return invalid_field(str_cat(field, ".host"), str_cat(n.host),
                           str_cat("out of range [0, ", d.hosts(), ")"));
    if (n.rail < -1 || n.rail >= d.rails())
      return invalid_field(str_cat(field, ".rail"), str_cat(n.rail),
                           str_cat("out of range [0, ", d.rails(), ") (or -1: from name_or_pci)"));
    if (n.plane < -1 || n.plane >= d.planes())
      return invalid_field(str_cat(field, ".plane"), str_cat(n.plane),
                           str_cat("out of range [0, ", d.planes(), ") (or -1)"));
    int32_t rail = n.rail;
    int32_t plane = n.plane;
    if (!n.name_or_pci.empty()) {
      RAILYARD_ASSIGN_OR_RETURN(const Lookup l,
                                lookup(n.name_or_pci, str_cat(field, ".name_or_pci")));
      if (rail >= 0 && rail != l.nic)
        return invalid_field(str_cat(field, ".rail"), str_cat(rail),
                             str_cat("disagrees with ", field, ".name_or_pci=", n.name_or_pci,
                                     " (rail ", l.nic, ")"));
      if (l.plane >= 0 && plane >= 0 && plane != l.plane)
        return invalid_field(str_cat(field, ".plane"), str_cat(plane),
                             str_cat("disagrees with ", field, ".name_or_pci=", n.name_or_pci,
                                     " (plane ", l.plane, ")"));
      rail = l.nic;
      if (l.plane >= 0) plane = l.plane;
    } else if (rail < 0) {
      return invalid_field(str_cat(field, ".rail"), "-1", "give a rail >= 0 or name_or_pci");
    }
    if (plane < 0) {
      if (d.planes() > 1)
        return invalid_field(str_cat(field, ".plane"), "-1",
                             str_cat("the NICs have ", d.planes(), " planes (ports): give one"));
      plane = 0;
    }
    return NicPort{HostId{n.host}, NicIndex{rail}, PlaneId{plane}};
  }

  // ---- connect ---------------------------------------------------------------

  // Plans local -> remote with at most qp_budget QPs (see the header comment).
  // Errors (messages name the field and value): InvalidArgument for a port
  // outside the cluster (local.host, .rail, .plane; remote.*), qp_budget < 1,
  // base_dst_qpn >= 2^24, the same port twice, ports with no network path
  // (remote.plane, remote.rail on rail_only); FailedPrecondition when the model
  // leaves some QP without a port; ResourceExhausted when the table is full.
  // Thread-safe; allocates. The same request again returns the same id.
  [[nodiscard]] StatusOr<Connection> connect(NicPort local, NicPort remote, int32_t qp_budget,
                                                   uint32_t base_dst_qpn = kDefaultBaseDstQpn) {
    // The order of the checks is the order errors are reported in (the fuzz
    // target's expected_connect_error): ports, budget, QP number, then the pair.
    RAILYARD_RETURN_IF_ERROR(check_port("local", local));
    RAILYARD_RETURN_IF_ERROR(check_port("remote", remote));
    if (qp_budget < 1) return invalid_field("qp_budget", str_cat(qp_budget), "must be >= 1");
    if (base_dst_qpn > 0xFFFFFFu)
      return invalid_field("base_dst_qpn", str_cat(base_dst_qpn),
                           "must be < 2^24 (a 24-bit QP number)");
    RAILYARD_RETURN_IF_ERROR(check_pair(local, remote));
    const int32_t budget = std::min(qp_budget, routing::kMaxQpsPerConnection);
    const Key key = {local.host.value(),
                     local.nic.value(),
                     local.plane.value(),
                     remote.host.value(),
                     remote.nic.value(),
                     remote.plane.value(),
                     budget,
                     static_cast<int32_t>(base_dst_qpn)};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = ids_.find(key); it != ids_.end()) return records_[it->second]->view;
    }
    // Plan outside the lock: plan_connection only reads the cluster and model.
    StatusOr<routing::SprayPlan> plan = routing::advised_plan(
        descriptor(), cluster_.fabric, local, remote, budget, *model_, base_dst_qpn);
    if (!plan.ok()) return plan.status();
    return publish(key, local, remote, *plan);
  }

  // connect with the ports given as NicRefs (resolved with fields "local", "remote").
  [[nodiscard]] StatusOr<Connection> connect(const NicRef& local, const NicRef& remote,
                                                   int32_t qp_budget,
                                                   uint32_t base_dst_qpn = kDefaultBaseDstQpn) {
    RAILYARD_ASSIGN_OR_RETURN(const NicPort a, resolve(local, "local"));
    RAILYARD_ASSIGN_OR_RETURN(const NicPort b, resolve(remote, "remote"));
    return connect(a, b, qp_budget, base_dst_qpn);
  }

  // connect for QPs whose destination QP numbers are known (QP i hashes
  // dst_qpns[i]; dst_qpns.size() QPs, 1..kMaxQpsPerConnection): what a verbs
  // plugin calls once the remote's ibv_create_qp numbers arrived, so that the
  // QP-aware hash models see the real numbers, not base + i. Such a connection
  // is never merged with another (its numbers are its own): each call adds a
  // table entry. Errors: those of connect, and InvalidArgument naming
  // "dst_qpns" (empty or too many) or "dst_qpns[i]" (>= 2^24).
  [[nodiscard]] StatusOr<Connection> connect_to_qpns(NicPort local, NicPort remote,
                                                     std::span<const uint32_t> dst_qpns) {
    RAILYARD_RETURN_IF_ERROR(check_pair(local, remote));
    if (dst_qpns.empty() || std::ssize(dst_qpns) > routing::kMaxQpsPerConnection)
      return invalid_field("dst_qpns", str_cat(dst_qpns.size(), " QP numbers"),
                           str_cat("give 1 to ", routing::kMaxQpsPerConnection));
    StatusOr<routing::SprayPlan> plan = routing::plan_connection_to_qpns(
        descriptor(), cluster_.fabric, local, remote, dst_qpns, *model_);
    if (!plan.ok()) return plan.status();
    return publish(std::nullopt, local, remote, *plan);
  }

  // The source ports of `streams` TCP streams local -> remote that the hash
  // model sends over distinct paths (distinct leaf uplinks while streams <=
  // uplinks), planned like connect's QPs but on the TCP tuple the switches
  // see: `flow`'s real addresses, protocol 6, the listener's port. A socket
  // plugin binds stream i to source_ports[i] before connect(). `streams` is
  // taken as is (use agreed_qps for a count both ends derive);
  // `sport_offset` moves the port search when a planned port is taken on the
  // host. Not published in the lookup table: the plugin holds its sockets.
  // Errors: those of connect, InvalidArgument naming "streams" (outside
  // [1, kMaxQpsPerConnection]) or "flow.dst_port" (0). Allocates.
  [[nodiscard]] StatusOr<StreamPlan> plan_tcp_streams(NicPort local, NicPort remote,
                                                      int32_t streams, const TcpFlow& flow,
                                                      uint16_t sport_offset = 0) const {
    RAILYARD_RETURN_IF_ERROR(check_pair(local, remote));
    if (streams < 1 || streams > routing::kMaxQpsPerConnection)
      return invalid_field("streams", str_cat(streams),
                           str_cat("must be in [1, ", routing::kMaxQpsPerConnection, "]"));
    if (flow.dst_port == 0) return invalid_field("flow.dst_port", "0", "give the listener's port");
    routing::SprayOptions options;
    options.protocol = kTcpProtocol;
    options.dst_port = flow.dst_port;
    options.src_ip = flow.src_ip;
    options.dst_ip = flow.dst_ip;
    options.sport_offset = static_cast<uint16_t>(sport_offset & (routing::kSportCount - 1));
    RAILYARD_ASSIGN_OR_RETURN(
        const routing::SprayPlan plan,
        routing::plan_connection(descriptor(), cluster_.fabric, local, remote, streams, *model_,
                                 nullptr, options));
    StreamPlan out;
    out.streams = plan.qps;
    out.usable_uplinks = static_cast<int32_t>(plan.uplinks.size());
    for (const routing::QpRoute& q : plan.qp) {
      out.source_ports.push_back(q.sport);
      out.uplinks.push_back(q.uplink);
    }
    return out;
  }

  // ---- the local NIC as a plugin sees it ------------------------------------

  // The NIC ports behind a device name a plugin has: an RDMA device ("mlx5_9",
  // EFA's "rdmap16s27"), a netdev ("ens1f0np0"), or NCCL's merged virtual
  // device ("mlx5_0+mlx5_1": one port per part, in order). Each part's PCI
  // function is the last component of the link
  // <sysfs_root>/class/infiniband/<part>/device (else /class/net/<part>/device),
  // and its rail is:
  //  * its position in AdvisorOptions::nic_busids, when those were given;
  //  * else its rank, in bus-id order, among the PCI functions of the host's
  //    devices of the same class (every RDMA device, or every netdev with a
  //    device link): with F functions and N NICs per host, F == N gives
  //    rail = rank and plane = port - 1 (one function per NIC), F == N * planes
  //    gives rail = rank / planes and plane = rank % planes (one per plane).
  //    Bus-id order is an assumption about how rails are numbered, not a
  //    fact of the host: where the cabling says otherwise, give nic_busids.
  // `port` is NCCL's 1-based props.port (0: unknown, fine on single-plane
  // NICs). Errors: InvalidArgument naming "host", "device" or "port";
  // NotFound naming the sysfs paths tried or the bus id; FailedPrecondition
  // when the host's function count fits neither rule. Reads sysfs and
  // allocates: call it at init or connect, not per message.
  [[nodiscard]] StatusOr<std::vector<NicPort>> local_nics(
      int32_t host, std::string_view device, int32_t port = 0,
      std::string_view sysfs_root = "/sys") const {
    const topology::ClusterDescriptor<>& d = descriptor();
    if (host < 0 || host >= d.hosts())
      return invalid_field("host", str_cat(host), str_cat("out of range [0, ", d.hosts(), ")"));
    if (port < 0 || port > d.planes())
      return invalid_field("port", str_cat(port),
                           str_cat("must be in [1, ", d.planes(), "] (or 0: unknown)"));
    if (device.empty()) return invalid_field("device", "", "give a device name");
    std::vector<NicPort> out;
    for (std::string_view part : split(device, '+')) {
      if (part.empty() || part.find('/') != std::string_view::npos || part == "." || part == "..")
        return invalid_field("device", device, "not a device name (parts joined by '+')");
      RAILYARD_ASSIGN_OR_RETURN(const detail::SysfsDevice dev,
                                detail::sysfs_device(sysfs_root, part));
      int32_t rail = -1;
      int32_t plane = -1;
      if (real_busids_) {
        for (size_t i = 0; i < busids_.size(); ++i)
          if (busids_[i] == dev.busid) rail = static_cast<int32_t>(i);
        if (rail < 0)
          return not_found_error(str_cat("device=", part, ": bus id ", detail::busid_text(dev.busid),
                                         " is none of nic_busids"));
      } else {
        RAILYARD_ASSIGN_OR_RETURN(const std::vector<detail::BusId> all,
                                  detail::sysfs_class_busids(sysfs_root, dev.class_dir));
        const auto at = std::lower_bound(all.begin(), all.end(), dev.busid);
        const auto rank = static_cast<int32_t>(at - all.begin());
        const auto functions = static_cast<int32_t>(all.size());
        if (functions == d.nics_per_host()) {
          rail = rank;
        } else if (d.planes() > 1 && functions == d.nics_per_host() * d.planes()) {
          rail = rank / d.planes();
          plane = rank % d.planes();
          if (port != 0 && port != plane + 1)
            return invalid_field("port", str_cat(port),
                                 str_cat(part, " is plane ", plane, " (port ", plane + 1,
                                         ") by its rank among the host's PCI functions"));
        } else {
          return failed_precondition_error(str_cat(
              "device=", part, ": ", sysfs_root, "/class/", dev.class_dir, " lists ", functions,
              " PCI functions; the cluster has ", d.nics_per_host(), " NICs per host",
              d.planes() > 1 ? str_cat(" of ", d.planes(), " planes") : std::string(),
              ": give the NICs' bus ids in rail order (nic_busids)"));
        }
      }
      if (plane < 0) {
        if (port == 0 && d.planes() > 1)
          return invalid_field("port", "0",
                               str_cat(part, " is a PCI function of a NIC with ", d.planes(),
                                       " ports (planes): give props.port"));
        plane = port == 0 ? 0 : port - 1;
      }
      out.push_back(NicPort{HostId{host}, NicIndex{rail}, PlaneId{plane}});
    }
    return out;
  }

  // The NIC port that owns a GID or an IP address, as a verbs plugin holds
  // them (ibv_query_gid, the GID index NCCL_IB_GID_INDEX picks, or the
  // interface address of a RoCE netdev): the RDMA device and port whose sysfs
  // GID table (<sysfs_root>/class/infiniband/<dev>/ports/<port>/gids/*)
  // lists it — an IPv4 address matches its IPv4-mapped GID, as RoCEv2
  // programs it — then local_nics(host, dev, port). A socket plugin, whose
  // interfaces have no GID table, names the netdev to local_nics instead.
  // Errors: InvalidArgument naming "address" (not a GID or address); NotFound
  // naming it when no port has it; FailedPrecondition when two devices
  // have it (say which); those of local_nics. Reads sysfs: not per message.
  [[nodiscard]] StatusOr<NicPort> local_nic_by_address(int32_t host, std::string_view address,
                                                      std::string_view sysfs_root = "/sys") const {
    const std::optional<std::array<uint8_t, 16>> gid = detail::parse_gid(address);
    if (!gid)
      return invalid_field("address", address,
                           "not a GID or an IP address (fe80::1, 0000:...:0001, 10.0.0.1)");
    const std::vector<std::pair<std::string, int32_t>> owners =
        detail::sysfs_gid_owners(sysfs_root, *gid);
    if (owners.empty())
      return not_found_error(str_cat("address=", address, ": no GID of ", sysfs_root,
                                     "/class/infiniband/*/ports/*/gids/* matches"));
    if (owners.size() > 1 && owners[0].first != owners[1].first)
      return failed_precondition_error(str_cat("address=", address, ": on ", owners[0].first,
                                               " and ", owners[1].first, "; name the device"));
    RAILYARD_ASSIGN_OR_RETURN(
        const std::vector<NicPort> ports,
        local_nics(host, owners[0].first, owners[0].second, sysfs_root));
    return ports[0];
  }

  // ---- what both ends of a connection agree on ------------------------------

  // A digest of everything two ranks must share for their plans to agree: the
  // fabric (every link's ends, capacity and latency), the hash model and its
  // seed. Not the NIC bus ids, which are each host's own.
  [[nodiscard]] uint64_t digest() const noexcept { return digest_; }

  // Writes `local` and its QP budget into out[0, kEndpointBytes) (see
  // kEndpointBytes). Errors: InvalidArgument naming "out" (too small), the
  // port (local.host, ...) or "qp_budget" (< 1). No allocation on success.
  [[nodiscard]] Status encode_endpoint(NicPort local, int32_t qp_budget,
                                       std::span<std::byte> out) const {
    if (out.size() < kEndpointBytes)
      return invalid_field("out", str_cat(out.size(), " bytes"),
                           str_cat("an endpoint needs ", kEndpointBytes));
    RAILYARD_RETURN_IF_ERROR(check_port("local", local));
    if (qp_budget < 1) return invalid_field("qp_budget", str_cat(qp_budget), "must be >= 1");
    std::array<uint8_t, kEndpointBytes> b{};
    for (size_t i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(kEndpointMagic[i]);
    detail::put_le(b, 4, kEndpointFormat, 2);
    detail::put_le(b, 8, digest_, 8);
    detail::put_le(b, 16, static_cast<uint32_t>(local.host.value()), 4);
    detail::put_le(b, 20, static_cast<uint32_t>(local.nic.value()), 4);
    detail::put_le(b, 24, static_cast<uint32_t>(local.plane.value()), 4);
    detail::put_le(b, 28, static_cast<uint32_t>(qp_budget), 4);
    std::memcpy(out.data(), b.data(), kEndpointBytes);
    return ok_status();
  }

  // Reads what encode_endpoint wrote (on this or another rank). Errors:
  // InvalidArgument naming "endpoint" (too short, no magic, a port outside
  // this cluster, a budget < 1); kAborted when the format or the digest
  // differs from this advisor's: the writer described another cluster or hash
  // model. No allocation on success.
  [[nodiscard]] StatusOr<Endpoint> decode_endpoint(std::span<const std::byte> in) const {
    if (in.size() < kEndpointBytes)
      return invalid_field("endpoint", str_cat(in.size(), " bytes"),
                           str_cat("an endpoint is ", kEndpointBytes, " bytes"));
    std::array<uint8_t, kEndpointBytes> b{};
    std::memcpy(b.data(), in.data(), kEndpointBytes);
    for (size_t i = 0; i < 4; ++i)
      if (b[i] != static_cast<uint8_t>(kEndpointMagic[i]))
        return invalid_field("endpoint", detail::hex_bytes(b, 4),
                             "not a railyard endpoint (magic \"RYEP\" missing)");
    const auto format = static_cast<uint16_t>(detail::get_le(b, 4, 2));
    if (format != kEndpointFormat)
      return make_status(StatusCode::kAborted,
                         str_cat("endpoint.format=", format, ": this advisor reads format ",
                                 kEndpointFormat, " (the peer runs another railyard version)"));
    const uint64_t digest = detail::get_le(b, 8, 8);
    if (digest != digest_)
      return make_status(
          StatusCode::kAborted,
          str_cat("endpoint.digest=", detail::hex64(digest), ": the peer's cluster and hash model ",
                  "differ from this rank's (digest ", detail::hex64(digest_),
                  "); give every rank the same RAILYARD_CLUSTER, hash model and seed"));
    const auto field = [&](size_t at) { return static_cast<int32_t>(detail::get_le(b, at, 4)); };
    const NicPort port{HostId{field(16)}, NicIndex{field(20)}, PlaneId{field(24)}};
    RAILYARD_RETURN_IF_ERROR(check_port("endpoint", port));
    const int32_t budget = field(28);
    if (budget < 1)
      return invalid_field("endpoint.qp_budget", str_cat(budget), "must be >= 1");
    return Endpoint{port, budget};
  }

  // The QP count of the connection between a and b, the same whichever end
  // asks: min(both budgets, kMaxQpsPerConnection, the source-leaf uplinks of
  // a -> b and of b -> a), so 1 when they hang off one leaf. Each side then
  // connects its sending direction with this budget and gets exactly this many
  // QPs (connect's count is min(budget, its uplinks)). Errors: InvalidArgument
  // naming the port or budget ("a.host", "budget_b", ...), or a pair without a
  // network path (as connect). O(paths), no allocation.
  [[nodiscard]] StatusOr<int32_t> agreed_qps(const Endpoint& a, const Endpoint& b) const {
    RAILYARD_RETURN_IF_ERROR(check_port("a", a.port));
    RAILYARD_RETURN_IF_ERROR(check_port("b", b.port));
    if (a.qp_budget < 1) return invalid_field("budget_a", str_cat(a.qp_budget), "must be >= 1");
    if (b.qp_budget < 1) return invalid_field("budget_b", str_cat(b.qp_budget), "must be >= 1");
    RAILYARD_RETURN_IF_ERROR(check_pair(a.port, b.port));
    const topology::ClusterDescriptor<>& d = descriptor();
    return std::min({a.qp_budget, b.qp_budget, routing::kMaxQpsPerConnection,
                     routing::advised_uplinks(d, a.port, b.port),
                     routing::advised_uplinks(d, b.port, a.port)});
  }

  // ---- lookups: O(1), lock-free, no allocation, never throw ----------------

  // The source port of QP `qp` of connection `c`, or routing::kNoSourcePort (0)
  // when either is unknown.
  [[nodiscard]] uint16_t source_port(uint32_t c, uint32_t qp) const noexcept {
    const detail::ConnectionSlot* s = table_.find(c);
    return s != nullptr && qp < s->qps ? s->source_ports[qp] : routing::kNoSourcePort;
  }
  [[nodiscard]] uint16_t source_port(routing::ConnectionId c, int32_t qp) const noexcept {
    return source_port(static_cast<uint32_t>(c.value()), static_cast<uint32_t>(qp));
  }
  // The flow label giving that port, or 0 when unknown. (The plan's label is
  // always routing::flow_label_for_sport of its port, so it is not stored.)
  [[nodiscard]] uint32_t flow_label(uint32_t c, uint32_t qp) const noexcept {
    const uint16_t sport = source_port(c, qp);
    return sport == routing::kNoSourcePort ? 0 : routing::flow_label_for_sport(sport);
  }
  [[nodiscard]] uint32_t flow_label(routing::ConnectionId c, int32_t qp) const noexcept {
    return flow_label(static_cast<uint32_t>(c.value()), static_cast<uint32_t>(qp));
  }
  // QPs of connection c, 0 when unknown.
  [[nodiscard]] int32_t qps(routing::ConnectionId c) const noexcept {
    const detail::ConnectionSlot* s = table_.find(static_cast<uint32_t>(c.value()));
    return s != nullptr ? static_cast<int32_t>(s->qps) : 0;
  }
  // The whole connection, nullopt when unknown. Takes the connect mutex (not
  // for the data path).
  [[nodiscard]] std::optional<Connection> connection(routing::ConnectionId c) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (c.value() < 0 || static_cast<size_t>(c.value()) >= records_.size()) return std::nullopt;
    return records_[static_cast<size_t>(c.value())]->view;
  }
  // Heap bytes the connection table holds (slots, per-QP arrays, records and
  // the request index; not the cluster). Takes the connect mutex.
  [[nodiscard]] size_t memory_bytes() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    size_t bytes = table_.memory_bytes() + ports_.memory_bytes() +
                   records_.capacity() * sizeof(void*) +
                   ids_.size() * (sizeof(Key) + sizeof(uint32_t) + 4 * sizeof(void*));  // map nodes
    for (const auto& r : records_)
      bytes += sizeof(*r) + r->flow_labels.capacity() * sizeof(uint32_t) +
               r->uplinks.capacity() * sizeof(int32_t);
    return bytes;
  }
  // Connections published so far (ids 0 .. connections() - 1).
  [[nodiscard]] int32_t connections() const noexcept { return static_cast<int32_t>(table_.size()); }

 private:
  using Key = std::array<int32_t, 8>;
  struct Lookup {
    int32_t nic = -1;
    int32_t plane = -1;  // -1: a PCI function of a multi-plane NIC
  };

  PathAdvisor(topology::Cluster cluster, std::unique_ptr<routing::HashModel> model,
              std::vector<detail::BusId> busids, uint64_t digest)
      : cluster_(std::move(cluster)),
        model_(std::move(model)),
        busids_(std::move(busids)),
        digest_(digest) {}

  [[nodiscard]] Status check_port(std::string_view side, NicPort p) const {
    const topology::ClusterDescriptor<>& d = descriptor();
    auto check = [&](std::string_view field, int32_t v, int32_t n) {
      if (v >= 0 && v < n) return ok_status();
      return invalid_field(str_cat(side, ".", field), str_cat(v),
                           str_cat("out of range [0, ", n, ")"));
    };
    RAILYARD_RETURN_IF_ERROR(check("host", p.host.value(), d.hosts()));
    RAILYARD_RETURN_IF_ERROR(check("rail", p.nic.value(), d.rails()));
    return check("plane", p.plane.value(), d.planes());
  }

  // Both ports in the cluster, distinct, with a network path between them.
  [[nodiscard]] Status check_pair(NicPort local, NicPort remote) const {
    RAILYARD_RETURN_IF_ERROR(check_port("local", local));
    RAILYARD_RETURN_IF_ERROR(check_port("remote", remote));
    if (local == remote)
      return invalid_field("remote", routing::port_name(remote), "the same NIC port as local");
    if (local.plane != remote.plane)
      return invalid_field("remote.plane", str_cat(remote.plane.value()),
                           str_cat("no network path from local.plane=", local.plane.value(),
                                   " (a flow never changes plane)"));
    if (descriptor().path_count(local, remote) == 0)
      return invalid_field("remote.rail", str_cat(remote.nic.value()),
                           str_cat("no network path from local.rail=", local.nic.value(),
                                   " (rail_only: cross-rail traffic goes over NVLink first)"));
    return ok_status();
  }

  // Stores a plan and publishes its id; `key` (when given) makes the same
  // request return this entry again.
  [[nodiscard]] StatusOr<Connection> publish(std::optional<Key> key, NicPort local,
                                             NicPort remote, const routing::SprayPlan& plan) {
    auto record = std::make_unique<detail::ConnectionRecord>();
    const auto k = static_cast<size_t>(plan.qps);
    std::vector<uint16_t> ports;
    ports.reserve(k);
    record->flow_labels.reserve(k);
    record->uplinks.reserve(k);
    for (const routing::QpRoute& q : plan.qp) {
      ports.push_back(q.sport);
      record->flow_labels.push_back(q.flow_label);
      record->uplinks.push_back(q.uplink);
    }
    std::vector<int32_t> distinct = record->uplinks;
    std::sort(distinct.begin(), distinct.end());
    Connection& c = record->view;
    c.local = local;
    c.remote = remote;
    c.qps = plan.qps;
    c.usable_uplinks = plan.usable_uplinks();
    c.uplinks_used =
        static_cast<int32_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
    c.flow_labels = record->flow_labels;
    c.uplinks = record->uplinks;

    const std::lock_guard<std::mutex> lock(mutex_);
    if (key) {
      if (auto it = ids_.find(*key); it != ids_.end()) return records_[it->second]->view;  // a race
    }
    if (table_.size() >= detail::SlotTable::kCapacity)
      return resource_exhausted_error(
          str_cat("connections=", table_.size(), ": the advisor's table is full"));
    c.id = routing::ConnectionId{static_cast<int32_t>(table_.size())};
    // Everything that can throw first; nothing after the slot is published does.
    if (records_.size() == records_.capacity()) records_.reserve(2 * records_.size() + 64);
    table_.prepare_append();
    const uint16_t* stored = ports_.add(ports);
    c.source_ports = std::span<const uint16_t>(stored, k);
    records_.push_back(std::move(record));
    const uint32_t id = table_.append({stored, static_cast<uint32_t>(k)});
    if (key) ids_.emplace(*key, id);
    return records_.back()->view;
  }

  // A device name or PCI name -> NIC and plane (-1: PCI name, multi-plane).
  [[nodiscard]] StatusOr<Lookup> lookup(std::string_view name, std::string_view field) const {
    const topology::ClusterDescriptor<>& d = descriptor();
    const int32_t planes = d.planes();
    const int32_t devices = d.nics_per_host() * planes;
    if (const std::optional<detail::DeviceName> dev = detail::parse_device_name(name)) {
      if (dev->dev < 0) return invalid_field(field, name, "not a device name mlx5_<dev>[:<port>]");
      if (dev->dev >= devices)
        return not_found_error(str_cat(field, "=", name, ": no such NIC port (mlx5_0 .. mlx5_",
                                           devices - 1, " on hosts of ", d.nics_per_host(),
                                           " NICs x ", planes, " planes)"));
      const auto nic = static_cast<int32_t>(dev->dev / planes);
      const auto plane = static_cast<int32_t>(dev->dev % planes);
      if (dev->port != 0 && dev->port != plane + 1)
        return invalid_field(field, name,
                             str_cat("mlx5_", dev->dev, " is port ", plane + 1, " of NIC ", nic,
                                     " (dev = nic * planes + port - 1)"));
      return Lookup{nic, plane};
    }
    const std::optional<detail::BusId> id = detail::parse_busid(name);
    if (!id)
      return invalid_field(field, name,
                           "neither a device name mlx5_<dev>[:<port>] nor a PCI bus id "
                           "dddd:bb:dd.f (or a sysfs path ending in one)");
    for (size_t i = 0; i < busids_.size(); ++i)
      if (busids_[i] == *id) return Lookup{static_cast<int32_t>(i), planes == 1 ? 0 : -1};
    std::vector<std::string_view> known;
    for (const detail::BusId& b : busids_) known.push_back(detail::busid_text(b));
    return not_found_error(
        str_cat(field, "=", name, ": bus id ", detail::busid_text(*id),
                " is no NIC of this cluster's hosts (NIC bus ids: ", join(known, ", "), ")"));
  }

  topology::Cluster cluster_;
  std::unique_ptr<routing::HashModel> model_;
  std::vector<detail::BusId> busids_;  // per NIC index
  uint64_t digest_ = 0;                // advisor_digest: what both ends must share
  bool real_busids_ = false;           // busids_ are the host's (nic_busids), not nccl_xml's
  mutable std::mutex mutex_;           // guards ids_, records_ and table_ appends
  std::map<Key, uint32_t> ids_;  // connect path only: O(log n) is plenty
  std::vector<std::unique_ptr<detail::ConnectionRecord>> records_;
  detail::PortArena ports_;
  detail::SlotTable table_;
};

}  // namespace railyard::plugin

#endif  // RAILYARD_PLUGIN_ADVISOR_HPP_

// ---- the C API (advisor.h), in the one translation unit that asks for it ----
#if defined(RAILYARD_ADVISOR_IMPLEMENTATION) && !defined(RAILYARD_PLUGIN_ADVISOR_IMPLEMENTED_)
#define RAILYARD_PLUGIN_ADVISOR_IMPLEMENTED_

#include <cstring>
#include <exception>
#include <new>

struct railyard_advisor {
  std::unique_ptr<railyard::plugin::PathAdvisor> advisor;
  railyard_advisor_log_fn log = nullptr;
  void* log_user = nullptr;
};

namespace railyard::plugin::detail {

inline char* advisor_last_error_buffer() noexcept {
  thread_local char buffer[RAILYARD_ADVISOR_ERROR_LEN] = {};
  return buffer;
}

// Copies `text` into dst[0, len) NUL-terminated, truncating; no allocation.
inline void advisor_copy(char* dst, size_t len, std::string_view text) noexcept {
  if (dst == nullptr || len == 0) return;
  const size_t n = std::min(len - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

inline int advisor_code(const railyard::Status& s) noexcept {
  switch (s.code()) {
    case StatusCode::kOk:
      return RAILYARD_ADVISOR_OK;
    case StatusCode::kInvalidArgument:
      return RAILYARD_ADVISOR_EINVAL;
    case StatusCode::kNotFound:
      return RAILYARD_ADVISOR_ENOTFOUND;
    case StatusCode::kFailedPrecondition:
    case StatusCode::kUnavailable:
      return RAILYARD_ADVISOR_ENOPATH;
    case StatusCode::kResourceExhausted:
      return RAILYARD_ADVISOR_ENOMEM;
    case StatusCode::kAborted:
      return RAILYARD_ADVISOR_EMISMATCH;
    default:
      return RAILYARD_ADVISOR_EINTERNAL;
  }
}

// Records a failure: the thread's buffer, `extra` (create's err, connect's
// out->error) and the log callback. Returns `code`. No allocation.
inline int advisor_fail(railyard_advisor_log_fn log, void* user, int code, std::string_view message,
                        char* extra = nullptr, size_t extra_len = 0) noexcept {
  char* buffer = advisor_last_error_buffer();
  advisor_copy(buffer, RAILYARD_ADVISOR_ERROR_LEN, message);
  advisor_copy(extra, extra_len, message);
  if (log != nullptr) log(user, 2, buffer);
  return code;
}

// create's codes: whatever it was given that is wrong is a setup error.
inline int advisor_create_code(const railyard::Status& s) noexcept {
  const int code = advisor_code(s);
  return code == RAILYARD_ADVISOR_ENOMEM || code == RAILYARD_ADVISOR_EINTERNAL
             ? code
             : RAILYARD_ADVISOR_ECLUSTER;
}

// Runs f (returning railyard::Status) with every exception turned into a code.
template <class F>
int advisor_guard(railyard_advisor_log_fn log, void* user, char* extra, size_t extra_len, F&& f,
                  int (*code_of)(const railyard::Status&) noexcept = advisor_code) noexcept {
  try {
    const railyard::Status s = f();
    if (s.ok()) return RAILYARD_ADVISOR_OK;
    return advisor_fail(log, user, code_of(s), railyard::message_of(s), extra, extra_len);
  } catch (const std::bad_alloc&) {
    return advisor_fail(log, user, RAILYARD_ADVISOR_ENOMEM, "out of memory", extra, extra_len);
  } catch (const std::exception& e) {
    return advisor_fail(log, user, RAILYARD_ADVISOR_EINTERNAL, e.what(), extra, extra_len);
  } catch (...) {
    return advisor_fail(log, user, RAILYARD_ADVISOR_EINTERNAL, "unknown exception", extra,
                        extra_len);
  }
}

inline std::string_view advisor_text(const char* s) noexcept {
  return s == nullptr ? std::string_view() : std::string_view(s);
}

inline void advisor_write_nic(railyard_nic_id& out, NicPort p) noexcept {
  out.host = p.host.value();
  out.rail = p.nic.value();
  out.plane = p.plane.value();
  out.name_or_pci = nullptr;
}

}  // namespace railyard::plugin::detail

namespace railyard::plugin::detail {
// The frame of a C call on an existing advisor: its log, the null check, the
// guard that turns Status and exceptions into codes and messages.
template <class F>
int advisor_call(const railyard_advisor* advisor, char* extra, size_t extra_len, F&& f) noexcept {
  railyard_advisor_log_fn log = advisor != nullptr ? advisor->log : nullptr;
  void* user = advisor != nullptr ? advisor->log_user : nullptr;
  return advisor_guard(log, user, extra, extra_len, [&]() -> railyard::Status {
    if (advisor == nullptr) return railyard::invalid_field("advisor", "(null)", "required");
    return f(*advisor->advisor);
  });
}
inline NicRef advisor_ref(const railyard_nic_id& n) noexcept {
  return NicRef{n.host, n.rail, n.plane, advisor_text(n.name_or_pci)};
}
inline void advisor_write_plan(railyard_conn_plan& out, const Connection& c) noexcept {
  out.connection = static_cast<uint32_t>(c.id.value());
  out.qps = c.qps;
  out.usable_uplinks = c.usable_uplinks;
  out.uplinks_used = c.uplinks_used;
  advisor_write_nic(out.local, c.local);
  advisor_write_nic(out.remote, c.remote);
  for (size_t i = 0; i < c.source_ports.size(); ++i) {
    out.source_port[i] = c.source_ports[i];
    out.flow_label[i] = c.flow_labels[i];
    out.uplink[i] = c.uplinks[i];
  }
}
// The frame of the calls that plan a connection into a railyard_conn_plan:
// the plan zeroed first, its error buffer filled on failure, the ports checked
// for null; plan(advisor) returns the Connection to write.
template <class F>
int advisor_plan_call(railyard_advisor* advisor, const railyard_nic_id* local,
                      const railyard_nic_id* remote, railyard_conn_plan* out, F&& plan) noexcept {
  if (out != nullptr) std::memset(out, 0, sizeof *out);
  return advisor_call(
      advisor, out != nullptr ? out->error : nullptr, out != nullptr ? sizeof out->error : 0,
      [&](PathAdvisor& a) -> railyard::Status {
        if (local == nullptr) return railyard::invalid_field("local", "(null)", "required");
        if (remote == nullptr) return railyard::invalid_field("remote", "(null)", "required");
        if (out == nullptr) return railyard::invalid_field("out", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const Connection c, plan(a));
        advisor_write_plan(*out, c);
        return railyard::ok_status();
      });
}

}  // namespace railyard::plugin::detail

extern "C" {

RAILYARD_ADVISOR_API railyard_advisor* railyard_advisor_create_ex(
    const railyard_advisor_options* options, char* err, size_t err_len) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  railyard_advisor* out = nullptr;
  railyard_advisor_log_fn log = options != nullptr ? options->log : nullptr;
  void* user = options != nullptr ? options->log_user : nullptr;
  if (options == nullptr) {
    d::advisor_fail(log, user, RAILYARD_ADVISOR_EINVAL, "options=(null): required", err, err_len);
    return nullptr;
  }
  const int code = d::advisor_guard(
      log, user, err, err_len,
      [&]() -> railyard::Status {
        railyard::plugin::AdvisorOptions o;
        o.cluster = d::advisor_text(options->cluster);
        o.hash_model = options->hash_model == nullptr || *options->hash_model == '\0'
                           ? "crc32"
                           : options->hash_model;
        o.hash_seed = options->hash_seed;
        if (options->nic_busids != nullptr) {
          if (options->nic_busid_count < 1)
            return railyard::invalid_field("nic_busid_count",
                                           railyard::str_cat(options->nic_busid_count),
                                           "must be >= 1 when nic_busids is set");
          for (int32_t i = 0; i < options->nic_busid_count; ++i) {
            if (options->nic_busids[i] == nullptr)
              return railyard::invalid_field(railyard::str_cat("nic_busids[", i, "]"), "(null)",
                                             "not a PCI bus id dddd:bb:dd.f");
            o.nic_busids.emplace_back(options->nic_busids[i]);
          }
        }
        RAILYARD_ASSIGN_OR_RETURN(auto advisor, railyard::plugin::PathAdvisor::create(o));
        out = new railyard_advisor{std::move(advisor), log, user};
        if (log != nullptr) {
          const std::string hello = railyard::str_cat(
              "railyard advisor: cluster ",
              railyard::topology::to_spec_string(out->advisor->descriptor().spec()), ", hash ",
              out->advisor->hash_model().name(), " seed ", o.hash_seed);
          log(user, 3, hello.c_str());
        }
        return railyard::ok_status();
      },
      d::advisor_create_code);
  if (code == RAILYARD_ADVISOR_OK) {
    d::advisor_copy(err, err_len, "");
    return out;
  }
  delete out;
  return nullptr;
}

RAILYARD_ADVISOR_API railyard_advisor* railyard_advisor_create(
    const char* cluster_spec_or_null, const char* hash_model, uint32_t hash_seed, char* err,
    size_t err_len) RAILYARD_ADVISOR_NOEXCEPT {
  railyard_advisor_options o;
  std::memset(&o, 0, sizeof o);
  o.cluster = cluster_spec_or_null;
  o.hash_model = hash_model;
  o.hash_seed = hash_seed;
  return railyard_advisor_create_ex(&o, err, err_len);
}

RAILYARD_ADVISOR_API void railyard_advisor_destroy(railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT {
  delete advisor;
}

RAILYARD_ADVISOR_API int railyard_advisor_connect_ex(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int qp_budget, uint32_t base_dst_qpn, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_plan_call(advisor, local, remote, out, [&](railyard::plugin::PathAdvisor& a) {
    return a.connect(d::advisor_ref(*local), d::advisor_ref(*remote), qp_budget, base_dst_qpn);
  });
}

RAILYARD_ADVISOR_API int railyard_advisor_connect(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int qp_budget, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT {
  return railyard_advisor_connect_ex(advisor, local, remote, qp_budget,
                                     railyard::plugin::kDefaultBaseDstQpn, out);
}

RAILYARD_ADVISOR_API int railyard_advisor_connect_qpns(
    railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    const uint32_t* dst_qpns, int qps, railyard_conn_plan* out) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_plan_call(
      advisor, local, remote, out,
      [&](railyard::plugin::PathAdvisor& a) -> railyard::StatusOr<railyard::plugin::Connection> {
        if (qps < 1 || qps > RAILYARD_ADVISOR_MAX_QPS)
          return railyard::invalid_field("qps", railyard::str_cat(qps),
                                         railyard::str_cat("must be in [1, ",
                                                           RAILYARD_ADVISOR_MAX_QPS, "]"));
        if (dst_qpns == nullptr) return railyard::invalid_field("dst_qpns", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort l,
                                  a.resolve(d::advisor_ref(*local), "local"));
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort r,
                                  a.resolve(d::advisor_ref(*remote), "remote"));
        return a.connect_to_qpns(
            l, r, std::span<const uint32_t>(dst_qpns, static_cast<size_t>(qps)));
      });
}

RAILYARD_ADVISOR_API int railyard_advisor_local_nics(const railyard_advisor* advisor, int host,
                                                     const char* device, int port,
                                                     const char* sysfs_root, railyard_nic_id* out,
                                                     int max_out) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  int count = 0;
  const int rc = d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& a) -> railyard::Status {
        if (device == nullptr) return railyard::invalid_field("device", "(null)", "required");
        if (out == nullptr && max_out > 0)
          return railyard::invalid_field("out", "(null)", "required");
        const char* root = sysfs_root != nullptr && *sysfs_root != '\0' ? sysfs_root : "/sys";
        RAILYARD_ASSIGN_OR_RETURN(const std::vector<railyard::NicPort> ports,
                                  a.local_nics(host, device, port, root));
        if (std::ssize(ports) > max_out)
          return railyard::invalid_field("max_out", railyard::str_cat(max_out),
                                         railyard::str_cat(device, " has ", ports.size(), " parts"));
        for (const railyard::NicPort& p : ports) d::advisor_write_nic(out[count++], p);
        return railyard::ok_status();
      });
  return rc == RAILYARD_ADVISOR_OK ? count : rc;
}

RAILYARD_ADVISOR_API int railyard_advisor_plan_tcp_streams(
    const railyard_advisor* advisor, const railyard_nic_id* local, const railyard_nic_id* remote,
    int streams, uint32_t src_ip, uint32_t dst_ip, uint16_t dst_port, uint16_t sport_offset,
    uint16_t* ports, int32_t* uplinks) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& a) -> railyard::Status {
        if (local == nullptr) return railyard::invalid_field("local", "(null)", "required");
        if (remote == nullptr) return railyard::invalid_field("remote", "(null)", "required");
        if (ports == nullptr) return railyard::invalid_field("ports", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort l, a.resolve(d::advisor_ref(*local), "local"));
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort r,
                                  a.resolve(d::advisor_ref(*remote), "remote"));
        RAILYARD_ASSIGN_OR_RETURN(
            const railyard::plugin::StreamPlan plan,
            a.plan_tcp_streams(l, r, streams, railyard::plugin::TcpFlow{src_ip, dst_ip, dst_port},
                               sport_offset));
        for (int32_t i = 0; i < plan.streams; ++i) {
          ports[i] = plan.source_ports[static_cast<size_t>(i)];
          if (uplinks != nullptr) uplinks[i] = plan.uplinks[static_cast<size_t>(i)];
        }
        return railyard::ok_status();
      });
}

RAILYARD_ADVISOR_API int railyard_advisor_local_nic_by_address(const railyard_advisor* advisor,
                                                               int host, const char* address,
                                                               const char* sysfs_root,
                                                               railyard_nic_id* out)
    RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& a) -> railyard::Status {
        if (address == nullptr) return railyard::invalid_field("address", "(null)", "required");
        if (out == nullptr) return railyard::invalid_field("out", "(null)", "required");
        const char* root = sysfs_root != nullptr && *sysfs_root != '\0' ? sysfs_root : "/sys";
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort p,
                                  a.local_nic_by_address(host, address, root));
        d::advisor_write_nic(*out, p);
        return railyard::ok_status();
      });
}

RAILYARD_ADVISOR_API uint64_t railyard_advisor_digest(const railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT {
  return advisor != nullptr ? advisor->advisor->digest() : 0;
}

RAILYARD_ADVISOR_API int railyard_advisor_endpoint_encode(const railyard_advisor* advisor,
                                                          const railyard_nic_id* local,
                                                          int qp_budget, void* out,
                                                          size_t out_len) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& a) -> railyard::Status {
        if (local == nullptr) return railyard::invalid_field("local", "(null)", "required");
        if (out == nullptr) return railyard::invalid_field("out", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort l,
                                  a.resolve(d::advisor_ref(*local), "local"));
        return a.encode_endpoint(l, qp_budget,
                                 std::span<std::byte>(static_cast<std::byte*>(out), out_len));
      });
}

RAILYARD_ADVISOR_API int railyard_advisor_endpoint_decode(const railyard_advisor* advisor,
                                                          const void* in, size_t in_len,
                                                          railyard_nic_id* nic,
                                                          int* qp_budget) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  return d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& a) -> railyard::Status {
        if (in == nullptr) return railyard::invalid_field("in", "(null)", "required");
        if (nic == nullptr) return railyard::invalid_field("nic", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const railyard::plugin::Endpoint e,
                                  a.decode_endpoint(std::span<const std::byte>(
                                      static_cast<const std::byte*>(in), in_len)));
        d::advisor_write_nic(*nic, e.port);
        if (qp_budget != nullptr) *qp_budget = e.qp_budget;
        return railyard::ok_status();
      });
}

RAILYARD_ADVISOR_API int railyard_advisor_agreed_qps(const railyard_advisor* advisor,
                                                     const railyard_nic_id* a, int budget_a,
                                                     const railyard_nic_id* b,
                                                     int budget_b) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  int32_t qps = 0;
  const int rc = d::advisor_call(
      advisor, nullptr, 0, [&](const railyard::plugin::PathAdvisor& adv) -> railyard::Status {
        if (a == nullptr) return railyard::invalid_field("a", "(null)", "required");
        if (b == nullptr) return railyard::invalid_field("b", "(null)", "required");
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort pa, adv.resolve(d::advisor_ref(*a), "a"));
        RAILYARD_ASSIGN_OR_RETURN(const railyard::NicPort pb, adv.resolve(d::advisor_ref(*b), "b"));
        RAILYARD_ASSIGN_OR_RETURN(qps, adv.agreed_qps({pa, budget_a}, {pb, budget_b}));
        return railyard::ok_status();
      });
  return rc == RAILYARD_ADVISOR_OK ? qps : rc;
}

RAILYARD_ADVISOR_API uint16_t railyard_advisor_source_port(const railyard_advisor* advisor,
                                                           uint32_t connection,
                                                           uint32_t qp) RAILYARD_ADVISOR_NOEXCEPT {
  return advisor == nullptr ? 0 : advisor->advisor->source_port(connection, qp);
}

RAILYARD_ADVISOR_API uint32_t railyard_advisor_flow_label(const railyard_advisor* advisor,
                                                          uint32_t connection,
                                                          uint32_t qp) RAILYARD_ADVISOR_NOEXCEPT {
  return advisor == nullptr ? 0 : advisor->advisor->flow_label(connection, qp);
}

RAILYARD_ADVISOR_API int railyard_advisor_qps(const railyard_advisor* advisor,
                                              uint32_t connection) RAILYARD_ADVISOR_NOEXCEPT {
  return advisor == nullptr ? 0
                            : advisor->advisor->qps(railyard::routing::ConnectionId{
                                  static_cast<int32_t>(connection)});
}

RAILYARD_ADVISOR_API uint32_t railyard_advisor_connections(const railyard_advisor* advisor)
    RAILYARD_ADVISOR_NOEXCEPT {
  return advisor == nullptr ? 0 : static_cast<uint32_t>(advisor->advisor->connections());
}

RAILYARD_ADVISOR_API int railyard_advisor_rail_plane_port(const railyard_advisor* advisor,
                                                          const char* nic_name_or_pci, int port,
                                                          int* rail,
                                                          int* plane) RAILYARD_ADVISOR_NOEXCEPT {
  namespace d = railyard::plugin::detail;
  railyard_advisor_log_fn log = advisor != nullptr ? advisor->log : nullptr;
  void* user = advisor != nullptr ? advisor->log_user : nullptr;
  return d::advisor_guard(log, user, nullptr, 0, [&]() -> railyard::Status {
    using railyard::invalid_field;
    if (advisor == nullptr) return railyard::invalid_field("advisor", "(null)", "required");
    if (nic_name_or_pci == nullptr) return railyard::invalid_field("nic_name_or_pci", "(null)", "required");
    if (rail == nullptr) return railyard::invalid_field("rail", "(null)", "required");
    if (plane == nullptr) return railyard::invalid_field("plane", "(null)", "required");
    RAILYARD_ASSIGN_OR_RETURN(const railyard::plugin::RailPlane rp,
                              advisor->advisor->rail_plane(nic_name_or_pci, port));
    *rail = rp.rail.value();
    *plane = rp.plane.value();
    return railyard::ok_status();
  });
}

RAILYARD_ADVISOR_API int railyard_advisor_rail_plane(const railyard_advisor* advisor,
                                                     const char* nic_name_or_pci, int* rail,
                                                     int* plane) RAILYARD_ADVISOR_NOEXCEPT {
  return railyard_advisor_rail_plane_port(advisor, nic_name_or_pci, 0, rail, plane);
}

RAILYARD_ADVISOR_API const char* railyard_advisor_last_error(void) RAILYARD_ADVISOR_NOEXCEPT {
  return railyard::plugin::detail::advisor_last_error_buffer();
}

RAILYARD_ADVISOR_API const char* railyard_advisor_strerror(int status) RAILYARD_ADVISOR_NOEXCEPT {
  switch (status) {
    case RAILYARD_ADVISOR_OK:
      return "ok";
    case RAILYARD_ADVISOR_EINVAL:
      return "invalid argument";
    case RAILYARD_ADVISOR_ENOTFOUND:
      return "no such NIC";
    case RAILYARD_ADVISOR_ECLUSTER:
      return "cluster missing or invalid";
    case RAILYARD_ADVISOR_ENOPATH:
      return "no usable path";
    case RAILYARD_ADVISOR_ENOMEM:
      return "out of memory";
    case RAILYARD_ADVISOR_EINTERNAL:
      return "internal error";
    case RAILYARD_ADVISOR_EMISMATCH:
      return "peer describes another cluster";
    default:
      return "unknown status";
  }
}

}  // extern "C"

#endif  // RAILYARD_ADVISOR_IMPLEMENTATION
