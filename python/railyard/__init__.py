"""railyard for Python: rank ordering, placement, spraying, congestion control and
collective simulation for GPU cluster fabrics, in process.

The package binds railyard's header-only C++ library (pybind11); every call runs
the same code as the ``railyard`` command line and the C++ API::

    import railyard

    cluster = railyard.Cluster("h100-1024")              # a spec string or preset
    job = cluster.order("tp=8,pp=4,dp=4", hosts="node[0040-0041,0008-0015,0042-0047]")
    job.order                      # the Megatron order string railyard chose
    job.hosts                      # node rank i runs on host job.hosts[i] (ids)
    r = job.rank(17)               # Rank(rank=17, host=..., gpu=1, tp=1, ...)

    alloc = railyard.Allocator(cluster)                  # best_fit
    a = alloc.allocate("llm", gpus=256, tenant="acme")   # Allocation(hosts=(...), sus=(0,), ...)
    alloc.release("llm")

    plan = cluster.spray((0, 0), (40, 0), qps=8)         # SprayPlan: paths, QPs, UDP source ports
    table = railyard.SprayTable([plan])                  # hot-path lookups
    table.source_port(0, 3)

    cluster.cc(incast=8)["ecn"]                          # ECN, DCQCN, HPCC, NCCL env (dict)
    sim = cluster.simulate("allreduce", "1GiB", job, group="dp")
    sim.busbw_gbps

Host lists (``hosts=``) take host ids (``[0, 1, 2]`` or ``"0-15,32-47"``), host
names (``["node0003", "node0000"]``) or a Slurm hostlist expression (the value of
``SLURM_JOB_NODELIST``, e.g. ``"node[0000-0003,0040]"``). Names come from the
cluster: its node-name pattern (default ``node{host:04}``, see
``Cluster(node_names=...)``), an explicit list, or the names in an imported cable
list.

Every bad input raises :class:`railyard.Error`, a ``ValueError`` whose
``field`` and ``value`` name what was wrong (see :mod:`railyard.errors`).

``python -m railyard.launch`` starts torchrun on a node with the node rank
railyard's ordering gives that node (:mod:`railyard.launch`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field as dataclass_field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union, cast

from . import _railyard
from .errors import Error

__version__: str = _railyard.version

__all__ = [
    "Allocation",
    "Allocator",
    "Cluster",
    "Error",
    "Path",
    "Qp",
    "Rank",
    "RankOrder",
    "SchedulerTopology",
    "Simulation",
    "SprayPlan",
    "SprayTable",
    "compress_hostlist",
    "expand_hostlist",
    "load_topology_conf",
    "load_topology_csv",
]

HostList = Union[None, str, Iterable[Union[int, str]]]
StrPath = Union[str, "os.PathLike[str]"]
Endpoint = Union[str, Tuple[Union[int, str], int], Tuple[Union[int, str], int, int]]

_ID_LIST = re.compile(r"^[0-9][0-9,\-\s]*$")
_SIZE = re.compile(r"^\s*([0-9]+)\s*([KMGT]i?B|B)?\s*$")
_SIZE_UNITS = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
               "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}


def expand_hostlist(text: str) -> List[str]:
    """Expands a Slurm hostlist expression (``"gpu[01-03],login1"``) into names.

    Follows Slurm's grammar (``scontrol show hostnames``): ranges keep the
    zero padding of their first number, several bracket groups expand as a
    product. Raises Error(field="hosts") for malformed input.
    """
    return list(_railyard.expand_hostlist(text))


def compress_hostlist(names: Iterable[str]) -> str:
    """The shortest Slurm hostlist expression for ``names``, in their order."""
    return _railyard.compress_hostlist(list(names))


def _parse_size(field: str, value: Union[int, str]) -> int:
    if isinstance(value, bool):
        raise Error(f"{field}={value}: not a size", field=field, value=str(value))
    if isinstance(value, int):
        return value
    m = _SIZE.match(str(value))
    if not m:
        raise Error(f"{field}={value}: not a size (bytes, or e.g. 256MiB, 1GiB)",
                    field=field, value=str(value))
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


@dataclass(frozen=True)
class Rank:
    """One rank of a job: it runs on ``host`` (id; ``host_name``), GPU ``gpu``,
    with parallel coordinates tp, cp, ep, dp, pp. ``node_rank`` is its host's
    position in the launch order (torchrun's ``--node_rank``), ``gpu`` its
    ``LOCAL_RANK``."""

    rank: int
    node_rank: int
    host: int
    host_name: str
    gpu: int
    tp: int
    cp: int
    ep: int
    dp: int
    pp: int


@dataclass(frozen=True)
class Allocation:
    """Where a job went: its hosts (ascending ids, and their names), the SUs and
    pods they lie in, and the tenant's partition id (IB P_Key or VLAN)."""

    job: int
    name: str
    tenant: str
    gpus: int
    hosts: Tuple[int, ...]
    host_names: Tuple[str, ...]
    sus: Tuple[int, ...]
    pods: Tuple[int, ...]
    partition_id: int

    @property
    def split_across_sus(self) -> bool:
        return len(self.sus) > 1


@dataclass(frozen=True)
class Path:
    """One usable up/down path of a connection: its hops (link names), its
    share of the connection (``weight``), its bottleneck and the QPs on it."""

    path: int
    hops: Tuple[str, ...]
    weight: float
    bottleneck_gbps: float
    qps: int


@dataclass(frozen=True)
class Qp:
    """One QP of a connection: the path it takes (-1: not steerable), its
    source-leaf uplink, and the RoCEv2 UDP source port (0xC000..0xFFFF) and GRH
    flow label that put it there."""

    qp: int
    path: int
    uplink: int
    udp_sport: int
    flow_label: int
    dst_qpn: int


@dataclass(frozen=True)
class SprayPlan:
    """A spraying plan for one connection (``railyard spray --json``)."""

    src: str
    dst: str
    model: str
    steered: bool
    paths: Tuple[Path, ...]
    qps: Tuple[Qp, ...]
    expected_efficiency: float
    expected_uplinks_hit: float
    max_qps_per_uplink: int
    unmet_targets: int

    @property
    def source_ports(self) -> List[int]:
        """The UDP source port of each QP, by QP index."""
        return [q.udp_sport for q in self.qps]


@dataclass(frozen=True)
class Simulation:
    """A collective simulated on a job's ranks (``railyard simulate --json``):
    time, algorithm and bus bandwidth, the bandwidth lower bound, the busiest
    link's utilization; ``report`` holds the whole JSON object (phases, tiers)."""

    collective: str
    algorithm: str
    routing: str
    groups: int
    ranks: int
    bytes: int
    time_us: float
    analytic_us: float
    algbw_gbps: float
    busbw_gbps: float
    lower_bound_us: float
    max_link_utilization: float
    report: Dict[str, Any] = dataclass_field(repr=False, compare=False)


class Cluster:
    """A GPU cluster: hosts, GPUs, NICs, rails, switches and NVLink domains.

    ``Cluster(spec)`` takes a spec string (``"rail_fat_tree:hosts=256,oversub=2:1"``)
    or a preset name (``"h100-1024"``; docs/cluster-spec.md). ``node_names`` names
    the hosts for host lists given by name: a pattern (``"gpu-{su:02}-{slot:03}"``,
    placeholders {host}, {su}, {pod}, {slot}, {domain}; default
    ``node{host:04}``) or a list with one name per host id (e.g. Slurm names
    counted from 1: ``[f"gpu{h + 1:03}" for h in range(128)]``).
    """

    def __init__(self, spec: str = "h100-1024-2to1", *,
                 node_names: Union[None, str, Sequence[str]] = None) -> None:
        self._init(_railyard.Cluster.from_spec(spec), node_names)

    def _init(self, native: Any, node_names: Union[None, str, Sequence[str]]) -> None:
        self._native = native
        self._summary = native.summary()
        if node_names is None or isinstance(node_names, str):
            names = list(native.host_names(node_names))
        else:
            names = [str(n) for n in node_names]
            if len(names) != self._summary["hosts"]:
                raise Error(f"node_names: {len(names)} names for {self._summary['hosts']} hosts",
                            field="node_names", value=str(len(names)))
        index: Dict[str, int] = {}
        for h, n in enumerate(names):
            if n in index:
                raise Error(f"node_names: '{n}' names hosts {index[n]} and {h}",
                            field="node_names", value=n)
            index[n] = h
        self._names: List[str] = names
        self._index: Dict[str, int] = index

    @classmethod
    def from_cables(cls, path: StrPath, *,
                    node_names: Union[None, str, Sequence[str]] = None) -> "Cluster":
        """The cluster fitted from a cable list (CSV of cables, docs/import.md);
        host names are the file's. Hosts with a missing or miswired host cable are
        ``drained``: an Allocator gives them no job."""
        return cls._fitted(path, False, node_names)

    @classmethod
    def from_ibnetdiscover(cls, path: StrPath, *,
                           node_names: Union[None, str, Sequence[str]] = None) -> "Cluster":
        """The cluster fitted from ``ibnetdiscover`` output (docs/import.md)."""
        return cls._fitted(path, True, node_names)

    @classmethod
    def _fitted(cls, path: StrPath, ib: bool,
                node_names: Union[None, str, Sequence[str]]) -> "Cluster":
        field = "ibnetdiscover" if ib else "cables"
        text = _read(field, path)
        self = cls.__new__(cls)
        self._init(_railyard.Cluster.from_cable_list(text, ib, f"--{field}={os.fspath(path)}"),
                   node_names)
        return self

    # -- shape ------------------------------------------------------------------
    spec = property(lambda self: self._summary["spec"], doc="The canonical spec string.")
    kind = property(lambda self: self._summary["kind"],
                    doc="rail_fat_tree, tor_fat_tree or rail_only.")
    hosts = property(lambda self: self._summary["hosts"], doc="Number of hosts.")
    gpus_per_host = property(lambda self: self._summary["gpus_per_host"])
    nics_per_host = property(lambda self: self._summary["nics_per_host"])
    gpus = property(lambda self: self._summary["gpus"])
    hosts_per_su = property(lambda self: self._summary["hosts_per_su"])
    sus = property(lambda self: self._summary["sus"], doc="Scalable units (leaf groups).")
    pods = property(lambda self: self._summary["pods"])
    tiers = property(lambda self: self._summary["tiers"])
    planes = property(lambda self: self._summary["planes"])

    @property
    def host_names(self) -> List[str]:
        """Every host's name, by host id."""
        return list(self._names)

    @property
    def drained(self) -> List[int]:
        """Hosts of a fitted cable list with a missing or miswired host cable."""
        return list(self._native.drained)

    def host_name(self, host: int) -> str:
        """The name of host id ``host``."""
        self._check_id("host", host)
        return self._names[host]

    def host_id(self, name: str) -> int:
        """The id of the host named ``name``; Error(field="hosts") if none."""
        h = self._index.get(name)
        if h is None:
            first, last = self._names[0], self._names[-1]
            raise Error(f"hosts: '{name}' is not a host of the cluster ({first} .. {last})",
                        field="hosts", value=name)
        return h

    def su_of(self, host: int) -> int:
        """The scalable unit of host ``host`` (hosts are SU-major)."""
        return int(self._native.place_of(host)[0])

    def pod_of(self, host: int) -> int:
        return int(self._native.place_of(host)[1])

    def domain_of(self, host: int) -> int:
        """The NVLink domain of host ``host``."""
        return int(self._native.place_of(host)[2])

    def describe(self) -> Dict[str, Any]:
        """The inventory (``railyard describe --json``): switches, links, cables,
        bisection bandwidth; for a fitted cable list, the fit and its findings."""
        return cast(Dict[str, Any], json.loads(self._native.describe_json()))

    def _check_id(self, field: str, host: Any) -> int:
        if isinstance(host, bool) or not isinstance(host, int):
            raise Error(f"{field}={host!r}: not a host id", field=field, value=repr(host))
        if not 0 <= host < self.hosts:
            raise Error(f"{field}={host}: out of range (the cluster has hosts 0..{self.hosts - 1})",
                        field=field, value=str(host))
        return host

    def resolve_hosts(self, hosts: HostList, field: str = "hosts") -> List[int]:
        """Host ids from a host list: None (empty), ids, names, an id-list string
        (``"0-15,32"``) or a Slurm hostlist of names. Order is kept."""
        if hosts is None:
            return []
        if isinstance(hosts, str):
            if _ID_LIST.match(hosts):
                return list(_railyard.parse_host_ids(hosts, self.hosts))
            items: Iterable[Union[int, str]] = expand_hostlist(hosts)
        else:
            items = hosts
        out = []
        for h in items:
            if isinstance(h, str):
                out.append(self.host_id(h))
            else:
                out.append(self._check_id(field, h))
        return out

    # -- operations -------------------------------------------------------------
    def order(self, plan: str, hosts: HostList = None, *, naive: bool = False) -> "RankOrder":
        """Numbers a job's ranks on its hosts.

        ``plan`` is a parallelism plan (``"tp=8,pp=4,dp=32"``; keys tp, cp, ep,
        dp, pp, order, <dim>_bytes). ``hosts`` are the job's hosts in the order
        the scheduler granted them (default: the first hosts of the cluster).
        railyard picks the launch order of the hosts and the Megatron order
        string; with ``naive=True`` the hosts keep the given order and the plan
        its own order string. Rank r runs on ``hosts[r // G]``, GPU ``r % G``.
        """
        ids = self.resolve_hosts(hosts)
        return RankOrder(self, _railyard.order(self._native, plan, ids, naive))

    def spray(self, src: Endpoint, dst: Endpoint, *, qps: int = 8, hash: str = "crc32",
              seed: int = 1, down: str = "") -> SprayPlan:
        """The paths, QPs and RoCEv2 UDP source ports for the connection from
        GPU ``src`` to GPU ``dst`` (each ``(host, gpu)``, ``(host, gpu, plane)``
        or ``"HOST:GPU"``, host by id or name). ``hash`` is the switches' ECMP
        hash model (crc32, crc32c, qp, random, table:FILE), ``down`` failed links
        (``"leaf3/2,spine1"``)."""
        d = json.loads(_railyard.spray_json(self._native, self._endpoint("src", src),
                                            self._endpoint("dst", dst), qps, hash, seed, down))
        return SprayPlan(
            src=d["src"], dst=d["dst"], model=d["model"], steered=d["steered"],
            paths=tuple(Path(p["path"], tuple(p["hops"]), p["weight"], p["bottleneck_gbps"],
                             p["qps"]) for p in d["paths"]),
            qps=tuple(Qp(q["qp"], q["path"], q["uplink"], q["udp_sport"], q["flow_label"],
                         q["dst_qpn"]) for q in d["qps"]),
            expected_efficiency=d["expected_efficiency"],
            expected_uplinks_hit=d["expected_uplinks_hit"],
            max_qps_per_uplink=d["max_qps_per_uplink"], unmet_targets=d["unmet_targets"])

    def _endpoint(self, field: str, e: Endpoint) -> Tuple[int, int, int]:
        parts: Sequence[Any]
        if isinstance(e, str):
            parts = e.split(":")
            if len(parts) not in (2, 3):
                raise Error(f"{field}={e}: expected HOST:GPU or HOST:GPU:PLANE",
                            field=field, value=e)
            try:
                rest = [int(p) for p in parts[1:]]
            except ValueError:
                raise Error(f"{field}={e}: GPU and plane are numbers", field=field,
                            value=e) from None
            host: Any = int(parts[0]) if parts[0].isdigit() else parts[0]
            parts = [host, *rest]
        else:
            parts = list(e)
            if len(parts) not in (2, 3):
                raise Error(f"{field}={e!r}: expected (host, gpu) or (host, gpu, plane)",
                            field=field, value=repr(e))
        host = parts[0]
        h = self.host_id(host) if isinstance(host, str) else int(host)
        return (h, int(parts[1]), int(parts[2]) if len(parts) == 3 else 0)

    def cc(self, *, incast: Optional[int] = None, job: Optional["RankOrder"] = None,
           collective: Optional[str] = None, algorithm: Optional[str] = None,
           group: Optional[str] = None, buffer_mb: Optional[float] = None,
           message_bytes: Union[None, int, str] = None, cable_m: Optional[float] = None,
           mtu: Optional[int] = None) -> Dict[str, Any]:
        """Congestion-control settings (``railyard cc --json``): ECN per tier,
        PFC headroom, DCQCN, HPCC, UEC NSCC, the NCCL environment.

        The incast (line-rate senders into one port) is ``incast``, else the
        job's: its ``collective`` (in its ``group`` of parallel dimension, with
        ``algorithm``) or, without one, the largest collective of its training
        step."""
        if job is not None and not isinstance(job, RankOrder):
            raise Error("job: expected a RankOrder (Cluster.order)", field="job",
                        value=type(job).__name__)
        size = None if message_bytes is None else _parse_size("message_bytes", message_bytes)
        return cast(Dict[str, Any], json.loads(_railyard.cc_json(
            self._native, incast, None if job is None else job._native, collective, algorithm,
            group, buffer_mb, size, cable_m, mtu)))

    def simulate(self, collective: str, bytes: Union[int, str], job: "RankOrder", *,
                 algorithm: Optional[str] = None, group: Optional[str] = None,
                 routing: str = "ecmp", qps: int = 1, seed: int = 1,
                 down: str = "", max_memory: Union[None, int, str] = None) -> Simulation:
        """Times ``collective`` (allreduce, allgather, reducescatter, alltoall) of
        ``bytes`` per group on the job's ranks with the flow simulator: over all
        ranks, or in every group of parallel dimension ``group`` at once.
        ``routing`` is ecmp, steered, adaptive or planned.

        A run whose estimated memory exceeds ``max_memory`` (bytes or e.g.
        ``"4GiB"``; default: the memory available now) raises Error with code
        resource_exhausted before it starts."""
        if not isinstance(job, RankOrder):
            raise Error("job: expected a RankOrder (Cluster.order)", field="job",
                        value=type(job).__name__)
        d = json.loads(_railyard.simulate_json(self._native, job._native, collective,
                                               _parse_size("bytes", bytes), algorithm, group,
                                               routing, qps, seed, down,
                                               float(_memory_limit(max_memory))))
        return Simulation(
            collective=d["collective"], algorithm=d["algorithm"], routing=d["routing"],
            groups=d["groups"], ranks=d["ranks"], bytes=d["bytes"], time_us=d["time_us"],
            analytic_us=d["analytic_us"], algbw_gbps=d["algbw_gbps"],
            busbw_gbps=d["busbw_gbps"], lower_bound_us=d["lower_bound_us"],
            max_link_utilization=d["max_link_utilization"], report=d)

    def __repr__(self) -> str:
        return f"railyard.Cluster({self.spec!r})"


class RankOrder:
    """A job's ranks on its hosts (``Cluster.order``): rank r runs on
    ``hosts[r // gpus_per_host]``, GPU ``r % gpus_per_host`` — what torchrun,
    ``mpirun --map-by seq`` and Megatron do with a node list — and the Megatron
    order string ``order`` gives each rank its parallel coordinates."""

    def __init__(self, cluster: Cluster, native: Any) -> None:
        self.cluster = cluster
        self._native = native
        self.hosts: List[int] = list(native.hosts)
        self.gpus_per_host: int = native.gpus_per_host
        self.world: int = native.world
        self.plan: str = native.plan
        self.order: str = native.order_string
        self.sizes: Dict[str, int] = dict(native.sizes)
        self._node_rank = {h: i for i, h in enumerate(self.hosts)}

    @property
    def host_names(self) -> List[str]:
        """The hosts' names in launch order (node rank i = host_names[i])."""
        return [self.cluster._names[h] for h in self.hosts]

    def node_rank(self, host: Union[int, str]) -> int:
        """The node rank (torchrun ``--node_rank``) of a host of the job, by id or
        name; Error(field="host") for a host outside the job."""
        h = self.cluster.host_id(host) if isinstance(host, str) else host
        k = self._node_rank.get(h)
        if k is None:
            raise Error(f"host={host}: not one of the job's hosts", field="host", value=str(host))
        return k

    def rank(self, rank: int) -> Rank:
        """Rank ``rank``'s host, GPU and parallel coordinates."""
        host, gpu, tp, cp, ep, dp, pp = self._native.rank(rank)
        return Rank(rank, rank // self.gpus_per_host, host, self.cluster._names[host], gpu,
                    tp, cp, ep, dp, pp)

    def ranks(self) -> List[Rank]:
        """Every rank, by rank."""
        names = self.cluster._names
        g = self.gpus_per_host
        return [Rank(r, r // g, host, names[host], gpu, tp, cp, ep, dp, pp)
                for r, (host, gpu, tp, cp, ep, dp, pp) in enumerate(self._native.table())]

    def traffic(self) -> Dict[str, Any]:
        """Bytes per training step by the highest tier a transfer crosses
        (nvlink, leaf, spine, core), as ``railyard order`` reports them."""
        return dict(self._native.traffic(self.cluster._native))

    def megatron_args(self) -> List[str]:
        """Megatron-LM arguments that reproduce this numbering
        (``--tensor-model-parallel-size 8 ... [--use-tp-pp-dp-mapping]``)."""
        lines: List[str] = self._native.megatron_args().splitlines()
        return [ln for ln in lines if ln and not ln.startswith("#")][-1].split()

    def megatron_notes(self) -> List[str]:
        """The comment lines that come with megatron_args(): which Megatron order
        matches, or a WARNING when none does."""
        return [ln[2:] for ln in self._native.megatron_args().splitlines() if ln.startswith("# ")]

    def __len__(self) -> int:
        return self.world

    def __repr__(self) -> str:
        return f"railyard.RankOrder({self.plan!r}, hosts={len(self.hosts)}, order={self.order!r})"


class Allocator:
    """Multi-tenant cluster state: which hosts each job holds.

    Jobs stay inside the smallest fabric level that holds them (``best_fit``:
    one SU, else one pod, else as few pods as possible), or take the lowest free
    ids (``first_fit``) or random free hosts (``random``, seeded). Each tenant
    gets a partition id while it has live jobs: IB P_Keys 0x0001..0x7ffe
    (``partitions="pkey"``), VLAN ids 2..4094 (``"vlan"``) or an inclusive
    ``(first, last)`` range. Deterministic. Not thread-safe (one per thread, or
    a lock)."""

    def __init__(self, cluster: Cluster, policy: str = "best_fit", *, seed: int = 1,
                 partitions: Union[str, Tuple[int, int]] = "pkey") -> None:
        if partitions == "pkey":
            first, last = 0x0001, 0x7FFE
        elif partitions == "vlan":
            first, last = 2, 4094
        elif isinstance(partitions, tuple) and len(partitions) == 2:
            first, last = partitions
        else:
            raise Error(f"partitions={partitions!r}: use 'pkey', 'vlan' or (first, last)",
                        field="partitions", value=repr(partitions))
        self.cluster = cluster
        self._native = _railyard.Allocator(cluster._native, policy, seed, first, last)

    def _allocation(self, d: Dict[str, Any]) -> Allocation:
        names = self.cluster._names
        return Allocation(d["job"], d["name"], d["tenant"], d["gpus"], tuple(d["hosts"]),
                          tuple(names[h] for h in d["hosts"]), tuple(d["sus"]),
                          tuple(d["pods"]), d["partition_id"])

    def allocate(self, name: str, gpus: int, tenant: Optional[str] = None) -> Allocation:
        """Places a whole job of ``gpus`` GPUs (whole hosts) or nothing.
        Error codes: invalid_argument (bad size or name), already_exists (the
        name is live), resource_exhausted (too few free hosts, or no partition
        id left)."""
        return self._allocation(self._native.allocate(name, gpus, tenant or ""))

    def reserve(self, name: str, hosts: HostList, tenant: Optional[str] = None,
                gpus: int = 0) -> Allocation:
        """Records a job already running on exactly ``hosts`` (ids or names).
        Error code failed_precondition when a host is held by another job."""
        ids = self.cluster.resolve_hosts(hosts)
        return self._allocation(self._native.reserve(name, ids, tenant or "", gpus))

    def release(self, job: Union[str, int, Allocation]) -> None:
        """Frees a job's hosts (by name, id or Allocation); not_found if none."""
        if isinstance(job, Allocation):
            job = job.job
        if isinstance(job, str):
            self._native.release_name(job)
        else:
            self._native.release_id(int(job))

    def drain(self, hosts: HostList) -> None:
        """Takes hosts out of service: no job gets them."""
        self._native.drain(self.cluster.resolve_hosts(hosts))

    def jobs(self) -> List[Allocation]:
        """The live jobs, by id."""
        return [self._allocation(d) for d in self._native.jobs()]

    def find(self, name: str) -> Optional[Allocation]:
        d = self._native.find(name)
        return None if d is None else self._allocation(d)

    def owner_of(self, host: Union[int, str]) -> Optional[int]:
        """The id of the job holding ``host``, None when free or drained."""
        return self._native.owner_of(self.cluster.resolve_hosts([host])[0])

    def partition_of(self, tenant: str) -> Optional[int]:
        return self._native.partition_of(tenant)

    @property
    def free_hosts(self) -> int:
        return int(self._native.free_hosts)

    def fragmentation(self) -> Dict[str, Any]:
        """Free hosts per SU, the largest job that fits one SU, jobs split
        across SUs and pods."""
        return dict(self._native.fragmentation())


class SprayTable:
    """Source ports of many connections for lookups on a hot path (a bounds
    check and two loads in C++): connection i is ``plans[i]``, a SprayPlan or a
    sequence of ports. An unknown connection or QP gives 0 (keep the QP's
    default port)."""

    def __init__(self, plans: Iterable[Union[SprayPlan, Sequence[int]]]) -> None:
        ports = [p.source_ports if isinstance(p, SprayPlan) else [int(x) for x in p]
                 for p in plans]
        self._native = _railyard.SprayTable(ports)
        # Plain builtin functions over the C++ table (no pybind11 dispatch): the
        # lookups a per-QP hot path makes.
        self.source_port = self._native.fast_source_port()
        self.flow_label = self._native.fast_flow_label()
        self.qps = self._native.qps

    @property
    def connections(self) -> int:
        return int(self._native.connections)


class SchedulerTopology:
    """A scheduler's switch tree read from a file (Slurm topology.conf, or
    railyard's topology CSV): named hosts under named switches. It has no GPUs,
    rails or NVLink, so ordering and simulation need a Cluster; it gives the
    host names and the fabric inventory."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self.hosts: List[str] = list(native.hosts)
        self.switches: List[Dict[str, Any]] = list(native.switches())

    def inventory(self) -> Dict[str, Any]:
        """``railyard describe --topology-conf FILE --json``."""
        return cast(Dict[str, Any], json.loads(self._native.inventory_json()))


def _memory_limit(max_memory: Union[None, int, str]) -> int:
    if max_memory is not None:
        return _parse_size("max_memory", max_memory)
    try:  # what the machine has available now (0: unknown, no check)
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


def _read(field: str, path: StrPath) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Error(f"{field}={os.fspath(path)}: {e}", field=field,
                    value=os.fspath(path)) from None


def load_topology_conf(path: StrPath, *, host_gbps: float = 400,
                       leaf_up_gbps: float = 400, spine_up_gbps: float = 400) -> SchedulerTopology:
    """Reads a Slurm topology.conf (topology/tree plugin syntax)."""
    return SchedulerTopology(_railyard.import_tree(_read("topology_conf", path), False, host_gbps,
                                                   leaf_up_gbps, spine_up_gbps))


def load_topology_csv(path: StrPath, *, host_gbps: float = 400,
                      leaf_up_gbps: float = 400, spine_up_gbps: float = 400) -> SchedulerTopology:
    """Reads a topology CSV (``railyard export --format csv``; docs/import.md)."""
    return SchedulerTopology(_railyard.import_tree(_read("topology_csv", path), True, host_gbps,
                                                   leaf_up_gbps, spine_up_gbps))
