// railyard/export/nccl_xml.hpp — the NCCL topology file (NCCL_TOPO_FILE) of one host.
//
// NCCL learns a host's PCIe/NUMA layout from sysfs, or from an XML file named by
// NCCL_TOPO_FILE (default /var/run/nvidia-topologyd/virtualTopology.xml) that it
// merges with what it detects, and where the two differ the file wins. Inside a
// VM sysfs hides the PCIe switches and the file restores them; on bare metal the
// file adds what railyard knows (rail, plane and speed of every NIC port). A file
// that names devices the host does not have misleads NCCL, so the file NCCL gets
// is right or is refused:
//
//   auto spec = railyard::topology::parse_cluster("h100-1024");
//   auto desc = railyard::topology::make_descriptor(*spec);
//   auto sys = railyard::exports::read_sysfs_host("/sys");         // sysfs_pci.hpp
//   railyard::StatusOr<std::string> xml = railyard::exports::nccl_topology_file(
//       *desc, {.host = 3, .sysfs = *sys});           // bare metal: the host's real ids
//   railyard::StatusOr<std::string> vm =
//       railyard::exports::nccl_topology_file(*desc, {.host = 3, .vm = true});  // VM skeleton
//   // Write *xml to a file and run with NCCL_TOPO_FILE=/path/to/file.
//
// nccl_topology_file() refuses a bare-metal file (vm = false) unless every GPU and
// NIC has a real bus id, from gpu_busids/nic_busids or from sysfs: with invented
// ids NCCL finds the real GPUs by bus id elsewhere (src/graph/xml.cc
// ncclTopoFillGpu), keeps the NICs where the file puts them (matched by name,
// ncclTopoFillNet), the GPU-NIC path crosses the CPU (PHB) and GPUDirect RDMA is
// disabled (src/graph/paths.cc ncclTopoCheckGdr). nccl_topology_xml() writes the
// same layout with placeholder ids where none are given: the model railyard's
// own tools compare with (plugin/advisor.hpp), never a file for NCCL.
//
// Where each device goes:
// * A device that sysfs shows (SysfsHost, read_sysfs_host()) sits under its real
//   bridges (root port first), under the <cpu> of the root port's NUMA node, with
//   the class, vendor, device and link attributes sysfs gives — what NCCL's own
//   detection would build (xml.cc ncclTopoGetXmlFromSys).
// * Otherwise (VM form, or ids given for a host whose sysfs is not at hand) the
//   descriptor's layout: one PCIe switch per GPU/NIC group, min(gpus_per_host,
//   nics_per_host) of them; switch u holds GPUs [u*g, (u+1)*g) and NICs
//   [u*n, (u+1)*n) with g = gpus_per_host / switches, n = nics_per_host /
//   switches, the pairing of ClusterDescriptor::nic_of_gpu / gpu_of_nic; 2
//   sockets when the switch count is even, else 1, switches split evenly, lowest
//   first (HGX: GPUs 0-3 on socket 0; unconfirmed, docs/constants.md#nccl-xml).
//   Grace hosts (grace_superchip(spec.gpu): GB200, GB300) have no PCIe switch:
//   GPU and NIC hang off the Grace CPU's root ports, so they go right under the
//   <cpu>, and each <gpu> carries its NVLink-C2C link (<c2c>), which makes the
//   GPU-NIC path P2C, NCCL's GPUDirect level on C2C systems.
// * Invented bus ids (switches, the NVSwitch, the VM skeleton's placeholder
//   GPU/NIC ids) live in PCI domain ffff (then fffe, ...), which no real device uses (Azure's
//   ndv5-topo.xml uses ffff): NCCL keys PCI nodes by bus id and re-reads the class
//   of every id sysfs knows (xml.cc ncclTopoGetPciNode, ncclTopoGetXmlFromSys), so
//   an invented id equal to a real one turns a bridge into that device.
// * <cpu>: numaid; affinity only when sysfs gave the node's CPUs (local_cpus),
//   else NCCL reads the node's cpumap itself (xml.cc ncclTopoGetXmlFromCpu); arch
//   and vendor from the spec's cpu=: Intel x86_64/GenuineIntel with family and
//   model, AMD x86_64/AuthenticAMD, Grace arm64 (NCCL reads vendor, family and
//   model only for x86, topo.cc ncclTopoAddCpu).
// * Full form (vm = false): each GPU function holds <gpu dev sm rank> with its
//   NVLink (and C2C on Grace); each NIC function <nic> with one <net> per port:
//   name, speed (Mb/s), port, and rail/plane (NCCL >= 2.30). Multi-plane NICs:
//   port = 1..planes, plane = port - 1. Names are the RDMA device names sysfs
//   gives, else mlx5_<nic * planes + plane>: NCCL matches a <net> by name only
//   (xml.cc ncclTopoFillNet). Nothing NCCL measures better is written: no gdr
//   (NCCL's own support check), no guid, maxconn or latency (the net plugin's) —
//   NCCL keeps a value the file has (topo.cc ncclTopoPopulateNics,
//   xmlInitAttrInt writes only absent attributes).
// * VM form (vm = true): the skeleton cloud VM images ship: the <cpu> elements,
//   the invented switches, and the GPU and NIC functions as bare leaves (busid,
//   class); NCCL fills in <gpu> and <net> from its own detection.
//
// All output is a pure function of (descriptor, options): same input, same bytes.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/export/sysfs_pci.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::exports {

