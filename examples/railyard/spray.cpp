// railyard spray — paths, QPs and UDP source ports for one connection.
#include "railyard/routing/spray.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/spray_report.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/failure_spec.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kSprayFlags[] = {required("src"), required("dst"),     {"cluster"},
                                   {"cables"},      {"ibnetdiscover"}, {"node-pattern"},
                                   {"qps"},         {"hash"},          {"seed"},
                                   {"down"},        {"json"}};

constexpr FieldRoute kSprayRoutes[] = {{"qps", {"qps"}}, {"src*", {"src"}}, {"dst*", {"dst"}}};

// --src/--dst as HOST:GPU[:PLANE], HOST an id or a node name of `names`. An
// id goes to routing::parse_endpoint unchanged; a name is swapped for its id
// first, and an error on the rest (GPU or plane out of range) is given back
// the text as typed, so that it never shows an id the user did not write.
StatusOr<NicPort> endpoint(const Flags& flags, std::string_view flag,
                           const topology::ClusterDescriptor<>& d,
                           std::span<const std::string> names) {
  const std::string_view text = flags.text(flag);
  const size_t colon = text.find(':');
  std::string by_id(text);
  if (colon != std::string_view::npos) {
    auto host = named_host(flag, text.substr(0, colon), names);
    if (!host.ok()) return flag_error(flags, flag, host.status());
    if (*host) by_id = str_cat((*host)->value(), text.substr(colon));
  }
  auto port = routing::parse_endpoint(flag, by_id, d);
  if (port.ok()) return port;
  if (by_id != text && has_field(port.status(), flag))
    return flag_error(flags, flag, invalid_field(flag, text, error_problem(port.status())));
  return flag_error(flags, flag, port.status());
}

Outcome run_spray(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  RAILYARD_RETURN_IF_ERROR(check_node_pattern(inv, in));
  RAILYARD_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                            host_names(flags, d, file_host_names(in)));
  RAILYARD_ASSIGN_OR_RETURN(const NicPort from, endpoint(flags, "src", d, names));
  RAILYARD_ASSIGN_OR_RETURN(const NicPort to, endpoint(flags, "dst", d, names));
  auto model = routing::parse_hash_model("hash", flags.text("hash"), flags.uint64("seed"));
  if (!model.ok()) return flag_error(flags, "hash", model.status());
  const topology::Fabric fabric = materialize(in);
  topology::FailureOverlay overlay(fabric);
  RAILYARD_RETURN_IF_ERROR(apply_failures(inv, in, fabric, overlay));
  auto plan =
      routing::plan_connection(d, fabric, from, to, flags.int32("qps"), **model, &overlay);
  if (!plan.ok()) {
    if (std::optional<Status> s = no_path_error(inv, plan.status())) return *s;
    return routed_error(flags, kSprayRoutes, plan.status(), "spray");
  }
  if (flags.boolean("json")) return Output(report::spray_json(fabric, *plan));
  return Output(str_cat(report::spray_text(fabric, *plan),
                        import_note(in, "missing and miswired cables are down, slow ones "
                                        "degraded: the paths above avoid them")));
}

}  // namespace

const Subcommand kSpray{"spray",
                        "--src H:G --dst H:G [--cluster SPEC [--node-pattern P] | --cables FILE | "
                        "--ibnetdiscover FILE] [--qps K] [--hash MODEL] [--seed S] [--down LINKS] "
                        "[--json]",
                        "paths, weights, QPs and the UDP source port per QP for one connection",
                        "",
                        kSprayFlags,
                        &run_spray};

}  // namespace railyard::cli
