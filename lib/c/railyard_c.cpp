// librailyard_c.so: the C API of railyard/c/railyard.h over the header-only
// library, and the path advisor's C API (railyard/plugin/advisor.h) beside it.
//
// Built like the NCCL plugins (RAILYARD_STANDALONE_STATUS: no Abseil; hidden
// visibility; a version script exporting railyard_* only), because it is
// loaded into other programs' processes. Every function catches everything:
// a C caller cannot see a C++ exception, so one crossing the boundary would
// terminate the caller's process.
#define RAILYARD_ADVISOR_IMPLEMENTATION
#include "railyard/c/railyard.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "railyard/cc/derive.hpp"
#include "railyard/cc/incast.hpp"
#include "railyard/core/file.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/plugin/advisor.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/import/cable_fit.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/version.hpp"

namespace ry = railyard;

struct railyard_cluster {
  explicit railyard_cluster(const ry::topology::ClusterDescriptor<>& d) : descriptor(d) {}
  ry::topology::ClusterDescriptor<> descriptor;
  std::optional<ry::topology::CableFit> fit;  // imported clusters
  std::vector<std::string> names;             // by host id
  std::unordered_map<std::string_view, int32_t> host_of_name;  // views into names
  // The fabric is O(GPUs) to build; many callers need only the descriptor.
  mutable std::once_flag built;
  mutable std::optional<ry::topology::Cluster> full;

  const ry::topology::Cluster& cluster() const {
    std::call_once(built, [this] {
      full.emplace(ry::topology::Cluster{descriptor, ry::topology::materialize(descriptor)});
    });
    return *full;
  }
};

struct railyard_order {
  ry::placement::JobPlacement placement;
  std::string order_string;
};

struct railyard_allocator {
  ry::placement::Allocator allocator;
};

namespace {

char* error_buffer() noexcept {
  thread_local char buffer[RAILYARD_C_ERROR_LEN] = {};
  return buffer;
}

void copy_text(char* dst, size_t len, std::string_view text) noexcept {
  if (dst == nullptr || len == 0) return;
  const size_t n = std::min(len - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

// Records `message` as the thread's last error and returns `code`.
int fail(int code, std::string_view message) noexcept {
  copy_text(error_buffer(), RAILYARD_C_ERROR_LEN, message);
  return code;
}

int code_of(const ry::Status& s) noexcept {
  using ry::StatusCode;
  switch (s.code()) {
    case StatusCode::kOk:
      return RAILYARD_OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return RAILYARD_EINVAL;
    case StatusCode::kNotFound:
      return RAILYARD_ENOTFOUND;
    case StatusCode::kAlreadyExists:
      return RAILYARD_EEXIST;
    case StatusCode::kResourceExhausted:
      return RAILYARD_ENOSPACE;
    case StatusCode::kFailedPrecondition:
      return RAILYARD_EBUSY;
    default:
      return RAILYARD_EINTERNAL;
  }
}

int fail(const ry::Status& s) noexcept { return fail(code_of(s), s.message()); }

// A library error whose message does not start with "field=value" (a whole
// spec string that is no preset) gets the C argument's name and value in front.
int fail_naming(const ry::Status& s, std::string_view argument, std::string_view value) {
  if (auto f = ry::error_field(s); f && s.message().starts_with(ry::str_cat(f->field, "=")))
    return fail(s);
  return fail(code_of(s), ry::str_cat(argument, "=", value, ": ", s.message()));
}

int null_argument(const char* name) noexcept {
  return fail(RAILYARD_EINVAL, ry::str_cat(name, "=(null): required"));
}

// Runs `body` (returning an int status), turning every exception into
// RAILYARD_EINTERNAL with its message.
template <class Body>
int guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(RAILYARD_EINTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(RAILYARD_EINTERNAL, ry::str_cat("internal error: ", e.what()));
  } catch (...) {
    return fail(RAILYARD_EINTERNAL, "internal error: unknown exception");
  }
}

// For the functions that create a handle: the error also goes to `err`.
int with_err(int rc, char* err, size_t err_len) noexcept {
  if (rc != RAILYARD_OK) copy_text(err, err_len, error_buffer());
  else copy_text(err, err_len, "");
  return rc;
}

std::string_view text_or_empty(const char* s) { return s == nullptr ? std::string_view() : s; }

// Host ids given as a C array: checked against the cluster by the library
// functions (job_hosts, Allocator::reserve), which name `hosts`.
std::vector<ry::HostId> host_ids(const int32_t* hosts, size_t count) {
  std::vector<ry::HostId> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) out.push_back(ry::HostId{hosts[i]});
  return out;
}

int finish_cluster(std::unique_ptr<railyard_cluster> c, const ry::topology::NodeNamer* namer,
                   railyard_cluster** out) {
  const ry::topology::ClusterDescriptor<>& d = c->descriptor;
  c->names.reserve(static_cast<size_t>(d.hosts()));
  for (int32_t h = 0; h < d.hosts(); ++h)
    c->names.push_back(c->fit ? c->fit->host_names[static_cast<size_t>(h)]
                              : namer->name(d, ry::HostId{h}));
  c->host_of_name.reserve(c->names.size());
  for (size_t h = 0; h < c->names.size(); ++h)
    c->host_of_name.emplace(c->names[h], static_cast<int32_t>(h));
  *out = c.release();
  return RAILYARD_OK;
}

int import_text(std::string_view format, std::string_view text, railyard_cluster** out) {
  ry::StatusOr<ry::topology::CableList> list = ry::invalid_field(
      "format", format, "unknown format (formats: cables, ibnetdiscover)");
  if (format == "cables") list = ry::topology::cable_list_from_text(text);
  else if (format == "ibnetdiscover") list = ry::topology::cable_list_from_ibnetdiscover(text);
  if (!list.ok()) return fail(list.status());
  auto fit = ry::topology::fit_cables(*list);
  if (!fit.ok()) return fail(fit.status());
  auto c = std::make_unique<railyard_cluster>(fit->descriptor);
  c->fit = *std::move(fit);
  return finish_cluster(std::move(c), nullptr, out);
}

bool only_id_characters(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char ch) { return (ch >= '0' && ch <= '9') || ch == ',' || ch == '-'; });
}

