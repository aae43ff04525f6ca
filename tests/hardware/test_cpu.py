"""CPU probe against fake /proc + /sys trees (x86 with SMT, ARM, cgroup quotas)."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import psutil
import pytest

from torchrig.hardware.cpu import cgroup_cpu_limit, parse_cpuinfo, probe_cpu

INTEL_FLAGS = (
    "fpu vme sse sse2 ht sse4_1 sse4_2 avx f16c fma avx2 avx512f avx512dq avx512bw avx512vl "
    "avx512_vnni avx512_bf16 amx_bf16 amx_tile amx_int8 hypervisor"
)


def _affinity(default: int) -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return default


def _intel(tree, *, base_frequency: bool = True) -> None:
    blocks = []
    for cpu in range(4):
        blocks.append(
            f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\n"
            "model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
            f"physical id\t: 0\ncore id\t\t: {cpu % 2}\nflags\t\t: {INTEL_FLAGS}\n"
        )
    tree.write("proc/cpuinfo", "\n".join(blocks))
    cpu_dir = "sys/devices/system/cpu"
    tree.write(f"{cpu_dir}/online", "0-3\n")
    tree.write(f"{cpu_dir}/smt/active", "1\n")
    tree.write(f"{cpu_dir}/cpu0/cpufreq/cpuinfo_max_freq", "3200000\n")
    if base_frequency:
        tree.write(f"{cpu_dir}/cpu0/cpufreq/base_frequency", "2000000\n")
    for cpu in range(4):
        siblings = "0,2" if cpu % 2 == 0 else "1,3"
        tree.write(f"{cpu_dir}/cpu{cpu}/topology/core_cpus_list", siblings + "\n")
        for index, (level, kind, size, shared) in enumerate(
            [
                (1, "Data", "48K", siblings),
                (1, "Instruction", "32K", siblings),
                (2, "Unified", "1280K", siblings),
                (3, "Unified", "48M", "0-3"),
            ]
        ):
            folder = f"{cpu_dir}/cpu{cpu}/cache/index{index}"
            tree.write(f"{folder}/level", f"{level}\n")
            tree.write(f"{folder}/type", f"{kind}\n")
            tree.write(f"{folder}/size", f"{size}\n")
            tree.write(f"{folder}/shared_cpu_list", f"{shared}\n")
    tree.mkdir("sys/devices/system/node/node0")
    tree.mkdir("sys/devices/system/node/node1")
    tree.write("sys/devices/system/node/online", "0-1\n")


def _arm(tree, parts: list[tuple[str, str]], *, features: str) -> None:
    blocks = [
        f"processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: {features}\n"
        f"CPU implementer\t: {impl}\nCPU architecture: 8\nCPU variant\t: 0x3\n"
        f"CPU part\t: {part}\nCPU revision\t: 1\n"
        for i, (impl, part) in enumerate(parts)
    ]
    tree.write("proc/cpuinfo", "\n".join(blocks))
    cpu_dir = "sys/devices/system/cpu"
    tree.write(f"{cpu_dir}/online", f"0-{len(parts) - 1}\n")
    for cpu in range(len(parts)):
        tree.write(f"{cpu_dir}/cpu{cpu}/topology/core_cpus_list", f"{cpu}\n")


def test_intel_with_smt(tree, monkeypatch):
    _intel(tree)
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(get_num_threads=lambda: 7))
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.vendor == "Intel"
    assert info.model_name == "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"
    assert info.architecture == "x86_64"
    assert (info.physical_cores, info.logical_cpus, info.smt_enabled) == (2, 4, True)
    assert info.base_freq_hz == 2.0e9 and info.max_freq_hz == 3.2e9
    # Totals over instances: two cores' private L1/L2, one shared L3.
    assert info.cache_bytes == {
        "L1d": 2 * 48 * 1024,
        "L1i": 2 * 32 * 1024,
        "L2": 2 * 1280 * 1024,
        "L3": 48 * 1024**2,
    }
    assert info.isa_features == [
        "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
        "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8",
    ]  # fmt: skip
    assert info.numa_nodes == 2
    assert info.torch_threads == 7
    assert info.unknown == {}


def test_base_frequency_from_intel_brand_string(tree):
    _intel(tree, base_frequency=False)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz == pytest.approx(2.0e9)


def test_amd_without_cpufreq_gives_reasons(tree, monkeypatch):
    tree.write(
        "proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9554 64-Core Processor\n"
        "flags\t\t: sse avx avx2 fma avx512f avx512_bf16\n",
    )
    tree.write("sys/devices/system/cpu/online", "0\n")
    tree.write("sys/devices/system/cpu/smt/control", "notsupported\n")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.vendor == "AMD"
    assert info.smt_enabled is False
    assert info.base_freq_hz is None and info.max_freq_hz is None
    # No cpufreq folder at all: both reasons say so (not the "no base_frequency" one).
    no_cpufreq = "the kernel exposes no cpufreq for cpu0 (common in VMs)"
    assert info.unknown["max_freq_hz"].en == info.unknown["base_freq_hz"].en == no_cpufreq
    cpu_dir = tree.roots.sys / "devices/system/cpu"
    assert info.cache_bytes == {}
    assert info.unknown["cache_bytes"].en == f"no cache index folders under {cpu_dir}/cpu*/cache"
    node_dir = tree.roots.sys / "devices/system/node"
    assert info.numa_nodes is None
    assert info.unknown["numa_nodes"].en == f"no {node_dir}/node* (kernel built without NUMA?)"
    assert info.torch_threads is None and "not loaded" in info.unknown["torch_threads"].en
    # Topology files missing and no "core id" in /proc/cpuinfo: psutil's count is the answer.
    assert info.physical_cores == psutil.cpu_count(logical=False)


def test_arm_server_names_and_features(tree):
    features = "fp asimd evtstrm aes pmull crc32 atomics fphp asimdhp cpuid asimdrdm asimddp"
    _arm(tree, [("0x41", "0xd0c")] * 4, features=features)
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert (info.vendor, info.model_name) == ("ARM", "Neoverse-N1")
    assert info.isa_features == ["asimd", "asimdhp", "asimddp", "fphp"]
    assert (info.physical_cores, info.logical_cpus, info.smt_enabled) == (4, 4, False)
    assert info.architecture == "aarch64"


def test_arm_big_little_and_unknown_part(tree):
    _arm(tree, [("0x41", "0xd03"), ("0x41", "0xd03"), ("0x41", "0xd08")], features="asimd sve")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert info.model_name == "Cortex-A53 + Cortex-A72"
    assert info.isa_features == ["asimd", "sve"]

    _arm(tree, [("0x61", "0x022")], features="asimd bf16 i8mm")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert (info.vendor, info.model_name) == ("Apple", "Apple part 0x022")


def test_missing_cpuinfo_still_counts_cpus(tree):
    tree.write("sys/devices/system/cpu/online", "0-5\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.logical_cpus == 6
    assert info.vendor is None and "cpuinfo" in info.unknown["vendor"].en
    assert "cpuinfo" in info.unknown["isa_features"].en


def test_cgroup_v2_quota_limits_usable_cpus(tree):
    _intel(tree)
    tree.write("proc/self/cgroup", "0::/kubepods/pod1/ctr\n")
    tree.write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n")
    tree.write("sys/fs/cgroup/kubepods/pod1/cpu.max", "50000 100000\n")  # parent: half a CPU
    tree.write("sys/fs/cgroup/cpu.max", "max 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.5)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.usable_cpus == 1  # a fraction of a CPU still runs one thread


def test_cgroup_v2_fractional_quota_rounds_up(tree):
    tree.write("proc/self/cgroup", "0::/\n")
    tree.write("sys/fs/cgroup/cpu.max", "150000 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(1.5)
    tree.write("sys/devices/system/cpu/online", "0-63\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.usable_cpus == min(_affinity(default=64), 2)


def test_cgroup_v1_quota_and_host_path_not_visible(tree):
    tree.write("proc/self/cgroup", "5:cpuacct,cpu:/docker/abc123\n4:memory:/docker/abc123\n")
    tree.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n")
    tree.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(3.0)
    tree.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
    assert cgroup_cpu_limit(tree.roots) is None


def test_no_cgroup_file_means_no_limit(tree):
    assert cgroup_cpu_limit(tree.roots) is None


def test_parse_cpuinfo_blocks():
    blocks = parse_cpuinfo("processor : 0\nflags : a b\n\nprocessor : 1\nflags : a\n")
    assert [b["flags"] for b in blocks] == ["a b", "a"]


def test_portable_path_uses_psutil_and_says_why():
    info = probe_cpu(system="Windows", machine="AMD64")
    assert info.logical_cpus == psutil.cpu_count(logical=True)
    assert info.architecture == "AMD64"
    assert info.unknown["isa_features"].en == "not read on Windows"
    assert info.unknown["cache_bytes"].en == "not read on Windows"


def test_real_machine_matches_os():
    info = probe_cpu()
    assert info.logical_cpus == os.cpu_count()
    assert info.usable_cpus is not None
    assert 1 <= info.usable_cpus <= _affinity(default=os.cpu_count() or 1)
    assert info.physical_cores == psutil.cpu_count(logical=False)


def test_clock_from_cpuinfo_when_the_kernel_has_no_cpufreq(tree):
    """issue 17: a VM without cpufreq showed "unknown" while /proc/cpuinfo said 2596 MHz."""
    tree.write(
        "proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7H12 64-Core Processor\n"
        "cpu MHz\t\t: 2596.096\nflags\t\t: sse avx avx2 fma hypervisor\n",
    )
    tree.write("sys/devices/system/cpu/online", "0\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz == pytest.approx(2596.096e6)
    assert "base_freq_hz" not in info.unknown
    assert info.max_freq_hz is None and "cpufreq" in info.unknown["max_freq_hz"].en


def test_cpuinfo_clock_is_not_taken_where_cpufreq_exists(tree):
    """With cpufreq, "cpu MHz" is the current, moving clock: not a base frequency."""
    _intel(tree, base_frequency=False)
    text = (tree.base / "proc/cpuinfo").read_text().replace(
        "Gold 6338 CPU @ 2.00GHz", "Gold 6338 CPU").replace(
        "processor", "cpu MHz\t\t: 800.0\nprocessor")
    tree.write("proc/cpuinfo", text)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz is None and "base_frequency" in info.unknown["base_freq_hz"].en
