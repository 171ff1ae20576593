// bench/io/plan_bench.cpp — the main job end to end: `railyard plan` on the
// embedded scenario (h100-1024-2to1, trace background, five-job tenant mix)
// through the library, without printing or writing files.
//
// BM_Plan_Run: run_plan (place naive and railyard, order ranks, plan paths,
// simulate every job's main collectives both ways, derive CC) on a cluster
// materialized once. BM_Plan_ReportAndFiles: the text report plus every
// artifact of `--out` built in memory (plan_files: XML, Slurm, k8s, launcher
// files, tuner CSV, heat maps, plan.json) for one result.
//
//   build-bench/bench/plan_bench
#include <benchmark/benchmark.h>

#include <string>

#include "railyard/export/plan_files.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/report/plan_report.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

struct Fixture {
  railyard::topology::Cluster cluster;
  railyard::pipeline::PlanScenario scenario;
};

// The CLI's default inputs, built once; nullptr (and a message) if they fail.
const Fixture* fixture(std::string* error) {
  static const Fixture* built = [error]() -> const Fixture* {
    auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
    if (!cluster.ok()) {
      *error = std::string(cluster.status().message());
      return nullptr;
    }
    auto scenario = railyard::pipeline::default_plan_scenario(cluster->descriptor);
    if (!scenario.ok()) {
      *error = std::string(scenario.status().message());
      return nullptr;
    }
    return new Fixture{*std::move(cluster), *std::move(scenario)};
  }();
  return built;
}

void BM_Plan_Run(benchmark::State& state) {
  std::string error = "plan fixture failed";
  const Fixture* f = fixture(&error);
  if (f == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    auto result = railyard::pipeline::run_plan(f->cluster, f->scenario);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_Plan_Run)->Unit(benchmark::kMillisecond);

void BM_Plan_ReportAndFiles(benchmark::State& state) {
  std::string error = "plan fixture failed";
  const Fixture* f = fixture(&error);
  if (f == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  auto result = railyard::pipeline::run_plan(f->cluster, f->scenario);
  if (!result.ok()) {
    state.SkipWithError(std::string(result.status().message()).c_str());
    return;
  }
  size_t files = 0;
  for (auto _ : state) {
    std::string text = railyard::report::plan_text(f->cluster.descriptor, *result);
    auto written = railyard::exports::plan_files(f->cluster, *result);
    if (!written.ok()) {
      state.SkipWithError(std::string(written.status().message()).c_str());
      return;
    }
    files = written->size();
    benchmark::DoNotOptimize(text);
    benchmark::DoNotOptimize(written);
  }
  state.counters["files"] = static_cast<double>(files);
}
BENCHMARK(BM_Plan_ReportAndFiles)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