ry::StatusOr<ry::placement::JobPlacement> place_job(const railyard_cluster& c, const char* job,
                                                    const int32_t* hosts, size_t host_count,
                                                    bool naive) {
  if (job == nullptr) return ry::invalid_field("job", "(null)", "required");
  if (hosts == nullptr && host_count > 0)
    return ry::invalid_field("hosts", "(null)", ry::str_cat("host_count=", host_count, " but no array"));
  auto plan = ry::placement::parse_plan(job);
  if (!plan.ok()) return plan.status();
  const std::vector<ry::HostId> ids = host_ids(hosts, host_count);
  return naive ? ry::placement::naive_order(c.descriptor, *plan, ids)
               : ry::placement::order_ranks(c.descriptor, *plan, ids);
}

void fill_rank(const railyard_order& o, int64_t rank, railyard_rank* out) noexcept {
  const ry::placement::JobPlacement& p = o.placement;
  const int64_t g = p.gpus_per_host;
  out->host = p.hosts[static_cast<size_t>(rank / g)].value();
  out->gpu = static_cast<int32_t>(rank % g);
  // coords(): the order string's first dimension fastest.
  int64_t rest = rank;
  int32_t c[ry::placement::kDimCount] = {};
  for (ry::placement::Dim d : p.plan.order) {
    const int32_t n = p.plan.size(d);
    c[static_cast<size_t>(d)] = static_cast<int32_t>(rest % n);
    rest /= n;
  }
  out->tp = c[0];
  out->cp = c[1];
  out->ep = c[2];
  out->dp = c[3];
  out->pp = c[4];
}

void fill_dcqcn(const ry::cc::DcqcnParams& p, railyard_cc_dcqcn* out) {
  out->g = p.g;
  out->alpha_period_us = p.alpha_period_us;
  out->decrease_period_us = p.decrease_period_us;
  out->increase_timer_us = p.increase_timer_us;
  out->byte_counter_bytes = p.byte_counter_bytes;
  out->fast_recovery = p.fast_recovery;
  out->ai_mbps = p.ai_mbps;
  out->hai_mbps = p.hai_mbps;
  out->min_dec_factor = p.min_dec_factor;
  out->min_rate_mbps = p.min_rate_mbps;
  out->min_time_between_cnps_us = p.min_time_between_cnps_us;
}

}  // namespace

