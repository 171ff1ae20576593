// railyard/collective/collective.hpp — umbrella header for the collective layer:
// schedules (ring, double binary tree, hierarchical, pairwise and rail-aligned
// all-to-all), their symbolic verification, run-length traffic phases, the
// analytic contention cost and bandwidth lower bounds, and nccl-tests bandwidth
// conventions.
//
//   #include "railyard/collective/collective.hpp"
//   auto ring = railyard::collective::ring_all_reduce(8, 1 << 30);
//   railyard::Status ok = railyard::collective::verify(*ring);
#pragma once

#include "railyard/collective/cost.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/collective/traffic.hpp"
#include "railyard/collective/verify.hpp"
