"""GPU topology from a fake NVML, and the peer-copy probe with a fake torch."""

from __future__ import annotations

import json
import sys
import types
from contextlib import contextmanager
from typing import Any

import pytest

from torchrig.bench.collective import topology
from torchrig.bench.collective.topology import (
    FEWER_THAN_TWO_GPUS,
    PeerBandwidth,
    copy_bandwidth,
    measure_peer_bandwidth,
    normalize_bus_id,
    nvml_topology,
)


class FakeNVMLError(Exception):
    pass


def fake_nvml(bus_ids: list[str], nvlinks: dict[int, list[Any]],
              ancestors: dict[frozenset[int], int | Exception],
              init_error: Exception | None = None) -> types.ModuleType:
    """A pynvml stand-in. ``nvlinks[gpu]`` lists, per active link, the remote: a GPU index,
    or "switch". Links past the list raise like NVML does for links a GPU lacks."""
    nvml = types.ModuleType("pynvml")
    nvml.NVMLError = FakeNVMLError  # type: ignore[attr-defined]
    nvml.NVML_NVLINK_MAX_LINKS = 18  # type: ignore[attr-defined]
    state = {"init": 0, "shutdown": 0}
    nvml.state = state  # type: ignore[attr-defined]

    def init() -> None:
        if init_error is not None:
            raise init_error
        state["init"] += 1

    def shutdown() -> None:
        state["shutdown"] += 1

    def link_remote(handle: int, link: int) -> Any:
        links = nvlinks.get(handle, [])
        if link >= len(links):
            raise FakeNVMLError("Not Supported")
        return links[link]

    def nvlink_state(handle: int, link: int) -> int:
        link_remote(handle, link)
        return 1

    def remote_type(handle: int, link: int) -> int:
        return 2 if link_remote(handle, link) == "switch" else 0

    def remote_pci(handle: int, link: int) -> Any:
        remote = link_remote(handle, link)
        return types.SimpleNamespace(busId=b"00000000:FF:00.0" if remote == "switch"
                                     else bus_ids[remote].encode())

    def ancestor(a: int, b: int) -> int:
        value = ancestors[frozenset((a, b))]
        if isinstance(value, Exception):
            raise value
        return value

    nvml.nvmlInit = init  # type: ignore[attr-defined]
    nvml.nvmlShutdown = shutdown  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetCount = lambda: len(bus_ids)  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetHandleByIndex = lambda i: i  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetName = lambda h: f"Fake GPU {h}".encode()  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetUUID = lambda h: f"GPU-{h:04d}"  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetPciInfo = (  # type: ignore[attr-defined]
        lambda h: types.SimpleNamespace(busId=bus_ids[h].encode()))
    nvml.nvmlDeviceGetNvLinkState = nvlink_state  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetNvLinkRemoteDeviceType = remote_type  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetNvLinkRemotePciInfo = remote_pci  # type: ignore[attr-defined]
    nvml.nvmlDeviceGetTopologyCommonAncestor = ancestor  # type: ignore[attr-defined]
    return nvml


BUS = ["00000000:07:00.0", "00000000:0A:00.0", "00000000:85:00.0", "00000000:88:00.0"]


def test_matrix_like_nvidia_smi_topo(monkeypatch):
    # GPU0-GPU1 bridged by 4 NVLinks, GPU2-GPU3 by 2; the rest only PCIe.
    nvml = fake_nvml(
        BUS,
        nvlinks={0: [1, 1, 1, 1], 1: [0, 0, 0, 0], 2: [3, 3], 3: [2, 2]},
        ancestors={frozenset((0, 2)): 50, frozenset((0, 3)): 50, frozenset((1, 2)): 50,
                   frozenset((1, 3)): 40},
    )
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    topo = nvml_topology()
    assert topo.skipped is None
    assert [list(row) for row in topo.matrix] == [
        ["X", "NV4", "SYS", "SYS"],
        ["NV4", "X", "SYS", "NODE"],
        ["SYS", "SYS", "X", "NV2"],
        ["SYS", "NODE", "NV2", "X"],
    ]
    assert [g.name for g in topo.gpus] == [f"Fake GPU {i}" for i in range(4)]
    assert topo.gpus[1].pci_bus_id == "00000000:0a:00.0"
    assert nvml.state == {"init": 1, "shutdown": 1}
    text = topo.format()
    assert "GPU3" in text and "NV4" in text and topology.LEGEND in text


def test_pcie_levels_map_to_nvidia_smi_labels(monkeypatch):
    levels = {frozenset((0, 1)): 10, frozenset((0, 2)): 20, frozenset((1, 2)): 30}
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS[:3], {}, levels))
    topo = nvml_topology()
    assert topo.matrix[0] == ("X", "PIX", "PXB")
    assert topo.matrix[1][2] == "PHB"


def test_nvswitch_links_connect_every_pair(monkeypatch):
    links = {i: ["switch"] * 18 for i in range(4)}
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS, links, {}))
    topo = nvml_topology()
    assert all(cell == "NV18" for i, row in enumerate(topo.matrix)
               for j, cell in enumerate(row) if i != j)


def test_unknown_pair_is_question_mark_with_a_note(monkeypatch):
    levels: dict[frozenset[int], int | Exception] = {frozenset((0, 1)): FakeNVMLError("Unknown")}
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS[:2], {}, levels))
    topo = nvml_topology()
    assert topo.matrix[0][1] == "?"
    assert any("GPU0-GPU1" in note and "Unknown" in note for note in topo.notes)


