"""python -m railyard.launch — start torchrun on this node with railyard's node rank.

Run the same command on every node a scheduler granted; each computes the same
rank table from the job plan and the granted hosts, finds its own host in it and
execs torchrun with the node rank railyard gives that host::

    # Slurm (one task per node): hosts from SLURM_JOB_NODELIST, this host from SLURMD_NODENAME
    srun --ntasks-per-node=1 python3 -m railyard.launch --cluster h100-1024 \\
        --job tp=8,pp=4,dp=4 -- train.py --lr 3e-4

    # A hostfile (one host per line; "host slots=8" accepted), this host by name
    python3 -m railyard.launch --cluster h100-1024 --job tp=8,dp=2 \\
        --hostfile hosts.txt --this-host node0041 -- train.py

    # Kubernetes: `kubectl get pods -o json` of the job's pods; this node from
    # NODE_NAME (downward API, spec.nodeName); MASTER_ADDR is the pod IP on node rank 0
    python3 -m railyard.launch --cluster h100-1024 --job tp=8,dp=2 \\
        --k8s-pods pods.json -- train.py

What torchrun gets (names as torch/distributed/run.py of PyTorch 1.13 spells
them; PyTorch 2 accepts the same underscore forms beside its dashed aliases)::

    python3 -m railyard._torchrun --nnodes=N --node_rank=K --nproc_per_node=G
        --rdzv_backend=static --master_addr=A --master_port=P SCRIPT ARGS...

railyard._torchrun is torchrun's own main() (torch.distributed.run) behind one
compatibility fix that PyTorch 1.13 needs on Python 3.11 (see its docstring);
with a PyTorch that does not need it, it changes nothing.

The static rendezvous is the one where the node rank is ours to give
(run.py: ``if args.rdzv_backend == "static": rdzv_configs["rank"] = args.node_rank``);
its agents number workers RANK = K * G + LOCAL_RANK, so rank r runs on node rank
r // G — railyard's host hosts[r // G] — as LOCAL_RANK r % G: railyard's GPU
index. MASTER_ADDR is the host of node rank 0 (its name, or with --k8s-pods its
pod IP; --master-addr overrides).

The environment torchrun passes on to every worker also carries
RAILYARD_NODE_RANK, RAILYARD_HOST (this host's name), RAILYARD_ORDER (the
Megatron order string railyard chose) and RAILYARD_MEGATRON_ARGS (the
Megatron-LM arguments that reproduce the numbering, e.g.
``--tensor-model-parallel-size 8 --pipeline-model-parallel-size 4 ...``); the
Megatron lines are printed on stderr too. --dry-run prints the torchrun command
instead of running it; --print-table prints the whole rank table.

Errors (a host not in the cluster, this host not among the granted ones, a plan
that does not fill the hosts) go to stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import socket
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import railyard

# Where this host's name comes from when --this-host is not given, in order:
# railyard's own variable, Slurm's (set in every task), the Kubernetes downward
# API convention (env NODE_NAME from spec.nodeName).
THIS_HOST_VARIABLES = ("RAILYARD_THIS_HOST", "SLURMD_NODENAME", "NODE_NAME")


class LaunchError(Exception):
    pass


def read_hostfile(path: str) -> List[str]:
    """Host names from a hostfile: the first word of each line; blank lines and
    '#' comments skipped ("host slots=8" as DeepSpeed and Open MPI write it)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise LaunchError(f"--hostfile={path}: {e.strerror}") from None
    hosts = []
    for line in lines:
        words = line.split("#", 1)[0].split()
        if words:
            hosts.append(words[0])
    if not hosts:
        raise LaunchError(f"--hostfile={path}: no hosts in the file")
    return hosts


