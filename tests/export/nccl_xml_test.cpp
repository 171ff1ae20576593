#include "railyard/export/nccl_xml.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../support/xml_parser.hpp"
#include "railyard/export/sysfs_pci.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_export_nccl_xml_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::NicIndex;
using railyard::exports::nccl_topology_file;
using railyard::exports::nccl_topology_xml;
using railyard::exports::NcclXmlOptions;
using railyard::test::parse_xml;
using railyard::test::XmlElement;
using Descriptor = railyard::topology::ClusterDescriptor<>;
using Walk = std::vector<std::pair<const XmlElement*, const XmlElement*>>;

Descriptor descriptor(std::string_view spec) {
  auto s = railyard::topology::parse_cluster(spec);
  REQUIRE(s.ok());
  auto d = railyard::topology::make_descriptor(*s);
  REQUIRE(d.ok());
  return *d;
}

std::string emit(const Descriptor& d, const NcclXmlOptions& opt) {
  auto xml = nccl_topology_xml(d, opt);
  REQUIRE_MESSAGE(xml.ok(), xml.status().ToString());
  return *xml;
}

std::string emit_file(const Descriptor& d, const NcclXmlOptions& opt) {
  auto xml = nccl_topology_file(d, opt);
  REQUIRE_MESSAGE(xml.ok(), xml.status().ToString());
  return *xml;
}

XmlElement parse(const std::string& text) {
  auto doc = parse_xml(text);
  REQUIRE_MESSAGE(doc.ok, doc.error);
  return doc.root;
}

Walk walk(const XmlElement& root) {
  Walk w;
  railyard::test::walk(root, nullptr, w);
  return w;
}

// dddd:bb:dd.f, lower-case hex, device <= 0x1f, function <= 7.
bool busid_ok(const std::string& s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u}) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return std::stoi(s.substr(8, 2), nullptr, 16) <= 0x1f && s[11] <= '7';
}
int64_t bus_key(const std::string& s) {  // domain:bus as one number
  return std::stoll(s.substr(0, 4), nullptr, 16) * 256 + std::stoll(s.substr(5, 2), nullptr, 16);
}

