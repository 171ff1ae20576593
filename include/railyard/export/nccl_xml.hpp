// railyard/export/nccl_xml.hpp — the NCCL topology file (NCCL_TOPO_FILE) of one host.
//
// NCCL learns a host's PCIe/NUMA layout from sysfs, or from an XML file named by
// NCCL_TOPO_FILE (default /var/run/nvidia-topologyd/virtualTopology.xml) that it
// merges with what it detects. Inside a VM sysfs hides the PCIe switches, NCCL
// cannot tell which NIC is next to which GPU, and inter-node bandwidth drops; the
// file restores that knowledge. nccl_topology_xml() writes it for host `host` of a
// cluster:
//
//   auto spec = railyard::topology::parse_cluster("h100-1024");
//   auto desc = railyard::topology::make_descriptor(*spec);
//   railyard::StatusOr<std::string> xml =
//       railyard::exports::nccl_topology_xml(*desc, {.host = 3});          // full form
//   railyard::StatusOr<std::string> vm =
//       railyard::exports::nccl_topology_xml(*desc, {.host = 3, .vm = true});  // VM skeleton
//   // Write *xml to a file and run with NCCL_TOPO_FILE=/path/to/file.
//
// Full form (vm = false), for h100-1024 (GPU 0 shown; one switch per GPU/NIC pair):
//
//   <system version="1">
//     <cpu numaid="0" affinity="..." arch="x86_64" vendor="GenuineIntel" familyid="6"
//          modelid="143">
//       <pci busid="0000:10:00.0" class="0x060400" ... >           PCIe switch
//         <pci busid="0000:11:00.0" class="0x030200" ...>           GPU 0
//           <gpu dev="0" sm="90" rank="0" gdr="1">
//             <nvlink target="0000:28:00.0" count="18" tclass="0x068000"/>
//           </gpu>
//         </pci>
//         <pci busid="0000:12:00.0" class="0x020700" ...>           NIC 0 (rail 0)
//           <nic>
//             <net name="mlx5_0" dev="0" speed="400000" port="1" latency="0"
//                  guid="0x7279000000000300" maxconn="131072" gdr="1" rail="0" plane="0"/>
//           </nic>
//         </pci>
//       </pci>
//       ... GPUs/NICs 1-3 ...
//     </cpu>
//     <cpu numaid="1" ...> ... GPUs/NICs 4-7 ... </cpu>
//   </system>
//
// VM form (vm = true): the skeleton that cloud VM images ship (Azure's
// ndv5-topo.xml): the same <cpu> elements; PCIe switches with bus ids in domain
// ffff, which never exists in a guest; under each switch the GPU and NIC PCI
// functions as bare <pci busid class link_speed link_width/> leaves, with no
// <gpu>, <nvlink>, <nic> or <net> inside. NCCL fills those in from its own
// detection (GPUs matched by bus id, NICs by the bus id of their sysfs path), so
// speed, port, guid and rail/plane come from the net plugin and cannot contradict
// it. Replace the placeholder GPU/NIC bus ids with the guest's (nvidia-smi
// --query-gpu=pci.bus_id, /sys/class/infiniband/*/device) or pass them in
// NcclXmlOptions::gpu_busids / nic_busids; the switch ids only have to be unused
// (advice of an NCCL maintainer, NVIDIA/nccl-tests issue #256).
//
// Layout rules (the descriptor fixes only which GPU pairs with which NIC):
// * PCIe switches: one per GPU/NIC group, min(gpus_per_host, nics_per_host) of
//   them; switch u holds GPUs [u*g, (u+1)*g) and NICs [u*n, (u+1)*n) with
//   g = gpus_per_host / switches, n = nics_per_host / switches, which is exactly
//   the pairing of ClusterDescriptor::nic_of_gpu / gpu_of_nic.
// * Sockets: 2 when the switch count is even, else 1; switches split evenly,
//   lowest first (HGX: GPUs 0-3 on socket 0, 4-7 on socket 1; unconfirmed,
//   docs/constants.md#nccl-xml).
// * CPUs: cores_per_socket cores of threads_per_core threads per socket, Linux
//   numbering (first threads of every core 0..S*C-1 socket-major, then the
//   sibling threads); `affinity` is the socket's threads as a Linux cpumap.
// * Bus ids (full form, and GPU/NIC placeholders in both forms): allocated in
//   order, one bus per device, `dddd:bb:00.0` with bus 0x10..0xff; a switch
//   takes a bus and its children the next ones, so every child's bus lies between
//   its switch's bus and the next switch's, as PCIe bridges number their
//   secondary buses; a group that does not fit in a domain starts the next one.
// * Multi-plane NICs (planes > 1): one PCI function with one <net> per port,
//   port = 1..planes, plane = port - 1, names mlx5_<dev> with
//   dev = nic * planes + port - 1 (NCCL finds a <net> by name, so names are
//   unique), and one guid shared by the ports of a NIC (see kNcclGuidPrefix).
//
// All output is a pure function of (descriptor, options): same input, same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::exports {

