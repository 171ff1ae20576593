// railyard CLI — what a subcommand is, what it gets and what it returns, and the
// small glue every subcommand may use (files named by flags, flags that apply
// only with others). Each subcommand lives in its own file and holds only flag
// handling and library calls; inputs.hpp loads the cluster and the job.
//
// Adding a subcommand: write NAME.cpp defining `const Subcommand kNAME` (its
// flags as FlagUse rows, a usage line, a summary and `Outcome run(const
// Invocation&)`), declare it below and list it in main.cpp's kSubcommands.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flags.hpp"
#include "railyard/core/status.hpp"

namespace railyard::cli {

inline constexpr std::string_view kProgram = "railyard";

// Exit statuses (docs/cli.md#exit-status; `railyard --help` lists them).
enum class Exit : int {
  kOk = 0,
  kInternal = 1,   // an internal error, or stdout could not be written
  kUsage = 2,      // a usage or input error: one line `railyard: <message>` on stderr
  kNotPlaced = 3,  // the report is complete, but some job of --jobs was not placed
};

// A subcommand's result: the whole stdout text and the exit status.
struct Output {
  Output(std::string text_, Exit exit_ = Exit::kOk) : text(std::move(text_)), exit(exit_) {}
  std::string text;
  Exit exit = Exit::kOk;
};
// InvalidArgument = a usage or input error (exit 2); any other error is internal (exit 1).
using Outcome = StatusOr<Output>;

struct Subcommand;

// What a subcommand gets: itself, its positional arguments and its flags.
struct Invocation {
  const Subcommand& command;
  std::vector<std::string> args;
  Flags flags;
};

struct Subcommand {
  std::string_view name;
  std::string_view synopsis;  // after the name, for the usage line
  std::string_view summary;   // one line
  std::string_view details;   // more, for `railyard help NAME`; may be empty
  std::span<const FlagUse> flags;
  Outcome (*run)(const Invocation&);
  size_t max_args = 0;  // positional arguments after the name
};

extern const Subcommand kPlan;
extern const Subcommand kDescribe;
extern const Subcommand kExport;
extern const Subcommand kOrder;
extern const Subcommand kPlace;
extern const Subcommand kReplay;
extern const Subcommand kSpray;
extern const Subcommand kSimulate;
extern const Subcommand kCc;
extern const Subcommand kPresets;
extern const Subcommand kHelp;

// Every subcommand, in the order help lists them (main.cpp).
[[nodiscard]] std::span<const Subcommand* const> subcommands();

// --- Shared glue ---------------------------------------------------------------

// The file a flag names, whole; its contents as text.
[[nodiscard]] StatusOr<std::string> read_flag_file(const Flags& flags, std::string_view flag);
// Writes `text` to the file a flag names.
[[nodiscard]] Status write_flag_file(const Flags& flags, std::string_view flag,
                                     std::string_view text);
// When `flag` was given: whether its file can be written (check_writable), so
// a bad output path fails before the work that fills it.
[[nodiscard]] Status check_output_flag(const Flags& flags, std::string_view flag);

// The library's no-path errors (Unavailable: every path is down;
// FailedPrecondition: no choice avoids the failures) as input errors: naming
// --down when it was given, else "<subcommand>: <message>". Other errors: nullopt.
[[nodiscard]] std::optional<Status> no_path_error(const Invocation& inv, const Status& s);

// `flag` may only be given when `applies`: else "<subcommand>: --flag <why>" (why:
// "applies only to --format nccl-xml", "needs --simulate").
[[nodiscard]] Status only_with(const Invocation& inv, std::string_view flag, bool applies,
                               std::string_view why);

}  // namespace railyard::cli
