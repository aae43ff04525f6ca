"""Typed spec records for each part category, and the JSON schema that fills them.

The JSON catalog uses friendly units named in the key (``vram_gib``, ``fp16_tensor_tflops``,
``memory_bandwidth_gb_s``); the model stores SI base units (bytes, bytes/s, FLOP/s, W, Hz, bit/s)
so that every consumer compares like with like. Each :class:`FieldDef` says how one JSON key maps
to one attribute, with the scale and the plausible range that the loader enforces. A value the
sources do not give stays ``None`` and the UI shows "unknown".
"""

from __future__ import annotations

from typing import Literal

from torchrig.records import record
from torchrig.units import GB, MB, GiB

CATEGORIES: tuple[str, ...] = ("gpu", "cpu", "memory", "storage", "motherboard", "psu", "network",
                               "case", "cpu_cooler")
"""Part categories, in the order a build sheet lists them."""

Kind = Literal["num", "int", "str", "bool", "str_list", "int_list", "mem_support", "lane_configs",
               "m2_map", "radiator_mounts", "bios_reqs"]

TERA = 1e12
GIGA = 1e9

SXM_FORMS: tuple[str, ...] = ("sxm4", "sxm5", "sxm6")
"""NVIDIA SXM module generations (A100, H100/H200, B200/B300): NVLink GPUs on an HGX baseboard.
Each generation has its own baseboard, so a module fits only sockets of its own generation."""
SOCKETED_GPU_FORMS: tuple[str, ...] = (*SXM_FORMS, "oam")
"""GPU modules that plug into a baseboard socket, not a PCIe slot."""
GPU_FORMS: tuple[str, ...] = ("pcie", *SOCKETED_GPU_FORMS, "module")


@record
class FieldDef:
    """How one JSON spec key maps to one model attribute.

    ``scale`` multiplies the JSON number into SI base units; ``lo``/``hi`` bound the JSON value
    (in the JSON's own unit) so a typo such as ``"vram_gib": 2400`` is caught at load time.
    ``choices`` restricts text values.
    """

    key: str
    attr: str
    kind: Kind
    scale: float = 1.0
    lo: float | None = None
    hi: float | None = None
    required: bool = False
    choices: tuple[str, ...] | None = None


@record
class MemorySupport:
    """One memory type a CPU supports, with its rated speed when the source gives one."""

    type: str
    speed_mts: int | None

    def text(self) -> str:
        return f"{self.type}-{self.speed_mts}" if self.speed_mts else self.type


@record
class GpuSlot:
    """The electrical width a board gives one GPU in a given population of x16-size slots."""

    lanes: int
    gen: int | None
    via: Literal["cpu", "chipset"]


@record
class M2Slot:
    """One M.2 slot as the board manual wires it: where its lanes come from and what using it
    takes away (the first x16 slot drops to ``gpu_slot_lanes``; ``sata_ports_off`` go dark)."""

    name: str
    via: Literal["cpu", "chipset"]
    gen: int | None
    lanes: int
    gpu_slot_lanes: int | None = None
    sata_ports_off: tuple[int, ...] = ()

    @property
    def shares(self) -> bool:
        return self.gpu_slot_lanes is not None or bool(self.sata_ports_off)


@record
class RadiatorMount:
    """Where a case takes a radiator: the position, the sizes (120, 240, 280, 360…) and the
    thickest radiator with fans it takes there (None: the source gives no thickness)."""

    position: str
    sizes_mm: tuple[int, ...]
    max_thickness_mm: float | None


@record
class BiosRequirement:
    """A CPU family the board runs only from a given BIOS version on (the vendor's CPU support
    list); boards in stock may still ship with an older one."""

    family: str
    bios: str


