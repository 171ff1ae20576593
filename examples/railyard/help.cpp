// railyard CLI — `railyard help` and the help texts (help.hpp).
#include "help.hpp"

#include <algorithm>
#include <string_view>

#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/version.hpp"

namespace railyard::cli {
namespace {

// Appends `text` word-wrapped to `width` columns, every line indented by `indent`.
void append_wrapped(std::string& out, std::string_view text, size_t indent, size_t width) {
  const std::string pad(indent, ' ');
  size_t column = 0;
  for (std::string_view word : split(text, ' ')) {
    if (word.empty()) continue;
    if (column > 0 && column + 1 + word.size() > width) {
      out += '\n';
      column = 0;
    }
    if (column == 0) {
      out += pad;
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out.append(word);
    column += word.size();
  }
  if (column > 0) out += '\n';
}

// "  --name=METAVAR  (default: "x")" and the wrapped help with its example;
// `fallback` is the subcommand's default when it has its own.
void append_flag_help(std::string& out, const FlagSpec& f, std::string_view fallback,
                      bool is_required = false) {
  const bool is_bool = f.kind == FlagKind::kBool;
  str_append(out, "  --", f.name, is_bool ? "" : "=", f.metavar);
  if (is_required)
    out += "  (required)";
  else if (!fallback.empty())
    str_append(out, "  (default: ",
               f.kind == FlagKind::kText ? str_cat("\"", fallback, "\"") : std::string(fallback),
               ")");
  out += '\n';
  append_wrapped(out, str_cat(f.help, " Example: ", f.example), 6, 80);
}

constexpr std::string_view kExitStatus =
    "Exit status: 0 on success; 2 on a usage or input error, with one line 'railyard: "
    "<message>' on stderr naming the flag; 3 when the report is complete but some job of --jobs "
    "was not placed (plan, place, cc; the report names it); 1 on an internal error.";

}  // namespace

const Subcommand* find_subcommand(std::string_view name) {
  for (const Subcommand* sc : subcommands())
    if (sc->name == name) return sc;
  return nullptr;
}

std::string usage_line(const Subcommand& sc) {
  return str_cat(kProgram, " ", sc.name, " ", sc.synopsis);
}

std::string program_help() {
  std::string out;
  str_append(out, kProgram, " ", kVersion,
             " - plans how collective traffic of GPU jobs moves through a cluster fabric\n\n",
             "usage: ", kProgram, " <subcommand> [flags]\n", "       ", kProgram,
             " help [subcommand]\n", "       ", kProgram, " --version\n\n", "subcommands:\n");
  for (const Subcommand* sc : subcommands()) {
    std::string name(sc->name);
    name.resize(std::max<size_t>(name.size(), 10), ' ');
    str_append(out, "  ", name, "  ", sc->summary, "\n");
  }
  str_append(
      out, "\nflags (--name=value or --name value; booleans also --name, --noname, --no-name):\n");
  for (const FlagSpec& f : flag_table()) append_flag_help(out, f, f.fallback);
  str_append(out, "  --help, -h\n      print this help and exit\n",
             "  --version\n      print the version and exit\n");
  out += '\n';
  append_wrapped(out,
                 str_cat("The default cluster is the preset ", topology::kDefaultCluster, "; '",
                         kProgram, " presets' lists every preset with its spec."),
                 0, 80);
  append_wrapped(out, kExitStatus, 0, 80);
  return out;
}

std::string subcommand_help(const Subcommand& sc) {
  std::string out;
  str_append(out, "usage: ", usage_line(sc), "\n\n", sc.summary, "\n");
  if (!sc.details.empty()) {
    out += '\n';
    append_wrapped(out, sc.details, 0, 80);
  }
  bool any = false;
  for (const FlagUse& u : sc.flags) {
    if (u.role == FlagUse::Role::kRefused) continue;
    const FlagSpec* f = find_flag(u.name);
    if (f == nullptr) continue;
    if (!any) out += "\nflags:\n";
    any = true;
    append_flag_help(out, *f, u.fallback.empty() ? f->fallback : u.fallback,
                     u.role == FlagUse::Role::kRequired);
  }
  return out;
}

namespace {

Outcome run_help(const Invocation& inv) {
  if (inv.args.empty()) return Output(program_help());
  const Subcommand* sc = find_subcommand(inv.args.front());
  if (sc == nullptr)
    return usage_error(
        str_cat("help: unknown subcommand '", inv.args.front(), "' (try 'railyard --help')"));
  return Output(subcommand_help(*sc));
}

}  // namespace

const Subcommand kHelp{
    "help", "[SUBCOMMAND]", "print this help, or the help of one subcommand", "", {}, &run_help, 1};

}  // namespace railyard::cli
