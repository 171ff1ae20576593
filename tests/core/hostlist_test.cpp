#include "railyard/core/hostlist.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../support/hostlist_expand.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_core_hostlist_test {

using namespace railyard;

namespace {
std::vector<std::string> names_of(std::string_view text) {
  auto r = expand_hostlist(text);
  REQUIRE_MESSAGE(r.ok(), text, ": ", std::string(r.status().message()));
  return *r;
}
using Names = std::vector<std::string>;
}  // namespace

TEST_CASE("hostlist: expands the forms Slurm accepts, as Slurm 22.05 scontrol does") {
  // Expected values are what `scontrol show hostnames` printed on Debian 12.
  struct Case {
    const char* text;
    Names names;
  };
  const Case cases[] = {
      {"a[1-3,7]", {"a1", "a2", "a3", "a7"}},
      {"a[01-10]", {"a01", "a02", "a03", "a04", "a05", "a06", "a07", "a08", "a09", "a10"}},
      {"a[1-010]", {"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"}},
      {"a[001-3]", {"a001", "a002", "a003"}},
      {"a[9-11]", {"a9", "a10", "a11"}},
      {"a[08-11]", {"a08", "a09", "a10", "a11"}},
      {"rack[1-2]n[1-2]", {"rack1n1", "rack1n2", "rack2n1", "rack2n2"}},
      {"a[1-2][3-4]", {"a13", "a14", "a23", "a24"}},
      {"a,b c", {"a", "b", "c"}},
      {"a[1-2],,b", {"a1", "a2", "b"}},
      {"node9,node10", {"node9", "node10"}},
      {"a[1,1]", {"a1", "a1"}},
      {"gpu-01-[000-002]", {"gpu-01-000", "gpu-01-001", "gpu-01-002"}},
      {"[1-2]", {"1", "2"}},
      {"", {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(names_of(c.text) == c.names);
    CHECK(testing::expand_hostlist_for_test(c.text) == c.names);
  }
  CHECK(names_of("x[0-65535]").size() == 65536);
}

TEST_CASE("hostlist: malformed expressions are errors quoting the item") {
  struct Case {
    const char* text;
    const char* item;
  };
  const Case cases[] = {
      {"a[3-1]", "a[3-1]"},
      {"ok1,a[1-2", "a[1-2"},
      {"a[1-2]]", "a[1-2]]"},
      {"a[[1-2]", "a[[1-2]"},
      {"a[]", "a[]"},
      {"a[x]", "a[x]"},
      {"a[1-]", "a[1-]"},
      {"a[-1]", "a[-1]"},
      {"n[1-2]-ib", "n[1-2]-ib"},
      {"a1-2]", "a1-2]"},
      {"x[0-65536]", "x[0-65536]"},
      {"a[1-2-3]", "a[1-2-3]"},
      {"a[0-2047][0-1023]", "a[0-2047][0-1023]"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto r = expand_hostlist(c.text);
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find(std::string("\"") + c.item + "\"") !=
          std::string::npos);
  }
}

TEST_CASE("hostlist: sorted equal-width names compress to one range per prefix") {
  Names nodes, gpus;
  for (int i = 0; i < 32; ++i) {
    nodes.push_back(str_cat("node", std::string(i < 10 ? "000" : "00"), i));
    gpus.push_back(str_cat("gpu-01-", std::string(i < 10 ? "00" : "0"), i));
  }
  CHECK(compress_hostlist(nodes) == "node[0000-0031]");
  CHECK(compress_hostlist(gpus) == "gpu-01-[000-031]");
  Names both = nodes;
  both.insert(both.end(), gpus.begin(), gpus.end());
  CHECK(compress_hostlist(both) == "node[0000-0031],gpu-01-[000-031]");
  CHECK(compress_hostlist(Names{"n0", "n1", "n2", "n3", "n7", "login", "n9", "n10"}) ==
        "n[0-3,7],login,n9,n10");  // listing is shorter
  CHECK(compress_hostlist(Names{"n7"}) == "n7");
  CHECK(compress_hostlist(Names{"n08", "n09", "n10", "n8"}) == "n[08-10,8]");
  CHECK(compress_hostlist(Names{}).empty());
  CHECK(compress_hostlist(Names{"123", "124", "125"}) == "[123-125]");
  CHECK(compress_hostlist(Names{"x1", "x7"}) == "x1,x7");
}

TEST_CASE("hostlist: compress then expand gives the same names, on random name sets") {
  std::mt19937 rng(20240611);
  const char* prefixes[] = {"node", "gpu-01-", "r1n", "x", "a1b", "login", ""};
  for (int round = 0; round < 400; ++round) {
    std::set<std::string> seen;
    Names names;
    const int count = 1 + static_cast<int>(rng() % 60);
    const int start = static_cast<int>(rng() % 2000);
    for (int i = 0; i < count; ++i) {
      std::string name = prefixes[rng() % 7];
      // Mostly consecutive numbers (to exercise ranges), some random ones.
      const int value = rng() % 4 == 0 ? static_cast<int>(rng() % 3000) : start + i;
      std::string digits = std::to_string(value);
      switch (rng() % 6) {
        case 0:  // no number at all, or a number in the middle only
          name += rng() % 2 ? "z" : str_cat(value, "-ib");
          break;
        case 1:  // unpadded
          name += digits;
          break;
        default: {  // zero-padded to a random width (mixed widths across names)
          const size_t width = 1 + rng() % 5;
          if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
          name += digits;
        }
      }
      if (name.empty() || !seen.insert(name).second) continue;
      names.push_back(name);
    }
    if (round % 3 == 0) std::sort(names.begin(), names.end());
    if (round % 3 == 1) std::shuffle(names.begin(), names.end(), rng);
    const std::string text = compress_hostlist(names);
    CAPTURE(text);
    CHECK(names_of(text) == names);
    CHECK(testing::expand_hostlist_for_test(text) == names);
    CHECK(text.size() <= str_cat(join(names, ",")).size());
  }
}

}  // namespace railyard_test_core_hostlist_test
