// railyard spray — paths, QPs and UDP source ports for one connection.
#include "railyard/routing/spray.hpp"

#include "cli.hpp"
#include "inputs.hpp"
#include "railyard/report/spray_report.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/failure_spec.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kSprayFlags[] = {required("src"), required("dst"),     {"cluster"},
                                   {"cables"},      {"ibnetdiscover"}, {"qps"},
                                   {"hash"},        {"seed"},          {"down"},
                                   {"json"}};

constexpr FieldRoute kSprayRoutes[] = {{"qps", {"qps"}}, {"src*", {"src"}}, {"dst*", {"dst"}}};

Outcome run_spray(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  auto from = routing::parse_endpoint("src", flags.text("src"), d);
  if (!from.ok()) return flag_error(flags, "src", from.status());
  auto to = routing::parse_endpoint("dst", flags.text("dst"), d);
  if (!to.ok()) return flag_error(flags, "dst", to.status());
  auto model = routing::parse_hash_model("hash", flags.text("hash"), flags.uint64("seed"));
  if (!model.ok()) return flag_error(flags, "hash", model.status());
  const topology::Fabric fabric = materialize(in);
  topology::FailureOverlay overlay(fabric);
  RAILYARD_RETURN_IF_ERROR(apply_failures(inv, in, fabric, overlay));
  auto plan =
      routing::plan_connection(d, fabric, *from, *to, flags.int32("qps"), **model, &overlay);
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
                        "--src H:G --dst H:G [--cluster SPEC | --cables FILE | --ibnetdiscover "
                        "FILE] [--qps K] [--hash MODEL] [--seed S] [--down LINKS] [--json]",
                        "paths, weights, QPs and the UDP source port per QP for one connection",
                        "",
                        kSprayFlags,
                        &run_spray};

}  // namespace railyard::cli