// Hosts to check in a cluster: first, second, middle, last.
std::vector<int32_t> hosts_to_check(int32_t hosts) {
  std::set<int32_t> s = {0, hosts / 2, hosts - 1};
  if (hosts > 1) s.insert(1);
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("nccl_xml: the test parser accepts well-formed XML and decodes entities") {
  auto doc = parse_xml(
      "<?xml version=\"1.0\"?>\n<!-- c -->\n<a x=\"1 &amp; 2\" y='&lt;&#65;&#x42;&quot;'>\n"
      "  <b/><b z=\"\"></b>t&gt;<!-- in --></a>\n<!-- after -->\n");
  REQUIRE_MESSAGE(doc.ok, doc.error);
  CHECK(doc.root.name == "a");
  CHECK(*doc.root.attr("x") == "1 & 2");
  CHECK(*doc.root.attr("y") == "<AB\"");
  CHECK(doc.root.all("b").size() == 2);
  CHECK(doc.root.text.find("t>") != std::string::npos);
}

TEST_CASE("nccl_xml: the test parser rejects malformed XML") {
  for (const char* bad : {
           "",                      // no root
           "<a></b>",               // mismatched
           "<a><b></a></b>",        // crossed
           "<a>",                   // unclosed
           "<a x=1/>",              // unquoted
           "<a x=\"1\" x=\"2\"/>",  // duplicate attribute
           "<a x=\"1\"y=\"2\"/>",   // no space between attributes
           "<a x=\"<\"/>",          // raw '<' in a value
           "<a x=\"&\"/>",          // bare '&'
           "<a x=\"&nbsp;\"/>",     // unknown entity
           "<a/><b/>",              // two roots
           "<a/>text",              // text after the root
           "<!-- a -- b --><a/>",   // '--' in a comment
           "<a x=\"1\"",            // truncated
       }) {
    CAPTURE(bad);
    CHECK_FALSE(parse_xml(bad).ok);
  }
}

namespace {

// ---------------------------------------------------------------------------
// NCCL's rules, as NCCL 2.30.7's code states them, applied to a parsed file.
// Written from NCCL's source, not from nccl_xml.hpp: the checker builds NCCL's
// topology graph from the XML and computes NCCL's path types.

// Path types, src/graph/topo.h (topoPathTypeStr in topo.cc): LOC NVL NVB C2C PIX
// PXB P2C PXN PHB SYS NET DIS.
enum PathType { kLoc = 0, kNvl, kNvb, kC2c, kPix, kPxb, kP2c, kPxn, kPhb, kSys, kNet, kDis };

// src/graph/topo.cc kvDictPciClass: first entry that prefixes the class.
std::string nccl_pci_type(const std::string& cls) {
  static const std::pair<const char*, const char*> kDict[] = {
      {"0x060400", "PCI"}, {"0x080100", "PCI"}, {"0x068000", "NVS"},
      {"0x068001", "CPU"}, {"0x03", "GPU"},     {"0x02", "NIC"}};
  for (const auto& [prefix, type] : kDict)
    if (cls.rfind(prefix, 0) == 0) return type;
  return "PCI";  // NCCL's fallback
}

// NCCL's graph of one file: a node per <cpu>, per bridge <pci>, per GPU (a <pci>
// holding <gpu>) and per NIC (a <pci> holding <nic>), as topo.cc
// ncclTopoAddCpu/ncclTopoAddPci build it; PCI links between an element and its
// parent; <c2c> links a GPU to its CPU (topo.cc ncclTopoAddC2c).
struct NcclGraph {
  struct Node {
    std::string kind;  // CPU, PCI, GPU, NIC
    const XmlElement* e = nullptr;
  };
  struct Link {
    int to;
    bool c2c;
  };
  std::vector<Node> nodes;
  std::vector<std::vector<Link>> links;
  std::map<std::string, int> gpu_by_busid, nic_by_net;  // <net name> -> its NIC node
  std::map<int, int> cpu_of;                             // node -> its CPU

  int add(std::string kind, const XmlElement* e) {
    nodes.push_back({std::move(kind), e});
    links.emplace_back();
    return static_cast<int>(nodes.size()) - 1;
  }
  void connect(int a, int b, bool c2c) {
    links[static_cast<size_t>(a)].push_back({b, c2c});
    links[static_cast<size_t>(b)].push_back({a, c2c});
  }
  void add_pci(const XmlElement& pci, int parent, int cpu) {
    const std::string cls = pci.attr("class").value_or("");
    const bool gpu = !pci.all("gpu").empty();
    const bool nic = !pci.all("nic").empty();
    // topo.cc ncclTopoAddPci: <nic> makes a NIC node and its sub-<pci> are not
    // visited; a GPU is a GPU node; only PCI-type functions recurse.
    const std::string kind = gpu ? "GPU" : nic ? "NIC" : nccl_pci_type(cls);
    const int n = add(kind, &pci);
    cpu_of[n] = cpu;
    connect(n, parent, false);
    if (gpu) {
      gpu_by_busid[*pci.attr("busid")] = n;
      if (!pci.all("gpu")[0]->all("c2c").empty()) connect(n, cpu, true);
    }
    if (nic)
      for (const XmlElement* net : pci.all("nic")[0]->all("net")) nic_by_net[*net->attr("name")] = n;
    if (kind == "PCI")
      for (const XmlElement& c : pci.children)
        if (c.name == "pci") add_pci(c, n, cpu);
  }
  explicit NcclGraph(const XmlElement& system) {
    std::vector<int> cpus;
    for (const XmlElement* c : system.all("cpu")) {
      const int n = add("CPU", c);
      cpu_of[n] = n;
      for (int other : cpus) connect(n, other, false);  // topo.cc ncclTopoConnectCpus: SYS
      cpus.push_back(n);
      for (const XmlElement* p : c->all("pci")) add_pci(*p, n, n);
    }
  }
  // The type of one hop, paths.cc ncclTopoSetPaths: a PCI link is PIX, PXB
  // between two PCI switches, PHB when it touches a CPU; CPU-CPU is SYS; C2C is C2C.
  int hop(int a, const Link& l) const {
    const std::string& ka = nodes[static_cast<size_t>(a)].kind;
    const std::string& kb = nodes[static_cast<size_t>(l.to)].kind;
    if (l.c2c) return kC2c;
    if (ka == "CPU" && kb == "CPU") return kSys;
    if (ka == "CPU" || kb == "CPU") return kPhb;
    if (ka == "PCI" && kb == "PCI") return kPxb;
    return kPix;
  }
  // NCCL's path type from a to b: the best (lowest) over routes of the worst hop
  // (ncclTopoSetPaths keeps max(path type, hop type) and the lower type wins);
  // routes do not pass through a GPU or NIC.
  int path(int a, int b) const {
    std::vector<int> best(nodes.size(), kDis);
    best[static_cast<size_t>(a)] = kLoc;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t u = 0; u < nodes.size(); ++u) {
        if (best[u] == kDis) continue;
        if (static_cast<int>(u) != a && (nodes[u].kind == "GPU" || nodes[u].kind == "NIC")) continue;
        for (const Link& l : links[u]) {
          const int t = std::max(best[u], hop(static_cast<int>(u), l));
          if (t < best[static_cast<size_t>(l.to)]) {
            best[static_cast<size_t>(l.to)] = t;
            changed = true;
          }
        }
      }
    }
    return best[static_cast<size_t>(b)];
  }
  // GPU -> NIC path after paths.cc ncclTopoComputePaths' C2C rule: a GPU whose
  // path to its CPU is C2C and a NIC whose path to that CPU is PHB are P2C.
  int gpu_nic_path(int gpu, int nic) const {
    int t = path(gpu, nic);
    const int cpu = cpu_of.at(gpu);
    const int to_cpu = path(gpu, cpu);
    const int nic_cpu = path(nic, cpu);
    if (std::max(to_cpu, nic_cpu) == kPhb && std::min(to_cpu, nic_cpu) == kC2c) t = std::min(t, int{kP2c});
    return t;
  }
  // paths.cc ncclTopoCheckGdr: enabled when the path is at most netGdrLevel,
  // P2C by default (NCCL_NET_GDR_C2C=1); mode PCI ("Force PCIe mapping") when the
  // GPU reaches its CPU over C2C and the NIC path is not P2C.
  enum class Gdr { kDisabled, kDefault, kPci };
  Gdr gdr(int gpu, int nic) const {
    const int distance = gpu_nic_path(gpu, nic);
    if (distance > kP2c) return Gdr::kDisabled;
    if (path(gpu, cpu_of.at(gpu)) == kC2c && distance != kP2c) return Gdr::kPci;
    return Gdr::kDefault;
  }
};

