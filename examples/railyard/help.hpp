// railyard CLI — help texts, made from the subcommand and flag tables.
#pragma once

#include <string>

#include "cli.hpp"

namespace railyard::cli {

// `railyard --help`: subcommands, every flag, exit statuses.
[[nodiscard]] std::string program_help();
// `railyard help NAME`, `railyard NAME --help`: usage, details, the subcommand's flags.
[[nodiscard]] std::string subcommand_help(const Subcommand& sc);
// "railyard NAME SYNOPSIS".
[[nodiscard]] std::string usage_line(const Subcommand& sc);
// The subcommand named `name`, or nullptr.
[[nodiscard]] const Subcommand* find_subcommand(std::string_view name);

}  // namespace railyard::cli
