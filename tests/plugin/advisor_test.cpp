// The net-plugin path advisor: the C++ PathAdvisor and the C API (this
// translation unit defines the C functions for the test binary).
#define RAILYARD_ADVISOR_IMPLEMENTATION
#include "railyard/plugin/advisor.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>  // setenv, unsetenv (POSIX)
#include <unistd.h>  // getpid

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../support/budget.hpp"
#include "../support/clusters.hpp"
#include "../support/xml_parser.hpp"
#include "railyard/export/nccl_xml.hpp"
#include "railyard/routing/flow.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/topology/cluster.hpp"

using namespace railyard;
using railyard::plugin::AdvisorOptions;
using railyard::plugin::Connection;
using railyard::plugin::NicRef;
using railyard::plugin::PathAdvisor;
using railyard::plugin::RailPlane;
using railyard::plugin::TcpFlow;
using railyard::routing::ConnectionId;
using railyard::testing::message_text;

namespace {

std::unique_ptr<PathAdvisor> advisor(std::string cluster, std::string model = "crc32",
                                     uint32_t seed = 7) {
  AdvisorOptions o;
  o.cluster = std::move(cluster);
  o.hash_model = std::move(model);
  o.hash_seed = seed;
  auto a = PathAdvisor::create(o);
  REQUIRE_MESSAGE(a.ok(), message_text(a.status()));
  return std::move(*a);
}

NicPort port(int32_t host, int32_t nic, int32_t plane = 0) {
  return {HostId{host}, NicIndex{nic}, PlaneId{plane}};
}

// Linux's rdma_flow_label_to_udp_sport() (include/rdma/ib_verbs.h), written out here
// rather than taken from routing/flow.hpp.
uint16_t sport_of_label(uint32_t fl) {
  return static_cast<uint16_t>(0xC000u | ((fl & 0x3FFFu) ^ ((fl & 0xFC000u) >> 14)));
}

// Usable uplinks of a healthy fabric from the shape alone: every leaf uplink
// when the two ports hang off different leaves, one "uplink" (the host links)
// on one leaf.
int32_t uplinks_closed_form(const topology::ClusterDescriptor<>& d, NicPort a, NicPort b) {
  return d.leaf_of(a) == d.leaf_of(b) ? 1 : d.shape().leaf_up_ports;
}

// Pairs of ports on one plane: same leaf, across a spine (other SU), other rail
// of the same host, and far away.
std::vector<std::pair<NicPort, NicPort>> pairs_of(const topology::ClusterDescriptor<>& d,
                                                  int32_t plane = 0) {
  const int32_t h = d.hosts();
  const int32_t su = d.hosts_per_su();
  std::vector<std::pair<NicPort, NicPort>> out = {
      {port(0, 0, plane), port(1, 0, plane)},                              // one leaf
      {port(3, 5, plane), port(std::min(su + 8, h - 1), 5, plane)},        // another SU
      {port(2, 1, plane), port(2, d.rails() - 1, plane)},                  // same host, other rail
      {port(h - 1, d.rails() - 1, plane), port(0, d.rails() - 1, plane)},  // far
  };
  return out;
}

struct Envelope {  // restores an environment variable on scope exit
  std::string name;
  std::optional<std::string> old;
  explicit Envelope(std::string n) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
  }
  ~Envelope() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("advisor: ports are exactly plan_connection's with min(budget, uplinks) QPs") {
  struct Case {
    const char* cluster;
    const char* model;
  };
  for (const Case& c : {Case{"h100-1024", "crc32"}, Case{"h100-1024-2to1", "crc32c"},
                        Case{"h100-1024", "qp"}, Case{"h100-16k-3tier", "crc32"}}) {
    CAPTURE(c.cluster);
    CAPTURE(c.model);
    const auto adv = advisor(c.cluster, c.model, 11);
    // An independent cluster and model, built from the same spec and names.
    auto cluster = topology::make_cluster(c.cluster);
    REQUIRE(cluster.ok());
    std::unique_ptr<routing::HashModel> model;
    if (std::string(c.model) == "crc32")
      model = std::make_unique<routing::Crc5TupleHash>(11, routing::CrcPolynomial::kCrc32);
    else if (std::string(c.model) == "crc32c")
      model = std::make_unique<routing::Crc5TupleHash>(11, routing::CrcPolynomial::kCrc32c);
    else
      model = std::make_unique<routing::QpAwareHash>(11, routing::CrcPolynomial::kCrc32);
    CHECK(adv->hash_model().name() == model->name());
    for (auto [a, b] : pairs_of(cluster->descriptor)) {
      for (int32_t budget : {1, 3, 8, 16, 32, 64, 300}) {
        CAPTURE(routing::port_name(a));
        CAPTURE(routing::port_name(b));
        CAPTURE(budget);
        const uint32_t qpn = budget % 2 == 0 ? plugin::kDefaultBaseDstQpn : 0x5A5A5u;
        auto conn = adv->connect(a, b, budget, qpn);
        REQUIRE_MESSAGE(conn.ok(), message_text(conn.status()));
        const int32_t m = uplinks_closed_form(cluster->descriptor, a, b);
        const int32_t k = std::min({budget, m, 256});
        CHECK(conn->qps == k);
        CHECK(conn->usable_uplinks == m);
        routing::SprayOptions options;
        options.base_dst_qpn = qpn;
        auto plan = routing::plan_connection(cluster->descriptor, cluster->fabric, a, b, k, *model,
                                             nullptr, options);
        REQUIRE(plan.ok());
        REQUIRE(conn->source_ports.size() == static_cast<size_t>(k));
        for (int32_t i = 0; i < k; ++i) {
          const routing::QpRoute& q = plan->qp[static_cast<size_t>(i)];
          CHECK(conn->source_ports[static_cast<size_t>(i)] == q.sport);
          CHECK(conn->flow_labels[static_cast<size_t>(i)] == q.flow_label);
          CHECK(conn->uplinks[static_cast<size_t>(i)] == q.uplink);
        }
      }
    }
  }
}

TEST_CASE("advisor: distinct RoCEv2 ports per QP, each the port of its flow label") {
  const auto adv = advisor("h100-1024-dualplane", "crc32", 3);
  for (int32_t plane : {0, 1})
    for (auto [a, b] : pairs_of(adv->descriptor(), plane))
      for (int32_t budget : {1, 7, 32, 256}) {
        auto conn = adv->connect(a, b, budget);
        REQUIRE_MESSAGE(conn.ok(), message_text(conn.status()));
        std::set<uint16_t> seen;
        for (size_t i = 0; i < conn->source_ports.size(); ++i) {
          const uint16_t sport = conn->source_ports[i];
          CHECK(sport >= 0xC000);
          CHECK(seen.insert(sport).second);
          CHECK(sport_of_label(conn->flow_labels[i]) == sport);
          CHECK(conn->flow_labels[i] <= 0xFFFFFu);  // 20 bits
        }
      }
}

TEST_CASE("advisor: QPs take min(budget, uplinks) distinct uplinks, steered by their ports") {
  for (const char* cluster : {"h100-1024", "h100-1024-2to1", "h100-1024-tor", "h100-16k-3tier"}) {
    CAPTURE(cluster);
    const auto adv = advisor(cluster, "crc32", 5);
    const topology::ClusterDescriptor<>& d = adv->descriptor();
    const routing::Crc5TupleHash crc(5);  // independent of the advisor's model object
    for (auto [a, b] : pairs_of(d))
      for (int32_t budget : {1, 2, 5, 16, 64, 256}) {
        auto conn = adv->connect(a, b, budget);
        REQUIRE_MESSAGE(conn.ok(), message_text(conn.status()));
        const int32_t m = uplinks_closed_form(d, a, b);
        CHECK(conn->qps == std::min(budget, m));
        std::set<int32_t> distinct(conn->uplinks.begin(), conn->uplinks.end());
        CHECK(static_cast<int32_t>(distinct.size()) == std::min(budget, m));
        CHECK(conn->uplinks_used == std::min(budget, m));
        const std::vector<routing::EcmpHop> hops = routing::ecmp_hops(d, a, b);
        if (d.leaf_of(a) == d.leaf_of(b)) {
          CHECK(conn->qps == 1);
          CHECK(conn->uplinks[0] == -1);
          continue;
        }
        REQUIRE(!hops.empty());
        REQUIRE(hops[0].kind == routing::HopKind::kSrcLeafUp);
        for (int32_t i = 0; i < conn->qps; ++i) {
          // The source leaf's CRC pick for QP i's tuple is the uplink reported.
          const routing::FiveTuple t =
              routing::rocev2_tuple(d, a, b, conn->source_ports[static_cast<size_t>(i)],
                                    plugin::kDefaultBaseDstQpn + static_cast<uint32_t>(i));
          CHECK(crc.pick(hops[0], t) == conn->uplinks[static_cast<size_t>(i)]);
        }
      }
  }
}

TEST_CASE("advisor: lookups return what connect returned, and 0 for unknown ids") {
  const auto adv = advisor("h100-1024");
  CHECK(adv->connections() == 0);
  CHECK(adv->source_port(0u, 0u) == 0);
  auto c0 = adv->connect(port(3, 5), port(40, 5), 16);
  auto c1 = adv->connect(port(3, 5), port(40, 5), 4);
  auto c2 = adv->connect(port(0, 0), port(1, 0), 8);  // one leaf: 1 QP
  REQUIRE(c0.ok());
  REQUIRE(c1.ok());
  REQUIRE(c2.ok());
  CHECK(c0->id == ConnectionId{0});
  CHECK(c1->id == ConnectionId{1});
  CHECK(c2->id == ConnectionId{2});
  CHECK(adv->connections() == 3);
  for (const Connection* c : {&*c0, &*c1, &*c2}) {
    CHECK(adv->qps(c->id) == c->qps);
    for (int32_t q = 0; q < c->qps; ++q) {
      CHECK(adv->source_port(c->id, q) == c->source_ports[static_cast<size_t>(q)]);
      CHECK(adv->flow_label(c->id, q) == c->flow_labels[static_cast<size_t>(q)]);
    }
    CHECK(adv->source_port(c->id, c->qps) == routing::kNoSourcePort);
    CHECK(adv->flow_label(c->id, c->qps) == 0);
    CHECK(adv->source_port(c->id, -1) == routing::kNoSourcePort);
    const std::optional<Connection> again = adv->connection(c->id);
    REQUIRE(again.has_value());
    CHECK(again->source_ports.data() == c->source_ports.data());
  }
  CHECK(adv->source_port(ConnectionId{3}, 0) == 0);
  CHECK(adv->source_port(ConnectionId{-1}, 0) == 0);
  CHECK(adv->qps(ConnectionId{3}) == 0);
  CHECK(!adv->connection(ConnectionId{3}).has_value());
  // The same request again: the same id and arrays, no new connection.
  auto again = adv->connect(port(3, 5), port(40, 5), 16);
  REQUIRE(again.ok());
  CHECK(again->id == c0->id);
  CHECK(again->source_ports.data() == c0->source_ports.data());
  // A budget above 256 is 256; the QPs are the same as for 256.
  auto big = adv->connect(port(3, 5), port(40, 5), 1000);
  auto b256 = adv->connect(port(3, 5), port(40, 5), 256);
  REQUIRE(big.ok());
  REQUIRE(b256.ok());
  CHECK(big->id == b256->id);
  CHECK(big->qps == 32);
  CHECK(adv->connections() == 4);
  CHECK(adv->memory_bytes() > 4 * sizeof(plugin::detail::ConnectionRecord));
  // A NicRef by name resolves to the same ports.
  auto by_name = adv->connect(NicRef{3, -1, -1, "mlx5_5"}, NicRef{40, 5, 0, "mlx5_5"}, 16);
  REQUIRE_MESSAGE(by_name.ok(), message_text(by_name.status()));
  CHECK(by_name->id == c0->id);
}

TEST_CASE("advisor: slot table segments never move and find every published id") {
  plugin::detail::SlotTable table;
  plugin::detail::PortArena arena;
  std::vector<const plugin::detail::ConnectionSlot*> where;
  std::vector<const uint16_t*> ports;
  for (uint32_t i = 0; i < 5000; ++i) {
    CHECK(table.find(i) == nullptr);
    const std::vector<uint16_t> p(1 + i % 256, static_cast<uint16_t>(i));
    ports.push_back(arena.add(p));
    table.prepare_append();
    CHECK(table.append({ports.back(), static_cast<uint32_t>(p.size())}) == i);
    where.push_back(table.find(i));
  }
  CHECK(table.size() == 5000);
  for (uint32_t i = 0; i < 5000; ++i) {
    CHECK(table.find(i) == where[i]);  // never moved
    CHECK(table.find(i)->source_ports == ports[i]);
    CHECK(table.find(i)->qps == 1 + i % 256);
    CHECK(ports[i][0] == static_cast<uint16_t>(i));  // nothing overwritten
    CHECK(ports[i][i % 256] == static_cast<uint16_t>(i));
  }
  CHECK(table.find(5000) == nullptr);
  // Segments of 64, 128, 256, ... slots: ids 0..5000 fill segments 0..6.
  CHECK(table.memory_bytes() ==
        (64u + 128 + 256 + 512 + 1024 + 2048 + 4096) * sizeof(plugin::detail::ConnectionSlot));
  CHECK(sizeof(plugin::detail::ConnectionSlot) == 16);
}

TEST_CASE("advisor: rail and plane of every NIC agree with nccl_xml (h100-1024-dualplane)") {
  const auto adv = advisor("h100-1024-dualplane");
  const topology::ClusterDescriptor<>& d = adv->descriptor();
  REQUIRE(d.planes() == 2);
  int64_t nets = 0;
  for (int32_t host : {0, 1, 77, d.hosts() - 1}) {
    auto xml = exports::nccl_topology_xml(d, {.host = host});
    REQUIRE(xml.ok());
    auto doc = test::parse_xml(*xml);
    REQUIRE_MESSAGE(doc.ok, doc.error);
    // Every <pci busid> whose <nic> holds <net name port rail plane>.
    std::vector<const test::XmlElement*> stack = {&doc.root};
    while (!stack.empty()) {
      const test::XmlElement* e = stack.back();
      stack.pop_back();
      for (const test::XmlElement& child : e->children) stack.push_back(&child);
      if (e->name != "pci") continue;
      for (const test::XmlElement* nic : e->all("nic"))
        for (const test::XmlElement* net : nic->all("net")) {
          ++nets;
          const std::string name = *net->attr("name");
          const std::string busid = *e->attr("busid");
          const int32_t port_no = std::stoi(*net->attr("port"));
          const RailPlane want{RailId{std::stoi(*net->attr("rail"))},
                               PlaneId{std::stoi(*net->attr("plane"))}};
          CAPTURE(name);
          CAPTURE(busid);
          auto by_name = adv->rail_plane(name);
          REQUIRE_MESSAGE(by_name.ok(), message_text(by_name.status()));
          CHECK(*by_name == want);
          auto by_name_port = adv->rail_plane(name, port_no);
          REQUIRE(by_name_port.ok());
          CHECK(*by_name_port == want);
          auto with_suffix = adv->rail_plane(name + ":" + std::to_string(port_no));
          REQUIRE(with_suffix.ok());
          CHECK(*with_suffix == want);
          auto by_pci = adv->rail_plane(busid, port_no);
          REQUIRE_MESSAGE(by_pci.ok(), message_text(by_pci.status()));
          CHECK(*by_pci == want);
          auto by_path = adv->rail_plane("/sys/devices/pci0000:00/0000:00:01.0/" + busid, port_no);
          REQUIRE(by_path.ok());
          CHECK(*by_path == want);
          // A PCI function is the whole dual-port NIC: the port must be given.
          auto no_port = adv->rail_plane(busid);
          CHECK(no_port.status().code() == absl::StatusCode::kInvalidArgument);
          CHECK(message_text(no_port.status()).find("port=0") == 0);
          // NicRef by name resolves to the same port, and the name round-trips.
          auto p = adv->resolve(NicRef{host, -1, -1, name});
          REQUIRE(p.ok());
          CHECK(*p == NicPort{HostId{host}, NicIndex{want.rail.value()}, want.plane});
          CHECK(adv->nic_name(*p) == name);
          CHECK(adv->nic_busid(p->nic) == busid);
          auto pci_ref = adv->resolve(NicRef{host, -1, want.plane.value(), busid});
          REQUIRE(pci_ref.ok());
          CHECK(*pci_ref == *p);
        }
    }
  }
  CHECK(nets == 4 * int64_t{d.nics_per_host()} * d.planes());
}

TEST_CASE("advisor: PCI names on single-plane NICs and real bus ids") {
  const auto adv = advisor("h100-1024");
  auto xml = exports::nccl_topology_xml(adv->descriptor(), {.host = 5});
  REQUIRE(xml.ok());
  for (int32_t nic = 0; nic < adv->descriptor().nics_per_host(); ++nic) {
    const std::string busid(adv->nic_busid(NicIndex{nic}));
    CHECK(xml->find(str_cat("busid=\"", busid, "\"")) != std::string::npos);
    auto rp = adv->rail_plane(busid);
    REQUIRE(rp.ok());
    CHECK(*rp == RailPlane{RailId{nic}, PlaneId{0}});
    std::string upper = busid;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    CHECK(adv->rail_plane(upper).ok());
    CHECK(adv->rail_plane(busid.substr(5)).ok());  // bb:dd.f
  }
  AdvisorOptions o;
  o.cluster = "rail_fat_tree:hosts=32,nics_per_host=2,gpus_per_host=2";
  o.nic_busids = {"0000:1A:00.0", "0000:9c:00.0"};
  auto real = PathAdvisor::create(o);
  REQUIRE_MESSAGE(real.ok(), message_text(real.status()));
  auto rp = (*real)->rail_plane("/sys/devices/pci0000:98/0000:98:02.0/0000:9c:00.0");
  REQUIRE(rp.ok());
  CHECK(*rp == RailPlane{RailId{1}, PlaneId{0}});
  CHECK((*real)->nic_busid(NicIndex{0}) == "0000:1a:00.0");
  CHECK((*real)->rail_plane("0000:12:00.0").status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("advisor: errors name the field and the value") {
  const auto adv = advisor("h100-1024-dualplane");
  auto err = [](const auto& r) { return message_text(r.status()); };
  CHECK(err(adv->connect(port(128, 0), port(1, 0), 4)).find("local.host=128") == 0);
  CHECK(err(adv->connect(port(0, 0), port(-1, 0), 4)).find("remote.host=-1") == 0);
  CHECK(err(adv->connect(port(0, 8), port(1, 0), 4)).find("local.rail=8") == 0);
  CHECK(err(adv->connect(port(0, 0), port(1, 0, 2), 4)).find("remote.plane=2") == 0);
  CHECK(err(adv->connect(port(0, 0), port(40, 0), 0)).find("qp_budget=0") == 0);
  CHECK(err(adv->connect(port(0, 0), port(40, 0), -3)).find("qp_budget=-3") == 0);
  CHECK(err(adv->connect(port(0, 0), port(40, 0), 4, 1u << 24)).find("base_dst_qpn=16777216") == 0);
  CHECK(err(adv->connect(port(0, 0), port(0, 0), 4)).find("remote=host0.nic0.p0") == 0);
  CHECK(err(adv->connect(port(0, 0, 0), port(40, 0, 1), 4)).find("remote.plane=1") == 0);
  const auto railonly = advisor("h100-1024-railonly");
  CHECK(err(railonly->connect(port(0, 0), port(40, 3), 4)).find("remote.rail=3") == 0);
  // NicRef fields.
  CHECK(err(adv->resolve(NicRef{0, -1, -1, ""}, "local")).find("local.rail=-1") == 0);
  CHECK(err(adv->resolve(NicRef{0, 2, -1, ""}, "local")).find("local.plane=-1") == 0);
  CHECK(err(adv->resolve(NicRef{0, 9, 0, ""}, "local")).find("local.rail=9") == 0);
  CHECK(err(adv->resolve(NicRef{0, 2, 0, "mlx5_6"}, "remote")).find("remote.rail=2") == 0);
  CHECK(err(adv->resolve(NicRef{0, 3, 0, "mlx5_7"}, "remote")).find("remote.plane=0") == 0);
  CHECK(err(adv->resolve(NicRef{0, -1, -1, "0000:12:00.0"}, "remote")).find("remote.plane=-1") ==
        0);
  CHECK(err(adv->resolve(NicRef{0, -1, -1, "eth0"}, "local"))
            .find("local.name_or_pci=eth0: neither a device name") == 0);
  CHECK(err(adv->connect(NicRef{0, -1, -1, "mlx5_99"}, NicRef{1, 0, 0}, 4))
            .find("local.name_or_pci=mlx5_99: no such NIC port") == 0);
  // Names.
  CHECK(adv->rail_plane("mlx5_16").status().code() == absl::StatusCode::kNotFound);
  CHECK(err(adv->rail_plane("mlx5_x")).find("nic_name_or_pci=mlx5_x") == 0);
  CHECK(err(adv->rail_plane("mlx5_3:1")).find("nic_name_or_pci=mlx5_3:1") == 0);  // port 2
  CHECK(err(adv->rail_plane("mlx5_3", 1)).find("port=1") == 0);
  CHECK(err(adv->rail_plane("mlx5_3", 3)).find("port=3") == 0);
  CHECK(err(adv->rail_plane("0000:99:00.0", 1)).find("nic_name_or_pci=0000:99:00.0") == 0);
  CHECK(err(adv->rail_plane("12:00")).find("nic_name_or_pci=12:00") == 0);
  // Create.
  AdvisorOptions o;
  o.cluster = "h100-1024";
  o.hash_model = "random";
  CHECK(err(PathAdvisor::create(o)).find("hash_model=random") == 0);
  o.hash_model = "crc32";
  o.nic_busids = {"0000:12:00.0"};
  CHECK(err(PathAdvisor::create(o)).find("nic_busids=0000:12:00.0") == 0);
  o.nic_busids = {"0000:12:00.0", "a", "b", "c", "d", "e", "f", "g"};
  CHECK(err(PathAdvisor::create(o)).find("nic_busids[1]=a") == 0);
  o.nic_busids.clear();
  o.cluster = "rail_fat_tree:hosts=0";
  CHECK(err(PathAdvisor::create(o)).find("cluster 'rail_fat_tree:hosts=0': hosts=0") == 0);
}

TEST_CASE("advisor: the cluster comes from RAILYARD_CLUSTER or RAILYARD_CLUSTER_FILE") {
  const Envelope e1("RAILYARD_CLUSTER");
  const Envelope e2("RAILYARD_CLUSTER_FILE");
  unsetenv("RAILYARD_CLUSTER");
  unsetenv("RAILYARD_CLUSTER_FILE");
  auto none = PathAdvisor::create();
  REQUIRE(!none.ok());
  CHECK(message_text(none.status()).find("RAILYARD_CLUSTER") != std::string::npos);

  setenv("RAILYARD_CLUSTER", "h100-1024-tor", 1);
  auto from_env = PathAdvisor::create();
  REQUIRE_MESSAGE(from_env.ok(), message_text(from_env.status()));
  CHECK((*from_env)->descriptor().kind() == topology::Kind::kTorFatTree);

  unsetenv("RAILYARD_CLUSTER");
  const std::string path = "advisor_test_cluster.txt";
  {
    std::ofstream f(path);
    f << "# the test cluster\n\n  rail_fat_tree:hosts=64,planes=2  # two planes\n";
  }
  setenv("RAILYARD_CLUSTER_FILE", path.c_str(), 1);
  auto from_file = PathAdvisor::create();
  REQUIRE_MESSAGE(from_file.ok(), message_text(from_file.status()));
  CHECK((*from_file)->descriptor().hosts() == 64);
  CHECK((*from_file)->descriptor().planes() == 2);
  {
    std::ofstream f(path);
    f << "h100-1024\nh100-1024-tor\n";
  }
  auto two = PathAdvisor::create();
  REQUIRE(!two.ok());
  CHECK(message_text(two.status()).find("line 2 'h100-1024-tor'") != std::string::npos);
  std::remove(path.c_str());
  auto missing = PathAdvisor::create();
  REQUIRE(!missing.ok());
  CHECK(message_text(missing.status())
            .find("RAILYARD_CLUSTER_FILE=advisor_test_cluster.txt: cannot open") == 0);
  // An explicit spec wins over the environment.
  setenv("RAILYARD_CLUSTER", "not-a-cluster", 1);
  AdvisorOptions o;
  o.cluster = "h100-1024";
  CHECK(PathAdvisor::create(o).ok());
}

TEST_CASE("advisor: lock-free lookups while other threads connect") {
  const auto adv = advisor("h100-1024", "crc32", 9);
  const topology::ClusterDescriptor<>& d = adv->descriptor();
  // 2 writers x 320 requests over 3 segments of the table; the two writers
  // make the same requests in different orders, so some publish races happen.
  std::vector<std::pair<NicPort, NicPort>> requests;
  for (int32_t i = 0; i < 320; ++i)
    requests.push_back(
        {port(i % d.hosts(), i % 8), port((i + 1 + i * 37 % 127) % d.hosts(), i % 8)});
  std::atomic<bool> done{false};
  std::atomic<int64_t> checked{0};
  std::atomic<int64_t> bad{0};
  // Only lock-free calls while the writers run (connection() takes the mutex
  // and would order the reads); samples are compared with the plans after.
  struct Sample {
    int32_t id;
    int32_t qp;
    uint16_t sport;
  };
  std::vector<std::vector<Sample>> samples(3);
  auto reader = [&](size_t which) {
    int64_t n = 0;
    uint32_t q = 0;
    std::vector<Sample>& mine = samples[which];
    while (!done.load(std::memory_order_acquire) || n == 0) {
      const int32_t count = adv->connections();
      for (int32_t c = 0; c < count; ++c, ++q) {
        const ConnectionId id{c};
        const int32_t k = adv->qps(id);
        if (k < 1 || k > 9) {
          ++bad;
          continue;
        }
        const auto qp = static_cast<int32_t>(q % static_cast<uint32_t>(k));
        const uint16_t sport = adv->source_port(id, qp);
        if (sport < 0xC000 || sport_of_label(adv->flow_label(id, qp)) != sport) ++bad;
        if (q % 16 == 0 && mine.size() < 200000) mine.push_back({c, qp, sport});
        ++n;
      }
      if (adv->source_port(ConnectionId{count + 1000}, 0) != 0) ++bad;
    }
    checked += n;
  };
  std::vector<std::vector<ConnectionId>> ids(2);
  auto writer = [&](int which) {
    for (size_t r = 0; r < requests.size(); ++r) {
      const size_t i = which == 0 ? r : requests.size() - 1 - r;
      auto c = adv->connect(requests[i].first, requests[i].second, 1 + static_cast<int32_t>(i % 9));
      if (!c.ok()) {
        ++bad;
        continue;
      }
      ids[static_cast<size_t>(which)].push_back(c->id);
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 3; ++t) threads.emplace_back(reader, t);
  std::thread w0(writer, 0);
  std::thread w1(writer, 1);
  w0.join();
  w1.join();
  done.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();
  CHECK(bad.load() == 0);
  CHECK(checked.load() > 0);
  for (const std::vector<Sample>& mine : samples)
    for (const Sample& x : mine) {
      const std::optional<Connection> conn = adv->connection(ConnectionId{x.id});
      REQUIRE(conn.has_value());
      CHECK(conn->source_ports[static_cast<size_t>(x.qp)] == x.sport);
    }
  // Both writers got the same id for the same request; ids are dense.
  REQUIRE(ids[0].size() == requests.size());
  REQUIRE(ids[1].size() == requests.size());
  std::set<int32_t> all;
  for (size_t i = 0; i < requests.size(); ++i) {
    CHECK(ids[0][i] == ids[1][requests.size() - 1 - i]);
    all.insert(ids[0][i].value());
  }
  CHECK(static_cast<int32_t>(all.size()) == adv->connections());
  CHECK(*all.rbegin() == adv->connections() - 1);
}

// ---- the C API, from C++ (advisor_c_test.c covers it from C) ----------------

TEST_CASE("advisor: C API returns codes and messages, never throws") {
  struct Log {
    int warnings = 0;
    int infos = 0;
    std::string last;
  } log;
  railyard_advisor_options o = {};
  o.cluster = "h100-1024-dualplane";
  o.hash_model = "crc32c";
  o.hash_seed = 4;
  o.log = [](void* user, int level, const char* message) {
    auto* l = static_cast<Log*>(user);
    (level == 2 ? l->warnings : l->infos) += 1;
    l->last = message;
  };
  o.log_user = &log;
  char err[64] = "x";
  railyard_advisor* a = railyard_advisor_create_ex(&o, err, sizeof err);
  REQUIRE(a != nullptr);
  CHECK(std::string(err).empty());
  CHECK(log.infos == 1);
  CHECK(log.last.find("hash crc32c seed 4") != std::string::npos);

  railyard_conn_plan plan;
  const railyard_nic_id local = {3, -1, -1, "mlx5_11"};  // rail 5, plane 1
  const railyard_nic_id remote = {40, 5, 1, nullptr};
  REQUIRE(railyard_advisor_connect(a, &local, &remote, 8, &plan) == RAILYARD_ADVISOR_OK);
  CHECK(plan.error[0] == '\0');
  CHECK(plan.qps == 8);
  CHECK(plan.uplinks_used == 8);
  CHECK(plan.local.rail == 5);
  CHECK(plan.local.plane == 1);
  CHECK(plan.local.name_or_pci == nullptr);
  CHECK(plan.remote.host == 40);
  CHECK(railyard_advisor_connections(a) == 1);
  CHECK(railyard_advisor_qps(a, plan.connection) == 8);
  for (uint32_t q = 0; q < 8; ++q) {
    CHECK(railyard_advisor_source_port(a, plan.connection, q) == plan.source_port[q]);
    CHECK(railyard_advisor_flow_label(a, plan.connection, q) == plan.flow_label[q]);
  }
  CHECK(plan.source_port[8] == 0);  // the rest is zeroed
  CHECK(railyard_advisor_source_port(a, plan.connection, 8) == 0);
  CHECK(railyard_advisor_source_port(a, 99, 0) == 0);
  CHECK(railyard_advisor_source_port(nullptr, 0, 0) == 0);
  CHECK(railyard_advisor_flow_label(nullptr, 0, 0) == 0);
  CHECK(railyard_advisor_qps(nullptr, 0) == 0);

  int rail = -7;
  int plane = -7;
  CHECK(railyard_advisor_rail_plane(a, "mlx5_11", &rail, &plane) == RAILYARD_ADVISOR_OK);
  CHECK(rail == 5);
  CHECK(plane == 1);
  CHECK(railyard_advisor_rail_plane_port(a, "0000:21:00.0", 2, &rail, &plane) ==
        RAILYARD_ADVISOR_OK);
  CHECK(rail == 5);
  CHECK(plane == 1);

  // Errors: code, per-thread message, out->error, log; outputs untouched.
  rail = plane = -7;
  CHECK(railyard_advisor_rail_plane(a, "mlx5_99", &rail, &plane) == RAILYARD_ADVISOR_ENOTFOUND);
  CHECK(rail == -7);
  CHECK(std::string(railyard_advisor_last_error()).find("nic_name_or_pci=mlx5_99") == 0);
  CHECK(railyard_advisor_rail_plane(a, nullptr, &rail, &plane) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(railyard_advisor_last_error()) == "nic_name_or_pci=(null): required");
  CHECK(railyard_advisor_rail_plane(a, "mlx5_1", nullptr, &plane) == RAILYARD_ADVISOR_EINVAL);
  CHECK(railyard_advisor_rail_plane(nullptr, "mlx5_1", &rail, &plane) == RAILYARD_ADVISOR_EINVAL);
  const int warnings = log.warnings;
  const railyard_nic_id bad_host = {500, 0, 0, nullptr};
  CHECK(railyard_advisor_connect(a, &bad_host, &remote, 8, &plan) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(plan.error) == "local.host=500: out of range [0, 128)");
  CHECK(std::string(railyard_advisor_last_error()) == plan.error);
  CHECK(plan.qps == 0);
  CHECK(log.warnings == warnings + 1);
  CHECK(log.last == plan.error);
  CHECK(railyard_advisor_connect(a, &local, &remote, 0, &plan) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(plan.error).find("qp_budget=0") == 0);
  CHECK(railyard_advisor_connect(a, nullptr, &remote, 4, &plan) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(plan.error) == "local=(null): required");
  CHECK(railyard_advisor_connect(a, &local, &remote, 4, nullptr) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(railyard_advisor_last_error()) == "out=(null): required");
  CHECK(railyard_advisor_connect(nullptr, &local, &remote, 4, &plan) == RAILYARD_ADVISOR_EINVAL);
  const railyard_nic_id pci_no_plane = {1, -1, -1, "0000:21:00.0"};
  CHECK(railyard_advisor_connect(a, &pci_no_plane, &remote, 4, &plan) == RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(plan.error).find("local.plane=-1") == 0);
  CHECK(railyard_advisor_connect_ex(a, &local, &remote, 4, 1u << 24, &plan) ==
        RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(plan.error).find("base_dst_qpn=16777216") == 0);
  railyard_advisor_destroy(a);
  railyard_advisor_destroy(nullptr);

  // Create errors: truncated into err, NULL back.
  CHECK(railyard_advisor_create("h100-1024", "nope", 0, err, sizeof err) == nullptr);
  const std::string full =
      "hash_model=nope: unknown; expected crc32, crc32c, qp (= crc32+qp) or crc32c+qp";
  CHECK(std::string(err) == full.substr(0, sizeof err - 1));
  CHECK(std::string(railyard_advisor_last_error()).find("hash_model=nope") == 0);
  CHECK(railyard_advisor_create("bogus", nullptr, 0, nullptr, 0) == nullptr);
  CHECK(std::string(railyard_advisor_last_error()).find("cluster 'bogus'") == 0);
  CHECK(railyard_advisor_create_ex(nullptr, err, sizeof err) == nullptr);
  CHECK(std::string(err) == "options=(null): required");
  const char* ids[] = {"0000:12:00.0", nullptr};
  o.nic_busids = ids;
  o.nic_busid_count = 2;
  o.log = nullptr;
  CHECK(railyard_advisor_create_ex(&o, err, sizeof err) == nullptr);
  CHECK(std::string(err) == "nic_busids[1]=(null): not a PCI bus id dddd:bb:dd.f");
  CHECK(std::string(railyard_advisor_strerror(RAILYARD_ADVISOR_ENOTFOUND)) == "no such NIC");
  CHECK(std::string(railyard_advisor_strerror(42)) == "unknown status");
}

TEST_CASE("advisor: the C per-thread message is per thread") {
  int rail = 0;
  int plane = 0;
  CHECK(railyard_advisor_rail_plane(nullptr, "x", &rail, &plane) == RAILYARD_ADVISOR_EINVAL);
  std::string other;
  std::thread t([&] { other = railyard_advisor_last_error(); });
  t.join();
  CHECK(other.empty());
  CHECK(std::string(railyard_advisor_last_error()) == "advisor=(null): required");
}

// ---- both ends of a connection (endpoints, agreed QP counts, real QPNs) ----

TEST_CASE("advisor: every port's endpoint round-trips through a handle, and other clusters refuse it") {
  const char* spec = "rail_fat_tree:hosts=8,hosts_per_su=4,planes=2,nic_gbps=200";
  const auto adv = advisor(spec, "crc32", 9);
  const auto twin = advisor(spec, "crc32", 9);  // built apart, as on another rank
  CHECK(adv->digest() == twin->digest());
  const topology::ClusterDescriptor<>& d = adv->descriptor();
  std::array<std::byte, 128> handle{};
  int32_t checked = 0;
  for (int32_t h = 0; h < d.hosts(); ++h)
    for (int32_t r = 0; r < d.rails(); ++r)
      for (int32_t p = 0; p < d.planes(); ++p) {
        const NicPort at = port(h, r, p);
        const int32_t budget = 1 + (h * 7 + r * 3 + p) % 300;
        std::fill(handle.begin(), handle.end(), std::byte{0xEE});
        REQUIRE(adv->encode_endpoint(at, budget, std::span(handle).subspan(50)).ok());
        CHECK(handle[49] == std::byte{0xEE});  // nothing written outside its 32 bytes
        CHECK(handle[82] == std::byte{0xEE});
        auto e = twin->decode_endpoint(std::span<const std::byte>(handle).subspan(50));
        REQUIRE_MESSAGE(e.ok(), message_text(e.status()));
        CHECK(e->port == at);
        CHECK(e->qp_budget == budget);
        ++checked;
      }
  CHECK(checked == d.hosts() * d.rails() * d.planes());

  // The layout is the documented one: magic, format 1, the digest, then ints.
  REQUIRE(adv->encode_endpoint(port(5, 3, 1), 12, handle).ok());
  const auto byte = [&](size_t i) { return std::to_integer<uint32_t>(handle[i]); };
  CHECK(std::string{char(byte(0)), char(byte(1)), char(byte(2)), char(byte(3))} == "RYEP");
  CHECK((byte(4) | byte(5) << 8) == 1);
  uint64_t digest = 0;
  for (size_t i = 0; i < 8; ++i) digest |= uint64_t{byte(8 + i)} << (8 * i);
  CHECK(digest == adv->digest());
  CHECK((byte(16) | byte(17) << 8) == 5);
  CHECK(byte(20) == 3);
  CHECK(byte(24) == 1);
  CHECK(byte(28) == 12);

  // A rank that differs in anything its plans depend on refuses the handle.
  for (const auto& other :
       {advisor(spec, "crc32", 10), advisor(spec, "crc32c", 9),
        advisor("rail_fat_tree:hosts=8,hosts_per_su=4,planes=2,nic_gbps=400", "crc32", 9),
        advisor("rail_fat_tree:hosts=8,hosts_per_su=4,planes=2,nic_gbps=200,oversub=2", "crc32",
                9)}) {
    CHECK(other->digest() != adv->digest());
    auto e = other->decode_endpoint(handle);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == absl::StatusCode::kAborted);
    const std::string text = message_text(e.status());
    CHECK(text.find("endpoint.digest=" + plugin::detail::hex64(adv->digest())) == 0);
    CHECK(text.find(plugin::detail::hex64(other->digest())) != std::string::npos);
  }
  // Real bus ids are each host's own: they do not change the digest.
  AdvisorOptions with_busids;
  with_busids.cluster = spec;
  with_busids.hash_seed = 9;
  for (int32_t i = 0; i < d.nics_per_host(); ++i)
    with_busids.nic_busids.push_back(str_cat("0000:", 0x10 + i, ":00.0"));
  auto busids = PathAdvisor::create(with_busids);
  REQUIRE(busids.ok());
  CHECK((*busids)->digest() == adv->digest());

  // Malformed bytes: named, never read past the span.
  auto short_one = adv->decode_endpoint(std::span<const std::byte>(handle).first(31));
  CHECK(message_text(short_one.status()) == "endpoint=31 bytes: an endpoint is 32 bytes");
  std::array<std::byte, 32> bad{};
  std::copy_n(handle.begin(), 32, bad.begin());
  bad[1] = std::byte{'X'};
  CHECK(message_text(adv->decode_endpoint(bad).status()).find("not a railyard endpoint") !=
        std::string::npos);
  std::copy_n(handle.begin(), 32, bad.begin());
  bad[4] = std::byte{2};
  CHECK(adv->decode_endpoint(bad).status().code() == absl::StatusCode::kAborted);
  CHECK(message_text(adv->decode_endpoint(bad).status()).find("endpoint.format=2") == 0);
  std::copy_n(handle.begin(), 32, bad.begin());
  bad[16] = std::byte{8};  // host 8 of 8
  CHECK(message_text(adv->decode_endpoint(bad).status()).find("endpoint.host=8") == 0);
  std::copy_n(handle.begin(), 32, bad.begin());
  bad[28] = std::byte{0};  // budget 0
  CHECK(message_text(adv->decode_endpoint(bad).status()).find("endpoint.qp_budget=0") == 0);
  CHECK(message_text(adv->encode_endpoint(port(0, 0), 4, std::span(handle).first(31))) ==
        "out=31 bytes: an endpoint needs 32");
  CHECK(message_text(adv->encode_endpoint(port(0, 0), 0, handle)).find("qp_budget=0") == 0);
}

TEST_CASE("advisor: both ends derive one QP count, and each end's connect gets exactly it") {
  for (const char* cluster : {"h100-1024-2to1", "h100-16k-3tier", "rail_fat_tree:hosts=100",
                              "h100-1024-tor"}) {
    CAPTURE(cluster);
    const auto adv = advisor(cluster, "crc32", 4);
    const topology::ClusterDescriptor<>& d = adv->descriptor();
    uint64_t state = 0x9E3779B97F4A7C15ull;
    const auto next = [&state](int32_t n) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<int32_t>((state >> 33) % static_cast<uint64_t>(n));
    };
    int32_t one_leaf = 0;
    for (int32_t trial = 0; trial < testing::cases(120); ++trial) {
      const NicPort a = port(next(d.hosts()), next(d.rails()));
      NicPort b = port(next(d.hosts()), a.nic.value());
      if (b == a) b = port((a.host.value() + 1) % d.hosts(), a.nic.value());
      const int32_t budget_a = 1 + next(300);
      const int32_t budget_b = 1 + next(300);
      CAPTURE(routing::port_name(a));
      CAPTURE(routing::port_name(b));
      auto ab = adv->agreed_qps({a, budget_a}, {b, budget_b});
      auto ba = adv->agreed_qps({b, budget_b}, {a, budget_a});
      REQUIRE_MESSAGE(ab.ok(), message_text(ab.status()));
      REQUIRE(ba.ok());
      CHECK(*ab == *ba);
      // Closed form from the shape: every leaf uplink between leaves, 1 on one.
      const int32_t m = std::min(uplinks_closed_form(d, a, b), uplinks_closed_form(d, b, a));
      CHECK(*ab == std::min({budget_a, budget_b, 256, m}));
      one_leaf += d.leaf_of(a) == d.leaf_of(b) ? 1 : 0;
      auto there = adv->connect(a, b, *ab);
      auto back = adv->connect(b, a, *ab);
      REQUIRE(there.ok());
      REQUIRE(back.ok());
      CHECK(there->qps == *ab);
      CHECK(back->qps == *ab);
    }
    CHECK(one_leaf < testing::cases(120));  // the sweep crossed leaves
  }
  const auto adv = advisor("h100-1024");
  CHECK(message_text(adv->agreed_qps({port(0, 0), 0}, {port(1, 0), 4}).status()) ==
        "budget_a=0: must be >= 1");
  CHECK(message_text(adv->agreed_qps({port(0, 0), 2}, {port(0, 0), 4}).status())
            .find("remote=") == 0);
  CHECK(message_text(adv->agreed_qps({port(0, 0), 2}, {port(128, 0), 4}).status()) ==
        "b.host=128: out of range [0, 128)");
}

TEST_CASE("advisor: the QP numbers ibv_create_qp gave steer QP-aware hashes, where base + i would not") {
  const auto adv = advisor("h100-1024", "qp", 21);
  const topology::ClusterDescriptor<>& d = adv->descriptor();
  const routing::QpAwareHash qp_hash(21, routing::CrcPolynomial::kCrc32);  // independent object
  uint64_t state = 12345;
  int32_t control_collisions = 0;
  for (int32_t trial = 0; trial < 12; ++trial) {
    const NicPort a = port(trial, trial % 8);
    const NicPort b = port(127 - trial, trial % 8);  // another SU: every leaf uplink
    const int32_t m = uplinks_closed_form(d, a, b);
    REQUIRE(m > 1);
    std::vector<uint32_t> qpns;
    for (int32_t i = 0; i < m; ++i) {  // scattered 24-bit numbers, as a NIC hands them out
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      qpns.push_back(static_cast<uint32_t>(state >> 40) & 0xFFFFFFu);
    }
    auto conn = adv->connect_to_qpns(a, b, qpns);
    REQUIRE_MESSAGE(conn.ok(), message_text(conn.status()));
    REQUIRE(conn->qps == m);
    const std::vector<routing::EcmpHop> hops = routing::ecmp_hops(d, a, b);
    REQUIRE(hops[0].kind == routing::HopKind::kSrcLeafUp);
    std::set<int32_t> hit;
    for (int32_t i = 0; i < m; ++i) {
      const routing::FiveTuple t = routing::rocev2_tuple(
          d, a, b, conn->source_ports[static_cast<size_t>(i)], qpns[static_cast<size_t>(i)]);
      const int32_t up = qp_hash.pick(hops[0], t);
      CHECK(up == conn->uplinks[static_cast<size_t>(i)]);
      hit.insert(up);
    }
    CHECK(static_cast<int32_t>(hit.size()) == m);  // every uplink once
    // Control: ports planned for destination QPs base + i, sent to the real ones.
    auto assumed = adv->connect(a, b, m);
    REQUIRE(assumed.ok());
    std::set<int32_t> assumed_hit;
    for (int32_t i = 0; i < m; ++i)
      assumed_hit.insert(qp_hash.pick(
          hops[0], routing::rocev2_tuple(d, a, b, assumed->source_ports[static_cast<size_t>(i)],
                                         qpns[static_cast<size_t>(i)])));
    control_collisions += static_cast<int32_t>(assumed_hit.size()) < m ? 1 : 0;
  }
  CHECK(control_collisions >= 6);  // consecutive numbers assumed: QPs collide
  std::vector<uint32_t> bad = {1, 0x1000000u};
  CHECK(message_text(adv->connect_to_qpns(port(0, 0), port(64, 0), bad).status()) ==
        "dst_qpns[1]=16777216: must be < 2^24 (a 24-bit QP number)");
  CHECK(message_text(adv->connect_to_qpns(port(0, 0), port(64, 0), {}).status()) ==
        "dst_qpns=0 QP numbers: give 1 to 256");
}

namespace {

// A sysfs tree as the kernel lays it out, in a fresh directory: class/<cls>/<name>/device
// links to ../../../devices/pci0000:00/<bus id> (a dangling link is all readlink needs).
struct FakeSysfs {
  std::filesystem::path root;
  FakeSysfs() {
    root = std::filesystem::temp_directory_path() /
           str_cat("railyard-sysfs-", ::getpid(), "-", reinterpret_cast<uintptr_t>(this));
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "class" / "infiniband");
    std::filesystem::create_directories(root / "class" / "net" / "lo");  // virtual: no device
  }
  ~FakeSysfs() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  void add(const std::string& cls, const std::string& name, const std::string& busid) const {
    const std::filesystem::path dir = root / "class" / cls / name;
    std::filesystem::create_directories(dir);
    std::filesystem::create_symlink("../../../devices/pci0000:00/" + busid, dir / "device");
  }
  // A GID table entry, as the kernel writes it (8 groups of 4 hex digits).
  void add_gid(const std::string& dev, int port, int index, const std::string& gid) const {
    const std::filesystem::path dir =
        root / "class" / "infiniband" / dev / "ports" / std::to_string(port) / "gids";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / std::to_string(index)) << gid << "\n";
  }
};

}  // namespace