// What to write.
struct NcclXmlOptions {
  int32_t host = 0;  // host id, 0 <= host < hosts()
  bool vm = false;   // write the VM skeleton instead of the full form
  // Intel CPU family and model (cpu=intel only). Sapphire Rapids reports family
  // 6, model 143 (0x8f): Azure's ndv5-topo.xml; NCCL (src/graph/topo.cc,
  // ncclTopoAddCpu) maps Intel family 6 model >= 0x8f to its Sapphire Rapids
  // inter-socket bandwidth.
  int32_t cpu_familyid = 6;
  int32_t cpu_modelid = 143;
  // CUDA compute capability written as <gpu sm>; 0 = compute_capability(spec.gpu).
  int32_t sm = 0;
  // PCI class of NIC functions sysfs does not describe: 0x020700 InfiniBand
  // (Azure's ndv5-topo.xml), 0x020000 Ethernet/RoCE (NCCL dump of a RoCE H200
  // host, nccl-tests issue #256). NCCL only checks the 0x02 prefix (topo.cc
  // kvDictPciClass) and re-reads the class of a real id from sysfs.
  std::string nic_class = "0x020700";
  // Write rail= and plane= on every <net> (NCCL >= 2.30). NCCL 2.30.7 keeps the
  // file's values over the net plugin's (ncclTopoPopulateNics sets them with
  // xmlInitAttrInt, which writes only absent attributes), so they silently win
  // over NCCL_IB_HCA name:port:rail:plane entries; turn them off to let
  // NCCL_IB_HCA decide.
  bool rail_plane = true;
  // Real bus ids of the host's GPUs and NICs (GPU/NIC index order); they take
  // precedence over sysfs. Accepted as dddd:bb:dd.f, written lower-case (NCCL
  // compares bus ids as strings, xml.h xmlFindTagKv, against its lower-case
  // int64ToBusId).
  std::vector<std::string> gpu_busids = {};
  std::vector<std::string> nic_busids = {};
  // The host's devices as sysfs shows them (read_sysfs_host()); empty = unknown.
  // Its GPUs, in bus id order, are GPUs 0..; its RDMA ports, in (bus id, name,
  // port) order, are NIC 0 plane 0, NIC 0 plane 1, ...
  std::optional<SysfsHost> sysfs = std::nullopt;
};

// The facts carried over from NCCL and from published topology files.
// <system version>: NCCL_TOPO_XML_VERSION (src/graph/xml.h); other versions are refused.
inline constexpr int kNcclTopoXmlVersion = 1;
// NCCL loads the file into at most this many elements (NCCL_TOPO_XML_MAX_NODES,
// src/graph/topo.h); a larger host is rejected here rather than by NCCL.
inline constexpr int kNcclTopoXmlMaxNodes = 256;
// Attribute values are read into MAX_STR_LEN (255) bytes (src/graph/xml.h).
inline constexpr size_t kNcclMaxStrLen = 255;
// PCI classes: bridge 0x060400, NVSwitch 0x068000 (PCI_BRIDGE_DEVICE_CLASS in
// topo.cc, PCI_NVSWITCH_CLASS in xml.h); 0x030200 is the 3D-controller class of
// H100/H200 GPUs (NCCL dump, nccl-tests issue #256; NCCL matches the 0x03 prefix).
inline constexpr std::string_view kPciBridgeClass = "0x060400";
inline constexpr std::string_view kPciNvswitchClass = "0x068000";
inline constexpr std::string_view kPciGpuClass = "0x030200";
// The link of an invented PCIe switch: Gen5 x16, the link of H100 GPUs, CX7 NICs
// and their switches (NCCL dump, nccl-tests issue #256). The string is a key of
// NCCL's kvDictPciGen (topo.cc); without it NCCL would assume Gen3.
inline constexpr std::string_view kPcieLinkSpeed = "32.0 GT/s PCIe";
inline constexpr int kPcieLinkWidth = 16;
// The PCI domain of invented bus ids (switches, NVSwitch, placeholders).
inline constexpr int32_t kInventedPciDomain = 0xffff;
// NVLink-C2C between a Grace CPU and each Blackwell GPU of a GB200/GB300
// superchip: 900 GB/s both directions (NVIDIA GB200 NVL72 product page), so
// 450 GB/s one direction. NCCL's <c2c> has a link count and a per-link bw in
// MB/s and uses only their product, bw * count / 1000 GB/s (topo.cc
// ncclTopoAddC2c); railyard writes one link of the whole bandwidth.
inline constexpr int32_t kGraceC2cCount = 1;
inline constexpr int32_t kGraceC2cMBps = 450000;

