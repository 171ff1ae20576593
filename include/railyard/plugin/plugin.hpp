// railyard/plugin/plugin.hpp — umbrella header for the NCCL plugin layer: the
// tuner plugin ABI, railyard's tuner core and its C-ABI adapters (the shared
// library lives in examples/nccl_tuner), and the net-plugin path advisor.
//
//   #include "railyard/plugin/plugin.hpp"
//   railyard::plugin::TunerOptions o;
//   o.cluster = "h100-1024-2to1";
//   o.ranks = 64;
//   o.nodes = 8;
//   auto core = railyard::plugin::TunerCore::create(o);
#pragma once

#include "railyard/plugin/nccl_tuner_abi.hpp"
#include "railyard/plugin/tuner.hpp"
// Net-plugin path advisor: its header is included here by its author.
#include "railyard/plugin/advisor.hpp"
