// railyard fuzz targets: one registry shared by the libFuzzer driver
// (railyard_fuzz, clang -fsanitize=fuzzer) and the replay driver
// (railyard_fuzz_replay, any compiler, run by CTest over the seed corpora and
// the regression inputs).
//
// A target is a function of the raw input bytes. It feeds them to one input
// boundary (a spec parser, an importer, a plugin entry point) and checks what
// comes back: a rejected input must carry a non-OK status with a message; an
// accepted one must satisfy the boundary's round-trip or invariant properties.
// A violated property calls RAILYARD_FUZZ_CHECK, which prints the property and
// aborts — libFuzzer records the input as a crash, the replay test fails.
//
//   RAILYARD_FUZZ_TARGET(cluster_spec) {   // defines the target "cluster_spec"
//     auto spec = topology::parse_cluster(input);
//     if (!spec.ok()) { RAILYARD_FUZZ_CHECK(!spec.status().message().empty()); return; }
//     RAILYARD_FUZZ_CHECK(reparse(*spec) == *spec, "round trip");
//   }
//
// Inputs are handed over as std::string_view over the fuzzer's bytes (not
// NUL-terminated, possibly containing NULs and invalid UTF-8).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace railyard::fuzz {

using TargetFn = void (*)(std::string_view input);

struct Target {
  const char* name = nullptr;
  TargetFn run = nullptr;
};

// Every registered target, in registration order (unspecified across
// translation units: look targets up by name).
inline std::vector<Target>& registry() {
  static std::vector<Target> targets;
  return targets;
}

inline const Target* find_target(std::string_view name) {
  for (const Target& t : registry())
    if (name == t.name) return &t;
  return nullptr;
}

struct Registration {
  Registration(const char* name, TargetFn run) { registry().push_back({name, run}); }
};

// Prints where and which property failed, then aborts: the fuzzer keeps the
// input as a crash artifact; the replay driver's test fails.
[[noreturn]] inline void property_failed(const char* file, int line, const char* condition,
                                         const char* what) {
  std::fprintf(stderr, "railyard fuzz: property violated at %s:%d: %s%s%s\n", file, line,
               condition, what[0] != '\0' ? " -- " : "", what);
  std::fflush(stderr);
  std::abort();
}

// Inputs longer than this only slow the fuzzer down: no grammar railyard reads
// needs them to reach any of its states. Targets return early above it.
inline constexpr size_t kMaxInput = 4096;

// A status message as a std::string (Debian's Abseil has its own string_view).
inline std::string message(const absl::Status& s) { return std::string(s.message()); }

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// A decimal integer exactly as the grammars write it (digits only, leading
// zeros allowed), or nullopt, also when it does not fit an int64: the targets'
// own reading of a number, independent of the parsers under test.
inline std::optional<int64_t> decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : text)
    if (c < '0' || c > '9' || __builtin_mul_overflow(v, int64_t{10}, &v) ||
        __builtin_add_overflow(v, int64_t{c - '0'}, &v))
      return std::nullopt;
  return v;
}

}  // namespace railyard::fuzz

// RAILYARD_FUZZ_CHECK(condition) or RAILYARD_FUZZ_CHECK(condition, "what it means").
#define RAILYARD_FUZZ_CHECK(condition, ...)                                               \
  do {                                                                                    \
    if (!(condition))                                                                     \
      ::railyard::fuzz::property_failed(__FILE__, __LINE__, #condition, "" __VA_ARGS__); \
  } while (false)

#define RAILYARD_FUZZ_TARGET(name)                                                        \
  static void railyard_fuzz_target_##name(std::string_view input);                       \
  static const ::railyard::fuzz::Registration railyard_fuzz_registration_##name{         \
      #name, &railyard_fuzz_target_##name};                                               \
  static void railyard_fuzz_target_##name(std::string_view input)
