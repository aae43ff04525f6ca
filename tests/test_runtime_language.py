"""Text the core produces while running reads in one language at a time.

The GUI's language test (tests/gui/test_i18n.py) walks the widgets for untranslated *source*
strings; it cannot see text made at run time: findings, fix suggestions, plan notes, detection
reasons, the benchmark log. Here that text is produced for real - every workload against tiers,
builds and a machine, every build checked, hardware detected on a fake machine whose probes
fail, benchmarks run at smoke size - and rendered in both languages: the Chinese text may hold
Latin script only for names (products, units, codes, API names that Chinese users read as
they are), the English text holds no Chinese.
"""

from __future__ import annotations

import re
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchrig.findings import Finding
from torchrig.i18n import LANGS, Msg
from torchrig.labels import citation

ROOT = Path(__file__).resolve().parents[1]

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\-]*")
CODE = re.compile(
    r"(?<![\w])/[^\s，。；：（）、“”'\"]+"  # a path: /proc/cpuinfo, /sys/class/block/sda
    r"|[\w.\-]+\([^()]*\)"  # a call: torch.cuda.is_available(), nvmlDeviceGetName
    r"|\b\w+(?:\.\w+)+\b"  # a dotted name: torch.backends.cudnn, gpt2.config
    r"|\b\w+=\S+"  # key=value: CUDA_VISIBLE_DEVICES='1', nvml=False
    r"|--[\w-]+(?: [\w.\-]+)?"  # a command-line option with its value
    r"|'[^']*'|\"[^\"]*\"|“[^”]*”"  # a quoted literal (file content, a field's own name)
    r"|https?://\S+"  # a price's or a figure's source page
    r"|\[[a-z0-9_]+\]"  # a benchmark's id, as --only takes it
)

NAMES = {
    # Products, makers, projects and libraries: read as they are in Chinese.
    "torch", "Python", "PyTorch", "Linux", "Windows", "Apple", "Intel", "Ampere", "Turing",
    "Volta", "Hopper", "Ada", "Lovelace", "Blackwell", "Xeon", "Core", "Ryzen", "Threadripper",
    "Epyc", "EPYC", "Ultra", "Max", "Pro", "Super", "Ti", "Founders", "Edition", "Llama",
    "Mistral", "Qwen", "Adam", "Ethernet", "Atari", "Puget", "Dettmers", "psutil", "pynvml",
    "nvidia-ml-py", "dmidecode", "cpufreq", "cgroup", "tmpfs", "virtio", "Xen", "overlay",
    "Gloo", "NCCL", "Megatron", "DeepSpeed", "ResNet", "ViT", "BERT", "GPT", "Tensor", "Ceph",
    "safetensors", "EnvPool", "README", "sail-sg", "envpool", "Arm",
    "Transformer", "diffusers", "Stable", "Diffusion", "Nature",  # architectures, a journal
    # CPU feature flags as the kernel names them.
    "amx_fp16", "amx_bf16", "avx512_fp16", "avx512_bf16",
    "accelerate", "estimate-memory",  # Hugging Face's library and its command
    # People, companies and papers cited as sources ("et al." stays Latin in Chinese citations).
    "Korthikanti", "Narayanan", "Chen", "Lambda", "Tim", "Systems", "ZeRO", "arXiv", "et", "al",
    "VLDB", "Li",
    "PCWorld", "GPUDirect", "RDMA", "JEDEC", "QVL",
    # Deep-learning terms Chinese writing keeps in English.
    "token", "tokens", "Token", "epoch", "worker", "logits", "autocast", "foreach", "all-reduce",
    "all-gather", "reduce-scatter",
    # API and option names a user types as they are.
    "pin_memory", "gpu_memory_utilization", "target_samples_per_s", "num_workers",
    "multi_processor_count", "base_frequency", "total_memory",
    "nvidia-smi", "pl",  # the GPU power-limit command the power checks offer
    "sm_75", "sm_80",  # CUDA architecture names as compilers print them
    # Units.
    "s", "ms", "min", "h", "W", "x", "mm", "px", "TFLOP", "GFLOP", "Gbit", "Gb", "kB",
}
SHOUTED_CODES = {"NVME", "VIRTUAL", "DISTRIBUTED", "NVLINK", "INFINIBAND", "NETWORK", "UNKNOWN",
                 "SSD-SATA"}
