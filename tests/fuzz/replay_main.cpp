// Replay driver: runs fuzz targets over files, without libFuzzer, so every
// compiler and every CTest build (Release with -Werror, ASan+UBSan) checks the
// seed corpora and the regression inputs of past findings.
//
//   railyard_fuzz_replay TARGET PATH...   each PATH a file or a directory of files
//   railyard_fuzz_replay --list           the registered targets
//   railyard_fuzz_replay --check-corpora DIR   every target has seeds in DIR/<target>
//
// Exit 0 when every input ran (a violated property aborts), 2 on bad usage.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz_target.hpp"

namespace {
namespace fs = std::filesystem;

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

// Regular files under `root` (itself if it is one), sorted so runs are reproducible.
bool collect(const fs::path& root, std::vector<fs::path>& files) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    files.push_back(root);
    return true;
  }
  if (!fs::is_directory(root, ec)) return false;
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec))
    if (entry.is_regular_file()) found.push_back(entry.path());
  if (ec) return false;
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--list") {
    for (const auto& t : railyard::fuzz::registry()) std::printf("%s\n", t.name);
    return 0;
  }
  if (argc == 3 && std::string_view(argv[1]) == "--check-corpora") {
    // Every registered target needs seeds: libFuzzer starting from nothing
    // rarely gets past a parser's first keyword in a bounded CI run.
    int missing = 0;
    for (const auto& t : railyard::fuzz::registry()) {
      std::vector<fs::path> seeds;
      if (!collect(fs::path(argv[2]) / t.name, seeds) || seeds.empty()) {
        std::fprintf(stderr, "fuzz target %s has no seed corpus in %s/%s\n", t.name, argv[2],
                     t.name);
        ++missing;
      }
    }
    std::printf("%zu fuzz targets, %d without seeds\n", railyard::fuzz::registry().size(),
                missing);
    return missing == 0 ? 0 : 1;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET PATH... | --list\n", argv[0]);
    return 2;
  }
  const railyard::fuzz::Target* target = railyard::fuzz::find_target(argv[1]);
  if (target == nullptr) {
    std::fprintf(stderr, "railyard_fuzz_replay: unknown target '%s' (see --list)\n", argv[1]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    if (!collect(argv[i], files)) {
      std::fprintf(stderr, "railyard_fuzz_replay: cannot read '%s'\n", argv[i]);
      return 2;
    }
  }
  std::string input;
  for (const fs::path& file : files) {
    if (!read_file(file, input)) {
      std::fprintf(stderr, "railyard_fuzz_replay: cannot read '%s'\n", file.c_str());
      return 2;
    }
    // Printed before running, so an abort names the input that caused it.
    std::fprintf(stderr, "%s: %s (%zu bytes)\n", target->name, file.c_str(), input.size());
    target->run(input);
  }
  std::printf("%s: %zu inputs replayed, every property held\n", target->name, files.size());
  return 0;
}
