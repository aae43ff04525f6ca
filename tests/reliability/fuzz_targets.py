"""Every file TorchRig reads, as a fuzz target: valid samples, the loader, and what uses it.

Shared by the hypothesis tests in this folder and by ``scripts/fuzz_files.py`` (the long run),
so both try the same mutations on the same loaders and hold them to the same contract
(:func:`attempt`):

* the loader returns a value or raises exactly :class:`InputError`, whose message is one line
  and names the file;
* the file's bytes are the same afterwards, and no other file appeared next to it;
* a value the loader accepted can be used (priced, checked, planned, printed, saved) with no
  exception but :class:`InputError`: a loader that lets nonsense through is a bug as well.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from torchrig import jsonio
from torchrig.bench.collective.report import (
    CollectiveReport,
    RankInfo,
    Settings,
    SkippedSize,
    Transport,
    build_result,
    format_report,
    load_collective_report,
)
from torchrig.bench.findings import bench_findings
from torchrig.bench.report import BenchReport, BenchResult, Measurement, Reference, load_report
from torchrig.builds.build import Build, load_build
from torchrig.builds.capabilities import from_build
from torchrig.builds.check_output import check_json, format_check_text
from torchrig.builds.compat import check_build
from torchrig.builds.pricelist import PriceList, load_price_list
from torchrig.builds.pricing import price_build
from torchrig.catalog.loader import clear_catalog_cache, load_catalog
from torchrig.catalog.model import Catalog
from torchrig.collective_math import message_layout
from torchrig.errors import InputError
from torchrig.hardware.model import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    MemoryInfo,
    NvLinkInfo,
    SystemProfile,
)
from torchrig.hardware.text import format_profile_text
from torchrig.i18n import Msg
from torchrig.planning.analysis import analyze
from torchrig.planning.requirements import plan
from torchrig.planning.workload import Workload, load_workload
from torchrig.report.assemble import assemble_sheet
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "resources"
SAMPLE_BUILDS = tuple(sorted((REPO / "builds").glob("*.json")))
SAMPLE_WORKLOADS = tuple(sorted((REPO / "workloads").glob("*.json")))


# --- the contract ------------------------------------------------------------------------------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_user_message(exc: InputError, names: str) -> str:
    """One line (no character Python counts as a line break) that names ``names``."""
    message = str(exc)
    assert message, "empty InputError message"
    assert len(message.splitlines()) == 1, f"message spans lines: {message!r}"
    assert names in message, f"message does not name {names}: {message!r}"
    return message


@dataclass(frozen=True)
class Outcome:
    accepted: bool
    message: str = ""


def attempt(target: Target, path: Path, payload: bytes) -> Outcome:
    """Write ``payload`` to ``path``, load it with ``target`` and check the contract."""
    path.write_bytes(payload)
    before = sha256(path)
    siblings = sorted(p.name for p in path.parent.iterdir())
    try:
        value = target.load(path)
    except InputError as exc:
        outcome = Outcome(False, assert_user_message(exc, target.names(path)))
    else:
        try:
            target.use(value)
        except InputError as exc:
            # Using an accepted file may still meet a user mistake (a USD price without an
            # exchange rate); that is reported, not crashed on.
            assert_user_message(exc, "")
        outcome = Outcome(True)
    assert sha256(path) == before, f"{target.name}: loading changed the file"
    assert sorted(p.name for p in path.parent.iterdir()) == siblings, "loading left files"
    return outcome


# --- valid samples -----------------------------------------------------------------------------


def _doc(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def catalog() -> Catalog:
    return load_catalog(RESOURCES)


def rich_build() -> dict[str, Any]:
    """A build using every optional field, so mutations reach every reader in build.py."""
    doc = _doc(REPO / "builds" / "pro-dual-4090.json")
    doc.update(
        customer="ACME Lab", project="P-7", exchange_rate={
            "cny_per_usd": "7.10", "date": "2025-06-01", "source": "bank"},
        tax_rate="0.13", discount={"kind": "percent", "value": "5"}, nodes=2,
    )
    doc["line_items"] += [
        {"text": "100 GbE switch", "category": "switch", "quantity": 1, "scope": "cluster",
         "unit_price": "32000", "currency": "CNY", "price_source": "quote Q-17",
         "price_date": "2025-05", "note": "shared by both nodes"},
        {"part_id": "nvidia-rtx-4090", "quantity": 1, "unit_price": "1799.00",
         "currency": "USD", "price_date": "2025-06-01"},
    ]
    return doc


def bench_report_doc() -> dict[str, Any]:
    """A benchmark report with a full embedded profile (GPU, NVLink, disk)."""
    peak = Reference(kind="spec_peak", label=Msg("catalog peak", "目录峰值"),
                     source="catalog", value=82.6e12)
    claim = Reference(kind="seed_claim", label=Msg("seed: 30-50 %", "原文：30-50%"),
                      source="seed 3.1", low=1.3, high=1.5)
    profile = SystemProfile(
        hostname="box", created="2026-01-01T00:00:00+00:00", detection_seconds=0.2,
        cpu=CpuInfo(vendor="GenuineIntel", model_name="Test CPU", physical_cores=8,
                    logical_cpus=16, cache_bytes={"L3": 32 * 2**20}, isa_features=["avx2"]),
        memory=MemoryInfo(total_bytes=64 * 2**30, dimm_type="DDR5", dimm_speed_mts=5600),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vendor="NVIDIA",
                      sources=["nvml"], vram_total_bytes=24 * 2**30, compute_capability="8.9",
                      pcie_gen_max=4, pcie_width_max=16, nvlinks=[NvLinkInfo(link=0)])],
        disks=[DiskInfo(mountpoint="/", device="/dev/nvme0n1p2", fstype="ext4",
                        total_bytes=2 * 10**12, kind="nvme")],
    )
    report = BenchReport(
        settings={"preset": "quick", "device": "cuda:0", "budget_s": 21.0},
        started="2026-01-01T00:00:00+00:00", finished="2026-01-01T00:00:20+00:00",
        device="cuda:0", device_name="NVIDIA GeForce RTX 4090",
        environment={"torch": "2.13.0", "cuda": "12.4"}, profile=profile.to_dict(),
        results=[
            BenchResult(id="matmul", title=Msg("Matmul", "矩阵乘"), measurements=[
                Measurement(id="bf16", label=Msg("BF16", "BF16"), value=7.0e13,
                            unit="FLOP/s", reference=peak, notes=(Msg("median", "中位数"),),
                            details={"n": 8192}),
                Measurement(id="amp_speedup", label=Msg("AMP", "AMP"), value=1.4,
                            unit="ratio", reference=claim),
            ], notes=[Msg("TF32 not measured", "未测 TF32")], seconds=1.5, budget_s=2.0),
            BenchResult(id="h2d", title=Msg("H2D", "H2D"), measurements=[
                Measurement(id="pinned_h2d", label=Msg("pinned", "锁页"), value=2.2e10,
                            unit="B/s")]),
            BenchResult(id="storage", title=Msg("Storage", "存储"), status="skipped: no dir",
                        reason=Msg("no dir", "无目录")),
        ],
        torchrig_version="0.1.0",
    )
    return report.to_dict()


def collective_report_doc() -> dict[str, Any]:
    world = 2
    results = []
    for op in ("all_reduce", "all_gather"):
        for size, seconds in ((64, 1e-4), (65536, 1e-3)):
            layout = message_layout(op, size, world)  # type: ignore[arg-type]
            assert layout is not None
            times = [[seconds * (1 + r / 10)] * 3 for r in range(world)]
            results.append(build_result(layout, world, times, verified=True))
    report = CollectiveReport(
        created="2025-01-01T00:00:00+00:00", torchrig_version="0.1.0",
        settings=Settings(ops=("all_reduce", "all_gather"), sizes=(64, 65536), iters=3,
                          warmup=1, dtype="float32", timeout_s=60.0,
                          timing="barrier_perf_counter"),
        transport=Transport(backend="gloo", device_type="cpu", world_size=world,
                            local_world_size=world, nnodes=1, hosts=("node1",),
                            master_addr="127.0.0.1", master_addr_local=True,
                            nccl_version=None, nccl_version_note="not used (gloo backend)",
                            torch_version="2.13.0", cuda_version=None,
                            env={"GLOO_SOCKET_IFNAME": "lo"}),
        ranks=tuple(RankInfo(rank=r, local_rank=r, host="node1", device="cpu")
                    for r in range(world)),
        topology={"nvml": {"skipped": "NVML not available"}},
        results=tuple(results),
        skipped=(SkippedSize(op="all_gather", requested_bytes=8, reason="too small"),),
    )
    return report.to_dict()


PRICE_LIST = (
    "part_id,price,currency,date,source\n"
    "nvidia-rtx-4090,15999.00,CNY,2025-06-01,Supplier A\n"
    "intel-core-i9-13900k,589,USD,2025-06,\n"
    "corsair-hx1500i,2199,cny,2025-06-01,\"Supplier B, quote 12\"\n"
)


def encode(doc: Any) -> bytes:
    return jsonio.dumps(doc).encode("utf-8")

# --- what each kind of file is loaded with and used for ----------------------------------------


def export_pdf(build: Build, **inputs: Any) -> bytes:
    """What ``torchrig export`` renders for these inputs (issue 13: a loader that accepts what
    the export then crashes on is found here, not by a user)."""
    sheet = assemble_sheet(build, catalog(), header=Header(kind="sheet", date="2026-01-01"),
                           lang="zh", options=SheetOptions(lang="zh", invariant=True),
                           **inputs)
    return render_sheet_bytes(sheet)


@cache
def gpu_build() -> Build:
    """A build with a GPU, so planning gets as far as the throughput estimate."""
    return Build.from_dict(_doc(REPO / "builds" / "pro-dual-4090.json"))


def _use_build(build: Build) -> None:
    cat = catalog()
    priced = price_build(build, cat)
    findings = check_build(build, cat)
    json.dumps(check_json(priced, findings), allow_nan=False)
    format_check_text(priced, findings, lang="zh")
    assert Build.from_dict(json.loads(jsonio.dumps(build.to_dict()))) == build
    export_pdf(build)


def _use_workload(workload: Workload) -> None:
    json.dumps(plan(workload).to_dict(), allow_nan=False)
    # plan, check and export as the CLI runs them: against a build with a GPU.
    json.dumps(analyze(workload, from_build(gpu_build(), catalog()), catalog()).requirements
               .to_dict(), allow_nan=False)
    export_pdf(gpu_build(), workload=workload)
    assert Workload.from_dict(json.loads(jsonio.dumps(workload.to_dict()))) == workload


def _use_bench_report(report: BenchReport) -> None:
    text = jsonio.dumps(report.to_dict())
    assert BenchReport.from_dict(json.loads(text)).to_dict() == report.to_dict()
    bench_findings(report)
    if report.profile is not None:
        format_profile_text(SystemProfile.from_dict(report.profile), lang="zh")
    export_pdf(gpu_build(), bench_report=report)


def _use_collective(report: CollectiveReport) -> None:
    format_report(report)
    jsonio.dumps(report.to_dict())


def _use_price_list(plist: PriceList) -> None:
    build = Build.from_dict(rich_build())
    repriced, _lines = plist.apply(build)
    _use_build(repriced)


def _use_catalog(cat: Catalog) -> None:
    """Every shipped build must price and check (or be refused) against the edited catalog."""
    for sample in SAMPLE_BUILDS:
        build = Build.from_dict(_doc(sample), str(sample))
        try:
            build.check_parts(cat, str(sample))
        except InputError:
            continue
        priced = price_build(build, cat)
        json.dumps(check_json(priced, check_build(build, cat)), allow_nan=False)


@dataclass(frozen=True)
class Target:
    """One kind of file. ``names(path)`` is what its error messages must mention."""

    name: str
    filename: str
    samples: Callable[[], Sequence[bytes]]
    load: Callable[[Path], Any]
    use: Callable[[Any], None]
    is_json: bool = True
    resources_file: str | None = None  # catalog targets: the file inside resources/

    def names(self, path: Path) -> str:
        if self.resources_file is None:
            return str(path)
        # A catalog edit may surface in a file that refers to it (tiers.json naming a part),
        # so catalog messages must name the resources folder they came from.
        return str(resources_root(path, self.resources_file))


def resources_root(path: Path, relative: str) -> Path:
    return path.parents[relative.count("/")]


def _catalog_target(relative: str) -> Target:
    def load(path: Path) -> Catalog:
        # The loader caches per folder; every attempt must read the file as it is now.
        clear_catalog_cache()
        return load_catalog(resources_root(path, relative))

    return Target(
        name=f"catalog:{relative}", filename=Path(relative).name,
        samples=lambda: [(RESOURCES / relative).read_bytes()],
        load=load, use=_use_catalog, resources_file=relative,
    )


TARGETS: dict[str, Target] = {
    t.name: t
    for t in [
        Target("build", "build.json",
               lambda: [encode(rich_build())] + [p.read_bytes() for p in SAMPLE_BUILDS],
               lambda p: load_build(p, catalog()), _use_build),
        Target("workload", "workload.json",
               lambda: [p.read_bytes() for p in SAMPLE_WORKLOADS], load_workload,
               _use_workload),
        Target("bench-report", "bench.json", lambda: [encode(bench_report_doc())],
               load_report, _use_bench_report),
        Target("collective-report", "collective.json",
               lambda: [encode(collective_report_doc())], load_collective_report,
               _use_collective),
        Target("price-list", "prices.csv", lambda: [PRICE_LIST.encode("utf-8")],
               lambda p: load_price_list(p, catalog()), _use_price_list, is_json=False),
        *(_catalog_target(rel) for rel in (
            "catalog/gpus.json", "catalog/cpus.json", "catalog/motherboards.json",
            "catalog/memory.json", "catalog/psus.json", "catalog/storage.json",
            "catalog/network.json", "catalog/sources.json", "tiers.json")),
    ]
}


@cache
def samples(name: str) -> tuple[bytes, ...]:
    return tuple(TARGETS[name].samples())


def target_path(target: Target, folder: Path) -> Path:
    """Where ``target``'s file lives below ``folder`` (catalog targets get a resources copy)."""
    if target.resources_file is None:
        return folder / target.filename
    root = folder / "resources"
    if not root.is_dir():
        shutil.copytree(RESOURCES, root)
    return root / target.resources_file


