// Shared test helpers: a descriptor from a spec (the test fails if it does not
// parse) and a Status message as std::string.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace railyard::testing {

inline topology::ClusterDescriptor<> descriptor_of(std::string_view spec) {
  auto parsed = topology::parse_cluster(spec);
  REQUIRE_MESSAGE(parsed.ok(), std::string(spec), ": ", std::string(parsed.status().message()));
  auto desc = topology::make_descriptor(*parsed);
  REQUIRE(desc.ok());
  return *desc;
}

inline std::string message_text(const absl::Status& s) { return std::string(s.message()); }

// Host ids from plain integers, as tests write host lists.
inline std::vector<HostId> host_ids(std::span<const int32_t> ids) {
  std::vector<HostId> out;
  out.reserve(ids.size());
  for (int32_t h : ids) out.push_back(HostId{h});
  return out;
}
inline std::vector<HostId> host_ids(std::initializer_list<int32_t> ids) {
  return host_ids(std::span<const int32_t>(ids.begin(), ids.size()));
}

}  // namespace railyard::testing
