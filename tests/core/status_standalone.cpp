// core/status.hpp as the NCCL plugins build it: RAILYARD_STANDALONE_STATUS,
// no Abseil anywhere (this program does not link it; a header that pulled it
// in would fail the check below or the link). Runs the cases of
// status_cases.hpp, which status_test.cpp runs with Abseil.
#define RAILYARD_STANDALONE_STATUS
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "status_cases.hpp"

#ifdef ABSL_BASE_CONFIG_H_
#error "the standalone build of core/status.hpp must not include Abseil"
#endif

TEST_CASE("status: the standalone Status compares by code and message") {
  CHECK(railyard::invalid_argument_error("a") == railyard::invalid_argument_error("a"));
  CHECK_FALSE(railyard::invalid_argument_error("a") == railyard::not_found_error("a"));
  CHECK(railyard::make_status(railyard::StatusCode::kOk, "dropped").message().empty());
}
