// railyard._railyard — the C++ side of the Python package: thin pybind11 wrappers
// over the header-only library. The Python layer (python/railyard/__init__.py)
// turns what these return (tuples, dicts, JSON text of the report layer) into
// dataclasses, resolves host names, and documents the API; nothing here holds
// domain logic of its own.
//
// Errors: a non-OK railyard::Status becomes railyard.Error (python/railyard/errors.py,
// a ValueError) carrying the status's field, value and code. No C++ exception
// other than pybind11's own crosses into the interpreter, and nothing aborts it:
// every input is validated by the library's boundary functions first.
//
// Built with RAILYARD_STANDALONE_STATUS (core/status.hpp): the module needs no
// Abseil shared library at run time and cannot clash with another Abseil that a
// process (PyTorch, gRPC) has already loaded; pybind11 builds it with hidden
// visibility, so only PyInit__railyard is exported.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/cc/derive.hpp"
#include "railyard/cc/incast.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/export/launchers.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/report/cable_fit_report.hpp"
#include "railyard/report/cc_report.hpp"
#include "railyard/report/inventory_report.hpp"
#include "railyard/report/simulate_report.hpp"
#include "railyard/report/spray_report.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/failure_spec.hpp"
#include "railyard/topology/import/cable_fit.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/csv_topology.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/inventory.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/version.hpp"

namespace py = pybind11;

namespace railyard::python {
namespace {

std::string_view code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kAlreadyExists: return "already_exists";
    case StatusCode::kResourceExhausted: return "resource_exhausted";
    case StatusCode::kFailedPrecondition: return "failed_precondition";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kOutOfRange: return "out_of_range";
    default: return "internal";
  }
}

// Raises railyard.Error(message, field=..., value=..., code=...).
[[noreturn]] void raise(const Status& s, std::string_view fallback_field = {}) {
  py::object error = py::module_::import("railyard.errors").attr("Error");
  std::optional<FieldError> f = error_field(s);
  py::object field = py::none();
  py::object value = py::none();
  if (f) {
    field = py::str(f->field);
    value = py::str(f->value);
  } else if (!fallback_field.empty()) {
    field = py::str(std::string(fallback_field));
  }
  py::object instance = error(py::str(std::string(message_of(s))), py::arg("field") = field,
                              py::arg("value") = value, py::arg("code") = code_name(s.code()));
  PyErr_SetObject(error.ptr(), instance.ptr());
  throw py::error_already_set();
}

template <class T>
T take(StatusOr<T> r, std::string_view fallback_field = {}) {
  if (!r.ok()) raise(r.status(), fallback_field);
  return *std::move(r);
}
void check(const Status& s, std::string_view fallback_field = {}) {
  if (!s.ok()) raise(s, fallback_field);
}

// A cluster with GPUs, NICs and rails: from a spec or preset, or fitted from a
// cable list (then the file's names come with it).
class Cluster {
 public:
  Cluster(topology::ClusterDescriptor<> d, std::optional<topology::CableFit> fit, std::string origin)
      : d_(std::move(d)), fit_(std::move(fit)), origin_(std::move(origin)) {}

  static Cluster from_spec(std::string_view spec) {
    auto parsed = take(topology::parse_cluster(spec), "cluster");
    auto d = take(topology::make_descriptor(parsed), "cluster");
    return Cluster(std::move(d), std::nullopt, std::string(spec));
  }
  static Cluster from_cable_list(std::string_view text, bool ibnetdiscover, std::string origin) {
    auto list = take(ibnetdiscover ? topology::cable_list_from_ibnetdiscover(text)
                                   : topology::cable_list_from_text(text),
                     "cables");
    auto fit = take(topology::fit_cables(list), "cables");
    topology::ClusterDescriptor<> d = fit.descriptor;
    return Cluster(std::move(d), std::move(fit), std::move(origin));
  }

  const topology::ClusterDescriptor<>& descriptor() const { return d_; }
  const topology::Fabric& fabric() const {
    if (!fabric_) {
      fabric_ = std::make_shared<topology::Fabric>(topology::materialize(d_));
      if (fit_) fit_->name_fabric(*fabric_);
    }
    return *fabric_;
  }
  const std::optional<topology::CableFit>& fit() const { return fit_; }
  const std::string& origin() const { return origin_; }

