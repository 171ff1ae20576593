#include "railyard/core/parse.hpp"

#include <doctest/doctest.h>

#include "../support/clusters.hpp"

#include <random>
#include <string>
#include <vector>

#include "railyard/core/fast_div.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_parse_test {

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

TEST_CASE("parse_size_in: bounds in the message, powers of two as 2^k") {
  constexpr uint64_t kMax = uint64_t{1} << 50;
  CHECK(*railyard::parse_size_in("bytes", "1", 1, kMax) == 1);
  CHECK(*railyard::parse_size_in("bytes", "1125899906842624", 1, kMax) == kMax);
  auto zero = railyard::parse_size_in("bytes", "0", 1, kMax);
  check_error(zero.status(), "bytes", "0");
  CHECK(std::string(zero.status().message()) == "bytes=0: 0 bytes is outside [1, 2^50]");
  CHECK(railyard::has_field(zero.status(), "bytes"));
  auto over = railyard::parse_size_in("bytes", "2000TiB", 1, kMax);
  CHECK(std::string(over.status().message()) ==
        "bytes=2000TiB: 2199023255552000 bytes is outside [1, 2^50]");
  check_error(railyard::parse_size_in("bytes", "1125899906842625", 1, kMax).status(), "bytes",
              "1125899906842625");
  // The size grammar's own errors come first.
  CHECK(std::string(railyard::parse_size_in("bytes", "1GiBs", 1, kMax).status().message())
            .find("unknown size suffix") != std::string::npos);
  CHECK(std::string(railyard::parse_size_in("n", "1001", 1, 1000).status().message()) ==
        "n=1001: 1001 bytes is outside [1, 1000]");
}

TEST_CASE("parse_signed_int and parse_uint: signs where they belong, no overflow") {
  CHECK(*railyard::parse_signed_int("qps", "-3") == -3);
  CHECK(*railyard::parse_signed_int("qps", "0") == 0);
  CHECK(*railyard::parse_signed_int("qps", "-9223372036854775808") == INT64_MIN);
  for (const char* bad : {"", "-", "+1", "1x", " 1", "1 ", "1.5", "0x10", "--1", "three"})
    check_error(railyard::parse_signed_int("qps", bad).status(), "qps", bad);
  check_error(railyard::parse_signed_int("qps", "99999999999999999999").status(), "qps",
              "99999999999999999999");
  CHECK(*railyard::parse_signed_int_in("port", "-1", -5, 5) == -1);
  auto out = railyard::parse_signed_int_in("host", "99999999999", INT32_MIN, INT32_MAX);
  check_error(out.status(), "host", "99999999999");
  CHECK(std::string(out.status().message()).find("must be between -2147483648 and 2147483647") !=
        std::string::npos);

  CHECK(*railyard::parse_uint("seed", "18446744073709551615") == UINT64_MAX);
  for (const char* bad : {"", "-1", "+1", "1x", "18446744073709551616", " 7"})
    check_error(railyard::parse_uint("seed", bad).status(), "seed", bad);
}

TEST_CASE("parse_decimal and parse_decimal_in: plain decimals, a half-open range with units") {
  CHECK(*railyard::parse_decimal("gbps", "400") == 400.0);
  CHECK(*railyard::parse_decimal("gbps", "12.5") == 12.5);
  CHECK(*railyard::parse_decimal("gbps", "-5") == -5.0);
  for (const char* bad : {"", "-", ".5", "5.", "1e3", "0x1", "inf", "nan", " 1", "1 ", "+1", "1.2.3"})
    check_error(railyard::parse_decimal("gbps", bad).status(), "gbps", bad);

  CHECK(*railyard::parse_decimal_in("buffer_mb", "16", 0, 1e6, "MB") == 16.0);
  CHECK(*railyard::parse_decimal_in("buffer_mb", "1000000", 0, 1e6, "MB") == 1e6);
  auto message = [](const railyard::StatusOr<double>& r) { return std::string(r.status().message()); };
  CHECK(message(railyard::parse_decimal_in("buffer_mb", "0", 0, 1e6, "MB")) ==
        "buffer_mb=0: must be more than 0 MB");
  CHECK(message(railyard::parse_decimal_in("buffer_mb", "1000000.5", 0, 1e6, "MB")) ==
        "buffer_mb=1000000.5: must be at most 1000000 MB");
  CHECK(message(railyard::parse_decimal_in("buffer_mb", "lots", 0, 1e6, "MB")) ==
        "buffer_mb=lots: expected a number of MB such as 16 or 12.5");
  CHECK(message(railyard::parse_decimal_in("x", "1e3", 0, 1)) ==
        "x=1e3: expected a number such as 16 or 12.5");
  CHECK(railyard::has_field(railyard::parse_decimal_in("x", "-1", 0, 1).status(), "x"));
}

TEST_CASE("parse_fraction: decimals and a/b, above 0 and at most 1") {
  CHECK(*railyard::parse_fraction("start_rate", "0.25") == 0.25);
  CHECK(*railyard::parse_fraction("start_rate", "1/4") == 0.25);
  CHECK(*railyard::parse_fraction("start_rate", "1") == 1.0);
  CHECK(*railyard::parse_fraction("start_rate", "1/64") == doctest::Approx(1.0 / 64));
  CHECK(*railyard::parse_fraction("start_rate", "2.5/5") == 0.5);
  for (const char* bad : {"", "0", "1.5", "2/1", "1/0", "0/4", "-0.5", "0x1", " 0.5", "1/", "/2",
                          "1/2/3", "1e-1", "half"})
    check_error(railyard::parse_fraction("start_rate", bad).status(), "start_rate", bad);
  CHECK(std::string(railyard::parse_fraction("start_rate", "1.5").status().message()) ==
        "start_rate=1.5: must be a fraction in (0, 1]");
  CHECK(std::string(railyard::parse_fraction("start_rate", "0x1").status().message()) ==
        "start_rate=0x1: expected a fraction such as 0.25 or 1/4");
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

}  // namespace railyard_test_core_parse_test
