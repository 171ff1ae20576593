#include "railyard/core/parse.hpp"

#include <doctest/doctest.h>

#include "../support/clusters.hpp"

#include <random>
#include <string>
#include <vector>

#include "railyard/core/fast_div.hpp"

using railyard::format_host_list;
using railyard::parse_host_list;
using railyard::parse_int;
using railyard::parse_ratio;
using railyard::parse_size;

namespace {
// The error must be InvalidArgument and name the field and the value.
void check_error(const absl::Status& status, const std::string& field, const std::string& value) {
  CHECK(absl::IsInvalidArgument(status));
  const std::string message(status.message());
  CHECK_MESSAGE(message.find(field + "=" + value) != std::string::npos, message);
}
}  // namespace

TEST_CASE("parse_int: accepts digits only, rejects signs, garbage and overflow") {
  CHECK(*parse_int("n", "0") == 0);
  CHECK(*parse_int("n", "9223372036854775807") == INT64_MAX);
  for (const char* bad : {"", "-1", "+1", "1x", "x1", " 1", "1 ", "1.5", "0x10"})
    check_error(parse_int("n", bad).status(), "n", bad);
  check_error(parse_int("n", "9223372036854775808").status(), "n", "9223372036854775808");
}

TEST_CASE("parse_ratio: down:up and bare numbers") {
  CHECK(*parse_ratio("oversub", "2:1") == railyard::Ratio{2, 1});
  CHECK(*parse_ratio("oversub", "3") == railyard::Ratio{3, 1});
  CHECK(*parse_ratio("oversub", "3:2") == railyard::Ratio{3, 2});
  CHECK(parse_ratio("oversub", "7:1")->value() == doctest::Approx(7.0));
  CHECK(*parse_ratio("oversub", "4:2") == railyard::Ratio{2, 1});  // lowest terms
  CHECK(*parse_ratio("oversub", "2:2") == railyard::Ratio{1, 1});
  for (const char* bad : {"0", "0:1", "1:0", "2:", ":1", "a:b", "1:2", "2:1:1", "1001:1"})
    check_error(parse_ratio("oversub", bad).status(), "oversub", bad);
}

TEST_CASE("parse_host_list: ranges, order kept, errors name the value") {
  auto hosts = parse_host_list("hosts", "0-15,32-47");
  REQUIRE(hosts.ok());
  CHECK(hosts->size() == 32);
  CHECK(hosts->front() == railyard::HostId{0});
  CHECK((*hosts)[16] == railyard::HostId{32});
  CHECK(*parse_host_list("hosts", "7,3,5") == railyard::testing::host_ids({7, 3, 5}));
  check_error(parse_host_list("hosts", "").status(), "hosts", "");
  check_error(parse_host_list("hosts", "5-3").status(), "hosts", "5-3");
  check_error(parse_host_list("hosts", "1,2,1").status(), "hosts", "1,2,1");
  check_error(parse_host_list("hosts", "0-3,2").status(), "hosts", "0-3,2");
  check_error(parse_host_list("hosts", "1,,2").status(), "hosts", "1,,2");
  check_error(parse_host_list("hosts", "a-b").status(), "hosts", "a-b");
  check_error(parse_host_list("hosts", "0-128", 128).status(), "hosts", "0-128");
  CHECK(parse_host_list("hosts", "0-127", 128).ok());
  // A huge range is refused before it is expanded.
  check_error(parse_host_list("hosts", "0-2000000000").status(), "hosts", "0-2000000000");
  check_error(parse_host_list("hosts", "0-99,100-199", 150).status(), "hosts", "0-99,100-199");
}

TEST_CASE("format_host_list: round trip over random lists") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<railyard::HostId> ids;
    std::vector<bool> used(200, false);
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      auto h = static_cast<int32_t>(rng() % 200);
      if (used[static_cast<size_t>(h)]) continue;
      used[static_cast<size_t>(h)] = true;
      ids.push_back(railyard::HostId{h});
    }
    if (trial % 2 == 0) std::sort(ids.begin(), ids.end());
    const std::string text = format_host_list(ids);
    auto back = parse_host_list("hosts", text);
    REQUIRE_MESSAGE(back.ok(), text);
    CHECK(*back == ids);
  }
  CHECK(format_host_list(railyard::testing::host_ids({0, 1, 2, 3, 7, 9, 10})) == "0-3,7,9-10");
  CHECK(railyard::format_id_list(std::vector<int32_t>{4, 5, 6, 1}) == "4-6,1");
}

TEST_CASE("parse_size: binary and decimal suffixes, case-insensitive") {
  CHECK(*parse_size("bytes", "4096") == 4096);
  CHECK(*parse_size("bytes", "512B") == 512);
  CHECK(*parse_size("bytes", "256MiB") == 256ull << 20);
  CHECK(*parse_size("bytes", "1GiB") == 1ull << 30);
  CHECK(*parse_size("bytes", "1gib") == 1ull << 30);
  CHECK(*parse_size("bytes", "2TiB") == 2ull << 40);
  CHECK(*parse_size("bytes", "4KiB") == 4096);
  CHECK(*parse_size("bytes", "3K") == 3000);
  CHECK(*parse_size("bytes", "5MB") == 5000000);
  CHECK(*parse_size("bytes", "2G") == 2000000000);
  for (const char* bad : {"", "MiB", "1.5GiB", "-1", "12XB", "1 MiB", "99999999999TiB"})
    check_error(parse_size("bytes", bad).status(), "bytes", bad);
}

TEST_CASE("fast_div: exact quotient and remainder against hardware division") {
  std::mt19937 rng(1);
  for (uint32_t d :
       {1u, 2u, 3u, 7u, 32u, 63u, 64u, 100u, 4095u, 65537u, 0x7fffffffu, 0xffffffffu}) {
    const railyard::FastDivisor fd(d);
    for (uint32_t n : {0u, 1u, d - 1, d, d + 1, 0xffffffffu, 0xfffffffeu}) {
      CHECK(fd.div(n) == n / d);
      CHECK(fd.mod(n) == n % d);
    }
    for (int i = 0; i < 20000; ++i) {
      const uint32_t n = static_cast<uint32_t>(rng());
      REQUIRE(fd.div(n) == n / d);
      REQUIRE(fd.mod(n) == n % d);
    }
  }
  static_assert(railyard::FastDivisor(32).div(100) == 3);
  static_assert(railyard::FastDivisor(32).mod(100) == 4);
}