  std::vector<std::string> host_names(std::optional<std::string_view> pattern) const {
    if (!pattern && fit_) return fit_->host_names;
    auto namer =
        take(topology::NodeNamer::parse(pattern.value_or(topology::kDefaultNodePattern)),
             "node_pattern");
    check(namer.check(d_), "node_pattern");
    return namer.names(d_);
  }

  py::dict summary() const {
    py::dict out;
    out["spec"] = topology::to_spec_string(d_.spec());
    out["kind"] = std::string(topology::to_string(d_.kind()));
    out["hosts"] = d_.hosts();
    out["gpus_per_host"] = d_.gpus_per_host();
    out["nics_per_host"] = d_.nics_per_host();
    out["gpus"] = d_.gpus();
    out["hosts_per_su"] = d_.hosts_per_su();
    out["sus"] = d_.sus();
    out["pods"] = d_.pods();
    out["tiers"] = d_.tiers();
    out["planes"] = d_.planes();
    out["hosts_per_domain"] = d_.hosts_per_domain();
    return out;
  }

  std::string describe_json() const {
    if (fit_) return report::cable_fit_json(*fit_, origin_);
    return report::inventory_json(d_, topology::inventory(d_), 0);
  }

  py::tuple place_of(int32_t host) const {
    if (host < 0 || host >= d_.hosts())
      raise(invalid_field("host", str_cat(host),
                          str_cat("out of range (the cluster has hosts 0..", d_.hosts() - 1, ")")));
    const HostId h{host};
    return py::make_tuple(d_.su_of(h).value(), d_.pod_of(h).value(), d_.domain_of(h));
  }

 private:
  topology::ClusterDescriptor<> d_;
  std::optional<topology::CableFit> fit_;
  std::string origin_;
  mutable std::shared_ptr<topology::Fabric> fabric_;  // built on first use (spray, simulate)
};

std::vector<HostId> to_hosts(const std::vector<int64_t>& ids) {
  std::vector<HostId> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    if (id < 0 || id > INT32_MAX)
      raise(invalid_field("hosts", str_cat(id), "not a host id (ids are 0..hosts-1)"));
    out.push_back(HostId{static_cast<int32_t>(id)});
  }
  return out;
}

// A job's ranks on its hosts: rank r runs on hosts[r / G], GPU r % G.
class Order {
 public:
  explicit Order(placement::JobPlacement job) : job_(std::move(job)) {}

  const placement::JobPlacement& job() const { return job_; }
  std::vector<int32_t> hosts() const {
    std::vector<int32_t> out;
    out.reserve(job_.hosts.size());
    for (HostId h : job_.hosts) out.push_back(h.value());
    return out;
  }
  int64_t world() const { return job_.plan.world(); }
  int32_t gpus_per_host() const { return job_.gpus_per_host; }
  std::string plan() const { return job_.plan.to_string(); }
  std::string order_string() const { return job_.plan.order_string(); }
  py::dict sizes() const {
    py::dict out;
    for (int d = 0; d < placement::kDimCount; ++d)
      out[py::str(std::string(placement::kDimNames[static_cast<size_t>(d)]))] =
          job_.plan.sizes[static_cast<size_t>(d)];
    return out;
  }

  void check_rank(int64_t rank) const {
    if (rank < 0 || rank >= world())
      raise(invalid_field("rank", str_cat(rank),
                          str_cat("out of range (the job has ranks 0..", world() - 1, ")")));
  }
  // (host, gpu, tp, cp, ep, dp, pp)
  py::tuple rank(int64_t r) const {
    check_rank(r);
    const placement::Device dev = job_.device(r);
    const auto c = job_.plan.coords(r);
    return py::make_tuple(dev.host.value(), dev.gpu.value(), c[0], c[1], c[2], c[3], c[4]);
  }
  // Every rank as (host, gpu, tp, cp, ep, dp, pp), by rank.
  py::list table() const {
    py::list out(static_cast<size_t>(world()));
    for (int64_t r = 0; r < world(); ++r) out[static_cast<size_t>(r)] = rank(r);
    return out;
  }
  py::dict traffic(const Cluster& c) const;  // defined below check_job_on()
  std::string megatron_args() const { return exports::megatron_args(job_.plan); }

