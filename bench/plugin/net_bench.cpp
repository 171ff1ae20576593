// Throughput of railyard's NCCL net plugin (libnccl-net-railyard.so) on
// loopback, against a plain TCP stream in the same process layout.
//
// BM_PlainTcp/MiB:S           one TCP connection over 127.0.0.1 between two
//   processes, blocking send()/recv() of S-MiB messages (what one stream of a
//   socket transport can do on this machine).
// BM_NetPlugin/streams:K/MiB:S  the plugin between two processes, loaded as
//   NCCL loads it (dlopen, ncclNetPlugin_v12), hosts 0 and 40 of
//   h100-1024-2to1 (different leaves, 16 uplinks), RAILYARD_NET_STREAMS=K on
//   both ends, so each connection stripes its messages over K TCP streams;
//   isend/irecv of S-MiB messages, two in flight, polled with test().
//
// Each iteration spawns this binary twice (a receiver and a sender role; the
// plugin reads RAILYARD_HOST once at init, and two ends on one host would
// share a leaf, where the advisor plans one stream). Both ends touch their
// buffers, exchange one untimed warm-up message, then send 512 MiB; the
// receiver times from the warm-up's completion to the last message's and the
// benchmark reports that time (UseManualTime). Counters: GBps (aggregate) and
// GBps_per_stream (GBps / the streams the sender actually opened, counted
// from its sockets).
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdarg>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "railyard/plugin/nccl_net_abi.hpp"

#ifndef RAILYARD_NET_LIBRARY
#error "RAILYARD_NET_LIBRARY must name the built libnccl-net-railyard.so"
#endif

