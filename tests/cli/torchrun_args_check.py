#!/usr/bin/env python3
"""The torchrun commands railyard writes, parsed by the installed PyTorch's own
torchrun argument parser (torch.distributed.run.get_args_parser).

    torchrun_args_check.py <railyard-binary>

Runs `railyard export --format torchrun --out DIR` for a 3-node job and, for
every torchrun-node-<k>.sh, hands the command's arguments (with the training
script appended for "$@") to torchrun's parser: an unknown or misspelt flag
makes argparse exit, and the parsed values must be the node count, GPUs per
node, node rank k, the static rendezvous, the master (node 0's host) and the
port asked for. Exit 0 passed, 1 failed, 77 skipped (PyTorch not importable:
Debian's python3-torch).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: torchrun_args_check.py <railyard-binary>", file=sys.stderr)
        return 2
    railyard = sys.argv[1]
    try:
        import torch
        from torch.distributed.run import get_args_parser
    except Exception as e:  # noqa: BLE001 - any import failure means "no PyTorch here"
        print(f"SKIPPED: PyTorch is not importable by {sys.executable} ({e}); "
              "Debian: apt-get install python3-torch")
        return 77
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([railyard, "export", "--format", "torchrun", "--job", "tp=8,dp=3",
                        "--hosts", "node[0040,0003,0017]", "--master-port", "29411",
                        "--out", out], check=True, stdout=subprocess.DEVNULL)
        files = sorted(f for f in os.listdir(out) if re.fullmatch(r"torchrun-node-\d+\.sh", f))
        if len(files) != 3:
            print(f"FAILED: expected 3 node scripts, found {files}")
            return 1
        texts = {int(re.search(r"\d+", f).group()): open(os.path.join(out, f)).read()
                 for f in files}
        master = re.search(r"run on (\S+) ", texts[0]).group(1)
        for k, text in sorted(texts.items()):
            lines = [l for l in text.splitlines() if l.startswith("exec torchrun ")]
            if len(lines) != 1:
                print(f"FAILED: node {k}: no single 'exec torchrun' line in\n{text}")
                return 1
            words = shlex.split(lines[0])[2:]  # drop "exec torchrun"
            if words[-1] != "$@":
                print(f"FAILED: node {k}: the command does not end with \"$@\": {lines[0]}")
                return 1
            argv = words[:-1] + ["train.py", "--epochs", "3"]
            try:
                args = get_args_parser().parse_args(argv)
            except SystemExit:
                print(f"FAILED: node {k}: torch {torch.__version__}'s torchrun rejects {argv}")
                return 1
            got = (args.nnodes, args.nproc_per_node, args.node_rank, args.rdzv_backend,
                   args.master_addr, args.master_port, args.training_script,
                   args.training_script_args)
            want = ("3", "8", k, "static", master, 29411, "train.py", ["--epochs", "3"])
            if got != want:
                print(f"FAILED: node {k}: parsed {got}, expected {want}")
                return 1
        if master not in ("node0040", "node0003", "node0017"):
            print(f"FAILED: master {master} is not a job host")
            return 1
    print(f"PASSED: 3 node commands parsed by torch {torch.__version__}'s torchrun parser "
          f"(master {master})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
