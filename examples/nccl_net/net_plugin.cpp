// libnccl-net-railyard.so — railyard's NCCL net plugin: NCCL's point-to-point
// transport over TCP sockets, with each connection striped over K TCP streams
// whose source ports railyard's path advisor chose, so that the switches'
// ECMP hash sends the K streams over K different paths.
//
//   export NCCL_NET_PLUGIN=railyard RAILYARD_CLUSTER=h100-1024-2to1 RAILYARD_HOST=gpu-b018
//   NCCL_SOCKET_IFNAME=eth NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=NET torchrun ...
//
// Exports exactly the five data symbols NCCL 2.22-2.30 probe (ncclNetPlugin_v12
// ... _v8; railyard/plugin/nccl_net_abi.hpp cites NCCL's headers). Like the
// tuner it is built with RAILYARD_STANDALONE_STATUS, hidden visibility and a
// version script: it needs only libc, libstdc++ and libm, and every entry
// point returns an ncclResult_t — it never throws into NCCL, never aborts and
// never raises SIGPIPE (MSG_NOSIGNAL).
//
// What a connection does (docs/net-plugin.md#railyard-net-plugin):
//  * listen(dev): a TCP listener on the device's IPv4 address. The 128-byte
//    handle carries railyard's endpoint (host, rail, plane, stream budget and
//    the cluster digest; advisor.hpp) at 0, the address at 32 and the port at
//    36 (network byte order). Bytes 40.. are the connecting side's scratch:
//    NCCL hands the same handle to every connect() retry, as its own socket
//    transport relies on.
//  * connect(dev, handle): K = agreed_qps(local endpoint, remote endpoint),
//    the count both ends derive alike; PathAdvisor::plan_tcp_streams plans K
//    source ports on the tuple the switches hash (the two real addresses,
//    TCP, the listener's port); each stream's socket is bound to its port
//    before connect(). A port taken on this host moves the whole search
//    (sport_offset += 4099, 8 tries). Each stream opens with a 56-byte hello:
//    "RYNS", version, stream index, K, a connection nonce, the connector's
//    endpoint.
//  * accept(listen): collects the K streams of one nonce and checks the
//    connector's digest and K against its own agreed_qps — a disagreement
//    fails the connection with both values in the message, never silently.
//  * A message of S bytes travels as a 16-byte header (size, tag) on stream 0
//    and n = clamp(ceil(S / 64 KiB), 1, K) slices of ceil(S / n) bytes, slice
//    i on stream i. Both ends derive the slices from S; each stream is a FIFO
//    of the slices it carries, so no per-slice header is needed.
//  * test() progresses every stream of the request's comm with non-blocking
//    send/recv straight from and into the caller's buffer (no copies, no
//    threads, no allocation per message).
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/parse.hpp"
#include "railyard/plugin/advisor.hpp"
#include "railyard/plugin/nccl_net_abi.hpp"
#include "railyard/topology/host_lookup.hpp"
#include "railyard/topology/node_names.hpp"

