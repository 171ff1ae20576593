// railyard — the command-line tool: dispatch to a subcommand, exit statuses.
//
//   railyard plan                                      # the whole pipeline on a tenant mix
//   railyard plan --out plan-out                       # ... and every file it recommends
//   railyard describe --cluster=h100-1024 --json       # one JSON object on stdout
//   railyard simulate --collective allreduce --bytes 1GiB --job tp=8,dp=16 --hosts 0-15
//   railyard cc --job tp=8,dp=16 --hosts 0-15          # ECN, DCQCN, NCCL env for its step
//   railyard help [subcommand]                         # also --help / -h anywhere
//
// Contract (docs/cli.md): the first positional argument names the subcommand; a
// report goes to stdout; a usage or input error prints one line `railyard:
// <message>` on stderr and exits with status 2; exit status 3 means a complete
// report in which some job of --jobs was not placed. Flags: flags.hpp; each
// subcommand: its own file (cli.hpp says how to add one).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "help.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/version.hpp"

namespace railyard::cli {

namespace {

constexpr const Subcommand* kSubcommands[] = {&kPlan,  &kDescribe, &kExport, &kOrder,
                                              &kPlace, &kReplay,   &kSpray,  &kSimulate,
                                              &kCc,    &kPresets,  &kHelp};

// --help / -h / --version before any "--"; the first one wins.
std::string_view find_info_request(std::span<const std::string_view> args) {
  for (std::string_view arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h" || arg == "--version") return arg;
  }
  return {};
}

// One line, whatever the message holds.
std::string one_line(std::string_view message) {
  std::string out(message);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

// Writes all of `text` to `stream`; false if the stream refused it.
bool write_all(std::FILE* stream, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), stream) == text.size() &&
         std::fflush(stream) == 0;
}

int fail(Exit status, std::string_view message) {
  (void)write_all(stderr, str_cat(kProgram, ": ", one_line(message), "\n"));
  return static_cast<int>(status);
}

int emit(const Outcome& outcome) {
  if (!outcome.ok())
    return fail(
        outcome.status().code() == StatusCode::kInvalidArgument ? Exit::kUsage : Exit::kInternal,
        message_of(outcome.status()));
  if (!write_all(stdout, outcome->text))
    return fail(Exit::kInternal, "cannot write to standard output");
  return static_cast<int>(outcome->exit);
}

// Every flag a subcommand lists is in the table: a mistake here is ours.
void check_tables() {
  for (const Subcommand* sc : kSubcommands)
    for (const FlagUse& u : sc->flags)
      if (find_flag(u.name) == nullptr || find_flag(u.name)->name != u.name)
        throw std::logic_error(str_cat(sc->name, " lists an unknown flag --", u.name));
}

// What the subcommand is given, checked against its flag set: flags it does not
// take or refuses, extra positional arguments, required flags missing.
Status check_invocation(const Invocation& inv) {
  const Subcommand& sc = inv.command;
  for (const FlagValue& v : inv.flags.values()) {
    const FlagUse* u = inv.flags.use(v.spec->name);
    if (u == nullptr)
      return usage_error(str_cat(sc.name, ": flag --", v.spec->name, " does not apply (try '",
                                 kProgram, " help ", sc.name, "')"));
    if (u->role == FlagUse::Role::kRefused)
      return usage_error(str_cat("--", v.spec->name, "=", v.text, ": ", u->refusal));
  }
  if (inv.args.size() > sc.max_args)
    return usage_error(str_cat(sc.name, ": unexpected argument '", inv.args[sc.max_args],
                               "' (usage: ", usage_line(sc), ")"));
  for (const FlagUse& u : sc.flags)
    if (u.role == FlagUse::Role::kRequired && !inv.flags.given(u.name))
      return usage_error(
          str_cat(sc.name, ": --", u.name, " is required (e.g. ", find_flag(u.name)->example, ")"));
  return ok_status();
}

int dispatch(std::span<const std::string_view> args) {
  check_tables();
  const std::string_view info = find_info_request(args);
  if (info == "--version") return emit(Output(str_cat(kProgram, " ", kVersion, "\n")));
  if (!info.empty()) {
    // Help for the subcommand named first, if any, else for the program.
    for (std::string_view arg : args) {
      if (arg.empty() || arg[0] == '-') continue;
      if (const Subcommand* sc = find_subcommand(arg); sc != nullptr && sc != &kHelp)
        return emit(Output(subcommand_help(*sc)));
      break;
    }
    return emit(Output(program_help()));
  }

  StatusOr<CommandLine> cl = parse_command_line(args);
  if (!cl.ok()) return emit(cl.status());
  if (cl->positionals.empty())
    return fail(Exit::kUsage, "missing subcommand (try 'railyard --help')");
  const Subcommand* sc = find_subcommand(cl->positionals.front());
  if (sc == nullptr)
    return fail(Exit::kUsage, str_cat("unknown subcommand '", cl->positionals.front(),
                                      "' (try 'railyard --help')"));
  const Invocation inv{*sc,
                       std::vector<std::string>(cl->positionals.begin() + 1, cl->positionals.end()),
                       Flags(std::move(cl->values), sc->flags)};
  if (Status s = check_invocation(inv); !s.ok()) return emit(s);
  return emit(sc->run(inv));
}

}  // namespace

std::span<const Subcommand* const> subcommands() { return kSubcommands; }

}  // namespace railyard::cli

int main(int argc, char** argv) {
  using railyard::cli::Exit;
  using railyard::cli::fail;
  try {
    std::vector<std::string_view> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return railyard::cli::dispatch(args);
  } catch (const std::bad_alloc&) {
    // A valid but enormous cluster (2^20 hosts of 64 GPUs) or job outgrows
    // memory while its fabric or traffic is built: an input the machine cannot
    // hold, reported as such rather than as an internal error.
    return fail(Exit::kUsage,
                "out of memory: this cluster or job is too large to build on this "
                "machine (try a smaller --cluster, --hosts or --job)");
  } catch (const std::exception& e) {
    return fail(Exit::kInternal, railyard::str_cat("internal error: ", e.what()));
  } catch (...) {
    return fail(Exit::kInternal, "internal error");
  }
}
