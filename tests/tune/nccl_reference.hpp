// NCCL 2.30.7's own cost tables, as its code computed them on railyard's
// topology files (tests/tune/data/nccl-2.30.7/README.md): the external reference
// the tuner's port of NCCL's model and its choices are checked against.
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/strings.hpp"
#include "railyard/tune/nccl.hpp"

namespace nccl_reference {

namespace nccl = railyard::tune::nccl;

// One call NCCL's cost table was filled for.
struct Row {
  int coll = 0;
  size_t bytes = 0;
  int pipe_ops = 1;
  bool fp8 = false;
  int choice_algo = -1, choice_proto = -1;  // topoGetAlgoInfo's pick
  std::array<float, nccl::kNumAlgorithms * nccl::kNumProtocols> cost{};  // -1: not asked
};

struct Case {
  std::string_view file;     // under tests/tune/data/nccl-2.30.7/
  std::string_view cluster;  // the railyard spec of the host NCCL was run on
  int ranks = 0;
  int nodes = 0;
};

// The runs recorded (README.md there says how each topology was made).
inline constexpr std::array<Case, 6> kCases = {{
    {"hgx-h100-64-nodes.csv", "h100-1024", 512, 64},
    {"hgx-h100-1-node.csv", "h100-1024", 8, 1},
    {"hgx-h100-2-nodes.csv", "h100-1024", 16, 2},
    {"hgx-h100-amd-64-nodes.csv", "rail_fat_tree:hosts=128,cpu=amd", 512, 64},
    {"hgx-b200-64-nodes.csv", "rail_fat_tree:hosts=128,gpu=b200", 512, 64},
    {"gb200-nvl72-8-domains.csv", "gb200-nvl72-576", 576, 8},
}};

inline std::string data_dir() {
  std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/')) + "/data/nccl-2.30.7/";
}

inline std::vector<Row> read(std::string_view file) {
  std::ifstream in(data_dir() + std::string(file));
  REQUIRE_MESSAGE(in.good(), "cannot open ", data_dir(), file);
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string_view> f = railyard::split(line, ',');
    REQUIRE(f.size() == 5 + 21);
    Row r;
    r.coll = nccl::collective_by_name(f[0]).value_or(-1);
    r.bytes = std::strtoull(std::string(f[1]).c_str(), nullptr, 10);
    r.pipe_ops = std::atoi(std::string(f[2]).c_str());
    r.fp8 = f[3].starts_with("fp8");
    const size_t slash = f[4].find('/');
    r.choice_algo = nccl::algorithm_by_name(f[4].substr(0, slash)).value_or(-1);
    r.choice_proto = nccl::protocol_by_name(f[4].substr(slash + 1)).value_or(-1);
    for (size_t i = 0; i < 21; ++i) r.cost[i] = std::strtof(std::string(f[5 + i]).c_str(), nullptr);
    REQUIRE(r.coll >= 0);
    rows.push_back(r);
  }
  REQUIRE(rows.size() > 100);
  return rows;
}

}  // namespace nccl_reference
