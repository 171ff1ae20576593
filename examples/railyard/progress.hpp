// railyard CLI — progress lines on stderr for long runs (simulate, plan), and
// the memory guard that refuses a run too big for the machine before it starts.
//
//   ProgressLine progress(inv.flags, "simulate", "steps");
//   options.progress = progress.hook();          // empty when progress is off
//   ... run ...                                  // lines appear after 2 s, every 2 s at most
//
// When lines are shown (docs/cli.md#progress): --progress forces them on,
// --no-progress off; without either, only when stderr is a terminal (so logs,
// pipes and the tests see the same bytes as before). A run shorter than the
// delay prints nothing. On a terminal the line rewrites itself and is erased
// at the end; elsewhere (--progress into a log) each is a line of its own.
// RAILYARD_PROGRESS_INTERVAL=SECONDS in the environment sets both the delay
// and the interval (0: a line at every update the library reports, for tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "railyard/core/progress.hpp"

namespace railyard::cli {

class ProgressLine {
 public:
  // `command` starts every line ("simulate"); `unit` names what is counted,
  // plural ("steps", "flows", "stages"): "simulate: 1,200 of 16,383 steps done
  // (7 %), 12 s, ~2 min left".
  ProgressLine(const Flags& flags, std::string_view command, std::string_view unit);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  [[nodiscard]] bool on() const { return on_; }
  // For the library's options: calls report(); empty when progress is off.
  [[nodiscard]] ProgressHook hook();
  // Shown after the counts (what the run is doing now); may be empty.
  void set_note(std::string_view note);
  // Shown once, on a line of its own before the first progress line (the
  // memory estimate).
  void set_header(std::string header) { header_ = std::move(header); }

 private:
  using Clock = std::chrono::steady_clock;
  void report(int64_t done, int64_t total);
  void write(const std::string& text);

  bool on_ = false;
  bool tty_ = false;
  double delay_s_ = 2.0;
  double interval_s_ = 2.0;
  std::string command_;
  std::string unit_;
  std::string note_;
  std::string header_;
  Clock::time_point start_;
  std::optional<Clock::time_point> last_;  // the last line printed
  bool seen_ = false;                      // the library has reported once
  Clock::time_point first_time_;           // ... then,
  int64_t first_done_ = 0;                 // ... with this much done
  bool dirty_ = false;                     // a terminal line is showing
};

// Memory available to this run: --max-memory when given (the flag must be
// declared by the subcommand), else MemAvailable of /proc/meminfo (else free
// physical pages). `source` says which, for messages.
struct MemoryLimit {
  double bytes = 0;
  std::string source;  // "--max-memory=4GiB" or "MemAvailable"
};
[[nodiscard]] StatusOr<MemoryLimit> memory_limit(const Flags& flags);

// 16383 -> "16,383".
[[nodiscard]] std::string grouped_number(int64_t v);

// "6.6 GB" (10^9 bytes, one decimal; MB, kB or B below).
[[nodiscard]] std::string memory_text(double bytes);

// The guard: an input error (exit 2) when `estimate_bytes` exceeds the limit,
// naming the estimate (`what`: its terms), the limit and what to do (`advice`).
[[nodiscard]] Status check_memory(const Flags& flags, std::string_view command,
                                  double estimate_bytes, std::string_view what,
                                  std::string_view advice, const MemoryLimit& limit);

}  // namespace railyard::cli
