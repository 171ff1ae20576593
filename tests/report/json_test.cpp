#include "railyard/report/json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using railyard::report::JsonWriter;

TEST_CASE("json: compact nesting, separators and escapes") {
  JsonWriter w;
  w.begin_object();
  w.key("a").value(int64_t{1});
  w.key("b").begin_array().value(1.5).value("x\"y\\z\n\x01").value(true).null().end_array();
  w.key("c").begin_object().end_object();
  w.key("d").begin_array().end_array();
  w.key("e").value(std::numeric_limits<double>::quiet_NaN());
  w.key("f").value(204800.0);
  w.end_object();
  CHECK(std::move(w).str() ==
        R"({"a":1,"b":[1.5,"x\"y\\z\n\u0001",true,null],"c":{},"d":[],"e":null,"f":204800})");
}

TEST_CASE("json: indented output") {
  JsonWriter w(2);
  w.begin_object();
  w.key("k").begin_array().value(int64_t{1}).value(int64_t{2}).end_array();
  w.end_object();
  CHECK(std::move(w).str() == "{\n  \"k\": [\n    1,\n    2\n  ]\n}");
}
