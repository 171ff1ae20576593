"""python -m railyard.launch with real torchrun: two "nodes" on 127.0.0.1, each
a launch process told a different host name, start torchrun (static rendezvous,
2 CPU workers each, gloo); the workers all-gather (RANK, LOCAL_RANK, host) and
every process's RANK must be the rank railyard's table puts on that host and
GPU. Skipped, with the reason, when PyTorch (Debian: python3-torch) or its gloo
backend is missing."""

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import railyard

# Located, not imported (an import costs ~2.5 s of CPU; the workers import it,
# and one built without gloo fails the test with torch's own message).
TORCH_MISSING = None if importlib.util.find_spec("torch") is not None else \
    f"PyTorch not installed for {sys.executable}; Debian: apt-get install python3-torch"

HERE = os.path.dirname(os.path.abspath(__file__))
# 4 hosts of 2 GPUs, SUs of 2 hosts. The grant lists SU 1's host first; railyard
# groups hosts by SU (ties: lowest id first), so the launch order is node0000
# (SU 0), node0002 (SU 1): node0002, first in the grant, is node rank 1. (Two
# nodes of two workers: six PyTorch imports, ~15 s of CPU.)
SPEC = "rail_fat_tree:hosts=4,gpus_per_host=2,nics_per_host=2,hosts_per_su=2"
PLAN = "tp=2,dp=2"
GRANT = ["node0002", "node0000"]
EXPECTED_LAUNCH_ORDER = ["node0000", "node0002"]
WORLD = 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipIf(TORCH_MISSING, TORCH_MISSING)
class TorchrunTest(unittest.TestCase):
    def test_every_rank_lands_where_railyard_put_it(self):
        job = railyard.Cluster(SPEC).order(PLAN, GRANT)
        self.assertEqual(job.host_names, EXPECTED_LAUNCH_ORDER)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "ranks.json")
            env = dict(os.environ)
            env.update({"SLURM_JOB_NODELIST": railyard.compress_hostlist(GRANT),
                        "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
                        # torchrun's --monitor_interval (5 s) through its PET_ variable:
                        # the agents notice finished workers sooner.
                        "PET_MONITOR_INTERVAL": "0.5"})
            port = str(free_port())
            procs = []
            for host in GRANT:  # each "node" names its own host
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "railyard.launch", "--cluster", SPEC, "--job", PLAN,
                     "--this-host", host, "--master-addr", "127.0.0.1", "--master-port", port,
                     "--", os.path.join(HERE, "torchrun_worker.py"), out],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
            deadline = time.monotonic() + 100
            logs = []
            try:
                for p in procs:
                    logs.append(p.communicate(timeout=max(1, deadline - time.monotonic()))[0])
            finally:
                for p in procs:
                    if p.poll() is None:
                        p.kill()
                        p.wait()
            for host, p, log in zip(GRANT, procs, logs):
                self.assertEqual(p.returncode, 0, f"{host}:\n{log}")
            with open(out) as f:
                everyone = json.load(f)

        g = 2
        self.assertEqual(len(everyone), WORLD)
        self.assertEqual(sorted(e["rank"] for e in everyone), list(range(WORLD)))
        for e in everyone:
            r = e["rank"]
            self.assertEqual(e["dist_rank"], r)
            self.assertEqual(e["world_size"], WORLD)
            # railyard's table: rank r on hosts[r // G], GPU (LOCAL_RANK) r % G.
            mine = job.rank(r)
            self.assertEqual(e["host"], mine.host_name, e)
            self.assertEqual(e["local_rank"], mine.gpu, e)
            # and the launcher formula, with the hand-derived launch order.
            self.assertEqual(e["host"], EXPECTED_LAUNCH_ORDER[r // g], e)
            self.assertEqual(e["local_rank"], r % g, e)
            self.assertEqual(e["group_rank"], e["node_rank"])
            self.assertEqual(e["order"], job.order)
            self.assertIn("--tensor-model-parallel-size 2", e["megatron"])


if __name__ == "__main__":
    unittest.main()