 private:
  placement::JobPlacement job_;
};

Order order_job(const Cluster& c, std::string_view plan_text, const std::vector<int64_t>& ids,
                bool naive) {
  auto plan = take(placement::parse_plan(plan_text), "job");
  const std::vector<HostId> hosts = to_hosts(ids);
  auto job = naive ? placement::naive_order(c.descriptor(), plan, hosts)
                   : placement::order_ranks(c.descriptor(), plan, hosts);
  return Order(take(std::move(job), "job"));
}

std::vector<int32_t> parse_host_ids(std::string_view text, int64_t limit) {
  auto hosts = take(parse_host_list("hosts", text, limit), "hosts");
  std::vector<int32_t> out;
  out.reserve(hosts.size());
  for (HostId h : hosts) out.push_back(h.value());
  return out;
}

py::dict allocation_dict(const placement::Allocation& a) {
  py::dict out;
  out["job"] = a.job.value();
  out["name"] = a.name;
  out["tenant"] = a.tenant;
  out["gpus"] = a.gpus;
  std::vector<int32_t> hosts, sus, pods;
  for (HostId h : a.hosts) hosts.push_back(h.value());
  for (SuId s : a.sus) sus.push_back(s.value());
  for (PodId p : a.pods) pods.push_back(p.value());
  out["hosts"] = hosts;
  out["sus"] = sus;
  out["pods"] = pods;
  out["partition_id"] = a.partition_id;
  return out;
}

// The multi-tenant allocator over one cluster. Not thread-safe: one Allocator
// per thread, or a lock around it (Python's GIL is held during every call).
class Allocator {
 public:
  Allocator(const Cluster& c, std::string_view policy, uint64_t seed, int32_t first_partition,
            int32_t last_partition) {
    placement::AllocatorOptions options;
    options.policy = take(placement::parse_policy(policy), "policy");
    options.seed = seed;
    if (first_partition < 1 || first_partition > last_partition || last_partition > 0xffff)
      raise(invalid_field("partitions", str_cat(first_partition, "-", last_partition),
                          "must satisfy 1 <= first <= last <= 65535"));
    options.partitions = {first_partition, last_partition};
    alloc_ = std::make_unique<placement::Allocator>(c.descriptor(), options);
    if (c.fit() && !c.fit()->drained.empty()) check(alloc_->drain(c.fit()->drained), "cables");
  }
  py::dict allocate(std::string name, int64_t gpus, std::string tenant) {
    return allocation_dict(take(alloc_->allocate({std::move(name), std::move(tenant), gpus})));
  }
  py::dict reserve(std::string name, const std::vector<int64_t>& hosts, std::string tenant,
                   int64_t gpus) {
    const std::vector<HostId> list = to_hosts(hosts);
    return allocation_dict(
        take(alloc_->reserve({std::move(name), std::move(tenant), gpus}, list)));
  }
  void release_name(std::string_view name) { check(alloc_->release(name), "name"); }
  void release_id(int32_t job) { check(alloc_->release(placement::JobId{job}), "job"); }
  void drain(const std::vector<int64_t>& hosts) {
    const std::vector<HostId> list = to_hosts(hosts);
    check(alloc_->drain(list), "hosts");
  }
  py::list jobs() const {
    py::list out;
    for (placement::JobId id : alloc_->jobs()) out.append(allocation_dict(*alloc_->find(id)));
    return out;
  }
  py::object find(std::string_view name) const {
    const placement::JobId id = alloc_->job_named(name);
    const placement::Allocation* a = alloc_->find(id);
    if (a == nullptr) return py::none();
    return allocation_dict(*a);
  }
  int32_t free_hosts() const { return alloc_->free_hosts(); }
  py::object owner_of(int32_t host) const {
    if (host < 0 || host >= alloc_->hosts())
      raise(invalid_field("host", str_cat(host),
                          str_cat("out of range (the cluster has hosts 0..", alloc_->hosts() - 1,
                                  ")")));
    if (alloc_->is_free(HostId{host}) || alloc_->is_drained(HostId{host})) return py::none();
    return py::int_(alloc_->owner_of(HostId{host}).value());
  }
  py::object partition_of(std::string_view tenant) const {
    auto p = alloc_->partition_of(tenant);
    if (!p) return py::none();
    return py::int_(*p);
  }
  py::dict fragmentation() const {
    const placement::Fragmentation f = alloc_->fragmentation();
    py::dict out;
    out["free_hosts_per_su"] = f.free_hosts_per_su;
    out["free_hosts"] = f.free_hosts;
    out["largest_unsplit_hosts"] = f.largest_unsplit_hosts;
    out["largest_placeable_hosts"] = f.largest_placeable_hosts;
    out["live_jobs"] = f.live_jobs;
    out["jobs_split_across_sus"] = f.jobs_split_across_sus;
    out["jobs_split_across_pods"] = f.jobs_split_across_pods;
    return out;
  }