std::string sysfs_fixture() {
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of('/'));
  return path + "/../data/sysfs/hgx_h100";
}

railyard::exports::SysfsHost fixture_host() {
  auto host = railyard::exports::read_sysfs_host(sysfs_fixture());
  REQUIRE_MESSAGE(host.ok(), host.status().ToString());
  return *host;
}

// Real ids a host could have: 0000:bb:00.0 for made-up but domain-0000 devices.
std::vector<std::string> given_ids(int32_t n, int32_t first_bus) {
  std::vector<std::string> out;
  for (int32_t i = 0; i < n; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x:%02x:00.0", (first_bus + i) / 256, (first_bus + i) % 256);
    out.emplace_back(buf);
  }
  return out;
}

// Every NCCL rule a file must pass; `real` holds the ids of the host's devices
// (given or from sysfs), anything else must be invented in domain ffff.
void check_nccl_rules(const Descriptor& d, const std::string& text, bool vm,
                      const std::set<std::string>& real,
                      const railyard::exports::SysfsHost* sysfs) {
  const railyard::topology::ClusterSpec& spec = d.spec();
  // xml.cc xmlGetNode: no tabs, no <?xml?>, no space before "/>".
  CHECK(text.find('\t') == std::string::npos);
  CHECK(text.find("<?") == std::string::npos);
  CHECK(text.find(" />") == std::string::npos);
  const XmlElement root = parse(text);
  CHECK(root.name == "system");
  CHECK(root.attr("version") == "1");  // xml.h NCCL_TOPO_XML_VERSION
  const Walk all = walk(root);
  CHECK(all.size() <= 256);  // topo.h NCCL_TOPO_XML_MAX_NODES
  std::set<std::string> busids, names;
  for (const auto& [e, parent] : all) {
    for (const auto& [k, v] : e->attrs) CHECK(v.size() <= 255);  // xml.h MAX_STR_LEN
    if (e->name == "cpu") {
      // topo.cc ncclTopoAddCpu: numaid; arch a key of kvDictCpuArch; vendor (x86
      // only) a key of kvDictCpuVendor; Intel needs familyid/modelid.
      CHECK(e->has("numaid"));
      const std::string arch = e->attr("arch").value_or("");
      if (railyard::topology::grace_superchip(spec.gpu)) {
        CHECK(arch == "arm64");
        CHECK_FALSE(e->has("vendor"));  // NCCL writes vendor on x86 only (xml.cc ncclTopoGetXmlFromCpu)
      } else if (spec.cpu == railyard::topology::CpuModel::kAmd) {
        CHECK(arch == "x86_64");
        CHECK(e->attr("vendor") == "AuthenticAMD");
      } else {
        CHECK(arch == "x86_64");
        CHECK(e->attr("vendor") == "GenuineIntel");
        CHECK(e->has("familyid"));
        CHECK(e->has("modelid"));
      }
      // No invented CPU masks: affinity only when read from the host's sysfs,
      // else NCCL reads the node's cpumap (xml.cc ncclTopoGetXmlFromCpu).
      if (sysfs == nullptr || vm) CHECK_FALSE(e->has("affinity"));
    }
    if (e->name == "pci") {
      // xml.cc ncclTopoGetPciNode keys PCI nodes by busid (strcmp, xml.h
      // xmlFindTagKv, against int64ToBusId's lower-case form): unique, lower-case.
      const std::string id = *e->attr("busid");
      CHECK_MESSAGE(busid_ok(id), id);
      CHECK_MESSAGE(busids.insert(id).second, "duplicate busid ", id);
      CHECK(e->has("class"));
      // An invented id must not be a real device's: ncclTopoGetXmlFromSys
      // re-reads the class of every id sysfs knows.
      if (!real.count(id)) CHECK_MESSAGE(id.rfind("fff", 0) == 0, "invented id outside ffff: ", id);
      // A bridge NCCL cannot find in sysfs keeps the file's link (topo.cc
      // ncclTopoAddPci reads link_speed and link_width).
      if (!real.count(id) && e->attr("class") == "0x060400") {
        CHECK(e->has("link_speed"));
        CHECK(e->has("link_width"));
      }
      // Grace hosts: no invented PCIe switch (GPU and NIC on Grace root ports).
      if (railyard::topology::grace_superchip(spec.gpu) && !real.count(id))
        CHECK(e->attr("class") != "0x060400");
    }
    if (e->name == "gpu") {
      // xml.cc ncclTopoGetXmlFromGpu keeps a file's sm: it must be the GPU's.
      CHECK(e->attr("sm") == std::to_string(railyard::topology::compute_capability(spec.gpu)));
      // topo.cc ncclTopoGetSystem: gdr from the file wins over NCCL's check.
      CHECK_FALSE(e->has("gdr"));
      if (railyard::topology::grace_superchip(spec.gpu)) {
        REQUIRE(e->all("c2c").size() == 1);  // topo.cc ncclTopoAddC2c reads count, bw
        CHECK(e->all("c2c")[0]->has("count"));
        CHECK(e->all("c2c")[0]->has("bw"));
      }
    }
    if (e->name == "net") {
      // xml.cc ncclTopoFillNet finds a <net> by name: unique names.
      CHECK(names.insert(*e->attr("name")).second);
      // topo.cc ncclTopoPopulateNics: xmlInitAttr* keep the file's values, so the
      // file must not carry what only the plugin knows.
      for (const char* a : {"gdr", "guid", "maxconn", "latency"}) CHECK_FALSE(e->has(a));
      CHECK(e->attr("speed") == std::to_string(int64_t{spec.nic_gbps} * 1000));
    }
    // xml.cc ncclTopoTrimXml keeps only what NCCL detected: the VM skeleton
    // leaves <gpu>/<net> to NCCL.
    if (vm) {
      CHECK(e->name != "gpu");
      CHECK(e->name != "net");
    }
  }
  if (vm) return;
  // With sysfs: each <net> is an RDMA device whose PCI function is its <pci>, so
  // NCCL's by-name match puts it where the plugin's pciPath does.
  if (sysfs != nullptr)
    for (const auto& [e, parent] : all)
      if (e->name == "net") {
        const auto& nics = sysfs->nics;
        auto it = std::find_if(nics.begin(), nics.end(),
                               [&](const auto& n) { return n.ib_name == *e->attr("name"); });
        REQUIRE(it != nics.end());
      }
  // paths.cc: every GPU reaches the NIC of its rail with GPUDirect RDMA.
  const NcclGraph graph(root);
  REQUIRE(graph.gpu_by_busid.size() == static_cast<size_t>(d.gpus_per_host()));
  std::map<int32_t, int> nic_of_rail;
  for (const auto& [e, parent] : all)
    if (e->name == "net" && e->has("rail"))
      nic_of_rail[std::stoi(*e->attr("rail"))] = graph.nic_by_net.at(*e->attr("name"));
  REQUIRE(nic_of_rail.size() == static_cast<size_t>(d.nics_per_host()));
  for (const auto& [busid, gpu] : graph.gpu_by_busid) {
    const int32_t g = std::stoi(*graph.nodes[static_cast<size_t>(gpu)].e->all("gpu")[0]->attr("dev"));
    const int nic = nic_of_rail.at(d.nic_of_gpu(GpuIndex{g}).value());
    CAPTURE(g);
    const int t = graph.gpu_nic_path(gpu, nic);
    if (railyard::topology::grace_superchip(spec.gpu)) {
      CHECK(t == kP2c);
      CHECK(graph.gdr(gpu, nic) == NcclGraph::Gdr::kDefault);
    } else {
      CHECK((t == kPix || t == kPxb));
      CHECK(graph.gdr(gpu, nic) == NcclGraph::Gdr::kDefault);
    }
  }
}

}  // namespace

