"""Storage probe boundaries (hardware/storage.py): mount table lines, which mounts are listed,
how each medium kind is decided and every reason text, in both languages.

Inputs are real formats: /proc/self/mountinfo and /proc/mounts lines as proc(5) documents
them ("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue"; octal
escapes such as ``\\040`` for a space), and /sys laid out as the kernel does
(Documentation/ABI/stable/sysfs-block: ``/sys/class/block/<name>`` links to the device folder,
a partition folder has a ``partition`` file and sits inside its disk's folder, ``size`` counts
512-byte sectors, ``queue/rotational`` is 0 or 1, a stacked device lists ``slaves/``, dm
devices have ``dm/name``, ``/sys/dev/block/MAJ:MIN`` links to the same folders). Expected
kinds and texts follow the rules stated in storage.py's docstrings, worked by hand below.
"""

from __future__ import annotations

from types import SimpleNamespace

import psutil
import pytest

from torchrig.hardware import storage
from torchrig.hardware.storage import (
    Mount,
    classify_block,
    classify_mount,
    device_size,
    parse_mountinfo,
    parse_mounts,
    probe_storage,
    read_mounts,
    select_mounts,
)
from torchrig.i18n import Msg

PCI = "sys/devices/pci0000:00/0000:00:1d.0"


def _disk(tree, name: str, *, majmin: str | None = None, rotational: str | None = "0",
          model: str | None = None, sectors: str | None = None,
          parent: str = PCI) -> str:  # fmt: skip
    folder = f"{parent}/{name}"
    tree.mkdir(folder)
    if rotational is not None:
        tree.write(f"{folder}/queue/rotational", rotational + "\n")
    if model is not None:
        tree.write(f"{folder}/device/model", model + "\n")
    if sectors is not None:
        tree.write(f"{folder}/size", sectors + "\n")
    tree.link(f"sys/class/block/{name}", folder)
    if majmin:
        tree.link(f"sys/dev/block/{majmin}", folder)
    return folder


def _partition(tree, disk_folder: str, name: str, majmin: str | None = None,
               sectors: str | None = None) -> str:
    folder = f"{disk_folder}/{name}"
    tree.write(f"{folder}/partition", "1\n")
    if sectors is not None:
        tree.write(f"{folder}/size", sectors + "\n")
    tree.link(f"sys/class/block/{name}", folder)
    if majmin:
        tree.link(f"sys/dev/block/{majmin}", folder)
    return folder


def _stacked(tree, name: str, slaves: list[str], dm_name: str = "",
             majmin: str | None = None) -> str:
    folder = f"sys/devices/virtual/block/{name}"
    tree.mkdir(f"{folder}/slaves")
    for slave in slaves:
        tree.link(f"{folder}/slaves/{slave}", f"sys/class/block/{slave}")
    if dm_name:
        tree.write(f"{folder}/dm/name", dm_name + "\n")
    tree.link(f"sys/class/block/{name}", folder)
    if majmin:
        tree.link(f"sys/dev/block/{majmin}", folder)
    return folder


def _usage(total: int = 1_000_000_000_000, free: int = 400_000_000_000):
    return lambda mountpoint: SimpleNamespace(total=total, free=free)


def _all(_path: str) -> bool:
    return True


# --------------------------------------------------------------------------- mount tables


def test_mountinfo_with_optional_fields_and_escapes():
    line = ("36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 shared:7 - ext3 "
            "/dev/disk\\011x rw,errors=continue")
    assert parse_mountinfo(line) == [Mount("/dev/disk\tx", "/mnt two", "ext3", "98:0")]


def test_mountinfo_field_count_boundaries():
    # The "-" separator must come after at least five fields (id, parent, maj:min, root,
    # mountpoint); the options field may be missing on odd kernels.  After it: fstype and
    # source (super options may be missing).
    assert parse_mountinfo("1 2 8:1 / /a - ext4 /dev/sda1") == [
        Mount("/dev/sda1", "/a", "ext4", "8:1")]  # "-" at index 5, 3 fields from it
    assert parse_mountinfo("1 2 8:1 / - ext4 /dev/sda1 rw") == []  # "-" at index 4
    assert parse_mountinfo("1 2 8:1 / /a rw - ext4") == []  # no source
    assert parse_mountinfo("1 2 8:1 / /a rw ext4 /dev/sda1 rw") == []  # no separator
    assert parse_mountinfo("") == []
    # two lines: both read, in order
    two = "1 2 8:1 / / rw - ext4 /dev/sda1 rw\n2 1 8:2 / /b rw - xfs /dev/sda2 rw\n"
    assert [m.mountpoint for m in parse_mountinfo(two)] == ["/", "/b"]


