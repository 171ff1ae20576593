// railyard/pipeline/pipeline.hpp — umbrella header for the pipeline layer:
// whole-job scenarios, orchestration only — `railyard plan` (replay a busy
// background, place a tenant mix naive and railyard's way, number ranks,
// simulate, derive congestion control and tuner rules).
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto scenario = railyard::pipeline::default_plan_scenario(cluster->descriptor);
//   auto result = railyard::pipeline::run_plan(*cluster, *scenario);
//   std::cout << railyard::report::plan_text(cluster->descriptor, *result);   // report/
//   auto files = railyard::exports::plan_files(*cluster, *result);            // export/
#pragma once

#include "railyard/pipeline/plan.hpp"