@record
class GpuSpec:
    """A GPU. Tensor figures are dense (no 2:4 sparsity) with FP32 accumulate, the rate that
    PyTorch AMP/bf16 matmuls see; ``tensor_accumulate`` states that convention per part."""

    architecture: str | None = None
    chip: str | None = None
    compute_capability: str | None = None
    gfx_target: str | None = None
    vram_bytes: int | None = None
    vram_ecc: bool | None = None
    memory_type: str | None = None
    memory_bus_bits: int | None = None
    memory_bandwidth: float | None = None
    fp32_flops: float | None = None
    fp32_matrix_flops: float | None = None
    fp16_flops: float | None = None
    tensor_cores: bool | None = None
    fp16_tensor_flops: float | None = None
    bf16_tensor_flops: float | None = None
    fp8_tensor_flops: float | None = None
    fp4_tensor_flops: float | None = None
    tf32_tensor_flops: float | None = None
    fp16_tensor_sparse_flops: float | None = None
    int8_tensor_sparse_ops: float | None = None
    tensor_accumulate: str | None = None
    tdp_w: float | None = None
    pcie_gen: int | None = None
    pcie_lanes: int | None = None
    nvlink: bool | None = None
    gpu_link: str | None = None
    gpu_link_bandwidth: float | None = None
    form_factor: str | None = None
    slot_width: float | None = None
    cooling: str | None = None
    required_system_power_w: float | None = None
    length_mm: float | None = None
    power_12v_2x6: int | None = None
    power_8pin: int | None = None
    min_power_limit_w: float | None = None
    """The lowest power limit the card's firmware accepts (``nvidia-smi -q -d POWER``,
    "Min Power Limit"): a power-limit fix below it cannot be set."""

    def cools_side_by_side(self) -> bool:
        """Whether the card's cooler works next to other cards (:data:`SIDE_BY_SIDE_COOLING`):
        an open-air cooler - or one the catalog does not know - blows into its neighbour."""
        return self.cooling in SIDE_BY_SIDE_COOLING


SIDE_BY_SIDE_GPUS = 3
"""PCIe cards per node from which their coolers sit next to each other: the build check's
cooling advice and the GPU recommendation (planning/gpu_choice.py) use the same count."""

SIDE_BY_SIDE_COOLING = ("blower", "passive", "liquid")
"""Coolers that exhaust out of the case or are cooled by the chassis or water, so cards stack
(Dettmers: open-air cards side by side throttle; use blower or water cooling)."""


@record
class CpuSpec:
    """A CPU. ``tdp_w`` is AMD TDP or Intel base power (PBP); ``max_turbo_power_w`` is the most
    the package draws under sustained boost: Intel Maximum Turbo Power (PL2) or AMD PPT.
    ``pcie_lanes`` counts lanes from the CPU itself (not the chipset)."""

    microarchitecture: str | None = None
    cores: int | None = None
    performance_cores: int | None = None
    efficiency_cores: int | None = None
    threads: int | None = None
    base_clock_hz: float | None = None
    boost_clock_hz: float | None = None
    tdp_w: float | None = None
    max_turbo_power_w: float | None = None
    socket: str | None = None
    max_sockets: int | None = None
    memory_support: tuple[MemorySupport, ...] = ()
    memory_channels: int | None = None
    max_memory_bytes: int | None = None
    memory_bandwidth: float | None = None
    pcie_lanes: int | None = None
    pcie_gen: int | None = None
    avx512: bool | None = None
    family: str | None = None
    """The vendor's product family (\"Ryzen 9000\", \"Core 14th gen\"), as boards' CPU support
    lists name them."""
    integrated_graphics: bool | None = None

    @property
    def memory_types(self) -> tuple[str, ...]:
        return tuple(m.type for m in self.memory_support)

    @property
    def smt(self) -> bool | None:
        if self.cores is None or self.threads is None:
            return None
        return self.threads > self.cores


@record
class MemorySpec:
    """A memory kit (a box of identical modules)."""

    memory_type: str | None = None
    speed_mts: int | None = None
    modules: int | None = None
    module_bytes: int | None = None
    module_form: str | None = None
    ecc: bool | None = None
    cas_latency: int | None = None
    voltage: float | None = None

    @property
    def total_bytes(self) -> int | None:
        if self.modules is None or self.module_bytes is None:
            return None
        return self.modules * self.module_bytes


@record
class StorageSpec:
    """A drive. Sequential rates are the vendor's best-case figures (HDD: outer tracks)."""

    kind: str | None = None
    interface: str | None = None
    pcie_gen: int | None = None
    capacity_bytes: int | None = None
    seq_read: float | None = None
    seq_write: float | None = None
    form_factor: str | None = None
    rpm: int | None = None
    endurance_tbw: float | None = None