def test_proc_mounts_lines():
    text = ("/dev/sda1 /mnt\\040x ext4 rw 0 0\n"
            "server:/e\\134x /nfs nfs4 rw 0 0\n"  # \134 is a backslash
            "short line\n"
            "a b c\n")
    assert parse_mounts(text) == [Mount("/dev/sda1", "/mnt x", "ext4"),
                                  Mount("server:/e\\x", "/nfs", "nfs4"),
                                  Mount("a", "b", "c")]


def test_mountinfo_is_preferred_and_mounts_is_the_fallback(tree):
    tree.write("proc/self/mounts", "/dev/sdb1 /old ext4 rw 0 0\n")
    assert read_mounts(tree.roots) == [Mount("/dev/sdb1", "/old", "ext4")]
    tree.write("proc/self/mountinfo", "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n")
    assert read_mounts(tree.roots) == [Mount("/dev/sda1", "/", "ext4", "8:1")]
    # An empty mountinfo counts as none.
    tree.write("proc/self/mountinfo", "")
    assert read_mounts(tree.roots) == [Mount("/dev/sdb1", "/old", "ext4")]


def test_no_mount_table_names_why(tree):
    with pytest.raises(OSError) as missing:
        read_mounts(tree.roots)
    assert str(missing.value) == f"no mount table: {tree.roots.proc / 'self/mounts'} not present"
    tree.write("proc/self/mounts", "")
    with pytest.raises(OSError) as empty:
        read_mounts(tree.roots)
    assert str(empty.value) == "no mount table: empty"


def test_a_mount_table_over_one_mib_is_read_to_the_end(tree):
    # A host with thousands of container mounts: /proc/self/mountinfo of several MB (read up
    # to 16 MiB).  The line that matters comes after the first MiB.
    filler = "".join(f"{i} 1 0:{i} / /run/c/{i:06d} rw - tmpfs tmpfs rw\n" for i in range(30000))
    assert len(filler) > 1 << 20
    tree.write("proc/self/mountinfo", filler + "99999 1 8:1 / /last rw - ext4 /dev/sda1 rw\n")
    assert read_mounts(tree.roots)[-1] == Mount("/dev/sda1", "/last", "ext4", "8:1")
    tree.write("proc/self/mountinfo", "")
    tree.write("proc/self/mounts", filler.replace("tmpfs tmpfs", "x") + "/dev/sdb /m ext4\n")
    assert read_mounts(tree.roots)[-1] == Mount("/dev/sdb", "/m", "ext4")


# --------------------------------------------------------------------------- which mounts

# Every fstype the module treats as never holding data, as /proc/filesystems and the
# distributions name them (kernel API filesystems, FUSE helpers, read-only images).
PSEUDO = ["autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs",
          "devpts", "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc",
          "pstore", "ramfs", "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs",
          "nfsd", "fuse.lxcfs", "fuse.gvfsd-fuse", "fuse.portal", "fuse.snapfuse", "squashfs",
          "iso9660", "udf", "devfs"]
# Network filesystems (kernel nfs/cifs/ceph clients, vendors' clients, FUSE clients).
NETWORK = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "lustre", "glusterfs", "gpfs",
           "beegfs", "afs", "wekafs", "afpfs", "webdav", "fuse.sshfs", "fuse.glusterfs",
           "fuse.ceph-fuse", "fuse.s3fs", "fuse.rclone", "fuse.gcsfuse", "fuse.juicefs",
           "fuse.mountpoint-s3", "fuse.davfs2"]
SHARED = ["virtiofs", "9p", "drvfs", "vboxsf", "fuse.vmhgfs-fuse"]


@pytest.mark.parametrize("fstype", PSEUDO)
def test_pseudo_filesystems_are_never_listed(fstype):
    kept = select_mounts([Mount("none", "/x", fstype, "0:30"),
                          Mount("/dev/sda1", "/", "ext4", "8:1")], is_dir=_all)
    assert [m.mountpoint for m in kept] == ["/"]


