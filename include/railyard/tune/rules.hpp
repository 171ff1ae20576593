// railyard/tune/rules.hpp — tuning rules in the file format of NCCL's example
// tuner (NCCL_TUNER_CONFIG_FILE): the one rule type railyard writes (`railyard
// plan --out`: jobs/<job>/nccl_tuner.conf) and its tuner plugin reads.
//
//   railyard::tune::TuningRule r;                          // allreduce, ring, simple
//   r.coll = 4; r.min_bytes = 4 << 20; r.algo = railyard::tune::nccl::kAlgoRing;
//   std::string text = railyard::tune::format_tuning_rules({{r, {"why: simulated"}}});
//   railyard::tune::TuningRules back = railyard::tune::parse_tuning_rules(text);
//   // back.rules[0] has the same fields as r; back.warnings is empty
//
// The format, one rule per line, as NCCL's example tuner reads it
// (NVIDIA/nccl plugins/tuner/example/plugin.c, loadConfig and pluginGetCollInfo):
//   coll,min_bytes,max_bytes,algo,proto,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
//   e.g. `allreduce,4194304,-1,ring,simple,-1,8,64`
// * coll broadcast, reduce, allgather, reducescatter, allreduce; algo tree, ring,
//   collnet_direct, collnet_chain, nvls, nvls_tree, pat; proto ll, ll128, simple
//   (lower case, as NCCL compares them).
// * min_bytes and max_bytes are read with strtoull: any 64-bit value, and -1 is
//   2^64 - 1, so max_bytes -1 means "no upper bound". min_bytes -1 would be
//   2^64 - 1 too (the rule could never match): railyard refuses it with a warning.
// * channels -1 keeps NCCL's count; nNodes, nRanks, numPipeOps, regBuff -1 match
//   anything; numPipeOps and regBuff may be left out (then -1).
// * Lines whose first character is '#' and empty lines are skipped. NCCL reads
//   lines with a 256-byte buffer: a line of 256 characters or more is split
//   there, so railyard refuses such lines and never writes one.
// * Fields are separated by ',' and trimmed of spaces and tabs (and of a '\r').
// Where the example tuner silently guesses (an unknown name becomes allreduce,
// ring or simple; an empty field shifts the others), railyard reports the line
// (number and token) and skips it: a rule file either means what it says or is
// flagged. The first rule that matches a call and whose entry NCCL allows wins.
//
// format_tuning_rules() writes the canonical form: all eight fields, then
// numPipeOps and regBuff only when set, max_bytes -1 when unbounded;
// parse_tuning_rules(format_tuning_rules(x)) gives the rules of x back, with no
// warning (tests/tune/rules_test.cpp checks it on random rules).
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/tune/nccl.hpp"

namespace railyard::tune {

// One rule line. -1 in nodes, ranks, pipe_ops, reg_buff means any; channels -1
// leaves *nChannels to NCCL.
struct TuningRule {
  int32_t coll = static_cast<int32_t>(nccl::Func::kAllReduce);
  uint64_t min_bytes = 0;
  uint64_t max_bytes = std::numeric_limits<uint64_t>::max();  // -1 in the file
  int32_t algo = nccl::kAlgoRing;
  int32_t proto = nccl::kProtoSimple;
  int32_t channels = -1;
  int32_t nodes = -1;
  int32_t ranks = -1;
  int32_t pipe_ops = -1;
  int32_t reg_buff = -1;
  int32_t line = 0;  // 1-based line in the rule text (0: not read from a file)

