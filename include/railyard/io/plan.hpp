// railyard/io/plan.hpp — `railyard plan` as a library: the scenario and its run
// (plan_scenario.hpp), the report (plan_report.hpp) and the files it writes
// (plan_files.hpp).
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto scenario = railyard::io::default_plan_scenario(cluster->descriptor);
//   auto result = railyard::io::run_plan(*cluster, *scenario);
//   std::cout << railyard::io::plan_text(cluster->descriptor, *result);
//   auto files = railyard::io::plan_files(*cluster, *result);
//   absl::Status written = railyard::io::write_plan_files("plan-out", *files);
#pragma once

#include "railyard/io/plan_files.hpp"
#include "railyard/io/plan_report.hpp"
#include "railyard/io/plan_scenario.hpp"
