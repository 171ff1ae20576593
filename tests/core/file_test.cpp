#include "railyard/core/file.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

TEST_CASE("read_text_file / write_text_file: round trip, errors name the field and the path") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "railyard_file_test.txt").string();
  const std::string bytes = std::string("a\r\nb\0c", 6);  // binary: kept as is
  REQUIRE(railyard::write_text_file("out", path, bytes).ok());
  auto back = railyard::read_text_file("trace", path);
  REQUIRE(back.ok());
  CHECK(*back == bytes);
  std::remove(path.c_str());

  auto missing = railyard::read_text_file("trace", "/nonexistent/x.csv");
  CHECK(std::string(missing.status().message()) == "trace=/nonexistent/x.csv: cannot open the file");
  CHECK(railyard::error_field(missing.status())->field == "trace");
  CHECK(railyard::error_field(missing.status())->value == "/nonexistent/x.csv");

  const railyard::Status unwritable = railyard::write_text_file("svg", "/nonexistent/dir/a.svg", "x");
  CHECK(std::string(railyard::message_of(unwritable)) ==
        "svg=/nonexistent/dir/a.svg: cannot write the file");
  CHECK(railyard::has_field(unwritable, "svg"));

  CHECK(std::string(railyard::message_of(railyard::read_text_file("trace", "").status())) ==
        "trace=: the file name is empty");
  CHECK(railyard::has_field(railyard::write_text_file("svg", "", "x"), "svg"));
}
