// railyard/cc/cc.hpp — umbrella header for congestion control: settings derived
// from the fabric and the traffic (derive.hpp), the DCQCN fluid model that checks
// them (queue peak, utilization, fairness, settling time, equilibrium), the
// check of a plan against the vendor defaults (validate.hpp). The SVG plot of a
// trace is in report/trace_svg.hpp.
//
//   #include "railyard/cc/cc.hpp"
//   auto r = railyard::cc::simulate_dcqcn(railyard::cc::vendor_default_dcqcn(),
//                                         railyard::cc::vendor_default_red(), {.senders = 8});
#pragma once

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/incast.hpp"
#include "railyard/cc/validate.hpp"