TEST_CASE("advisor: the local NIC from sysfs, as a plugin names it") {
  const auto adv = advisor("h100-1024");
  // Eight NICs whose kernel names do not follow PCI order.
  const std::vector<std::string> busids = {"0000:9a:00.0", "0000:18:00.0", "0000:dc:00.0",
                                           "0000:3a:00.0", "0000:ba:00.0", "0000:4c:00.0",
                                           "0000:5d:00.0", "0000:cc:00.0"};
  FakeSysfs sys;
  for (size_t k = 0; k < busids.size(); ++k) {
    sys.add("infiniband", str_cat("mlx5_", k), busids[k]);
    sys.add("net", str_cat("ens", 100 + k, "np0"), busids[k]);
  }
  sys.add("net", "bond0", "0000:9a:00.0");  // a second netdev on one function counts once
  std::vector<std::string> sorted = busids;
  std::sort(sorted.begin(), sorted.end());  // brute force: rail = position in bus-id order
  const std::string root = sys.root.string();
  for (size_t k = 0; k < busids.size(); ++k) {
    const auto rail = static_cast<int32_t>(
        std::find(sorted.begin(), sorted.end(), busids[k]) - sorted.begin());
    for (const std::string& name : {str_cat("mlx5_", k), str_cat("ens", 100 + k, "np0")}) {
      CAPTURE(name);
      auto ports = adv->local_nics(17, name, 0, root);
      REQUIRE_MESSAGE(ports.ok(), message_text(ports.status()));
      REQUIRE(ports->size() == 1);
      CHECK((*ports)[0] == port(17, rail, 0));
    }
  }
  auto merged = adv->local_nics(3, "mlx5_2+mlx5_1", 1, root);
  REQUIRE(merged.ok());
  CHECK(*merged == std::vector<NicPort>{port(3, 7, 0), port(3, 0, 0)});

  // The host's real bus ids, when given, decide instead of the order.
  AdvisorOptions o;
  o.cluster = "h100-1024";
  o.nic_busids = busids;  // rail k = busids[k], not PCI order
  auto given = PathAdvisor::create(o);
  REQUIRE(given.ok());
  for (size_t k = 0; k < busids.size(); ++k) {
    auto ports = (*given)->local_nics(0, str_cat("ens", 100 + k, "np0"), 0, root);
    REQUIRE(ports.ok());
    CHECK((*ports)[0] == port(0, static_cast<int32_t>(k), 0));
  }

  // Errors name the field, the value and the paths read.
  CHECK(message_text(adv->local_nics(0, "mlx5_9", 0, root).status()) ==
        str_cat("device=mlx5_9: no such RDMA device or netdev (", root,
                "/class/infiniband/mlx5_9/device, ", root, "/class/net/mlx5_9/device)"));
  CHECK(message_text(adv->local_nics(0, "lo", 0, root).status()).find("device=lo: no such") == 0);
  CHECK(message_text(adv->local_nics(0, "../mlx5_0", 0, root).status()) ==
        "device=../mlx5_0: not a device name (parts joined by '+')");
  CHECK(message_text(adv->local_nics(0, "mlx5_0+", 0, root).status()).find("device=mlx5_0+") == 0);
  CHECK(message_text(adv->local_nics(128, "mlx5_0", 0, root).status()) ==
        "host=128: out of range [0, 128)");
  CHECK(message_text(adv->local_nics(0, "mlx5_0", 2, root).status()) ==
        "port=2: must be in [1, 1] (or 0: unknown)");
  sys.add("infiniband", "mlx5_8", "0000:e1:00.0");  // a ninth function: no rule fits
  CHECK(message_text(adv->local_nics(0, "mlx5_0", 0, root).status()) ==
        str_cat("device=mlx5_0: ", root,
                "/class/infiniband lists 9 PCI functions; the cluster has 8 NICs per host: give "
                "the NICs' bus ids in rail order (nic_busids)"));

  // The C API: the count, or a negative status.
  const railyard_advisor c_adv{advisor("h100-1024"), nullptr, nullptr};
  railyard_nic_id out[2];
  CHECK(railyard_advisor_local_nics(&c_adv, 5, "ens103np0+ens101np0", 0, root.c_str(), out, 2) ==
        2);
  CHECK((out[0].host == 5 && out[0].rail == 1 && out[1].rail == 0 && out[0].plane == 0));
  CHECK(railyard_advisor_local_nics(&c_adv, 5, "ens103np0+ens101np0", 0, root.c_str(), out, 1) ==
        RAILYARD_ADVISOR_EINVAL);
  CHECK(std::string(railyard_advisor_last_error()) == "max_out=1: ens103np0+ens101np0 has 2 parts");
  CHECK(railyard_advisor_local_nics(&c_adv, 5, "mlx5_77", 0, root.c_str(), out, 2) ==
        RAILYARD_ADVISOR_ENOTFOUND);
}

