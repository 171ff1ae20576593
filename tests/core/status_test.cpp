#include "railyard/core/status.hpp"

#include <doctest/doctest.h>

#include <string>

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