extern "C" {

int railyard_c_api_version(void) noexcept { return RAILYARD_C_API_VERSION; }

// kVersion views a string literal, which is NUL-terminated.
const char* railyard_version(void) noexcept { return ry::kVersion.data(); }

const char* railyard_last_error(void) noexcept { return error_buffer(); }

const char* railyard_strerror(int status) noexcept {
  switch (status) {
    case RAILYARD_OK:
      return "ok";
    case RAILYARD_EINVAL:
      return "invalid argument";
    case RAILYARD_ENOTFOUND:
      return "not found";
    case RAILYARD_EEXIST:
      return "already exists";
    case RAILYARD_ENOSPACE:
      return "no space";
    case RAILYARD_EBUSY:
      return "busy";
    case RAILYARD_ERANGE:
      return "buffer too small";
    case RAILYARD_EIO:
      return "input/output error";
    case RAILYARD_EINTERNAL:
      return "internal error";
    default:
      return "unknown status";
  }
}

// ---- Clusters ---------------------------------------------------------------

int railyard_cluster_create(const char* spec, const char* node_pattern, railyard_cluster** out,
                            char* err, size_t err_len) noexcept {
  return with_err(guarded([&]() -> int {
                    if (out == nullptr) return null_argument("out");
                    *out = nullptr;
                    if (spec == nullptr) return null_argument("spec");
                    auto parsed = ry::topology::parse_cluster(spec);
                    if (!parsed.ok()) return fail_naming(parsed.status(), "spec", spec);
                    auto desc = ry::topology::make_descriptor(*parsed);
                    if (!desc.ok()) return fail(desc.status());
                    const std::string_view pattern =
                        node_pattern == nullptr || *node_pattern == '\0'
                            ? ry::topology::kDefaultNodePattern
                            : std::string_view(node_pattern);
                    auto namer = ry::topology::NodeNamer::parse(pattern);
                    if (!namer.ok()) return fail(namer.status());
                    if (ry::Status s = namer->check(*desc); !s.ok()) return fail(s);
                    auto c = std::make_unique<railyard_cluster>(*desc);
                    return finish_cluster(std::move(c), &*namer, out);
                  }),
                  err, err_len);
}

int railyard_cluster_import(const char* format, const char* text, size_t text_len,
                            railyard_cluster** out, char* err, size_t err_len) noexcept {
  return with_err(guarded([&]() -> int {
                    if (out == nullptr) return null_argument("out");
                    *out = nullptr;
                    if (format == nullptr) return null_argument("format");
                    if (text == nullptr) return null_argument("text");
                    return import_text(format, std::string_view(text, text_len), out);
                  }),
                  err, err_len);
}

int railyard_cluster_import_file(const char* format, const char* path, railyard_cluster** out,
                                 char* err, size_t err_len) noexcept {
  return with_err(guarded([&]() -> int {
                    if (out == nullptr) return null_argument("out");
                    *out = nullptr;
                    if (format == nullptr) return null_argument("format");
                    if (path == nullptr) return null_argument("path");
                    auto text = ry::read_text_file("path", path);
                    if (!text.ok()) return fail(RAILYARD_EIO, text.status().message());
                    return import_text(format, *text, out);
                  }),
                  err, err_len);
}

void railyard_cluster_destroy(railyard_cluster* cluster) noexcept { delete cluster; }

int railyard_cluster_get_info(const railyard_cluster* cluster,
                              railyard_cluster_info* out) noexcept {
  return guarded([&]() -> int {
    if (cluster == nullptr) return null_argument("cluster");
    if (out == nullptr) return null_argument("out");
    const auto& d = cluster->descriptor;
    std::memset(out, 0, sizeof *out);
    out->hosts = d.hosts();
    out->gpus_per_host = d.gpus_per_host();
    out->nics_per_host = d.nics_per_host();
    out->planes = d.planes();
    out->hosts_per_su = d.hosts_per_su();
    out->sus = d.sus();
    out->pods = d.pods();
    out->tiers = d.tiers();
    out->nic_gbps = d.spec().nic_gbps;
    out->drained_hosts = cluster->fit ? static_cast<int32_t>(cluster->fit->drained.size()) : 0;
    out->gpus = d.gpus();
    copy_text(out->kind, sizeof out->kind, ry::topology::to_string(d.kind()));
    return RAILYARD_OK;
  });
}

int railyard_cluster_host_name(const railyard_cluster* cluster, int32_t host, char* buf,
                               size_t buf_len, size_t* needed) noexcept {
  return guarded([&]() -> int {
    if (cluster == nullptr) return null_argument("cluster");
    if (host < 0 || host >= cluster->descriptor.hosts())
      return fail(ry::invalid_field("host", ry::str_cat(host),
                                    ry::str_cat("out of range (the cluster has hosts 0..",
                                                cluster->descriptor.hosts() - 1, ")")));
    const std::string& name = cluster->names[static_cast<size_t>(host)];
    if (needed != nullptr) *needed = name.size() + 1;
    if (buf == nullptr || buf_len < name.size() + 1)
      return fail(RAILYARD_ERANGE, ry::str_cat("buf_len=", buf_len, ": the name '", name,
                                               "' needs ", name.size() + 1, " bytes"));
    copy_text(buf, buf_len, name);
    return RAILYARD_OK;
  });
}

int railyard_cluster_parse_hosts(const railyard_cluster* cluster, const char* text, int32_t* ids,
                                 size_t capacity, size_t* count) noexcept {
  return guarded([&]() -> int {
    if (cluster == nullptr) return null_argument("cluster");
    if (text == nullptr) return null_argument("text");
    if (count == nullptr) return null_argument("count");
    *count = 0;
    const std::string_view t = text;
    std::vector<int32_t> found;
    if (only_id_characters(t)) {
      auto list = ry::parse_host_list("hosts", t, cluster->descriptor.hosts());
      if (!list.ok()) return fail(list.status());
      for (ry::HostId h : *list) found.push_back(h.value());
    } else {
      auto names = ry::expand_hostlist(t);
      if (!names.ok()) return fail(names.status());
      std::vector<bool> seen(static_cast<size_t>(cluster->descriptor.hosts()), false);
      for (const std::string& name : *names) {
        auto it = cluster->host_of_name.find(name);
        if (it == cluster->host_of_name.end())
          return fail(RAILYARD_ENOTFOUND,
                      ry::str_cat("hosts=", name, ": no such node in the cluster (its nodes are ",
                                  cluster->names.front(), " .. ", cluster->names.back(), ")"));
        if (seen[static_cast<size_t>(it->second)])
          return fail(ry::invalid_field("hosts", name, "listed twice"));
        seen[static_cast<size_t>(it->second)] = true;
        found.push_back(it->second);
      }
    }
    *count = found.size();
    if (ids == nullptr || capacity < found.size())
      return fail(RAILYARD_ERANGE, ry::str_cat("capacity=", capacity, ": the list has ",
                                               found.size(), " hosts"));
    std::copy(found.begin(), found.end(), ids);
    return RAILYARD_OK;
  });
}

// ---- Rank ordering -----------------------------------------------------------

int railyard_order_ranks(const railyard_cluster* cluster, const char* job, const int32_t* hosts,
                         size_t host_count, uint32_t flags, railyard_order** out) noexcept {
  return guarded([&]() -> int {
    if (out == nullptr) return null_argument("out");
    *out = nullptr;
    if (cluster == nullptr) return null_argument("cluster");
    if ((flags & ~uint32_t{RAILYARD_ORDER_NAIVE}) != 0)
      return fail(ry::invalid_field("flags", ry::str_cat(flags),
                                    "unknown flag (known: RAILYARD_ORDER_NAIVE = 1)"));
    auto placed = place_job(*cluster, job, hosts, host_count, (flags & RAILYARD_ORDER_NAIVE) != 0);
    if (!placed.ok()) return fail(placed.status());
    auto o = std::make_unique<railyard_order>();
    o->order_string = placed->plan.order_string();
    o->placement = *std::move(placed);
    *out = o.release();
    return RAILYARD_OK;
  });
}

void railyard_order_destroy(railyard_order* order) noexcept { delete order; }

int railyard_order_get_info(const railyard_order* order, railyard_order_info* out) noexcept {
  return guarded([&]() -> int {
    if (order == nullptr) return null_argument("order");
    if (out == nullptr) return null_argument("out");
    std::memset(out, 0, sizeof *out);
    const auto& p = order->placement;
    out->world = p.plan.world();
    out->gpus_per_host = p.gpus_per_host;
    out->nodes = static_cast<int32_t>(p.hosts.size());
    for (size_t d = 0; d < ry::placement::kDimCount; ++d) out->sizes[d] = p.plan.sizes[d];
    copy_text(out->order, sizeof out->order, order->order_string);
    return RAILYARD_OK;
  });
}

int railyard_order_nodes(const railyard_order* order, int32_t* hosts, size_t capacity) noexcept {
  return guarded([&]() -> int {
    if (order == nullptr) return null_argument("order");
    const auto& list = order->placement.hosts;
    if (hosts == nullptr || capacity < list.size())
      return fail(RAILYARD_ERANGE,
                  ry::str_cat("capacity=", capacity, ": the job has ", list.size(), " nodes"));
    for (size_t i = 0; i < list.size(); ++i) hosts[i] = list[i].value();
    return RAILYARD_OK;
  });
}

// These two read a table and allocate nothing on success; the error paths
// format a message, which may allocate, so they too run under guarded()
// (a try block costs nothing until something throws).
int railyard_order_rank(const railyard_order* order, int64_t rank, railyard_rank* out) noexcept {
  return guarded([&]() -> int {
    if (order == nullptr) return null_argument("order");
    if (out == nullptr) return null_argument("out");
    const int64_t world = order->placement.plan.world();
    if (rank < 0 || rank >= world)
      return fail(ry::invalid_field("rank", ry::str_cat(rank),
                                    ry::str_cat("out of range (the job has ranks 0..", world - 1, ")")));
    fill_rank(*order, rank, out);
    return RAILYARD_OK;
  });
}

int railyard_order_table(const railyard_order* order, railyard_rank* out,
                         size_t capacity) noexcept {
  return guarded([&]() -> int {
    if (order == nullptr) return null_argument("order");
    const int64_t world = order->placement.plan.world();
    if (out == nullptr || capacity < static_cast<size_t>(world))
      return fail(RAILYARD_ERANGE,
                  ry::str_cat("capacity=", capacity, ": the job has ", world, " ranks"));
    for (int64_t r = 0; r < world; ++r) fill_rank(*order, r, &out[r]);
    return RAILYARD_OK;
  });
}

// ---- Multi-tenant placement --------------------------------------------------

int railyard_allocator_create(const railyard_cluster* cluster, const char* policy, uint64_t seed,
                              railyard_allocator** out, char* err, size_t err_len) noexcept {
  return with_err(guarded([&]() -> int {
                    if (out == nullptr) return null_argument("out");
                    *out = nullptr;
                    if (cluster == nullptr) return null_argument("cluster");
                    ry::placement::AllocatorOptions options;
                    options.seed = seed;
                    if (policy != nullptr && *policy != '\0') {
                      auto p = ry::placement::parse_policy(policy);
                      if (!p.ok()) return fail(p.status());
                      options.policy = *p;
                    }
                    auto alloc = ry::placement::make_allocator(cluster->descriptor, options);
                    if (!alloc.ok()) return fail(alloc.status());
                    if (cluster->fit)
                      if (ry::Status s = alloc->drain(cluster->fit->drained); !s.ok()) return fail(s);
                    *out = new railyard_allocator{*std::move(alloc)};
                    return RAILYARD_OK;
                  }),
                  err, err_len);
}

void railyard_allocator_destroy(railyard_allocator* allocator) noexcept { delete allocator; }

namespace {
void fill_allocation(const ry::placement::Allocation& a, railyard_allocation* out) {
  out->job = a.job.value();
  out->partition_id = a.partition_id;
  out->hosts = static_cast<int32_t>(a.hosts.size());
  out->sus = static_cast<int32_t>(a.sus.size());
  out->pods = static_cast<int32_t>(a.pods.size());
}
}  // namespace

int railyard_allocator_allocate(railyard_allocator* allocator, const char* name,
                                const char* tenant, int64_t gpus, int32_t* hosts, size_t capacity,
                                railyard_allocation* out) noexcept {
  return guarded([&]() -> int {
    if (allocator == nullptr) return null_argument("allocator");
    if (name == nullptr) return null_argument("name");
    ry::placement::Allocator& a = allocator->allocator;
    // The caller's array must hold the job before anything changes.
    if (gpus > 0 && gpus % a.gpus_per_host() == 0 &&
        (hosts == nullptr || capacity < static_cast<uint64_t>(gpus / a.gpus_per_host())))
      return fail(RAILYARD_ERANGE, ry::str_cat("capacity=", capacity, ": gpus=", gpus, " takes ",
                                               gpus / a.gpus_per_host(), " hosts"));
    auto got = a.allocate({std::string(name), std::string(text_or_empty(tenant)), gpus});
    if (!got.ok()) return fail(got.status());
    for (size_t i = 0; i < got->hosts.size(); ++i) hosts[i] = got->hosts[i].value();
    if (out != nullptr) fill_allocation(*got, out);
    return RAILYARD_OK;
  });
}

int railyard_allocator_reserve(railyard_allocator* allocator, const char* name, const char* tenant,
                               const int32_t* hosts, size_t host_count,
                               railyard_allocation* out) noexcept {
  return guarded([&]() -> int {
    if (allocator == nullptr) return null_argument("allocator");
    if (name == nullptr) return null_argument("name");
    if (hosts == nullptr && host_count > 0) return null_argument("hosts");
    const std::vector<ry::HostId> ids = host_ids(hosts, host_count);
    auto got = allocator->allocator.reserve(
        {std::string(name), std::string(text_or_empty(tenant)), 0}, ids);
    if (!got.ok()) return fail(got.status());
    if (out != nullptr) fill_allocation(*got, out);
    return RAILYARD_OK;
  });
}

int railyard_allocator_release(railyard_allocator* allocator, const char* name) noexcept {
  return guarded([&]() -> int {
    if (allocator == nullptr) return null_argument("allocator");
    if (name == nullptr) return null_argument("name");
    if (ry::Status s = allocator->allocator.release(std::string_view(name)); !s.ok()) return fail(s);
    return RAILYARD_OK;
  });
}

int railyard_allocator_get_state(const railyard_allocator* allocator,
                                 railyard_allocator_state* out) noexcept {
  return guarded([&]() -> int {
    if (allocator == nullptr) return null_argument("allocator");
    if (out == nullptr) return null_argument("out");
    const ry::placement::Allocator& a = allocator->allocator;
    const ry::placement::Fragmentation f = a.fragmentation();
    out->free_hosts = a.free_hosts();
    out->live_jobs = a.live_jobs();
    out->live_tenants = a.live_tenants();
    out->largest_unsplit_hosts = f.largest_unsplit_hosts;
    out->jobs_split_across_sus = a.jobs_split_across_sus();
    out->jobs_split_across_pods = a.jobs_split_across_pods();
    return RAILYARD_OK;
  });
}

// ---- Source ports --------------------------------------------------------------

int railyard_cluster_advisor(const railyard_cluster* cluster, const char* hash_model,
                             uint32_t hash_seed, railyard_advisor** out, char* err,
                             size_t err_len) noexcept {
  return with_err(guarded([&]() -> int {
                    if (out == nullptr) return null_argument("out");
                    *out = nullptr;
                    if (cluster == nullptr) return null_argument("cluster");
                    ry::plugin::AdvisorOptions options;
                    if (hash_model != nullptr && *hash_model != '\0')
                      options.hash_model = hash_model;
                    options.hash_seed = hash_seed;
                    auto adv = ry::plugin::PathAdvisor::create(cluster->cluster(), options);
                    if (!adv.ok()) return fail(adv.status());
                    *out = new railyard_advisor{*std::move(adv), nullptr, nullptr};
                    return RAILYARD_OK;
                  }),
                  err, err_len);
}

// ---- Congestion control ----------------------------------------------------------

int railyard_cc_recommend(const railyard_cluster* cluster, const railyard_cc_request* request,
                          railyard_cc_settings* out, char* nccl_env, size_t nccl_env_len,
                          size_t* nccl_env_needed) noexcept {
  return guarded([&]() -> int {
    if (cluster == nullptr) return null_argument("cluster");
    if (request == nullptr) return null_argument("request");
    if (out == nullptr) return null_argument("out");
    const railyard_cc_request& r = *request;
    ry::cc::CcInputs in;
    if (r.incast < 0)
      return fail(ry::invalid_field("incast", ry::str_cat(r.incast), "must be >= 1 (0: derived)"));
    if (r.incast > 0) {
      in.incast = r.incast;
    } else if (r.job != nullptr) {
      auto placed = place_job(*cluster, r.job, r.hosts, r.host_count, false);
      if (!placed.ok()) return fail(placed.status());
      in.incast = ry::cc::job_incast(*placed).senders;
    } else if (r.host_count > 0) {
      return fail(ry::invalid_field("hosts", ry::str_cat(r.host_count, " hosts"),
                                    "given without a job"));
    }
    if (r.mtu_bytes != 0) {
      if (std::find(ry::cc::kRoceMtus.begin(), ry::cc::kRoceMtus.end(), r.mtu_bytes) ==
          ry::cc::kRoceMtus.end())
        return fail(ry::invalid_field("mtu_bytes", ry::str_cat(r.mtu_bytes),
                                      "must be one of 256, 512, 1024, 2048, 4096 (the RoCE MTUs)"));
      in.mtu_bytes = r.mtu_bytes;
    }
    auto non_negative = [](const char* field, double v) -> ry::Status {
      if (!(v >= 0)) return ry::invalid_field(field, ry::str_cat(v), "must be >= 0 (0: default)");
      return ry::ok_status();
    };
    for (auto [field, v] : {std::pair{"buffer_bytes_per_port", r.buffer_bytes_per_port},
                            std::pair{"message_bytes", r.message_bytes},
                            std::pair{"cable_m", r.cable_m}})
      if (ry::Status s = non_negative(field, v); !s.ok()) return fail(s);
    in.buffer_bytes_per_port = r.buffer_bytes_per_port;
    in.message_bytes = r.message_bytes;
    in.cable_m = r.cable_m;
    auto plan = ry::cc::derive_cc(cluster->cluster(), in);
    if (!plan.ok()) return fail(plan.status());

    std::string env;
    for (const ry::cc::EnvVar& v : plan->nccl_env) ry::str_append(env, v.name, "=", v.value, "\n");
    if (nccl_env_needed != nullptr) *nccl_env_needed = env.size() + 1;

    std::memset(out, 0, sizeof *out);
    out->link_gbps = plan->link_gbps;
    out->incast = plan->incast;
    out->mtu_bytes = plan->mtu_bytes;
    out->buffer_bytes_per_port = plan->buffer_bytes_per_port;
    out->pfc_headroom_bytes = plan->pfc_headroom_bytes;
    out->pfc_priority = plan->pfc.priority;
    out->ecn_tiers =
        static_cast<int32_t>(std::min<size_t>(plan->ecn.size(), RAILYARD_CC_MAX_TIERS));
    for (int32_t t = 0; t < out->ecn_tiers; ++t) {
      const ry::cc::EcnTier& e = plan->ecn[static_cast<size_t>(t)];
      railyard_cc_ecn& o = out->ecn[t];
      copy_text(o.tier, sizeof o.tier, e.tier);
      o.rtt_us = e.rtt_us;
      o.bdp_bytes = e.bdp_bytes;
      o.kmin_bytes = e.kmin_bytes;
      o.kmax_bytes = e.kmax_bytes;
      o.pmax = e.pmax;
      o.fits = e.fits ? 1 : 0;
    }
    fill_dcqcn(plan->dcqcn, &out->dcqcn);
    fill_dcqcn(plan->derived_dcqcn, &out->derived_dcqcn);
    out->nccl_env_count = static_cast<int32_t>(plan->nccl_env.size());
    if (nccl_env != nullptr || nccl_env_len > 0) {
      if (nccl_env == nullptr || nccl_env_len < env.size() + 1)
        return fail(RAILYARD_ERANGE, ry::str_cat("nccl_env_len=", nccl_env_len,
                                                 ": the environment needs ", env.size() + 1,
                                                 " bytes"));
      copy_text(nccl_env, nccl_env_len, env);
    }
    return RAILYARD_OK;
  });
}

// ---- Simulating a collective -------------------------------------------------------

int railyard_simulate(const railyard_cluster* cluster, const railyard_sim_request* request,
                      railyard_sim_result* out) noexcept {
  return guarded([&]() -> int {
    if (cluster == nullptr) return null_argument("cluster");
    if (request == nullptr) return null_argument("request");
    if (out == nullptr) return null_argument("out");
    const railyard_sim_request& r = *request;
    if (r.collective == nullptr) return null_argument("collective");
    auto kind = ry::collective::parse_collective(r.collective);
    if (!kind.ok()) return fail(kind.status());
    ry::sim::CollectiveSimOptions options;
    options.algorithm = ry::collective::default_algorithm(*kind);
    if (r.algorithm != nullptr) {
      auto algorithm = ry::collective::parse_algorithm(r.algorithm);
      if (!algorithm.ok()) return fail(algorithm.status());
      if (ry::Status s = ry::collective::check_supported(*kind, *algorithm); !s.ok()) return fail(s);
      options.algorithm = *algorithm;
    }
    if (r.routing != nullptr) {
      auto routing = ry::sim::parse_routing(r.routing);
      if (!routing.ok()) return fail(routing.status());
      options.routing = *routing;
    }
    if (r.bytes < 1 || r.bytes > ry::collective::kMaxBytes)
      return fail(ry::invalid_field("bytes", ry::str_cat(r.bytes), "must be in [1, 2^50]"));
    if (r.qps < 0 || r.qps > ry::routing::kMaxQpsPerConnection)
      return fail(ry::invalid_field("qps", ry::str_cat(r.qps), "must be in [1, 256] (0: 1)"));
    options.qps = r.qps == 0 ? 1 : r.qps;
    options.seed = r.seed == 0 ? 1 : r.seed;
    options.keep_links = false;
    if (!(r.max_memory_bytes >= 0))
      return fail(ry::invalid_field("max_memory_bytes", ry::str_cat(r.max_memory_bytes),
                                    "must be >= 0 (0: no limit)"));
    std::optional<ry::placement::Dim> group;
    if (r.group != nullptr) {
      auto dim = ry::placement::parse_dim("group", r.group);
      if (!dim.ok()) return fail(dim.status());
      group = *dim;
    }
    auto placed = place_job(*cluster, r.job, r.hosts, r.host_count, r.order_naive != 0);
    if (!placed.ok()) return fail(placed.status());
    const auto groups = ry::sim::job_groups(*placed, group);
    if (groups.front().size() < 2)
      return fail(group ? ry::invalid_field("group", r.group,
                                            "every group of it is a single rank and sends nothing")
                        : ry::invalid_field("job", r.job, "a job of one rank sends nothing"));
    const ry::topology::Cluster& c = cluster->cluster();
    std::optional<ry::topology::FailureOverlay> overlay;
    if (cluster->fit &&
        std::any_of(cluster->fit->findings.begin(), cluster->fit->findings.end(),
                    [](const ry::topology::CableFinding& f) {
                      return f.problem != ry::topology::CableProblem::kExtra;
                    })) {
      overlay.emplace(c.fabric);
      cluster->fit->apply(c.fabric, *overlay);
      options.failures = &*overlay;
    }
    auto estimate = ry::sim::estimate_collective_memory(c.descriptor, groups, *kind, r.bytes, options);
    if (!estimate.ok()) return fail(estimate.status());
    if (r.max_memory_bytes > 0 && estimate->bytes > r.max_memory_bytes)
      return fail(RAILYARD_ENOSPACE,
                  ry::str_cat("max_memory_bytes=", static_cast<int64_t>(r.max_memory_bytes),
                              ": the simulation needs about ",
                              static_cast<int64_t>(estimate->bytes), " bytes"));
    auto report = ry::sim::simulate_collective(c, groups, *kind, r.bytes, options);
    if (!report.ok()) return fail(report.status());
    std::memset(out, 0, sizeof *out);
    out->time_us = report->time_us;
    out->analytic_us = report->analytic_us;
    out->lower_bound_us = report->lower_bound_us;
    out->latency_us = report->latency_us;
    out->algbw_gbps = report->algbw_gbps;
    out->busbw_gbps = report->busbw_gbps;
    out->max_link_utilization = report->max_link_utilization;
    out->steps = report->steps;
    out->flows = report->flows;
    out->groups = report->groups;
    out->ranks_per_group = report->ranks;
    out->channels = report->channels;
    return RAILYARD_OK;
  });
}

}  // extern "C"