// Per-link NVLink rate, one direction, by GPU generation: 18 links give 900 GB/s
// both ways on Hopper (NVLink 4, NVIDIA's Hopper architecture page) and 1.8 TB/s on
// Blackwell (NVLink 5, docs/constants.md#fabric): 200 and 400 Gb/s per link and direction.
[[nodiscard]] constexpr int32_t nvlink_link_gbps(int32_t sm) { return sm >= 100 ? 400 : 200; }


namespace detail {

RAILYARD_LAZY
bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Accepts dddd:bb:dd.f (hex, either case); returns it lower-cased or "" if malformed.
RAILYARD_LAZY
std::string normalize_busid(std::string_view s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return {};
  static constexpr size_t kHexAt[] = {0, 1, 2, 3, 5, 6, 8, 9, 11};
  for (size_t i : kHexAt)
    if (!is_hex_digit(s[i])) return {};
  return to_lower(s);
}

RAILYARD_LAZY
void append_hex(std::string& out, uint64_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int d = digits - 1; d >= 0; --d) out.push_back(kHex[(v >> (4 * d)) & 15]);
}

RAILYARD_LAZY
std::string busid(int32_t domain, int32_t bus, int32_t device, int32_t function) {
  std::string s;
  append_hex(s, static_cast<uint64_t>(domain), 4);
  s.push_back(':');
  append_hex(s, static_cast<uint64_t>(bus), 2);
  s.push_back(':');
  append_hex(s, static_cast<uint64_t>(device), 2);
  s.push_back('.');
  append_hex(s, static_cast<uint64_t>(function), 1);
  return s;
}

// Hands out invented bus ids, one bus per device in domain order; a group of `n` buses never
// straddles two domains, so a switch's children stay in its bus range.
class BusAllocator {
 public:
  static constexpr int32_t kFirstBus = 0x10;
  static constexpr int32_t kBusesPerDomain = 0x100 - kFirstBus;
  // Reserves `n` consecutive buses (n <= kBusesPerDomain) and returns the first slot.
  int32_t reserve(int32_t n) {
    if (next_ % kBusesPerDomain + n > kBusesPerDomain)
      next_ = (next_ / kBusesPerDomain + 1) * kBusesPerDomain;
    const int32_t first = next_;
    next_ += n;
    return first;
  }
  // Slot `slot` in domain 0000, 0001, ... (`invented` = false: the placeholder
  // GPU/NIC ids of the model, which the path advisor shares) or in ffff, fffe,
  // ... (`invented` = true: domains no real device uses).
  static std::string id(int32_t slot, bool invented) {
    const int32_t k = slot / kBusesPerDomain;
    return busid(invented ? kInventedPciDomain - k : k, kFirstBus + slot % kBusesPerDomain, 0, 0);
  }

 private:
  int32_t next_ = 0;
};

// A minimal indented XML writer in the dialect NCCL's reader accepts (xml.cc,
// xmlGetNode): spaces and newlines only between elements (no tabs), one space
// between attributes, double-quoted values, `"/>` with no space before the slash,
// no <?xml?> declaration (NCCL's reader rejects it).
class XmlOut {
 public:
  void comment(std::string_view text) {
    indent();
    out_ += "<!-- ";
    // "--" may not appear inside a comment.
    for (size_t i = 0; i < text.size(); ++i) {
      out_.push_back(text[i]);
      if (text[i] == '-' && i + 1 < text.size() && text[i + 1] == '-') out_.push_back(' ');
    }
    out_ += " -->\n";
  }
  XmlOut& open(std::string_view name) {
    if (pending_) {
      out_ += ">\n";
      pending_ = false;
    }
    indent();
    out_ += '<';
    out_ += name;
    stack_.emplace_back(name);
    pending_ = true;
    return *this;
  }
  template <class T>
  XmlOut& attr(std::string_view key, const T& value) {
    out_ += ' ';
    out_ += key;
    out_ += "=\"";
    std::string v;
    str_append(v, value);
    escape(v);
    out_ += '"';
    return *this;
  }
  void close() {
    if (pending_) {
      out_ += "/>\n";
      pending_ = false;
      stack_.pop_back();
      return;
    }
    const std::string name = std::move(stack_.back());
    stack_.pop_back();
    indent();
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }
  [[nodiscard]] std::string str() && { return std::move(out_); }

