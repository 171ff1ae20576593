// The two cable readers: cable lists (CSV rows) and ibnetdiscover output.
#include "railyard/topology/import/cable_list.hpp"

#include <doctest/doctest.h>

#include <string>

#include "railyard/topology/import/ibnetdiscover.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_cable_list_test {

using namespace railyard;

namespace {

// The error's field, value and message, for checks.
struct Err {
  std::string field, value, message;
};
Err error_of(const StatusOr<topology::CableList>& r) {
  REQUIRE_FALSE(r.ok());
  const auto f = error_field(r.status());
  return {f ? f->field : "", f ? f->value : "", std::string(message_of(r.status()))};
}

}  // namespace

TEST_CASE("cable_list: header, comments, CRLF, BOM, speeds") {
  const std::string text =
      "\xEF\xBB\xBF# from lldpctl on every leaf\r\n"
      "A_Node, a_port, b_node, b_port, gbps\r\n"
      "\r\n"
      "gpu1,eth0,leaf1,swp1,400\r\n"
      "  # a comment\n"
      "leaf1 ,swp9,spine1,swp1,\t200\n";
  auto list = topology::cable_list_from_text(text);
  REQUIRE_MESSAGE(list.ok(), list.status().message());
  REQUIRE(list->cables.size() == 2);
  CHECK(list->cables[0].a == topology::CableEnd{"gpu1", "eth0"});
  CHECK(list->cables[0].b == topology::CableEnd{"leaf1", "swp1"});
  CHECK(list->cables[0].gbps == 400);
  CHECK(list->cables[0].line == 4);
  CHECK(list->cables[1].a.node == "leaf1");
  CHECK(list->cables[1].gbps == 200);
  CHECK(list->cables[1].line == 6);
  CHECK(list->kinds.empty());
  // Four columns: no speed.
  auto four = topology::cable_list_from_text("h,p0,l,p1\n");
  REQUIRE(four.ok());
  CHECK(four->cables[0].gbps == 0);
}

TEST_CASE("cable_list: bad rows name the line, the column and the token") {
  Err e = error_of(topology::cable_list_from_text("a,p,b,q\nc,p,d\n"));
  CHECK(e.field == "row");
  CHECK(e.message.find("line 2:") == 0);
  CHECK(e.message.find("3 fields; line 1 has 4") != std::string::npos);

  e = error_of(topology::cable_list_from_text("# x\n\na,p,b,q,fast\n"));
  CHECK(e.field == "gbps");
  CHECK(e.value == "fast");
  CHECK(e.message.find("line 3: gbps=fast:") == 0);

  e = error_of(topology::cable_list_from_text("a,p,b,q,0\n"));
  CHECK(e.field == "gbps");

  e = error_of(topology::cable_list_from_text("a,p,b,q\nc,r,a,p\n"));
  CHECK(e.field == "b_port");
  CHECK(e.value == "p");
  CHECK(e.message.find("line 2:") == 0);
  CHECK(e.message.find("already carries the cable on line 1") != std::string::npos);

  e = error_of(topology::cable_list_from_text("a,p,a,q\n"));
  CHECK(e.field == "b_node");
  CHECK(e.message.find("same node as a_node") != std::string::npos);

  e = error_of(topology::cable_list_from_text("a,p,b b,q\n"));
  CHECK(e.field == "b_node");
  CHECK(e.message.find("contains a space") != std::string::npos);

  e = error_of(topology::cable_list_from_text("a,p,b,q\na_node,x,y,z\n"));
  CHECK(e.field == "a_node");
  CHECK(e.message.find("header row after line 1") != std::string::npos);

  e = error_of(topology::cable_list_from_text("a,b,c\n"));
  CHECK(e.field == "row");

  CHECK_FALSE(topology::cable_list_from_text("# nothing\n").ok());
}

TEST_CASE("cable_list: natural order compares digit runs as numbers") {
  CHECK(topology::natural_less("gpu9", "gpu10"));
  CHECK_FALSE(topology::natural_less("gpu10", "gpu9"));
  CHECK(topology::natural_less("eth2", "eth10"));
  CHECK(topology::natural_less("swp1", "swp1s0"));
  CHECK(topology::natural_less("a", "b"));
  CHECK_FALSE(topology::natural_less("x1", "x1"));
  CHECK(topology::natural_less("x01", "x1") != topology::natural_less("x1", "x01"));
}

