// railyard simulate --traffic / --generate — a traffic matrix on a cluster,
// timed by the flow simulator (sim/traffic_sim.hpp): per-flow completion times.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "inputs.hpp"
#include "progress.hpp"
#include "railyard/core/file.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/report/traffic_report.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/sim/traffic_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "traffic.hpp"

namespace railyard::cli {
namespace {

// --generate: permutation[:SEED] | incast:N | uniform:N[:SEED] | alltoall |
// alltoallv:FILE (a byte matrix; --bytes does not apply).
StatusOr<std::vector<sim::TrafficFlow>> generated_traffic(const Flags& flags,
                                                 const topology::ClusterDescriptor<>& d) {
  if (const std::string_view spec = flags.text("generate"); spec.starts_with("alltoallv:")) {
    if (flags.given("bytes"))
      return usage_error(
          "simulate: --generate alltoallv:FILE takes every flow's size from the matrix; drop "
          "--bytes");
    const std::string path(spec.substr(std::string_view("alltoallv:").size()));
    auto text = read_text_file("generate", path);
    if (!text.ok()) return flag_error(flags, "generate", text.status());
    auto flows = sim::parse_traffic_matrix(*text, d);
    if (!flows.ok()) return flag_error(flags, "generate", with_context(flows.status(), path));
    return flows;
  }
  if (!flags.given("bytes"))
    return usage_error("simulate: --generate needs --bytes (the size of every generated flow)");
  auto bytes = parse_size_in("bytes", flags.text("bytes"), 1, uint64_t{1} << 50);
  if (!bytes.ok()) return flag_error(flags, "bytes", bytes.status());
  const auto b = static_cast<int64_t>(*bytes);
  const std::string_view spec = flags.text("generate");
  const std::vector<std::string_view> part = split(spec, ':');
  auto bad = [&](std::string_view why) {
    return flag_error(flags, "generate", invalid_field("generate", spec, why));
  };
  auto number = [&](size_t i, int64_t lo, int64_t hi) -> StatusOr<int64_t> {
    auto v = parse_int_in("generate", part[i], lo, hi);
    if (!v.ok()) return flag_error(flags, "generate", invalid_field("generate", spec, message_of(v.status())));
    return v;
  };
  const std::string_view kind = part[0];
  if (kind == "permutation" && part.size() <= 2) {
    uint64_t seed = 1;
    if (part.size() == 2) {
      RAILYARD_ASSIGN_OR_RETURN(const int64_t s, number(1, 0, int64_t{1} << 62));
      seed = static_cast<uint64_t>(s);
    }
    return sim::permutation_traffic(d, b, seed);
  }
  if (kind == "incast" && part.size() == 2) {
    RAILYARD_ASSIGN_OR_RETURN(const int64_t n, number(1, 1, d.hosts() - 1));
    auto t = sim::incast_traffic(d, static_cast<int32_t>(n), GpuEndpoint{HostId{0}, GpuIndex{0}}, b);
    if (!t.ok()) return flag_error(flags, "generate", t.status());
    return t;
  }
  if (kind == "uniform" && (part.size() == 2 || part.size() == 3)) {
    RAILYARD_ASSIGN_OR_RETURN(const int64_t n, number(1, 1, 1000000));
    uint64_t seed = 1;
    if (part.size() == 3) {
      RAILYARD_ASSIGN_OR_RETURN(const int64_t s, number(2, 0, int64_t{1} << 62));
      seed = static_cast<uint64_t>(s);
    }
    return sim::uniform_traffic(d, n, b, seed);
  }
  if (kind == "alltoall" && part.size() == 1) {
    if (d.gpus() > 1024) return bad("alltoall is limited to 1,024 GPUs (n·(n−1) flows)");
    return sim::all_to_all_traffic(d, b);
  }
  return bad("use permutation[:SEED], incast:N, uniform:N[:SEED], alltoall or alltoallv:FILE");
}

}  // namespace

Outcome run_simulate_traffic(const Invocation& inv) {
  const Flags& flags = inv.flags;
  // Flags of the collective mode do not apply to a traffic matrix.
  for (std::string_view flag :
       {"collective", "job", "hosts", "node-pattern", "order", "group", "algorithm", "channels",
        "chunk", "down", "svg", "svg-metric"})
    RAILYARD_RETURN_IF_ERROR(only_with(inv, flag, false, "does not apply with --traffic or --generate"));
  if (flags.given("traffic") && flags.given("generate"))
    return usage_error("simulate: give --traffic FILE or --generate KIND, not both");
  if (flags.given("traffic"))
    RAILYARD_RETURN_IF_ERROR(only_with(inv, "bytes", false,
                                       "applies only with --generate (the file gives each flow's size)"));

  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  std::vector<sim::TrafficFlow> flows;
  if (flags.given("traffic")) {
    RAILYARD_ASSIGN_OR_RETURN(const std::string text, read_flag_file(flags, "traffic"));
    auto parsed = sim::parse_traffic(text, d);
    if (!parsed.ok())
      return usage_error(str_cat(shown(flags, "traffic"), ": ", message_of(parsed.status())));
    flows = std::move(*parsed);
    if (flags.given("qps"))
      return usage_error("simulate: --qps applies only with --generate (a traffic file gives qps per row)");
  } else {
    RAILYARD_ASSIGN_OR_RETURN(flows, generated_traffic(flags, d));
    for (sim::TrafficFlow& f : flows) f.qps = flags.int32("qps");
    if (flags.int32("qps") < 1 || flags.int32("qps") > sim::kMaxTrafficQps)
      return flag_error(flags, "qps", invalid_field("qps", flags.text("qps"), "must be in [1, 256]"));
  }

  sim::TrafficSimOptions options;
  if (flags.given("routing")) {
    auto routing = sim::parse_traffic_routing(flags.text("routing"));
    if (!routing.ok()) return flag_error(flags, "routing", routing.status());
    options.routing = *routing;
  }
  options.seed = flags.uint64("seed");
  // The switches' hash decides ecmp's and steered's paths; adaptive hashes nothing.
  RAILYARD_RETURN_IF_ERROR(only_with(inv, "hash", options.routing != sim::TrafficRouting::kAdaptive,
                                     "applies only with --routing ecmp or steered (adaptive "
                                     "sprays every packet and uses no hash)"));
  std::unique_ptr<routing::HashModel> hash;
  if (flags.given("hash")) {
    auto model = routing::parse_hash_model("hash", flags.text("hash"), options.seed);
    if (!model.ok()) return flag_error(flags, "hash", model.status());
    hash = *std::move(model);
  }
  options.switch_hash = hash.get();
  RAILYARD_ASSIGN_OR_RETURN(options.latency, load_latency(flags));
  options.queueing.enabled = flags.boolean("queueing");
  options.count_ack = flags.boolean("count-ack");
  const int32_t mtu = flags.int32("mtu");
  if (mtu < 256 || mtu > 65536)
    return flag_error(flags, "mtu", invalid_field("mtu", flags.text("mtu"), "must be in [256, 65536] bytes"));
  options.queueing.mtu_bytes = mtu;
  auto queue = parse_size_in("standing_queue", flags.text("standing-queue"), 0, uint64_t{1} << 34);
  if (!queue.ok()) return flag_error(flags, "standing-queue", queue.status());
  options.queueing.standing_queue_bytes = static_cast<double>(*queue);
  for (std::string_view flag : {"mtu", "standing-queue"})
    RAILYARD_RETURN_IF_ERROR(only_with(inv, flag, options.queueing.enabled,
                                       "applies only with the queueing correction (not with --noqueueing)"));

  RAILYARD_RETURN_IF_ERROR(check_output_flag(flags, "flows-out"));
  const topology::Cluster cluster{d, materialize(in)};
  const sim::TrafficMemoryEstimate estimate = sim::estimate_traffic_memory(d, flows, options);
  RAILYARD_ASSIGN_OR_RETURN(const MemoryLimit limit, memory_limit(flags));
  const std::string terms = str_cat(grouped_number(estimate.qp_flows), " QP flows");
  RAILYARD_RETURN_IF_ERROR(check_memory(
      flags, "simulate", estimate.bytes, terms,
      options.routing == sim::TrafficRouting::kAdaptive
          ? "give fewer flows or QPs, or a fabric with fewer uplinks per switch"
          : "give fewer flows or QPs",
      limit));
  ProgressLine progress(flags, "simulate", "flows");
  progress.set_header(str_cat("memory ~", memory_text(estimate.bytes), " estimated (", terms,
                              "), ", memory_text(limit.bytes), " available (", limit.source,
                              ")"));
  options.progress = progress.hook();
  auto report = sim::simulate_traffic(cluster, flows, options);
  if (!report.ok()) return usage_error(str_cat("simulate: ", message_of(report.status())));
  if (flags.given("flows-out")) {
    const std::string_view path = flags.text("flows-out");
    const bool json = path.size() >= 5 && path.substr(path.size() - 5) == ".json";
    RAILYARD_RETURN_IF_ERROR(write_flag_file(flags, "flows-out",
                                             json ? report::traffic_flows_json(flows, *report)
                                                  : report::traffic_flows_csv(flows, *report)));
  }
  if (flags.boolean("json")) return Output(report::traffic_json(flows, *report, options));
  return Output(str_cat(report::traffic_text(flows, *report, options),
                        import_note(in, "not modelled here: the traffic simulator routes over "
                                        "every cable (the collective mode, --collective, takes "
                                        "the failures)")));
}

}  // namespace railyard::cli
