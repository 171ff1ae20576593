// Tests for railyard/tune/rules.hpp: rule files as NCCL's example tuner reads
// them, the canonical writer, and the round trip between the two.
#include "railyard/tune/rules.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_tune_rules_test {

namespace {

namespace rt = railyard::tune;
namespace nccl = railyard::tune::nccl;

// NCCL's example tuner's reading of one rule line, written independently from
// its description (NVIDIA/nccl plugins/tuner/example/plugin.c, loadConfig):
// strtok on ',' (empty fields vanish), spaces and tabs trimmed, 8 to 10 tokens,
// strtoull for the byte bounds, atoi for the integers, -1 for missing optional
// fields. Names are compared exactly; an unknown name would silently become
// allreduce / ring / simple there, which railyard refuses instead, so the
// reference returns false for unknown names.
struct Reference {
  int coll, algo, proto, channels, nodes, ranks, pipe_ops, reg_buff;
  unsigned long long min_bytes, max_bytes;
};
bool reference_read(const std::string& line, Reference& out) {
  std::vector<std::string> tokens;
  std::string copy = line;
  for (char* tok = std::strtok(copy.data(), ","); tok != nullptr; tok = std::strtok(nullptr, ",")) {
    std::string s(tok);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    tokens.push_back(s);
  }
  if (tokens.size() < 8 || tokens.size() > 10) return false;
  auto index = [](const auto& names, const std::string& s) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == s) return static_cast<int>(i);
    return -1;
  };
  out.coll = index(nccl::kCollectiveNames, tokens[0]);
  out.algo = index(nccl::kAlgorithmNames, tokens[3]);
  out.proto = index(nccl::kProtocolNames, tokens[4]);
  if (out.coll < 0 || out.algo < 0 || out.proto < 0) return false;
  out.min_bytes = std::strtoull(tokens[1].c_str(), nullptr, 10);
  out.max_bytes = std::strtoull(tokens[2].c_str(), nullptr, 10);
  out.channels = std::atoi(tokens[5].c_str());
  out.nodes = std::atoi(tokens[6].c_str());
  out.ranks = std::atoi(tokens[7].c_str());
  out.pipe_ops = tokens.size() >= 9 ? std::atoi(tokens[8].c_str()) : -1;
  out.reg_buff = tokens.size() >= 10 ? std::atoi(tokens[9].c_str()) : -1;
  return true;
}

rt::TuningRule random_rule(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  rt::TuningRule r;
  r.coll = static_cast<int32_t>(pick(0, nccl::kNumTunedFunctions - 1));
  r.algo = static_cast<int32_t>(pick(0, nccl::kNumAlgorithms - 1));
  r.proto = static_cast<int32_t>(pick(0, nccl::kNumProtocols - 1));
  r.min_bytes = rng() % 3 == 0 ? 0 : rng() >> pick(1, 63);
  r.max_bytes = rng() % 3 == 0 ? std::numeric_limits<uint64_t>::max()
                               : r.min_bytes + (rng() >> pick(1, 63)) / 2;
  if (r.max_bytes < r.min_bytes) r.max_bytes = r.min_bytes;
  r.channels = static_cast<int32_t>(pick(-1, 64));
  r.nodes = rng() % 2 ? -1 : static_cast<int32_t>(pick(1, 100000));
  r.ranks = rng() % 2 ? -1 : static_cast<int32_t>(pick(1, 1 << 20));
  r.pipe_ops = rng() % 2 ? -1 : static_cast<int32_t>(pick(0, 64));
  r.reg_buff = static_cast<int32_t>(pick(-1, 1));
  return r;
}

}  // namespace

TEST_CASE("rules: lines parse, and bad lines are named and skipped") {
  const rt::TuningRules r = rt::parse_tuning_rules(
      "# comment\n"
      "\n"
      "allreduce,0,65536,tree,ll,4,-1,-1\r\n"
      " allgather , 1024 , -1 , ring , simple , -1 , 8 , 64 , 2 , 1 \n"
      "alreduce,0,1,ring,ll,1,-1,-1\n"
      "allreduce,x,1,ring,ll,1,-1,-1\n"
      "allreduce,0,1,ring,ll\n"
      "allreduce,0,1,ring,ll,1,0,-1\n"
      "allreduce,0,1,ring,ll,1,-1,-1,-1,2\n"
      "allreduce,10,1,ring,ll,1,-1,-1\n"
      "broadcast,0,1,pat,ll3,1,-1,-1\n"
      "reducescatter,0,1,nvls_tree,simple,-1,-1,-1\n"
      "allreduce,0,18446744073709551615,RING,simple,-1,-1,-1\n"
      "allreduce,-1,-1,ring,simple,-1,-1,-1\n"
      "allreduce,0,18446744073709551616,ring,simple,-1,-1,-1\n");
  REQUIRE(r.rules.size() == 3);
  CHECK(r.rules[0] == rt::TuningRule{4, 0, 65536, 0, 0, 4, -1, -1, -1, -1, 3});
  CHECK(r.rules[1] == rt::TuningRule{2, 1024, UINT64_MAX, 1, 2, -1, 8, 64, 2, 1, 4});
  CHECK(r.rules[2].line == 12);
  REQUIRE(r.warnings.size() == 10);
  CHECK(r.warnings[0].find("line 5: token 'alreduce' (coll)") == 0);
  CHECK(r.warnings[1].find("line 6: token 'x' (min_bytes)") == 0);
  CHECK(r.warnings[2].find("line 7: 5 fields") == 0);
  CHECK(r.warnings[3].find("line 8: token '0' (nNodes)") == 0);
  CHECK(r.warnings[4].find("line 9: token '2' (regBuff)") == 0);
  CHECK(r.warnings[5].find("line 10: token '1' (max_bytes): is below min_bytes") == 0);
  CHECK(r.warnings[6].find("line 11: token 'll3' (proto)") == 0);
  // NCCL compares names exactly; 'RING' would silently become ring there.
  CHECK(r.warnings[7].find("line 13: token 'RING' (algo)") == 0);
  // min_bytes -1 is 2^64 - 1 to NCCL: the rule could never match.
  CHECK(r.warnings[8].find("line 14: token '-1' (min_bytes): NCCL's example tuner reads -1") ==
        0);
  CHECK(r.warnings[9].find("line 15: token '18446744073709551616' (max_bytes)") == 0);
  for (const std::string& w : r.warnings) CHECK(w.find("line ignored") != std::string::npos);
}

