"""What a call through railyard's Python bindings costs (bench/README.md, "Python").

    PYTHONPATH=build/python /usr/bin/python3 bench/python/call_overhead.py

Times the median of repeated runs, in wall time (time.perf_counter) and in this
process's CPU time (time.process_time; on a shared machine the CPU time is the
steadier figure, and the one to compare with Google Benchmark's CPU column), of:
* ordering 131,072 ranks: Cluster("h100-128k-3tier").order("tp=8,pp=8,dp=2048"),
  the case of BM_Ordering_OrderRanks/131072 (bench/placement/ordering_bench.cpp),
  with the default hosts and with the 16,384 hosts given as a Slurm hostlist of
  names (what python -m railyard.launch does with SLURM_JOB_NODELIST);
* one source-port lookup, SprayTable.source_port(connection, qp), over 1,024
  connections of 8 QPs (the table of BM_Spray_SourcePort), connection and QP
  changing every call; beside it the same loop calling a C builtin of two
  arguments (operator.add), which is what any call from Python costs.
"""

import operator
import statistics
import sys
import time

import railyard


def median_seconds(fn, repeats, clock=time.perf_counter):
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return statistics.median(samples)


def wall_and_cpu_ms(fn, repeats):
    return (median_seconds(fn, repeats) * 1e3,
            median_seconds(fn, repeats, time.process_time) * 1e3)


def per_call_ns(fn, pairs, repeats=7):
    def loop():
        for c, q in pairs:
            fn(c, q)
    return median_seconds(loop, repeats) / len(pairs) * 1e9


def main() -> int:
    print(f"railyard {railyard.__version__}, Python {sys.version.split()[0]} ({sys.executable})")
    cluster = railyard.Cluster("h100-128k-3tier")
    plan = "tp=8,pp=8,dp=2048"
    job = cluster.order(plan)
    assert job.world == 131072
    wall, cpu = wall_and_cpu_ms(lambda: cluster.order(plan), 21)
    print(f"order 131,072 ranks, default hosts:         {wall:8.2f} ms wall {cpu:8.2f} ms CPU")
    hostlist = railyard.compress_hostlist(cluster.host_names)
    wall, cpu = wall_and_cpu_ms(lambda: cluster.order(plan, hostlist), 21)
    print(f"order 131,072 ranks, hosts as a hostlist:   {wall:8.2f} ms wall {cpu:8.2f} ms CPU"
          f"  ({hostlist})")
    wall, cpu = wall_and_cpu_ms(lambda: job.ranks(), 5)
    print(f"the whole rank table as Rank objects:       {wall:8.2f} ms wall {cpu:8.2f} ms CPU")

    small = railyard.Cluster("h100-1024")
    plans = []
    for c in range(1024):
        src = (c % 128, c // 128)
        dst = ((c + 32) % 128, c // 128)
        plans.append(small.spray(src, dst, qps=8))
    table = railyard.SprayTable(plans)
    # A multiplicative walk over (connection, QP), as in BM_Spray_SourcePort.
    pairs, x = [], 1
    for _ in range(1 << 16):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        pairs.append((x % 1024, (x >> 10) % 8))
    assert all(table.source_port(c, q) == plans[c].source_ports[q] for c, q in pairs[:1000])
    lookup = per_call_ns(table.source_port, pairs)
    builtin = per_call_ns(operator.add, pairs)
    print(f"SprayTable.source_port, one lookup:         {lookup:8.1f} ns")
    print(f"operator.add in the same loop (baseline):   {builtin:8.1f} ns")
    t = median_seconds(lambda: small.spray((0, 0), (40, 0), qps=8), 51)
    print(f"Cluster.spray, one 8-QP plan (h100-1024):   {t * 1e6:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
