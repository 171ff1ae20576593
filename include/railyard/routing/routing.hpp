// railyard/routing/routing.hpp — umbrella header for the routing layer: flows,
// ECMP decisions and hash models.
//
//   #include "railyard/routing/routing.hpp"
//   auto hops = railyard::routing::ecmp_hops(descriptor, src_port, dst_port);
#pragma once

#include "railyard/routing/flow.hpp"
#include "railyard/routing/paths.hpp"