def read_k8s_pods(path: str) -> Tuple[List[str], Dict[str, str]]:
    """Node names and node -> pod IP from `kubectl get pods -o json` (a List with
    items[].spec.nodeName and items[].status.podIP), in the file's order."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise LaunchError(f"--k8s-pods={path}: {e.strerror}") from None
    except ValueError as e:
        raise LaunchError(f"--k8s-pods={path}: not JSON ({e})") from None
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise LaunchError(f"--k8s-pods={path}: expected `kubectl get pods -o json` output "
                          "(an object with a non-empty items list)")
    nodes, ips = [], {}
    for i, pod in enumerate(items):
        name = (pod.get("metadata") or {}).get("name", f"items[{i}]")
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            raise LaunchError(f"--k8s-pods={path}: pod {name} has no spec.nodeName "
                              "(not scheduled yet?)")
        nodes.append(node)
        ip = (pod.get("status") or {}).get("podIP")
        if ip:
            ips[node] = ip
    return nodes, ips


def this_host(given: Optional[str]) -> str:
    if given:
        return given
    for var in THIS_HOST_VARIABLES:
        if os.environ.get(var):
            return os.environ[var]
    return socket.gethostname().split(".")[0]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m railyard.launch",
        description="Start torchrun on this node with the node rank railyard's ordering "
                    "gives it. Run the same command on every granted node.",
        epilog="Everything after the first '--' (or the first positional) is the training "
               "script and its arguments.")
    p.add_argument("--cluster", default="h100-1024-2to1",
                   help="cluster spec or preset (default h100-1024-2to1)")
    p.add_argument("--cables", help="fit the cluster from a cable list instead (host names "
                                    "are the file's)")
    p.add_argument("--node-names", dest="node_names",
                   help="host name pattern of the cluster, e.g. gpu-{su:02}-{slot:03} "
                        "(default node{host:04})")
    p.add_argument("--job", required=True, help="parallelism plan, e.g. tp=8,pp=4,dp=4")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--nodelist", help="Slurm hostlist of the granted hosts "
                                        "(default: $SLURM_JOB_NODELIST)")
    src.add_argument("--hostfile", help="file with one granted host per line")
    src.add_argument("--k8s-pods", dest="k8s_pods",
                     help="`kubectl get pods -o json` of the job's pods")
    p.add_argument("--this-host", dest="this_host",
                   help="this node's host name (default: $RAILYARD_THIS_HOST, "
                        "$SLURMD_NODENAME, $NODE_NAME, else the short hostname)")
    p.add_argument("--order", choices=("railyard", "naive"), default="railyard",
                   help="railyard's numbering (default) or the hosts in granted order")
    p.add_argument("--master-addr", dest="master_addr",
                   help="MASTER_ADDR (default: node rank 0's host name, or its pod IP)")
    p.add_argument("--master-port", dest="master_port", type=int, default=29500)
    p.add_argument("--nproc-per-node", dest="nproc_per_node", type=int,
                   help="workers per node (default and only accepted value: the cluster's "
                        "GPUs per host)")
    p.add_argument("--dry-run", dest="dry_run", action="store_true",
                   help="print the torchrun command and environment instead of running it")
    p.add_argument("--print-table", dest="print_table", action="store_true",
                   help="print the rank table (rank host gpu tp cp ep dp pp) on stderr")
    p.add_argument("script", nargs=argparse.REMAINDER, help="training script and its arguments")
    args = p.parse_args(argv)
    if args.script and args.script[0] == "--":
        args.script = args.script[1:]
    if not args.script:
        p.error("no training script given (put it after --)")
    if not 1 <= args.master_port <= 65535:
        p.error(f"--master-port={args.master_port}: must be in [1, 65535]")
    return args


def granted_hosts(args: argparse.Namespace) -> Tuple[List[str], Dict[str, str], str]:
    """The granted host names, pod IPs by node (Kubernetes), and where they came from."""
    if args.hostfile:
        return read_hostfile(args.hostfile), {}, f"--hostfile={args.hostfile}"
    if args.k8s_pods:
        nodes, ips = read_k8s_pods(args.k8s_pods)
        return nodes, ips, f"--k8s-pods={args.k8s_pods}"
    text = args.nodelist or os.environ.get("SLURM_JOB_NODELIST")
    origin = "--nodelist" if args.nodelist else "SLURM_JOB_NODELIST"
    if not text:
        raise LaunchError("no granted hosts: give --nodelist, --hostfile or --k8s-pods, or run "
                          "inside a Slurm allocation (SLURM_JOB_NODELIST)")
    try:
        return railyard.expand_hostlist(text), {}, origin
    except railyard.Error as e:
        raise LaunchError(f"{origin}: {e}") from None


def plan_launch(args: argparse.Namespace) -> Tuple[List[str], Dict[str, str], str]:
    """The torchrun command, the environment to add, and a report for stderr."""
    try:
        if args.cables:
            cluster = railyard.Cluster.from_cables(args.cables, node_names=args.node_names)
        else:
            cluster = railyard.Cluster(args.cluster, node_names=args.node_names)
    except railyard.Error as e:
        raise LaunchError(f"--{'cables' if args.cables else 'cluster'}: {e}") from None
    names, pod_ips, origin = granted_hosts(args)
    try:
        job = cluster.order(args.job, names, naive=args.order == "naive")
    except railyard.Error as e:
        where = origin if e.field == "hosts" else "--job"
        raise LaunchError(f"{where}: {e}") from None
    me = this_host(args.this_host)
    if me not in names:
        raise LaunchError(f"this host '{me}' is not among the {len(names)} granted hosts "
                          f"({origin}: {railyard.compress_hostlist(names)}); give --this-host")
    g = job.gpus_per_host
    if args.nproc_per_node is not None and args.nproc_per_node != g:
        raise LaunchError(f"--nproc-per-node={args.nproc_per_node}: the cluster has {g} GPUs "
                          "per host and railyard's table runs one rank per GPU")
    node_rank = job.node_rank(me)
    launch_names = job.host_names
    master = args.master_addr or pod_ips.get(launch_names[0], launch_names[0])
    megatron = job.megatron_args()
    cmd = [sys.executable, "-m", "railyard._torchrun",
           f"--nnodes={len(job.hosts)}", f"--node_rank={node_rank}", f"--nproc_per_node={g}",
           "--rdzv_backend=static", f"--master_addr={master}",
           f"--master_port={args.master_port}", *args.script]
    env = {
        "RAILYARD_NODE_RANK": str(node_rank),
        "RAILYARD_HOST": me,
        "RAILYARD_ORDER": job.order,
        "RAILYARD_MEGATRON_ARGS": " ".join(megatron),
    }
    report = [f"railyard.launch: {me} is node rank {node_rank} of {len(job.hosts)} "
              f"(ranks {node_rank * g}-{node_rank * g + g - 1}); plan {job.plan}",
              f"railyard.launch: launch order {railyard.compress_hostlist(launch_names)}",
              *(f"railyard.launch: {note}" for note in job.megatron_notes()),
              f"railyard.launch: Megatron-LM arguments: {' '.join(megatron)}"]
    if args.print_table:
        report.append("rank\thost\tgpu\ttp\tcp\tep\tdp\tpp")
        report += [f"{r.rank}\t{r.host_name}\t{r.gpu}\t{r.tp}\t{r.cp}\t{r.ep}\t{r.dp}\t{r.pp}"
                   for r in job.ranks()]
    return cmd, env, "\n".join(report)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cmd, env, report = plan_launch(args)
    except LaunchError as e:
        print(f"railyard.launch: {e}", file=sys.stderr)
        return 2
    print(report, file=sys.stderr)
    # find_spec("torch") locates the package without importing it (the import,
    # ~2 s, happens once, in torchrun).
    if not args.dry_run and importlib.util.find_spec("torch") is None:
        print(f"railyard.launch: PyTorch is not installed for {sys.executable} "
              "(Debian: apt-get install python3-torch); --dry-run prints the command",
              file=sys.stderr)
        return 2
    if args.dry_run:
        for k, v in env.items():
            print(f"{k}={shlex.quote(v)}")
        print(shlex.join(cmd))
        return 0
    sys.stderr.flush()
    os.environ.update(env)
    os.execv(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