TEST_CASE("advisor: the local NIC on two-plane NICs: one PCI function per NIC or per plane") {
  const auto adv = advisor("h100-1024-dualplane");
  const std::string nics[8] = {"0000:c1:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0",
                               "0000:81:00.0", "0000:a1:00.0", "0000:e1:00.0", "0000:01:00.0"};
  {
    FakeSysfs sys;  // one function per NIC, two ports each: the plane is the port
    for (int k = 0; k < 8; ++k) sys.add("infiniband", str_cat("mlx5_", k), nics[k]);
    const std::string root = sys.root.string();
    auto p2 = adv->local_nics(9, "mlx5_0", 2, root);  // c1 is the 7th of 8 in bus-id order
    REQUIRE(p2.ok());
    CHECK((*p2)[0] == port(9, 6, 1));
    CHECK(message_text(adv->local_nics(9, "mlx5_0", 0, root).status()) ==
          "port=0: mlx5_0 is a PCI function of a NIC with 2 ports (planes): give props.port");
  }
  {
    FakeSysfs sys;  // one function per plane: 16, rail = rank / 2, plane = rank % 2
    for (int k = 0; k < 8; ++k) {
      sys.add("infiniband", str_cat("mlx5_", 2 * k), nics[k]);
      sys.add("infiniband", str_cat("mlx5_", 2 * k + 1), nics[k].substr(0, 11) + "1");
    }
    const std::string root = sys.root.string();
    auto a = adv->local_nics(9, "mlx5_1", 0, root);  // 0000:c1:00.1: rank 13 of 16
    REQUIRE(a.ok());
    CHECK((*a)[0] == port(9, 6, 1));
    auto b = adv->local_nics(9, "mlx5_14", 1, root);  // 0000:01:00.0: rank 0
    REQUIRE(b.ok());
    CHECK((*b)[0] == port(9, 0, 0));
    CHECK(message_text(adv->local_nics(9, "mlx5_14", 2, root).status()).find("port=2: mlx5_14 is "
                                                                             "plane 0") == 0);
  }
}

