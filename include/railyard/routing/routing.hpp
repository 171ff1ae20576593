// railyard/routing/routing.hpp — umbrella header for the routing layer: flows,
// ECMP decisions, hash models and collision statistics, GPU-to-GPU paths,
// spraying plans with per-QP source ports, whole-step path assignment against
// ECMP, and tenant isolation (shared links, spine partitions).
//
//   #include "railyard/routing/routing.hpp"
//   auto hops = railyard::routing::ecmp_hops(descriptor, src_port, dst_port);
#pragma once

#include "railyard/routing/assign.hpp"
#include "railyard/routing/ecmp_stats.hpp"
#include "railyard/routing/flow.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/isolation.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/routing/spray.hpp"