namespace {

namespace nccl = railyard::plugin::nccl;
using Clock = std::chrono::steady_clock;
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kTimedBytes = 512 * kMiB;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

[[noreturn]] void die(const std::string& why) {
  std::printf("ERROR %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(1);
}

extern "C" void bench_log(nccl::LogLevel level, unsigned long, const char*, int, const char* fmt,
                          ...) {
  if (level > nccl::LogLevel::kWarn) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "[plugin] %s\n", buf);
}

// Page-touched so that no timed message pays for page faults.
std::vector<char> touched(size_t n) { return std::vector<char>(n, 1); }

bool write_file(const std::string& path, const void* p, size_t n) {
  const std::string tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary);
  f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
  f.close();
  return f && std::rename(tmp.c_str(), path.c_str()) == 0;
}
std::string read_file(const std::string& path, size_t n) {
  const Clock::time_point t0 = Clock::now();
  for (;;) {
    std::ifstream f(path, std::ios::binary);
    std::string s(n, '\0');
    if (f && f.read(s.data(), static_cast<std::streamsize>(n)) &&
        f.gcount() == static_cast<std::streamsize>(n))
      return s;
    if (since(t0) > 30) die("no " + path + " after 30 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// ---- roles: the plugin -------------------------------------------------------
struct Plugin {
  const nccl::NetV12* net = nullptr;
  void* ctx = nullptr;
};
Plugin open_plugin() {
  void* lib = dlopen(RAILYARD_NET_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) die(std::string("dlopen: ") + dlerror());
  Plugin p;
  p.net = static_cast<const nccl::NetV12*>(dlsym(lib, "ncclNetPlugin_v12"));
  if (p.net == nullptr) die("no ncclNetPlugin_v12");
  nccl::NetCommConfig config{nccl::kNetTrafficClassUndef};
  if (p.net->init(&p.ctx, 1, &config, bench_log, nullptr) != nccl::Result::kSuccess)
    die("init failed");
  return p;
}

void wait(const Plugin& p, void* req) {
  for (;;) {
    int done = 0, size = 0;
    if (p.net->test(req, &done, &size) != nccl::Result::kSuccess) die("test failed");
    if (done) return;
  }
}

// Messages 0 (warm-up) .. n; at most two in flight, alternating buffers.
template <class Post>
double run_messages(const Plugin& p, size_t size, size_t n, Post&& post) {
  std::vector<void*> reqs(n + 1, nullptr);
  Clock::time_point t0{};
  size_t posted = 0, completed = 0;
  while (completed <= n) {
    while (posted <= n && posted < completed + 2 && (posted == 0 || completed >= 1)) {
      void* r = nullptr;
      post(posted, &r);
      if (r == nullptr) break;
      reqs[posted++] = r;
    }
    if (completed < posted) {
      wait(p, reqs[completed]);
      if (completed == 0) t0 = Clock::now();  // the warm-up is through
      ++completed;
    }
  }
  (void)size;
  return since(t0);
}

int plugin_receiver(const std::string& handle_path, size_t size) {
  Plugin p = open_plugin();
  char handle[nccl::kNetHandleMaxSize] = {};
  void* listen_comm = nullptr;
  if (p.net->listen(p.ctx, 0, handle, &listen_comm) != nccl::Result::kSuccess) die("listen");
  if (!write_file(handle_path, handle, sizeof handle)) die("cannot write the handle");
  void* comm = nullptr;
  nccl::NetDeviceHandle* dh = nullptr;
  const Clock::time_point t0 = Clock::now();
  while (comm == nullptr) {
    if (p.net->accept(listen_comm, &comm, &dh) != nccl::Result::kSuccess) die("accept");
    if (since(t0) > 30) die("accept: nothing after 30 s");
  }
  std::vector<char> a = touched(size), b = touched(size);
  const size_t n = kTimedBytes / size;
  const double s = run_messages(p, size, n, [&](size_t i, void** r) {
    void* data[1] = {i % 2 ? b.data() : a.data()};
    size_t sizes[1] = {size};
    int tags[1] = {static_cast<int>(i)};
    void* mh[1] = {nullptr};
    void* ph[1] = {nullptr};
    if (p.net->irecv(comm, 1, data, sizes, tags, mh, ph, r) != nccl::Result::kSuccess)
      die("irecv");
  });
  std::printf("ELAPSED %.9f\n", s);
  std::fflush(stdout);
  // The sender exits only after this: a sender closing its sockets while this
  // end still reads could reset them.
  write_file(handle_path + ".done", "1", 1);
  std::_Exit(0);
}

int count_streams(uint16_t peer_port) {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  while (dirent* e = d ? readdir(d) : nullptr) {
    const int fd = std::atoi(e->d_name);
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    if (fd > 2 && getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0 &&
        peer.sin_family == AF_INET && ntohs(peer.sin_port) == peer_port)
      ++n;
  }
  if (d) closedir(d);
  return n;
}

int plugin_sender(const std::string& handle_path, size_t size) {
  Plugin p = open_plugin();
  std::string handle = read_file(handle_path, nccl::kNetHandleMaxSize);
  uint16_t port_be;
  std::memcpy(&port_be, handle.data() + 36, 2);
  void* comm = nullptr;
  nccl::NetDeviceHandle* dh = nullptr;
  const Clock::time_point t0 = Clock::now();
  while (comm == nullptr) {
    if (p.net->connect(p.ctx, 0, handle.data(), &comm, &dh) != nccl::Result::kSuccess)
      die("connect");
    if (since(t0) > 30) die("connect: nothing after 30 s");
  }
  std::printf("STREAMS %d\n", count_streams(ntohs(port_be)));
  std::fflush(stdout);
  std::vector<char> a = touched(size), b = touched(size);
  const size_t n = kTimedBytes / size;
  run_messages(p, size, n, [&](size_t i, void** r) {
    if (p.net->isend(comm, i % 2 ? b.data() : a.data(), size, static_cast<int>(i), nullptr,
                     nullptr, r) != nccl::Result::kSuccess)
      die("isend");
  });
  read_file(handle_path + ".done", 1);
  std::_Exit(0);
}

// ---- roles: a plain TCP stream ---------------------------------------------------
void send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) die("send");
    p += k;
    n -= static_cast<size_t>(k);
  }
}
void recv_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k <= 0) die("recv");
    p += k;
    n -= static_cast<size_t>(k);
  }
}