// What to write. Defaults describe an HGX H100 host: 2 sockets of 56 cores with 2
// threads each (a plausible Sapphire Rapids layout, not one vendor's SKU), PCIe
// Gen5, ConnectX-7 InfiniBand.
struct NcclXmlOptions {
  int32_t host = 0;  // host id, 0 <= host < hosts()
  bool vm = false;   // write the VM skeleton instead of the full form
  // CPU model. Sapphire Rapids reports family 6, model 143 (0x8f): Azure's
  // ndv5-topo.xml; NCCL (src/graph/topo.cc, ncclTopoAddCpu) maps Intel family 6
  // model >= 0x8f to its Sapphire Rapids inter-socket bandwidth.
  int32_t cores_per_socket = 56;
  int32_t threads_per_core = 2;
  int32_t cpu_familyid = 6;
  int32_t cpu_modelid = 143;
  // CUDA compute capability written as <gpu sm>; 0 = 100 when nvlink_gbps >= 7200
  // (NVLink 5, Blackwell), else 90 (NVLink 4, Hopper).
  int32_t sm = 0;
  // PCI class of the NIC functions: 0x020700 InfiniBand (Azure's ndv5-topo.xml),
  // 0x020000 Ethernet/RoCE (NCCL dump of a RoCE H200 host, nccl-tests issue #256).
  // NCCL only checks the 0x02 prefix (src/graph/topo.cc, kvDictPciClass).
  std::string nic_class = "0x020700";
  // Write rail= and plane= on every <net> (NCCL >= 2.30). NCCL refuses a file whose
  // rail/plane differ from what the net plugin reports ("Inconsistent rail/plane",
  // src/graph/topo.cc, ncclTopoPopulateNics), so use them together with
  // NCCL_IB_HCA entries name:port:rail:plane, or turn them off.
  bool rail_plane = true;
  // Real bus ids of the host's GPUs and NICs (GPU/NIC index order), replacing the
  // synthetic ones; empty = synthetic. Accepted as dddd:bb:dd.f, written lower-case.
  std::vector<std::string> gpu_busids = {};
  std::vector<std::string> nic_busids = {};
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
// PCIe Gen5 x16, the link of H100 GPUs, CX7 NICs and their switches (NCCL dump,
// nccl-tests issue #256). The string is a key of NCCL's kvDictPciGen (topo.cc).
inline constexpr std::string_view kPcieLinkSpeed = "32.0 GT/s PCIe";
inline constexpr int kPcieLinkWidth = 16;
// maxconn of a ConnectX-7 as NCCL's IB transport reports it (NCCL dump, nccl-tests
// issue #256).
inline constexpr int kNcclIbMaxConn = 131072;
// GUIDs: kNcclGuidPrefix | host << 8 | nic. NCCL treats the guid as the NIC ASIC's
// identity (topo.cc, ncclTopoAddNetAsic) and derives its default rail key from it
// (ncclTopoGetNetDevKey); the ports of a dual-port NIC share one guid in NCCL's
// own dumps. So the guid depends on (host, nic), not on the port, and is unique
// across the cluster. ("ry" in the top bytes.) NCCL replaces it with the plugin's
// guid when it loads the file (ncclTopoPopulateNics).
inline constexpr uint64_t kNcclGuidPrefix = 0x7279000000000000ULL;

[[nodiscard]] constexpr uint64_t nccl_nic_guid(HostId host, NicIndex nic) {
  return kNcclGuidPrefix | (static_cast<uint64_t>(host.value()) << 8) |
         static_cast<uint64_t>(nic.value());
}

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

// Hands out one bus per device in domain order; a group of `n` buses never
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
  static std::string id(int32_t slot) {
    return busid(slot / kBusesPerDomain, kFirstBus + slot % kBusesPerDomain, 0, 0);
  }