@record
class MotherboardSpec:
    """A motherboard or a GPU server's system board.

    ``gpu_lane_configs[n - 1]`` is how the board wires ``n`` GPUs in its x16-size slots (for
    example ``x16`` for one card, ``x8 + x8`` for two); a board with no entry for ``n`` cannot
    take ``n`` cards at all. ``sxm_gpu_slots`` counts SXM/OAM sockets on an HGX-type baseboard;
    ``sxm_gpu_form`` is the module generation those sockets take (``sxm5``, ``sxm6``…).
    ``integrated_psu_w`` is set for server systems that ship with their own power supplies
    (usable, non-redundant watts); ``redundant_psu_w`` is what they still give with one supply
    failed (N+1), the figure to size a server by.
    ``x16_slot_positions`` are the expansion-slot positions (1 = nearest the CPU) of the x16-size
    slots, in the order ``gpu_lane_configs`` fills them: two positions closer together than a
    card's slot width cannot both hold that card. ``m2_gpu_lane_sharing``: populating a CPU M.2
    slot halves the first GPU slot to x8; ``m2_sata_sharing``: an M.2 slot disables SATA ports.
    ``m2_slot_map`` is the manual's sharing table slot by slot (it supersedes the two flags);
    ``dimensions_mm`` the board's width x depth; ``unsupported_cpu_families`` CPU families that
    fit the socket but not the board (a WRX90 board takes no non-PRO Threadripper);
    ``bios_requirements`` the families that need a given BIOS version first.
    ``system_chassis`` marks a complete system (its chassis, e.g. ``4U rackmount``, with fans,
    airflow and supplies; ``builds/system_parts.py``); ``extra_x16_slots`` counts its
    full-width slots beyond those ``gpu_lane_configs`` fills, for network adapters.
    """

    socket: str | None = None
    cpu_sockets: int | None = None
    chipset: str | None = None
    form_factor: str | None = None
    memory_type: str | None = None
    memory_slots: int | None = None
    max_memory_bytes: int | None = None
    max_memory_speed_mts: int | None = None
    module_form: str | None = None
    x16_slots: int | None = None
    gpu_lane_configs: tuple[tuple[GpuSlot, ...], ...] = ()
    m2_slots: int | None = None
    sxm_gpu_slots: int | None = None
    sxm_gpu_form: str | None = None
    onboard_lan: str | None = None
    integrated_psu_w: float | None = None
    redundant_psu_w: float | None = None
    memory_channels: int | None = None
    max_memory_speed_2dpc_mts: int | None = None
    ecc: bool | None = None
    x16_slot_positions: tuple[int, ...] = ()
    m2_gpu_lane_sharing: bool | None = None
    m2_sata_sharing: bool | None = None
    m2_slot_map: tuple[M2Slot, ...] = ()
    dimensions_mm: tuple[int, ...] = ()
    unsupported_cpu_families: tuple[str, ...] = ()
    bios_requirements: tuple[BiosRequirement, ...] = ()
    system_chassis: str | None = None
    extra_x16_slots: int | None = None


@record
class PsuSpec:
    """A power supply. ``transient_peak_w`` is the maker's stated power-excursion peak (the
    ATX 3.x 100 µs figure), which replaces the one the design guide's rule gives."""

    wattage_w: float | None = None
    efficiency: str | None = None
    form_factor: str | None = None
    atx_version: str | None = None
    pcie_12v_2x6_connectors: int | None = None
    pcie_8pin_connectors: int | None = None
    modular: str | None = None
    length_mm: float | None = None
    transient_peak_w: float | None = None


@record
class NetworkSpec:
    """A network adapter or a GPU link (NVLink bridge)."""

    kind: str | None = None
    standard: str | None = None
    rate_bits_per_s: float | None = None
    ports: int | None = None
    bandwidth: float | None = None
    host_pcie_gen: int | None = None
    host_pcie_lanes: int | None = None
    connector: str | None = None
    gpus_bridged: int | None = None


@record
class CaseSpec:
    """A chassis. ``board_form_factors`` lists the board sizes it takes (``ATX``, ``E-ATX``…);
    ``max_gpu_length_mm`` and ``max_cooler_height_mm`` are the maker's clearances."""

    kind: str | None = None
    board_form_factors: tuple[str, ...] = ()
    max_gpu_length_mm: float | None = None
    max_cooler_height_mm: float | None = None
    max_psu_length_mm: float | None = None
    expansion_slots: int | None = None
    radiator_support: str | None = None
    included_fans: int | None = None
    max_board_mm: tuple[int, ...] = ()
    radiator_mounts: tuple[RadiatorMount, ...] = ()


@record
class CpuCoolerSpec:
    """A CPU cooler. ``rated_heat_w`` is the maker's heat-load (TDP) rating."""

    kind: str | None = None
    height_mm: float | None = None
    sockets: tuple[str, ...] = ()
    radiator_mm: int | None = None
    rated_heat_w: float | None = None
    radiator_thickness_mm: float | None = None


