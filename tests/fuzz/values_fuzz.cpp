// Fuzz targets for the small values of spec strings, flags and files
// (core/parse.hpp): host lists, byte sizes and oversubscription ratios.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"

// Everything in this file is in its own namespace: the fuzz targets compile in
// one unity batch (tests/fuzz/CMakeLists.txt).
namespace railyard_fuzz_values_fuzz {

namespace {

using railyard::fuzz::kMaxInput;


// A rejected value must say so: a non-OK status whose message quotes the field.
void check_rejection(const absl::Status& status, std::string_view field) {
  RAILYARD_FUZZ_CHECK(!status.ok());
  RAILYARD_FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument,
                      "bad values are InvalidArgument");
  RAILYARD_FUZZ_CHECK(std::string(status.message()).find(field) != std::string::npos,
                      "the error names the field");
}

}  // namespace

// parse_host_list: every accepted list has unique ids below the limit, in the
// order written, and survives format_host_list -> parse_host_list unchanged.
RAILYARD_FUZZ_TARGET(host_list) {
  if (input.size() > kMaxInput) return;
  // The first byte picks the cluster size the ids must fit (1 .. 2^16 hosts).
  int64_t limit = 1 << 16;
  if (!input.empty()) {
    limit = int64_t{1} << (static_cast<unsigned char>(input[0]) % 17);
    input.remove_prefix(1);
  }
  auto hosts = railyard::parse_host_list("hosts", input, limit);
  if (!hosts.ok()) {
    check_rejection(hosts.status(), "hosts");
    return;
  }
  RAILYARD_FUZZ_CHECK(!hosts->empty(), "an accepted list names at least one host");
  RAILYARD_FUZZ_CHECK(static_cast<int64_t>(hosts->size()) <= limit);
  std::vector<railyard::HostId> sorted = *hosts;
  std::sort(sorted.begin(), sorted.end());
  RAILYARD_FUZZ_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
                      "no host twice");
  RAILYARD_FUZZ_CHECK(sorted.front().value() >= 0 && sorted.back().value() < limit,
                      "ids within the cluster");

  const std::string formatted = railyard::format_host_list(*hosts);
  auto again = railyard::parse_host_list("hosts", formatted, limit);
  RAILYARD_FUZZ_CHECK(again.ok() && *again == *hosts, "format_host_list round-trips");
  RAILYARD_FUZZ_CHECK(railyard::format_host_list(*again) == formatted, "formatting is canonical");
}

// parse_size: the value equals number x unit scale, computed independently
// here from the grammar (digits, then one of the documented suffixes), and
// plain decimal output parses back to the same value.
RAILYARD_FUZZ_TARGET(size) {
  if (input.size() > kMaxInput) return;
  auto bytes = railyard::parse_size("bytes", input);

  size_t digits = 0;
  while (digits < input.size() && input[digits] >= '0' && input[digits] <= '9') ++digits;
  std::string suffix;
  for (char c : input.substr(digits))
    suffix += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  uint64_t scale = 0;
  const std::pair<std::string_view, uint64_t> units[] = {
      {"", 1},          {"b", 1},           {"k", 1000},           {"kb", 1000},
      {"kib", 1 << 10}, {"m", 1000000},     {"mb", 1000000},       {"mib", 1 << 20},
      {"g", 1000000000}, {"gb", 1000000000}, {"gib", 1ull << 30},   {"t", 1000000000000},
      {"tb", 1000000000000}, {"tib", 1ull << 40}};
  for (const auto& [name, s] : units)
    if (suffix == name) scale = s;
  // The number and the product, with overflow tracked: both must fit a uint64.
  uint64_t number = 0;
  bool fits = digits > 0;
  for (size_t i = 0; fits && i < digits; ++i)
    fits = !__builtin_mul_overflow(number, uint64_t{10}, &number) &&
           !__builtin_add_overflow(number, static_cast<uint64_t>(input[i] - '0'), &number);
  uint64_t product = 0;
  const bool expect_ok = fits && scale != 0 && !__builtin_mul_overflow(number, scale, &product);
  RAILYARD_FUZZ_CHECK(bytes.ok() == expect_ok, "accepted exactly when the grammar allows");
  if (!bytes.ok()) {
    check_rejection(bytes.status(), "bytes");
    return;
  }
  RAILYARD_FUZZ_CHECK(*bytes == product, "value = number x unit");
  auto plain = railyard::parse_size("bytes", railyard::str_cat(*bytes));
  RAILYARD_FUZZ_CHECK(plain.ok() && *plain == *bytes, "plain bytes round-trip");
}

// parse_ratio: accepted ratios are in lowest terms, down >= up, both in 1..1000,
// and "down:up" parses back to the same ratio.
RAILYARD_FUZZ_TARGET(ratio) {
  if (input.size() > kMaxInput) return;
  auto ratio = railyard::parse_ratio("oversub", input);
  if (!ratio.ok()) {
    check_rejection(ratio.status(), "oversub");
    return;
  }
  RAILYARD_FUZZ_CHECK(ratio->up >= 1 && ratio->down >= ratio->up && ratio->down <= 1000);
  RAILYARD_FUZZ_CHECK(std::gcd(ratio->down, ratio->up) == 1, "lowest terms");
  auto again = railyard::parse_ratio("oversub", railyard::str_cat(ratio->down, ":", ratio->up));
  RAILYARD_FUZZ_CHECK(again.ok() && *again == *ratio, "down:up round-trips");
}

}  // namespace railyard_fuzz_values_fuzz
