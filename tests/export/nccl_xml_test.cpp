#include "railyard/export/nccl_xml.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../support/xml_parser.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::NicIndex;
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

// The bits of a Linux cpumap "hhhhhhhh,hhhhhhhh".
std::vector<bool> cpumap_bits(const std::string& m) {
  std::vector<bool> bits;
  std::vector<std::string> words;
  for (std::string_view w : railyard::split(m, ',')) words.emplace_back(w);
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    const uint32_t v = static_cast<uint32_t>(std::stoul(*it, nullptr, 16));
    for (int b = 0; b < 32; ++b) bits.push_back(((v >> b) & 1u) != 0);
  }
  return bits;
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

TEST_CASE("nccl_xml: every preset, full form: devices, pairing, bus ids, rails and planes") {
  for (const auto& preset : railyard::topology::kPresets) {
    CAPTURE(preset.name);
    const Descriptor d = descriptor(preset.name);
    const int32_t gpus = d.gpus_per_host();
    const int32_t nics = d.nics_per_host();
    const int32_t planes = d.planes();
    for (int32_t h : hosts_to_check(d.hosts())) {
      CAPTURE(h);
      const std::string text = emit(d, {.host = h});
      // The dialect NCCL's reader needs (src/graph/xml.cc): no tabs, no XML
      // declaration, no space before "/>".
      CHECK(text.find('\t') == std::string::npos);
      CHECK(text.find("<?") == std::string::npos);
      CHECK(text.find(" />") == std::string::npos);
      CHECK(text.find("  =") == std::string::npos);
      const XmlElement root = parse(text);
      CHECK(root.name == "system");
      CHECK(root.attr("version") == "1");
      const Walk all = walk(root);
      CHECK(all.size() <= 256);  // NCCL_TOPO_XML_MAX_NODES

      std::map<int32_t, const XmlElement*> gpu_switch;  // GPU -> its PCIe switch
      std::map<int32_t, const XmlElement*> gpu_cpu;     // GPU -> its CPU
      std::map<std::pair<int32_t, int32_t>, const XmlElement*> port_switch;  // (nic, port)
      std::map<int32_t, std::string> nic_guid;
      std::set<std::string> busids, names;
      std::map<const XmlElement*, const XmlElement*> parent_of;
      for (const auto& [e, p] : all) parent_of[e] = p;

      for (const auto& [e, parent] : all) {
        for (const auto& [k, v] : e->attrs) CHECK(v.size() <= 255);  // NCCL MAX_STR_LEN
        if (e->name == "cpu") {
          for (const char* a : {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"})
            CHECK(e->has(a));
          CHECK(e->attr("arch") == "x86_64");
          CHECK(e->attr("vendor") == "GenuineIntel");
          CHECK(parent == &root);
        }
        if (e->name == "pci") {
          for (const char* a : {"busid", "class", "link_speed", "link_width"}) CHECK(e->has(a));
          const std::string id = *e->attr("busid");
          CHECK_MESSAGE(busid_ok(id), id);
          CHECK_MESSAGE(busids.insert(id).second, "duplicate busid ", id);
        }
        if (e->name == "gpu") {
          for (const char* a : {"dev", "sm", "rank", "gdr"}) CHECK(e->has(a));
          const int32_t g = std::stoi(*e->attr("dev"));
          CHECK(!gpu_switch.count(g));
          REQUIRE(parent != nullptr);
          CHECK(parent->attr("class") == "0x030200");
          const XmlElement* sw = parent_of[parent];
          REQUIRE(sw != nullptr);
          CHECK(sw->attr("class") == "0x060400");
          gpu_switch[g] = sw;
          gpu_cpu[g] = parent_of[sw];
          const auto links = e->all("nvlink");
          if (d.spec().scale_up > 1) {
            REQUIRE(links.size() == 1);
            CHECK(links[0]->attr("tclass") == "0x068000");
            CHECK(std::stoi(*links[0]->attr("count")) == 18);  // H100 and GB200: 18 links
          } else {
            CHECK(links.empty());
          }
        }
        if (e->name == "net") {
          for (const char* a :
               {"name", "dev", "speed", "port", "latency", "guid", "maxconn", "gdr"})
            CHECK(e->has(a));
          const int32_t dev = std::stoi(*e->attr("dev"));
          const int32_t n = dev / planes;
          const int32_t port = std::stoi(*e->attr("port"));
          CHECK(port == dev % planes + 1);
          CHECK(e->attr("rail") == std::to_string(n));  // rail = NIC index
          CHECK(e->attr("plane") == std::to_string(port - 1));
          CHECK(e->attr("speed") == std::to_string(int64_t{d.spec().nic_gbps} * 1000));
          CHECK(names.insert(*e->attr("name")).second);
          CHECK(!port_switch.count({n, port}));
          // The ports of one NIC share its guid.
          const auto [it, fresh] = nic_guid.emplace(n, *e->attr("guid"));
          if (!fresh) CHECK(it->second == *e->attr("guid"));
          const XmlElement* nic = parent;
          REQUIRE(nic != nullptr);
          CHECK(nic->name == "nic");
          const XmlElement* pci = parent_of[nic];
          REQUIRE(pci != nullptr);
          CHECK(pci->attr("class") == "0x020700");
          port_switch[{n, port}] = parent_of[pci];
        }
      }
      // Every GPU and NIC port exactly once.
      CHECK(gpu_switch.size() == static_cast<size_t>(gpus));
      CHECK(port_switch.size() == static_cast<size_t>(nics) * static_cast<size_t>(planes));
      CHECK(nic_guid.size() == static_cast<size_t>(nics));
      // Each GPU shares its PCIe switch with the NIC(s) the descriptor pairs it with,
      // and only with those.
      for (int32_t n = 0; n < nics; ++n)
        for (int32_t p = 1; p <= planes; ++p) {
          const int32_t g = d.gpu_of_nic(NicIndex{n}).value();
          CHECK(port_switch[{n, p}] == gpu_switch[g]);
        }
      for (int32_t g = 0; g < gpus; ++g) {
        const int32_t n = d.nic_of_gpu(GpuIndex{g}).value();
        CHECK(port_switch[{n, 1}] == gpu_switch[g]);
        for (int32_t g2 = 0; g2 < gpus; ++g2)
          if (d.nic_of_gpu(GpuIndex{g2}) != d.nic_of_gpu(GpuIndex{g}) &&
              d.gpu_of_nic(d.nic_of_gpu(GpuIndex{g2})) != d.gpu_of_nic(d.nic_of_gpu(GpuIndex{g})))
            CHECK(gpu_switch[g2] != gpu_switch[g]);
      }
      // GPUs split evenly and in order over the sockets.
      const auto cpus = root.all("cpu");
      const size_t per_socket = static_cast<size_t>(gpus) / cpus.size();
      for (int32_t g = 0; g < gpus; ++g)
        CHECK(gpu_cpu[g] == cpus[static_cast<size_t>(g) / per_socket]);
      // Bus ranges: a switch's children sit on buses after the switch's and before
      // the next switch's.
      std::vector<const XmlElement*> switches;
      for (const auto& [e, p] : all)
        if (e->name == "pci" && e->attr("class") == "0x060400") switches.push_back(e);
      for (size_t i = 0; i < switches.size(); ++i) {
        const int64_t lo = bus_key(*switches[i]->attr("busid"));
        const int64_t hi =
            i + 1 < switches.size() ? bus_key(*switches[i + 1]->attr("busid")) : INT64_MAX;
        for (const XmlElement& c : switches[i]->children) {
          const int64_t b = bus_key(*c.attr("busid"));
          CHECK(lo < b);
          CHECK(b < hi);
        }
      }
    }
  }
}

TEST_CASE("nccl_xml: HGX host: sockets, affinity and the GPU<->NIC PIX pairs") {
  const Descriptor d = descriptor("h100-1024");
  const XmlElement root = parse(emit(d, {.host = 5}));
  const auto cpus = root.all("cpu");
  REQUIRE(cpus.size() == 2);
  std::vector<bool> seen;
  for (size_t s = 0; s < 2; ++s) {
    CHECK(cpus[s]->attr("numaid") == std::to_string(s));
    CHECK(cpus[s]->attr("familyid") == "6");
    CHECK(cpus[s]->attr("modelid") == "143");
    const std::vector<bool> bits = cpumap_bits(*cpus[s]->attr("affinity"));
    REQUIRE(bits.size() == 224);  // 2 sockets x 56 cores x 2 threads
    seen.resize(bits.size(), false);
    int count = 0;
    for (size_t b = 0; b < bits.size(); ++b)
      if (bits[b]) {
        ++count;
        CHECK_FALSE(seen[b]);  // sockets are disjoint
        seen[b] = true;
        // Socket s owns cores [56s, 56s+56) and their siblings 112 higher.
        CHECK((b % 112) / 56 == s);
      }
    CHECK(count == 112);
    // GPUs 0-3 on socket 0, 4-7 on socket 1, each with its NIC under one switch.
    const auto sws = cpus[s]->all("pci");
    REQUIRE(sws.size() == 4);
    for (size_t i = 0; i < 4; ++i) {
      const auto leaves = sws[i]->all("pci");
      REQUIRE(leaves.size() == 2);
      const std::string g = std::to_string(4 * s + i);
      CHECK(leaves[0]->all("gpu").at(0)->attr("dev") == g);
      CHECK(leaves[1]->all("nic").at(0)->all("net").at(0)->attr("name") == "mlx5_" + g);
      CHECK(leaves[1]->all("nic").at(0)->all("net").at(0)->attr("speed") == "400000");
    }
  }
}

TEST_CASE("nccl_xml: GUIDs unique across hosts, deterministic output") {
  for (const char* name : {"h100-1024", "h100-1024-dualplane", "gb200-nvl72-576"}) {
    CAPTURE(name);
    const Descriptor d = descriptor(name);
    std::set<std::string> guids;
    size_t nics_seen = 0;
    for (int32_t h = 0; h < d.hosts(); ++h) {
      const std::string a = emit(d, {.host = h});
      CHECK(a == emit(d, {.host = h}));  // same input, same bytes
      std::set<std::string> host_guids;
      const XmlElement root = parse(a);
      for (const auto& [e, p] : walk(root))
        if (e->name == "net") host_guids.insert(*e->attr("guid"));
      CHECK(host_guids.size() == static_cast<size_t>(d.nics_per_host()));
      nics_seen += host_guids.size();
      guids.insert(host_guids.begin(), host_guids.end());
    }
    CHECK(guids.size() == nics_seen);
  }
  // Two descriptors built separately give the same bytes, VM form too.
  CHECK(emit(descriptor("h100-16k-3tier"), {.host = 2047, .vm = true}) ==
        emit(descriptor("h100-16k-3tier"), {.host = 2047, .vm = true}));
}

TEST_CASE("nccl_xml: the VM form is the skeleton of the full form") {
  for (const auto& preset : railyard::topology::kPresets) {
    CAPTURE(preset.name);
    const Descriptor d = descriptor(preset.name);
    const XmlElement full = parse(emit(d, {.host = 1}));
    const XmlElement vm = parse(emit(d, {.host = 1, .vm = true}));
    const auto fc = full.all("cpu");
    const auto vc = vm.all("cpu");
    REQUIRE(fc.size() == vc.size());
    std::set<std::string> ids;
    for (size_t s = 0; s < fc.size(); ++s) {
      CHECK(fc[s]->attrs == vc[s]->attrs);  // same CPU/NUMA description
      const auto fs = fc[s]->all("pci");
      const auto vs = vc[s]->all("pci");
      REQUIRE(fs.size() == vs.size());
      for (size_t i = 0; i < fs.size(); ++i) {
        // Switches: bus ids in domain ffff, which a guest never has.
        const std::string id = *vs[i]->attr("busid");
        CHECK(id.rfind("ffff:", 0) == 0);
        CHECK(busid_ok(id));
        CHECK(ids.insert(id).second);
        CHECK(vs[i]->attr("class") == "0x060400");
        const auto fl = fs[i]->all("pci");
        const auto vl = vs[i]->all("pci");
        REQUIRE(fl.size() == vl.size());
        for (size_t j = 0; j < fl.size(); ++j) {
          // Same GPU/NIC functions, as bare leaves: NCCL fills in <gpu>/<nic>.
          CHECK(fl[j]->attrs == vl[j]->attrs);
          CHECK(vl[j]->children.empty());
        }
      }
    }
    for (const auto& [e, p] : walk(vm))
      for (const char* absent : {"gpu", "nvlink", "nic", "net"}) CHECK(e->name != absent);
  }
}

TEST_CASE("nccl_xml: options: bus ids, NIC class, rail/plane, sm") {
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
  CHECK(error({.cores_per_socket = 0}).find("cores_per_socket=0") != std::string::npos);
  CHECK(error({.cores_per_socket = 512}).find("NCCL reads at most 255") != std::string::npos);
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
  // A host too large for NCCL's 256-element XML is refused.
  auto big = nccl_topology_xml(descriptor("rail_fat_tree:hosts=32,gpus_per_host=64,"
                                          "nics_per_host=64,switch_radix=128,planes=2"),
                               {});
  REQUIRE_FALSE(big.ok());
  CHECK(std::string(big.status().message()).find("NCCL_TOPO_XML_MAX_NODES") != std::string::npos);
}