TEST_CASE("nccl_xml: the rule checker sees NCCL's path types") {
  // A hand-written file: GPU and NIC under one switch (PXB between its ports is
  // not involved: one bridge, PIX), a second NIC under the other CPU (SYS).
  const XmlElement root = parse(
      "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x060400\">"
      "<pci busid=\"0000:02:00.0\" class=\"0x030200\"><gpu dev=\"0\"/></pci>"
      "<pci busid=\"0000:03:00.0\" class=\"0x020700\"><nic><net name=\"a\"/></nic></pci></pci>"
      "<pci busid=\"0000:04:00.0\" class=\"0x020700\"><nic><net name=\"b\"/></nic></pci></cpu>"
      "<cpu numaid=\"1\"><pci busid=\"0000:81:00.0\" class=\"0x020700\"><nic><net name=\"c\"/>"
      "</nic></pci></cpu></system>");
  const NcclGraph g(root);
  const int gpu = g.gpu_by_busid.at("0000:02:00.0");
  CHECK(g.gpu_nic_path(gpu, g.nic_by_net.at("a")) == kPix);
  CHECK(g.gpu_nic_path(gpu, g.nic_by_net.at("b")) == kPhb);
  CHECK(g.gpu_nic_path(gpu, g.nic_by_net.at("c")) == kSys);
  CHECK(g.gdr(gpu, g.nic_by_net.at("a")) == NcclGraph::Gdr::kDefault);
  CHECK(g.gdr(gpu, g.nic_by_net.at("b")) == NcclGraph::Gdr::kDisabled);
  // Grace: C2C to the CPU and a NIC on a root port: P2C, GDR in default mode;
  // the same GPU with the NIC under a shared switch: PIX but PCI mapping.
  const XmlElement grace = parse(
      "<system version=\"1\"><cpu numaid=\"0\" arch=\"arm64\">"
      "<pci busid=\"0008:01:00.0\" class=\"0x030200\"><gpu dev=\"0\"><c2c bw=\"1\" count=\"1\"/>"
      "</gpu></pci><pci busid=\"0000:03:00.0\" class=\"0x020700\"><nic><net name=\"a\"/></nic></pci>"
      "<pci busid=\"0009:00:00.0\" class=\"0x060400\"><pci busid=\"0009:01:00.0\" class=\"0x030200\">"
      "<gpu dev=\"1\"><c2c bw=\"1\" count=\"1\"/></gpu></pci><pci busid=\"0009:02:00.0\" "
      "class=\"0x020700\"><nic><net name=\"b\"/></nic></pci></pci></cpu></system>");
  const NcclGraph gg(grace);
  const int g0 = gg.gpu_by_busid.at("0008:01:00.0");
  const int g1 = gg.gpu_by_busid.at("0009:01:00.0");
  CHECK(gg.gpu_nic_path(g0, gg.nic_by_net.at("a")) == kP2c);
  CHECK(gg.gdr(g0, gg.nic_by_net.at("a")) == NcclGraph::Gdr::kDefault);
  CHECK(gg.gpu_nic_path(g1, gg.nic_by_net.at("b")) == kPix);
  CHECK(gg.gdr(g1, gg.nic_by_net.at("b")) == NcclGraph::Gdr::kPci);
}

