// railyard/placement/placement.hpp — umbrella header for the placement layer:
// the layout algebra, parallelism plans, rank ordering, the multi-tenant
// allocator, job lists, the one fits-check and trace replay.
//
//   #include "railyard/placement/placement.hpp"
//   auto plan = railyard::placement::parse_plan("tp=8,pp=4,dp=32");
#pragma once

#include "railyard/placement/allocator.hpp"
#include "railyard/placement/fit.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/placement/layout.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/placement/tree_order.hpp"