TEST_CASE("rules: max_bytes 2^64 - 1 and -1 are the same unbounded rule, as with strtoull") {
  const rt::TuningRules r = rt::parse_tuning_rules(
      "allreduce,0,18446744073709551615,ring,simple,-1,-1,-1\n"
      "allreduce,0,-1,ring,simple,-1,-1,-1\n");
  REQUIRE(r.rules.size() == 2);
  CHECK(same_rule(r.rules[0], r.rules[1]));
  CHECK(r.rules[0].max_bytes == std::numeric_limits<uint64_t>::max());
}

TEST_CASE("rules: a line of 256 characters or more is refused (NCCL reads 255 per line)") {
  std::string pad(240, ' ');
  const std::string ok = "allreduce,0,1,ring,simple,-1,-1,-1" + std::string(255 - 34, ' ');
  const std::string long_line = "allreduce,0,1,ring,simple,-1,-1,-1" + pad;
  REQUIRE(ok.size() == 255);
  CHECK(rt::parse_tuning_rules(ok).rules.size() == 1);
  const rt::TuningRules r = rt::parse_tuning_rules(long_line + "\n");
  CHECK(r.rules.empty());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("NCCL's example tuner reads at most 255") != std::string::npos);
}

TEST_CASE("rules: written rules read back the same, and read the same by NCCL's example") {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<rt::NotedRule> rules;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i)
      rules.push_back({random_rule(rng), {std::string(rng() % 400, 'x'), "why"}});
    const std::vector<std::string> header = {"railyard test", std::string(300, 'h')};
    const std::string text = rt::format_tuning_rules(rules, header);
    const rt::TuningRules back = rt::parse_tuning_rules(text);
    CHECK(back.warnings.empty());
    REQUIRE(back.rules.size() == rules.size());
    size_t i = 0;
    for (const std::string_view line : railyard::split(text, '\n')) {
      CHECK(line.size() <= rt::kMaxRuleLineLength);
      if (line.empty() || line.front() == '#') continue;
      const rt::TuningRule& want = rules[i].rule;
      CHECK(same_rule(back.rules[i], want));
      Reference ref{};
      REQUIRE(reference_read(std::string(line), ref));
      CHECK(ref.coll == want.coll);
      CHECK(ref.algo == want.algo);
      CHECK(ref.proto == want.proto);
      CHECK(ref.min_bytes == want.min_bytes);
      CHECK(ref.max_bytes == want.max_bytes);
      CHECK(ref.channels == want.channels);
      CHECK(ref.nodes == want.nodes);
      CHECK(ref.ranks == want.ranks);
      CHECK(ref.pipe_ops == want.pipe_ops);
      CHECK(ref.reg_buff == want.reg_buff);
      ++i;
    }
    CHECK(i == rules.size());
  }
}

TEST_CASE("rules: accepted lines are read as NCCL's example reads them") {
  // Random well-formed lines with padding, optional fields and CRLF: whatever
  // railyard accepts, the reference reads identically.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const rt::TuningRule r = random_rule(rng);
    std::string line = rt::format_tuning_rule(r);
    std::string padded;
    for (char c : line) {
      if (c == ',' && rng() % 3 == 0) padded += rng() % 2 ? " , " : "\t,";
      else padded += c;
    }
    const rt::TuningRules back = rt::parse_tuning_rules(padded + (rng() % 2 ? "\r\n" : "\n"));
    REQUIRE(back.rules.size() == 1);
    Reference ref{};
    REQUIRE(reference_read(padded, ref));
    CHECK(ref.min_bytes == back.rules[0].min_bytes);
    CHECK(ref.max_bytes == back.rules[0].max_bytes);
    CHECK(ref.channels == back.rules[0].channels);
    CHECK(ref.reg_buff == back.rules[0].reg_buff);
    CHECK(same_rule(back.rules[0], r));
  }
}

}  // namespace railyard_test_tune_rules_test