TEST_CASE("nccl_xml: every preset, with and without --vm, passes NCCL's rules") {
  int checked = 0;
  for (const auto& preset : railyard::topology::kPresets) {
    CAPTURE(preset.name);
    const Descriptor d = descriptor(preset.name);
    for (int32_t h : hosts_to_check(d.hosts())) {
      CAPTURE(h);
      // Bare metal without real ids: refused, naming the ways out.
      auto refused = nccl_topology_file(d, {.host = h});
      REQUIRE_FALSE(refused.ok());
      const std::string why(refused.status().message());
      for (const char* flag : {"--sysfs-root", "--gpu-busids/--nic-busids", "--vm"})
        CHECK(why.find(flag) != std::string::npos);
      CHECK(why.find("GPUDirect RDMA") != std::string::npos);
      // VM skeleton: placeholders in ffff, NCCL fills in the rest.
      check_nccl_rules(d, emit_file(d, {.host = h, .vm = true}), true, {}, nullptr);
      // Bare metal with the host's ids given.
      const auto gpu_ids = given_ids(d.gpus_per_host(), 0x20);
      const auto nic_ids = given_ids(d.nics_per_host(), 0x80);
      std::set<std::string> real(gpu_ids.begin(), gpu_ids.end());
      real.insert(nic_ids.begin(), nic_ids.end());
      check_nccl_rules(d, emit_file(d, {.host = h, .gpu_busids = gpu_ids, .nic_busids = nic_ids}),
                       false, real, nullptr);
      check_nccl_rules(d, emit_file(d, {.host = h, .vm = true, .gpu_busids = gpu_ids,
                                        .nic_busids = nic_ids}),
                       true, real, nullptr);
      checked += 3;
    }
  }
  MESSAGE(checked, " files checked against NCCL's rules");
  CHECK(checked >= 3 * static_cast<int>(railyard::topology::kPresets.size()));
}

