// railyard/railyard.hpp — everything railyard offers, in one include.
//
//   #include <railyard/railyard.hpp>
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   if (!cluster.ok()) { std::cerr << cluster.status().message() << "\n"; return 2; }
//   auto inv = railyard::topology::inventory(cluster->descriptor);
//   std::cout << inv.tier(railyard::topology::SwitchTier::kSpine).switches << " spines\n";
#pragma once

#include "railyard/cc/cc.hpp"
#include "railyard/collective/collective.hpp"
#include "railyard/core/core.hpp"
#include "railyard/export/export.hpp"
#include "railyard/pipeline/pipeline.hpp"
#include "railyard/placement/placement.hpp"
#include "railyard/plugin/plugin.hpp"
#include "railyard/report/report.hpp"
#include "railyard/routing/routing.hpp"
#include "railyard/sim/sim.hpp"
#include "railyard/topology/topology.hpp"
#include "railyard/tune/tune.hpp"
#include "railyard/version.hpp"
