// The doctest runner for railyard_tests: every tests/**/*_test.cpp links into
// one executable whose main() comes from here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