TEST_CASE("nccl_xml: the HGX sysfs fixture: real ids, NUMA, CPUs, GDR on every rail") {
  const railyard::exports::SysfsHost host = fixture_host();
  REQUIRE(host.gpus.size() == 8);
  REQUIRE(host.nics.size() == 8);  // the Ethernet NIC, NVMe and NVSwitch are not counted
  CHECK(host.gpus[0].self.busid == "0000:1b:00.0");
  CHECK(host.gpus[7].self.busid == "0000:df:00.0");
  CHECK(host.gpus[4].self.numa_node == 1);
  CHECK(host.nics[0].ib_name == "mlx5_0");
  CHECK(host.nics[0].self.busid == "0000:1c:00.0");
  REQUIRE(host.gpus[0].upstream.size() == 3);  // root port, switch upstream, downstream port
  CHECK(host.gpus[0].upstream[0].busid == "0000:18:01.0");
  std::set<std::string> real;
  for (const auto* list : {&host.gpus, &host.nics})
    for (const auto& dev : *list) {
      real.insert(dev.self.busid);
      for (const auto& b : dev.upstream) real.insert(b.busid);
    }
  for (const char* name : {"h100-1024", "h100-16k-3tier"}) {
    CAPTURE(name);
    const Descriptor d = descriptor(name);
    REQUIRE(d.gpus_per_host() == 8);
    const std::string text = emit_file(d, {.host = 3, .sysfs = host});
    check_nccl_rules(d, text, false, real, &host);
    // The real ids, and the affinity read from local_cpus.
    for (const char* id : {"0000:1b:00.0", "0000:df:00.0", "0000:1c:00.0", "0000:e0:00.0"})
      CHECK(text.find(railyard::str_cat("busid=\"", id, "\"")) != std::string::npos);
    const XmlElement root = parse(text);
    REQUIRE(root.all("cpu").size() == 2);
    CHECK(root.all("cpu")[0]->attr("affinity") == host.gpus[0].self.local_cpus);
    CHECK(root.all("cpu")[1]->attr("affinity") == host.gpus[7].self.local_cpus);
    // Same tree, same bytes.
    CHECK(text == emit_file(d, {.host = 3, .sysfs = fixture_host()}));
  }
  // Every GPU-NIC pair sharing a PCIe switch in the fixture is PXB (NCCL: two
  // bridge ports of one switch), GDR on; pairs across switches are not.
  const XmlElement root = parse(emit_file(descriptor("h100-1024"), {.sysfs = host}));
  const NcclGraph g(root);
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j) {
      const int gpu = g.gpu_by_busid.at(host.gpus[i].self.busid);
      const int nic = g.nic_by_net.at(host.nics[j].ib_name);
      const bool shared = host.gpus[i].upstream[1].busid == host.nics[j].upstream[1].busid;
      CAPTURE(i);
      CAPTURE(j);
      CHECK(shared == (i == j));
      if (shared) {
        CHECK(g.gpu_nic_path(gpu, nic) == kPxb);
        CHECK(g.gdr(gpu, nic) == NcclGraph::Gdr::kDefault);
      } else {
        CHECK(g.gpu_nic_path(gpu, nic) >= kPhb);
        CHECK(g.gdr(gpu, nic) == NcclGraph::Gdr::kDisabled);
      }
    }
}

