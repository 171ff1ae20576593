// core/status.hpp with Abseil (the library's normal build); the cases shared
// with the standalone build are in status_cases.hpp.
#include "railyard/core/status.hpp"

#include <doctest/doctest.h>

#include <string>

#include "absl/status/statusor.h"
#include "status_cases.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_status_test {

TEST_CASE("error_problem: the problem without the field=value invalid_field put first") {
  const railyard::Status s = railyard::invalid_field("count", "0", "must be positive");
  CHECK(railyard::error_problem(s) == "must be positive");
  // with_context keeps the field but puts text first: the whole message then.
  const railyard::Status c = railyard::with_context(s, "job 'a'");
  CHECK(railyard::error_problem(c) == "job 'a': count=0: must be positive");
  CHECK(railyard::error_field(c)->field == "count");
  // No field: the whole message.
  CHECK(railyard::error_problem(railyard::invalid_argument_error("plain")) == "plain");
  // A field attached to another message shape.
  const railyard::Status w =
      railyard::with_field(railyard::invalid_argument_error("host 3 is busy"), "hosts", "3");
  CHECK(railyard::error_problem(w) == "host 3 is busy");
  CHECK(railyard::error_problem(railyard::ok_status()).empty());
}

TEST_CASE("status: railyard::StatusOr converts to absl::StatusOr with value, code and field") {
  static_assert(std::is_same_v<railyard::Status, absl::Status>);
  const absl::StatusOr<int> good = railyard_status_cases::parse_count(3);
  REQUIRE(good.ok());
  CHECK(*good == 3);
  const absl::StatusOr<int> bad = railyard_status_cases::parse_count(0);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(railyard::has_field(bad.status(), "count"));
  // The field is an Abseil payload under railyard's URL, visible to any Abseil user.
  CHECK(bad.status().GetPayload(std::string(railyard::kFieldPayloadUrl)).has_value());
}

}  // namespace railyard_test_core_status_test