 private:
  std::unique_ptr<placement::Allocator> alloc_;
};

NicPort endpoint(const Cluster& c, std::string_view field, int64_t host, int64_t gpu,
                 int64_t plane) {
  const std::string text = str_cat(host, ":", gpu, ":", plane);
  return take(routing::parse_endpoint(field, text, c.descriptor()), field);
}

// The spray plan as the CLI's `spray --json` object.
std::string spray_json(const Cluster& c, std::tuple<int64_t, int64_t, int64_t> src,
                       std::tuple<int64_t, int64_t, int64_t> dst, int32_t qps,
                       std::string_view hash, uint64_t seed, std::string_view down) {
  const NicPort a = endpoint(c, "src", std::get<0>(src), std::get<1>(src), std::get<2>(src));
  const NicPort b = endpoint(c, "dst", std::get<0>(dst), std::get<1>(dst), std::get<2>(dst));
  auto model = take(routing::parse_hash_model("hash", hash, seed), "hash");
  const topology::Fabric& f = c.fabric();
  topology::FailureOverlay overlay(f);
  if (c.fit()) c.fit()->apply(f, overlay);
  if (!down.empty()) check(topology::apply_failures(f, down, overlay), "down");
  auto plan = take(routing::plan_connection(c.descriptor(), f, a, b, qps, *model, &overlay), "spray");
  return report::spray_json(f, plan, 0);
}

// Source ports of many connections, for lookups on a hot path.
class SprayTable {
 public:
  explicit SprayTable(const std::vector<std::vector<int64_t>>& ports) {
    for (size_t c = 0; c < ports.size(); ++c) {
      routing::SprayPlan plan;
      for (size_t q = 0; q < ports[c].size(); ++q) {
        const int64_t p = ports[c][q];
        if (p < routing::kSportBase || p > 0xFFFF)
          raise(invalid_field(str_cat("plans[", c, "][", q, "]"), str_cat(p),
                              "not a RoCEv2 source port (0xC000..0xFFFF)"));
        routing::QpRoute r;
        r.sport = static_cast<uint16_t>(p);
        plan.qp.push_back(r);
      }
      table_.add(plan);
    }
  }
  int32_t source_port(int32_t connection, int32_t qp) const noexcept {
    return table_.source_port(routing::ConnectionId{connection}, qp);
  }
  int64_t flow_label(int32_t connection, int32_t qp) const noexcept {
    return table_.flow_label(routing::ConnectionId{connection}, qp);
  }
  int32_t connections() const noexcept { return table_.connections(); }
  int32_t qps(int32_t connection) const noexcept {
    return table_.qps(routing::ConnectionId{connection});
  }

 private:
  routing::SprayTable table_;
};

// The hot-path lookups as plain CPython functions (METH_FASTCALL) bound to a
// capsule holding the table: a call costs what calling any builtin costs, with
// no pybind11 dispatch (overload resolution and argument casters) in between.
// The capsule keeps the Python SprayTable object alive. Arguments outside int32
// are, like any unknown connection or QP, answered with 0.
constexpr const char* kTableCapsule = "railyard.SprayTable";