"""Upper-case words that are codes shouted, not acronyms: the UI shows their labels."""


def latin_words(text: str) -> list[str]:
    """Latin-script words in ``text`` that are not a name, unit, acronym or code."""
    found = []
    for word in WORD.findall(CODE.sub(" ", text)):
        word = word.strip("'-")
        if not word or word in NAMES or len(word) == 1:
            continue  # names; single letters are a formula's variables (b·s·h, N, L)
        if word in SHOUTED_CODES:
            found.append(word)
            continue
        if "_" in word:  # llm_finetune_lora, amp_bf16: codes, not words
            found.append(word)
            continue
        if any(c.isdigit() for c in word) or word.endswith("Error"):
            continue  # RTX4090, x16, Gen4, fp16, DDR5, RuntimeError
        capitals = sum(c.isupper() for c in word)
        if word.isupper() or capitals >= 2:
            continue  # GPU, SMT, NUMA; NVMe, PCIe, NVLink, DataLoader, cuDNN
        found.append(word)
    return found


def chinese_in(text: str) -> list[str]:
    return CJK.findall(text)


def check(texts: dict[str, Msg], data: set[str | None] | None = None) -> list[str]:
    """Every problem with ``texts`` (where -> Msg), one line each. ``data`` are values the
    text quotes (a host name, a version, a mount source): data, not words, so not checked."""
    values = sorted((d for d in data or () if d), key=len, reverse=True)
    # Compiled once, and tried only where the value occurs: the same substitutions, longest
    # value first, as one re.sub per value and text - which recompiled each pattern (far more
    # values than re's cache holds) for every text, most of this module's run time.
    patterns = [(value, re.compile(rf"(?<![\w./]){re.escape(value)}(?![\w./])"))
                for value in values]

    def without_data(text: str) -> str:
        for value, pattern in patterns:
            if value in text:
                text = pattern.sub(" ", text)
        return text

    problems = []
    for where, msg in texts.items():
        zh, en = without_data(msg.zh), without_data(msg.en)
        if latin_words(zh):
            problems.append(f"zh {where}: {latin_words(zh)} in {msg.zh!r}")
        if chinese_in(en):
            problems.append(f"en {where}: {msg.en!r}")
    return problems


def rendered(produce, where: str) -> dict[str, Msg]:  # type: ignore[no-untyped-def]
    """``produce(lang) -> list[str]`` called for both languages, paired line by line."""
    en, zh = produce("en"), produce("zh")
    assert len(en) == len(zh), where
    return {f"{where}[{i}]": Msg(e, z) for i, (e, z) in enumerate(zip(en, zh, strict=True))}


# --- the detector itself ------------------------------------------------------------------


def test_the_check_catches_english_in_chinese_and_chinese_in_english():
    """The reported case: a Chinese value with an English detection reason inside."""
    assert latin_words("未知 (the kernel exposes no cpufreq for cpu0 (common in VMs))") == [
        "the", "kernel", "exposes", "no", "for", "common", "in"]
    assert latin_words("存储类型 NVME · 512 GB") == ["NVME"]
    assert latin_words("任务：llm_finetune_lora") == ["llm_finetune_lora"]
    assert latin_words("Professional research 没有可用 GPU") == ["Professional", "research"]
    assert latin_words("加装 GPU（seed 1.1）") == ["seed"]
    assert latin_words("12.0 samples/s") == ["samples"]
    assert check({"x": Msg("unknown (内核)", "未知")}) == ["en x: 'unknown (内核)'"]


