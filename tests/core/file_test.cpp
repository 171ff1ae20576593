#include "railyard/core/file.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_file_test {

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

TEST_CASE("check_writable: agrees with what write_text_file then does, and touches nothing") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "railyard_check_writable";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fresh = (dir / "new.svg").string();
  // A new file in an existing directory: fine, and not created by the check.
  CHECK(railyard::check_writable("svg", fresh).ok());
  CHECK_FALSE(std::filesystem::exists(fresh));
  CHECK(railyard::write_text_file("svg", fresh, "x").ok());
  // An existing file: fine, and left as it was.
  CHECK(railyard::check_writable("svg", fresh).ok());
  CHECK(std::filesystem::file_size(fresh) == 1);

  // Each refusal is one write_text_file would also fail on.
  struct Case {
    std::string path, message;
  };
  const std::string d = dir.string();
  for (const Case& c : {Case{d + "/missing/a.svg",
                             "svg=" + d + "/missing/a.svg: cannot write the file (no directory " +
                                 d + "/missing)"},
                        Case{d, "svg=" + d + ": cannot write the file (it is a directory)"},
                        Case{fresh + "/x.svg", "svg=" + fresh +
                                                   "/x.svg: cannot write the file (no directory " +
                                                   fresh + ")"},
                        Case{"", "svg=: the file name is empty"}}) {
    CAPTURE(c.path);
    const railyard::Status s = railyard::check_writable("svg", c.path);
    CHECK(std::string(railyard::message_of(s)) == c.message);
    CHECK(railyard::has_field(s, "svg"));
    CHECK_FALSE(railyard::write_text_file("svg", c.path, "x").ok());
  }
  // A bare file name is in the working directory.
  CHECK(railyard::check_writable("svg", "plain-name.svg").ok() ==
        railyard::check_writable("svg", "./plain-name.svg").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace railyard_test_core_file_test