template <int64_t (*Lookup)(const SprayTable&, int32_t, int32_t)>
PyObject* fast_lookup(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "takes 2 arguments: (connection, qp)");
    return nullptr;
  }
  const auto* table = static_cast<const SprayTable*>(PyCapsule_GetPointer(self, kTableCapsule));
  if (table == nullptr) return nullptr;
  int overflow_c = 0, overflow_q = 0;
  const long long c = PyLong_AsLongLongAndOverflow(args[0], &overflow_c);
  if (c == -1 && PyErr_Occurred()) return nullptr;
  const long long q = PyLong_AsLongLongAndOverflow(args[1], &overflow_q);
  if (q == -1 && PyErr_Occurred()) return nullptr;
  if (overflow_c != 0 || overflow_q != 0 || c < INT32_MIN || c > INT32_MAX || q < INT32_MIN ||
      q > INT32_MAX)
    return PyLong_FromLong(0);
  return PyLong_FromLongLong(Lookup(*table, static_cast<int32_t>(c), static_cast<int32_t>(q)));
}

int64_t lookup_port(const SprayTable& t, int32_t c, int32_t q) { return t.source_port(c, q); }
int64_t lookup_label(const SprayTable& t, int32_t c, int32_t q) { return t.flow_label(c, q); }

PyMethodDef kSourcePortDef = {
    "source_port",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_lookup<&lookup_port>)),
    METH_FASTCALL,
    "source_port(connection, qp) -> int: the QP's RoCEv2 UDP source port, 0 if unknown"};
PyMethodDef kFlowLabelDef = {
    "flow_label",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_lookup<&lookup_label>)),
    METH_FASTCALL,
    "flow_label(connection, qp) -> int: the GRH flow label giving that port, 0 if unknown"};