TEST_CASE("nccl_xml: invented ids on bare metal disable GPUDirect RDMA (why the file is refused)") {
  // What NCCL does with a placeholder file on the fixture host: the real GPU's
  // bus id is not in the file, so ncclTopoFillGpu (xml.cc) attaches it from sysfs
  // under its real bridges and NUMA node; the NIC is found by name
  // (ncclTopoFillNet) and stays under the invented switch. Model that merge and
  // NCCL's paths: every rail is PHB or worse, GDR disabled on all 8 GPUs.
  const railyard::exports::SysfsHost host = fixture_host();
  const Descriptor d = descriptor("h100-1024");
  XmlElement merged = parse(emit(d, {.host = 0}));  // placeholders: the pre-refusal file
  for (const auto& gpu : host.gpus) {
    XmlElement* parent = nullptr;
    for (XmlElement& c : merged.children)
      if (c.name == "cpu" && c.attr("numaid") == std::to_string(gpu.upstream[0].numa_node)) parent = &c;
    REQUIRE(parent != nullptr);
    for (const auto& bridge : gpu.upstream) {
      parent->children.push_back({"pci", {{"busid", bridge.busid}, {"class", bridge.pci_class}}, {}, ""});
      parent = &parent->children.back();
    }
    XmlElement dev{"pci", {{"busid", gpu.self.busid}, {"class", gpu.self.pci_class}}, {}, ""};
    dev.children.push_back({"gpu", {{"dev", "x"}}, {}, ""});
    parent->children.push_back(dev);
  }
  const NcclGraph g(merged);
  for (size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    const int gpu = g.gpu_by_busid.at(host.gpus[i].self.busid);
    const int nic = g.nic_by_net.at(railyard::str_cat("mlx5_", i));
    CHECK(g.gpu_nic_path(gpu, nic) >= kPhb);
    CHECK(g.gdr(gpu, nic) == NcclGraph::Gdr::kDisabled);
  }
  // And the refusal itself.
  CHECK_FALSE(nccl_topology_file(d, {.host = 0}).ok());
  CHECK(nccl_topology_file(d, {.host = 0, .sysfs = host}).ok());
}

TEST_CASE("nccl_xml: Grace hosts: arm64, NVLink-C2C, NICs on root ports") {
  const Descriptor d = descriptor("gb200-nvl72-576");
  REQUIRE(railyard::topology::grace_superchip(d.spec().gpu));
  const XmlElement root = parse(emit_file(
      d, {.host = 2, .gpu_busids = given_ids(4, 0x10), .nic_busids = given_ids(4, 0x30)}));
  for (const XmlElement* cpu : root.all("cpu")) {
    CHECK(cpu->attr("arch") == "arm64");
    for (const XmlElement* pci : cpu->all("pci")) CHECK(pci->attr("class") != "0x060400");
  }
  CHECK(parse(emit_file(d, {.host = 2, .vm = true})).all("cpu")[0]->attr("arch") == "arm64");
  // cpu=amd: AMD's vendor string.
  const Descriptor amd = descriptor("rail_fat_tree:hosts=32,cpu=amd");
  const XmlElement a = parse(emit_file(amd, {.vm = true}));
  CHECK(a.all("cpu")[0]->attr("vendor") == "AuthenticAMD");
  CHECK_FALSE(a.all("cpu")[0]->has("familyid"));
}

TEST_CASE("nccl_xml: layout: pairing, sockets, bus ranges of invented switches") {
  for (const auto& preset : railyard::topology::kPresets) {
    CAPTURE(preset.name);
    const Descriptor d = descriptor(preset.name);
    const XmlElement root = parse(emit(d, {.host = 1}));
    const Walk all = walk(root);
    std::map<const XmlElement*, const XmlElement*> parent_of;
    for (const auto& [e, p] : all) parent_of[e] = p;
    std::map<int32_t, const XmlElement*> gpu_group;
    std::map<int32_t, const XmlElement*> rail_group;
    for (const auto& [e, p] : all) {
      if (e->name == "gpu") gpu_group[std::stoi(*e->attr("dev"))] = parent_of[p];
      if (e->name == "net") {
        CHECK(e->attr("port") == std::to_string(std::stoi(*e->attr("plane")) + 1));
        rail_group[std::stoi(*e->attr("rail"))] = parent_of[parent_of[p]];
      }
    }
    REQUIRE(gpu_group.size() == static_cast<size_t>(d.gpus_per_host()));
    REQUIRE(rail_group.size() == static_cast<size_t>(d.nics_per_host()));
    // Each GPU shares its switch (or, on Grace, its CPU) with the NIC it pairs with.
    for (int32_t g = 0; g < d.gpus_per_host(); ++g)
      CHECK(gpu_group[g] == rail_group[d.nic_of_gpu(GpuIndex{g}).value()]);
    // Invented switches (domain ffff): children on buses after the switch's and
    // before the next switch's, as PCIe bridges number their secondary buses.
    std::vector<const XmlElement*> switches;
    for (const auto& [e, p] : all)
      if (e->name == "pci" && e->attr("class") == "0x060400") switches.push_back(e);
    // Domain k of the model (0000 + k) and of invented ids (ffff - k) alike.
    auto bus = [](const XmlElement& e) {
      const int64_t key = bus_key(*e.attr("busid"));
      const int64_t domain = key / 256;
      return (domain >= 0x8000 ? 0xffff - domain : domain) * 256 + key % 256;
    };
    for (size_t i = 0; i < switches.size(); ++i) {
      CHECK(switches[i]->attr("busid")->rfind("ffff:", 0) == 0);
      const int64_t lo = bus(*switches[i]);
      const int64_t hi = i + 1 < switches.size() ? bus(*switches[i + 1]) : INT64_MAX;
      for (const XmlElement& c : switches[i]->children) {
        CHECK(lo < bus(c));
        CHECK(bus(c) < hi);
      }
    }
  }
}