namespace {

// Written by hand in ibnetdiscover's layout (rdma-core out_switch, out_ca,
// out_switch_port, out_ca_port): two leaves and one spine, two hosts with two
// single-port HCAs each (descriptions "<host> mlx5_N"), NDR links, one HDR.
constexpr std::string_view kIbSample =
    "#\n"
    "# Topology file: generated on Tue Jun  3 10:00:00 2025\n"
    "#\n"
    "# Initiated from node b8cef603000a1b10 port b8cef603000a1b10\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xd2f0\n"
    "sysimgguid=0x900a84030060ae40\n"
    "switchguid=0x900a84030060ae40(900a84030060ae40)\n"
    "Switch\t64 \"S-900a84030060ae40\"\t\t# \"leaf1\" enhanced port 0 lid 7 lmc 0\n"
    "[1]\t\"H-b8cef603000a1b10\"[1](b8cef603000a1b10) \t\t# \"gpu1 mlx5_0\" lid 12 4xNDR\n"
    "[2]\t\"H-b8cef603000a1c20\"[1](b8cef603000a1c20) \t\t# \"gpu2 mlx5_0\" lid 14 4xNDR\n"
    "[33]\t\"S-900a84030060be00\"[1]\t\t# \"spine1\" lid 3 4xNDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xd2f0\n"
    "sysimgguid=0x900a84030060af40\n"
    "switchguid=0x900a84030060af40(900a84030060af40)\n"
    "Switch\t64 \"S-900a84030060af40\"\t\t# \"leaf2\" enhanced port 0 lid 8 lmc 0\n"
    "[1]\t\"H-b8cef603000a1b11\"[1](b8cef603000a1b11) \t\t# \"gpu1 mlx5_1\" lid 13 4xNDR\n"
    "[2]\t\"H-b8cef603000a1c21\"[1](b8cef603000a1c21) \t\t# \"gpu2 mlx5_1\" lid 15 4xHDR\n"
    "[33]\t\"S-900a84030060be00\"[2]\t\t# \"spine1\" lid 3 4xNDR\n"
    "\n"
    "vendid=0x2c9\n"
    "switchguid=0x900a84030060be00(900a84030060be00)\n"
    "Switch\t64 \"S-900a84030060be00\"\t\t# \"spine1\" enhanced port 0 lid 3 lmc 0\n"
    "[1]\t\"S-900a84030060ae40\"[33]\t\t# \"leaf1\" lid 7 4xNDR\n"
    "[2]\t\"S-900a84030060af40\"[33]\t\t# \"leaf2\" lid 8 4xNDR\n"
    "\n"
    "vendid=0x2c9\n"
    "caguid=0xb8cef603000a1b10\n"
    "Ca\t1 \"H-b8cef603000a1b10\"\t\t# \"gpu1 mlx5_0\"\n"
    "[1](b8cef603000a1b10) \t\"S-900a84030060ae40\"[1]\t\t# lid 12 lmc 0 \"leaf1\" lid 7 4xNDR\n"
    "\n"
    "caguid=0xb8cef603000a1b11\n"
    "Ca\t1 \"H-b8cef603000a1b11\"\t\t# \"gpu1 mlx5_1\"\n"
    "[1](b8cef603000a1b11) \t\"S-900a84030060af40\"[1]\t\t# lid 13 lmc 0 \"leaf2\" lid 8 4xNDR\n"
    "\n"
    "caguid=0xb8cef603000a1c20\n"
    "Ca\t1 \"H-b8cef603000a1c20\"\t\t# \"gpu2 mlx5_0\"\n"
    "[1](b8cef603000a1c20) \t\"S-900a84030060ae40\"[2]\t\t# lid 14 lmc 0 \"leaf1\" lid 7 4xNDR\n"
    "\n"
    "caguid=0xb8cef603000a1c21\n"
    "Ca\t1 \"H-b8cef603000a1c21\"\t\t# \"gpu2 mlx5_1\"\n"
    "[1](b8cef603000a1c21) \t\"S-900a84030060af40\"[2]\t\t# lid 15 lmc 0 \"leaf2\" lid 8 4xHDR\n";

}  // namespace

TEST_CASE("ibnetdiscover: blocks become named cables, each once, with speeds") {
  auto list = topology::cable_list_from_ibnetdiscover(kIbSample);
  REQUIRE_MESSAGE(list.ok(), list.status().message());
  // 4 host cables + 2 leaf-spine cables, each written on both ends' blocks.
  REQUIRE(list->cables.size() == 6);
  CHECK(list->cables[0].a == topology::CableEnd{"leaf1", "1"});
  CHECK(list->cables[0].b == topology::CableEnd{"gpu1", "mlx5_0/1"});
  CHECK(list->cables[0].gbps == 400);
  CHECK(list->cables[2].b == topology::CableEnd{"spine1", "1"});
  CHECK(list->cables[4].b == topology::CableEnd{"gpu2", "mlx5_1/1"});
  CHECK(list->cables[4].gbps == 200);  // 4 lanes x HDR 50
  CHECK(list->kinds.at("gpu1") == topology::CableNodeKind::kHost);
  CHECK(list->kinds.at("spine1") == topology::CableNodeKind::kSwitch);
  CHECK(list->kinds.size() == 5);
}

TEST_CASE("ibnetdiscover: bad lines name the line and the token") {
  auto r = topology::cable_list_from_ibnetdiscover("Switch 8 \"S-1\" # \"a\"\nbogus line\n");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(message_of(r.status())).find("line 2: row=bogus line:") == 0);

  r = topology::cable_list_from_ibnetdiscover("[1] \"S-2\"[3] # \"b\" lid 1 4xNDR\n");
  REQUIRE_FALSE(r.ok());
  CHECK(error_field(r.status())->field == "port");

  r = topology::cable_list_from_ibnetdiscover("Switch 8 \"S-1\" # \"a\"\n[1] \"S-2\" # x\n");
  REQUIRE_FALSE(r.ok());
  CHECK(error_field(r.status())->field == "peer");

  // The two ends disagree about a cable.
  r = topology::cable_list_from_ibnetdiscover(
      "Switch 8 \"S-1\" # \"a\"\n[1] \"S-2\"[3] # \"b\" lid 1 4xNDR\n"
      "Switch 8 \"S-2\" # \"b\"\n[3] \"S-1\"[2] # \"a\" lid 1 4xNDR\n");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(message_of(r.status())).find("line 4:") == 0);
  CHECK(std::string(message_of(r.status())).find("on line 2") != std::string::npos);

  r = topology::cable_list_from_ibnetdiscover("Rt 2 \"R-1\" # \"r\"\n");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(message_of(r.status())).find("router") != std::string::npos);
}

}  // namespace railyard_test_topology_cable_list_test