// A builtin function calling `def` on the table held by `owner` (a Python
// SprayTable, kept alive by the capsule).
py::object fast_function(py::object owner, PyMethodDef* def) {
  auto* table = owner.cast<SprayTable*>();
  PyObject* capsule = PyCapsule_New(table, kTableCapsule, [](PyObject* cap) {
    Py_XDECREF(static_cast<PyObject*>(PyCapsule_GetContext(cap)));
  });
  if (capsule == nullptr) throw py::error_already_set();
  PyObject* keep = owner.release().ptr();  // the capsule's reference
  if (PyCapsule_SetContext(capsule, keep) != 0) {
    Py_DECREF(keep);
    Py_DECREF(capsule);
    throw py::error_already_set();
  }
  PyObject* fn = PyCFunction_New(def, capsule);
  Py_DECREF(capsule);
  if (fn == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(fn);
}

struct CollectiveChoice {
  collective::Collective kind;
  collective::Algorithm algorithm;
  std::optional<placement::Dim> group;
};

CollectiveChoice collective_choice(std::string_view name, std::optional<std::string_view> algorithm,
                                   std::optional<std::string_view> group) {
  CollectiveChoice c{take(collective::parse_collective(name), "collective"),
                     collective::Algorithm::kRing, std::nullopt};
  c.algorithm = collective::default_algorithm(c.kind);
  if (algorithm) {
    c.algorithm = take(collective::parse_algorithm(*algorithm), "algorithm");
    check(collective::check_supported(c.kind, c.algorithm), "algorithm");
  }
  if (group) c.group = take(placement::parse_dim("group", *group), "group");
  return c;
}

// A job ordered on another cluster must not index this one's hosts.
void check_job_on(const Cluster& c, const Order& job) {
  if (job.gpus_per_host() != c.descriptor().gpus_per_host())
    raise(invalid_field("job", job.plan(),
                        str_cat("ordered on a cluster with ", job.gpus_per_host(),
                                " GPUs per host; this one has ", c.descriptor().gpus_per_host())));
  check(placement::job_hosts(c.descriptor(), job.job().plan, job.job().hosts).status(), "job");
}

py::dict Order::traffic(const Cluster& c) const {
  check_job_on(c, *this);
  const placement::TrafficReport t = placement::traffic(c.descriptor(), job_);
  py::dict out;
  for (size_t i = 0; i < placement::kTierNames.size(); ++i)
    out[py::str(std::string(placement::kTierNames[i]))] = t.bytes_by_tier[i];
  out["pxn"] = t.pxn_bytes;
  out["tp_within_domain"] = t.tp_within_domain;
  out["dp_ring_sus"] = t.dp_ring_sus;
  return out;
}

std::vector<std::vector<routing::GpuEndpoint>> groups_of(const Order& job, const CollectiveChoice& c) {
  auto groups = sim::job_groups(job.job(), c.group);
  if (groups.front().size() < 2) {
    if (c.group) {
      const std::string dim(placement::to_string(*c.group));
      raise(invalid_field("group", dim,
                          str_cat(dim, "=1 in the job: every ", dim,
                                  " group is a single rank and sends nothing")));
    }
    raise(invalid_field("job", job.plan(), "a job of one rank sends nothing"));
  }
  return groups;
}

// `railyard simulate --json` for a collective on the job's ranks.
std::string simulate_json(const Cluster& c, const Order& job, std::string_view collective,
                          int64_t bytes, std::optional<std::string_view> algorithm,
                          std::optional<std::string_view> group, std::string_view routing_name,
                          int32_t qps, uint64_t seed, std::string_view down, double max_memory) {
  check_job_on(c, job);
  const CollectiveChoice choice = collective_choice(collective, algorithm, group);
  if (bytes < 1 || static_cast<double>(bytes) > static_cast<double>(collective::kMaxBytes))
    raise(invalid_field("bytes", str_cat(bytes),
                        str_cat("must be between 1 and ", collective::kMaxBytes)));
  const auto groups = groups_of(job, choice);
  sim::CollectiveSimOptions options;
  options.algorithm = choice.algorithm;
  options.routing = take(sim::parse_routing(routing_name), "routing");
  options.qps = qps;
  options.seed = seed;
  options.keep_links = false;
  const topology::Cluster cluster{c.descriptor(), c.fabric()};
  topology::FailureOverlay overlay(cluster.fabric);
  bool failures = false;
  if (c.fit()) {
    c.fit()->apply(cluster.fabric, overlay);
    failures = true;
  }
  if (!down.empty()) {
    check(topology::apply_failures(cluster.fabric, down, overlay), "down");
    failures = true;
  }
  options.failures = failures ? &overlay : nullptr;
  // Too big for the machine? Said before the run (as the CLI does), not by the
  // kernel's OOM killer taking the interpreter down an hour into it.
  const auto estimate =
      take(sim::estimate_collective_memory(c.descriptor(), groups, choice.kind, bytes, options),
           "simulate");
  if (max_memory > 0 && estimate.bytes > max_memory)
    raise(make_status(StatusCode::kResourceExhausted,
                      str_cat("max_memory=", static_cast<int64_t>(max_memory),
                              " bytes: the simulation of job ", job.plan(), " needs ~",
                              static_cast<int64_t>(estimate.bytes), " bytes (",
                              estimate.stored_transfers, " stored transfers, ", estimate.step_flows,
                              " flows in the largest step); simulate fewer ranks, one "
                              "dimension's groups (group=) or fewer QPs")),
          "max_memory");
  auto r = take(sim::simulate_collective(cluster, groups, choice.kind, bytes, options), "simulate");
  return report::simulate_json(cluster.fabric, r, 0);
}

// `railyard cc --json`: from an incast, or from a job's step or collective.
std::string cc_json(const Cluster& c, std::optional<int32_t> incast, const Order* job,
                    std::optional<std::string_view> collective,
                    std::optional<std::string_view> algorithm,
                    std::optional<std::string_view> group, std::optional<double> buffer_mb,
                    std::optional<int64_t> message_bytes, std::optional<double> cable_m,
                    std::optional<int32_t> mtu) {
  cc::CcInputs in;
  report::CcReportContext ctx;
  ctx.cluster = c.origin();
  ctx.incast_source = "default";
  if (incast) {
    in.incast = *incast;
    ctx.incast_source = "incast";
  }
  if (job != nullptr) {
    check_job_on(c, *job);
    cc::Incast derived;
    if (collective) {
      const CollectiveChoice choice = collective_choice(*collective, algorithm, group);
      derived = take(cc::collective_incast(choice.kind, choice.algorithm, groups_of(*job, choice)),
                     "algorithm");
    } else {
      if (algorithm || group)
        raise(invalid_field(algorithm ? "algorithm" : "group",
                            std::string(algorithm ? *algorithm : *group),
                            "needs collective= (without it the incast is the job's training step)"));
      derived = cc::job_incast(job->job());
    }
    if (!incast) {
      in.incast = derived.senders;
      ctx.incast_source = derived.source;
    }
  } else if (collective || algorithm || group) {
    raise(invalid_field("job", "", "collective=, algorithm= and group= need job="));
  }
  if (buffer_mb) in.buffer_bytes_per_port = *buffer_mb * kBytesPerMB;
  if (message_bytes) in.message_bytes = static_cast<double>(*message_bytes);
  if (cable_m) in.cable_m = *cable_m;
  if (mtu) {
    if (std::find(cc::kRoceMtus.begin(), cc::kRoceMtus.end(), *mtu) == cc::kRoceMtus.end())
      raise(invalid_field("mtu", str_cat(*mtu), "must be one of 256, 512, 1024, 2048, 4096"));
    in.mtu_bytes = *mtu;
  }
  const topology::Cluster cluster{c.descriptor(), c.fabric()};
  auto plan = take(cc::derive_cc(cluster, in), "cc");
  return report::cc_json(plan, in, ctx, 0);
}

// An imported scheduler topology (Slurm topology.conf or railyard's CSV): a
// switch tree and the fabric built from it.
struct Imported {
  topology::SwitchTree tree;
  topology::Fabric fabric;
};

Imported import_tree(std::string_view text, bool csv, double host_gbps, double leaf_up_gbps,
                     double spine_up_gbps) {
  auto tree = take(csv ? topology::csv_topology_from_text(text)
                       : topology::slurm_topology_from_conf(text),
                   csv ? "topology_csv" : "topology_conf");
  auto fabric = take(topology::fabric_from_tree(tree, {host_gbps, leaf_up_gbps, spine_up_gbps}),
                     csv ? "topology_csv" : "topology_conf");
  return Imported{std::move(tree), std::move(fabric)};
}

py::list tree_switches(const Imported& t) {
  py::list out;
  for (const auto& sw : t.tree.switches) {
    py::dict s;
    s["name"] = sw.name;
    s["level"] = sw.level;
    s["children"] = sw.children;
    s["hosts"] = sw.hosts;
    out.append(s);
  }
  return out;
}

}  // namespace
}  // namespace railyard::python