int tcp_receiver(const std::string& handle_path, size_t size) {
  const int l = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(l, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(l, 1) != 0 ||
      getsockname(l, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    die("listen");
  if (!write_file(handle_path, &addr.sin_port, sizeof addr.sin_port)) die("write port");
  const int fd = accept(l, nullptr, nullptr);
  if (fd < 0) die("accept");
  std::vector<char> a = touched(size), b = touched(size);
  const size_t n = kTimedBytes / size;
  recv_all(fd, a.data(), size);  // warm-up
  const Clock::time_point t0 = Clock::now();
  for (size_t i = 1; i <= n; ++i) recv_all(fd, i % 2 ? b.data() : a.data(), size);
  std::printf("ELAPSED %.9f\n", since(t0));
  std::fflush(stdout);
  std::_Exit(0);
}

int tcp_sender(const std::string& handle_path, size_t size) {
  const std::string port = read_file(handle_path, sizeof(uint16_t));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::memcpy(&addr.sin_port, port.data(), 2);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect");
  std::printf("STREAMS 1\n");
  std::fflush(stdout);
  std::vector<char> a = touched(size), b = touched(size);
  const size_t n = kTimedBytes / size;
  for (size_t i = 0; i <= n; ++i) send_all(fd, i % 2 ? b.data() : a.data(), size);
  // Wait for the receiver to close, so the last bytes are not cut off.
  char c;
  while (recv(fd, &c, 1, 0) > 0) {
  }
  std::_Exit(0);
}

// ---- the benchmark process -----------------------------------------------------------
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
};
Child spawn(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::_Exit(127);
  }
  close(p[1]);
  return {pid, p[0], {}};
}
void finish(Child& c) {
  char buf[512];
  for (ssize_t n; (n = read(c.fd, buf, sizeof buf)) > 0;) c.out.append(buf, static_cast<size_t>(n));
  close(c.fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
}
double value_of(const std::string& out, std::string_view key) {
  const size_t at = out.find(key);
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + key.size());
}

std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "/proc/self/exe";
}

void run_pair(benchmark::State& state, const std::string& kind, int streams, size_t size) {
  char dir_template[] = "/tmp/net_bench.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  const std::string handle = std::string(dir) + "/handle";
  const std::vector<std::string> common = {
      "RAILYARD_CLUSTER=h100-1024-2to1", "RAILYARD_NET_RAILS=lo=0", "NCCL_SOCKET_IFNAME=lo",
      "RAILYARD_NET_STREAMS=" + std::to_string(streams)};
  auto env = [&](int host) {
    std::vector<std::string> e = common;
    e.push_back("RAILYARD_HOST=" + std::to_string(host));
    return e;
  };
  auto args = [&](const char* role) {
    return std::vector<std::string>{self_exe(), std::string("--net-bench-role=") + kind + role,
                                    handle, std::to_string(size)};
  };
  Child rx = spawn(args("-receiver"), env(0));
  Child tx = spawn(args("-sender"), env(40));
  finish(tx);
  finish(rx);
  for (const char* f : {"", ".tmp", ".done", ".done.tmp"}) unlink((handle + f).c_str());
  rmdir(dir);
  const double elapsed = value_of(rx.out, "ELAPSED ");
  const double used = value_of(tx.out, "STREAMS ");
  if (elapsed <= 0) {
    state.SkipWithError(("receiver: " + rx.out + " sender: " + tx.out).c_str());
    return;
  }
  state.SetIterationTime(elapsed);
  state.counters["GBps"] = static_cast<double>(kTimedBytes) / elapsed / 1e9;
  state.counters["streams"] = used;
  state.counters["GBps_per_stream"] = static_cast<double>(kTimedBytes) / elapsed / 1e9 / used;
}

void BM_PlainTcp(benchmark::State& state) {
  for (auto _ : state) run_pair(state, "tcp", 1, static_cast<size_t>(state.range(0)) * kMiB);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kTimedBytes));
}
BENCHMARK(BM_PlainTcp)->ArgName("MiB")->Arg(64)->Arg(256)->UseManualTime()->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_NetPlugin(benchmark::State& state) {
  for (auto _ : state)
    run_pair(state, "plugin", static_cast<int>(state.range(0)),
             static_cast<size_t>(state.range(1)) * kMiB);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kTimedBytes));
}
BENCHMARK(BM_NetPlugin)
    ->ArgNames({"streams", "MiB"})
    ->ArgsProduct({{1, 2, 4, 8}, {64, 256}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.rfind("--net-bench-role=", 0) == 0 && i + 2 < argc) {
      signal(SIGPIPE, SIG_DFL);
      const std::string role(a.substr(17));
      const std::string handle = argv[i + 1];
      const size_t size = std::strtoull(argv[i + 2], nullptr, 10);
      if (role == "plugin-receiver") return plugin_receiver(handle, size);
      if (role == "plugin-sender") return plugin_sender(handle, size);
      if (role == "tcp-receiver") return tcp_receiver(handle, size);
      if (role == "tcp-sender") return tcp_sender(handle, size);
      die("unknown role " + role);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
