"""Storage probe: mount selection and medium kind from a fake /proc + /sys tree."""

from __future__ import annotations

import os
from types import SimpleNamespace

import psutil
import pytest

from torchrig.hardware.storage import (
    Mount,
    classify_block,
    parse_mountinfo,
    parse_mounts,
    probe_storage,
    select_mounts,
)

PCI = "sys/devices/pci0000:00"


class FakeUsage:
    """psutil.disk_usage stand-in that remembers which mountpoints were asked."""

    def __init__(self, failing: tuple[str, ...] = ()) -> None:
        self.asked: list[str] = []
        self.failing = failing

    def __call__(self, mountpoint: str) -> SimpleNamespace:
        self.asked.append(mountpoint)
        if mountpoint in self.failing:
            raise PermissionError(13, "Permission denied")
        return SimpleNamespace(total=2_000_000_000_000, free=500_000_000_000)


def _disk(tree, name: str, majmin: str, *, rotational: str | None = "0", model: str = "",
          parent: str = PCI) -> str:  # fmt: skip
    folder = f"{parent}/{name}"
    tree.mkdir(folder)
    if rotational is not None:
        tree.write(f"{folder}/queue/rotational", rotational + "\n")
    if model:
        tree.write(f"{folder}/device/model", model + "\n")
    tree.link(f"sys/class/block/{name}", folder)
    tree.link(f"sys/dev/block/{majmin}", folder)
    return folder


def _partition(tree, disk_folder: str, name: str, majmin: str) -> None:
    folder = f"{disk_folder}/{name}"
    tree.write(f"{folder}/partition", "1\n")
    tree.link(f"sys/class/block/{name}", folder)
    tree.link(f"sys/dev/block/{majmin}", folder)


def _stacked(tree, name: str, majmin: str, slaves: list[str], dm_name: str = "") -> None:
    folder = f"sys/devices/virtual/block/{name}"
    tree.mkdir(f"{folder}/slaves")
    for slave in slaves:
        tree.link(f"{folder}/slaves/{slave}", f"sys/class/block/{slave}")
    if dm_name:
        tree.write(f"{folder}/dm/name", dm_name + "\n")
    tree.link(f"sys/class/block/{name}", folder)
    tree.link(f"sys/dev/block/{majmin}", folder)


@pytest.fixture
def workstation(tree):
    nvme = _disk(tree, "nvme0n1", "259:0", model="Samsung SSD 990 PRO 2TB")
    _partition(tree, nvme, "nvme0n1p2", "259:2")
    sda = _disk(tree, "sda", "8:0", rotational="1", model="ST4000DM004-2CV1")
    _partition(tree, sda, "sda1", "8:1")
    _partition(tree, sda, "sda2", "8:2")
    _disk(tree, "sdb", "8:16", rotational="0", model="Samsung SSD 870")
    _disk(tree, "sdc", "8:32", rotational="0")
    _disk(tree, "sdd", "8:48", rotational="0")
    _stacked(tree, "dm-0", "253:0", ["sda1", "sdb"], dm_name="vg-data")
    _stacked(tree, "md0", "9:0", ["sdc", "sdd"])
    _disk(tree, "vda", "253:16", rotational="1", parent="sys/devices/virtio1/block")
    _disk(tree, "sde", "8:64", rotational="1", model="QEMU HARDDISK")
    _disk(tree, "nvme1n1", "259:5", model="Amazon Elastic Block Store")
    loop = _disk(tree, "loop1", "7:1", rotational="0", parent="sys/devices/virtual/block")
    tree.write(f"{loop}/loop/backing_file", "/var/images/disk.img\n")
    tree.write(
        "proc/self/mountinfo",
        "\n".join(
            [
                "21 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw",
                "22 21 0:5 / /proc rw shared:2 - proc proc rw",
                "23 21 0:6 / /sys rw - sysfs sysfs rw",
                "24 21 0:20 / /dev/shm rw - tmpfs tmpfs rw,size=8g",
                "25 21 0:21 / /run rw - tmpfs tmpfs rw",
                "26 21 8:2 / /data/hdd rw - xfs /dev/sda2 rw",
                "27 21 253:0 / /data/lvm rw - ext4 /dev/mapper/vg-data rw",
                "28 21 9:0 / /data/raid rw - ext4 /dev/md0 rw",
                "29 21 0:40 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2",
                "30 21 7:0 / /snap/core/1 ro - squashfs /dev/loop0 ro",
                "31 21 259:2 /home /home rw - ext4 /dev/nvme0n1p2 rw",
                "32 21 253:16 / /vm rw - ext4 /dev/vda rw",
                "33 21 8:64 / /qemu rw - ext4 /dev/sde rw",
                "34 21 259:5 / /ebs rw - xfs /dev/nvme1n1 rw",
                "35 21 0:50 / /var/lib/docker/overlay2/x/merged rw - overlay overlay rw",
                "36 21 0:60 / /mnt/my\\040data rw - fuse.sshfs me@host:/data rw",
                "37 21 7:1 / /images rw - ext4 /dev/loop1 rw",
                "38 24 0:22 / /dev/shm rw - tmpfs tmpfs rw,size=16g",
            ]
        )
        + "\n",
    )
    return tree


