// railyard from C++ in 20 lines: a cluster, a job's rank order, and what its
// data-parallel all-reduce costs. Built and run by CTest (examples/CMakeLists.txt).
#include <cstdio>
#include <string>

#include "railyard/railyard.hpp"

int main() {
  using namespace railyard;
  auto cluster = topology::make_cluster("h100-1024-2to1");  // or "rail_fat_tree:hosts=256,..."
  auto plan = placement::parse_plan("tp=8,pp=4,dp=16");     // 512 GPUs
  if (!cluster.ok() || !plan.ok()) return 2;
  auto job = placement::order_ranks(cluster->descriptor, *plan);  // first 64 hosts
  if (!job.ok())
    return std::fprintf(stderr, "%s\n", std::string(job.status().message()).c_str()), 2;
  const placement::Device r0 = job->device(0);
  std::printf("rank 0 -> host %d GPU %d, order %s\n", r0.host.value(), r0.gpu.value(),
              job->plan.order_string().c_str());
  auto groups = sim::job_groups(*job, placement::Dim::kDp);  // every DP group at once
  auto r = sim::simulate_collective(*cluster, groups, collective::Collective::kAllReduce, 1 << 30);
  if (!r.ok()) return std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str()), 2;
  std::printf("DP all-reduce of 1 GiB in %zu groups: %.0f us, busbw %.0f Gb/s, bound %.0f us\n",
              groups.size(), r->time_us, r->busbw_gbps, r->lower_bound_us);
}
