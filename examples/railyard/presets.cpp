// railyard presets — the embedded cluster presets.
#include "cli.hpp"
#include "railyard/report/presets_report.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kPresetsFlags[] = {{"json"}};

Outcome run_presets(const Invocation& inv) {
  return Output(inv.flags.boolean("json") ? report::presets_json() : report::presets_text());
}

}  // namespace

const Subcommand kPresets{
    "presets", "[--json]",    "list the embedded cluster presets with their descriptions",
    "",        kPresetsFlags, &run_presets};

}  // namespace railyard::cli