 private:
  int32_t next_ = 0;
};

// Linux cpumap of socket `socket`'s threads (layout in the overview): 32-bit hex
// words, most significant first, comma-separated (NCCL reads it with
// ncclStrToCpuset; it is the format of /sys/devices/system/node/nodeN/cpumap, which
// NCCL copies into `affinity` when it detects a host, xml.cc ncclTopoGetXmlFromCpu).
RAILYARD_LAZY
std::string cpumap(int32_t total_threads, int32_t sockets, int32_t cores, int32_t threads,
                          int32_t socket) {
  const int32_t words = (total_threads + 31) / 32;
  std::vector<uint32_t> bits(static_cast<size_t>(words), 0);
  for (int32_t t = 0; t < threads; ++t)
    for (int32_t c = 0; c < cores; ++c) {
      const int32_t cpu = t * sockets * cores + socket * cores + c;
      bits[static_cast<size_t>(cpu / 32)] |= uint32_t{1} << (cpu % 32);
    }
  std::string out;
  for (int32_t w = words - 1; w >= 0; --w) {
    append_hex(out, bits[static_cast<size_t>(w)], 8);
    if (w > 0) out.push_back(',');
  }
  return out;
}

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

// The synthetic PCI bus ids nccl_topology_xml() gives a host's devices when no
// real ones are given: per PCIe group u (one switch, its GPUs, its NICs; groups =
// min(GPUs, NICs) per host) the switch's id, then its GPUs', then its NICs', and
// last the NVSwitch. The path advisor finds NICs by these ids too.
struct SyntheticBusIds {
  std::vector<std::string> switches;  // per PCIe group
  std::vector<std::string> gpus;      // per GPU index
  std::vector<std::string> nics;      // per NIC index
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
  ids.gpus.resize(static_cast<size_t>(gpus));
  ids.nics.resize(static_cast<size_t>(nics));
  for (int32_t u = 0; u < groups; ++u) {
    int32_t slot = alloc.reserve(1 + gpus_per_group + nics_per_group);
    ids.switches[static_cast<size_t>(u)] = detail::BusAllocator::id(slot++);
    for (int32_t i = 0; i < gpus_per_group; ++i)
      ids.gpus[static_cast<size_t>(u * gpus_per_group + i)] = detail::BusAllocator::id(slot++);
    for (int32_t i = 0; i < nics_per_group; ++i)
      ids.nics[static_cast<size_t>(u * nics_per_group + i)] = detail::BusAllocator::id(slot++);
  }
  ids.nvswitch = detail::BusAllocator::id(alloc.reserve(1));
  return ids;
}

