// bench/alloc_counter.hpp — heap allocation counting for the benchmarks.
//
// Replaces the global operator new/delete of a benchmark binary so that every
// C++ heap allocation is counted and its bytes tracked (current and peak). A
// benchmark reads a snapshot before and after the code it measures:
//
//   #include "../alloc_counter.hpp"   // in exactly one .cpp of the binary
//
//   railyard::bench::reset_peak();                       // peak := current
//   const railyard::bench::AllocSnapshot before = railyard::bench::alloc_snapshot();
//   Fabric fabric = materialize(desc);
//   const railyard::bench::AllocSnapshot after = railyard::bench::alloc_snapshot();
//   int64_t peak_bytes = after.peak_bytes - before.current_bytes;   // high water of the call
//   int64_t allocations = after.allocations - before.allocations;
//
// Bytes are malloc_usable_size() of each block (what glibc really hands out),
// so they are a little above the requested sizes. Only operator new is seen:
// direct malloc() calls (none in railyard) are not counted.
//
// The replacement functions are ordinary (non-inline) definitions, as the
// standard requires; include this header in one translation unit per binary.
// Every bench/**/<name>_bench.cpp is its own single-file executable, so each
// may include it.
#pragma once

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace railyard::bench {

// Counters since process start. `allocations` only grows; `current_bytes` is
// live heap bytes; `peak_bytes` is the highest `current_bytes` since the last
// reset_peak().
struct AllocSnapshot {
  int64_t allocations = 0;
  int64_t current_bytes = 0;
  int64_t peak_bytes = 0;
};

namespace detail {
// Relaxed atomics: the counts must be exact if a benchmark ever runs threads,
// and ordering against other memory does not matter.
inline std::atomic<int64_t> g_allocations{0};
inline std::atomic<int64_t> g_current_bytes{0};
inline std::atomic<int64_t> g_peak_bytes{0};

inline void* note_allocation(void* p) {
  if (p == nullptr) return p;
  const auto bytes = static_cast<int64_t>(malloc_usable_size(p));
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = g_current_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !g_peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

// Not inlined: GCC would otherwise see free() reached from a pointer that came
// from operator new and warn (-Wmismatched-new-delete), though this pair matches.
[[gnu::noinline]] inline void release(void* p) {
  if (p == nullptr) return;
  g_current_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

inline void* allocate(std::size_t n) { return note_allocation(std::malloc(n == 0 ? 1 : n)); }

inline void* allocate_aligned(std::size_t n, std::align_val_t al) {
  const auto align = static_cast<std::size_t>(al);
  void* p = nullptr;
  if (posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, n == 0 ? 1 : n) != 0)
    return nullptr;
  return note_allocation(p);
}
}  // namespace detail

[[nodiscard]] inline AllocSnapshot alloc_snapshot() {
  return {detail::g_allocations.load(std::memory_order_relaxed),
          detail::g_current_bytes.load(std::memory_order_relaxed),
          detail::g_peak_bytes.load(std::memory_order_relaxed)};
}

// Starts a new high-water mark at the current live bytes.
inline void reset_peak() {
  detail::g_peak_bytes.store(detail::g_current_bytes.load(std::memory_order_relaxed),
                             std::memory_order_relaxed);
}

inline constexpr double kBytesPerMb = 1024.0 * 1024.0;

// Sets counter allocs_per_iter: heap allocations since `before` per iteration
// of the timed loop (0 proves a hot path allocates nothing).
inline void report_allocations(benchmark::State& state, const AllocSnapshot& before) {
  const AllocSnapshot after = alloc_snapshot();
  state.counters["allocs_per_iter"] = static_cast<double>(after.allocations - before.allocations) /
                                      static_cast<double>(state.iterations());
}

}  // namespace railyard::bench

// ---- global replacements ----------------------------------------------------

void* operator new(std::size_t n) {
  if (void* p = railyard::bench::detail::allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return railyard::bench::detail::allocate(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return railyard::bench::detail::allocate(n);
}
void* operator new(std::size_t n, std::align_val_t al) {
  if (void* p = railyard::bench::detail::allocate_aligned(n, al)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t al) { return ::operator new(n, al); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return railyard::bench::detail::allocate_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return railyard::bench::detail::allocate_aligned(n, al);
}

void operator delete(void* p) noexcept { railyard::bench::detail::release(p); }
void operator delete[](void* p) noexcept { railyard::bench::detail::release(p); }
void operator delete(void* p, std::size_t) noexcept { railyard::bench::detail::release(p); }
void operator delete[](void* p, std::size_t) noexcept { railyard::bench::detail::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept {
  railyard::bench::detail::release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  railyard::bench::detail::release(p);
}
void operator delete(void* p, std::align_val_t) noexcept { railyard::bench::detail::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { railyard::bench::detail::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  railyard::bench::detail::release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  railyard::bench::detail::release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  railyard::bench::detail::release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  railyard::bench::detail::release(p);
}