def test_names_units_codes_and_paths_pass():
    assert latin_words("未知（内核没有为 cpu0 提供 cpufreq（虚拟机中常见））") == []
    assert latin_words("/sys/devices/system/cpu/cpu0/cpufreq 无法读取") == []
    assert latin_words("torch.cuda.is_available() 调用失败：RuntimeError") == []
    assert latin_words("NVIDIA GeForce RTX 4090，PCIe Gen4 x16，24.0 GiB，NVMe，83.0 TFLOP/s") == []
    assert latin_words("torch 看不到（CUDA_VISIBLE_DEVICES='1'）") == []


# --- producing text -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    from torchrig.catalog.loader import load_catalog

    return load_catalog()


def _catalog_names(catalog) -> set[str | None]:  # type: ignore[no-untyped-def]
    """Part names as the catalog and a build's lines spell them: data, quoted in text."""
    names: set[str | None] = set()
    for part in catalog.parts.values():
        names |= {part.name, f"{part.vendor} {part.name}"}
        names |= {catalog.source_url(p.source) for p in part.prices}
    return names


def _finding_texts(findings: list[Finding], where: str) -> dict[str, Msg]:
    out = {}
    for f in findings:
        for part in ("title", "detail", "fix"):
            out[f"{where} {f.code}.{part}"] = getattr(f, part)
        out[f"{where} {f.code}.severity"] = f.severity.label
        # The citation as a reader sees it: the project's documents named in the language,
        # prose in both; names of people, papers and vendors pass as names.
        out[f"{where} {f.code}.source"] = Msg(citation(f.source, "en"), citation(f.source, "zh"))
    return out


def _workloads() -> Iterator:  # type: ignore[type-arg]
    from torchrig.planning.workload import load_workload

    for path in sorted((ROOT / "workloads").glob("*.json")):
        yield path.stem, load_workload(path)


def _builds(catalog) -> Iterator:  # type: ignore[no-untyped-def, type-arg]
    from torchrig.builds.build import load_build

    for path in sorted((ROOT / "builds").glob("*.json")):
        yield path.stem, load_build(path, catalog)