 private:
  void indent() {
    const size_t depth = stack_.size() - (pending_ ? 1 : 0);
    out_.append(2 * depth, ' ');
  }
  // Values railyard writes never contain these characters, and NCCL's reader does
  // not decode entities; escaping only guards well-formedness.
  void escape(std::string_view v) {
    for (char c : v) {
      switch (c) {
        case '&':
          out_ += "&amp;";
          break;
        case '<':
          out_ += "&lt;";
          break;
        case '>':
          out_ += "&gt;";
          break;
        case '"':
          out_ += "&quot;";
          break;
        default:
          out_ += c;
      }
    }
  }
  std::string out_;
  std::vector<std::string> stack_;
  bool pending_ = false;  // a start tag is open, waiting for attributes
};

}  // namespace detail

// The bus ids nccl_topology_xml() makes up where no real ones are known: per PCIe
// group u (one switch, its GPUs, its NICs; groups = min(GPUs, NICs) per host) the
// switch's bus, then its GPUs', then its NICs', and last the NVSwitch's. Switches
// and the NVSwitch are in domain ffff. GPU/NIC placeholders exist twice: in
// domain 0000 for the model (nccl_topology_xml's full form, which the path
// advisor finds NICs by) and in domain ffff for the VM skeleton, the only form
// with placeholders that nccl_topology_file() hands out.
struct SyntheticBusIds {
  std::vector<std::string> switches;  // per PCIe group
  std::vector<std::string> gpus;      // per GPU index, model placeholders
  std::vector<std::string> nics;      // per NIC index, model placeholders
  std::vector<std::string> vm_gpus;   // per GPU index, domain ffff
  std::vector<std::string> vm_nics;   // per NIC index, domain ffff
  std::string nvswitch;
};
[[nodiscard]] inline SyntheticBusIds synthetic_bus_ids(const topology::ClusterDescriptor<>& d) {
  const int32_t gpus = d.gpus_per_host();
  const int32_t nics = d.nics_per_host();
  const int32_t groups = gpus < nics ? gpus : nics;  // one PCIe switch per group
  const int32_t gpus_per_group = gpus / groups;
  const int32_t nics_per_group = nics / groups;
  detail::BusAllocator alloc;
  SyntheticBusIds ids;
  ids.switches.resize(static_cast<size_t>(groups));
  for (int32_t u = 0; u < groups; ++u) {
    int32_t slot = alloc.reserve(1 + gpus_per_group + nics_per_group);
    ids.switches[static_cast<size_t>(u)] = detail::BusAllocator::id(slot++, true);
    for (int32_t i = 0; i < gpus_per_group; ++i, ++slot) {
      ids.gpus.push_back(detail::BusAllocator::id(slot, false));
      ids.vm_gpus.push_back(detail::BusAllocator::id(slot, true));
    }
    for (int32_t i = 0; i < nics_per_group; ++i, ++slot) {
      ids.nics.push_back(detail::BusAllocator::id(slot, false));
      ids.vm_nics.push_back(detail::BusAllocator::id(slot, true));
    }
  }
  ids.nvswitch = detail::BusAllocator::id(alloc.reserve(1), true);
  return ids;
}

namespace detail {

// An element of the file before it is written: children keep insertion order.
struct XmlNode {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::list<XmlNode> children;  // stable addresses while the tree grows

