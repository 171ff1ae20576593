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

Status check_output_flag(const Flags& flags, std::string_view flag) {
  if (!flags.given(flag)) return ok_status();
  return flag_error(flags, flag, check_writable(flag, flags.text(flag)));
}

std::optional<Status> no_path_error(const Invocation& inv, const Status& s) {
  if (s.code() != StatusCode::kUnavailable && s.code() != StatusCode::kFailedPrecondition)
    return std::nullopt;
  if (inv.flags.given("down")) return flag_error(inv.flags, "down", as_input_error(s));
  return usage_error(str_cat(inv.command.name, ": ", message_of(s)));
}

Status only_with(const Invocation& inv, std::string_view flag, bool applies, std::string_view why) {
  if (applies || !inv.flags.given(flag)) return ok_status();
  return usage_error(str_cat(inv.command.name, ": --", flag, " ", why));
}

}  // namespace railyard::cli