def _failing_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A Linux machine whose kernel files are missing, whose NVIDIA driver is not loaded and
    whose torch cannot start CUDA: detection fills every field with a reason."""
    from torchrig.hardware import detect
    from torchrig.hardware.sysfs import FsRoots

    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/mounts").write_text("/dev/nvme0n1p2 / ext4 rw 0 0\n"
                                                "server:/data /data nfs4 rw 0 0\n")

    class NVMLError(Exception):
        pass

    class NVMLError_DriverNotLoaded(NVMLError):  # noqa: N801 - the binding's own name
        pass

    def init() -> None:
        raise NVMLError_DriverNotLoaded()

    fake_nvml = types.SimpleNamespace(nvmlInit=init, NVMLError=NVMLError,
                                      NVMLError_DriverNotLoaded=NVMLError_DriverNotLoaded)
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml)

    def unavailable() -> bool:
        raise RuntimeError()

    fake_torch = types.SimpleNamespace(
        version=types.SimpleNamespace(cuda="12.4", hip=None),
        backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: None)),
        cuda=types.SimpleNamespace(is_available=unavailable))
    return detect(use_torch=True, roots=FsRoots.under(tmp_path), torch_module=fake_torch)


def test_hardware_reasons_in_one_language(tmp_path, monkeypatch):
    from torchrig.hardware import cpu, format_profile_text
    from torchrig.hardware import detection as detection_module
    from torchrig.hardware.gpu_torch import TorchGpus
    from torchrig.hardware.merge import merge_gpus
    from torchrig.hardware.model import GpuInfo
    from torchrig.hardware.sections import profile_sections
    from torchrig.hardware.sysfs import FsRoots

    profile = _failing_machine(tmp_path, monkeypatch)
    assert profile.cpu.unknown and profile.accelerator.unknown  # reasons really appeared

    def sections(lang: str) -> list[str]:
        out = []
        for section in profile_sections(profile, lang):
            out.append(section.title)
            for row in section.rows:
                out += [row.label, row.value, row.hint]
        return out

    texts = rendered(sections, "machine page")
    texts |= rendered(lambda lang: format_profile_text(profile, lang).splitlines(), "detect")
    reasons = [*profile.cpu.unknown.values(), *profile.memory.unknown.values(),
               *profile.accelerator.unknown.values(), *profile.software.unknown.values()]
    for disk in profile.disks:
        reasons += [disk.kind_basis, *disk.unknown.values()]
    texts |= {f"reason {i}": r for i, r in enumerate(reasons)}

    # GPUs NVML and torch each saw alone: the merge explains what the other would have said.
    nvml_only = GpuInfo(index=0, name="NVIDIA A100-SXM4-80GB", uuid="GPU-1", sources=["nvml"])
    torch_only = GpuInfo(index=0, name="AMD Instinct MI300X", uuid="GPU-2", sources=["torch"])
    merged = merge_gpus([nvml_only], TorchGpus(gpus=[torch_only]),
                        environ={"CUDA_VISIBLE_DEVICES": "1"})
    texts |= {f"merge {g.index} {k}": v for g in merged for k, v in g.unknown.items()}

    # A probe that crashes: its fields say so in the reader's language.
    def crash(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError()

    monkeypatch.setattr(cpu, "probe_cpu", crash)
    crashed = detection_module.detect(nvml=False, roots=FsRoots.under(tmp_path))
    texts |= {f"crashed {k}": v for k, v in crashed.cpu.unknown.items()}
    texts |= rendered(lambda lang: format_profile_text(crashed, lang).splitlines(), "crashed")
    sw = profile.software
    data = {profile.hostname, profile.cpu.architecture, profile.cpu.model_name, sw.os_name,
            sw.os_version, sw.kernel, sw.python_version, sw.torch_version, sw.pyside6_version,
            sw.nvml_library, *(d.device for d in profile.disks)}  # type: ignore[misc]
    assert not check(texts, data), "\n".join(check(texts, data))


def test_findings_fixes_and_plan_notes_in_one_language(catalog, tmp_path, monkeypatch):
    from torchrig.builds.capabilities import from_build, from_profile, from_tier
    from torchrig.planning.advice import advise
    from torchrig.planning.analysis import analyze
    from torchrig.planning.device import subject_device
    from torchrig.planning.plan_output import format_advice_text, format_plan_text
    from torchrig.planning.requirements import plan
    from torchrig.planning.solver import solve
    from torchrig.planning.workload import resolve_model

    machine = from_profile(_failing_machine(tmp_path, monkeypatch), catalog)
    # Names are data: builds and workloads carry the user's own, parts and models the maker's.
    data = _catalog_names(catalog)
    subjects = [machine, *(from_tier(t, catalog) for t in catalog.tiers.values()),
                *(from_build(b, catalog) for _, b in _builds(catalog))]
    texts: dict[str, Msg] = {}
    for name, workload in _workloads():
        model = resolve_model(workload)
        data |= {workload.name, model.preset.name if model.preset else None}
        for caps in subjects:
            data.add(caps.label.en if caps.kind == "build" else None)
            analysis = analyze(workload, caps, catalog)
            texts |= _finding_texts(analysis.findings, f"{name} on {caps.label.en}")
        device = subject_device(subjects[1])
        req = plan(workload, device)
        answer = solve(workload, device, catalog)
        texts |= {f"{name} change {i}": c.label for i, c in enumerate(answer.changes)}
        texts |= rendered(lambda lang, w=workload, r=req, a=answer:  # type: ignore[misc]
                          format_plan_text(w, r, lang, a).splitlines(), f"{name} plan")
        advice = advise(workload, catalog)
        texts |= rendered(lambda lang, a=advice: format_advice_text(a, lang).splitlines(),
                          f"{name} advice")
    assert len(texts) > 500  # the loop really produced text
    assert not check(texts, data), "\n".join(check(texts, data))


def test_tier_contradictions_in_one_language(catalog):
    """Where a tier contradicts the seed's general rules (the Targets page, the PDF)."""
    from torchrig.catalog import TIER_IDS, tier_contradictions

    texts: dict[str, Msg] = {}
    for tier_id in TIER_IDS:
        texts |= _finding_texts(tier_contradictions(catalog.tier(tier_id), catalog), tier_id)
    assert any(key.endswith(".source") for key in texts)
    assert not check(texts, _catalog_names(catalog)), "\n".join(
        check(texts, _catalog_names(catalog)))


