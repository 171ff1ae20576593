// railyard/collective/pipelining.hpp — how per-hop latency and transfer time
// compose when a collective moves its data in chunks and slices, as NCCL's
// Simple protocol does (docs/models.md#pipelining). The simulator
// (sim/collective_sim.hpp) supplies each stage's transfer time under contention
// and its per-hop latency; these functions turn them into the stage's time.
//
//   railyard::collective::PipelineModel pm;          // NCCL 2.30 Simple defaults
//   // a ring all-reduce stage: 2(n-1) steps of 128 KiB blocks, 5,360 us of
//   // transfer in total on its slowest hop, 1.9 us on its slowest hop's latency:
//   railyard::collective::RingStage ring{.steps = 2046, .block_bytes = 131072.0,
//       .transfer_us = 5360.0, .alpha_us = 1.9, .mean_transfer_us = 5360.0,
//       .mean_alpha_us = 1.9};   // every hop alike
//   double t = railyard::collective::ring_stage_us(ring, pm);
//   // tree: 64 chunks per tree, height 5, busiest link 2,684 us, a chunk 10.5 us
//   double u = railyard::collective::tree_stage_us(
//       {.steps = 73, .height = 5, .chunks = 64, .busiest_us = 2684.4,
//        .chunk_us = 10.49, .alpha_us = 1.9, .transfer_us = 3023.4}, pm);
//   // stages pipelined by chunk, sharing links: max(stage, shared) + rest / Q
//   double h = railyard::collective::overlapped_us(stage_times, busiest_link_us, 64);
//
// Why a model of its own. Timing a collective as the sum over steps of
// (alpha + transfer) charges every hop's latency in full and runs the stages of a
// hierarchical algorithm strictly one after another. NCCL does neither: a
// connection holds NCCL_STEPS buffer slots, a ring step's chunk is sent as
// slices, and a slice is forwarded as soon as it arrives, so latency is paid as
// pipeline fill whenever a step's slices outlast one hop's latency.
//
// Constants (NCCL v2.30.7-1, Simple protocol): NCCL_STEPS = 8 slots per
// connection (src/include/device.h); buffer 4 MiB (DEFAULT_BUFFSIZE,
// src/init.cc), so a step slot is 512 KiB (stepSize = buffSize / NCCL_STEPS,
// src/enqueue.cc calcCollChunking); all-reduce chunkSteps = 4 and sliceSteps =
// 2 (ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS, src/include/collectives.h):
// a 2 MiB chunk in 2 slices of 1 MiB. A chunk smaller than that is cut into
// slices of max(ceil(chunk / 2), slice / 32) bytes (Primitives::genericOp,
// src/device/prims_simple.h). Trees send one slot per chunk (chunkSteps =
// sliceSteps = 1 for non-ring algorithms in calcCollChunking).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::collective {

struct PipelineModel {
  // false: the unpipelined model, every step alpha + transfer, stages in series.
  bool enabled = true;
  int32_t nccl_steps = 8;                 // buffer slots per connection (NCCL_STEPS)
  int64_t buffer_bytes = int64_t{1} << 22;  // per connection (Simple DEFAULT_BUFFSIZE)
  int32_t chunk_steps = 4;                // slots per ring chunk (ALLREDUCE_CHUNKSTEPS)
  int32_t slice_steps = 2;                // slots per slice (ALLREDUCE_SLICESTEPS)
  // Pieces the hierarchical phases overlap by; 0 = the power of two up to
  // S / (g · chunk) with the shortest time (sim/collective_sim.hpp).
  int64_t pieces = 0;

  [[nodiscard]] constexpr double step_bytes() const {
    return static_cast<double>(buffer_bytes) / nccl_steps;
  }
  [[nodiscard]] constexpr double chunk_bytes() const { return step_bytes() * chunk_steps; }
  [[nodiscard]] constexpr double slice_bytes() const { return step_bytes() * slice_steps; }
  [[nodiscard]] constexpr int32_t slices_per_chunk() const { return chunk_steps / slice_steps; }
  // Slices a sender may have in flight per connection (its slot credits).
  [[nodiscard]] constexpr int32_t window_slices() const { return nccl_steps / slice_steps; }
};

