#include "railyard/core/spec.hpp"

#include <doctest/doctest.h>

#include <string>

#include "railyard/core/strings.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_spec_test {

using railyard::SpecReader;

TEST_CASE("spec: kind, typed values, defaults and unknown keys") {
  auto reader = SpecReader::parse("rail_fat_tree:hosts=64,oversub=2:1,switch_layout=vms");
  REQUIRE(reader.ok());
  CHECK(reader->kind() == "rail_fat_tree");
  CHECK(*reader->required_int("hosts", 1, 100) == 64);
  CHECK(*reader->integer("tiers", 2, 2, 3) == 2);  // absent: default
  CHECK(*reader->ratio("oversub", {1, 1}) == railyard::Ratio{2, 1});
  CHECK(*reader->choice("switch_layout", {"reference", "vms"}, 0) == 1);
  CHECK(reader->finish().ok());
}

TEST_CASE("spec: every malformed shape is an error naming the entry") {
  struct Case {
    const char* spec;
    const char* needle;
    const char* field;  // the field the error carries (nullptr: none)
  };
  for (Case c : {Case{"", "missing kind", nullptr}, Case{":hosts=1", "missing kind", nullptr},
                 Case{"k:hosts", "hosts", "hosts"}, Case{"k:=1", "=1", "key"},
                 Case{"k:hosts=", "hosts=", "hosts"}, Case{"k:hosts=1,hosts=2", "hosts", "hosts"},
                 Case{"k:hosts=1,,a=2", "expected key=value", "entry"}}) {
    auto r = SpecReader::parse(c.spec);
    REQUIRE_FALSE_MESSAGE(r.ok(), c.spec);
    CHECK_MESSAGE(std::string(r.status().message()).find(c.needle) != std::string::npos,
                  r.status().message());
    // Entry errors carry their field, so a caller maps them to its flag
    // without reading the text (the fuzzer found "tp=" once did not).
    const auto field = railyard::error_field(r.status());
    if (c.field == nullptr)
      CHECK_MESSAGE(!field.has_value(), c.spec);
    else
      CHECK_MESSAGE((field && field->field == c.field), c.spec);
  }
}

TEST_CASE("spec: value errors name key and value") {
  auto reader = SpecReader::parse("k:a=0,b=x,c=5,d=maybe,e=9");
  REQUIRE(reader.ok());
  auto msg = [](const absl::Status& s) { return std::string(s.message()); };
  CHECK(msg(reader->integer("a", 1, 1, 10).status()).find("a=0") != std::string::npos);
  CHECK(msg(reader->integer("b", 1, 1, 10).status()).find("b=x") != std::string::npos);
  CHECK(msg(reader->integer("c", 1, 6, 10).status()).find("c=5") != std::string::npos);
  CHECK(msg(reader->choice("d", {"yes", "no"}, 0).status()).find("d=maybe") != std::string::npos);
  CHECK(msg(reader->required_int("z", 1, 2).status()).find("z") != std::string::npos);
  const absl::Status unknown = reader->finish({"a", "b", "c", "d"});
  CHECK(msg(unknown).find("e=9") != std::string::npos);
  CHECK(msg(unknown).find("unknown key") != std::string::npos);
}

TEST_CASE("strings: str_cat formats numbers exactly and split/join round trip") {
  CHECK(railyard::str_cat("a", 1, '-', -2, " ", 2.5, " ", true) == "a1--2 2.5 true");
  CHECK(railyard::str_cat(int64_t{1} << 40) == "1099511627776");
  CHECK(railyard::str_cat(0.1) == "0.1");
  const auto parts = railyard::split("a,,b", ',');
  REQUIRE(parts.size() == 3);
  CHECK(parts[1].empty());
  CHECK(railyard::join(parts, ",") == "a,,b");
  CHECK(railyard::split("", ',').size() == 1);
  CHECK(railyard::to_lower("MiB") == "mib");
}

}  // namespace railyard_test_core_spec_test
