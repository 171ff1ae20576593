// railyard/core/progress.hpp — how far a long computation has got, told to the
// caller's callback at a bounded rate. The library prints nothing: a program
// decides what to show (the railyard tool prints a line on stderr).
//
//   railyard::ProgressHook hook;
//   hook.callback = [](int64_t done, int64_t total) { /* show done / total */ };
//   hook.min_interval_s = 0.5;        // at most two calls a second (0: every update)
//   railyard::sim::CollectiveSimOptions o;
//   o.progress = hook;                // steps simulated / distinct steps
//
// Inside the library (ProgressMeter):
//
//   ProgressMeter meter(options.progress, total);   // nothing at all when unset
//   for (...) { ...; meter.update(done); }
//   meter.finish();                                 // done == total, always called
//
// Contract, whatever the computation: calls come from the calling thread; done
// never decreases and never exceeds total; the last call is (total, total)
// when the computation succeeds (and none follows it); between the first and
// the last, consecutive calls are at least min_interval_s apart. Each entry
// point says what its units are (steps, flows, stages).
//
// Cost when unset: one predictable branch per update, no clock read. When set:
// one steady_clock read per update (tens of ns), made only by computations
// whose updates are far coarser than that (a simulated step, a flow completion
// event).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>

namespace railyard {

struct ProgressHook {
  // Called with (units done, units in all); empty: no progress is reported.
  std::function<void(int64_t done, int64_t total)> callback;
  // Least time between two calls, in seconds (the final call excepted); 0
  // reports every update.
  double min_interval_s = 0.25;

  [[nodiscard]] explicit operator bool() const { return static_cast<bool>(callback); }
};

// Applies a ProgressHook's contract to a count of `total` units (see above).
class ProgressMeter {
 public:
  ProgressMeter(const ProgressHook& hook, int64_t total)
      : hook_(hook.callback ? &hook : nullptr), total_(std::max<int64_t>(total, 0)) {
    if (hook_ != nullptr) last_ = Clock::now();
  }
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // `done` units are finished (clamped to [the last value reported, total]).
  void update(int64_t done) {
    if (hook_ == nullptr || finished_) return;
    done = std::clamp<int64_t>(done, done_, total_);
    if (done == total_) {
      finish();
      return;
    }
    done_ = done;
    const Clock::time_point now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < hook_->min_interval_s) return;
    last_ = now;
    hook_->callback(done_, total_);
  }
  // Everything is done: the final call (total, total), once.
  void finish() {
    if (hook_ == nullptr || finished_) return;
    finished_ = true;
    done_ = total_;
    hook_->callback(total_, total_);
  }
  [[nodiscard]] bool on() const { return hook_ != nullptr; }

 private:
  using Clock = std::chrono::steady_clock;
  const ProgressHook* hook_;
  int64_t total_;
  int64_t done_ = 0;
  bool finished_ = false;
  Clock::time_point last_{};
};

}  // namespace railyard
