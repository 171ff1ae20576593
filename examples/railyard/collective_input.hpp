// railyard CLI — the collective simulate and cc run on a job: --collective,
// --algorithm (default: the collective's own) and --group, parsed by the library.
#pragma once

#include <optional>
#include <vector>

#include "flags.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/routing/paths.hpp"

namespace railyard::cli {

struct CollectiveInput {
  collective::Collective kind = collective::Collective::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  std::optional<placement::Dim> group;  // none: one group of all the job's ranks
};

// The flags' collective; errors name --collective, --algorithm or --group (an
// algorithm the collective does not run too).
[[nodiscard]] StatusOr<CollectiveInput> parse_collective_input(const Flags& flags);

// The groups it runs in on `job`: every group of --group's dimension at once, or
// one group of all ranks. Groups of one rank send nothing: an error naming
// --group (or --job) rather than a report of 0 steps.
[[nodiscard]] StatusOr<std::vector<std::vector<routing::GpuEndpoint>>> collective_groups(
    const Flags& flags, const CollectiveInput& in, const placement::JobPlacement& job);

}  // namespace railyard::cli