@pytest.mark.parametrize("fstype", NETWORK)
def test_network_filesystems_are_listed_unstatted_and_classified_network(fstype, tree):
    asked: list[str] = []
    kept = select_mounts([Mount("srv:/e", "/net", fstype, "0:40")],
                         is_dir=lambda p: asked.append(p) or False)
    assert kept == [Mount("srv:/e", "/net", fstype, "0:40")] and asked == []
    assert classify_mount(kept[0], tree.roots) == ("network", Msg(
        f"fstype {fstype} is a network filesystem", f"文件系统类型 {fstype} 是网络文件系统"))


@pytest.mark.parametrize("fstype", SHARED)
def test_shared_host_folders_are_virtual(fstype, tree):
    assert classify_mount(Mount("hostshare", "/mnt/host", fstype, "0:41"), tree.roots) == (
        "virtual", Msg(f"{fstype} shares a host folder into this VM/WSL; its medium is hidden",
                       f"{fstype} 把宿主机的文件夹共享给此虚拟机或 WSL，介质不可见"))


def test_tmpfs_only_at_dev_shm_and_tmp():
    mounts = [Mount("tmpfs", mp, "tmpfs", f"0:{i}")
              for i, mp in enumerate(["/dev/shm", "/tmp", "/run", "/tmp/x"], start=20)]
    assert [m.mountpoint for m in select_mounts(mounts, is_dir=_all)] == ["/dev/shm", "/tmp"]


def test_overlay_and_aufs_only_as_the_root():
    mounts = [Mount("overlay", "/var/lib/docker/overlay2/a/merged", "overlay", "0:50"),
              Mount("none", "/var/lib/docker/aufs/mnt/b", "aufs", "0:51")]
    assert select_mounts(mounts, is_dir=_all) == []
    assert select_mounts([Mount("none", "/", "aufs", "0:51")], is_dir=_all) == [
        Mount("none", "/", "aufs", "0:51")]


def test_a_later_mount_hides_the_earlier_one_and_takes_its_place_in_the_order():
    mounts = [Mount("/dev/sda1", "/a", "ext4", "8:1"),
              Mount("/dev/sdb1", "/b", "ext4", "8:17"),
              Mount("/dev/sdc1", "/a", "xfs", "8:33")]  # mounted over /a later
    assert select_mounts(mounts, is_dir=_all) == [Mount("/dev/sdb1", "/b", "ext4", "8:17"),
                                                  Mount("/dev/sdc1", "/a", "xfs", "8:33")]


def test_one_entry_per_device_the_shortest_then_first_alphabetically():
    mounts = [Mount("/dev/sda1", "/srv/b", "ext4", "8:1"),
              Mount("/dev/sda1", "/srv/a", "ext4", "8:1"),  # same length: "/srv/a" first
              Mount("/dev/sda1", "/srv/data", "ext4", "8:1")]
    assert [m.mountpoint for m in select_mounts(mounts, is_dir=_all)] == ["/srv/a"]


def test_device_keys_network_source_block_number_or_dev_path():
    mounts = [
        Mount("srv:/e", "/n1", "nfs4", "0:60"), Mount("srv:/e", "/n2/x", "nfs4", "0:61"),
        Mount("srv:/other", "/n3", "nfs4", "0:62"),
        # btrfs subvolumes: an anonymous device number, the same /dev source
        Mount("/dev/sdb2", "/home", "btrfs", "0:33"), Mount("/dev/sdb2", "/var", "btrfs", "0:34"),
        # /proc/mounts gives no device numbers: the /dev path is the key
        Mount("/dev/sdc1", "/c1", "ext4"), Mount("/dev/sdc1", "/c22", "ext4"),
        # zfs datasets: one filesystem each
        Mount("tank/a", "/ta", "zfs", "0:70"), Mount("tank/b", "/tb", "zfs", "0:71"),
    ]
    assert [m.mountpoint for m in select_mounts(mounts, is_dir=_all)] == [
        "/n1", "/n3", "/var", "/c1", "/ta", "/tb"]  # "/var" is shorter than "/home"


def test_missing_local_folders_are_dropped_but_the_root_is_never_asked():
    asked: list[str] = []

    def is_dir(path: str) -> bool:
        asked.append(path)
        return path != "/etc/hosts"

    mounts = [Mount("/dev/sda1", "/", "ext4", "8:1"),
              Mount("/dev/sda2", "/etc/hosts", "ext4", "8:2"),
              Mount("/dev/sda3", "/data", "ext4", "8:3")]
    assert [m.mountpoint for m in select_mounts(mounts, is_dir=is_dir)] == ["/", "/data"]
    assert sorted(asked) == ["/data", "/etc/hosts"]
    # Even a root that is "not a folder" (a broken is_dir) is kept.
    assert select_mounts(mounts[:1], is_dir=lambda _: False) == mounts[:1]