  XmlNode& set(std::string_view key, std::string value) {
    attrs.emplace_back(key, std::move(value));
    return *this;
  }
  [[nodiscard]] const std::string* get(std::string_view key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
  XmlNode& add(std::string_view child) { return children.emplace_back(XmlNode{std::string(child), {}, {}}); }
  // The <pci> child with bus id `busid`, created on first use.
  XmlNode& pci(const std::string& busid, bool* created = nullptr) {
    for (XmlNode& c : children)
      if (c.name == "pci" && c.get("busid") != nullptr && *c.get("busid") == busid) {
        if (created != nullptr) *created = false;
        return c;
      }
    if (created != nullptr) *created = true;
    return add("pci").set("busid", busid);
  }
  [[nodiscard]] int64_t count() const {
    int64_t n = 1;
    for (const XmlNode& c : children) n += c.count();
    return n;
  }
  void write(XmlOut& x) const {
    x.open(name);
    for (const auto& [k, v] : attrs) x.attr(k, v);
    for (const XmlNode& c : children) c.write(x);
    x.close();
  }
};

// The link attributes NCCL derives for a function from sysfs: the slower of the
// function's and its upstream port's maximum (xml.cc ncclTopoGetXmlFromSys).
inline void set_link_from_sysfs(XmlNode& pci, const SysfsPciFunction& f,
                                const SysfsPciFunction* upstream) {
  auto gts = [](const std::string& s) { return s.empty() ? 1e30 : std::strtod(s.c_str(), nullptr); };
  auto width = [](const std::string& s) { return s.empty() ? 1L << 30 : std::strtol(s.c_str(), nullptr, 10); };
  std::string speed = f.link_speed;
  std::string lanes = f.link_width;
  if (upstream != nullptr) {
    if (!upstream->link_speed.empty() && gts(upstream->link_speed) < gts(speed)) speed = upstream->link_speed;
    if (!upstream->link_width.empty() && width(upstream->link_width) < width(lanes)) lanes = upstream->link_width;
  }
  if (!speed.empty()) pci.set("link_speed", speed);
  if (!lanes.empty()) pci.set("link_width", lanes);
}

// A <pci> for a function sysfs describes: class, vendor, device, link.
inline void set_pci_from_sysfs(XmlNode& pci, const SysfsPciFunction& f,
                               const SysfsPciFunction* upstream) {
  if (!f.pci_class.empty()) pci.set("class", f.pci_class);
  if (!f.vendor.empty()) pci.set("vendor", f.vendor);
  if (!f.device.empty()) pci.set("device", f.device);
  set_link_from_sysfs(pci, f, upstream);
}

// One PCI function the file places: a GPU, or a NIC function with its ports.
struct PlacedFunction {
  std::string busid;
  const SysfsDevice* sysfs = nullptr;  // when sysfs describes it
  bool placeholder = false;            // an invented id
  int32_t group = 0;                   // PCIe group of the layout
  int32_t gpu = -1;                    // GPU index, or -1 for a NIC function
  struct Port {
    std::string name;
    int32_t port = 1;
    int32_t nic = 0;
    int32_t plane = 0;
  };
  std::vector<Port> ports;  // NIC functions
};

}  // namespace detail

// The NCCL topology XML of host `opt.host` (see the overview for the layout), with
// placeholder ids for devices neither given nor in opt.sysfs (SyntheticBusIds:
// domain 0000 in the full form, the model; ffff in the VM form); the file to
// hand NCCL is nccl_topology_file()'s.
// Errors (InvalidArgument, naming the field and value): host out of range, sm
// outside [60, 1000), a malformed nic_class, bus id lists of the wrong length,
// malformed or duplicated, a sysfs with a GPU or RDMA port count other than the
// cluster's (field "sysfs"), NUMA nodes whose devices disagree on their CPUs, or a
// host needing more than kNcclTopoXmlMaxNodes elements.
// Complexity: O((GPUs + NIC ports) * bridges) per call.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> nccl_topology_xml(const topology::ClusterDescriptor<>& d,
                                                      const NcclXmlOptions& opt) {
  using detail::PlacedFunction;
  using detail::XmlNode;
  auto bad = [](std::string_view key, const auto& value, std::string_view why) {
    return invalid_field(key, str_cat(value), why);
  };
  const topology::ClusterSpec& spec = d.spec();
  if (opt.host < 0 || opt.host >= d.hosts())
    return bad("host", opt.host, str_cat("out of range: the cluster has hosts 0..", d.hosts() - 1));
  if (opt.sm != 0 && (opt.sm < 60 || opt.sm >= 1000))
    return bad("sm", opt.sm, "not a compute capability (major*10+minor, e.g. 90)");
  {
    const std::string_view c = opt.nic_class;
    bool ok = c.size() == 8 && c.substr(0, 4) == "0x02";
    for (size_t i = 2; ok && i < c.size(); ++i) ok = detail::is_hex_digit(c[i]);
    if (!ok) return bad("nic_class", opt.nic_class, "must be a network PCI class 0x02xxxx");
  }

  const int32_t gpus = d.gpus_per_host();
  const int32_t nics = d.nics_per_host();
  const int32_t planes = d.planes();
  const int32_t groups = gpus < nics ? gpus : nics;  // one PCIe switch per group
  const int32_t gpus_per_group = gpus / groups;
  const int32_t nics_per_group = nics / groups;
  const int32_t sockets = groups % 2 == 0 ? 2 : 1;
  const int32_t groups_per_socket = groups / sockets;
  const bool grace = topology::grace_superchip(spec.gpu);
  const int32_t sm = opt.sm != 0 ? opt.sm : topology::compute_capability(spec.gpu);
  const int32_t nvlinks =
      spec.scale_up > 1 ? (spec.nvlink_gbps + nvlink_link_gbps(sm) / 2) / nvlink_link_gbps(sm) : 0;
  const SyntheticBusIds ids = synthetic_bus_ids(d);

  // Given bus ids, checked and lower-cased.
  auto given = [&](std::string_view key, const std::vector<std::string>& list,
                   size_t want) -> StatusOr<std::vector<std::string>> {
    std::vector<std::string> out;
    if (list.empty()) return out;
    if (list.size() != want)
      return bad(key, join(list, ","), str_cat("expected ", want, " bus ids, got ", list.size()));
    for (const std::string& s : list) {
      std::string id = detail::normalize_busid(s);
      if (id.empty()) return bad(key, s, "not a PCI bus id dddd:bb:dd.f");
      out.push_back(std::move(id));
    }
    return out;
  };
  RAILYARD_ASSIGN_OR_RETURN(std::vector<std::string> gpu_given,
                            given("gpu_busids", opt.gpu_busids, static_cast<size_t>(gpus)));
  RAILYARD_ASSIGN_OR_RETURN(std::vector<std::string> nic_given,
                            given("nic_busids", opt.nic_busids, static_cast<size_t>(nics)));

  // sysfs devices by bus id.
  auto sysfs_device = [&](const std::vector<SysfsDevice>* list,
                          const std::string& busid) -> const SysfsDevice* {
    if (list == nullptr) return nullptr;
    for (const SysfsDevice& dev : *list)
      if (dev.self.busid == busid) return &dev;
    return nullptr;
  };
  const std::vector<SysfsDevice>* sys_gpus = opt.sysfs ? &opt.sysfs->gpus : nullptr;
  const std::vector<SysfsDevice>* sys_nics = opt.sysfs ? &opt.sysfs->nics : nullptr;

  // GPUs: given ids, else sysfs's, else placeholders.
  std::vector<PlacedFunction> functions;
  if (gpu_given.empty() && sys_gpus != nullptr && !sys_gpus->empty() &&
      std::ssize(*sys_gpus) != gpus)
    return bad("sysfs", str_cat(sys_gpus->size(), " GPUs"),
               str_cat("the cluster has ", gpus, " GPUs per host; give --gpu-busids"));
  for (int32_t g = 0; g < gpus; ++g) {
    PlacedFunction f;
    f.gpu = g;
    f.group = g / gpus_per_group;
    const size_t i = static_cast<size_t>(g);
    if (!gpu_given.empty()) {
      f.busid = gpu_given[i];
      f.sysfs = sysfs_device(sys_gpus, f.busid);
    } else if (sys_gpus != nullptr && !sys_gpus->empty()) {
      f.sysfs = &(*sys_gpus)[i];
      f.busid = f.sysfs->self.busid;
    } else {
      f.busid = opt.vm ? ids.vm_gpus[i] : ids.gpus[i];
      f.placeholder = true;
    }
    functions.push_back(std::move(f));
  }

  // NIC ports: given ids (names from sysfs when it knows the function), else
  // sysfs's RDMA ports in order, else placeholders.
  auto conventional_ports = [&](int32_t n) {
    std::vector<PlacedFunction::Port> ports;
    for (int32_t p = 0; p < planes; ++p)
      ports.push_back({str_cat("mlx5_", n * planes + p), p + 1, n, p});
    return ports;
  };
  // The RDMA ports of every sysfs device on function `busid`.
  auto sysfs_ports = [&](const std::string& busid) {
    std::vector<std::pair<std::string, int32_t>> out;
    if (sys_nics != nullptr)
      for (const SysfsDevice& dev : *sys_nics)
        if (dev.self.busid == busid)
          for (int32_t port : dev.ports) out.emplace_back(dev.ib_name, port);
    return out;
  };
  if (!nic_given.empty()) {
    for (int32_t n = 0; n < nics; ++n) {
      PlacedFunction f;
      f.group = n / nics_per_group;
      f.busid = nic_given[static_cast<size_t>(n)];
      f.sysfs = sysfs_device(sys_nics, f.busid);
      const auto found = sysfs_ports(f.busid);
      if (f.sysfs != nullptr && std::ssize(found) != planes)
        return bad("nic_busids", f.busid,
                   str_cat("sysfs shows ", found.size(), " RDMA ports on this function, the cluster ",
                           planes, " per NIC"));
      f.ports = conventional_ports(n);
      for (size_t p = 0; p < found.size(); ++p) {
        f.ports[p].name = found[p].first;
        f.ports[p].port = found[p].second;
      }
      functions.push_back(std::move(f));
    }
  } else if (sys_nics != nullptr && !sys_nics->empty()) {
    int64_t total = 0;
    for (const SysfsDevice& dev : *sys_nics) total += std::ssize(dev.ports);
    if (total != int64_t{nics} * planes)
      return bad("sysfs", str_cat(total, " RDMA ports"),
                 str_cat("the cluster has ", nics, " NICs x ", planes,
                         " planes per host; give --nic-busids"));
    int64_t k = 0;
    for (const SysfsDevice& dev : *sys_nics) {
      if (functions.back().gpu >= 0 || functions.back().busid != dev.self.busid) {
        PlacedFunction f;
        f.busid = dev.self.busid;
        f.sysfs = &dev;
        f.group = static_cast<int32_t>(k / planes) / nics_per_group;
        functions.push_back(std::move(f));
      }
      for (int32_t port : dev.ports) {
        const int32_t n = static_cast<int32_t>(k / planes);
        functions.back().ports.push_back({dev.ib_name, port, n, static_cast<int32_t>(k % planes)});
        ++k;
      }
    }
  } else {
    for (int32_t n = 0; n < nics; ++n) {
      PlacedFunction f;
      f.group = n / nics_per_group;
      f.busid = opt.vm ? ids.vm_nics[static_cast<size_t>(n)] : ids.nics[static_cast<size_t>(n)];
      f.placeholder = true;
      f.ports = conventional_ports(n);
      functions.push_back(std::move(f));
    }
  }

  // Real and invented ids are all distinct: NCCL keys PCI nodes by bus id, so a
  // repeat would merge two devices (xml.cc ncclTopoGetPciNode).
  {
    std::vector<std::string> all;
    for (const PlacedFunction& f : functions) all.push_back(f.busid);
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i + 1; j < all.size(); ++j)
        if (all[i] == all[j]) return bad("busid", all[i], "used twice (GPU or NIC)");
  }

  // The tree: <cpu> per NUMA node, then bridges and devices.
  std::map<int32_t, XmlNode> cpus;
  std::map<int32_t, std::string> cpu_affinity;  // from sysfs local_cpus
  auto note_affinity = [&](const SysfsPciFunction& f) -> Status {
    if (f.numa_node < 0 || f.local_cpus.empty()) return ok_status();
    auto [it, fresh] = cpu_affinity.emplace(f.numa_node, f.local_cpus);
    if (!fresh && it->second != f.local_cpus)
      return bad("sysfs", str_cat(f.busid, "/local_cpus=", f.local_cpus),
                 str_cat("NUMA node ", f.numa_node, " has CPUs ", it->second, " on another device"));
    return ok_status();
  };
  auto cpu = [&](int32_t numa) -> XmlNode& {
    auto [it, fresh] = cpus.try_emplace(numa, XmlNode{"cpu", {}, {}});
    if (fresh) it->second.set("numaid", str_cat(numa));
    return it->second;
  };
  std::vector<bool> switch_made(static_cast<size_t>(groups), false);
  const bool real_tree = !opt.vm;
  for (int32_t u = 0; u < groups; ++u) {
    for (const PlacedFunction& f : functions) {
      if (f.group != u) continue;
      XmlNode* parent = nullptr;
      if (real_tree && f.sysfs != nullptr) {
        const SysfsDevice& dev = *f.sysfs;
        const SysfsPciFunction& top = dev.upstream.empty() ? dev.self : dev.upstream.front();
        parent = &cpu(top.numa_node >= 0 ? top.numa_node : dev.self.numa_node);
        const SysfsPciFunction* above = nullptr;
        for (const SysfsPciFunction& bridge : dev.upstream) {
          RAILYARD_RETURN_IF_ERROR(note_affinity(bridge));
          bool created = false;
          parent = &parent->pci(bridge.busid, &created);
          if (created) detail::set_pci_from_sysfs(*parent, bridge, above);
          above = &bridge;
        }
      } else {
        parent = &cpu(u / groups_per_socket);
        if (!grace) {
          bool created = false;
          parent = &parent->pci(ids.switches[static_cast<size_t>(u)], &created);
          if (created) {
            // Switch attributes as in Azure's ndv5-topo.xml: zero vendor/device ids
            // keep NCCL's Broadcom-specific switch handling (topo.cc) out of play.
            parent->set("class", std::string(kPciBridgeClass))
                .set("vendor", "0x0000")
                .set("device", "0x0000")
                .set("subsystem_vendor", "0x0000")
                .set("subsystem_device", "0x0000")
                .set("link_speed", std::string(kPcieLinkSpeed))
                .set("link_width", str_cat(kPcieLinkWidth));
          }
        }
      }
      XmlNode& pci = parent->add("pci").set("busid", f.busid);
      if (f.sysfs != nullptr) {
        RAILYARD_RETURN_IF_ERROR(note_affinity(f.sysfs->self));
        const SysfsPciFunction* up =
            real_tree && !f.sysfs->upstream.empty() ? &f.sysfs->upstream.back() : nullptr;
        detail::set_pci_from_sysfs(pci, f.sysfs->self, up);
      } else {
        pci.set("class", f.gpu >= 0 ? std::string(kPciGpuClass) : opt.nic_class);
      }
      if (opt.vm) continue;
      if (f.gpu >= 0) {
        // ncclTopoAddGpu reads dev, sm, rank, gdr; NCCL sets rank and, when the
        // file has none, gdr from its own check (topo.cc ncclTopoGetSystem).
        XmlNode& gpu = pci.add("gpu").set("dev", str_cat(f.gpu)).set("sm", str_cat(sm));
        gpu.set("rank", str_cat(f.gpu));
        if (nvlinks > 0)
          // NCCL folds every non-GPU, non-CPU NVLink target into one NVSwitch node
          // (topo.cc ncclTopoAddNvLinks), so one element with the total link count
          // is equivalent to one per NVSwitch chip.
          gpu.add("nvlink")
              .set("target", ids.nvswitch)
              .set("count", str_cat(nvlinks))
              .set("tclass", std::string(kPciNvswitchClass));
        if (grace)
          gpu.add("c2c").set("bw", str_cat(kGraceC2cMBps)).set("count", str_cat(kGraceC2cCount));
      } else {
        XmlNode& nic = pci.add("nic");
        for (const PlacedFunction::Port& p : f.ports) {
          XmlNode& net = nic.add("net")
                             .set("name", p.name)
                             .set("speed", str_cat(int64_t{spec.nic_gbps} * 1000))
                             .set("port", str_cat(p.port));
          if (opt.rail_plane) net.set("rail", str_cat(p.nic)).set("plane", str_cat(p.plane));
        }
      }
    }
  }

  XmlNode system{"system", {}, {}};
  system.set("version", str_cat(kNcclTopoXmlVersion));
  for (auto& [numa, node] : cpus) {
    if (auto it = cpu_affinity.find(numa); it != cpu_affinity.end())
      node.set("affinity", it->second);
    // arch, vendor, familyid, modelid: what ncclTopoAddCpu reads (topo.cc), keys of
    // its kvDictCpuArch / kvDictCpuVendor.
    switch (spec.cpu) {
      case topology::CpuModel::kIntel:
        node.set("arch", "x86_64").set("vendor", "GenuineIntel");
        node.set("familyid", str_cat(opt.cpu_familyid)).set("modelid", str_cat(opt.cpu_modelid));
        break;
      case topology::CpuModel::kAmd:
        node.set("arch", "x86_64").set("vendor", "AuthenticAMD");
        break;
      case topology::CpuModel::kGrace:
        node.set("arch", "arm64");
        break;
    }
    system.children.push_back(std::move(node));
  }
  const int64_t elements = system.count();
  if (elements > kNcclTopoXmlMaxNodes)
    return bad("host", opt.host,
               str_cat("this host (", gpus, " GPUs, ", nics, " NICs x ", planes, " ports) needs ",
                       elements, " XML elements; NCCL loads at most ", kNcclTopoXmlMaxNodes,
                       " (NCCL_TOPO_XML_MAX_NODES)"));

  detail::XmlOut x;
  x.comment(str_cat("railyard nccl-xml host=", opt.host, opt.vm ? " vm" : "",
                    " cluster=", topology::to_spec_string(spec)));
  system.write(x);
  return std::move(x).str();
}

