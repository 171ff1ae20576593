// railyard/io/io.hpp — umbrella header for the io layer: the JSON writer, the
// inventory report, host naming and the scheduler's switch tree.
//
//   #include "railyard/io/io.hpp"
//   std::string json = railyard::io::inventory_json(descriptor);
#pragma once

#include "railyard/io/inventory_report.hpp"
#include "railyard/io/json.hpp"
#include "railyard/io/node_names.hpp"
#include "railyard/io/switch_tree.hpp"