// Errors name the field: nccl_steps outside [1, 64], buffer_bytes outside
// [4 KiB, 1 GiB], slice_steps < 1, pieces outside [0, 2^20], chunk_steps not a
// multiple of slice_steps, or
// chunk_steps > nccl_steps / 2 (NCCL keeps a chunk to at most half the slots, so
// a rank can receive one step while it forwards the previous one).
RAILYARD_LAZY
[[nodiscard]] Status check_pipeline(const PipelineModel& m) {
  if (m.nccl_steps < 1 || m.nccl_steps > 64)
    return invalid_field("nccl_steps", str_cat(m.nccl_steps), "must be in [1, 64]");
  if (m.buffer_bytes < 4096 || m.buffer_bytes > (int64_t{1} << 30))
    return invalid_field("buffer_bytes", str_cat(m.buffer_bytes), "must be in [4 KiB, 1 GiB]");
  if (m.slice_steps < 1)
    return invalid_field("slice_steps", str_cat(m.slice_steps), "must be at least 1");
  if (m.chunk_steps < m.slice_steps || m.chunk_steps % m.slice_steps != 0)
    return invalid_field("chunk_steps", str_cat(m.chunk_steps),
                         str_cat("must be a multiple of slice_steps (", m.slice_steps, ")"));
  if (m.pieces < 0 || m.pieces > (int64_t{1} << 20))
    return invalid_field("pieces", str_cat(m.pieces), "must be in [0, 2^20] (0 = automatic)");
  if (2 * m.chunk_steps > m.nccl_steps)
    return invalid_field("chunk_steps", str_cat(m.chunk_steps),
                         str_cat("must be at most nccl_steps / 2 (", m.nccl_steps / 2, ")"));
  return ok_status();
}

// Loops of a ring stage whose steps move `block_bytes` per rank: NCCL's runRing
// (src/device/all_reduce.h) moves at most one chunk per rank per step and loops
// over the channel's data.
[[nodiscard]] inline int64_t ring_loops(double block_bytes, const PipelineModel& m) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(block_bytes / m.chunk_bytes())));
}

// Slices one loop's step is cut into (prims_simple.h genericOp: slices of
// max(ceil(nelem / SlicePerChunk), sliceSize / 32), at most SlicePerChunk).
[[nodiscard]] inline int32_t ring_slices(double loop_block_bytes, const PipelineModel& m) {
  const double smallest = m.slice_bytes() / 32;
  const auto need = static_cast<int64_t>(std::ceil(loop_block_bytes / smallest));
  return static_cast<int32_t>(std::clamp<int64_t>(need, 1, m.slices_per_chunk()));
}

// A ring stage: K = `steps` dependent steps (step k of a rank forwards what it
// received at step k-1), each moving `block_bytes` per rank. Per hop (a
// rank's transfer to the next rank) the simulator gives its transfer time and
// its latency (from the end of a slice's send to its availability downstream);
// the stage needs the slowest hop's (summed over the steps), the longest hop
// latency and the mean over hops (summed over the steps, and the mean alpha).
struct RingStage {
  int64_t steps = 0;
  double block_bytes = 0;
  double transfer_us = 0;       // slowest hop, summed over the steps
  double alpha_us = 0;          // longest hop latency
  double mean_transfer_us = 0;  // mean over hops, summed over the steps
  double mean_alpha_us = 0;     // mean over hops
  int64_t min_loops = 1;        // at least this many loops (pieces pipelined across stages)
};

// Pipelined, each of the L loops of a ring stage costs
//     (K - 1) · max(m · t_max, mean alpha + t_mean, m · (t_max + 2 · alpha_max) / W)
//       + m · t_max + alpha_max
// with m slices per step, t = transfer / (K · L · m) a slice's time and W =
// nccl_steps / slice_steps slices in flight per connection. A rank sends slice
// j of step k once (1) its slice j-1 has left (its link sends in order), (2)
// slice j of step k-1 has arrived from upstream, and (3) the receiver has
// consumed (forwarded) its slice W back and that slot's credit has travelled
// back (Primitives::waitPeer, prims_simple.h). The longest path through those
// constraints repeats one of three cycles: the slowest hop's link (m · t_max a
// step); one slice carried from hop to hop around the ring (alpha + t per hop,
// averaged over the hops because a chain of K - 1 ≥ n - 1 hops passes them
// all); or a slice over a hop and its credit back, W slices per t + 2 · alpha
// (the hop with the longest latency; on railyard's fabrics it is also the
// slowest). The last slice then needs one more hop to arrive. On a ring of
// identical hops with NCCL's W = 4 the credit term never wins and this is
//     (K - 1) · max(alpha + t, m · t) + m · t + alpha:
// when m · t ≥ alpha + t the latency hides behind the other slices and a loop
// costs K · m · t + alpha, transfer plus one hop of fill. Loops run one after
// another (one thread block per channel runs them in program order:
// runRing's loop over elemOffset, src/device/all_reduce.h).
[[nodiscard]] inline double ring_stage_us(const RingStage& r, const PipelineModel& m) {
  const auto k = static_cast<double>(r.steps);
  if (r.steps <= 0) return 0;
  if (!m.enabled) return k * r.alpha_us + r.transfer_us;
  const int64_t loops = std::max(ring_loops(r.block_bytes, m), r.min_loops);
  const auto l = static_cast<double>(loops);
  const int32_t slices = ring_slices(r.block_bytes / l, m);
  const auto s = static_cast<double>(slices);
  const double t_max = r.transfer_us / (k * l * s);
  const double t_mean = r.mean_transfer_us / (k * l * s);
  const double credit = s * (t_max + 2 * r.alpha_us) / m.window_slices();
  const double per_step = std::max({s * t_max, r.mean_alpha_us + t_mean, credit});
  return l * ((k - 1) * per_step + s * t_max + r.alpha_us);
}

