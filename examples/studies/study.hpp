// examples/studies/study.hpp — what the study programs share: unwrapping
// library results, building simulation groups, printing tables and checking
// the claim a study reproduces.
//
// A study prints its figures first, then checks its claim with explicit
// comparisons. A violated check prints "claim violated: <claim>: <detail>" on
// stderr and the program exits with status 1; when every check passes the last
// line is "claim holds: <claim>" (the CTest test matches it). A library error
// (a bad spec, a failed simulation) exits with status 2.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "railyard/core/ids.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace study {

using Groups = std::vector<std::vector<railyard::routing::GpuEndpoint>>;

// The value of `r`, or exit(2) naming what failed.
template <class T>
T need(railyard::StatusOr<T> r, std::string_view what) {
  if (!r.ok()) {
    std::fprintf(stderr, "error: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
                 static_cast<int>(r.status().message().size()), r.status().message().data());
    std::exit(2);
  }
  return *std::move(r);
}

inline railyard::topology::Cluster cluster(std::string_view spec) {
  return need(railyard::topology::make_cluster(spec), spec);
}

inline railyard::sim::CollectiveReport simulate(const railyard::topology::Cluster& c,
                                                const Groups& groups,
                                                railyard::collective::Collective kind,
                                                int64_t bytes,
                                                const railyard::sim::CollectiveSimOptions& o,
                                                std::string_view what) {
  return need(railyard::sim::simulate_collective(c, groups, kind, bytes, o), what);
}

// One group: every GPU of `hosts`, host by host, GPU 0..g-1 inside each.
inline Groups all_gpus(const std::vector<int32_t>& hosts, int32_t gpus_per_host) {
  Groups g(1);
  for (int32_t h : hosts)
    for (int32_t i = 0; i < gpus_per_host; ++i)
      g[0].push_back({railyard::HostId{h}, railyard::GpuIndex{i}});
  return g;
}

inline std::vector<int32_t> host_range(int32_t first, int32_t count) {
  std::vector<int32_t> out;
  for (int32_t h = first; h < first + count; ++h) out.push_back(h);
  return out;
}

// Typed host ids from the plain numbers a study writes its host lists in.
inline std::vector<railyard::HostId> host_ids(const std::vector<int32_t>& hosts) {
  std::vector<railyard::HostId> out;
  out.reserve(hosts.size());
  for (int32_t h : hosts) out.push_back(railyard::HostId{h});
  return out;
}

// The report's figures for one link tier (zeros when the fabric has none).
inline railyard::sim::TierUtilization tier(const railyard::sim::CollectiveReport& r,
                                           railyard::topology::LinkTier t) {
  for (const railyard::sim::TierUtilization& u : r.tiers)
    if (u.tier == t) return u;
  return {};
}

// Collects failed checks; finish() reports them and gives the exit status.
class Claim {
 public:
  explicit Claim(std::string claim) : claim_(std::move(claim)) {}

  // Records a check; `detail` says what was compared (printed when it fails).
  bool check(bool ok, const std::string& detail) {
    if (!ok) {
      ++failed_;
      std::fprintf(stderr, "claim violated: %s: %s\n", claim_.c_str(), detail.c_str());
    }
    return ok;
  }

  [[nodiscard]] int finish() const {
    if (failed_ > 0) {
      std::printf("claim violated (%d check%s failed): %s\n", failed_, failed_ == 1 ? "" : "s",
                  claim_.c_str());
      return 1;
    }
    std::printf("claim holds: %s\n", claim_.c_str());
    return 0;
  }

 private:
  std::string claim_;
  int failed_ = 0;
};

// printf into a std::string.
template <class... A>
std::string fmt(const char* f, A... a) {
  const int n = std::snprintf(nullptr, 0, f, a...);
  std::string s(static_cast<size_t>(n > 0 ? n : 0), '\0');
  std::snprintf(s.data(), s.size() + 1, f, a...);
  return s;
}

}  // namespace study
