// railyard/io/io.hpp — umbrella header for the io layer: the JSON writer and the
// inventory report.
//
//   #include "railyard/io/io.hpp"
//   std::string json = railyard::io::inventory_json(descriptor);
#pragma once

#include "railyard/io/inventory_report.hpp"
#include "railyard/io/json.hpp"