// The file to hand NCCL: nccl_topology_xml(), refused (InvalidArgument, field
// "sysfs") when a bare-metal file (vm = false) would carry a placeholder GPU or
// NIC id: NCCL would attach the real GPU from sysfs and keep the NIC, matched by
// name, under the invented switch, a PHB path on which it disables GPUDirect
// RDMA (src/graph/paths.cc ncclTopoCheckGdr). The VM skeleton is accepted with
// placeholders: they match no device, so NCCL drops them (xml.cc ncclTopoTrimXml).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> nccl_topology_file(const topology::ClusterDescriptor<>& d,
                                                       const NcclXmlOptions& opt) {
  StatusOr<std::string> xml = nccl_topology_xml(d, opt);  // its errors first
  if (xml.ok() && !opt.vm) {
    const size_t sys_gpus = opt.sysfs ? opt.sysfs->gpus.size() : 0;
    const size_t sys_nics = opt.sysfs ? opt.sysfs->nics.size() : 0;
    const bool gpus_known = !opt.gpu_busids.empty() || sys_gpus > 0;
    const bool nics_known = !opt.nic_busids.empty() || sys_nics > 0;
    if (!gpus_known || !nics_known)
      return invalid_field(
          "sysfs", str_cat(sys_gpus, " GPUs and ", sys_nics, " RDMA NICs"),
          str_cat("a bare-metal NCCL topology file needs the host's real ",
                  !gpus_known ? (!nics_known ? "GPU and NIC" : "GPU") : "NIC",
                  " bus ids: with invented ones NCCL attaches the real GPUs elsewhere and "
                  "disables GPUDirect RDMA; run on the host (or --sysfs-root DIR), give "
                  "--gpu-busids/--nic-busids, or write the VM skeleton with --vm"));
  }
  return xml;
}

}  // namespace railyard::exports