TEST_CASE("nccl_xml: options and errors") {
  const Descriptor d = descriptor("h100-1024");
  std::vector<std::string> g, n;
  for (int i = 0; i < 8; ++i) {
    g.push_back(railyard::str_cat("0000:0", i, ":00.0"));
    n.push_back(railyard::str_cat("0000:1", i, ":00.0"));
  }
  n[7] = "0000:1A:00.0";  // upper case is accepted and written lower-case
  const XmlElement root =
      parse(emit(d, {.vm = true, .nic_class = "0x020000", .gpu_busids = g, .nic_busids = n}));
  std::vector<std::string> leaves;
  for (const auto& [e, p] : walk(root))
    if (e->name == "pci" && e->attr("class") != "0x060400") leaves.push_back(*e->attr("busid"));
  CHECK(leaves ==
        std::vector<std::string>{"0000:00:00.0", "0000:10:00.0", "0000:01:00.0", "0000:11:00.0",
                                 "0000:02:00.0", "0000:12:00.0", "0000:03:00.0", "0000:13:00.0",
                                 "0000:04:00.0", "0000:14:00.0", "0000:05:00.0", "0000:15:00.0",
                                 "0000:06:00.0", "0000:16:00.0", "0000:07:00.0", "0000:1a:00.0"});
  CHECK(emit(d, {.nic_class = "0x020000"}).find("class=\"0x020000\"") != std::string::npos);
  const std::string no_rails = emit(d, {.rail_plane = false});
  CHECK(no_rails.find("rail=") == std::string::npos);
  CHECK(no_rails.find("plane=") == std::string::npos);
  const std::string sm100 = emit(d, {.sm = 100});
  CHECK(sm100.find("sm=\"100\"") != std::string::npos);
  CHECK(sm100.find("count=\"9\"") != std::string::npos);  // 3600 Gb/s at 400 per link

  auto error = [&](const NcclXmlOptions& opt) {
    auto r = nccl_topology_xml(d, opt);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  std::vector<std::string> short_list(g.begin(), g.end() - 1);
  CHECK(error({.gpu_busids = short_list}).find("expected 8 bus ids, got 7") != std::string::npos);
  std::vector<std::string> malformed = g;
  malformed[3] = "0000:3:00.0";
  CHECK(error({.gpu_busids = malformed}).find("gpu_busids=0000:3:00.0") != std::string::npos);
  CHECK(error({.gpu_busids = g, .nic_busids = g}).find("used twice") != std::string::npos);
  CHECK(error({.nic_class = "0x030200"}).find("nic_class=0x030200") != std::string::npos);
  CHECK(error({.sm = 7}).find("sm=7") != std::string::npos);
  // A sysfs whose device counts are not the cluster's.
  railyard::exports::SysfsHost four = fixture_host();
  four.gpus.resize(4);
  CHECK(error({.sysfs = four}).find("sysfs=4 GPUs") != std::string::npos);
  four = fixture_host();
  four.nics.pop_back();
  CHECK(error({.sysfs = four}).find("sysfs=7 RDMA ports") != std::string::npos);
  // A sysfs root that is not there.
  auto missing = railyard::exports::read_sysfs_host("/nonexistent/sys");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()).find("sysfs_root=/nonexistent/sys") == 0);
}

TEST_CASE("nccl_xml: a bad host is an error naming the host") {
  const Descriptor d = descriptor("h100-1024");
  for (int32_t h : {-1, 128, 100000}) {
    CAPTURE(h);
    auto r = nccl_topology_xml(d, {.host = h});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(r.status().message()).find(railyard::str_cat("host=", h)) !=
          std::string::npos);
    CHECK(railyard::error_field(r.status())->field == "host");  // the field travels with it
  }
  CHECK(nccl_topology_xml(d, {.host = 127}).ok());
  auto big = nccl_topology_xml(descriptor("rail_fat_tree:hosts=32,gpus_per_host=64,"
                                          "nics_per_host=64,switch_radix=128,planes=2"),
                               {});
  REQUIRE_FALSE(big.ok());
  CHECK(std::string(big.status().message()).find("NCCL_TOPO_XML_MAX_NODES") != std::string::npos);
}

}  // namespace railyard_test_export_nccl_xml_test
