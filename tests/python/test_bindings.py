"""railyard's Python bindings: each operation checked against facts stated
independently of the code under test -- a bijection, the launcher formula
rank r -> (hosts[r // G], GPU r % G), Megatron's numbering, the ring
all-reduce's closed-form time, the Linux kernel's flow-label -> UDP source port
map -- and every error naming its field."""

import os
import unittest

import railyard

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
DIMS = ("tp", "cp", "ep", "dp", "pp")


def megatron_rank(coords, sizes, order):
    """Megatron's numbering (placement/plan.hpp, megatron/core/parallel_state.py
    RankGenerator): rank = c(d0) + n(d0) * (c(d1) + n(d1) * (...)), d0 fastest."""
    rank, stride = 0, 1
    for d in order.split("-"):
        rank += coords[d] * stride
        stride *= sizes[d]
    return rank


class OrderTest(unittest.TestCase):
    def setUp(self):
        self.cluster = railyard.Cluster("h100-1024")  # 128 hosts x 8 GPUs, SUs of 32
        # A scheduler's grant, scattered over SUs 0, 1 and 3.
        self.granted = [100, 40, 41, 8, 9, 10, 11, 12, 13, 14, 15, 42, 43, 44, 101, 45]

    def test_ranks_are_a_bijection_onto_the_granted_gpus(self):
        job = self.cluster.order("tp=8,pp=4,dp=4", self.granted)
        self.assertEqual(sorted(job.hosts), sorted(self.granted))  # a permutation
        devices = [(r.host, r.gpu) for r in job.ranks()]
        self.assertEqual(len(devices), 128)
        self.assertEqual(set(devices), {(h, g) for h in self.granted for g in range(8)})

    def test_rank_r_runs_on_hosts_r_div_g_gpu_r_mod_g(self):
        job = self.cluster.order("tp=4,cp=2,pp=2,dp=8", self.granted)
        g = job.gpus_per_host
        for r in range(job.world):
            rank = job.rank(r)
            self.assertEqual(rank.host, job.hosts[r // g])
            self.assertEqual(rank.gpu, r % g)
            self.assertEqual(rank.node_rank, r // g)
            self.assertEqual(job.node_rank(rank.host_name), r // g)
            self.assertEqual(rank.host_name, "node%04d" % rank.host)

    def test_coordinates_follow_megatrons_numbering(self):
        job = self.cluster.order("tp=2,cp=2,ep=2,dp=8,pp=2", self.granted)
        for r in job.ranks():
            coords = {d: getattr(r, d) for d in DIMS}
            for d in DIMS:
                self.assertLess(coords[d], job.sizes[d])
            self.assertEqual(megatron_rank(coords, job.sizes, job.order), r.rank)

    def test_railyard_groups_hosts_by_su_biggest_first(self):
        # docs: hosts grouped by pod, SU, ... biggest groups first. SU 0 holds 8 of
        # the hosts, SU 1 holds 6, SU 3 holds 2: launch order 8..15, 40..45, 100, 101.
        job = self.cluster.order("tp=8,pp=4,dp=4", self.granted)
        sus = [h // 32 for h in job.hosts]
        self.assertEqual(sus, [0] * 8 + [1] * 6 + [3] * 2)
        naive = self.cluster.order("tp=8,pp=4,dp=4", self.granted, naive=True)
        self.assertEqual(naive.hosts, self.granted)
        self.assertEqual(naive.order, "tp-cp-ep-dp-pp")
        # railyard never does worse than the naive numbering above the leaf.
        ours, theirs = job.traffic(), naive.traffic()
        self.assertLessEqual(ours["spine"] + ours["core"], theirs["spine"] + theirs["core"])

    def test_hosts_by_id_name_and_slurm_hostlist_agree(self):
        by_id = self.cluster.order("tp=8,pp=4,dp=4", self.granted)
        names = ["node%04d" % h for h in self.granted]
        hostlist = railyard.compress_hostlist(names)
        self.assertEqual(railyard.expand_hostlist(hostlist), names)
        for hosts in (names, hostlist, ",".join(str(h) for h in self.granted)):
            self.assertEqual(self.cluster.order("tp=8,pp=4,dp=4", hosts).hosts, by_id.hosts)

    def test_slurm_names_counted_from_one(self):
        names = ["gpu-a%03d" % (h + 1) for h in range(128)]
        cluster = railyard.Cluster("h100-1024", node_names=names)
        job = cluster.order("tp=8,dp=2", "gpu-a[003,001]")
        self.assertEqual(sorted(job.hosts), [0, 2])
        self.assertEqual(sorted(job.host_names), ["gpu-a001", "gpu-a003"])
        patterned = railyard.Cluster("h100-1024", node_names="gpu-{su:02}-{slot:03}")
        self.assertEqual(patterned.host_id("gpu-01-002"), 34)

    def test_megatron_args_carry_the_plan_sizes(self):
        job = self.cluster.order("tp=8,pp=4,dp=4", self.granted)
        args = job.megatron_args()
        pairs = dict(zip(args[0::2], args[1::2]))
        self.assertEqual(pairs["--tensor-model-parallel-size"], "8")
        self.assertEqual(pairs["--pipeline-model-parallel-size"], "4")
        self.assertEqual(pairs["--context-parallel-size"], "1")
        self.assertEqual(pairs["--expert-model-parallel-size"], "1")

    def test_131072_ranks(self):
        cluster = railyard.Cluster("h100-128k-3tier")
        job = cluster.order("tp=8,pp=8,dp=2048")
        self.assertEqual(job.world, 131072)
        self.assertEqual(sorted(job.hosts), list(range(16384)))
        last = job.rank(131071)
        self.assertEqual((last.host, last.gpu), (job.hosts[-1], 7))


class ErrorTest(unittest.TestCase):
    def setUp(self):
        self.cluster = railyard.Cluster("h100-1024")

    def assertField(self, call, field, value=None, code="invalid_argument"):
        with self.assertRaises(railyard.Error) as ctx:
            call()
        e = ctx.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual(e.field, field, str(e))
        if value is not None:
            self.assertEqual(e.value, value, str(e))
            self.assertIn(value, str(e))
        self.assertEqual(e.code, code, str(e))
        return e

    def test_errors_name_the_field(self):
        c = self.cluster
        self.assertField(lambda: railyard.Cluster("rail_fat_tree:hosts=0"), "hosts", "0")
        self.assertField(lambda: railyard.Cluster("h100-1024", node_names="n{bogus}"),
                         "node_pattern")
        self.assertField(lambda: c.order("tp=8,dq=4"), "job")
        self.assertField(lambda: c.order("tp=8,dp=4", [0, 1, 2, 130]), "hosts", "130")
        self.assertField(lambda: c.order("tp=8,dp=4", [0, 1, 2, 2]), "hosts", "2")
        self.assertField(lambda: c.order("tp=8,dp=4", "node0000,node9999"), "hosts", "node9999")
        self.assertField(lambda: c.order("tp=8,dp=4", "node[0001-"), "hosts")
        self.assertField(lambda: c.order("tp=8,dp=4").rank(32), "rank", "32")
        self.assertField(lambda: c.spray("0:9", "1:0"), "src")
        self.assertField(lambda: c.spray((0, 0), (1, 0), qps=0), "qps", "0")
        self.assertField(lambda: c.spray((0, 0), (40, 0), hash="md5"), "hash", "md5")
        job = c.order("tp=8,dp=2")
        self.assertField(lambda: c.simulate("allsum", 1024, job), "collective", "allsum")
        self.assertField(lambda: c.simulate("allreduce", "1 parsec", job), "bytes")
        self.assertField(lambda: c.simulate("allreduce", 1024, job, group="tp",
                                            algorithm="pairwise"), "algorithm")
        e = self.assertField(lambda: c.simulate("alltoall", "1MiB", c.order("tp=8,dp=16"),
                                                max_memory="1KiB"),
                             "max_memory", code="resource_exhausted")
        self.assertIn("max_memory=1024 bytes", str(e))
        other = railyard.Cluster("gb200-nvl72-576").order("tp=4,dp=2")
        self.assertField(lambda: c.simulate("allreduce", 1024, other), "job")
        self.assertField(lambda: c.cc(mtu=3000), "mtu", "3000")
        self.assertField(lambda: c.cc(collective="allreduce"), "job")
        self.assertField(lambda: railyard.Allocator(c, "worst_fit"), "policy", "worst_fit")
        self.assertField(lambda: railyard.load_topology_conf(os.path.join(HERE, "missing.conf")),
                         "topology_conf")


class AllocatorTest(unittest.TestCase):
    def setUp(self):
        self.cluster = railyard.Cluster("h100-1024")
        self.alloc = railyard.Allocator(self.cluster)

    def test_best_fit_keeps_a_job_inside_one_su(self):
        small = self.alloc.allocate("small", gpus=64)
        big = self.alloc.allocate("big", gpus=256, tenant="acme")
        for a in (small, big):
            self.assertEqual(len(a.hosts), a.gpus // 8)
            self.assertEqual({h // 32 for h in a.hosts}, set(a.sus))
            self.assertEqual(len(a.sus), 1)
        self.assertFalse(set(small.hosts) & set(big.hosts))
        self.assertEqual(self.alloc.free_hosts, 128 - 8 - 32)
        self.assertEqual(self.alloc.owner_of(big.hosts[0]), big.job)

    def test_release_restores_and_partitions_follow_tenants(self):
        a = self.alloc.allocate("a", 64, tenant="t1")
        b = self.alloc.allocate("b", 64, tenant="t1")
        c = self.alloc.allocate("c", 64, tenant="t2")
        self.assertEqual(a.partition_id, b.partition_id)
        self.assertNotEqual(a.partition_id, c.partition_id)
        self.assertTrue(all(0x0001 <= p.partition_id <= 0x7FFE for p in (a, b, c)))
        self.alloc.release("a")
        self.alloc.release(b.job)
        self.assertIsNone(self.alloc.partition_of("t1"))
        self.assertEqual(self.alloc.free_hosts, 128 - 8)
        self.assertEqual([j.name for j in self.alloc.jobs()], ["c"])

    def test_allocator_errors(self):
        self.alloc.allocate("x", 64)
        with self.assertRaises(railyard.Error) as e:
            self.alloc.allocate("x", 64)
        self.assertEqual(e.exception.code, "already_exists")
        with self.assertRaises(railyard.Error) as e:
            self.alloc.allocate("huge", 8 * 121)
        self.assertEqual((e.exception.code, e.exception.field), ("resource_exhausted", "gpus"))
        with self.assertRaises(railyard.Error) as e:
            self.alloc.reserve("y", ["node0000", "node0001"])
        self.assertEqual((e.exception.code, e.exception.field), ("failed_precondition", "hosts"))
        with self.assertRaises(railyard.Error) as e:
            self.alloc.release("nobody")
        self.assertEqual(e.exception.code, "not_found")

    def test_reserve_by_slurm_hostlist(self):
        a = self.alloc.reserve("bg", "node[0100-0103]")
        self.assertEqual(a.hosts, (100, 101, 102, 103))
        self.assertEqual(a.gpus, 32)


def sport_from_flow_label(fl):
    """rdma_flow_label_to_udp_sport() of the Linux kernel (include/rdma/ib_verbs.h)."""
    fl_low = fl & 0x03FFF
    fl_high = fl & 0xFC000
    fl_low ^= fl_high >> 14
    return fl_low | 0xC000


class SprayTest(unittest.TestCase):
    def test_ports_are_distinct_roce_ports_from_their_flow_labels(self):
        cluster = railyard.Cluster("h100-1024")
        plan = cluster.spray(("node0000", 0), "40:0", qps=8)
        self.assertTrue(plan.steered)
        ports = plan.source_ports
        self.assertEqual(len(set(ports)), 8)
        for q in plan.qps:
            self.assertTrue(0xC000 <= q.udp_sport <= 0xFFFF)
            self.assertEqual(sport_from_flow_label(q.flow_label), q.udp_sport)
        # 8 QPs over 32 leaf uplinks (non-blocking, 64-port leaves): all different.
        self.assertEqual(len({q.uplink for q in plan.qps}), 8)
        self.assertAlmostEqual(sum(p.weight for p in plan.paths), 1.0, places=9)
        self.assertEqual(sum(p.qps for p in plan.paths), 8)
        for q in plan.qps:  # the path a QP takes leaves host 0 NIC 0 and reaches host 40 NIC 0
            hops = plan.paths[q.path].hops
            self.assertEqual((hops[0], hops[-1]), ("host0.nic0.p0", "host40.nic0.p0"))

    def test_spray_table_lookups(self):
        cluster = railyard.Cluster("h100-1024")
        plans = [cluster.spray((0, g), (40, g), qps=4) for g in range(8)]
        table = railyard.SprayTable(plans)
        self.assertEqual(table.connections, 8)
        for c, plan in enumerate(plans):
            self.assertEqual(table.qps(c), 4)
            for q in range(4):
                self.assertEqual(table.source_port(c, q), plan.source_ports[q])
                self.assertEqual(sport_from_flow_label(table.flow_label(c, q)),
                                 plan.source_ports[q])
        self.assertEqual(table.source_port(8, 0), 0)
        self.assertEqual(table.source_port(0, 4), 0)
        self.assertEqual(table.source_port(-1, 0), 0)
        self.assertEqual(table.source_port(2**40, 0), 0)
        self.assertEqual(table.flow_label(0, 2**70), 0)
        with self.assertRaises(TypeError):
            table.source_port(0)
        with self.assertRaises(TypeError):
            table.source_port("0", 1)
        lookup = table.source_port  # the function keeps the C++ table alive
        del table
        self.assertEqual(lookup(7, 3), plans[7].source_ports[3])


class SimulateTest(unittest.TestCase):
    def test_ring_allreduce_meets_the_closed_form_bound(self):
        # 8 dp groups (one per rail) of 4 ranks on 4 hosts of one SU: each ring
        # sends 2 (n - 1) / n * S through every rank's 400 Gb/s NIC, so
        # T >= 2 (n - 1) / n * S * 8 / 400e9 s, and a non-blocking leaf lets
        # every ring run at line rate: T stays within a few percent of it.
        cluster = railyard.Cluster("h100-1024")
        job = cluster.order("tp=8,dp=4", [0, 1, 2, 3])
        size = 1 << 30
        sim = cluster.simulate("allreduce", "1GiB", job, group="dp")
        n = 4
        bound_us = 2 * (n - 1) / n * size * 8 / 400e9 * 1e6
        self.assertEqual((sim.groups, sim.ranks, sim.bytes), (8, 4, size))
        self.assertAlmostEqual(sim.lower_bound_us, bound_us, delta=bound_us * 1e-3)
        self.assertGreaterEqual(sim.time_us, bound_us * (1 - 1e-6))
        self.assertLessEqual(sim.time_us, bound_us * 1.05)
        # busbw (nccl-tests): S / T * 2 (n - 1) / n.
        self.assertAlmostEqual(sim.busbw_gbps,
                               size * 8 / (sim.time_us * 1e3) * 2 * (n - 1) / n, delta=0.01)


class CcTest(unittest.TestCase):
    def test_cc_from_incast_and_from_a_job(self):
        cluster = railyard.Cluster("h100-1024-2to1")
        plan = cluster.cc(incast=8)
        self.assertEqual(plan["incast"], 8)
        for tier in plan["ecn_tiers"]:
            self.assertLess(tier["kmin_bytes"], tier["kmax_bytes"])
            self.assertTrue(0 < tier["pmax"] <= 1)
            # BDP = link rate x base RTT (400 Gb/s = 50e9 B/s), and the burst an
            # incast of N line-rate senders queues before the first CNP acts is
            # (N - 1) x BDP (docs/models.md#cc).
            self.assertAlmostEqual(tier["bdp_bytes"], 50e9 * tier["rtt_us"] * 1e-6,
                                   delta=tier["bdp_bytes"] * 1e-3)
            self.assertEqual(tier["incast_burst_bytes"], 7 * tier["bdp_bytes"])
        self.assertIn("NCCL_IB_QPS_PER_CONNECTION", plan["nccl_env"])
        job = cluster.order("tp=8,dp=16", "node[0000-0015]")
        all_to_all = cluster.cc(job=job, collective="alltoall", algorithm="pairwise", group="dp")
        self.assertEqual(all_to_all["incast"], 15)  # every other member of a 16-rank group


class ImportTest(unittest.TestCase):
    def test_topology_conf_and_csv(self):
        conf = railyard.load_topology_conf(
            os.path.join(SOURCE, "tests/cli/golden/export_slurm_tree_default.conf"))
        self.assertEqual(conf.hosts[0], "node0000")
        self.assertEqual(len(conf.hosts), 128)
        self.assertEqual([s["name"] for s in conf.switches], ["su0", "su1", "su2", "su3", "spine"])
        self.assertEqual(conf.inventory()["hosts"], 128)
        csv = railyard.load_topology_csv(os.path.join(SOURCE, "tests/cli/golden/export_csv_16k.csv"))
        self.assertEqual(len(csv.hosts), 2048)

    def test_cable_list_cluster_uses_the_files_names(self):
        cluster = railyard.Cluster.from_cables(os.path.join(SOURCE, "tests/data/cables/rail-2su.csv"))
        self.assertEqual(cluster.hosts, 8)
        self.assertEqual(cluster.host_names[0], "gpu01")
        # gpu06's host cable is miswired on purpose (the file's header): drained.
        self.assertEqual(cluster.drained, [cluster.host_id("gpu06")])
        alloc = railyard.Allocator(cluster)
        self.assertNotIn(cluster.host_id("gpu06"), alloc.allocate("j", 8 * 7).hosts)
        job = cluster.order("tp=8,dp=2", "gpu[05,01]")
        self.assertEqual(job.host_names, ["gpu01", "gpu05"])


if __name__ == "__main__":
    unittest.main()