TEST_CASE("advisor: plan_tcp_streams puts each TCP stream on its own leaf uplink under the TCP tuple") {
  const auto adv = advisor("h100-1024-2to1");
  const NicPort a = port(0, 0, 0);
  const NicPort b = port(40, 0, 0);  // another SU: every leaf uplink leads to b
  const TcpFlow flow{0x0A000001u, 0x0A000002u, 40123};
  const auto hops = routing::ecmp_hops(adv->descriptor(), a, b);
  REQUIRE(!hops.empty());
  REQUIRE(hops[0].kind == routing::HopKind::kSrcLeafUp);
  for (const int32_t k : {1, 4, 8}) {
    CAPTURE(k);
    auto plan = adv->plan_tcp_streams(a, b, k, flow);
    REQUIRE(plan.ok());
    REQUIRE(plan->streams == k);
    REQUIRE(std::ssize(plan->source_ports) == k);
    std::set<uint16_t> ports;
    std::set<int32_t> uplinks;
    for (int32_t i = 0; i < k; ++i) {
      const uint16_t sport = plan->source_ports[static_cast<size_t>(i)];
      CHECK(sport >= 0xC000);
      ports.insert(sport);
      // The switch's pick, computed here from the tuple a TCP socket sends.
      const routing::FiveTuple tcp{flow.src_ip, flow.dst_ip, sport, flow.dst_port, 6, 0};
      const int32_t picked = adv->hash_model().pick(hops[0], tcp);
      CHECK(picked == plan->uplinks[static_cast<size_t>(i)]);
      uplinks.insert(picked);
    }
    CHECK(std::ssize(ports) == k);
    CHECK(std::ssize(uplinks) == k);  // k <= 32 uplinks: one stream per uplink
  }
  // Another listener port is another tuple: the same streams, other ports.
  auto p1 = adv->plan_tcp_streams(a, b, 4, flow);
  auto p2 = adv->plan_tcp_streams(a, b, 4, TcpFlow{flow.src_ip, flow.dst_ip, 40124});
  REQUIRE((p1.ok() && p2.ok()));
  CHECK(p1->source_ports != p2->source_ports);
  // A moved search start gives other ports, still on distinct uplinks.
  auto moved = adv->plan_tcp_streams(a, b, 4, flow, 4099);
  REQUIRE(moved.ok());
  CHECK(moved->source_ports != p1->source_ports);
  CHECK(std::set<int32_t>(moved->uplinks.begin(), moved->uplinks.end()).size() == 4);

  CHECK(message_text(adv->plan_tcp_streams(a, b, 0, flow).status()) ==
        "streams=0: must be in [1, 256]");
  CHECK(message_text(adv->plan_tcp_streams(a, b, 2, TcpFlow{1, 2, 0}).status()) ==
        "flow.dst_port=0: give the listener's port");
  CHECK(message_text(adv->plan_tcp_streams(a, a, 2, flow).status()).find("remote=") == 0);
}