# --------------------------------------------------------------------------- mount kinds


def test_mount_kinds_without_a_block_device(tree):
    roots = tree.roots
    assert classify_mount(Mount("overlay", "/", "overlay"), roots) == ("virtual", Msg(
        "overlay root of a container: its medium is the host's and is not visible here",
        "容器的 overlay 根文件系统：其介质属于宿主机，在这里看不到"))
    assert classify_mount(Mount("none", "/", "aufs"), roots) == ("virtual", Msg(
        "aufs root of a container: its medium is the host's and is not visible here",
        "容器的 aufs 根文件系统：其介质属于宿主机，在这里看不到"))
    assert classify_mount(Mount("tmpfs", "/tmp", "tmpfs"), roots) == ("virtual", Msg(
        "tmpfs lives in RAM (and swap), not on a disk",
        "tmpfs 位于内存（和交换空间）中，不在磁盘上"))
    assert classify_mount(Mount("tank/data", "/tank", "zfs", "0:44"), roots) == (
        "unknown", Msg("zfs dataset tank/data: the pool's disks are not resolved",
                       "ZFS 数据集 tank/data：未解析存储池所在的磁盘"))
    assert classify_mount(Mount("rootfs", "/", "ext4", "0:2"), roots) == ("unknown", Msg(
        "source 'rootfs' is not a block device", "来源 'rootfs' 不是块设备"))


def test_zfs_on_a_dev_path_is_followed_as_a_block_device(tree):
    _disk(tree, "zd0", rotational="0")
    kind, basis = classify_mount(Mount("/dev/zd0", "/vol", "zfs"), tree.roots)
    assert (kind, basis.en) == ("ssd", "/sys/block/zd0/queue/rotational = 0")


def test_block_name_from_the_device_number_link(tree):
    folder = _disk(tree, "nvme0n1", rotational="0")
    _partition(tree, folder, "nvme0n1p3", majmin="259:3")
    # The source names nothing in /sys; the device number does.
    kind, basis = classify_mount(Mount("/dev/root", "/", "ext4", "259:3"), tree.roots)
    assert kind == "nvme"
    assert basis == Msg("nvme0n1p3 is a partition of nvme0n1; device name nvme0n1 (NVMe)",
                        "nvme0n1p3 是 nvme0n1 的分区；设备名 nvme0n1（NVMe）")


def test_a_device_number_without_a_link_falls_back_to_the_dev_path(tree):
    _disk(tree, "sdq", rotational="1")  # /sys/dev/block/8:256 is not there
    kind, basis = classify_mount(Mount("/dev/sdq", "/d", "ext4", "8:256"), tree.roots)
    assert (kind, basis.en) == ("hdd", "/sys/block/sdq/queue/rotational = 1")


def test_a_mapper_name_is_found_through_dm_name(tree):
    _disk(tree, "sdr", rotational="0")
    _stacked(tree, "dm-7", ["sdr"], dm_name="vg0-lv_data")
    _stacked(tree, "dm-1", [], dm_name="other")  # another dm device, not this one
    kind, basis = classify_mount(Mount("/dev/mapper/vg0-lv_data", "/d", "ext4"), tree.roots)
    assert kind == "ssd"
    assert basis == Msg("dm-7 (vg0-lv_data) sits on sdr; sdr: "
                        "/sys/block/sdr/queue/rotational = 0",
                        "dm-7 (vg0-lv_data) 位于 sdr 之上；"
                        "sdr：/sys/block/sdr/queue/rotational = 0")


def test_only_dm_devices_are_searched_by_name(tree):
    folder = _disk(tree, "sds", rotational="0")
    tree.write(f"{folder}/dm/name", "lookalike\n")  # not a dm-* device
    assert classify_mount(Mount("/dev/mapper/lookalike", "/d", "ext4"), tree.roots) == (
        "unknown", Msg("no /sys/class/block/lookalike", "没有 /sys/class/block/lookalike"))


# --------------------------------------------------------------------------- disk kinds


