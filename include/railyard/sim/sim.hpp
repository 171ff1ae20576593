// railyard/sim/sim.hpp — umbrella header for the simulation layer: the
// max-min-fair flow simulator (flows on fixed paths, rates recomputed as flows
// finish, steps in order).
//
//   #include "railyard/sim/sim.hpp"
//   auto result = railyard::sim::simulate(fabric, steps, {});
#pragma once

#include "railyard/sim/collective_sim.hpp"
#include "railyard/sim/flow_sim.hpp"
