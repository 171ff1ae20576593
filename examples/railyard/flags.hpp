// railyard CLI — the flags: one declarative table (kFlagTable), the per-subcommand
// flag sets, an argv parser of our own, and the errors that name a flag the way
// users type it (`--leaf-up-gbps`, never `--leaf_up_gbps`).
//
//   constexpr FlagUse kMyFlags[] = {required("job"), {"cluster"}, defaulted("qps", "1"),
//                                   refused("topology-csv", "needs GPUs; give --cluster")};
//   StatusOr<CommandLine> cl = parse_command_line(args);      // syntax and types
//   Flags flags(cl->values, kMyFlags);
//   flags.text("cluster");                                     // given, else the default
//   auto spec = topology::parse_cluster(flags.text("cluster"));
//   if (!spec.ok()) return flag_error(flags, "cluster", spec.status());
//
// Accepted syntax (docs/cli.md#invocation): --name=value, --name value; booleans
// also --name, --noname and --no-name; '-' and '_' spell the same name; the last
// occurrence wins; "--" ends the flags. Values are checked for their type as
// they are read (integers, decimals, booleans; a text value may not be empty);
// what a value means is checked by the library, whose errors carry the field
// (core/status.hpp), so flag_error() and routed_error() turn them into one line
// that names the flag.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/status.hpp"

namespace railyard::cli {

enum class FlagKind : uint8_t { kBool, kText, kInt, kUint, kDecimal };

// How an error about the flag's value shows it.
enum class FlagQuote : uint8_t {
  kValue,  // "--qps=0: must be in [1, 256]"
  kSpec,   // "--cluster: hosts=0: must be positive" (the library quotes key=value itself)
};

struct FlagSpec {
  std::string_view name;  // as users type it, with hyphens
  FlagKind kind;
  std::string_view metavar;   // the value's placeholder in help; empty for booleans
  std::string_view fallback;  // the default, as text; empty: none
  std::string_view help;      // what it does, for whom
  std::string_view example;   // shown in help and in "is required" errors
  FlagQuote quote = FlagQuote::kValue;
};

// Every flag of the program (flags.cpp), in the order help lists them.
[[nodiscard]] std::span<const FlagSpec> flag_table();
// The flag named `name` (hyphens or underscores), or nullptr.
[[nodiscard]] const FlagSpec* find_flag(std::string_view name);

// One flag of a subcommand's set: how that subcommand uses it.
struct FlagUse {
  enum class Role : uint8_t { kOptional, kRequired, kRefused };
  std::string_view name;
  Role role = Role::kOptional;
  std::string_view fallback{};  // this subcommand's default, replacing the table's
  std::string_view refusal{};   // kRefused: why the flag cannot be used here
};
[[nodiscard]] constexpr FlagUse required(std::string_view name) {
  return {name, FlagUse::Role::kRequired};
}
[[nodiscard]] constexpr FlagUse defaulted(std::string_view name, std::string_view fallback) {
  return {name, FlagUse::Role::kOptional, fallback};
}
[[nodiscard]] constexpr FlagUse refused(std::string_view name, std::string_view why) {
  return {name, FlagUse::Role::kRefused, {}, why};
}

// A flag as given on the command line (its value checked for the flag's kind).
struct FlagValue {
  const FlagSpec* spec = nullptr;
  std::string text;
};

// argv after the program name: the positional arguments and the flags, in order.
struct CommandLine {
  std::vector<std::string> positionals;
  std::vector<FlagValue> values;
};

// Reads `args` (see the syntax above). Errors: unknown flags (single-dash ones
// too, except -h), a missing value, a value of the wrong kind, an empty text
// value, a value given to --noNAME.
[[nodiscard]] StatusOr<CommandLine> parse_command_line(std::span<const std::string_view> args);

// The flags one subcommand sees: what was given, else its defaults.
class Flags {
 public:
  Flags(std::vector<FlagValue> given, std::span<const FlagUse> uses);

  [[nodiscard]] bool given(std::string_view name) const;
  // The value given last, else the subcommand's default, else the table's.
  [[nodiscard]] std::string_view text(std::string_view name) const;
  [[nodiscard]] bool boolean(std::string_view name) const;
  [[nodiscard]] int32_t int32(std::string_view name) const;
  [[nodiscard]] uint64_t uint64(std::string_view name) const;
  [[nodiscard]] double decimal(std::string_view name) const;

  [[nodiscard]] std::span<const FlagValue> values() const { return given_; }
  [[nodiscard]] std::span<const FlagUse> uses() const { return uses_; }
  [[nodiscard]] const FlagUse* use(std::string_view name) const;

 private:
  std::vector<FlagValue> given_;
  std::span<const FlagUse> uses_;
};

// --- Errors ------------------------------------------------------------------

// A usage or input error: InvalidArgument (exit status 2) with `message`.
[[nodiscard]] Status usage_error(std::string_view message);

// `s` as an input error (InvalidArgument), message and field kept: for library
// codes that mean bad input in the caller's context (no path left by --down).
[[nodiscard]] Status as_input_error(const Status& s);

// The library error `s` about the value of `flag`, as one line naming the flag:
//   kSpec flags        "--cluster: <message>"
//   the same field     "--qps=0: must be in [1, 256]" — the library's problem after
//                      the value it rejected when that is (part of) what was typed,
//                      e.g. one item of a --down list, else the value typed
//   another field      "--buffer-mb=0.3: buffer_bytes=300000: smaller than one BDP"
// Statuses other than InvalidArgument are returned unchanged (internal errors).
[[nodiscard]] Status flag_error(const Flags& flags, std::string_view flag, const Status& s);

// Which flag a library field came from: the first of `flags` that was given,
// else the last one listed (the default's source). A `field` ending in '*'
// matches every field it starts ("host *" matches "host 3").
struct FieldRoute {
  std::string_view field;
  std::array<std::string_view, 3> flags{};
};

// `s` by the field it carries (flag_error() for its route), or "<fallback>:
// <message>" when no route takes it. Non-InvalidArgument statuses unchanged.
[[nodiscard]] Status routed_error(const Flags& flags, std::span<const FieldRoute> routes,
                                  const Status& s, std::string_view fallback);

// "--name=value" as typed (for messages that quote a flag).
[[nodiscard]] std::string shown(const Flags& flags, std::string_view name);

}  // namespace railyard::cli
