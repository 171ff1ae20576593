// railyard/placement/placement.hpp — umbrella header for the placement layer:
// parallelism plans and rank ordering (and, as they land, the layout algebra and
// the multi-tenant allocator).
//
//   #include "railyard/placement/placement.hpp"
//   auto plan = railyard::placement::parse_plan("tp=8,pp=4,dp=32");
#pragma once

#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