namespace {

namespace nccl = railyard::plugin::nccl;
namespace rp = railyard::plugin;
using railyard::NicPort;
using nccl::Result;

constexpr int kMaxStreams = 64;  // NCCL's socket transport caps its sockets at 64 too
constexpr int kDefaultStreams = 4;
constexpr size_t kMinSlice = 64 * 1024;
constexpr size_t kHelloBytes = 56;
constexpr size_t kHeaderBytes = 16;
constexpr uint32_t kHeaderMagic = 0x52594D48;  // "RYMH"
constexpr int kPortRetries = 8;
constexpr uint16_t kPortRetryStep = 4099;  // prime: walks the 14-bit space
constexpr size_t kHandleAddrAt = rp::kEndpointBytes;  // 32
constexpr size_t kHandleScratchAt = 40;
constexpr uint64_t kScratchMagic = 0x5259434F4E4E4543ULL;  // "RYCONNEC"

// ---- logging ------------------------------------------------------------------

nccl::Logger g_log = nullptr;

void log_line(nccl::LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void log_line(nccl::LogLevel level, const char* fmt, ...) {
  if (g_log == nullptr) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log(level, nccl::kLogNet | nccl::kLogInit, __FILE__, __LINE__, "NET/railyard: %s", buf);
}
#define RY_WARN(...) log_line(nccl::LogLevel::kWarn, __VA_ARGS__)
#define RY_INFO(...) log_line(nccl::LogLevel::kInfo, __VA_ARGS__)

// ---- byte order helpers for the wire formats ---------------------------------

void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

std::string msg(const railyard::Status& s) { return std::string(railyard::message_of(s)); }

std::string ipv4_text(uint32_t ip_host_order) {
  char buf[INET_ADDRSTRLEN] = {};
  const in_addr a{htonl(ip_host_order)};
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

// ---- the process-wide state: cluster, this host, devices -----------------------

struct Device {
  std::string ifname;
  uint32_t ip = 0;  // host byte order
  NicPort port;
  std::string pci_path;  // empty: no PCI device (lo, veth)
  int speed_mbps = 0;
};

struct State {
  std::unique_ptr<rp::PathAdvisor> advisor;
  int32_t host = -1;
  int32_t budget = kDefaultStreams;
  std::vector<Device> devices;
};

std::mutex g_init_mutex;
bool g_init_done = false;
Result g_init_result = Result::kSuccess;
State* g_state = nullptr;  // never freed: comms may outlive a finalize of another comm

// NCCL_SOCKET_IFNAME: comma-separated prefixes, '^' excludes, '=' exact names
// (NCCL's src/misc/socket.cc matchIfList).
bool interface_selected(std::string_view name, const char* spec) {
  if (spec == nullptr || *spec == '\0') return name.substr(0, 2) != "lo" && name.substr(0, 6) != "docker";
  std::string_view s(spec);
  bool exclude = false;
  if (!s.empty() && s.front() == '^') {
    exclude = true;
    s.remove_prefix(1);
  }
  bool exact = false;
  if (!s.empty() && s.front() == '=') {
    exact = true;
    s.remove_prefix(1);
  }
  bool match = false;
  for (std::string_view item : railyard::split(s, ',')) {
    if (item.empty()) continue;
    if (exact ? name == item : name.substr(0, item.size()) == item) match = true;
  }
  return exclude ? !match : match;
}

railyard::Status parse_rails(std::string_view text, std::string_view ifname, int32_t& rail,
                             int32_t& plane) {
  for (std::string_view item : railyard::split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return railyard::invalid_field("RAILYARD_NET_RAILS", text, "expected IFNAME=RAIL[.PLANE],...");
    if (item.substr(0, eq) != ifname) continue;
    std::string_view value = item.substr(eq + 1);
    const size_t dot = value.find('.');
    auto r = railyard::parse_int_in("RAILYARD_NET_RAILS rail", value.substr(0, dot), 0, 1 << 20);
    if (!r.ok()) return r.status();
    rail = static_cast<int32_t>(*r);
    plane = 0;
    if (dot != std::string_view::npos) {
      auto p = railyard::parse_int_in("RAILYARD_NET_RAILS plane", value.substr(dot + 1), 0, 1 << 20);
      if (!p.ok()) return p.status();
      plane = static_cast<int32_t>(*p);
    }
    return railyard::ok_status();
  }
  return railyard::not_found_error(std::string(ifname));
}

// Builds the state from the environment; an error names the variable or the
// device and leaves NCCL free to use its own transports.
Result build_state() {
  auto fail = [](const std::string& what) {
    RY_WARN("%s", what.c_str());
    return Result::kInvalidUsage;
  };
  auto state = std::make_unique<State>();
  rp::AdvisorOptions options;
  if (const char* model = std::getenv("RAILYARD_HASH_MODEL")) options.hash_model = model;
  if (const char* seed = std::getenv("RAILYARD_HASH_SEED")) {
    auto v = railyard::parse_int_in("RAILYARD_HASH_SEED", seed, 0, 0xFFFFFFFFLL);
    if (!v.ok()) return fail(msg(v.status()));
    options.hash_seed = static_cast<uint32_t>(*v);
  }
  auto advisor = rp::PathAdvisor::create(options);
  if (!advisor.ok()) return fail(msg(advisor.status()));
  state->advisor = std::move(*advisor);
  const railyard::topology::ClusterDescriptor<>& d = state->advisor->descriptor();

  // This host: RAILYARD_HOST as an index or a node name, else the machine's
  // own short hostname, named by RAILYARD_NODE_PATTERN (railyard's default
  // node{host:04} otherwise) -- so one environment serves every host.
  const char* pattern = std::getenv("RAILYARD_NODE_PATTERN");
  auto namer = railyard::topology::NodeNamer::parse(
      pattern != nullptr ? std::string_view(pattern) : railyard::topology::kDefaultNodePattern);
  if (!namer.ok()) return fail("RAILYARD_NODE_PATTERN: " + msg(namer.status()));
  if (railyard::Status s = namer->check(d); !s.ok())
    return fail("RAILYARD_NODE_PATTERN: " + msg(s));
  const std::vector<std::string> names = namer->names(d);
  std::string host;
  std::string field = "RAILYARD_HOST";
  if (const char* given = std::getenv("RAILYARD_HOST")) {
    host = given;
  } else {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
      return fail(std::string("RAILYARD_HOST is not set and gethostname failed: ") +
                  std::strerror(errno));
    host = std::string(buf).substr(0, std::string(buf).find('.'));
    field = "hostname";
  }
  auto h = railyard::topology::resolve_hosts(field, host, names);
  if (!h.ok())
    return fail(msg(h.status()) + (field == "hostname"
                                       ? "; set RAILYARD_HOST (an index or a node name) or "
                                         "RAILYARD_NODE_PATTERN"
                                       : ""));
  if (h->size() != 1)
    return fail(field + "=" + host + ": names " + std::to_string(h->size()) + " hosts; give one");
  state->host = h->front().value();

  const char* streams = std::getenv("RAILYARD_NET_STREAMS");
  const char* nsocks = std::getenv("NCCL_NSOCKS_PERTHREAD");
  const char* nthreads = std::getenv("NCCL_SOCKET_NTHREADS");
  if (streams != nullptr) {
    auto k = railyard::parse_int_in("RAILYARD_NET_STREAMS", streams, 1, kMaxStreams);
    if (!k.ok()) return fail(msg(k.status()));
    state->budget = static_cast<int32_t>(*k);
  } else if (nsocks != nullptr && nthreads != nullptr) {
    // NCCL's socket transport opens NSOCKS_PERTHREAD x SOCKET_NTHREADS
    // sockets per connection; the same product is the stream budget here.
    auto a = railyard::parse_int_in("NCCL_NSOCKS_PERTHREAD", nsocks, 1, kMaxStreams);
    auto b = railyard::parse_int_in("NCCL_SOCKET_NTHREADS", nthreads, 1, kMaxStreams);
    if (!a.ok()) return fail(msg(a.status()));
    if (!b.ok()) return fail(msg(b.status()));
    state->budget = static_cast<int32_t>(std::min<int64_t>(*a * *b, kMaxStreams));
  }

  if (const char* family = std::getenv("NCCL_SOCKET_FAMILY");
      family != nullptr && std::string_view(family) != "AF_INET")
    return fail(std::string("NCCL_SOCKET_FAMILY=") + family +
                ": railyard's plugin plans IPv4 tuples only (AF_INET)");

  // The devices: IPv4 interfaces that are up, as NCCL_SOCKET_IFNAME selects
  // them (default: all but lo and docker*, or lo when nothing else is up).
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return fail(std::string("getifaddrs: ") + std::strerror(errno));
  const char* ifspec = std::getenv("NCCL_SOCKET_IFNAME");
  std::vector<std::pair<std::string, uint32_t>> found;
  for (int pass = 0; pass < 2 && found.empty(); ++pass) {
    for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
      if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
      if ((a->ifa_flags & IFF_UP) == 0) continue;
      const std::string name = a->ifa_name;
      const bool selected = pass == 0 ? interface_selected(name, ifspec)
                                      : (ifspec == nullptr && name.substr(0, 2) == "lo");
      if (!selected) continue;
      if (std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.first == name; }))
        continue;
      const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      found.emplace_back(name, ntohl(sin->sin_addr.s_addr));
    }
  }
  freeifaddrs(list);
  if (found.empty())
    return fail(std::string("no IPv4 interface is up") +
                (ifspec ? std::string(" matching NCCL_SOCKET_IFNAME=") + ifspec : std::string()));