// The NCCL topology XML of host `opt.host` (see the overview for the layout).
// Errors (InvalidArgument, naming the field and value): host out of range, CPU
// fields non-positive or an affinity mask longer than NCCL reads, sm outside
// [60, 1000), a malformed nic_class, bus id lists of the wrong length, malformed or
// duplicated, or a host needing more than kNcclTopoXmlMaxNodes elements.
// Complexity: O(GPUs + NIC ports + CPU threads) per call.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> nccl_topology_xml(const topology::ClusterDescriptor<>& d,
                                                            const NcclXmlOptions& opt) {
  auto bad = [](std::string_view key, const auto& value, std::string_view why) {
    return invalid_field(key, str_cat(value), why);
  };
  if (opt.host < 0 || opt.host >= d.hosts())
    return bad("host", opt.host, str_cat("out of range: the cluster has hosts 0..", d.hosts() - 1));
  if (opt.cores_per_socket <= 0)
    return bad("cores_per_socket", opt.cores_per_socket, "must be > 0");
  if (opt.threads_per_core <= 0)
    return bad("threads_per_core", opt.threads_per_core, "must be > 0");
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
  const int32_t sm = opt.sm != 0 ? opt.sm : (d.spec().nvlink_gbps >= 7200 ? 100 : 90);
  const int32_t nvlinks =
      d.spec().scale_up > 1
          ? (d.spec().nvlink_gbps + nvlink_link_gbps(sm) / 2) / nvlink_link_gbps(sm)
          : 0;

  const int64_t total_threads =
      int64_t{sockets} * opt.cores_per_socket * int64_t{opt.threads_per_core};
  const int64_t mask_chars = (total_threads + 31) / 32 * 9 - 1;
  if (mask_chars > static_cast<int64_t>(kNcclMaxStrLen))
    return bad("cores_per_socket", opt.cores_per_socket,
               str_cat("with threads_per_core=", opt.threads_per_core, " and ", sockets,
                       " sockets the affinity mask needs ", mask_chars,
                       " characters; NCCL reads at most ", kNcclMaxStrLen));

  // Elements NCCL will hold for this host (the full form; in the VM form NCCL adds
  // the same <gpu>/<nvlink>/<nic>/<net> elements itself while detecting).
  const int64_t elements =
      1 + sockets + groups + int64_t{gpus} * (nvlinks > 0 ? 3 : 2) + int64_t{nics} * (2 + planes);
  if (elements > kNcclTopoXmlMaxNodes)
    return bad("host", opt.host,
               str_cat("this host (", gpus, " GPUs, ", nics, " NICs x ", planes, " ports) needs ",
                       elements, " XML elements; NCCL loads at most ", kNcclTopoXmlMaxNodes,
                       " (NCCL_TOPO_XML_MAX_NODES)"));

  // Bus ids: synthetic, one group after the other, then the NVSwitch.
  SyntheticBusIds ids = synthetic_bus_ids(d);
  std::vector<std::string>& switch_ids = ids.switches;
  std::vector<std::string>& gpu_ids = ids.gpus;
  std::vector<std::string>& nic_ids = ids.nics;
  const std::string& nvswitch_id = ids.nvswitch;
  if (opt.vm) {
    // Domain ffff, bus ff downwards, devices 1..31 (Azure's ndv5-topo.xml uses
    // ffff:ff:01.0 .. ffff:ff:08.0): ids a guest never has.
    for (int32_t u = 0; u < groups; ++u)
      switch_ids[static_cast<size_t>(u)] = detail::busid(0xffff, 0xff - u / 31, 1 + u % 31, 0);
  }

  // Caller-supplied GPU/NIC bus ids.
  auto apply = [&](std::string_view key, const std::vector<std::string>& given,
                   std::vector<std::string>& ids) -> Status {
    if (given.empty()) return ok_status();
    if (given.size() != ids.size())
      return bad(key, join(given, ","),
                 str_cat("expected ", ids.size(), " bus ids, got ", given.size()));
    for (size_t i = 0; i < given.size(); ++i) {
      std::string id = detail::normalize_busid(given[i]);
      if (id.empty()) return bad(key, given[i], "not a PCI bus id dddd:bb:dd.f");
      ids[i] = std::move(id);
    }
    return ok_status();
  };
  if (Status s = apply("gpu_busids", opt.gpu_busids, gpu_ids); !s.ok()) return s;
  if (Status s = apply("nic_busids", opt.nic_busids, nic_ids); !s.ok()) return s;
  if (!opt.gpu_busids.empty() || !opt.nic_busids.empty()) {
    // NCCL keys PCI nodes by bus id; a repeat would merge two devices.
    std::vector<std::string> all = switch_ids;
    all.insert(all.end(), gpu_ids.begin(), gpu_ids.end());
    all.insert(all.end(), nic_ids.begin(), nic_ids.end());
    if (nvlinks > 0 && !opt.vm) all.push_back(nvswitch_id);
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i + 1; j < all.size(); ++j)
        if (all[i] == all[j])
          return bad("busid", all[i], "used twice (GPU, NIC, PCIe switch or NVSwitch)");
  }

  const HostId host{opt.host};
  detail::XmlOut x;
  x.comment(str_cat("railyard nccl-xml host=", opt.host, opt.vm ? " vm" : "",
                    " cluster=", topology::to_spec_string(d.spec())));
  x.open("system").attr("version", kNcclTopoXmlVersion);
  for (int32_t s = 0; s < sockets; ++s) {
    // numaid, affinity, arch, vendor, familyid, modelid: what ncclTopoAddCpu reads
    // (topo.cc); "x86_64" and "GenuineIntel" are keys of its kvDictCpuArch/Vendor.
    x.open("cpu")
        .attr("numaid", s)
        .attr("affinity", detail::cpumap(static_cast<int32_t>(total_threads), sockets,
                                         opt.cores_per_socket, opt.threads_per_core, s))
        .attr("arch", "x86_64")
        .attr("vendor", "GenuineIntel")
        .attr("familyid", opt.cpu_familyid)
        .attr("modelid", opt.cpu_modelid);
    for (int32_t u = s * groups_per_socket; u < (s + 1) * groups_per_socket; ++u) {
      // Switch attributes as in Azure's ndv5-topo.xml: zero vendor/device ids keep
      // NCCL's Broadcom-specific switch handling (topo.cc getBcmGen) out of play.
      x.open("pci")
          .attr("busid", switch_ids[static_cast<size_t>(u)])
          .attr("class", kPciBridgeClass)
          .attr("vendor", "0x0000")
          .attr("device", "0x0000")
          .attr("subsystem_vendor", "0x0000")
          .attr("subsystem_device", "0x0000")
          .attr("link_speed", kPcieLinkSpeed)
          .attr("link_width", kPcieLinkWidth);
      for (int32_t i = 0; i < gpus_per_group; ++i) {
        const int32_t g = u * gpus_per_group + i;
        // busid, class, link_speed and link_width are read by ncclTopoAddPci.
        x.open("pci")
            .attr("busid", gpu_ids[static_cast<size_t>(g)])
            .attr("class", kPciGpuClass)
            .attr("link_speed", kPcieLinkSpeed)
            .attr("link_width", kPcieLinkWidth);
        if (!opt.vm) {
          // ncclTopoAddGpu requires dev, sm, rank, gdr; NCCL overwrites rank with the
          // communicator rank when it loads the file.
          x.open("gpu").attr("dev", g).attr("sm", sm).attr("rank", g).attr("gdr", 1);
          if (nvlinks > 0) {
            // NCCL folds every non-GPU, non-CPU NVLink target into one NVSwitch node
            // (topo.cc ncclTopoAddNvLinks), so one element with the total link
            // count is equivalent to one per NVSwitch chip; NCCL itself writes one
            // such element (count 18) when the NVSwitches are hidden in a VM.
            x.open("nvlink")
                .attr("target", nvswitch_id)
                .attr("count", nvlinks)
                .attr("tclass", kPciNvswitchClass);
            x.close();
          }
          x.close();
        }
        x.close();
      }
      for (int32_t i = 0; i < nics_per_group; ++i) {
        const int32_t n = u * nics_per_group + i;
        x.open("pci")
            .attr("busid", nic_ids[static_cast<size_t>(n)])
            .attr("class", opt.nic_class)
            .attr("link_speed", kPcieLinkSpeed)
            .attr("link_width", kPcieLinkWidth);
        if (!opt.vm) {
          x.open("nic");
          for (int32_t p = 0; p < planes; ++p) {
            const int32_t dev = n * planes + p;
            // Attributes ncclTopoAddNet reads: dev, speed (Mb/s), port, latency,
            // guid, maxconn, gdr, rail, plane (rail/plane since NCCL 2.30).
            x.open("net")
                .attr("name", str_cat("mlx5_", dev))
                .attr("dev", dev)
                .attr("speed", int64_t{d.spec().nic_gbps} * 1000)
                .attr("port", p + 1)
                .attr("latency", 0);
            std::string guid = "0x";
            detail::append_hex(guid, nccl_nic_guid(host, NicIndex{n}), 16);
            x.attr("guid", guid).attr("maxconn", kNcclIbMaxConn).attr("gdr", 1);
            if (opt.rail_plane) x.attr("rail", n).attr("plane", p);
            x.close();
          }
          x.close();
        }
        x.close();
      }
      x.close();  // switch
    }
    x.close();  // cpu
  }
  x.close();  // system
  return std::move(x).str();
}

}  // namespace railyard::exports