@pytest.mark.parametrize(("model", "kind", "en", "zh"), [
    ("Amazon Elastic Block Store", "network",
     "sdt model 'Amazon Elastic Block Store' is network block storage",
     "sdt 的型号 'Amazon Elastic Block Store' 是网络块存储"),
    *[(model, "virtual",
       f"sdt model {model!r} is a virtual disk; the host's medium is hidden",
       f"sdt 的型号 {model!r} 是虚拟磁盘，宿主机的介质不可见")
      # the model strings QEMU, VirtualBox, VMware, Hyper-V and Google Cloud report
      for model in ("QEMU HARDDISK", "QEMU NVMe Ctrl", "VBOX HARDDISK", "Virtual disk",
                    "Virtual Disk", "PersistentDisk")],
])
def test_disk_models_that_betray_the_medium(tree, model, kind, en, zh):
    _disk(tree, "sdt", rotational="1", model=model)
    assert classify_block("sdt", tree.roots) == (kind, Msg(en, zh))


@pytest.mark.parametrize(("name", "kind", "en", "zh"), [
    ("nvme2n1", "nvme", "device name nvme2n1 (NVMe)", "设备名 nvme2n1（NVMe）"),
    ("vdb", "virtual", "vdb is a virtio disk: virtio cannot tell the host's medium",
     "vdb 是 virtio 磁盘：virtio 无法告知宿主机的介质"),
    ("xvda", "virtual", "xvda is a Xen virtual disk: the host's medium is not visible",
     "xvda 是 Xen 虚拟磁盘：宿主机的介质不可见"),
    ("zram0", "virtual", "zram0 is compressed RAM", "zram0 是压缩内存"),
    ("nbd0", "network", "nbd0 is a network block device", "nbd0 是网络块设备"),
    ("rbd0", "network", "rbd0 is a network block device", "rbd0 是网络块设备"),
    ("mmcblk0", "unknown", "mmcblk0 is eMMC/SD flash; its speed varies too widely to classify",
     "mmcblk0 是 eMMC/SD 闪存，速度差异太大，无法归类"),
    ("loop3", "virtual", "loop3 is a loop device backed by an unknown file",
     "loop3 是回环设备，背后的文件未知"),
])
def test_disk_names_that_decide_the_kind(tree, name, kind, en, zh):
    # rotational = 1 everywhere: the name must win over it
    _disk(tree, name, rotational="1", model="")
    assert classify_block(name, tree.roots) == (kind, Msg(en, zh))


def test_a_loop_device_names_its_backing_file(tree):
    folder = _disk(tree, "loop0", rotational="1", parent="sys/devices/virtual/block")
    tree.write(f"{folder}/loop/backing_file", "/var/lib/snapd/snaps/core_1.snap\n")
    assert classify_block("loop0", tree.roots) == ("virtual", Msg(
        "loop0 is a loop device backed by the file /var/lib/snapd/snaps/core_1.snap",
        "loop0 是回环设备，背后的文件是 /var/lib/snapd/snaps/core_1.snap"))


def test_rotational_decides_ssd_or_hdd_and_anything_else_is_unknown(tree):
    _disk(tree, "sda", rotational="0", model="Samsung SSD 870 EVO 1TB")
    _disk(tree, "sdb", rotational="1", model="ST8000DM004-2U91")
    _disk(tree, "sdc", rotational="2")
    _disk(tree, "sdd", rotational=None)
    assert classify_block("sda", tree.roots) == (
        "ssd", Msg.verbatim("/sys/block/sda/queue/rotational = 0"))
    assert classify_block("sdb", tree.roots) == (
        "hdd", Msg.verbatim("/sys/block/sdb/queue/rotational = 1"))
    assert classify_block("sdc", tree.roots) == ("unknown", Msg(
        "sdc: unexpected rotational value", "sdc：rotational 的值不符合预期"))
    missing = tree.roots.sys / "class/block/sdd/queue/rotational"
    assert classify_block("sdd", tree.roots) == (
        "unknown", Msg(f"{missing} not present", f"{missing} 不存在"))


# --------------------------------------------------------------------------- stacks


def _member_disks(tree) -> None:
    """One member disk of each kind, named after it."""
    _disk(tree, "sdh", rotational="1")  # hdd
    _disk(tree, "nbd1", rotational="0")  # network
    _disk(tree, "mmcblk1", rotational="0")  # unknown
    _disk(tree, "vdc", rotational="0")  # virtual
    _disk(tree, "sds", rotational="0")  # ssd
    _disk(tree, "nvme3n1", rotational="0")  # nvme