def _by_mountpoint(disks):
    return {d.mountpoint: d for d in disks}


def test_workstation_kinds_and_basis(workstation):
    usage = FakeUsage(failing=("/qemu",))
    stat_calls: list[str] = []

    def is_dir(path: str) -> bool:
        stat_calls.append(path)
        return True

    disks = probe_storage(workstation.roots, system="Linux", usage=usage, is_dir=is_dir)
    found = _by_mountpoint(disks)
    assert set(found) == {
        "/", "/dev/shm", "/data/hdd", "/data/lvm", "/data/raid", "/mnt/nfs", "/vm", "/qemu",
        "/ebs", "/mnt/my data", "/images",
    }  # fmt: skip
    kinds = {mp: d.kind for mp, d in found.items()}
    assert kinds == {
        "/": "nvme",
        "/dev/shm": "virtual",
        "/data/hdd": "hdd",
        "/data/lvm": "hdd",  # LVM over an HDD partition and an SSD: the slowest counts
        "/data/raid": "ssd",
        "/mnt/nfs": "network",
        "/vm": "virtual",
        "/qemu": "virtual",
        "/ebs": "network",
        "/mnt/my data": "network",
        "/images": "virtual",
    }
    assert "nvme0n1p2 is a partition of nvme0n1" in found["/"].kind_basis.en
    assert "/sys/block/sda/queue/rotational = 1" in found["/data/hdd"].kind_basis.en
    assert "vg-data" in found["/data/lvm"].kind_basis.en
    assert "mixed" in found["/data/lvm"].kind_basis.en
    assert "md0 sits on sdc, sdd" in found["/data/raid"].kind_basis.en
    assert "virtio cannot tell the host's medium" in found["/vm"].kind_basis.en
    assert "QEMU HARDDISK" in found["/qemu"].kind_basis.en
    assert "/var/images/disk.img" in found["/images"].kind_basis.en
    assert found["/mnt/nfs"].fstype == "nfs4" and found["/mnt/nfs"].device == "server:/export"

    # Network mounts are never stat'ed nor sized: that blocks when the server is gone.
    assert "/mnt/nfs" not in usage.asked and "/mnt/my data" not in usage.asked
    assert "/mnt/nfs" not in stat_calls and "/mnt/my data" not in stat_calls
    assert found["/mnt/nfs"].total_bytes is None
    assert "network mount" in found["/mnt/nfs"].unknown["total_bytes"].en
    assert found["/"].total_bytes == 2_000_000_000_000
    assert found["/qemu"].total_bytes is None
    assert "Permission denied" in found["/qemu"].unknown["free_bytes"].en


def test_bind_mounts_and_stacked_mounts_are_not_repeated(workstation):
    disks = probe_storage(
        workstation.roots, system="Linux", usage=FakeUsage(), is_dir=lambda _: True
    )
    mountpoints = [d.mountpoint for d in disks]
    assert "/home" not in mountpoints  # same device as "/"
    assert mountpoints.count("/dev/shm") == 1  # mounted twice; the later mount wins
    assert all(not m.startswith(("/snap", "/proc", "/sys", "/run")) for m in mountpoints)
    assert "/var/lib/docker/overlay2/x/merged" not in mountpoints