  const char* rails = std::getenv("RAILYARD_NET_RAILS");
  for (const auto& [name, ip] : found) {
    Device dev;
    dev.ifname = name;
    dev.ip = ip;
    int32_t rail = -1;
    int32_t plane = 0;
    railyard::Status given = railyard::not_found_error(name);
    if (rails != nullptr) {
      given = parse_rails(rails, name, rail, plane);
      if (!given.ok() && given.code() != railyard::StatusCode::kNotFound)
        return fail(msg(given));
    }
    if (given.ok()) {
      if (rail >= d.rails() || plane >= d.planes())
        return fail("RAILYARD_NET_RAILS=" + std::string(rails) + ": " + name + " is rail " +
                    std::to_string(rail) + " plane " + std::to_string(plane) +
                    ", outside the cluster's " + std::to_string(d.rails()) + " rails and " +
                    std::to_string(d.planes()) + " planes");
      dev.port = NicPort{railyard::HostId{state->host}, railyard::NicIndex{rail},
                         railyard::PlaneId{plane}};
    } else {
      auto ports = state->advisor->local_nics(state->host, name);
      if (!ports.ok())
        return fail(name + ": no rail from sysfs (" + msg(ports.status()) +
                    "); set RAILYARD_NET_RAILS=" + name + "=RAIL");
      dev.port = (*ports)[0];
    }
    char real[4096];
    const std::string link = "/sys/class/net/" + name + "/device";
    if (realpath(link.c_str(), real) != nullptr) dev.pci_path = real;
    // The cluster's NIC speed: what the fabric is built of (a VM's virtio
    // interface reports none, and lo reports none at all).
    dev.speed_mbps = static_cast<int>(d.spec().nic_gbps * 1000.0);
    state->devices.push_back(std::move(dev));
  }
  for (size_t i = 0; i < state->devices.size(); ++i) {
    const Device& dev = state->devices[i];
    RY_INFO("dev %zu: %s %s host %d rail %d plane %d, %d Mb/s, stream budget %d", i,
            dev.ifname.c_str(), ipv4_text(dev.ip).c_str(), dev.port.host.value(),
            dev.port.nic.value(), dev.port.plane.value(), dev.speed_mbps, state->budget);
  }
  g_state = state.release();
  return Result::kSuccess;
}

Result init_once(nccl::Logger log) {
  const std::lock_guard<std::mutex> lock(g_init_mutex);
  if (log != nullptr) g_log = log;
  if (!g_init_done) {
    g_init_done = true;
    try {
      g_init_result = build_state();
    } catch (...) {
      g_init_result = Result::kInternalError;
    }
  }
  return g_init_result;
}

const Device* device(int dev) {
  if (g_state == nullptr || dev < 0 || dev >= static_cast<int>(g_state->devices.size()))
    return nullptr;
  return &g_state->devices[static_cast<size_t>(dev)];
}

// ---- sockets -------------------------------------------------------------------

int new_socket() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

sockaddr_in address(uint32_t ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(ip);
  a.sin_port = htons(port);
  return a;
}

// A socket error is the peer's (ncclRemoteError) when the connection was
// closed or reset under us, the system's otherwise.
Result socket_error(int err) {
  return err == EPIPE || err == ECONNRESET || err == ECONNREFUSED || err == ENOTCONN ||
                 err == ETIMEDOUT || err == 0
             ? Result::kRemoteError
             : Result::kSystemError;
}

// ---- comms and requests --------------------------------------------------------

struct Comm;

struct Request {
  Comm* comm = nullptr;
  uint64_t seq = 0;
  bool in_use = false;
  char* data = nullptr;
  size_t size = 0;  // send: the size; recv: the capacity until the header arrives
  int tag = 0;
  bool header_known = false;  // recv: the header has arrived (send: always)
  int slices = 0;
  size_t slice_bytes = 0;
  std::array<size_t, kMaxStreams> done{};  // bytes moved on each stream (stream 0 counts the header)
  int streams_done = 0;
  uint8_t header[kHeaderBytes] = {};
};

struct Comm {
  bool send = false;
  int streams = 0;
  std::array<int, kMaxStreams> fd{};
  std::array<uint64_t, kMaxStreams> pos{};  // first request seq not finished on each stream
  std::array<Request, nccl::kNetMaxRequests> ring{};
  uint64_t next_seq = 0;  // seq of the next request posted
  uint64_t oldest = 0;    // seq of the oldest request not yet released by test()
  Result error = Result::kSuccess;
  std::string peer;  // for messages
};

Request& slot(Comm& c, uint64_t seq) { return c.ring[seq % nccl::kNetMaxRequests]; }

void layout(Request& r, int streams) {
  const size_t want = (r.size + kMinSlice - 1) / kMinSlice;
  r.slices = static_cast<int>(std::clamp<size_t>(want, 1, static_cast<size_t>(streams)));
  r.slice_bytes = (r.size + static_cast<size_t>(r.slices) - 1) / static_cast<size_t>(r.slices);
}
size_t slice_len(const Request& r, int s) {
  if (s >= r.slices) return 0;
  const size_t begin = static_cast<size_t>(s) * r.slice_bytes;
  return begin >= r.size ? 0 : std::min(r.slice_bytes, r.size - begin);
}
// Bytes stream s carries for r: the header on stream 0, then its slice.
size_t stream_total(const Request& r, int s) {
  return (s == 0 ? kHeaderBytes : 0) + slice_len(r, s);
}