@pytest.mark.parametrize(("members", "slowest"), [
    # Neighbours in the order hdd < network < unknown < virtual < ssd < nvme: together
    # they pin the whole order.
    (["nbd1", "sdh"], "hdd"),
    (["mmcblk1", "nbd1"], "network"),
    (["vdc", "mmcblk1"], "unknown"),
    (["sds", "vdc"], "virtual"),
    (["nvme3n1", "sds"], "ssd"),
])
def test_a_stack_of_mixed_members_reads_as_the_slowest(tree, members, slowest):
    _member_disks(tree)
    _stacked(tree, "md1", members)
    kind, basis = classify_block("md1", tree.roots)
    assert kind == slowest
    # slaves/ is listed in name order
    assert basis.en.startswith(f"md1 spans {', '.join(sorted(members))} of mixed kinds, "
                               "slowest counts; ")


def test_a_stack_names_each_member_and_its_basis_in_both_languages(tree):
    _disk(tree, "sdk", rotational="0")
    _disk(tree, "sdl", rotational="0")
    _stacked(tree, "md0", ["sdk", "sdl"])
    assert classify_block("md0", tree.roots) == ("ssd", Msg(
        "md0 sits on sdk, sdl; sdk: /sys/block/sdk/queue/rotational = 0; "
        "sdl: /sys/block/sdl/queue/rotational = 0",
        "md0 位于 sdk, sdl 之上；sdk：/sys/block/sdk/queue/rotational = 0；"
        "sdl：/sys/block/sdl/queue/rotational = 0"))
    _disk(tree, "sdm", rotational="1")
    _stacked(tree, "dm-2", ["sdk", "sdm"], dm_name="vg-mixed")
    assert classify_block("dm-2", tree.roots) == ("hdd", Msg(
        "dm-2 (vg-mixed) spans sdk, sdm of mixed kinds, slowest counts; "
        "sdk: /sys/block/sdk/queue/rotational = 0; sdm: /sys/block/sdm/queue/rotational = 1",
        "dm-2 (vg-mixed) 跨越类型不同的 sdk, sdm，以最慢者为准；"
        "sdk：/sys/block/sdk/queue/rotational = 0；sdm：/sys/block/sdm/queue/rotational = 1"))


def _chain(tree, links: int) -> None:
    """dm-0 on dm-1 on ... on dm-<links-1> on the disk sdz: the disk is ``links`` deep."""
    _disk(tree, "sdz", rotational="0")
    below = "sdz"
    for level in reversed(range(links)):
        _stacked(tree, f"dm-{level}", [below])
        below = f"dm-{level}"


def test_a_stack_eight_deep_is_followed(tree):
    _chain(tree, 8)  # sdz is classified at depth 8, the deepest allowed
    assert classify_block("dm-0", tree.roots)[0] == "ssd"


def test_a_stack_nine_deep_is_not_followed(tree):
    _chain(tree, 9)  # sdz would be at depth 9
    kind, basis = classify_block("dm-0", tree.roots)
    assert kind == "unknown"
    assert basis.en.endswith("dm-8 sits on sdz; sdz: sdz: device stack too deep to follow")
    assert basis.zh.endswith("sdz：sdz：设备层级太深，无法追踪")


# --------------------------------------------------------------------------- sizes


def test_device_size_of_a_partition_is_its_disk(tree):
    folder = _disk(tree, "sda", rotational="0", sectors="1953525168")  # a "1 TB" drive
    _partition(tree, folder, "sda1", majmin="8:1", sectors="1000000")
    assert device_size(Mount("/dev/sda1", "/", "ext4", "8:1"), tree.roots) == (
        1953525168 * 512, None)  # 1,000,204,886,016 B


def test_device_size_of_a_whole_disk_and_a_mapped_device(tree):
    _disk(tree, "sdb", rotational="0", majmin="8:16", sectors="7814037168")
    assert device_size(Mount("/dev/sdb", "/b", "ext4", "8:16"), tree.roots) == (
        7814037168 * 512, None)
    folder = _stacked(tree, "dm-0", ["sdb"], dm_name="crypt", majmin="253:0")
    tree.write(f"{folder}/size", "7814033072\n")  # LUKS header: 4096 sectors fewer
    assert device_size(Mount("/dev/mapper/crypt", "/c", "ext4", "253:0"), tree.roots) == (
        7814033072 * 512, None)


