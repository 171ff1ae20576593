#include "railyard/placement/plan.hpp"

#include <doctest/doctest.h>

#include <string>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_placement_plan_test {

TEST_CASE("parse_dim: the five names, the error carries the caller's field") {
  using railyard::placement::Dim;
  for (size_t d = 0; d < railyard::placement::kDimNames.size(); ++d) {
    auto dim = railyard::placement::parse_dim("group", railyard::placement::kDimNames[d]);
    REQUIRE(dim.ok());
    CHECK(*dim == static_cast<Dim>(d));
    CHECK(railyard::placement::to_string(*dim) == railyard::placement::kDimNames[d]);
  }
  for (const char* bad : {"", "xp", "TP", "mp", "tp "}) {
    auto dim = railyard::placement::parse_dim("group", bad);
    REQUIRE_FALSE(dim.ok());
    CHECK(std::string(dim.status().message()) ==
          std::string("group=") + bad + ": unknown dimension (tp, cp, ep, dp or pp)");
    CHECK(railyard::error_field(dim.status())->field == "group");
  }
}

}  // namespace railyard_test_placement_plan_test
