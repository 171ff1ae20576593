// railyard/report/report.hpp — umbrella header for the report layer: rendering
// only — the JSON writer, the text and JSON reports the CLI prints (inventory,
// order, place/replay, spray, simulate, congestion control, plan), the SVG
// writer and its pictures (link-utilization heat maps, DCQCN traces).
//
//   #include "railyard/report/report.hpp"
//   std::string json = railyard::report::inventory_json(descriptor, topology::inventory(descriptor));
#pragma once

#include "railyard/report/cable_fit_report.hpp"
#include "railyard/report/cc_report.hpp"
#include "railyard/report/heatmap_svg.hpp"
#include "railyard/report/inventory_report.hpp"
#include "railyard/report/json.hpp"
#include "railyard/report/order_report.hpp"
#include "railyard/report/place_report.hpp"
#include "railyard/report/presets_report.hpp"
#include "railyard/report/plan_report.hpp"
#include "railyard/report/simulate_report.hpp"
#include "railyard/report/spray_report.hpp"
#include "railyard/report/svg.hpp"
#include "railyard/report/trace_svg.hpp"