// A tree stage: NCCL's double binary tree all-reduce (runTreeSplit,
// src/device/all_reduce.h). Each tree carries half the data in chunks of one
// slot (calcCollChunking, src/enqueue.cc: chunkSteps = sliceSteps = 1 for
// non-ring algorithms, so 512 KiB); a non-root node reduces chunk c up once
// its children's chunk c has arrived and, in its own threads at the same
// time, forwards chunk c down once its parent's has; a slot's credit returns
// when the receiver has forwarded it.
struct TreeStage {
  int64_t steps = 0;        // the schedule's steps (the unpipelined rule)
  int64_t height = 0;       // H: the tallest tree's root-to-leaf hops
  int64_t chunks = 0;       // P: NCCL chunks per tree (tree_chunks)
  double busiest_us = 0;    // the busiest link's bytes over the stage / its capacity
  double chunk_us = 0;      // t: one chunk over that link alone
  double alpha_us = 0;      // the longest hop latency
  double transfer_us = 0;   // the steps' transfer times, summed (unpipelined)
};

// Chunks per tree of a `bytes` all-reduce: each tree carries bytes / 2.
[[nodiscard]] inline int64_t tree_chunks(double bytes, const PipelineModel& m) {
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(bytes / 2 / m.step_bytes())));
}
// Bytes of one tree chunk (a tree's whole half when that is smaller).
[[nodiscard]] inline double tree_chunk_bytes(double bytes, const PipelineModel& m) {
  return std::min(m.step_bytes(), bytes / 2);
}

// Pipelined, a tree stage costs the larger of two paths:
//   drain  busiest + (H - 1) · alpha + 2 (H - 2) · t
//          the busiest link works throughout; when its node (next to the root)
//          has sent its last chunk down, that chunk descends the H - 1 hops
//          left, and each of the H - 2 levels above the leaves forwards it to
//          two children, 2 t (the node's NIC serves both connections at once);
//   chain  2H · alpha + (3H - 1) · t + (P - 1) · 3t
//          the first chunk up H hops (t each) and down H (t from the root to
//          its one child, 2 t at each level below), then each further chunk
//          three sends (one up, two down) at the node forwarding it, whose
//          other tree's sends (it is a leaf there) went out ahead.
// The chain wins for few chunks (at one chunk it is the whole time), the
// drain once the busiest link has more to send than the chain's fill. Both
// were read off a chunk-level reference (NCCL's tree program on ASTRA-sim),
// which they match within 0.1 % where every hop has one latency at 1 and
// >= 16 chunks, 3.3 % at 4, and 1.2 % from 16 chunks across SUs
// (docs/latency-validation.md#tree).
[[nodiscard]] inline double tree_stage_us(const TreeStage& s, const PipelineModel& m) {
  if (s.steps <= 0) return 0;
  if (!m.enabled) return static_cast<double>(s.steps) * s.alpha_us + s.transfer_us;
  const auto h = static_cast<double>(s.height);
  const double t = s.chunk_us;
  const double drain = s.busiest_us + std::max(0.0, h - 1) * s.alpha_us +
                       2 * std::max(0.0, h - 2) * t;
  const double chain = 2 * h * s.alpha_us + (3 * h - 1) * t +
                       static_cast<double>(std::max<int64_t>(0, s.chunks - 1)) * 3 * t;
  return std::max(drain, chain);
}

// Stages that process the same data chunk by chunk (`chunks` = Q pieces: stage
// i+1 starts on chunk q once stage i has finished it; each stage's T_i counts at
// least Q loops, RingStage::min_loops). As a pipeline of stages
// the total is the slowest stage plus the others' time for one chunk,
//     min(sum_i T_i, max(max_i T_i + (sum_i T_i - max_i T_i) / Q, shared_us))
// shared_us bounds stages that share links (the busiest link's bytes over all
// stages / its capacity): overlapping them cannot beat that link; and
// overlapping never costs more than running the stages in series.
[[nodiscard]] inline double overlapped_us(std::span<const double> stage_us, double shared_us,
                                          int64_t chunks) {
  double sum = 0, top = 0;
  for (double t : stage_us) {
    sum += t;
    top = std::max(top, t);
  }
  const auto q = static_cast<double>(std::max<int64_t>(1, chunks));
  return std::min(sum, std::max(top + (sum - top) / q, shared_us));
}

}  // namespace railyard::collective
