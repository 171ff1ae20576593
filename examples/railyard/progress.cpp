// railyard CLI — progress lines and the memory guard (progress.hpp).
#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::cli {
namespace {

// "12 s", "3 min", "1.5 h".
std::string duration_text(double s) {
  if (s < 90) return str_cat(static_cast<int64_t>(std::lround(s)), " s");
  if (s < 90 * 60) return str_cat(static_cast<int64_t>(std::lround(s / 60)), " min");
  return str_cat(fixed(s / 3600, 1), " h");
}

}  // namespace

std::string grouped_number(int64_t v) {
  const std::string digits = str_cat(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? str_cat("-", out) : out;
}

ProgressLine::ProgressLine(const Flags& flags, std::string_view command, std::string_view unit)
    : command_(command), unit_(unit), start_(Clock::now()) {
  tty_ = isatty(fileno(stderr)) == 1;
  on_ = flags.given("progress") ? flags.boolean("progress") : tty_;
  // A hidden knob for tests and slow terminals: both the delay and the interval.
  if (const char* env = std::getenv("RAILYARD_PROGRESS_INTERVAL"); env != nullptr) {
    auto v = parse_decimal("RAILYARD_PROGRESS_INTERVAL", env);
    if (v.ok() && *v >= 0 && std::isfinite(*v)) delay_s_ = interval_s_ = *v;
  }
}

ProgressLine::~ProgressLine() {
  if (dirty_) write("\r\033[K");
}

ProgressHook ProgressLine::hook() {
  ProgressHook h;
  if (!on_) return h;
  h.callback = [this](int64_t done, int64_t total) { report(done, total); };
  // The library may call more often than lines are printed; not much more.
  h.min_interval_s = std::min(interval_s_, 0.25);
  return h;
}

void ProgressLine::set_note(std::string_view note) { note_ = std::string(note); }

void ProgressLine::write(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
  (void)std::fflush(stderr);
}

void ProgressLine::report(int64_t done, int64_t total) {
  if (!on_) return;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!seen_) {
    seen_ = true;
    first_time_ = now;
    first_done_ = done;
  }
  if (elapsed < delay_s_) return;  // a short run says nothing
  if (last_ && done < total &&
      std::chrono::duration<double>(now - *last_).count() < interval_s_)
    return;
  last_ = now;
  if (!header_.empty()) {
    write(str_cat(dirty_ ? "\r\033[K" : "", command_, ": ", header_, "\n"));
    header_.clear();
    dirty_ = false;
  }
  std::string line = str_cat(command_, ": ", grouped_number(done), " of ", grouped_number(total),
                             " ", unit_, " done");
  if (total > 0)
    str_append(line, " (", static_cast<int64_t>(std::floor(100.0 * static_cast<double>(done) /
                                                          static_cast<double>(total))),
               " %)");
  str_append(line, ", ", duration_text(elapsed));
  // Time left at the pace since the library's first report: the setup before
  // it (building the traffic) is not part of the pace.
  const double since_first = std::chrono::duration<double>(now - first_time_).count();
  if (done > first_done_ && done < total && since_first > 0)
    str_append(line, ", ~",
               duration_text(since_first * static_cast<double>(total - done) /
                             static_cast<double>(done - first_done_)),
               " left");
  if (!note_.empty() && done < total) str_append(line, "; ", note_);
  if (tty_) {
    write(str_cat("\r\033[K", line));
    dirty_ = true;
  } else {
    write(str_cat(line, "\n"));
  }
}

StatusOr<MemoryLimit> memory_limit(const Flags& flags) {
  if (flags.given("max-memory")) {
    auto v = parse_size_in("max_memory", flags.text("max-memory"), 1, uint64_t{1} << 50);
    if (!v.ok()) return flag_error(flags, "max-memory", v.status());
    return MemoryLimit{static_cast<double>(*v), shown(flags, "max-memory")};
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return MemoryLimit{kib * 1024.0, "MemAvailable in /proc/meminfo"};
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    return MemoryLimit{static_cast<double>(pages) * static_cast<double>(page),
                       "free physical memory"};
  return MemoryLimit{std::numeric_limits<double>::infinity(), "unknown"};
}

std::string memory_text(double bytes) {
  if (bytes >= 1e9) return str_cat(fixed(bytes / 1e9, 1), " GB");
  if (bytes >= 1e6) return str_cat(fixed(bytes / 1e6, 1), " MB");
  if (bytes >= 1e3) return str_cat(fixed(bytes / 1e3, 1), " kB");
  return str_cat(fixed(bytes, 0), " B");
}

Status check_memory(const Flags& flags, std::string_view command, double estimate_bytes,
                    std::string_view what, std::string_view advice, const MemoryLimit& limit) {
  if (!(estimate_bytes > limit.bytes)) return ok_status();
  const std::string need =
      str_cat("needs about ", memory_text(estimate_bytes), " (", what, ")");
  if (flags.given("max-memory"))
    return usage_error(str_cat(limit.source, ": ", command, " ", need, ", more than this limit of ",
                               memory_text(limit.bytes), "; ", advice,
                               ", or raise --max-memory"));
  return usage_error(str_cat(command, ": ", need, ", more than the ", memory_text(limit.bytes),
                             " available (", limit.source, "); ", advice,
                             ", or set --max-memory to run anyway"));
}

}  // namespace railyard::cli