TEST_CASE("advisor: the local NIC from a GID or an IP address, through sysfs GID tables") {
  const auto adv = advisor("h100-1024");
  const std::vector<std::string> busids = {"0000:9a:00.0", "0000:18:00.0", "0000:dc:00.0",
                                           "0000:3a:00.0", "0000:ba:00.0", "0000:4c:00.0",
                                           "0000:5d:00.0", "0000:cc:00.0"};
  FakeSysfs sys;
  for (size_t k = 0; k < busids.size(); ++k) {
    sys.add("infiniband", str_cat("mlx5_", k), busids[k]);
    // The link-local GID, then the RoCEv2 IPv4-mapped GID of 10.1.<k>.7.
    sys.add_gid(str_cat("mlx5_", k), 1, 0, str_cat("fe80:0000:0000:0000:0000:0000:0000:00", 10 + k));
    sys.add_gid(str_cat("mlx5_", k), 1, 1,
                str_cat("0000:0000:0000:0000:0000:ffff:0a01:0", k, "07"));
    sys.add_gid(str_cat("mlx5_", k), 1, 2, "0000:0000:0000:0000:0000:0000:0000:0000");  // unused
  }
  const std::string root = sys.root.string();
  // mlx5_2 is 0000:dc:00.0, the 8th in bus-id order: rail 7 (as local_nics says).
  auto by_ip = adv->local_nic_by_address(3, "10.1.2.7", root);
  REQUIRE_MESSAGE(by_ip.ok(), message_text(by_ip.status()));
  CHECK(*by_ip == port(3, 7, 0));
  CHECK(*by_ip == (*adv->local_nics(3, "mlx5_2", 1, root))[0]);
  // The same port by its GIDs, in the kernel's form and compressed.
  auto by_gid = adv->local_nic_by_address(3, "0000:0000:0000:0000:0000:ffff:0a01:0207", root);
  REQUIRE(by_gid.ok());
  CHECK(*by_gid == port(3, 7, 0));
  auto link_local = adv->local_nic_by_address(3, "fe80::11", root);  // mlx5_1: 0000:18 = rail 0
  REQUIRE(link_local.ok());
  CHECK(*link_local == port(3, 0, 0));
  // Every rail is reachable, and each once.
  std::set<int32_t> rails;
  for (int k = 0; k < 8; ++k) {
    auto p = adv->local_nic_by_address(5, str_cat("10.1.", k, ".7"), root);
    REQUIRE(p.ok());
    rails.insert(p->nic.value());
  }
  CHECK(rails.size() == 8);
  CHECK(message_text(adv->local_nic_by_address(3, "10.9.9.9", root).status()) ==
        str_cat("address=10.9.9.9: no GID of ", root,
                "/class/infiniband/*/ports/*/gids/* matches"));
  CHECK(message_text(adv->local_nic_by_address(3, "mlx5_0", root).status()).find(
            "address=mlx5_0: not a GID or an IP address") == 0);
  sys.add_gid("mlx5_5", 1, 3, "0000:0000:0000:0000:0000:ffff:0a01:0207");  // a duplicate
  CHECK(message_text(adv->local_nic_by_address(3, "10.1.2.7", root).status()) ==
        "address=10.1.2.7: on mlx5_2 and mlx5_5; name the device");
  CHECK(message_text(adv->local_nic_by_address(4096, "10.1.3.7", root).status()).find("host=") ==
        0);
}
