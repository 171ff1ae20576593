"""python -m railyard.launch without PyTorch: every node of a grant, started with
--dry-run, must compute the same table and a distinct node rank; the torchrun
command carries exactly the options torchrun's static rendezvous needs; bad
input exits 2 naming it. (test_launch_torchrun.py runs torchrun for real.)"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import railyard

SPEC = "rail_fat_tree:hosts=8,gpus_per_host=2,nics_per_host=2,hosts_per_su=4"
GRANT = ["node0005", "node0001", "node0004", "node0000"]  # SUs 1, 0, 1, 0


def launch(*args, env=None):
    full_env = dict(os.environ)
    for var in ("SLURM_JOB_NODELIST", "SLURMD_NODENAME", "NODE_NAME", "RAILYARD_THIS_HOST"):
        full_env.pop(var, None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "railyard.launch", *args], env=full_env,
                          capture_output=True, text=True, timeout=60)


def dry_run_options(out):
    """{option: value} of the torchrun command a dry run prints last."""
    words = out.strip().splitlines()[-1].split()
    return {w.split("=", 1)[0]: w.split("=", 1)[1] for w in words if w.startswith("--") and "=" in w}


class LaunchDryRunTest(unittest.TestCase):
    def test_every_node_gets_a_distinct_rank_from_one_table(self):
        nodelist = railyard.compress_hostlist(GRANT)
        job = railyard.Cluster(SPEC).order("tp=2,dp=4", GRANT)
        ranks = {}
        for host in GRANT:
            r = launch("--cluster", SPEC, "--job", "tp=2,dp=4", "--dry-run", "--print-table",
                       "--", "train.py", "--lr", "1",
                       env={"SLURM_JOB_NODELIST": nodelist, "SLURMD_NODENAME": host})
            self.assertEqual(r.returncode, 0, r.stderr)
            # The table on stderr: rank r on launch host r // 2, GPU r % 2.
            rows = [ln.split("\t") for ln in r.stderr.splitlines() if ln[:1].isdigit()]
            self.assertEqual([int(row[0]) for row in rows], list(range(8)))
            for row in rows:
                rank = int(row[0])
                self.assertEqual((row[1], int(row[2])), (job.host_names[rank // 2], rank % 2))
            opts = dry_run_options(r.stdout)
            self.assertEqual(opts["--nnodes"], "4")
            self.assertEqual(opts["--nproc_per_node"], "2")
            self.assertEqual(opts["--rdzv_backend"], "static")
            self.assertEqual(opts["--master_port"], "29500")
            self.assertEqual(opts["--master_addr"], job.host_names[0])
            self.assertTrue(r.stdout.strip().endswith("train.py --lr 1"))
            self.assertIn(f"RAILYARD_NODE_RANK={opts['--node_rank']}", r.stdout)
            self.assertIn(f"RAILYARD_HOST={host}", r.stdout)
            ranks[host] = int(opts["--node_rank"])
        self.assertEqual(sorted(ranks.values()), [0, 1, 2, 3])
        self.assertEqual(ranks, {h: job.node_rank(h) for h in GRANT})
        # SU 0's two hosts first (railyard groups by SU): node0000, node0001 get 0 and 1.
        self.assertEqual({ranks["node0000"], ranks["node0001"]}, {0, 1})

    def test_hostfile_and_k8s_pods(self):
        with tempfile.TemporaryDirectory() as tmp:
            hostfile = os.path.join(tmp, "hosts")
            with open(hostfile, "w") as f:
                f.write("# granted\n" + "".join(f"{h} slots=2\n" for h in GRANT))
            r = launch("--cluster", SPEC, "--job", "tp=2,dp=4", "--hostfile", hostfile,
                       "--this-host", "node0004", "--dry-run", "--", "t.py")
            self.assertEqual(r.returncode, 0, r.stderr)
            by_file = dry_run_options(r.stdout)["--node_rank"]
            pods = {"kind": "List", "items": [
                {"metadata": {"name": f"w-{i}"}, "spec": {"nodeName": h},
                 "status": {"podIP": f"10.0.0.{i + 1}"}} for i, h in enumerate(GRANT)]}
            podfile = os.path.join(tmp, "pods.json")
            with open(podfile, "w") as f:
                json.dump(pods, f)
            r = launch("--cluster", SPEC, "--job", "tp=2,dp=4", "--k8s-pods", podfile,
                       "--dry-run", "--", "t.py", env={"NODE_NAME": "node0004"})
            self.assertEqual(r.returncode, 0, r.stderr)
            opts = dry_run_options(r.stdout)
            self.assertEqual(opts["--node_rank"], by_file)
            # MASTER_ADDR: the pod IP on node rank 0's node.
            first = railyard.Cluster(SPEC).order("tp=2,dp=4", GRANT).host_names[0]
            self.assertEqual(opts["--master_addr"], f"10.0.0.{GRANT.index(first) + 1}")

    def test_errors_exit_2_naming_the_input(self):
        base = ["--cluster", SPEC, "--job", "tp=2,dp=4", "--dry-run"]
        cases = [
            (["--nodelist", "node[0000-0003]", "--this-host", "node0007"], "node0007"),
            (["--nodelist", "node[0000-0002],gpu9", "--this-host", "node0000"], "gpu9"),
            (["--nodelist", "node[0000-0002]", "--this-host", "node0000"], "--job"),
            (["--nodelist", "node[0000-", "--this-host", "node0000"], "--nodelist"),
            (["--nodelist", "node[0000-0003]", "--this-host", "node0000", "--nproc-per-node", "8"],
             "--nproc-per-node=8"),
            (["--this-host", "node0000"], "SLURM_JOB_NODELIST"),
        ]
        for extra, needle in cases:
            r = launch(*base, *extra, "--", "t.py")
            self.assertEqual(r.returncode, 2, (extra, r.stdout, r.stderr))
            self.assertIn(needle, r.stderr, extra)
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