# --- hostile values ----------------------------------------------------------------------------


class Raw(str):
    """JSON text to splice in as is (numbers json.dumps cannot write, absurd nesting)."""


RAW_TOKENS = [
    "1e400", "-1e400", "1E999999999", "-0", "1.0e-400", "NaN", "Infinity", "-Infinity",
    "1" + "0" * 5000, "123456789012345678901234567890.5", "[" * 70 + "]" * 70,
    "[" * 100_000 + "]" * 100_000, '{"a":' * 80 + "1" + "}" * 80,
]
NUMBERS = [
    0, -1, 1, 2, 2**31, 2**53 + 1, 2**63, 2**64, -(2**63), 10**15, 10**30, 10**308, 10**309,
    10**400, 0.5, -0.0, 1e-12, 5e-324, 1e308, -1e308, 1.5, math.nan, math.inf, -math.inf,
]
TEXTS = [
    "", " ", "\x00", "a\nb", "a\rb", "\u2028", "\x85", "\ud800", "x" * 100_000, "NaN", "1e999",
    "-1", "0", "12999.00", "１２", "٣", "2025-13-01", "2025-02-30", "2025-06-01", "9999-99",
    "../../etc/passwd", "<b>&amp;</b>", "%s%n{0}", "nvidia-rtx-4090", "DDR5-5600", "CNY", "USD",
    "percent", "cluster", "torchrig.build", "ok", "error: x", "all_reduce", "cpu",
]