void fail_comm(Comm& c, Result why, const char* what, int err) {
  if (c.error != Result::kSuccess) return;
  c.error = why;
  RY_WARN("%s %s: %s", c.send ? "send to" : "receive from", c.peer.c_str(),
          err != 0 ? std::strerror(err) : what);
}

// The header of a receive: its size and tag must fit what was posted.
bool parse_header(Comm& c, Request& r) {
  const uint64_t size = get_le(r.header, 8);
  const int tag = static_cast<int>(static_cast<int32_t>(get_le(r.header + 8, 4)));
  if (get_le(r.header + 12, 4) != kHeaderMagic) {
    fail_comm(c, Result::kInternalError, "a message header without railyard's magic", 0);
    return false;
  }
  if (size > r.size || tag != r.tag) {
    char what[192];
    std::snprintf(what, sizeof what,
                  "a message of %llu bytes with tag %d arrived for a receive of %zu bytes "
                  "with tag %d",
                  static_cast<unsigned long long>(size), tag, r.size, r.tag);
    fail_comm(c, Result::kInternalError, what, 0);
    return false;
  }
  r.size = size;
  r.header_known = true;
  layout(r, c.streams);
  return true;
}

// Moves bytes of stream s until it would block. Returns false on a comm error.
bool progress_stream(Comm& c, int s) {
  while (c.pos[s] < c.next_seq) {
    Request& r = slot(c, c.pos[s]);
    size_t& done = r.done[static_cast<size_t>(s)];
    for (;;) {
      // A receive learns its slices from the header: stream 0 reads the
      // header first, the other streams wait for it.
      const bool known = c.send || r.header_known;
      if (!known && s != 0) return true;
      const size_t target = known ? stream_total(r, s) : kHeaderBytes;
      if (done >= target) break;
      iovec iov[2];
      int n = 0;
      const size_t header = s == 0 ? kHeaderBytes : 0;
      if (done < header) iov[n++] = {r.header + done, header - done};
      if (known) {
        const size_t data_done = done > header ? done - header : 0;
        const size_t slice = slice_len(r, s);
        if (data_done < slice)
          iov[n++] = {r.data + static_cast<size_t>(s) * r.slice_bytes + data_done,
                      slice - data_done};
      }
      ssize_t moved;
      if (c.send) {
        msghdr m{};
        m.msg_iov = iov;
        m.msg_iovlen = static_cast<size_t>(n);
        moved = sendmsg(c.fd[s], &m, MSG_NOSIGNAL | MSG_DONTWAIT);
      } else {
        moved = readv(c.fd[s], iov, n);
      }
      if (moved < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR) continue;
        fail_comm(c, socket_error(errno), "", errno);
        return false;
      }
      if (moved == 0) {
        fail_comm(c, Result::kRemoteError, "the peer closed the connection", 0);
        return false;
      }
      done += static_cast<size_t>(moved);
      if (!known && done >= kHeaderBytes && !parse_header(c, r)) return false;
    }
    ++r.streams_done;
    ++c.pos[s];
  }
  return true;
}

bool request_complete(const Request& r, int streams) { return r.streams_done == streams; }

Result progress(Comm& c) {
  if (c.error != Result::kSuccess) return c.error;
  for (int s = 0; s < c.streams; ++s)
    if (!progress_stream(c, s)) return c.error;
  return Result::kSuccess;
}

Result post(Comm& c, char* data, size_t size, int tag, void** request) {
  *request = nullptr;
  if (c.error != Result::kSuccess) return c.error;
  if (c.next_seq - c.oldest >= static_cast<uint64_t>(nccl::kNetMaxRequests))
    return Result::kSuccess;  // full: NCCL retries
  Request& r = slot(c, c.next_seq);
  r = Request{};
  r.comm = &c;
  r.seq = c.next_seq;
  r.in_use = true;
  r.data = data;
  r.size = size;
  r.tag = tag;
  if (c.send) {
    r.header_known = true;
    put_le(r.header, size, 8);
    put_le(r.header + 8, static_cast<uint32_t>(tag), 4);
    put_le(r.header + 12, kHeaderMagic, 4);
    layout(r, c.streams);
  }
  ++c.next_seq;
  *request = &r;
  return progress(c);
}

// ---- listen / connect / accept -----------------------------------------------------

struct PendingStream {
  int fd = -1;
  uint8_t hello[kHelloBytes] = {};
  size_t got = 0;
};

struct ListenComm {
  int fd = -1;
  int dev = 0;
  std::vector<PendingStream> pending;
};

struct Connecting {
  int dev = 0;
  int streams = 0;
  std::vector<int> fd;
  std::vector<size_t> hello_sent;
  uint8_t hello[kMaxStreams][kHelloBytes] = {};
  std::string peer;
};

void close_all(std::vector<int>& fds) {
  for (int& fd : fds)
    if (fd >= 0) close(fd), fd = -1;
}

Result listen_impl(int dev, void* handle, void** listen_comm) {
  *listen_comm = nullptr;
  const Device* d = device(dev);
  if (d == nullptr || handle == nullptr) return Result::kInvalidArgument;
  auto* out = static_cast<uint8_t*>(handle);
  std::memset(out, 0, nccl::kNetHandleMaxSize);
  const railyard::Status st = g_state->advisor->encode_endpoint(
      d->port, g_state->budget, std::span<std::byte>(reinterpret_cast<std::byte*>(out), rp::kEndpointBytes));
  if (!st.ok()) {
    RY_WARN("listen: %s", msg(st).c_str());
    return Result::kInternalError;
  }
  const int fd = new_socket();
  if (fd < 0) return Result::kSystemError;
  sockaddr_in a = address(d->ip, 0);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 256) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    RY_WARN("listen on %s: %s", ipv4_text(d->ip).c_str(), std::strerror(errno));
    close(fd);
    return Result::kSystemError;
  }
  std::memcpy(out + kHandleAddrAt, &a.sin_addr.s_addr, 4);  // already network order
  std::memcpy(out + kHandleAddrAt + 4, &a.sin_port, 2);
  auto* l = new ListenComm;
  l->fd = fd;
  l->dev = dev;
  *listen_comm = l;
  return Result::kSuccess;
}