def test_fewer_than_two_gpus_is_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS[:1], {}, {}))
    topo = nvml_topology()
    assert topo.skipped is not None and topo.skipped.startswith(FEWER_THAN_TWO_GPUS)
    assert topo.format() == f"GPU topology: skipped: {topo.skipped}"


def test_nvml_unavailable_or_missing_never_raises(monkeypatch):
    broken = fake_nvml(BUS, {}, {}, init_error=FakeNVMLError("Driver Not Loaded"))
    monkeypatch.setitem(sys.modules, "pynvml", broken)
    topo = nvml_topology()
    assert topo.skipped == "NVML not available (FakeNVMLError: Driver Not Loaded)"
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    assert "not installed" in (nvml_topology().skipped or "")


def test_topology_json_form(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS[:2], {0: [1], 1: [0]}, {}))
    data = nvml_topology().to_dict()
    assert data["matrix"] == [["X", "NV1"], ["NV1", "X"]]
    assert data["gpus"][0]["uuid"] == "GPU-0000"
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(b"00000000:07:00.0", "00000000:07:00.0"), ("0000:0A:00.0", "00000000:0a:00.0"),
     ("weird", "weird")],
)
def test_normalize_bus_id(raw, expected):
    assert normalize_bus_id(raw) == expected


def test_peer_bandwidth_skipped_on_this_cpu_machine():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() and torch.cuda.device_count() >= 2:
        pytest.skip("this machine has several GPUs")
    result = measure_peer_bandwidth()
    assert result.skipped is not None and result.skipped.startswith(FEWER_THAN_TWO_GPUS)
    assert "skipped: fewer than 2 CUDA GPUs" in result.format()


def _fake_torch(gpus: int, elapsed_ms: float, peer: bool, fail_pair: tuple[int, int] | None):
    """Just enough of torch for measure_peer_bandwidth's bookkeeping to run."""
    copies: list[tuple[int, int]] = []
    current = {"device": 0}

    class Tensor:
        def __init__(self, device: str) -> None:
            self.index = int(device.split(":")[1])

        def copy_(self, other: Tensor) -> None:
            if fail_pair == (other.index, self.index):
                raise RuntimeError("copy failed")
            assert current["device"] == other.index  # copies are issued on the source GPU
            copies.append((other.index, self.index))

    class Event:
        def __init__(self, enable_timing: bool) -> None:
            assert enable_timing

        def record(self) -> None:
            pass

        def synchronize(self) -> None:
            pass

        def elapsed_time(self, other: Event) -> float:
            return elapsed_ms

    @contextmanager
    def device(index: int):
        before, current["device"] = current["device"], index
        yield
        current["device"] = before

    cuda = types.SimpleNamespace(
        is_available=lambda: True, device_count=lambda: gpus, synchronize=lambda d=None: None,
        can_device_access_peer=lambda a, b: peer, device=device, Event=Event)
    torch = types.SimpleNamespace(
        cuda=cuda, float32="float32",
        empty=lambda n, dtype, device: Tensor(device))
    return torch, copies


def test_peer_bandwidth_bookkeeping_with_fake_torch(monkeypatch):
    torch, copies = _fake_torch(gpus=3, elapsed_ms=20.0, peer=True, fail_pair=(2, 0))
    monkeypatch.setitem(sys.modules, "torch", torch)
    result = measure_peer_bandwidth(size_bytes=64 * 1024**2, iters=10, warmup=1)
    assert result.skipped is None
    assert result.devices == ("cuda:0", "cuda:1", "cuda:2")
    expected = copy_bandwidth(64 * 1024**2, 10, 0.020)
    assert expected == pytest.approx(64 * 1024**2 * 10 / 0.020)
    assert result.bps[0][1] == expected and result.bps[1][2] == expected
    assert result.bps[0][0] is None and result.bps[2][0] is None
    assert result.peer_access[0][1] is True
    assert any("cuda:2 -> cuda:0" in note for note in result.notes)
    # 5 working ordered pairs x (1 warm-up + 10 timed) copies.
    assert len(copies) == 5 * 11
    assert "GB/s" in result.format()


def test_peer_bandwidth_marks_pairs_without_peer_access(monkeypatch):
    torch, _ = _fake_torch(gpus=2, elapsed_ms=100.0, peer=False, fail_pair=None)
    monkeypatch.setitem(sys.modules, "torch", torch)
    result = measure_peer_bandwidth(size_bytes=1024**2, iters=2, warmup=0)
    assert result.peer_access[0][1] is False
    assert "*" in result.format().splitlines()[2]


def test_copy_bandwidth_rejects_zero_time():
    with pytest.raises(ValueError):
        copy_bandwidth(1, 1, 0.0)


def test_command_line_prints_and_writes_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(BUS[:2], {}, {frozenset((0, 1)): 30}))
    out = tmp_path / "topo.json"
    assert topology.main(["--no-peer", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PHB" in printed and "not requested" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["nvml"]["matrix"][0][1] == "PHB"
    assert data["peer"]["skipped"] == "not requested (--no-peer)"
    assert PeerBandwidth(skipped="x").to_dict()["skipped"] == "x"
