"""Storage probe: each mounted filesystem a dataset could live on, and what medium is under it.

Data loading is a classic PyTorch bottleneck (seed 4.3), so the kind of medium matters more than
the model number: NVMe, SATA SSD, spinning disk, a network mount, or something virtual whose
real medium is invisible from here. Each :class:`DiskInfo` says how its kind was decided in
``kind_basis`` so a user can check it.

On Linux the mount table is read from /proc/self/mountinfo and block devices are resolved
through /sys (partitions to their disk, device-mapper/md to their member disks), without lsblk.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchrig.hardware.model import DiskInfo
from torchrig.hardware.sysfs import (
    LINUX_ROOTS,
    FsRoots,
    list_dir,
    read_int,
    read_text,
    unescape_mount_field,
)
from torchrig.i18n import Msg

# Kernel-internal and API filesystems: never a place for data.
PSEUDO_FSTYPES = frozenset(
    {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
        "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore",
        "ramfs", "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs", "nfsd",
        "fuse.lxcfs", "fuse.gvfsd-fuse", "fuse.portal", "fuse.snapfuse",
        # Read-only images (snap packages, live media): nothing is written there.
        "squashfs", "iso9660", "udf", "devfs",
    }
)  # fmt: skip
NETWORK_FSTYPES = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "lustre", "glusterfs", "gpfs",
        "beegfs", "afs", "wekafs", "afpfs", "webdav",
        "fuse.sshfs", "fuse.glusterfs", "fuse.ceph-fuse", "fuse.s3fs", "fuse.rclone",
        "fuse.gcsfuse", "fuse.juicefs", "fuse.mountpoint-s3", "fuse.davfs2",
    }
)  # fmt: skip
# Host folders shared into a VM or WSL: fast or slow depending on a medium we cannot see.
SHARED_FOLDER_FSTYPES = frozenset({"virtiofs", "9p", "drvfs", "vboxsf", "fuse.vmhgfs-fuse"})
# tmpfs mounts worth listing: DataLoader workers pass batches through /dev/shm (Docker's 64 MB
# default there breaks multi-worker loading), and some systems keep /tmp in RAM.
TMPFS_KEPT = frozenset({"/dev/shm", "/tmp"})

# Disk model strings that betray a virtual disk (hypervisor) or network block storage.
VIRTUAL_DISK_MODELS = (
    "QEMU HARDDISK",
    "QEMU NVMe",
    "VBOX HARDDISK",
    "Virtual disk",  # VMware
    "Virtual Disk",  # Hyper-V
    "PersistentDisk",  # Google Cloud persistent disk
)
NETWORK_DISK_MODELS = ("Amazon Elastic Block Store",)  # EBS volumes appear as NVMe devices

# When member disks differ, the slowest decides what a reader sees.
_SLOWEST_FIRST = ("hdd", "network", "unknown", "virtual", "ssd", "nvme")

UsageFn = Callable[[str], Any]  # psutil.disk_usage-like: returns an object with total, free


@dataclass(frozen=True)
class Mount:
    source: str
    mountpoint: str
    fstype: str
    majmin: str | None = None  # "259:2"; "0:NN" for filesystems without a block device


def probe_storage(
    roots: FsRoots = LINUX_ROOTS,
    *,
    system: str | None = None,
    usage: UsageFn | None = None,
    is_dir: Callable[[str], bool] = os.path.isdir,
) -> list[DiskInfo]:
    """List local (and network) filesystems with size and medium kind.

    ``usage`` and ``is_dir`` are injectable so tests can describe mounts that do not exist.
    """
    system = system or platform.system()
    if usage is None:
        import psutil

        usage = psutil.disk_usage
    if system != "Linux":
        return _probe_portable(system, usage)
    mounts = select_mounts(read_mounts(roots), is_dir=is_dir)
    disks: list[DiskInfo] = []
    for mount in mounts:
        kind, basis = classify_mount(mount, roots)
        disk = DiskInfo(
            mountpoint=mount.mountpoint,
            device=mount.source or None,
            fstype=mount.fstype or None,
            kind=kind,
            kind_basis=basis,
        )
        if not mount.source:
            disk.unknown["device"] = Msg("the mount table names no source",
                                         "挂载表中没有写明来源设备")
        _fill_usage(disk, usage)
        disk.device_bytes, why = device_size(mount, roots)
        if why is not None:
            disk.unknown["device_bytes"] = why
        disks.append(disk)
    return disks


# --------------------------------------------------------------------------- mount table


def read_mounts(roots: FsRoots) -> list[Mount]:
    """/proc/self/mountinfo (has device numbers), else /proc/self/mounts."""
    got = read_text(roots.proc / "self/mountinfo", max_bytes=1 << 24)
    if got.text:
        return parse_mountinfo(got.text)
    got = read_text(roots.proc / "self/mounts", max_bytes=1 << 24)
    if got.text:
        return parse_mounts(got.text)
    raise OSError(f"no mount table: {got.reason.en if got.reason else 'empty'}")


def parse_mountinfo(text: str) -> list[Mount]:
    """``36 35 98:0 /root /mnt opts [optional...] - fstype source superopts``."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if dash < 5 or len(fields) < dash + 3:
            continue
        mounts.append(
            Mount(
                source=unescape_mount_field(fields[dash + 2]),
                mountpoint=unescape_mount_field(fields[4]),
                fstype=fields[dash + 1],
                majmin=fields[2],
            )
        )
    return mounts


