// The Status/StatusOr cases that must hold in both builds of core/status.hpp:
// with Abseil (status_test.cpp, part of railyard_tests) and with
// RAILYARD_STANDALONE_STATUS, the plugins' build (status_standalone.cpp, its
// own program without Abseil). Included once by each; not a header of its own.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "railyard/core/status.hpp"

namespace railyard_status_cases {

using railyard::Status;
using railyard::StatusCode;
using railyard::StatusOr;

inline StatusOr<int> parse_count(int raw) {
  if (raw <= 0) return railyard::invalid_field("count", std::to_string(raw), "must be positive");
  return raw;
}

inline StatusOr<int> doubled(int raw) {
  RAILYARD_ASSIGN_OR_RETURN(const int n, parse_count(raw));
  return 2 * n;
}

inline Status checked(int raw) {
  RAILYARD_RETURN_IF_ERROR(parse_count(raw).status());
  return railyard::ok_status();
}

TEST_CASE("status: codes are numbered as google.rpc.Code (absl::StatusCode)") {
  // https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto
  CHECK(static_cast<int>(StatusCode::kOk) == 0);
  CHECK(static_cast<int>(StatusCode::kInvalidArgument) == 3);
  CHECK(static_cast<int>(StatusCode::kNotFound) == 5);
  CHECK(static_cast<int>(StatusCode::kAlreadyExists) == 6);
  CHECK(static_cast<int>(StatusCode::kResourceExhausted) == 8);
  CHECK(static_cast<int>(StatusCode::kFailedPrecondition) == 9);
  CHECK(static_cast<int>(StatusCode::kInternal) == 13);
  CHECK(static_cast<int>(StatusCode::kUnavailable) == 14);
  CHECK(railyard::not_found_error("x").code() == StatusCode::kNotFound);
  CHECK(railyard::internal_error("x").code() == StatusCode::kInternal);
  CHECK(railyard::ok_status().ok());
}

TEST_CASE("status: invalid_field names the field in the text and carries it as data") {
  const Status s = railyard::invalid_field("count", "0", "must be positive");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(railyard::message_of(s) == "count=0: must be positive");
  REQUIRE(railyard::error_field(s).has_value());
  CHECK(railyard::error_field(s)->field == "count");
  CHECK(railyard::error_field(s)->value == "0");
  CHECK(railyard::has_field(s, "count"));
  CHECK_FALSE(railyard::has_field(s, "hosts"));
  CHECK(railyard::error_problem(s) == "must be positive");
}

TEST_CASE("status: a value containing '=' survives, and an OK status takes no field") {
  const Status s =
      railyard::with_field(railyard::invalid_argument_error("bad order"), "plan", "order=a=b");
  CHECK(railyard::error_field(s)->field == "plan");
  CHECK(railyard::error_field(s)->value == "order=a=b");
  const Status ok = railyard::with_field(railyard::ok_status(), "plan", "x");
  CHECK(ok.ok());
  CHECK_FALSE(railyard::error_field(ok).has_value());
  CHECK_FALSE(railyard::error_field(railyard::invalid_argument_error("plain")).has_value());
}

TEST_CASE("status: with_context puts text first and keeps the code and the field") {
  const Status s = railyard::with_context(
      railyard::with_field(railyard::not_found_error("no such host"), "hosts", "9"), "job 'a'");
  CHECK(s.code() == StatusCode::kNotFound);
  CHECK(railyard::message_of(s) == "job 'a': no such host");
  CHECK(railyard::has_field(s, "hosts"));
  CHECK(railyard::with_context(railyard::ok_status(), "job 'a'").ok());
}

TEST_CASE("status: StatusOr holds a value or the error, and never aborts on misuse") {
  const StatusOr<int> good = parse_count(4);
  REQUIRE(good.ok());
  CHECK(*good == 4);
  CHECK(good.value() == 4);
  const StatusOr<int> bad = parse_count(0);
  CHECK_FALSE(bad.ok());
  CHECK(railyard::has_field(bad.status(), "count"));
  // A bad access throws (a plugin boundary catches it) instead of aborting.
  CHECK_THROWS_AS((void)bad.value(), std::logic_error);
  // Default-constructed: an error until assigned; built from OK: an error too.
  CHECK(StatusOr<int>().status().code() == StatusCode::kUnknown);
  CHECK(StatusOr<int>(railyard::ok_status()).status().code() == StatusCode::kInternal);
  // Move-only values.
  StatusOr<std::unique_ptr<int>> owned = std::make_unique<int>(7);
  REQUIRE(owned.ok());
  std::unique_ptr<int> taken = std::move(owned).value();
  CHECK(*taken == 7);
}

TEST_CASE("status: the macros return errors with their field and pass values through") {
  CHECK(*doubled(5) == 10);
  const StatusOr<int> e = doubled(-1);
  CHECK_FALSE(e.ok());
  CHECK(railyard::message_of(e.status()) == "count=-1: must be positive");
  CHECK(railyard::has_field(e.status(), "count"));
  CHECK(checked(1).ok());
  CHECK(railyard::has_field(checked(0), "count"));
}

}  // namespace railyard_status_cases