PYBIND11_MODULE(_railyard, m) {
  using namespace railyard::python;
  namespace rp = railyard::python;
  m.doc() = "railyard's C++ library (header-only) bound for Python; use the `railyard` package.";
  m.attr("version") = std::string(railyard::kVersion);

  py::class_<Cluster>(m, "Cluster")
      .def_static("from_spec", &Cluster::from_spec, py::arg("spec"))
      .def_static("from_cable_list", &Cluster::from_cable_list, py::arg("text"),
                  py::arg("ibnetdiscover"), py::arg("origin"))
      .def("summary", &Cluster::summary)
      .def("host_names", &Cluster::host_names, py::arg("pattern") = py::none())
      .def("describe_json", &Cluster::describe_json)
      .def("place_of", &Cluster::place_of, py::arg("host"))
      .def_property_readonly("fitted", [](const Cluster& c) { return c.fit().has_value(); })
      .def_property_readonly("drained", [](const Cluster& c) {
        std::vector<int32_t> out;
        if (c.fit())
          for (railyard::HostId h : c.fit()->drained) out.push_back(h.value());
        return out;
      });

  py::class_<Order>(m, "Order")
      .def_property_readonly("hosts", &Order::hosts)
      .def_property_readonly("world", &Order::world)
      .def_property_readonly("gpus_per_host", &Order::gpus_per_host)
      .def_property_readonly("plan", &Order::plan)
      .def_property_readonly("order_string", &Order::order_string)
      .def_property_readonly("sizes", &Order::sizes)
      .def("rank", &Order::rank, py::arg("rank"))
      .def("table", &Order::table)
      .def("traffic", &Order::traffic, py::arg("cluster"))
      .def("megatron_args", &Order::megatron_args);

  m.def("order", &order_job, py::arg("cluster"), py::arg("plan"), py::arg("hosts"),
        py::arg("naive"));
  m.def("parse_host_ids", &parse_host_ids, py::arg("text"), py::arg("limit"));
  m.def(
      "expand_hostlist",
      [](std::string_view text) { return rp::take(railyard::expand_hostlist(text), "hosts"); },
      py::arg("text"));
  m.def(
      "compress_hostlist",
      [](const std::vector<std::string>& names) { return railyard::compress_hostlist(names); },
      py::arg("names"));

  py::class_<Allocator>(m, "Allocator")
      .def(py::init<const Cluster&, std::string_view, uint64_t, int32_t, int32_t>(),
           py::arg("cluster"), py::arg("policy"), py::arg("seed"), py::arg("first_partition"),
           py::arg("last_partition"))
      .def("allocate", &Allocator::allocate, py::arg("name"), py::arg("gpus"), py::arg("tenant"))
      .def("reserve", &Allocator::reserve, py::arg("name"), py::arg("hosts"), py::arg("tenant"),
           py::arg("gpus"))
      .def("release_name", &Allocator::release_name, py::arg("name"))
      .def("release_id", &Allocator::release_id, py::arg("job"))
      .def("drain", &Allocator::drain, py::arg("hosts"))
      .def("jobs", &Allocator::jobs)
      .def("find", &Allocator::find, py::arg("name"))
      .def("owner_of", &Allocator::owner_of, py::arg("host"))
      .def("partition_of", &Allocator::partition_of, py::arg("tenant"))
      .def("fragmentation", &Allocator::fragmentation)
      .def_property_readonly("free_hosts", &Allocator::free_hosts);

  m.def("spray_json", &spray_json, py::arg("cluster"), py::arg("src"), py::arg("dst"),
        py::arg("qps"), py::arg("hash"), py::arg("seed"), py::arg("down"));

  py::class_<SprayTable>(m, "SprayTable")
      .def(py::init<const std::vector<std::vector<int64_t>>&>(), py::arg("ports"))
      .def("source_port", &SprayTable::source_port, py::arg("connection"), py::arg("qp"))
      .def("flow_label", &SprayTable::flow_label, py::arg("connection"), py::arg("qp"))
      .def("qps", &SprayTable::qps, py::arg("connection"))
      .def("fast_source_port", [](py::object self) { return fast_function(self, &kSourcePortDef); })
      .def("fast_flow_label", [](py::object self) { return fast_function(self, &kFlowLabelDef); })
      .def_property_readonly("connections", &SprayTable::connections);

  m.def("simulate_json", &simulate_json, py::arg("cluster"), py::arg("job"),
        py::arg("collective"), py::arg("bytes"), py::arg("algorithm"), py::arg("group"),
        py::arg("routing"), py::arg("qps"), py::arg("seed"), py::arg("down"),
        py::arg("max_memory"));
  m.def("cc_json", &cc_json, py::arg("cluster"), py::arg("incast"), py::arg("job"),
        py::arg("collective"), py::arg("algorithm"), py::arg("group"), py::arg("buffer_mb"),
        py::arg("message_bytes"), py::arg("cable_m"), py::arg("mtu"));

  py::class_<Imported>(m, "Imported")
      .def_property_readonly("hosts", [](const Imported& t) { return t.tree.hosts; })
      .def("switches", &tree_switches)
      .def("inventory_json", [](const Imported& t) {
        return railyard::report::fabric_inventory_json(railyard::topology::fabric_inventory(t.fabric),
                                                       0);
      });
  m.def("import_tree", &import_tree, py::arg("text"), py::arg("csv"), py::arg("host_gbps"),
        py::arg("leaf_up_gbps"), py::arg("spine_up_gbps"));
}