Comm* make_comm(bool send, std::vector<int>& fds, std::string peer) {
  auto* c = new Comm;
  c->send = send;
  c->streams = static_cast<int>(fds.size());
  for (size_t i = 0; i < fds.size(); ++i) c->fd[i] = fds[i];
  fds.clear();
  c->peer = std::move(peer);
  return c;
}

std::string endpoint_text(const NicPort& p) {
  return "host " + std::to_string(p.host.value()) + " rail " + std::to_string(p.nic.value()) +
         " plane " + std::to_string(p.plane.value());
}

// First connect() call: plan, bind, start the K connects.
Result start_connect(int dev, const uint8_t* handle, Connecting& c) {
  const Device* d = device(dev);
  const rp::PathAdvisor& adv = *g_state->advisor;
  auto remote = adv.decode_endpoint(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(handle), rp::kEndpointBytes));
  if (!remote.ok()) {
    RY_WARN("connect: the peer's handle: %s", msg(remote.status()).c_str());
    return Result::kInvalidUsage;
  }
  const rp::Endpoint local{d->port, g_state->budget};
  // Two ranks on one NIC port (one host, P2P and SHM disabled): the bytes
  // never leave the NIC, there is no path to choose, so one stream with an
  // ephemeral port.
  const bool same_port = d->port == remote->port;
  auto k = same_port ? railyard::StatusOr<int32_t>(1) : adv.agreed_qps(local, *remote);
  if (!k.ok()) {
    RY_WARN("connect: %s", msg(k.status()).c_str());
    return Result::kInvalidUsage;
  }
  uint32_t dst_ip_net;
  uint16_t dst_port_net;
  std::memcpy(&dst_ip_net, handle + kHandleAddrAt, 4);
  std::memcpy(&dst_port_net, handle + kHandleAddrAt + 4, 2);
  const rp::TcpFlow flow{d->ip, ntohl(dst_ip_net), ntohs(dst_port_net)};
  c.dev = dev;
  c.streams = *k;
  c.peer = endpoint_text(remote->port) + " (" + ipv4_text(flow.dst_ip) + ":" +
           std::to_string(flow.dst_port) + ")";
  std::random_device rd;
  const uint64_t nonce = (uint64_t{rd()} << 32) ^ rd();
  for (int attempt = 0; attempt < kPortRetries; ++attempt) {
    const auto offset = static_cast<uint16_t>(attempt * kPortRetryStep);
    auto plan = same_port ? railyard::StatusOr<rp::StreamPlan>(rp::StreamPlan{1, 1, {0}, {-1}})
                          : adv.plan_tcp_streams(d->port, remote->port, c.streams, flow, offset);
    if (!plan.ok()) {
      RY_WARN("connect: %s", msg(plan.status()).c_str());
      return Result::kInternalError;
    }
    bool busy = false;
    for (int i = 0; i < c.streams && !busy; ++i) {
      const int fd = new_socket();
      if (fd < 0) {
        close_all(c.fd);
        return Result::kSystemError;
      }
      c.fd.push_back(fd);
      sockaddr_in src = address(d->ip, plan->source_ports[static_cast<size_t>(i)]);
      sockaddr_in dst = address(flow.dst_ip, flow.dst_port);
      if (bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
          (connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0 &&
           errno != EINPROGRESS)) {
        const int err = errno;
        if (err == EADDRINUSE || err == EADDRNOTAVAIL) {
          busy = true;
          break;
        }
        RY_WARN("connect to %s from port %u: %s", c.peer.c_str(),
                plan->source_ports[static_cast<size_t>(i)], std::strerror(err));
        close_all(c.fd);
        c.fd.clear();
        return socket_error(err);
      }
    }
    if (busy) {
      RY_INFO("connect to %s: a planned source port is taken; searching from offset %u",
              c.peer.c_str(), static_cast<unsigned>((attempt + 1) * kPortRetryStep));
      close_all(c.fd);
      c.fd.clear();
      continue;
    }
    std::string ports;
    std::string uplinks;
    for (int i = 0; i < c.streams; ++i) {
      ports += (i ? "," : "") + std::to_string(plan->source_ports[static_cast<size_t>(i)]);
      uplinks += (i ? "," : "") + std::to_string(plan->uplinks[static_cast<size_t>(i)]);
      uint8_t* h = c.hello[i];
      std::memcpy(h, "RYNS", 4);
      put_le(h + 4, 1, 2);
      put_le(h + 6, static_cast<uint64_t>(i), 2);
      put_le(h + 8, static_cast<uint64_t>(c.streams), 2);
      put_le(h + 16, nonce, 8);
      const railyard::Status st = adv.encode_endpoint(
          d->port, g_state->budget,
          std::span<std::byte>(reinterpret_cast<std::byte*>(h + 24), rp::kEndpointBytes));
      if (!st.ok()) {
        close_all(c.fd);
        return Result::kInternalError;
      }
    }
    c.hello_sent.assign(static_cast<size_t>(c.streams), 0);
    RY_INFO("connect %s -> %s: %d streams (of %d uplinks), source ports %s, leaf uplinks %s",
            endpoint_text(d->port).c_str(), c.peer.c_str(), c.streams, plan->usable_uplinks,
            ports.c_str(), uplinks.c_str());
    return Result::kSuccess;
  }
  RY_WARN("connect to %s: planned source ports taken in %d searches", c.peer.c_str(),
          kPortRetries);
  return Result::kSystemError;
}

