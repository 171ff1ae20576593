"""The training script of test_launch_torchrun.py, run by real torchrun agents:
joins the gloo process group torchrun's environment describes, all-gathers what
each process was told (RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE) and which host
it runs on (RAILYARD_HOST, set by railyard.launch), and rank 0 writes the list
to argv[1]."""
import json
import os
import sys

import torch.distributed as dist


def main() -> int:
    dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
    me = {
        "rank": int(os.environ["RANK"]),
        "local_rank": int(os.environ["LOCAL_RANK"]),
        "group_rank": int(os.environ["GROUP_RANK"]),
        "world_size": int(os.environ["WORLD_SIZE"]),
        "dist_rank": dist.get_rank(),
        "host": os.environ["RAILYARD_HOST"],
        "node_rank": int(os.environ["RAILYARD_NODE_RANK"]),
        "order": os.environ["RAILYARD_ORDER"],
        "megatron": os.environ["RAILYARD_MEGATRON_ARGS"],
    }
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, me)
    if dist.get_rank() == 0:
        with open(sys.argv[1], "w") as f:
            json.dump(everyone, f)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