Spec = (GpuSpec | CpuSpec | MemorySpec | StorageSpec | MotherboardSpec | PsuSpec | NetworkSpec
        | CaseSpec | CpuCoolerSpec)

SPEC_CLASSES: dict[str, type] = {
    "gpu": GpuSpec,
    "cpu": CpuSpec,
    "memory": MemorySpec,
    "storage": StorageSpec,
    "motherboard": MotherboardSpec,
    "psu": PsuSpec,
    "network": NetworkSpec,
    "case": CaseSpec,
    "cpu_cooler": CpuCoolerSpec,
}

_LANES = (1.0, 16.0)
_GEN = (1.0, 6.0)

SCHEMAS: dict[str, tuple[FieldDef, ...]] = {
    "gpu": (
        FieldDef("architecture", "architecture", "str", required=True),
        FieldDef("chip", "chip", "str"),
        FieldDef("compute_capability", "compute_capability", "str"),
        FieldDef("gfx_target", "gfx_target", "str"),
        FieldDef("vram_gib", "vram_bytes", "int", GiB, 0.5, 1024, required=True),
        FieldDef("vram_ecc", "vram_ecc", "bool"),
        FieldDef("memory_type", "memory_type", "str"),
        FieldDef("memory_bus_bits", "memory_bus_bits", "int", 1, 32, 8192),
        FieldDef("memory_bandwidth_gb_s", "memory_bandwidth", "num", GB, 10, 20_000),
        FieldDef("fp32_tflops", "fp32_flops", "num", TERA, 0.1, 1_000),
        FieldDef("fp32_matrix_tflops", "fp32_matrix_flops", "num", TERA, 0.1, 1_000),
        FieldDef("fp16_tflops", "fp16_flops", "num", TERA, 0.1, 1_000),
        FieldDef("tensor_cores", "tensor_cores", "bool", required=True),
        FieldDef("fp16_tensor_tflops", "fp16_tensor_flops", "num", TERA, 1, 10_000),
        FieldDef("bf16_tensor_tflops", "bf16_tensor_flops", "num", TERA, 1, 10_000),
        FieldDef("fp8_tensor_tflops", "fp8_tensor_flops", "num", TERA, 1, 20_000),
        FieldDef("fp4_tensor_tflops", "fp4_tensor_flops", "num", TERA, 1, 40_000),
        FieldDef("tf32_tensor_tflops", "tf32_tensor_flops", "num", TERA, 1, 10_000),
        FieldDef("fp16_tensor_sparse_tflops", "fp16_tensor_sparse_flops", "num", TERA, 1, 20_000),
        FieldDef("int8_tensor_sparse_tops", "int8_tensor_sparse_ops", "num", TERA, 1, 50_000),
        FieldDef("tensor_accumulate", "tensor_accumulate", "str", choices=("fp32",)),
        FieldDef("tdp_w", "tdp_w", "num", 1, 5, 2_000),
        FieldDef("pcie_gen", "pcie_gen", "int", 1, *_GEN),
        FieldDef("pcie_lanes", "pcie_lanes", "int", 1, *_LANES),
        FieldDef("nvlink", "nvlink", "bool"),
        FieldDef("gpu_link", "gpu_link", "str"),
        FieldDef("gpu_link_gb_s", "gpu_link_bandwidth", "num", GB, 1, 10_000),
        FieldDef("form_factor", "form_factor", "str", required=True,
                 choices=GPU_FORMS),
        FieldDef("slot_width", "slot_width", "num", 1, 1, 5),
        FieldDef("cooling", "cooling", "str",
                 choices=("open-air", "blower", "passive", "liquid")),
        FieldDef("required_system_power_w", "required_system_power_w", "num", 1, 100, 5_000),
        FieldDef("length_mm", "length_mm", "num", 1, 50, 600),
        FieldDef("power_12v_2x6", "power_12v_2x6", "int", 1, 0, 4),
        FieldDef("power_8pin", "power_8pin", "int", 1, 0, 4),
        FieldDef("min_power_limit_w", "min_power_limit_w", "num", 1, 5, 2_000),
    ),
    "cpu": (
        FieldDef("microarchitecture", "microarchitecture", "str"),
        FieldDef("cores", "cores", "int", 1, 1, 512, required=True),
        FieldDef("performance_cores", "performance_cores", "int", 1, 1, 512),
        FieldDef("efficiency_cores", "efficiency_cores", "int", 1, 0, 512),
        FieldDef("threads", "threads", "int", 1, 1, 1024, required=True),
        FieldDef("base_clock_ghz", "base_clock_hz", "num", GIGA, 0.5, 7),
        FieldDef("boost_clock_ghz", "boost_clock_hz", "num", GIGA, 0.5, 7),
        FieldDef("tdp_w", "tdp_w", "num", 1, 5, 1_000),
        FieldDef("max_turbo_power_w", "max_turbo_power_w", "num", 1, 5, 1_000),
        FieldDef("socket", "socket", "str", required=True),
        FieldDef("max_sockets", "max_sockets", "int", 1, 1, 8),
        FieldDef("memory", "memory_support", "mem_support"),
        FieldDef("memory_channels", "memory_channels", "int", 1, 1, 24),
        FieldDef("max_memory_gib", "max_memory_bytes", "int", GiB, 1, 65_536),
        FieldDef("memory_bandwidth_gb_s", "memory_bandwidth", "num", GB, 1, 2_000),
        FieldDef("pcie_lanes", "pcie_lanes", "int", 1, 1, 256),
        FieldDef("pcie_gen", "pcie_gen", "int", 1, *_GEN),
        FieldDef("avx512", "avx512", "bool"),
        FieldDef("family", "family", "str"),
        FieldDef("integrated_graphics", "integrated_graphics", "bool"),
    ),
    "memory": (
        FieldDef("memory_type", "memory_type", "str", required=True,
                 choices=("DDR4", "DDR5")),
        FieldDef("speed_mts", "speed_mts", "int", 1, 800, 12_000),
        FieldDef("modules", "modules", "int", 1, 1, 32, required=True),
        FieldDef("module_gib", "module_bytes", "int", GiB, 1, 512, required=True),
        FieldDef("module_form", "module_form", "str", choices=("UDIMM", "RDIMM")),
        FieldDef("ecc", "ecc", "bool"),
        FieldDef("cas_latency", "cas_latency", "int", 1, 5, 100),
        FieldDef("voltage_v", "voltage", "num", 1, 0.9, 2),
    ),
    "storage": (
        FieldDef("kind", "kind", "str", required=True, choices=("nvme", "sata-ssd", "hdd")),
        FieldDef("interface", "interface", "str"),
        FieldDef("pcie_gen", "pcie_gen", "int", 1, *_GEN),
        FieldDef("capacity_gb", "capacity_bytes", "int", GB, 1, 100_000, required=True),
        FieldDef("seq_read_mb_s", "seq_read", "num", MB, 10, 30_000),
        FieldDef("seq_write_mb_s", "seq_write", "num", MB, 10, 30_000),
        FieldDef("form_factor", "form_factor", "str"),
        FieldDef("rpm", "rpm", "int", 1, 3_000, 20_000),
        FieldDef("endurance_tbw", "endurance_tbw", "num", 1, 1, 100_000),
    ),
    "motherboard": (
        FieldDef("socket", "socket", "str", required=True),
        FieldDef("cpu_sockets", "cpu_sockets", "int", 1, 1, 8),
        FieldDef("chipset", "chipset", "str"),
        FieldDef("form_factor", "form_factor", "str"),
        FieldDef("memory_type", "memory_type", "str", required=True,
                 choices=("DDR4", "DDR5")),
        FieldDef("memory_slots", "memory_slots", "int", 1, 1, 64, required=True),
        FieldDef("max_memory_gib", "max_memory_bytes", "int", GiB, 1, 65_536),
        FieldDef("max_memory_speed_mts", "max_memory_speed_mts", "int", 1, 800, 12_000),
        FieldDef("module_form", "module_form", "str", choices=("UDIMM", "RDIMM")),
        FieldDef("x16_slots", "x16_slots", "int", 1, 0, 16),
        FieldDef("gpu_lane_configs", "gpu_lane_configs", "lane_configs"),
        FieldDef("m2_slots", "m2_slots", "int", 1, 0, 16),
        FieldDef("sxm_gpu_slots", "sxm_gpu_slots", "int", 1, 0, 16),
        FieldDef("sxm_gpu_form", "sxm_gpu_form", "str", choices=SOCKETED_GPU_FORMS),
        FieldDef("onboard_lan", "onboard_lan", "str"),
        FieldDef("integrated_psu_w", "integrated_psu_w", "num", 1, 100, 20_000),
        FieldDef("redundant_psu_w", "redundant_psu_w", "num", 1, 100, 20_000),
        FieldDef("memory_channels", "memory_channels", "int", 1, 1, 24),
        FieldDef("max_memory_speed_2dpc_mts", "max_memory_speed_2dpc_mts", "int", 1, 800,
                 12_000),
        FieldDef("ecc", "ecc", "bool"),
        FieldDef("x16_slot_positions", "x16_slot_positions", "int_list", 1, 1, 12),
        FieldDef("m2_gpu_lane_sharing", "m2_gpu_lane_sharing", "bool"),
        FieldDef("m2_sata_sharing", "m2_sata_sharing", "bool"),
        FieldDef("m2_slot_map", "m2_slot_map", "m2_map"),
        FieldDef("dimensions_mm", "dimensions_mm", "int_list", 1, 100, 500),
        FieldDef("unsupported_cpu_families", "unsupported_cpu_families", "str_list"),
        FieldDef("bios_requirements", "bios_requirements", "bios_reqs"),
        FieldDef("system_chassis", "system_chassis", "str"),
        FieldDef("extra_x16_slots", "extra_x16_slots", "int", 1, 0, 16),
    ),
    "psu": (
        FieldDef("wattage_w", "wattage_w", "num", 1, 100, 5_000, required=True),
        FieldDef("efficiency", "efficiency", "str"),
        FieldDef("form_factor", "form_factor", "str"),
        FieldDef("atx_version", "atx_version", "str"),
        FieldDef("pcie_12v_2x6_connectors", "pcie_12v_2x6_connectors", "int", 1, 0, 8),
        FieldDef("pcie_8pin_connectors", "pcie_8pin_connectors", "int", 1, 0, 16),
        FieldDef("modular", "modular", "str", choices=("full", "semi", "none")),
        FieldDef("length_mm", "length_mm", "num", 1, 80, 400),
        FieldDef("transient_peak_w", "transient_peak_w", "num", 1, 100, 20_000),
    ),
    "network": (
        FieldDef("kind", "kind", "str", required=True,
                 choices=("ethernet", "infiniband", "nvlink-bridge")),
        FieldDef("standard", "standard", "str"),
        FieldDef("rate_gbit_s", "rate_bits_per_s", "num", GIGA, 1, 2_000),
        FieldDef("ports", "ports", "int", 1, 1, 16),
        FieldDef("bandwidth_gb_s", "bandwidth", "num", GB, 1, 10_000),
        FieldDef("host_pcie_gen", "host_pcie_gen", "int", 1, *_GEN),
        FieldDef("host_pcie_lanes", "host_pcie_lanes", "int", 1, *_LANES),
        FieldDef("connector", "connector", "str"),
        FieldDef("gpus_bridged", "gpus_bridged", "int", 1, 2, 8),
    ),
    "case": (
        FieldDef("kind", "kind", "str", required=True,
                 choices=("desktop", "rackmount", "workstation-tower")),
        FieldDef("board_form_factors", "board_form_factors", "str_list"),
        FieldDef("max_gpu_length_mm", "max_gpu_length_mm", "num", 1, 100, 600),
        FieldDef("max_cooler_height_mm", "max_cooler_height_mm", "num", 1, 20, 300),
        FieldDef("max_psu_length_mm", "max_psu_length_mm", "num", 1, 80, 400),
        FieldDef("expansion_slots", "expansion_slots", "int", 1, 1, 16),
        FieldDef("radiator_support", "radiator_support", "str"),
        FieldDef("included_fans", "included_fans", "int", 1, 0, 20),
        FieldDef("max_board_mm", "max_board_mm", "int_list", 1, 100, 500),
        FieldDef("radiator_mounts", "radiator_mounts", "radiator_mounts"),
    ),
    "cpu_cooler": (
        FieldDef("kind", "kind", "str", required=True, choices=("air", "liquid")),
        FieldDef("height_mm", "height_mm", "num", 1, 10, 250),
        FieldDef("sockets", "sockets", "str_list"),
        FieldDef("radiator_mm", "radiator_mm", "int", 1, 120, 480),
        FieldDef("rated_heat_w", "rated_heat_w", "num", 1, 10, 1_000),
        FieldDef("radiator_thickness_mm", "radiator_thickness_mm", "num", 1, 10, 120),
    ),
}