// Later connect() calls: finish the TCP handshakes and send the hellos.
// Returns kSuccess with ready = true when every stream is up.
Result continue_connect(Connecting& c, bool& ready) {
  ready = false;
  int up = 0;
  for (int i = 0; i < c.streams; ++i) {
    const int fd = c.fd[static_cast<size_t>(i)];
    size_t& sent = c.hello_sent[static_cast<size_t>(i)];
    if (sent == kHelloBytes) {
      ++up;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, 0) <= 0) continue;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      RY_WARN("connect to %s: %s", c.peer.c_str(), std::strerror(err));
      return socket_error(err);
    }
    const ssize_t n = send(fd, c.hello[i] + sent, kHelloBytes - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      RY_WARN("connect to %s: %s", c.peer.c_str(), std::strerror(errno));
      return socket_error(errno);
    }
    sent += static_cast<size_t>(n);
    if (sent == kHelloBytes) ++up;
  }
  ready = up == c.streams;
  return Result::kSuccess;
}

Result connect_impl(int dev, void* handle, void** send_comm) {
  *send_comm = nullptr;
  if (device(dev) == nullptr || handle == nullptr) return Result::kInvalidArgument;
  auto* h = static_cast<uint8_t*>(handle);
  Connecting* c = nullptr;
  if (get_le(h + kHandleScratchAt, 8) == kScratchMagic) {
    uint64_t p = get_le(h + kHandleScratchAt + 8, 8);
    std::memcpy(&c, &p, sizeof c);
  } else {
    auto fresh = std::make_unique<Connecting>();
    const Result r = start_connect(dev, h, *fresh);
    if (r != Result::kSuccess) return r;
    c = fresh.release();
    uint64_t p = 0;
    std::memcpy(&p, &c, sizeof c);
    put_le(h + kHandleScratchAt, kScratchMagic, 8);
    put_le(h + kHandleScratchAt + 8, p, 8);
  }
  bool ready = false;
  const Result r = continue_connect(*c, ready);
  if (r != Result::kSuccess || ready) {
    std::memset(h + kHandleScratchAt, 0, 16);
    if (r == Result::kSuccess) *send_comm = make_comm(true, c->fd, c->peer);
    close_all(c->fd);
    delete c;
  }
  return r;
}

Result accept_impl(void* listen_comm, void** recv_comm) {
  *recv_comm = nullptr;
  auto* l = static_cast<ListenComm*>(listen_comm);
  if (l == nullptr) return Result::kInvalidArgument;
  for (;;) {
    const int fd = accept4(l->fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    l->pending.push_back(PendingStream{fd, {}, 0});
  }
  for (PendingStream& p : l->pending) {
    while (p.got < kHelloBytes) {
      const ssize_t n = recv(p.fd, p.hello + p.got, kHelloBytes - p.got, MSG_DONTWAIT);
      if (n > 0) {
        p.got += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 && errno == EINTR) continue;
      RY_WARN("accept: a stream closed before its hello (%s)", n == 0 ? "EOF" : std::strerror(errno));
      return Result::kRemoteError;
    }
    if (p.got == kHelloBytes && (std::memcmp(p.hello, "RYNS", 4) != 0 || get_le(p.hello + 4, 2) != 1)) {
      RY_WARN("accept: a connection that is not railyard's net plugin (format %u)",
              static_cast<unsigned>(get_le(p.hello + 4, 2)));
      return Result::kInvalidUsage;
    }
  }
  // The first complete hello names the connection; wait for its K streams.
  const PendingStream* first = nullptr;
  for (const PendingStream& p : l->pending)
    if (p.got == kHelloBytes) {
      first = &p;
      break;
    }
  if (first == nullptr) return Result::kSuccess;
  const uint64_t nonce = get_le(first->hello + 16, 8);
  const int k = static_cast<int>(get_le(first->hello + 8, 2));
  std::vector<int> fds(static_cast<size_t>(std::max(k, 0)), -1);
  int have = 0;
  for (const PendingStream& p : l->pending) {
    if (p.got != kHelloBytes || get_le(p.hello + 16, 8) != nonce) continue;
    const auto i = static_cast<size_t>(get_le(p.hello + 6, 2));
    if (i < fds.size() && fds[i] < 0) {
      fds[i] = p.fd;
      ++have;
    }
  }
  if (have < k) return Result::kSuccess;
  const rp::PathAdvisor& adv = *g_state->advisor;
  const Device* d = device(l->dev);
  auto remote = adv.decode_endpoint(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(first->hello + 24), rp::kEndpointBytes));
  if (!remote.ok()) {
    RY_WARN("accept: the connecting rank's endpoint: %s", msg(remote.status()).c_str());
    return Result::kInvalidUsage;
  }
  auto agreed = remote->port == d->port
                    ? railyard::StatusOr<int32_t>(1)  // one NIC port: one stream (connect says why)
                    : adv.agreed_qps(*remote, rp::Endpoint{d->port, g_state->budget});
  if (!agreed.ok() || *agreed != k) {
    RY_WARN("accept from %s: it opened %d streams where this rank derives %s; both ends must "
            "give the same RAILYARD_NET_STREAMS and cluster",
            endpoint_text(remote->port).c_str(), k,
            agreed.ok() ? std::to_string(*agreed).c_str() : msg(agreed.status()).c_str());
    return Result::kInvalidUsage;
  }
  std::vector<PendingStream> rest;
  for (PendingStream& p : l->pending)
    if (std::find(fds.begin(), fds.end(), p.fd) == fds.end()) rest.push_back(p);
  l->pending = std::move(rest);
  *recv_comm = make_comm(false, fds, endpoint_text(remote->port));
  RY_INFO("accept %s <- %s: %d streams", endpoint_text(d->port).c_str(),
          endpoint_text(remote->port).c_str(), k);
  return Result::kSuccess;
}

Result close_comm(void* comm) {
  auto* c = static_cast<Comm*>(comm);
  if (c == nullptr) return Result::kSuccess;
  for (int s = 0; s < c->streams; ++s) close(c->fd[s]);
  delete c;
  return Result::kSuccess;
}

