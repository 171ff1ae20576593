"""torchrun (torch.distributed.run's main) with one compatibility fix.

PyTorch 1.13 -- Debian 12's python3-torch -- parses --redirects and --tee with
``Std.from_str``, which looks the number up by iterating the ``Std`` IntFlag
(torch/distributed/elastic/multiprocessing/api.py, ``to_std``). Since Python
3.11, iterating a Flag yields only its canonical single-bit members, not NONE (0)
or the multi-bit ALL (3) (CPython bpo-38250, "[Enum] single-bit flags are
canonical"; the enum HOWTO's "Flag and IntFlag minutia"), so the default "0"
comes back None and the agent dies in ``to_map`` ("'NoneType' object has no attribute
'get'") before starting a worker. When that is the case here, ``Std.from_str``
is replaced by a lookup by value (``Std(int(v))``) with the same regular
expressions; otherwise nothing is changed. Then torchrun runs as it is:

    python3 -m railyard._torchrun --nnodes=2 --node_rank=0 ... train.py
"""

import re
import sys
from typing import Any


def _fix_std_from_str() -> None:
    from torch.distributed.elastic.multiprocessing import api

    if api.Std.from_str("0") is not None:
        return  # a PyTorch that works on this Python

    def from_str(cls: Any, vm: str) -> Any:
        if re.match(api._VALUE_REGEX, vm):
            return cls(int(vm))
        if re.match(api._MAPPING_REGEX, vm):
            return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
        raise ValueError(f"{vm} does not match: <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")

    api.Std.from_str = classmethod(from_str)  # type: ignore[assignment]


def main() -> None:
    _fix_std_from_str()
    from torch.distributed.run import main as torchrun_main

    torchrun_main(sys.argv[1:])


if __name__ == "__main__":
    main()