def test_build_checks_and_comparison_in_one_language(catalog):
    from torchrig.builds.check_output import format_check_text
    from torchrig.builds.compare import compare_builds
    from torchrig.builds.compat import check_build
    from torchrig.builds.pricing import price_build
    from torchrig.builds.source_text import source_text
    from torchrig.i18n import one_language

    texts: dict[str, Msg] = {}
    builds = dict(_builds(catalog))
    # A build's name, its custom lines and the sources typed with its prices are the user's own
    # text, quoted as written.
    data = _catalog_names(catalog)
    for name, build in builds.items():
        data |= {build.name, *(item.text for item in build.line_items),
                 *(item.price_source for item in build.line_items)}
        # ...and so is each language's half of them (i18n.one_language, source_text).
        data |= {shown for lang in LANGS for item in build.line_items
                 for shown in (one_language(item.text, lang),
                               source_text(item.price_source, lang))}
        findings = check_build(build, catalog)
        texts |= _finding_texts(findings, name)
        priced = price_build(build, catalog)
        texts |= rendered(lambda lang, p=priced, f=findings:  # type: ignore[misc]
                          format_check_text(p, f, lang).splitlines(), f"{name} check")
    rows = {lang: compare_builds(list(builds.values()), catalog, lang) for lang in LANGS}
    for i, (en, zh) in enumerate(zip(rows["en"], rows["zh"], strict=True)):
        texts[f"compare row {i}"] = Msg(en.label.en, zh.label.zh)
        texts |= {f"compare {i}.{j}": Msg(e, z)
                  for j, (e, z) in enumerate(zip(en.values, zh.values, strict=True))}
    assert "NVMe" in " ".join(v.en for v in texts.values())
    assert not check(texts, data), "\n".join(check(texts, data))


@pytest.mark.slow
def test_benchmark_log_in_one_language(tmp_path):
    pytest.importorskip("torch")
    from torchrig.bench.cli import summary
    from torchrig.bench.format import format_measurement, progress_line, result_line
    from torchrig.bench.runner import run_suite
    from torchrig.bench.settings import BenchSettings
    from torchrig.hardware.model import SystemProfile

    progress, results = [], []
    report = run_suite(
        BenchSettings(preset="smoke", device="cpu", only=("matmul", "h2d", "cpu_matmul"),
                      dataset_dir=tmp_path, budget_s=60),
        cancel=threading.Event(), on_progress=progress.append, on_result=results.append,
        profile=SystemProfile(), detect=False, watch_machine=False)
    assert progress and len(results) == 3
    texts = {f"progress {i}": Msg(progress_line(p, "en"), progress_line(p, "zh"))
             for i, p in enumerate(progress)}
    texts |= {f"result {r.id}": Msg(result_line(r, "en"), result_line(r, "zh")) for r in results}
    texts |= {f"{r.id} {m.id}": Msg(format_measurement(m, "en"), format_measurement(m, "zh"))
              for r in results for m in r.measurements}
    texts |= rendered(lambda lang: summary(report, lang).splitlines()[1:], "summary")
    assert not check(texts), "\n".join(check(texts))
