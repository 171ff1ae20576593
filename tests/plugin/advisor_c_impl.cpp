// The one C++ translation unit that defines the advisor's C functions for
// advisor_c_test (a C program): what a net plugin written in C links.
#define RAILYARD_ADVISOR_IMPLEMENTATION
#include "railyard/plugin/advisor.hpp"
