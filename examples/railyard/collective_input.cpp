// railyard CLI — the collective of simulate and cc (collective_input.hpp).
#include "collective_input.hpp"

#include "railyard/core/strings.hpp"
#include "railyard/sim/collective_sim.hpp"

namespace railyard::cli {

StatusOr<CollectiveInput> parse_collective_input(const Flags& flags) {
  CollectiveInput in;
  auto kind = collective::parse_collective(flags.text("collective"));
  if (!kind.ok()) return flag_error(flags, "collective", kind.status());
  in.kind = *kind;
  in.algorithm = collective::default_algorithm(in.kind);
  if (flags.given("algorithm")) {
    auto algorithm = collective::parse_algorithm(flags.text("algorithm"));
    if (!algorithm.ok()) return flag_error(flags, "algorithm", algorithm.status());
    if (Status s = collective::check_supported(in.kind, *algorithm); !s.ok())
      return flag_error(flags, "algorithm", s);
    in.algorithm = *algorithm;
  }
  if (flags.given("group")) {
    auto dim = placement::parse_dim("group", flags.text("group"));
    if (!dim.ok()) return flag_error(flags, "group", dim.status());
    in.group = *dim;
  }
  return in;
}

StatusOr<std::vector<std::vector<routing::GpuEndpoint>>> collective_groups(
    const Flags& flags, const CollectiveInput& in, const placement::JobPlacement& job) {
  auto groups = sim::job_groups(job, in.group);
  if (groups.front().size() > 1) return groups;
  if (in.group) {
    const std::string_view dim = placement::to_string(*in.group);
    return usage_error(str_cat(shown(flags, "group"), ": ", dim, "=1 in --job: every ", dim,
                               " group is a single rank and sends nothing; group by a dimension "
                               "larger than 1"));
  }
  return usage_error("--job: a job of one rank sends nothing");
}

}  // namespace railyard::cli
