// railyard/core/lazy.hpp — functions compiled only where they are called.
//
// A header-only library's inline functions are compiled — parsed, and every
// template they use instantiated — in every translation unit that includes
// them, called or not. railyard's entry points (simulations, reports, file
// writers, planners) are large and most programs call a few of them, so each is
// declared lazy:
//
//   RAILYARD_LAZY
//   [[nodiscard]] std::string place_text(const ClusterDescriptor<>& d, const PlaceResult& r) {...}
//
// The macro makes the function a template with one defaulted parameter that
// nothing names: callers write place_text(d, r) as before, and the compiler
// instantiates the body only in translation units that call it (taking its
// address needs place_text<>). It changes nothing else: no parameter is
// deduced, conversions apply as for any function. bench/compile_time.sh
// measures what it saves.
#pragma once

#define RAILYARD_LAZY template <class RailyardCompiledOnUse = void>
