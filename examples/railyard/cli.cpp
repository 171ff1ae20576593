// railyard CLI — the small glue of cli.hpp.
#include "cli.hpp"

#include "railyard/core/file.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::cli {

StatusOr<std::string> read_flag_file(const Flags& flags, std::string_view flag) {
  auto text = read_text_file(flag, flags.text(flag));
  if (!text.ok()) return flag_error(flags, flag, text.status());
  return text;
}

Status write_flag_file(const Flags& flags, std::string_view flag, std::string_view text) {
  return flag_error(flags, flag, write_text_file(flag, flags.text(flag), text));
}

Status only_with(const Invocation& inv, std::string_view flag, bool applies, std::string_view why) {
  if (applies || !inv.flags.given(flag)) return ok_status();
  return usage_error(str_cat(inv.command.name, ": --", flag, " ", why));
}

}  // namespace railyard::cli