def test_device_size_reasons(tree):
    _disk(tree, "sdc", rotational="0")  # no size file
    missing = tree.roots.sys / "class/block/sdc/size"
    assert device_size(Mount("/dev/sdc", "/c", "ext4"), tree.roots) == (
        None, Msg(f"{missing} not present", f"{missing} 不存在"))
    _disk(tree, "sdd", rotational="0", sectors="lots")
    bad = tree.roots.sys / "class/block/sdd/size"
    assert device_size(Mount("/dev/sdd", "/d", "ext4"), tree.roots) == (None, Msg(
        f"{bad}: unexpected content 'lots'", f"{bad}：内容不符合预期 'lots'"))
    assert device_size(Mount("tmpfs", "/tmp", "tmpfs", "0:30"), tree.roots) == (
        None, Msg("source 'tmpfs' is not a block device", "来源 'tmpfs' 不是块设备"))


# --------------------------------------------------------------------------- the probe


def test_probe_fills_size_usage_and_device_fields(tree):
    folder = _disk(tree, "nvme0n1", rotational="0", sectors="3907029168")
    _partition(tree, folder, "nvme0n1p2", majmin="259:2")
    tree.write("proc/self/mountinfo",
               "21 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
               "29 21 0:40 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2\n")
    asked: list[str] = []

    def usage(mountpoint: str):
        asked.append(mountpoint)
        return SimpleNamespace(total=1_999_000_000_000.0, free=1_500_000_000_000.0)

    root, nfs = probe_storage(tree.roots, system="Linux", usage=usage, is_dir=_all)
    assert (root.mountpoint, root.device, root.fstype, root.kind) == (
        "/", "/dev/nvme0n1p2", "ext4", "nvme")
    assert (root.total_bytes, root.free_bytes) == (1_999_000_000_000, 1_500_000_000_000)
    assert isinstance(root.total_bytes, int) and isinstance(root.free_bytes, int)
    assert root.device_bytes == 3907029168 * 512 and root.unknown == {}
    assert asked == ["/"]  # the network mount is never asked: statvfs can hang
    never = Msg("not queried: asking a network mount can hang when its server is unreachable",
                "未查询：服务器不可达时，查询网络挂载可能会卡住")
    assert nfs.unknown == {"total_bytes": never, "free_bytes": never,
                           "device_bytes": Msg("source 'server:/export' is not a block device",
                                               "来源 'server:/export' 不是块设备")}
    assert (nfs.kind, nfs.total_bytes, nfs.free_bytes, nfs.device_bytes) == (
        "network", None, None, None)


def test_a_failing_usage_call_is_one_reason_for_both_sizes(tree):
    tree.write("proc/self/mountinfo", "1 0 0:20 / /tmp rw - tmpfs tmpfs rw\n")

    def usage(mountpoint: str):
        raise PermissionError(13, "Permission denied")

    (disk,) = probe_storage(tree.roots, system="Linux", usage=usage, is_dir=_all)
    why = Msg("disk usage of /tmp failed: [Errno 13] Permission denied",
              "读取 /tmp 的磁盘用量失败：PermissionError")
    assert disk.unknown["total_bytes"] == why and disk.unknown["free_bytes"] == why


def test_a_mount_without_source_or_fstype(tree, monkeypatch):
    monkeypatch.setattr(storage, "read_mounts", lambda roots: [Mount("", "/", "", "0:1")])
    (disk,) = probe_storage(tree.roots, system="Linux", usage=_usage(), is_dir=_all)
    assert disk.device is None and disk.fstype is None
    assert disk.unknown["device"] == Msg("the mount table names no source",
                                         "挂载表中没有写明来源设备")


def test_the_defaults_are_this_system_and_psutil(tree, monkeypatch):
    tree.write("proc/self/mountinfo", "1 0 0:20 / /tmp rw - tmpfs tmpfs rw\n")
    monkeypatch.setattr(storage.platform, "system", lambda: "Linux")
    monkeypatch.setattr(psutil, "disk_usage", _usage(total=123, free=45))
    (disk,) = probe_storage(tree.roots, is_dir=_all)
    assert (disk.mountpoint, disk.total_bytes, disk.free_bytes) == ("/tmp", 123, 45)


def test_is_dir_defaults_to_the_real_folder_check(tree):
    tree.write("proc/self/mountinfo",
               "1 0 0:20 / /tmp rw - tmpfs tmpfs rw\n"
               f"2 0 0:21 / {tree.base}/no/such/folder rw - ext4 /dev/sdx rw\n")
    disks = probe_storage(tree.roots, system="Linux", usage=_usage())
    assert [d.mountpoint for d in disks] == ["/tmp"]  # /tmp exists on any Linux