def test_container_overlay_root_and_file_bind_mounts(tree):
    nvme = _disk(tree, "nvme0n1", "259:0")
    _partition(tree, nvme, "nvme0n1p2", "259:2")
    tree.write(
        "proc/self/mountinfo",
        "1 0 0:50 / / rw - overlay overlay rw,lowerdir=/a:/b,upperdir=/c\n"
        "2 1 0:51 / /proc rw - proc proc rw\n"
        "3 1 0:52 / /dev/shm rw - tmpfs shm rw,size=65536k\n"
        "4 1 259:2 /var/lib/docker/containers/x/hosts /etc/hosts rw - ext4 /dev/nvme0n1p2 rw\n"
        "5 1 259:2 /home/u/data /workspace rw - ext4 /dev/nvme0n1p2 rw\n",
    )
    disks = probe_storage(
        tree.roots, system="Linux", usage=FakeUsage(), is_dir=lambda p: p != "/etc/hosts"
    )
    found = _by_mountpoint(disks)
    assert set(found) == {"/", "/dev/shm", "/workspace"}
    assert found["/"].kind == "virtual" and "container" in found["/"].kind_basis.en
    assert found["/workspace"].kind == "nvme"


def test_device_mapper_found_by_name_without_device_numbers(tree):
    _disk(tree, "sdb", "8:16", rotational="0")
    _stacked(tree, "dm-3", "253:3", ["sdb"], dm_name="crypt-home")
    tree.write("proc/self/mounts", "/dev/mapper/crypt-home /home ext4 rw 0 0\n")
    disks = probe_storage(tree.roots, system="Linux", usage=FakeUsage(), is_dir=lambda _: True)
    assert [(d.mountpoint, d.kind) for d in disks] == [("/home", "ssd")]
    assert "crypt-home" in disks[0].kind_basis.en


def test_unknown_cases_say_why(tree):
    kind, basis = classify_block("sdz", tree.roots)
    assert (kind, basis.en) == ("unknown", "no /sys/class/block/sdz")
    _disk(tree, "sdy", "8:200", rotational=None)
    kind, basis = classify_block("sdy", tree.roots)
    assert kind == "unknown" and "rotational" in basis.en
    _disk(tree, "mmcblk0", "179:0", rotational="0")
    assert classify_block("mmcblk0", tree.roots)[0] == "unknown"


def test_no_mount_table_raises_for_the_guard(tree):
    with pytest.raises(OSError, match="no mount table"):
        probe_storage(tree.roots, system="Linux", usage=FakeUsage())


def test_mount_table_parsers():
    line = "36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 - ext3 /dev/root rw\n"
    [entry] = parse_mountinfo(line)
    assert entry == Mount("/dev/root", "/mnt two", "ext3", "98:0")
    assert parse_mountinfo("garbage line\n") == []
    assert parse_mounts("tmpfs /tmp tmpfs rw 0 0\n") == [Mount("tmpfs", "/tmp", "tmpfs")]


def test_select_mounts_keeps_shortest_mountpoint_per_device():
    mounts = [
        Mount("/dev/sda1", "/srv/data/sub", "ext4", "8:1"),
        Mount("/dev/sda1", "/srv/data", "ext4", "8:1"),
        Mount("/dev/sdb1", "/srv", "ext4", "8:17"),
    ]
    kept = select_mounts(mounts, is_dir=lambda _: True)
    assert [m.mountpoint for m in kept] == ["/srv/data", "/srv"]


def test_real_machine_covers_psutil_partitions():
    disks = probe_storage()
    ours = {d.device for d in disks} | {d.mountpoint for d in disks}
    for part in psutil.disk_partitions(all=False):
        if part.fstype in ("squashfs", "iso9660") or not os.path.isdir(part.mountpoint):
            continue
        assert part.device in ours or part.mountpoint in ours, part
    root = next(d for d in disks if d.mountpoint == "/")
    assert root.total_bytes == psutil.disk_usage("/").total


def test_disk_size_beside_the_filesystem_size(tree):
    """issue 17: the filesystem's size was shown as the disk's; keep both."""
    nvme = _disk(tree, "nvme0n1", "259:0")
    tree.write(f"{nvme}/size", "3907029168\n")  # 512-byte sectors: a 2 TB drive
    _partition(tree, nvme, "nvme0n1p2", "259:2")
    tree.write(f"{nvme}/nvme0n1p2/size", "1000000000\n")
    tree.write("proc/self/mountinfo",
               "5 1 259:2 / /data rw - ext4 /dev/nvme0n1p2 rw\n"
               "6 1 0:52 / /dev/shm rw - tmpfs shm rw\n")
    found = _by_mountpoint(probe_storage(tree.roots, system="Linux", usage=FakeUsage(),
                                         is_dir=lambda _: True))
    assert found["/data"].device_bytes == 3907029168 * 512  # the whole disk, not the partition
    assert found["/data"].total_bytes == 2_000_000_000_000  # the filesystem, from statvfs
    assert found["/dev/shm"].device_bytes is None
    assert "not a block device" in found["/dev/shm"].unknown["device_bytes"].en