def parse_mounts(text: str) -> list[Mount]:
    """/proc/mounts format: ``source mountpoint fstype options 0 0``."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            mounts.append(
                Mount(
                    unescape_mount_field(fields[0]),
                    unescape_mount_field(fields[1]),
                    fields[2],
                )
            )
    return mounts


def select_mounts(mounts: list[Mount], *, is_dir: Callable[[str], bool]) -> list[Mount]:
    """Keep one entry per real filesystem a user could store data on.

    - pseudo and read-only image filesystems go; tmpfs only at /dev/shm and /tmp;
    - overlay only as a container's root (other overlays are Docker's layers on the host);
    - a later mount on the same mountpoint hides the earlier one;
    - bind mounts and btrfs subvolumes repeat a device: keep its shortest mountpoint;
    - file bind mounts (a container's /etc/hosts) are not filesystems to list.
    """
    by_mountpoint: dict[str, Mount] = {}
    for mount in mounts:
        fstype = mount.fstype
        if fstype in PSEUDO_FSTYPES:
            continue
        if fstype == "tmpfs" and mount.mountpoint not in TMPFS_KEPT:
            continue
        if fstype in ("overlay", "aufs") and mount.mountpoint != "/":
            continue
        by_mountpoint.pop(mount.mountpoint, None)
        by_mountpoint[mount.mountpoint] = mount

    by_device: dict[str, Mount] = {}
    kept: list[Mount] = []
    for mount in sorted(by_mountpoint.values(), key=lambda m: (len(m.mountpoint), m.mountpoint)):
        # stat() on a network mount blocks when its server is gone: only ask local ones.
        local = mount.fstype not in NETWORK_FSTYPES
        if mount.mountpoint != "/" and local and not is_dir(mount.mountpoint):
            continue
        key = _device_key(mount)
        if key is not None:
            if key in by_device:
                continue
            by_device[key] = mount
        kept.append(mount)
    order = {m.mountpoint: i for i, m in enumerate(by_mountpoint.values())}
    return sorted(kept, key=lambda m: order[m.mountpoint])


def _device_key(mount: Mount) -> str | None:
    if mount.fstype in NETWORK_FSTYPES:
        return f"net:{mount.source}"
    if mount.majmin and not mount.majmin.startswith("0:"):
        return f"dev:{mount.majmin}"
    if mount.source.startswith("/dev/"):
        return f"dev:{mount.source}"
    return None  # tmpfs, overlay, zfs datasets: each mount is its own filesystem


# --------------------------------------------------------------------------- classification


def classify_mount(mount: Mount, roots: FsRoots) -> tuple[str, Msg]:
    fstype = mount.fstype
    if fstype in NETWORK_FSTYPES:
        return "network", Msg(f"fstype {fstype} is a network filesystem",
                              f"文件系统类型 {fstype} 是网络文件系统")
    if fstype in ("overlay", "aufs"):
        return "virtual", Msg(
            f"{fstype} root of a container: its medium is the host's and is not visible here",
            f"容器的 {fstype} 根文件系统：其介质属于宿主机，在这里看不到")
    if fstype == "tmpfs":
        return "virtual", Msg("tmpfs lives in RAM (and swap), not on a disk",
                              "tmpfs 位于内存（和交换空间）中，不在磁盘上")
    if fstype in SHARED_FOLDER_FSTYPES:
        return "virtual", Msg(
            f"{fstype} shares a host folder into this VM/WSL; its medium is hidden",
            f"{fstype} 把宿主机的文件夹共享给此虚拟机或 WSL，介质不可见")
    if fstype == "zfs" and not mount.source.startswith("/dev/"):
        return "unknown", Msg(
            f"zfs dataset {mount.source}: the pool's disks are not resolved",
            f"ZFS 数据集 {mount.source}：未解析存储池所在的磁盘")
    name = _block_name(mount, roots)
    if name is None:
        return "unknown", _not_block_device(mount)
    return classify_block(name, roots)


def _not_block_device(mount: Mount) -> Msg:
    return Msg(f"source {mount.source!r} is not a block device",
               f"来源 {mount.source!r} 不是块设备")


def _block_name(mount: Mount, roots: FsRoots) -> str | None:
    if mount.majmin and not mount.majmin.startswith("0:"):
        link = roots.sys / "dev/block" / mount.majmin
        if os.path.exists(link):
            return Path(os.path.realpath(link)).name
    if mount.source.startswith("/dev/"):
        # /dev/mapper/vg-root and /dev/disk/by-uuid/... are symlinks to the kernel name.
        name = Path(os.path.realpath(mount.source)).name
        if os.path.exists(roots.sys / "class/block" / name):
            return name
        return _dm_by_name(Path(mount.source).name, roots) or name
    return None


def device_size(mount: Mount, roots: FsRoots) -> tuple[int | None, Msg | None]:
    """(bytes, None) of the disk a filesystem lives on - the whole disk for a partition, the
    mapped device for LVM/dm-crypt - or (None, why). A filesystem is often much smaller than
    its disk, and a user buying storage asks about the disk."""
    name = _block_name(mount, roots)
    if name is None:
        return None, _not_block_device(mount)
    block_dir = roots.sys / "class/block" / name
    if os.path.exists(block_dir / "partition"):
        name = Path(os.path.realpath(block_dir)).parent.name
        block_dir = roots.sys / "class/block" / name
    sectors, reason = read_int(block_dir / "size")
    if sectors is None:
        return None, reason or Msg(f"no size for {name}", f"{name} 没有大小信息")
    return sectors * 512, None  # /sys counts 512-byte sectors whatever the logical block size


def _dm_by_name(mapper_name: str, roots: FsRoots) -> str | None:
    class_dir = roots.sys / "class/block"
    for entry in list_dir(class_dir):
        if entry.startswith("dm-") and read_text(class_dir / entry / "dm/name").text == mapper_name:
            return entry
    return None


def classify_block(name: str, roots: FsRoots, depth: int = 0) -> tuple[str, Msg]:
    """Medium kind of a kernel block device, following partitions and stacked devices."""
    block_dir = roots.sys / "class/block" / name
    if depth > 8:
        return "unknown", Msg(f"{name}: device stack too deep to follow",
                              f"{name}：设备层级太深，无法追踪")
    if not os.path.exists(block_dir):
        return "unknown", Msg(f"no /sys/class/block/{name}", f"没有 /sys/class/block/{name}")
    if os.path.exists(block_dir / "partition"):
        parent = Path(os.path.realpath(block_dir)).parent.name
        kind, basis = classify_block(parent, roots, depth + 1)
        return kind, Msg("{name} is a partition of {parent}; {basis}",
                         "{name} 是 {parent} 的分区；{basis}").format(
                             name=name, parent=parent, basis=basis)
    slaves = list_dir(block_dir / "slaves")
    if slaves:
        return _classify_stack(name, block_dir, slaves, roots, depth)
    return _classify_disk(name, block_dir)


def _classify_stack(
    name: str, block_dir: Path, slaves: list[str], roots: FsRoots, depth: int
) -> tuple[str, Msg]:
    label = read_text(block_dir / "dm/name").text
    what = f"{name} ({label})" if label else name
    parts = [classify_block(slave, roots, depth + 1) for slave in slaves]
    kinds = [kind for kind, _ in parts]
    kind = min(kinds, key=_SLOWEST_FIRST.index)
    pairs = list(zip(slaves, parts, strict=True))
    detail = Msg("; ".join(f"{slave}: {basis.en}" for slave, (_, basis) in pairs),
                 "；".join(f"{slave}：{basis.zh}" for slave, (_, basis) in pairs))
    members = ", ".join(slaves)
    if len(set(kinds)) > 1:
        return kind, Msg("{what} spans {members} of mixed kinds, slowest counts; {detail}",
                         "{what} 跨越类型不同的 {members}，以最慢者为准；{detail}").format(
                             what=what, members=members, detail=detail)
    return kind, Msg("{what} sits on {members}; {detail}", "{what} 位于 {members} 之上；{detail}"
                     ).format(what=what, members=members, detail=detail)


def _classify_disk(name: str, block_dir: Path) -> tuple[str, Msg]:
    model = read_text(block_dir / "device/model").text or ""
    if any(marker in model for marker in NETWORK_DISK_MODELS):
        return "network", Msg(f"{name} model {model!r} is network block storage",
                              f"{name} 的型号 {model!r} 是网络块存储")
    if any(marker in model for marker in VIRTUAL_DISK_MODELS):
        return "virtual", Msg(
            f"{name} model {model!r} is a virtual disk; the host's medium is hidden",
            f"{name} 的型号 {model!r} 是虚拟磁盘，宿主机的介质不可见")
    if name.startswith("nvme"):
        return "nvme", Msg(f"device name {name} (NVMe)", f"设备名 {name}（NVMe）")
    if name.startswith("vd"):
        return "virtual", Msg(
            f"{name} is a virtio disk: virtio cannot tell the host's medium",
            f"{name} 是 virtio 磁盘：virtio 无法告知宿主机的介质")
    if name.startswith("xvd"):
        return "virtual", Msg(
            f"{name} is a Xen virtual disk: the host's medium is not visible",
            f"{name} 是 Xen 虚拟磁盘：宿主机的介质不可见")
    if name.startswith("loop"):
        backing = read_text(block_dir / "loop/backing_file").text
        return "virtual", (
            Msg(f"{name} is a loop device backed by the file {backing}",
                f"{name} 是回环设备，背后的文件是 {backing}") if backing
            else Msg(f"{name} is a loop device backed by an unknown file",
                     f"{name} 是回环设备，背后的文件未知"))
    if name.startswith("zram"):
        return "virtual", Msg(f"{name} is compressed RAM", f"{name} 是压缩内存")
    if name.startswith(("nbd", "rbd")):
        return "network", Msg(f"{name} is a network block device", f"{name} 是网络块设备")
    if name.startswith("mmcblk"):
        return "unknown", Msg(
            f"{name} is eMMC/SD flash; its speed varies too widely to classify",
            f"{name} 是 eMMC/SD 闪存，速度差异太大，无法归类")
    rotational = read_text(block_dir / "queue/rotational")
    if rotational.text in ("0", "1"):
        return ("hdd" if rotational.text == "1" else "ssd",
                Msg.verbatim(f"/sys/block/{name}/queue/rotational = {rotational.text}"))
    return "unknown", rotational.reason or Msg(f"{name}: unexpected rotational value",
                                               f"{name}：rotational 的值不符合预期")


# --------------------------------------------------------------------------- sizes


def _fill_usage(disk: DiskInfo, usage: UsageFn) -> None:
    if disk.kind == "network":
        # statvfs on an NFS/CIFS mount blocks for minutes when the server is unreachable.
        reason = Msg("not queried: asking a network mount can hang when its server is "
                     "unreachable", "未查询：服务器不可达时，查询网络挂载可能会卡住")
        disk.unknown["total_bytes"] = disk.unknown["free_bytes"] = reason
        return
    try:
        result = usage(disk.mountpoint)
        disk.total_bytes = int(result.total)
        disk.free_bytes = int(result.free)
    except Exception as exc:  # PermissionError, OSError, psutil errors: one field, not the probe
        reason = Msg(f"disk usage of {disk.mountpoint} failed: {exc}",
                     f"读取 {disk.mountpoint} 的磁盘用量失败：{type(exc).__name__}")
        disk.unknown["total_bytes"] = disk.unknown["free_bytes"] = reason


# --------------------------------------------------------------------------- macOS / Windows


def _probe_portable(system: str, usage: UsageFn) -> list[DiskInfo]:
    import psutil

    where = {"Darwin": "macOS"}.get(system, system)
    disks: list[DiskInfo] = []
    for part in psutil.disk_partitions(all=False):
        options = set((part.opts or "").split(","))
        if "cdrom" in options:
            continue
        # APFS system volumes share the container of "/": listing them repeats its free space.
        if part.mountpoint.startswith(("/System/Volumes/", "/private/var/vm")):
            continue
        if part.fstype.lower() in NETWORK_FSTYPES or "remote" in options:
            kind, basis = "network", Msg(
                f"fstype {part.fstype} / options {part.opts} say network",
                f"文件系统类型 {part.fstype} / 挂载选项 {part.opts} 表明是网络存储")
        else:
            kind, basis = "unknown", Msg(f"medium not read on {where}",
                                         f"在 {where} 上不读取介质类型")
        disk = DiskInfo(
            mountpoint=part.mountpoint,
            device=part.device or None,
            fstype=part.fstype or None,
            kind=kind,
            kind_basis=basis,
        )
        _fill_usage(disk, usage)
        disks.append(disk)
    return disks