# --------------------------------------------------------------------------- macOS, Windows


def _part(device: str, mountpoint: str, fstype: str, opts: str | None):
    return SimpleNamespace(device=device, mountpoint=mountpoint, fstype=fstype, opts=opts)


def test_portable_listing(monkeypatch):
    parts = [
        _part("/dev/disk3s1s1", "/", "apfs", "ro,local,rootfs,dovolfs,journaled,multilabel"),
        _part("/dev/disk3s5", "/System/Volumes/Data", "apfs", "rw,local,dovolfs"),
        _part("/dev/disk3s6", "/private/var/vm", "apfs", "rw,local"),
        _part("/dev/disk4", "/Volumes/CD", "cd9660", "ro,cdrom"),
        _part("//me@nas/share", "/Volumes/share", "smbfs", "rw,nodev,nosuid"),
        _part("nas:/export", "/Volumes/nfs", "NFS", "rw"),  # fstype case does not matter
        _part("afp://nas", "/Volumes/afp", "weird", "rw,remote"),
        _part("", "/Volumes/blank", "", None),
    ]
    monkeypatch.setattr(psutil, "disk_partitions", lambda all=True: parts if not all else [])
    disks = storage._probe_portable("Darwin", _usage(total=10, free=4))
    assert [d.mountpoint for d in disks] == ["/", "/Volumes/share", "/Volumes/nfs",
                                             "/Volumes/afp", "/Volumes/blank"]
    root, smb, nfs, afp, blank = disks
    assert (root.kind, root.kind_basis) == ("unknown", Msg("medium not read on macOS",
                                                           "在 macOS 上不读取介质类型"))
    assert (root.device, root.fstype, root.total_bytes, root.free_bytes) == (
        "/dev/disk3s1s1", "apfs", 10, 4)
    assert (smb.kind, smb.kind_basis) == ("network", Msg(
        "fstype smbfs / options rw,nodev,nosuid say network",
        "文件系统类型 smbfs / 挂载选项 rw,nodev,nosuid 表明是网络存储"))
    assert nfs.kind == "network" and afp.kind == "network"
    assert smb.total_bytes is None  # a network mount is not asked
    assert (blank.device, blank.fstype, blank.kind) == (None, None, "unknown")


def test_windows_is_named_and_usable_through_probe_storage(monkeypatch):
    monkeypatch.setattr(psutil, "disk_partitions",
                        lambda all=True: [_part("C:\\", "C:\\", "NTFS", "rw,fixed")])
    (disk,) = probe_storage(system="Windows", usage=_usage(total=512, free=256))
    assert (disk.mountpoint, disk.kind, disk.total_bytes, disk.free_bytes) == (
        "C:\\", "unknown", 512, 256)
    assert disk.kind_basis == Msg("medium not read on Windows", "在 Windows 上不读取介质类型")



def test_lines_that_are_not_mounts_are_skipped_not_the_end_of_the_table():
    text = ("garbage line without separator\n"
            "1 2 8:1 / - ext4 /dev/sda1 rw\n"  # "-" too early
            "3 1 8:2 / /b rw - xfs /dev/sda2 rw\n")
    assert parse_mountinfo(text) == [Mount("/dev/sda2", "/b", "xfs", "8:2")]


def _chain_on_a_partition(tree, links: int) -> None:
    """dm-0 on ... on dm-<links-1> on sdy1, a partition of sdy: sdy1 is ``links`` deep and its
    disk one deeper."""
    folder = _disk(tree, "sdy", rotational="0")
    _partition(tree, folder, "sdy1")
    below = "sdy1"
    for level in reversed(range(links)):
        _stacked(tree, f"dm-{level}", [below])
        below = f"dm-{level}"


def test_a_partition_counts_one_level_towards_the_depth(tree):
    _chain_on_a_partition(tree, 7)  # sdy1 at depth 7, sdy at 8: followed
    assert classify_block("dm-0", tree.roots)[0] == "ssd"


def test_a_partition_at_depth_eight_has_a_disk_too_deep(tree):
    _chain_on_a_partition(tree, 8)  # sdy1 at depth 8, its disk sdy at 9: not followed
    kind, basis = classify_block("dm-0", tree.roots)
    assert kind == "unknown"
    assert basis.en.endswith("sdy1 is a partition of sdy; sdy: device stack too deep to follow")
