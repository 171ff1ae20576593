// railyard/sim/sim.hpp — umbrella header for the simulation layer: the
// max-min-fair flow simulator (flow_sim.hpp: flows on fixed paths, rates
// recomputed as flows finish, steps in order) and collectives on placed ranks,
// routed and timed (collective_sim.hpp).
//
//   #include "railyard/sim/sim.hpp"
//   auto result = railyard::sim::simulate(fabric, steps, {});
#pragma once

#include "railyard/sim/collective_sim.hpp"
#include "railyard/sim/flow_sim.hpp"
