"""How the GPUs of one machine are wired together, and how fast they copy to each other.

Two independent probes, both for machines with several NVIDIA GPUs:

* :func:`nvml_topology` builds the matrix ``nvidia-smi topo -m`` prints, from NVML: ``NV#``
  where GPUs share # NVLinks (directly or through NVSwitch), else the closest common PCIe
  ancestor (PIX, PXB, PHB, NODE, SYS). It reads facts only; no GPU work.
* :func:`measure_peer_bandwidth` times device-to-device copies for every ordered GPU pair with
  CUDA events. Bytes are counted once per copy (nvbandwidth's convention; CUDA's
  bandwidthTest counts read + write, i.e. twice).

Neither raises: on a machine without NVML or with fewer than two GPUs the result carries a
``skipped`` reason, and a cell NVML cannot answer is ``"?"`` with a note saying why. torch and
pynvml are imported inside the functions (tests inject fakes through ``sys.modules``).

Run ``python -m torchrig.bench.collective.topology`` to print both for this machine.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.jsonio import atomic_write_json
from torchrig.units import MiB, fmt_rate

FEWER_THAN_TWO_GPUS = "fewer than 2 CUDA GPUs"

ANCESTOR_LABELS = {
    0: "INT",  # NVML_TOPOLOGY_INTERNAL: two GPUs on one board
    10: "PIX",  # NVML_TOPOLOGY_SINGLE: at most one PCIe bridge
    20: "PXB",  # NVML_TOPOLOGY_MULTIPLE: several PCIe bridges, no host bridge
    30: "PHB",  # NVML_TOPOLOGY_HOSTBRIDGE: through a PCIe host bridge (the CPU)
    40: "NODE",  # NVML_TOPOLOGY_NODE: between host bridges within one NUMA node
    50: "SYS",  # NVML_TOPOLOGY_SYSTEM: across NUMA nodes (SMP interconnect)
}
"""nvidia-smi's labels for NVML's common-ancestor levels."""

LEGEND = (
    "X = self; NV# = # NVLinks (direct or via NVSwitch); PIX = at most one PCIe bridge; "
    "PXB = several PCIe bridges; PHB = through a PCIe host bridge (CPU); NODE = between host "
    "bridges in one NUMA node; SYS = across NUMA nodes; INT = same board; ? = unknown"
)

_NVLINK_SWITCH = 2  # NVML_NVLINK_DEVICE_TYPE_SWITCH
_FEATURE_ENABLED = 1  # NVML_FEATURE_ENABLED


@dataclass(frozen=True)
class TopologyGpu:
    index: int
    name: str | None
    uuid: str | None
    pci_bus_id: str | None


@dataclass(frozen=True)
class NvmlTopology:
    """The ``nvidia-smi topo -m`` matrix: ``matrix[i][j]`` is the link from GPU i to GPU j."""

    gpus: tuple[TopologyGpu, ...] = ()
    matrix: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()
    skipped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "skipped": self.skipped,
            "gpus": [
                {"index": g.index, "name": g.name, "uuid": g.uuid, "pci_bus_id": g.pci_bus_id}
                for g in self.gpus
            ],
            "matrix": [list(row) for row in self.matrix],
            "notes": list(self.notes),
        }

    def format(self) -> str:
        if self.skipped:
            return f"GPU topology: skipped: {self.skipped}"
        names = [f"GPU{g.index}" for g in self.gpus]
        width = max(6, *(len(cell) + 2 for row in self.matrix for cell in row))
        lines = [" " * 8 + "".join(f"{n:>{width}}" for n in names)]
        for name, row in zip(names, self.matrix, strict=True):
            lines.append(f"{name:<8}" + "".join(f"{cell:>{width}}" for cell in row))
        lines += [f"{g.index}: {g.name or 'unknown'} ({g.pci_bus_id or 'bus unknown'})"
                  for g in self.gpus]
        lines.append(LEGEND)
        lines += self.notes
        return "\n".join(lines)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def normalize_bus_id(bus_id: Any) -> str:
    """NVML spells one bus id two ways (``00000000:07:00.0`` and legacy ``0000:07:00.0``)."""
    text = _text(bus_id).strip().lower()
    domain, sep, rest = text.partition(":")
    if not sep:
        return text
    try:
        return f"{int(domain, 16):08x}:{rest}"
    except ValueError:
        return text


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()


def nvml_topology() -> NvmlTopology:
    """Read the GPU interconnect matrix from NVML; never raises."""
    try:
        import pynvml
    except ImportError as exc:
        return NvmlTopology(skipped=f"NVML binding not installed ({_reason(exc)})")
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # any NVMLError: driver missing, no permission, ...
        return NvmlTopology(skipped=f"NVML not available ({_reason(exc)})")
    try:
        return _read_topology(pynvml)
    except Exception as exc:  # a binding/driver mismatch must not break the caller
        return NvmlTopology(skipped=f"NVML query failed ({_reason(exc)})")
    finally:
        # Shutting down a library we are done with: a failure there has nothing to report.
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _read_topology(nvml: Any) -> NvmlTopology:
    count = int(nvml.nvmlDeviceGetCount())
    if count < 2:
        return NvmlTopology(skipped=f"{FEWER_THAN_TWO_GPUS} (NVML sees {count})")
    notes: list[str] = []
    handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    gpus = []
    for i, handle in enumerate(handles):
        gpus.append(TopologyGpu(
            index=i,
            name=_query(lambda h=handle: _text(nvml.nvmlDeviceGetName(h)), notes, f"GPU{i} name"),
            uuid=_query(lambda h=handle: _text(nvml.nvmlDeviceGetUUID(h)), notes, f"GPU{i} uuid"),
            pci_bus_id=_query(lambda h=handle: normalize_bus_id(nvml.nvmlDeviceGetPciInfo(h).busId),
                              notes, f"GPU{i} PCI bus id"),
        ))
    by_bus = {g.pci_bus_id: g.index for g in gpus if g.pci_bus_id}
    direct, switch = _nvlinks(nvml, handles, by_bus)
    matrix = []
    for i in range(count):
        row = []
        for j in range(count):
            if i == j:
                row.append("X")
            elif direct[i][j] or direct[j][i]:
                row.append(f"NV{direct[i][j] or direct[j][i]}")
            elif switch[i] and switch[j]:
                # Through NVSwitch every GPU reaches every other over all of its links; the
                # pair is limited by the GPU with fewer.
                row.append(f"NV{min(switch[i], switch[j])}")
            else:
                row.append(_ancestor(nvml, handles[i], handles[j], f"GPU{i}-GPU{j}", notes))
        matrix.append(tuple(row))
    return NvmlTopology(gpus=tuple(gpus), matrix=tuple(matrix), notes=tuple(notes))


def _query(read: Any, notes: list[str], what: str) -> Any:
    try:
        return read()
    except Exception as exc:  # an NVMLError for one field leaves the field unknown
        notes.append(f"{what}: unknown ({_reason(exc)})")
        return None


def _nvlinks(nvml: Any, handles: Sequence[Any],
             by_bus: Mapping[str, int]) -> tuple[list[list[int]], list[int]]:
    """Active NVLinks per GPU pair (``direct[i][j]``) and per GPU to NVSwitches."""
    count = len(handles)
    direct = [[0] * count for _ in range(count)]
    switch = [0] * count
    max_links = int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", 18))
    for i, handle in enumerate(handles):
        for link in range(max_links):
            try:
                if nvml.nvmlDeviceGetNvLinkState(handle, link) != _FEATURE_ENABLED:
                    continue
            except Exception:  # not supported / no such link: the usual answer on PCIe GPUs
                continue
            try:
                kind = nvml.nvmlDeviceGetNvLinkRemoteDeviceType(handle, link)
            except Exception:  # older drivers lack the call; fall back to matching bus ids
                kind = None
            if kind == _NVLINK_SWITCH:
                switch[i] += 1
                continue
            try:
                remote = normalize_bus_id(nvml.nvmlDeviceGetNvLinkRemotePciInfo(handle, link).busId)
            except Exception:
                continue
            j = by_bus.get(remote)
            if j is not None and j != i:
                direct[i][j] += 1
    return direct, switch


def _ancestor(nvml: Any, a: Any, b: Any, what: str, notes: list[str]) -> str:
    try:
        level = int(nvml.nvmlDeviceGetTopologyCommonAncestor(a, b))
    except Exception as exc:
        notes.append(f"{what}: PCIe path unknown ({_reason(exc)})")
        return "?"
    label = ANCESTOR_LABELS.get(level)
    if label is None:
        notes.append(f"{what}: NVML reported an unknown topology level {level}")
        return "?"
    return label


# --- peer copy bandwidth ----------------------------------------------------------------------


@dataclass(frozen=True)
class PeerBandwidth:
    """Device-to-device copy bandwidth, ``bps[src][dst]`` in bytes/s (None on the diagonal or
    where the copy failed), and whether CUDA peer access was available for the pair (copies
    without it are staged through host memory)."""

    devices: tuple[str, ...] = ()
    bps: tuple[tuple[float | None, ...], ...] = ()
    peer_access: tuple[tuple[bool | None, ...], ...] = ()
    size_bytes: int = 0
    iters: int = 0
    notes: tuple[str, ...] = ()
    skipped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "skipped": self.skipped,
            "devices": list(self.devices),
            "bps": [list(row) for row in self.bps],
            "peer_access": [list(row) for row in self.peer_access],
            "size_bytes": self.size_bytes,
            "iters": self.iters,
            "convention": "bytes counted once per copy (nvbandwidth)",
            "notes": list(self.notes),
        }

    def format(self) -> str:
        if self.skipped:
            return f"GPU peer copy bandwidth: skipped: {self.skipped}"
        width = 13
        lines = ["peer copy bandwidth, row = source, column = destination "
                 "(bytes counted once; * = no peer access, staged through host)",
                 " " * 8 + "".join(f"{d:>{width}}" for d in self.devices)]
        for src, row in enumerate(self.bps):
            cells = []
            for dst, value in enumerate(row):
                if src == dst:
                    cells.append("-")
                else:
                    mark = "*" if self.peer_access[src][dst] is False else ""
                    cells.append(fmt_rate(value) + mark)
            lines.append(f"{self.devices[src]:<8}" + "".join(f"{c:>{width}}" for c in cells))
        lines += self.notes
        return "\n".join(lines)


def copy_bandwidth(n_bytes: int, iters: int, seconds: float) -> float:
    """Bytes/s for ``iters`` copies of ``n_bytes`` taking ``seconds`` in total."""
    if seconds <= 0:
        raise ValueError(f"time must be positive, got {seconds}")
    return n_bytes * iters / seconds


def measure_peer_bandwidth(size_bytes: int = 256 * MiB, iters: int = 10,
                           warmup: int = 2) -> PeerBandwidth:
    """Time ``iters`` copies of ``size_bytes`` for every ordered GPU pair; never raises.

    256 MiB is far beyond any GPU's L2, so the figure is the link's, not a cache's.
    """
    try:
        import torch
    except ImportError as exc:
        return PeerBandwidth(skipped=f"torch not installed ({_reason(exc)})")
    try:
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception as exc:  # a broken driver reports here
        return PeerBandwidth(skipped=f"CUDA not usable ({_reason(exc)})")
    if count < 2:
        return PeerBandwidth(skipped=f"{FEWER_THAN_TWO_GPUS} (torch sees {count})")
    notes: list[str] = []
    elements = max(1, size_bytes // 4)
    n_bytes = elements * 4
    try:
        sources = [torch.empty(elements, dtype=torch.float32, device=f"cuda:{i}")
                   for i in range(count)]
        targets = [torch.empty(elements, dtype=torch.float32, device=f"cuda:{i}")
                   for i in range(count)]
    except Exception as exc:  # out of memory on a busy GPU
        return PeerBandwidth(skipped=f"could not allocate 2 x {n_bytes} bytes per GPU "
                                     f"({_reason(exc)})")
    bps: list[list[float | None]] = [[None] * count for _ in range(count)]
    access: list[list[bool | None]] = [[None] * count for _ in range(count)]
    for src in range(count):
        for dst in range(count):
            if src == dst:
                continue
            try:
                access[src][dst] = bool(torch.cuda.can_device_access_peer(src, dst))
                seconds = _time_copies(torch, sources[src], targets[dst], src, dst, iters,
                                       warmup)
                bps[src][dst] = copy_bandwidth(n_bytes, iters, seconds)
            except Exception as exc:  # one failing pair must not hide the others
                notes.append(f"cuda:{src} -> cuda:{dst}: failed ({_reason(exc)})")
    return PeerBandwidth(
        devices=tuple(f"cuda:{i}" for i in range(count)),
        bps=tuple(tuple(row) for row in bps),
        peer_access=tuple(tuple(row) for row in access),
        size_bytes=n_bytes, iters=iters, notes=tuple(notes),
    )


def _time_copies(torch: Any, source: Any, target: Any, src: int, dst: int, iters: int,
                 warmup: int) -> float:
    """Seconds for ``iters`` copies, from events on the source GPU's stream, which is where
    PyTorch runs a device-to-device copy."""
    torch.cuda.synchronize(src)
    torch.cuda.synchronize(dst)
    with torch.cuda.device(src):
        for _ in range(warmup):
            target.copy_(source)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            target.copy_(source)
        end.record()
        end.synchronize()
    torch.cuda.synchronize(dst)
    return float(start.elapsed_time(end)) / 1e3


# --- command line -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m torchrig.bench.collective.topology [--no-peer] [--json OUT]``."""
    parser = argparse.ArgumentParser(prog="python -m torchrig.bench.collective.topology",
                                     description="GPU interconnect matrix and peer copy speed.")
    parser.add_argument("--no-peer", action="store_true", help="skip the copy measurement")
    parser.add_argument("--json", type=Path, help="also write the result as JSON")
    args = parser.parse_args(argv)
    topo = nvml_topology()
    peer = PeerBandwidth(skipped="not requested (--no-peer)") if args.no_peer \
        else measure_peer_bandwidth()
    print(topo.format())
    print(peer.format())
    if args.json is not None:
        try:
            atomic_write_json(args.json, {"format": "torchrig.gpu-topology", "version": 1,
                                          "nvml": topo.to_dict(), "peer": peer.to_dict()})
        except InputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