Result close_listen(void* listen_comm) {
  auto* l = static_cast<ListenComm*>(listen_comm);
  if (l == nullptr) return Result::kSuccess;
  close(l->fd);
  for (PendingStream& p : l->pending) close(p.fd);
  delete l;
  return Result::kSuccess;
}

// ---- the entry points, one frame each: nothing escapes into NCCL -------------------

template <class F>
Result guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    RY_WARN("out of memory");
    return Result::kSystemError;
  } catch (...) {
    RY_WARN("internal error");
    return Result::kInternalError;
  }
}

Result net_devices(int* ndev) {
  if (ndev == nullptr) return Result::kInvalidArgument;
  *ndev = g_state == nullptr ? 0 : static_cast<int>(g_state->devices.size());
  return Result::kSuccess;
}

template <class Props>
Result fill_common(int dev, Props* props) {
  const Device* d = device(dev);
  if (d == nullptr || props == nullptr) return Result::kInvalidArgument;
  std::memset(props, 0, sizeof *props);
  props->name = const_cast<char*>(d->ifname.c_str());
  props->pci_path = d->pci_path.empty() ? nullptr : const_cast<char*>(d->pci_path.c_str());
  props->guid = static_cast<uint64_t>(dev);
  props->ptr_support = nccl::kPtrHost;
  props->reg_is_global = 0;
  props->speed = d->speed_mbps;
  props->port = d->port.plane.value() + 1;
  props->latency = 0;
  props->max_comms = 65536;
  props->max_recvs = 1;
  props->net_device_type = nccl::NetDeviceType::kHost;
  props->net_device_version = 0;
  return Result::kSuccess;
}
template <class Props>
Result fill_v9(int dev, Props* props) {
  const Result r = fill_common(dev, props);
  if (r != Result::kSuccess) return r;
  props->force_flush = 0;
  props->v_props.ndevs = 1;
  props->v_props.devs[0] = dev;
  props->max_p2p_bytes = nccl::kMaxNetSizeBytes;
  props->max_coll_bytes = nccl::kMaxNetSizeBytes;
  return Result::kSuccess;
}

Result reg_mr(void* /*comm*/, void* /*data*/, size_t /*size*/, int type, void** mhandle) {
  if (mhandle == nullptr) return Result::kInvalidArgument;
  *mhandle = nullptr;
  if (type != nccl::kPtrHost) {
    RY_WARN("regMr: only host memory (NCCL_PTR_HOST), not type %d", type);
    return Result::kInternalError;
  }
  static int host_memory;  // any non-null handle: sockets need no registration
  *mhandle = &host_memory;
  return Result::kSuccess;
}
Result reg_mr_dma_buf(void* comm, void* data, size_t size, int type, uint64_t, int, void** mhandle) {
  return reg_mr(comm, data, size, type, mhandle);
}
Result dereg_mr(void*, void*) { return Result::kSuccess; }
Result iflush(void*, int, void**, int*, void**, void** request) {
  if (request != nullptr) *request = nullptr;
  RY_WARN("iflush: not supported (host memory needs no flush)");
  return Result::kInternalError;
}

Result isend_impl(void* send_comm, void* data, size_t size, int tag, void** request) {
  auto* c = static_cast<Comm*>(send_comm);
  if (c == nullptr || request == nullptr || !c->send || (data == nullptr && size > 0))
    return Result::kInvalidArgument;
  return post(*c, static_cast<char*>(data), size, tag, request);
}
Result irecv_impl(void* recv_comm, int n, void** data, const size_t* sizes, const int* tags,
                  void** request) {
  auto* c = static_cast<Comm*>(recv_comm);
  if (c == nullptr || request == nullptr || c->send || n != 1 || data == nullptr ||
      sizes == nullptr || tags == nullptr || (data[0] == nullptr && sizes[0] > 0))
    return Result::kInvalidArgument;
  return post(*c, static_cast<char*>(data[0]), sizes[0], tags[0], request);
}

Result test_impl(void* request, int* done, int* sizes) {
  auto* r = static_cast<Request*>(request);
  if (r == nullptr || done == nullptr || !r->in_use) return Result::kInvalidArgument;
  *done = 0;
  Comm& c = *r->comm;
  const Result p = progress(c);
  if (p != Result::kSuccess) return p;
  if (!request_complete(*r, c.streams)) return Result::kSuccess;
  *done = 1;
  if (sizes != nullptr) sizes[0] = static_cast<int>(std::min<size_t>(r->size, 0x7FFFFFFF));
  r->in_use = false;
  while (c.oldest < c.next_seq && !slot(c, c.oldest).in_use) ++c.oldest;
  return Result::kSuccess;
}

// ---- per-version adapters ---------------------------------------------------------

Result init_v8(nccl::Logger log) { return guarded([&] { return init_once(log); }); }
Result init_v10(nccl::Logger log, nccl::ProfilerCallback) { return init_v8(log); }
Result init_v11(void** ctx, uint64_t, nccl::NetCommConfig*, nccl::Logger log,
                nccl::ProfilerCallback) {
  if (ctx != nullptr) *ctx = nullptr;
  const Result r = init_v8(log);
  static int context;  // one state per process; the context only marks success
  if (r == Result::kSuccess && ctx != nullptr) *ctx = &context;
  return r;
}
Result finalize(void*) { return Result::kSuccess; }
Result set_net_attr(void*, nccl::NetAttr*) { return Result::kSuccess; }