def hostile_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(), st.booleans(), st.sampled_from(NUMBERS), st.sampled_from(TEXTS),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
        st.sampled_from(RAW_TOKENS).map(Raw),
    )
    return st.one_of(
        scalars,
        st.lists(scalars, max_size=3),
        st.dictionaries(st.text(max_size=8), scalars, max_size=3),
    )


_PLACEHOLDER = "\u0001raw{}\u0001"


def dumps_with_raw(doc: Any, *, ensure_ascii: bool, indent: int | None) -> str:
    """json.dumps that writes NaN/Infinity and splices :class:`Raw` tokens in verbatim."""
    raws: list[str] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(str(value))
            return _PLACEHOLDER.format(len(raws) - 1)
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps(swap(doc), ensure_ascii=ensure_ascii, indent=indent, allow_nan=True)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(_PLACEHOLDER.format(i), ensure_ascii=ensure_ascii), raw)
    return text


# --- mutations ---------------------------------------------------------------------------------


def node_paths(doc: Any) -> list[tuple[Any, ...]]:
    """Every place in a JSON tree, as a key/index path; the root is ``()``."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return sorted(out, key=lambda p: [str(x) for x in p])


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _mutate_once(data: st.DataObject, doc: Any) -> Any:
    paths = node_paths(doc)
    path = data.draw(st.sampled_from(paths), label="path")
    kind = data.draw(st.sampled_from(
        ["replace", "replace", "replace", "delete", "add", "wrap", "duplicate", "version"]),
        label="mutation")
    if kind == "version":
        if isinstance(doc, dict):
            doc["version"] = data.draw(st.one_of(
                st.sampled_from([0, -1, 2, 3, 99, 2**63, "1", 1.0, 1.5, True, None]),
                hostile_values()), label="version")
        return doc
    if path == ():
        return data.draw(hostile_values(), label="root") if kind == "replace" else doc
    parent, key = _get(doc, path[:-1]), path[-1]
    if kind == "replace":
        parent[key] = data.draw(hostile_values(), label="value")
    elif kind == "delete":
        del parent[key]
    elif kind == "wrap":
        parent[key] = data.draw(st.sampled_from([[parent[key]], {"value": parent[key]}]),
                                label="wrapped")
    elif kind == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif kind == "add":
        node = parent[key]
        if isinstance(node, dict):
            known = sorted({str(p[-1]) for p in paths if p and isinstance(p[-1], str)})
            odd = ["zz_unknown", "", " ", "\ud800", "colour\n", "a\rb", "\u2028", "\x00"]
            name = data.draw(st.one_of(st.sampled_from(known + odd), st.text(max_size=10)),
                             label="field")
            node[name] = data.draw(hostile_values(), label="field value")
        elif isinstance(node, list):
            node.append(data.draw(hostile_values(), label="item"))
    return doc


def mutate_json(data: st.DataObject, sample: bytes) -> bytes:
    """1-3 structural mutations of a JSON sample, written in a randomly chosen style."""
    doc = json.loads(sample.decode("utf-8-sig"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        doc = _mutate_once(data, doc)
    ensure_ascii = data.draw(st.booleans(), label="ascii")
    text = dumps_with_raw(doc, ensure_ascii=ensure_ascii,
                          indent=data.draw(st.sampled_from([None, 2]), label="indent"))
    return text.encode("utf-8", "surrogatepass")


def mutate_bytes(data: st.DataObject, sample: bytes) -> bytes:
    """Byte-level damage: truncation, garbage, other encodings, BOMs, NUL bytes."""
    kind = data.draw(st.sampled_from(
        ["truncate", "overwrite", "insert", "delete", "utf16", "latin1", "bom", "nul",
         "garbage", "empty"]), label="damage")
    size = len(sample)
    at = data.draw(st.integers(0, max(0, size - 1)), label="at")
    junk = data.draw(st.binary(min_size=1, max_size=16), label="junk")
    if kind == "truncate":
        return sample[:at]
    if kind == "overwrite":
        return sample[:at] + junk + sample[at + len(junk):]
    if kind == "insert":
        return sample[:at] + junk + sample[at:]
    if kind == "delete":
        return sample[:at] + sample[at + len(junk):]
    if kind == "utf16":
        return sample.decode("utf-8").encode("utf-16")
    if kind == "latin1":
        return sample.decode("utf-8").replace("\"", "\"é", 1).encode("latin-1", "replace")
    if kind == "bom":
        return b"\xef\xbb\xbf" + sample
    if kind == "nul":
        return sample[:at] + b"\x00" + sample[at:]
    if kind == "empty":
        return data.draw(st.sampled_from([b"", b" ", b"\n", b"\xef\xbb\xbf"]), label="blank")
    return data.draw(st.binary(max_size=512), label="garbage")


def mutate_csv(data: st.DataObject, sample: bytes) -> bytes:
    """Row-level damage to a price list: cells replaced with hostile text, rows repeated."""
    rows = [line.split(",") for line in sample.decode("utf-8").splitlines()]
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        r = data.draw(st.integers(0, len(rows) - 1), label="row")
        kind = data.draw(st.sampled_from(["cell", "cell", "drop", "dup", "extra", "quote"]),
                         label="mutation")
        if kind == "cell" and rows[r]:
            c = data.draw(st.integers(0, len(rows[r]) - 1), label="column")
            rows[r][c] = data.draw(st.one_of(
                st.sampled_from(TEXTS + ["-5", "1e12", "1_000", "Infinity", "sNaN", "0x10",
                                         '"', "\"a\"\"b\"", "\r", "x" * 200_000]),
                st.text(max_size=20)), label="cell")
        elif kind == "drop" and rows[r]:
            rows[r].pop()
        elif kind == "dup":
            rows.insert(r, list(rows[r]))
        elif kind == "extra":
            rows[r].append(data.draw(st.text(max_size=5), label="extra"))
        elif kind == "quote":
            rows[r] = ['"' + ",".join(rows[r])]
    text = "\n".join(",".join(row) for row in rows)
    return text.encode("utf-8", "surrogatepass")


def hostile_payload(data: st.DataObject, target: Target) -> bytes:
    """A damaged version of one of ``target``'s samples."""
    sample = data.draw(st.sampled_from(samples(target.name)), label="sample")
    structural = mutate_json if target.is_json else mutate_csv
    how = data.draw(st.sampled_from(["structure", "structure", "structure", "bytes"]),
                    label="how")
    return structural(data, sample) if how == "structure" else mutate_bytes(data, sample)
