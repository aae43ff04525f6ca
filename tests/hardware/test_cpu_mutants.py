"""CPU probe rules that the first tests could not tell apart (mutation testing, issue 28).

cgroup quotas: the kernel enforces every level of the hierarchy, so the CPU a process gets is
the TIGHTEST quota on its path (cgroup v2 docs, "cpu.max": a child cannot exceed its parent's
limit). Each test below has two or more finite limits, so a rule that took the loosest (max) or
only the first/last level found would give a different answer.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import pytest

from torchrig.hardware import cpu as cpu_mod
from torchrig.hardware.cpu import cgroup_cpu_limit, probe_cpu


def _affinity() -> int | None:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


# --------------------------------------------------------------------------- cgroup v2


def test_v2_nested_limits_tightest_is_the_parent(tree):
    tree.write("proc/self/cgroup", "0::/a/b\n")
    tree.write("sys/fs/cgroup/a/b/cpu.max", "200000 100000\n")  # child: 2 CPUs
    tree.write("sys/fs/cgroup/a/cpu.max", "50000 100000\n")  # parent: 0.5 CPU
    tree.write("sys/fs/cgroup/cpu.max", "400000 100000\n")  # root: 4 CPUs
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.5)


def test_v2_nested_limits_tightest_is_the_leaf(tree):
    tree.write("proc/self/cgroup", "0::/a/b\n")
    tree.write("sys/fs/cgroup/a/b/cpu.max", "25000 100000\n")  # child: 0.25 CPU
    tree.write("sys/fs/cgroup/a/cpu.max", "300000 100000\n")  # parent: 3 CPUs
    tree.write("sys/fs/cgroup/cpu.max", "max 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.25)


def test_v2_tightest_at_the_mount_root(tree):
    tree.write("proc/self/cgroup", "0::/a\n")
    tree.write("sys/fs/cgroup/a/cpu.max", "600000 100000\n")  # 6 CPUs
    tree.write("sys/fs/cgroup/cpu.max", "150000 50000\n")  # 150000/50000 = 3 CPUs
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(3.0)


def test_v2_ignores_malformed_and_zero_period_lines(tree):
    tree.write("proc/self/cgroup", "0::/a/b\n")
    tree.write("sys/fs/cgroup/a/b/cpu.max", "100000\n")  # one field: not a quota line
    tree.write("sys/fs/cgroup/a/cpu.max", "50000 0\n")  # period 0: unusable, not "0 CPUs"
    tree.write("sys/fs/cgroup/cpu.max", "abc 100000\n")  # not a number
    assert cgroup_cpu_limit(tree.roots) is None
    tree.write("sys/fs/cgroup/cpu.max", "80000 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.8)


def test_v2_line_needs_hierarchy_zero_and_no_controllers(tree):
    # "1::/a" is not the v2 line (hierarchy 1); "0:cpu:/a" names controllers (v1 style).
    tree.write("sys/fs/cgroup/a/cpu.max", "50000 100000\n")
    tree.write("proc/self/cgroup", "1::/a\n")
    assert cgroup_cpu_limit(tree.roots) is None
    tree.write("proc/self/cgroup", "0::/a\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.5)


def test_v2_path_outside_the_namespace_uses_the_mount_root(tree):
    # The printed path does not exist here (host namespace): the mount root is ours.
    tree.write("proc/self/cgroup", "0::/../host/slice\n")
    tree.write("sys/fs/cgroup/cpu.max", "120000 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(1.2)


# --------------------------------------------------------------------------- cgroup v1


def test_v1_nested_limits_tightest_wins(tree):
    tree.write("proc/self/cgroup", "3:cpu,cpuacct:/kube/pod\n2:memory:/kube/pod\n")
    base = "sys/fs/cgroup/cpu,cpuacct"
    tree.write(f"{base}/kube/pod/cpu.cfs_quota_us", "400000\n")  # 4 CPUs
    tree.write(f"{base}/kube/pod/cpu.cfs_period_us", "100000\n")
    tree.write(f"{base}/kube/cpu.cfs_quota_us", "150000\n")  # 1.5 CPUs
    tree.write(f"{base}/kube/cpu.cfs_period_us", "100000\n")
    tree.write(f"{base}/cpu.cfs_quota_us", "-1\n")  # none at the root
    tree.write(f"{base}/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(1.5)


@pytest.mark.parametrize("mount", ["cpu", "cpuacct,cpu"])
def test_v1_other_mount_names(tree, mount):
    tree.write("proc/self/cgroup", "4:cpu:/x\n")
    tree.write(f"sys/fs/cgroup/{mount}/x/cpu.cfs_quota_us", "250000\n")
    tree.write(f"sys/fs/cgroup/{mount}/x/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(2.5)


def test_v1_zero_quota_or_zero_period_is_no_limit(tree):
    tree.write("proc/self/cgroup", "4:cpu:/x\n")
    tree.write("sys/fs/cgroup/cpu/x/cpu.cfs_quota_us", "0\n")
    tree.write("sys/fs/cgroup/cpu/x/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) is None
    tree.write("sys/fs/cgroup/cpu/x/cpu.cfs_quota_us", "100000\n")
    tree.write("sys/fs/cgroup/cpu/x/cpu.cfs_period_us", "0\n")
    assert cgroup_cpu_limit(tree.roots) is None


def test_v1_without_a_cpu_line_reads_the_mount_root(tree):
    # Only a memory controller line: the cpu hierarchy path is unknown, so "/" (the root).
    tree.write("proc/self/cgroup", "2:memory:/x\n")
    tree.write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000\n")
    tree.write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.5)


def test_v2_and_v1_together_take_the_tighter(tree):
    tree.write("proc/self/cgroup", "0::/\n4:cpu:/\n")
    tree.write("sys/fs/cgroup/cpu.max", "300000 100000\n")  # v2: 3 CPUs
    tree.write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n")  # v1: 2 CPUs
    tree.write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(2.0)


# --------------------------------------------------------------------------- usable CPUs


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs sched_getaffinity")
def test_usable_cpus_is_the_quota_rounded_up_when_below_affinity(tree, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    tree.write("sys/devices/system/cpu/online", "0-15\n")
    tree.write("proc/self/cgroup", "0::/\n")
    tree.write("sys/fs/cgroup/cpu.max", "250000 100000\n")  # 2.5 CPUs -> 3 threads
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").usable_cpus == 3
    tree.write("sys/fs/cgroup/cpu.max", "1200000 100000\n")  # 12 CPUs > affinity 8 -> 8
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").usable_cpus == 8
    tree.write("sys/fs/cgroup/cpu.max", "300000 100000\n")  # exactly 3 -> 3, not 4
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").usable_cpus == 3


# --------------------------------------------------------------------------- macOS / Windows


def _fake_psutil(monkeypatch, *, logical, physical, affinity=None, freq=None):
    """psutil answering fixed counts; ``affinity`` None: no cpu_affinity (as on macOS)."""
    import psutil

    counts = {True: logical, False: physical}
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: counts[logical])
    monkeypatch.setattr(psutil, "cpu_freq", lambda: freq)
    members = {} if affinity is None else {"cpu_affinity": lambda self: affinity}
    monkeypatch.setattr(psutil, "Process", type("FakeProcess", (), members))


def test_portable_counts_and_smt(monkeypatch):
    _fake_psutil(monkeypatch, logical=16, physical=8, affinity=[0, 1, 2, 3],
                 freq=SimpleNamespace(max=4200.0))
    monkeypatch.setattr(cpu_mod.platform, "processor", lambda: "Intel64 Family 6")
    monkeypatch.setattr(cpu_mod, "_windows_cpu_name", lambda: "Intel(R) Core(TM) i9-13900K")
    info = probe_cpu(system="Windows", machine="AMD64")
    assert (info.logical_cpus, info.physical_cores, info.usable_cpus) == (16, 8, 4)
    assert info.smt_enabled is True  # 16 > 8
    assert info.model_name == "Intel(R) Core(TM) i9-13900K" and info.vendor == "Intel"
    assert info.max_freq_hz == pytest.approx(4200.0 * 1e6)
    for name in ("base_freq_hz", "cache_bytes", "isa_features", "numa_nodes"):
        assert info.unknown[name].en == "not read on Windows"
        assert info.unknown[name].zh == "在 Windows 上不读取"
    assert "vendor" not in info.unknown and "max_freq_hz" not in info.unknown


def test_portable_without_smt_or_brand(monkeypatch):
    _fake_psutil(monkeypatch, logical=8, physical=8, affinity=[], freq=SimpleNamespace(max=0.0))
    monkeypatch.setattr(cpu_mod.platform, "processor", lambda: "")
    monkeypatch.setattr(cpu_mod, "_darwin_sysctl_str", lambda name: None)
    info = probe_cpu(system="Darwin", machine="arm64")
    assert info.smt_enabled is False  # 8 == 8
    assert info.usable_cpus == 8  # an empty affinity list falls back to the logical count
    assert info.model_name is None and info.vendor is None
    assert info.unknown["vendor"].en == "not read on macOS"
    assert info.unknown["model_name"].en == "not read on macOS"
    assert info.unknown["max_freq_hz"].en == "not reported by psutil on macOS"
    assert info.unknown["max_freq_hz"].zh == "psutil 在 macOS 上没有报告"


def test_portable_unknown_counts(monkeypatch):
    _fake_psutil(monkeypatch, logical=None, physical=None, freq=None)
    monkeypatch.setattr(cpu_mod.platform, "processor", lambda: "")
    info = probe_cpu(system="FreeBSD", machine="amd64")
    assert info.smt_enabled is None
    assert info.unknown["smt_enabled"].en == "core counts unknown"
    for name in ("logical_cpus", "physical_cores", "usable_cpus"):
        assert info.unknown[name].en == "psutil could not count CPUs"
    assert info.unknown["vendor"].en == "not read on FreeBSD"


@pytest.mark.parametrize(("brand", "vendor"), [
    ("Apple M2 Pro", "Apple"), ("AMD Ryzen 9 7950X", "AMD"),
    ("Snapdragon X Elite (Qualcomm Oryon)", "Qualcomm"), ("Some CPU", None),
])
def test_vendor_from_brand(brand, vendor):
    assert cpu_mod._vendor_from_brand(brand) == vendor


def test_torch_threads_failure_is_a_reason(monkeypatch, tree):
    def broken():
        raise RuntimeError("boom")

    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(get_num_threads=broken))
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.torch_threads is None
    assert info.unknown["torch_threads"].en == "torch.get_num_threads() failed: boom"


# --------------------------------------------------------------------------- identity


def _cpuinfo(tree, block: str, cpus: int = 1) -> None:
    tree.write("proc/cpuinfo", "\n".join(f"processor\t: {i}\n{block}" for i in range(cpus)))
    tree.write("sys/devices/system/cpu/online", f"0-{cpus - 1}\n" if cpus > 1 else "0\n")


def test_unknown_x86_vendor_id_is_kept_as_written(tree):
    _cpuinfo(tree, "vendor_id\t: VIA VIA VIA \nmodel name\t: Nano\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert (info.vendor, info.model_name) == ("VIA VIA VIA", "Nano")
    _cpuinfo(tree, "vendor_id\t: HygonGenuine\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.vendor == "Hygon" and info.model_name is None
    assert info.unknown["model_name"].en == "no 'model name' in /proc/cpuinfo"
    assert info.unknown["model_name"].zh == "/proc/cpuinfo 中没有 “model name” 一行"
    assert "vendor" not in info.unknown


@pytest.mark.parametrize(("block", "name"), [
    ("cpu\t\t: POWER9 (architected), altivec supported\n",
     "POWER9 (architected), altivec supported"),
    ("uarch\t\t: sifive,u74-mc\n", "sifive,u74-mc"),
    ("model name\t: ARMv7 Processor rev 4 (v7l)\ncpu\t\t: x\nuarch\t\t: y\n",
     "ARMv7 Processor rev 4 (v7l)"),
    ("cpu\t\t: first\nuarch\t\t: second\n", "first"),
])
def test_other_architectures_name_from_the_first_known_line(tree, block, name):
    _cpuinfo(tree, block)
    info = probe_cpu(tree.roots, system="Linux", machine="ppc64le")
    assert info.model_name == name and info.vendor is None
    assert info.unknown["vendor"].en == "/proc/cpuinfo names no vendor on this architecture"
    assert info.unknown["vendor"].zh == "在此架构上 /proc/cpuinfo 不写明厂商"
    assert "model_name" not in info.unknown


def test_other_architecture_without_a_model_line(tree):
    _cpuinfo(tree, "BogoMIPS\t: 100\n")
    info = probe_cpu(tree.roots, system="Linux", machine="riscv64")
    assert info.model_name is None
    assert info.unknown["model_name"].en == "no model line in /proc/cpuinfo"
    assert info.unknown["model_name"].zh == "/proc/cpuinfo 中没有型号一行"


def test_arm_unknown_implementer_and_unreadable_parts(tree):
    _cpuinfo(tree, "Features\t: asimd\nCPU implementer\t: 0x99\nCPU part\t: 0x00a\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert info.vendor == "implementer 0x99"
    assert info.model_name == "implementer 0x99 part 0x00a"
    # Unparseable codes on every block: no vendor, the model name line if there is one.
    _cpuinfo(tree, "Features\t: asimd\nCPU implementer\t: ?\nCPU part\t: ?\n"
             "model name\t: Kunpeng\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert info.vendor is None and info.model_name == "Kunpeng"
    assert info.unknown["vendor"].en == "unreadable 'CPU implementer' in /proc/cpuinfo"
    assert "model_name" not in info.unknown
    _cpuinfo(tree, "Features\t: asimd\nCPU implementer\t: 0x41\nCPU part\t: zz\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert (info.vendor, info.model_name) == (None, None)
    assert info.unknown["model_name"].en == "unreadable 'CPU part' in /proc/cpuinfo"
    assert info.unknown["model_name"].zh == "/proc/cpuinfo 中的 “CPU part” 无法解析"


def test_arm_vendors_join_in_first_seen_order(tree):
    blocks = ["Features\t: asimd\nCPU implementer\t: 0x51\nCPU part\t: 0x001\n",
              "Features\t: asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n",
              "Features\t: asimd\nCPU implementer\t: 0x51\nCPU part\t: 0x001\n"]
    tree.write("proc/cpuinfo", "\n".join(f"processor\t: {i}\n{b}" for i, b in enumerate(blocks)))
    tree.write("sys/devices/system/cpu/online", "0-2\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert info.vendor == "Qualcomm + ARM"
    assert info.model_name == "Qualcomm part 0x001 + Cortex-A76"


def test_no_flags_line_is_a_reason(tree):
    _cpuinfo(tree, "vendor_id\t: GenuineIntel\nmodel name\t: X\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.isa_features == []
    assert info.unknown["isa_features"].en == "no 'flags' or 'Features' line in /proc/cpuinfo"
    assert info.unknown["isa_features"].zh == "/proc/cpuinfo 中没有 “flags” 或 “Features” 一行"


# --------------------------------------------------------------------------- frequencies


def test_base_clock_from_cpu_mhz_only_without_cpufreq(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7543\n"
             "cpu MHz\t\t: 2794.750\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz == pytest.approx(2794.750e6)
    # With a cpufreq folder "cpu MHz" moves with load, so it is not the base clock.
    tree.write("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3700000\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz is None and info.max_freq_hz == pytest.approx(3.7e9)
    assert info.unknown["base_freq_hz"].en == (
        "cpufreq exposes no base_frequency for this driver and the model name has no '@ GHz'")


@pytest.mark.parametrize("mhz", ["0", "-5", "100000", "abc", ""])
def test_implausible_cpu_mhz_is_ignored(tree, mhz):
    _cpuinfo(tree, f"vendor_id\t: AuthenticAMD\nmodel name\t: AMD\ncpu MHz\t\t: {mhz}\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.base_freq_hz is None
    assert info.unknown["base_freq_hz"].en == (
        "the kernel exposes no cpufreq for cpu0 (common in VMs)")
    assert info.unknown["max_freq_hz"].zh == "内核没有为 cpu0 提供 cpufreq（虚拟机中常见）"


def test_cpu_mhz_just_inside_the_plausible_range(tree):
    for mhz in (99999.5, 0.5):
        _cpuinfo(tree, f"vendor_id\t: AuthenticAMD\nmodel name\t: AMD\ncpu MHz\t\t: {mhz}\n")
        assert probe_cpu(tree.roots, system="Linux", machine="x86_64").base_freq_hz == \
            pytest.approx(mhz * 1e6)


def test_frequencies_are_read_from_the_first_online_cpu(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    tree.write("sys/devices/system/cpu/online", "4-5\n")
    tree.write("sys/devices/system/cpu/cpu4/cpufreq/cpuinfo_max_freq", "2500000\n")
    tree.write("sys/devices/system/cpu/cpu4/cpufreq/base_frequency", "1800000\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert (info.max_freq_hz, info.base_freq_hz) == (2.5e9, 1.8e9)


def test_unreadable_max_frequency_names_the_file(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    tree.mkdir("sys/devices/system/cpu/cpu0/cpufreq")  # folder there, files missing
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.max_freq_hz is None and "cpuinfo_max_freq" in info.unknown["max_freq_hz"].en


# --------------------------------------------------------------------------- caches


def test_cache_names_and_unshared_instances(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n", cpus=2)
    for cpu in range(2):
        folder = f"sys/devices/system/cpu/cpu{cpu}/cache"
        # L1 data per CPU without a shared_cpu_list: each counts once per CPU (2 x 32K).
        tree.write(f"{folder}/index0/level", "1\n")
        tree.write(f"{folder}/index0/type", "Data\n")
        tree.write(f"{folder}/index0/size", "32K\n")
        # L4 "Unified" shared by both: counted once.
        tree.write(f"{folder}/index3/level", "4\n")
        tree.write(f"{folder}/index3/type", "Unified\n")
        tree.write(f"{folder}/index3/size", "128M\n")
        tree.write(f"{folder}/index3/shared_cpu_list", "0-1\n")
        # Not an index folder; an index without a level is skipped.
        tree.write(f"{folder}/uevent", "")
        tree.write(f"{folder}/index9/type", "Data\n")
        tree.write(f"{folder}/index9/size", "1K\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.cache_bytes == {"L1d": 2 * 32 * 1024, "L4": 128 * 1024**2}
    assert list(info.cache_bytes) == ["L1d", "L4"]


def test_numa_nodes_count_only_node_folders(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    for name in ("node0", "node1", "node3", "possible", "nodeX"):
        tree.mkdir(f"sys/devices/system/node/{name}")
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").numa_nodes == 3


# --------------------------------------------------------------------------- counts, SMT


def test_missing_cpuinfo_reason_names_every_field(tree):
    tree.write("sys/devices/system/cpu/online", "0-1\n")
    tree.write("proc/cpuinfo", "")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    for name in ("vendor", "model_name", "isa_features"):
        assert info.unknown[name].en == f"{tree.roots.proc / 'cpuinfo'} is empty"
        assert info.unknown[name].zh == f"{tree.roots.proc / 'cpuinfo'} 为空"


def test_logical_count_falls_back_to_os_cpu_count(tree, monkeypatch):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    tree.write("sys/devices/system/cpu/online", "garbage\n")  # unparseable: like missing
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: 6)
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").logical_cpus == 6
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: None)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.logical_cpus is None
    assert info.unknown["logical_cpus"].en == (
        "neither /sys cpu/online nor os.cpu_count() answered")


def _topology(tree, cpu: int, name: str, text: str) -> None:
    tree.write(f"sys/devices/system/cpu/cpu{cpu}/topology/{name}", text)


def test_cores_from_thread_siblings_when_core_cpus_list_is_missing(tree, monkeypatch):
    import psutil

    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: {True: 4, False: None}[logical])
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n", cpus=4)
    for cpu in range(4):  # SMT pairs (0,1) and (2,3): 2 cores
        _topology(tree, cpu, "thread_siblings_list", "0-1\n" if cpu < 2 else "2-3\n")
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").physical_cores == 2


def test_cores_fall_back_to_cpuinfo_pairs_when_one_cpu_has_no_topology(tree):
    # CPU 3's topology is unreadable: the sibling sets are dropped (a partial count would be
    # wrong), and /proc/cpuinfo's (physical id, core id) pairs answer: 2 sockets x 1 core.
    blocks = [f"processor\t: {i}\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD\n"
              f"physical id\t: {i // 2}\ncore id\t\t: {i % 2}\n" for i in range(6)]
    tree.write("proc/cpuinfo", "\n".join(blocks))
    # 6 CPUs as (physical id, core id) = (0,0) (0,1) (1,0) (1,1) (2,0) (2,1): 6 distinct
    # pairs, so 6 cores (a rule reading only one of the two ids would count 3 or 2).
    tree.write("sys/devices/system/cpu/online", "0-5\n")
    for cpu in range(5):
        _topology(tree, cpu, "core_cpus_list", f"{cpu}\n")
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").physical_cores == 6
    _topology(tree, 5, "core_cpus_list", "x-y\n")  # unparseable: same fallback
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").physical_cores == 6


def test_cores_from_psutil_last(tree, monkeypatch):
    import psutil

    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: {True: 8, False: 3}[logical])
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").physical_cores == 3
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.physical_cores is None
    assert info.unknown["physical_cores"].en == "no CPU topology in /sys or /proc/cpuinfo"
    assert info.unknown["physical_cores"].zh == "/sys 和 /proc/cpuinfo 中都没有 CPU 拓扑信息"


@pytest.mark.parametrize(("files", "cores", "smt"), [
    ({"smt/active": "0\n"}, None, False),
    ({"smt/active": "1\n"}, None, True),
    ({"smt/active": "2\n"}, None, False),  # only 1 means active
    # control says off: False even though 2 logical CPUs on 1 core would say True
    ({"smt/control": "off\n"}, 1, False),
    ({"smt/control": "forceoff\n"}, 1, False),
    ({"smt/control": "notimplemented\n"}, 1, False),
    ({"smt/control": "notsupported\n"}, 1, False),
    ({"smt/control": "on\n"}, 1, True),  # "on" decides nothing: 2 logical > 1 core
    ({}, 2, False),  # 2 logical == 2 cores
])
def test_smt_rules(tree, files, cores, smt):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n", cpus=2)
    for name, text in files.items():
        tree.write(f"sys/devices/system/cpu/{name}", text)
    for cpu in range(2):
        _topology(tree, cpu, "core_cpus_list", "0-1\n" if cores == 1 else f"{cpu}\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.smt_enabled is smt


def test_smt_unknown_without_counts(tree, monkeypatch):
    import psutil

    tree.write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n")
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: None)
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: None)
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.smt_enabled is None
    assert info.unknown["smt_enabled"].en == "no /sys cpu/smt and core counts unknown"
    assert info.unknown["smt_enabled"].zh == "没有 /sys 的 cpu/smt，核心数量也未知"


def test_arm_features_pick_only_torch_relevant_flags_in_table_order(tree):
    _cpuinfo(tree, "Features\t: sve2 fp asimd bf16 i8mm neon sme\nCPU implementer\t: 0x41\n"
             "CPU part\t: 0xd4f\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert info.isa_features == ["neon", "asimd", "bf16", "i8mm", "sve2", "sme"]
    assert info.model_name == "Neoverse-V2"


def test_windows_registry_name(monkeypatch):
    class Key:
        pass

    fake = SimpleNamespace(HKEY_LOCAL_MACHINE=object(), OpenKey=lambda root, path: Key(),
                           QueryValueEx=lambda key, name: ("  AMD Ryzen 9 7950X  ", 1))
    monkeypatch.setitem(sys.modules, "winreg", fake)
    assert cpu_mod._windows_cpu_name() == "AMD Ryzen 9 7950X"
    fake.QueryValueEx = lambda key, name: ("   ", 1)
    assert cpu_mod._windows_cpu_name() is None

    def missing(root, path):
        raise OSError("no key")

    fake.OpenKey = missing
    assert cpu_mod._windows_cpu_name() is None


# --------------------------------------------------------------------------- second round


def test_v2_file_is_read_only_for_a_v2_cgroup_line(tree):
    tree.write("proc/self/cgroup", "4:cpu:/x\n")  # v1 only
    tree.write("sys/fs/cgroup/cpu.max", "50000 100000\n")
    assert cgroup_cpu_limit(tree.roots) is None


def test_cgroup_lines_keep_colons_in_the_path_and_skip_bad_lines(tree):
    tree.write("proc/self/cgroup", "garbage\n0::/a:b\n")
    tree.write("sys/fs/cgroup/a:b/cpu.max", "70000 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.7)


def test_zero_quota_is_not_a_limit(tree):
    tree.write("proc/self/cgroup", "0::/\n")
    tree.write("sys/fs/cgroup/cpu.max", "0 100000\n")
    assert cgroup_cpu_limit(tree.roots) is None


def test_dot_dot_in_the_cgroup_path_never_leaves_the_mount(tree):
    tree.write("proc/self/cgroup", "0::/../x\n")
    tree.write("sys/fs/cpu.max", "10000 100000\n")  # above the mount: must not be read
    tree.write("sys/fs/cgroup/x/cpu.max", "90000 100000\n")
    assert cgroup_cpu_limit(tree.roots) == pytest.approx(0.9)


def test_usable_unknown_without_affinity_or_count(tree, monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: None)
    tree.write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.usable_cpus is None
    assert info.unknown["usable_cpus"] == cpu_mod.Msg(
        "CPU affinity not available and logical count unknown",
        "无法读取 CPU 亲和性，逻辑处理器数量也未知")
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: 3)
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").usable_cpus == 3


def test_without_online_list_the_cpus_are_counted_from_zero(tree, monkeypatch):
    monkeypatch.setattr(cpu_mod.os, "cpu_count", lambda: 2)
    tree.write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n")
    _topology(tree, 0, "core_cpus_list", "0\n")
    _topology(tree, 1, "core_cpus_list", "1\n")
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").physical_cores == 2


def test_arm_block_without_codes_is_skipped_not_fatal(tree):
    blocks = ["Features\t: asimd\nCPU implementer\t: zz\n",  # unreadable: skipped
              "Features\t: asimd\nCPU part\t: 0xd0c\n",  # no implementer line
              "Features\t: asimd\nCPU implementer\t: 0x41\n",  # no part line
              "Features\t: asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"]
    tree.write("proc/cpuinfo", "\n".join(f"processor\t: {i}\n{b}" for i, b in enumerate(blocks)))
    tree.write("sys/devices/system/cpu/online", "0-3\n")
    info = probe_cpu(tree.roots, system="Linux", machine="aarch64")
    assert (info.vendor, info.model_name) == ("ARM", "Neoverse-N1")


def test_cpuinfo_values_keep_their_colons():
    assert cpu_mod.parse_cpuinfo("model name : A:B\n") == [{"model name": "A:B"}]


def test_architecture_from_platform_and_its_reason(monkeypatch):
    monkeypatch.setattr(cpu_mod.platform, "machine", lambda: "riscv64")
    assert probe_cpu(system="Windows").architecture == "riscv64"
    monkeypatch.setattr(cpu_mod.platform, "machine", lambda: "")
    info = probe_cpu(system="Windows")
    assert info.architecture is None
    assert info.unknown["architecture"] == cpu_mod.Msg("platform.machine() returned nothing",
                                                       "platform.machine() 没有返回结果")


def test_brand_clock_is_exact(tree):
    _cpuinfo(tree, "vendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon CPU @ 2.50GHz\n")
    assert probe_cpu(tree.roots, system="Linux", machine="x86_64").base_freq_hz == 2.5e9


def test_zero_max_frequency_reads_as_unreadable(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n")
    freq = tree.write("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "0\n").parent
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.unknown["max_freq_hz"] == cpu_mod.Msg(f"unreadable {freq}", f"{freq} 无法读取")
    assert info.unknown["base_freq_hz"].zh == (
        "此驱动的 cpufreq 不提供 base_frequency，型号名称中也没有 “@ GHz”")


def test_portable_macos_brand_and_os_words(monkeypatch):
    asked = []
    _fake_psutil(monkeypatch, logical=None, physical=4, freq=SimpleNamespace(max=3000.0))
    monkeypatch.setattr(cpu_mod, "_darwin_sysctl_str",
                        lambda name: asked.append(name) or "Apple M2")
    monkeypatch.setattr(cpu_mod, "_windows_cpu_name", lambda: "never asked on macOS")
    info = probe_cpu(system="Darwin", machine="arm64")
    assert asked == ["machdep.cpu.brand_string"]
    assert (info.model_name, info.vendor) == ("Apple M2", "Apple")
    assert info.max_freq_hz == 3000.0 * 1e6
    assert info.smt_enabled is None  # logical count unknown
    assert info.unknown["smt_enabled"] == cpu_mod.Msg("core counts unknown", "核心数量未知")
    assert info.unknown["logical_cpus"] == cpu_mod.Msg("psutil could not count CPUs",
                                                       "psutil 无法统计处理器数量")
    assert info.usable_cpus is None
    # On Linux-like systems the Darwin call is never made
    asked.clear()
    _fake_psutil(monkeypatch, logical=2, physical=2)
    probe_cpu(system="FreeBSD", machine="amd64")
    assert asked == []


def test_portable_empty_os_name_and_affinity_errors(monkeypatch):
    import psutil

    _fake_psutil(monkeypatch, logical=4, physical=2, freq=None)

    class Broken:
        def cpu_affinity(self):
            raise psutil.AccessDenied()

    monkeypatch.setattr(psutil, "Process", Broken)
    monkeypatch.setattr(cpu_mod.platform, "processor", lambda: "")
    # probe_cpu fills an empty system name from platform, so call the portable probe itself
    info = cpu_mod.CpuInfo(architecture="x")
    cpu_mod._probe_portable(info, "")
    assert info.usable_cpus == 4  # the error leaves the logical count
    assert info.unknown["vendor"] == cpu_mod.Msg("not read on this OS", "在此操作系统上不读取")

    class Os:
        def cpu_affinity(self):
            raise OSError("no")

    monkeypatch.setattr(psutil, "Process", Os)
    info = cpu_mod.CpuInfo(architecture="x")
    cpu_mod._probe_portable(info, "Windows")
    assert info.usable_cpus == 4


def test_windows_registry_is_asked_for_the_processor_name(monkeypatch):
    root = object()
    asked = []

    def open_key(where, path):
        asked.append((where, path))
        return "key"

    def query(key, name):
        asked.append((key, name))
        return ("Intel(R) Xeon(R)", 1)

    monkeypatch.setitem(sys.modules, "winreg", SimpleNamespace(
        HKEY_LOCAL_MACHINE=root, OpenKey=open_key, QueryValueEx=query))
    assert cpu_mod._windows_cpu_name() == "Intel(R) Xeon(R)"
    assert asked == [(root, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"),
                     ("key", "ProcessorNameString")]


def _cache(tree, cpu: int, index: str, level: int, kind: str, size: str,
           shared: str | None) -> None:
    folder = f"sys/devices/system/cpu/cpu{cpu}/cache/{index}"
    tree.write(f"{folder}/level", f"{level}\n")
    tree.write(f"{folder}/type", f"{kind}\n")
    tree.write(f"{folder}/size", f"{size}\n")
    if shared is not None:
        tree.write(f"{folder}/shared_cpu_list", f"{shared}\n")


def test_caches_skip_seen_instances_and_non_index_entries(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n", cpus=2)
    for cpu in range(2):
        tree.write(f"sys/devices/system/cpu/cpu{cpu}/cache/aaa", "")  # sorts before index*
        _cache(tree, cpu, "index0", 2, "Unified", "1M", "0-1")  # shared: counted once
        _cache(tree, cpu, "index1", 1, "Data", "32K", f"{cpu}")  # private: per CPU
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    # L2 once (1 MiB), L1d twice (2 x 32 KiB): CPU 1's shared L2 is skipped, not its L1d
    assert info.cache_bytes == {"L1d": 2 * 32 * 1024, "L2": 1024**2}


def test_unparseable_shared_list_counts_the_cache_per_cpu(tree):
    _cpuinfo(tree, "vendor_id\t: AuthenticAMD\nmodel name\t: AMD\n", cpus=2)
    for cpu in range(2):
        _cache(tree, cpu, "index0", 1, "Instruction", "64K", "zz")
    info = probe_cpu(tree.roots, system="Linux", machine="x86_64")
    assert info.cache_bytes == {"L1i": 2 * 64 * 1024}


def test_portable_frequency_error_and_macos_without_brand(monkeypatch):
    _fake_psutil(monkeypatch, logical=2, physical=2)
    import psutil

    def no_freq():
        raise NotImplementedError

    monkeypatch.setattr(psutil, "cpu_freq", no_freq)
    monkeypatch.setattr(cpu_mod, "_darwin_sysctl_str", lambda name: None)
    monkeypatch.setattr(cpu_mod, "_windows_cpu_name", lambda: "asked the Windows registry")
    monkeypatch.setattr(cpu_mod.platform, "processor", lambda: "arm")
    info = probe_cpu(system="Darwin", machine="arm64")
    assert info.max_freq_hz is None
    assert info.unknown["max_freq_hz"].en == "not reported by psutil on macOS"
    assert info.model_name == "arm"  # platform.processor(), never the Windows name
    assert info.vendor is None