Result devices(int* ndev) { return guarded([&] { return net_devices(ndev); }); }
Result props_v8(int dev, nccl::NetPropertiesV8* p) {
  return guarded([&] { return fill_common(dev, p); });
}
Result props_v9(int dev, nccl::NetPropertiesV9* p) { return guarded([&] { return fill_v9(dev, p); }); }
Result props_v11(int dev, nccl::NetPropertiesV11* p) {
  return guarded([&] {
    const Result r = fill_v9(dev, p);
    if (r == Result::kSuccess) p->max_multi_request_size = 1;
    return r;
  });
}
Result props_v12(int dev, nccl::NetPropertiesV12* p) {
  return guarded([&] {
    const Result r = fill_v9(dev, p);
    if (r != Result::kSuccess) return r;
    p->max_multi_request_size = 1;
    const Device* d = device(dev);
    p->rail_id = static_cast<int16_t>(d->port.nic.value());
    p->plane_id = static_cast<int16_t>(d->port.plane.value());
    return r;
  });
}
Result listen_v8(int dev, void* handle, void** listen_comm) {
  return guarded([&] { return listen_impl(dev, handle, listen_comm); });
}
Result listen_v11(void*, int dev, void* handle, void** listen_comm) {
  return listen_v8(dev, handle, listen_comm);
}
Result connect_v8(int dev, void* handle, void** send_comm, nccl::NetDeviceHandle**) {
  return guarded([&] { return connect_impl(dev, handle, send_comm); });
}
Result connect_v10(int dev, nccl::NetCommConfig*, void* handle, void** send_comm,
                   nccl::NetDeviceHandle** dev_comm) {
  return connect_v8(dev, handle, send_comm, dev_comm);
}
Result connect_v11(void*, int dev, void* handle, void** send_comm, nccl::NetDeviceHandle** dev_comm) {
  return connect_v8(dev, handle, send_comm, dev_comm);
}
Result accept(void* listen_comm, void** recv_comm, nccl::NetDeviceHandle**) {
  return guarded([&] { return accept_impl(listen_comm, recv_comm); });
}
Result isend_v8(void* comm, void* data, int size, int tag, void*, void** request) {
  if (size < 0) return Result::kInvalidArgument;
  return guarded([&] { return isend_impl(comm, data, static_cast<size_t>(size), tag, request); });
}
Result isend_v9(void* comm, void* data, size_t size, int tag, void*, void** request) {
  return guarded([&] { return isend_impl(comm, data, size, tag, request); });
}
Result isend_v10(void* comm, void* data, size_t size, int tag, void* mh, void*, void** request) {
  return isend_v9(comm, data, size, tag, mh, request);
}
Result irecv_v8(void* comm, int n, void** data, int* sizes, int* tags, void**, void** request) {
  if (n != 1 || sizes == nullptr || sizes[0] < 0) return Result::kInvalidArgument;
  const size_t size = static_cast<size_t>(sizes[0]);
  return guarded([&] { return irecv_impl(comm, n, data, &size, tags, request); });
}
Result irecv_v9(void* comm, int n, void** data, size_t* sizes, int* tags, void**, void** request) {
  return guarded([&] { return irecv_impl(comm, n, data, sizes, tags, request); });
}
Result irecv_v10(void* comm, int n, void** data, size_t* sizes, int* tags, void** mh, void**,
                 void** request) {
  return irecv_v9(comm, n, data, sizes, tags, mh, request);
}
Result test(void* request, int* done, int* sizes) {
  return guarded([&] { return test_impl(request, done, sizes); });
}
Result close_send(void* comm) { return guarded([&] { return close_comm(comm); }); }
Result close_recv(void* comm) { return guarded([&] { return close_comm(comm); }); }
Result close_listen_entry(void* comm) { return guarded([&] { return close_listen(comm); }); }

constexpr const char* kName = "railyard";

}  // namespace

#define RAILYARD_NET_EXPORT __attribute__((visibility("default")))

extern "C" {

// NCCL 2.29, 2.30.
RAILYARD_NET_EXPORT extern const nccl::NetV12 ncclNetPlugin_v12;
const nccl::NetV12 ncclNetPlugin_v12 = {
    kName,      init_v11,   devices,  props_v12,     listen_v11, connect_v11, accept,
    reg_mr,     reg_mr_dma_buf, dereg_mr, isend_v10, irecv_v10,  iflush,      test,
    close_send, close_recv, close_listen_entry, nullptr, nullptr, nullptr, finalize,
    set_net_attr};

// NCCL 2.28.
RAILYARD_NET_EXPORT extern const nccl::NetV11 ncclNetPlugin_v11;
const nccl::NetV11 ncclNetPlugin_v11 = {
    kName,      init_v11,   devices,  props_v11,     listen_v11, connect_v11, accept,
    reg_mr,     reg_mr_dma_buf, dereg_mr, isend_v10, irecv_v10,  iflush,      test,
    close_send, close_recv, close_listen_entry, nullptr, nullptr, nullptr, finalize,
    set_net_attr};

// NCCL 2.25 .. 2.27.
RAILYARD_NET_EXPORT extern const nccl::NetV10 ncclNetPlugin_v10;
const nccl::NetV10 ncclNetPlugin_v10 = {
    kName,  init_v10,   devices,    props_v9,  listen_v8,  connect_v10,        accept,
    reg_mr, reg_mr_dma_buf, dereg_mr, isend_v10, irecv_v10, iflush,           test,
    close_send, close_recv, close_listen_entry, nullptr, nullptr, nullptr};

// NCCL 2.23, 2.24.
RAILYARD_NET_EXPORT extern const nccl::NetV9 ncclNetPlugin_v9;
const nccl::NetV9 ncclNetPlugin_v9 = {
    kName,  init_v8,    devices,    props_v9, listen_v8, connect_v8,         accept,
    reg_mr, reg_mr_dma_buf, dereg_mr, isend_v9, irecv_v9, iflush,           test,
    close_send, close_recv, close_listen_entry, nullptr, nullptr, nullptr};

// NCCL 2.22 (and the oldest loaders that know v8).
RAILYARD_NET_EXPORT extern const nccl::NetV8 ncclNetPlugin_v8;
const nccl::NetV8 ncclNetPlugin_v8 = {
    kName,  init_v8,    devices,    props_v8, listen_v8, connect_v8,         accept,
    reg_mr, reg_mr_dma_buf, dereg_mr, isend_v8, irecv_v8, iflush,           test,
    close_send, close_recv, close_listen_entry, nullptr, nullptr};

}  // extern "C"