  // The same rule, wherever it was read from.
  [[nodiscard]] friend bool same_rule(const TuningRule& a, const TuningRule& b) {
    return a.coll == b.coll && a.min_bytes == b.min_bytes && a.max_bytes == b.max_bytes &&
           a.algo == b.algo && a.proto == b.proto && a.channels == b.channels &&
           a.nodes == b.nodes && a.ranks == b.ranks && a.pipe_ops == b.pipe_ops &&
           a.reg_buff == b.reg_buff;
  }
  friend bool operator==(const TuningRule&, const TuningRule&) = default;
};

// A rule with the comment lines written above it (why it is there).
struct NotedRule {
  TuningRule rule;
  std::vector<std::string> notes;  // one '#' comment line each
};

// Parsed rules in file order, and one message per ignored line
// ("line 3: token 'alreduce' (coll): unknown collective ...; line ignored").
struct TuningRules {
  std::vector<TuningRule> rules;
  std::vector<std::string> warnings;
};

// NCCL's example tuner reads lines into a 256-byte buffer (MAX_LINE_LENGTH).
inline constexpr size_t kMaxRuleLineLength = 255;

namespace detail {

RAILYARD_LAZY
std::string_view rule_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A decimal integer in [lo, hi] (a leading '-' allowed when lo < 0).
RAILYARD_LAZY
std::optional<int64_t> rule_int(std::string_view text, int64_t lo, int64_t hi) {
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v < lo || v > hi) return std::nullopt;
  return v;
}

// A byte bound as strtoull reads it, but strictly: -1, or 0 .. 2^64 - 1.
RAILYARD_LAZY
std::optional<uint64_t> rule_bytes(std::string_view text) {
  if (text == "-1") return std::numeric_limits<uint64_t>::max();
  if (text.empty()) return std::nullopt;
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

RAILYARD_LAZY
std::string rule_bytes_text(uint64_t v) {
  return v == std::numeric_limits<uint64_t>::max() ? std::string("-1") : str_cat(v);
}

}  // namespace detail

// Parses rule text (format above). Never fails: a bad line becomes a warning.
// O(text length).
RAILYARD_LAZY
[[nodiscard]] TuningRules parse_tuning_rules(std::string_view text) {
  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
  TuningRules out;
  int32_t line_no = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++line_no;
    const std::string_view line = detail::rule_trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (raw.size() > kMaxRuleLineLength + (raw.ends_with('\r') ? 1 : 0)) {
      out.warnings.push_back(str_cat("line ", line_no, ": ", raw.size(),
                                     " characters; NCCL's example tuner reads at most ",
                                     kMaxRuleLineLength, " per line; line ignored"));
      continue;
    }
    std::vector<std::string_view> tok = split(line, ',');
    for (std::string_view& t : tok) t = detail::rule_trim(t);
    auto bad = [&](size_t field, std::string_view what, std::string_view problem) {
      out.warnings.push_back(str_cat("line ", line_no, ": token '", tok[field], "' (", what,
                                     "): ", problem, "; line ignored"));
    };
    if (tok.size() < 8 || tok.size() > 10) {
      out.warnings.push_back(str_cat("line ", line_no, ": ", tok.size(),
                                     " fields, expected 8 to 10 (coll,min_bytes,max_bytes,algo,"
                                     "proto,channels,nNodes,nRanks[,numPipeOps[,regBuff]]); "
                                     "line ignored"));
      continue;
    }
    TuningRule r;
    r.line = line_no;
    const auto coll = nccl::collective_by_name(tok[0]);
    if (!coll) {
      bad(0, "coll", "unknown collective (broadcast, reduce, allgather, reducescatter, allreduce)");
      continue;
    }
    r.coll = *coll;
    const auto min_b = detail::rule_bytes(tok[1]);
    if (!min_b || *min_b == std::numeric_limits<uint64_t>::max()) {
      bad(1, "min_bytes",
          !min_b ? "expected a byte count"
                 : "NCCL's example tuner reads -1 as 2^64 - 1, so the rule could never match; "
                   "use 0");
      continue;
    }
    r.min_bytes = *min_b;
    const auto max_b = detail::rule_bytes(tok[2]);
    if (!max_b) {
      bad(2, "max_bytes", "expected a byte count or -1 (no upper bound)");
      continue;
    }
    r.max_bytes = *max_b;
    if (r.max_bytes < r.min_bytes) {
      bad(2, "max_bytes", "is below min_bytes");
      continue;
    }
    const auto algo = nccl::algorithm_by_name(tok[3]);
    if (!algo) {
      bad(3, "algo",
          "unknown algorithm (tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat)");
      continue;
    }
    r.algo = *algo;
    const auto proto = nccl::protocol_by_name(tok[4]);
    if (!proto) {
      bad(4, "proto", "unknown protocol (ll, ll128, simple)");
      continue;
    }
    r.proto = *proto;
    struct IntField {
      size_t index;
      std::string_view name;
      int64_t lo, hi;
      int32_t* dst;
    };
    const IntField ints[] = {{5, "channels", -1, 64, &r.channels},
                             {6, "nNodes", -1, kIntMax, &r.nodes},
                             {7, "nRanks", -1, kIntMax, &r.ranks},
                             {8, "numPipeOps", -1, kIntMax, &r.pipe_ops},
                             {9, "regBuff", -1, 1, &r.reg_buff}};
    bool ok = true;
    for (const IntField& f : ints) {
      if (f.index >= tok.size()) break;
      const auto v = detail::rule_int(tok[f.index], f.lo, f.hi);
      if (!v || (*v == 0 && (f.name == "nNodes" || f.name == "nRanks"))) {
        bad(f.index, f.name,
            str_cat("expected -1 or an integer in [", f.lo < 0 ? 0 : f.lo, ", ", f.hi, "]",
                    f.name == "nNodes" || f.name == "nRanks" ? " (not 0)" : ""));
        ok = false;
        break;
      }
      *f.dst = static_cast<int32_t>(*v);
    }
    if (ok) out.rules.push_back(r);
  }
  return out;
}

// One rule as a line (no newline), canonical form (see the overview).
RAILYARD_LAZY
[[nodiscard]] std::string format_tuning_rule(const TuningRule& r) {
  std::string out = str_cat(nccl::kCollectiveNames[static_cast<size_t>(r.coll)], ",", r.min_bytes,
                            ",", detail::rule_bytes_text(r.max_bytes), ",",
                            nccl::kAlgorithmNames[static_cast<size_t>(r.algo)], ",",
                            nccl::kProtocolNames[static_cast<size_t>(r.proto)], ",", r.channels,
                            ",", r.nodes, ",", r.ranks);
  if (r.pipe_ops != -1 || r.reg_buff != -1) str_append(out, ",", r.pipe_ops);
  if (r.reg_buff != -1) str_append(out, ",", r.reg_buff);
  return out;
}

// A whole rule file: `header` lines as comments, then each rule with its notes
// as comment lines above it. Every line stays within kMaxRuleLineLength (longer
// comments are cut). Precondition: coll, algo and proto are in NCCL's ranges.
RAILYARD_LAZY
[[nodiscard]] std::string format_tuning_rules(std::span<const NotedRule> rules,
                                                     std::span<const std::string> header = {}) {
  std::string out;
  auto comment = [&](std::string_view text) {
    std::string line = str_cat("# ", text);
    if (line.size() > kMaxRuleLineLength) line.resize(kMaxRuleLineLength);
    str_append(out, line, "\n");
  };
  for (const std::string& h : header) comment(h);
  for (const NotedRule& n : rules) {
    for (const std::string& note : n.notes) comment(note);
    str_append(out, format_tuning_rule(n.rule), "\n");
  }
  return out;
}

}  // namespace railyard::tune
