#include "railyard/report/presets_report.hpp"

#include <doctest/doctest.h>

#include <string>

#include "railyard/core/strings.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_presets_report_test {

TEST_CASE("presets report: every preset with its spec, names aligned, JSON names the default") {
  const std::string text = railyard::report::presets_text();
  const std::string json = railyard::report::presets_json();
  size_t width = 0;
  for (const auto& p : railyard::topology::kPresets) width = std::max(width, p.name.size());
  for (const auto& p : railyard::topology::kPresets) {
    std::string name(p.name);
    name.resize(width, ' ');
    CHECK(text.find(railyard::str_cat(name, "  ", p.description, "\n", std::string(width, ' '),
                                      "  = ", p.spec, "\n")) != std::string::npos);
    CHECK(json.find(railyard::str_cat("\"name\": \"", p.name, "\",\n")) != std::string::npos);
    CHECK(json.find(railyard::str_cat("\"spec\": \"", p.spec, "\",\n")) != std::string::npos);
  }
  CHECK(json.rfind("{\n  \"default\": \"h100-1024-2to1\",\n  \"presets\": [\n", 0) == 0);
  CHECK(json.ends_with("}\n"));
}

}  // namespace railyard_test_report_presets_report_test
