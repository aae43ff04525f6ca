"""Tiers (seed section 2) and the seed's general rules (sections 1.1/1.2), and the contradictions
between them.

The seed's rules are data (``seed_rules`` in tiers.json, each with its section); the
contradictions are computed here by checking each tier's own parts and figures against those
rules, so a changed tier or rule updates the findings without anyone re-writing them.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from torchrig.catalog.fields import CATALOG_VERSION, msg_field, parse_money, text_field
from torchrig.catalog.line_price import PRICE_KEYS, parse_line_price
from torchrig.catalog.model import (
    Catalog,
    LinePrice,
    Part,
    SeedRule,
    StarterLine,
    Tier,
    TierPartChoice,
    TierRequirements,
)
from torchrig.errors import InputError
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg
from torchrig.jsonio import check_keys, parse_json_text, read_text_file, upgrade_document
from torchrig.units import GB, GiB

TIERS_FORMAT = "torchrig.tiers"
TIER_IDS: tuple[str, ...] = ("entry", "professional", "enterprise")
ROLE_CATEGORY = {"cpu": "cpu", "gpu": "gpu"}
STORAGE_KINDS = ("nvme", "sata-ssd", "hdd", "distributed")
INTERCONNECTS = ("pcie", "nvlink", "infiniband", "ethernet")

# Rule ids the contradiction check knows how to apply; tiers.json must define each of them.
RULE_IDS = (
    "cpu_min_cores",
    "cpu_smt",
    "gpu_min_vram_gib_small_models",
    "gpu_min_vram_gib_large_models",
    "gpu_tensor_cores",
    "ram_min_gib",
    "storage_fast",
)


def load_tiers(path: Path, catalog: Catalog) -> tuple[dict[str, Tier], dict[str, SeedRule]]:
    data = parse_json_text(read_text_file(path), str(path))
    doc = upgrade_document(data, TIERS_FORMAT, CATALOG_VERSION, where=str(path))
    check_keys(doc, {"format", "version", "note", "seed_rules", "tiers"}, str(path))
    rules = _parse_rules(doc.get("seed_rules"), str(path))
    raw_tiers = doc.get("tiers")
    if not isinstance(raw_tiers, list):
        raise InputError(f"{path}: field 'tiers' must be a list")
    tiers: dict[str, Tier] = {}
    for i, raw in enumerate(raw_tiers):
        tier = _parse_tier(raw, f"{path}: tiers[{i}]", catalog)
        if tier.id in tiers:
            raise InputError(f"{path}: tier {tier.id!r} defined twice")
        tiers[tier.id] = tier
    missing = [t for t in TIER_IDS if t not in tiers]
    if missing:
        raise InputError(f"{path}: missing tier {missing[0]!r}")
    return tiers, rules


def _parse_rules(raw: Any, where: str) -> dict[str, SeedRule]:
    if not isinstance(raw, list):
        raise InputError(f"{where}: field 'seed_rules' must be a list")
    rules: dict[str, SeedRule] = {}
    for i, item in enumerate(raw):
        w = f"{where}: seed_rules[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{w} must be an object")
        rid = text_field(item, "id", w)
        value = item.get("value")
        if value is None or isinstance(value, (list, dict)):
            raise InputError(f"{w} ({rid}): field 'value' must be a number, true/false or text")
        rules[rid] = SeedRule(id=rid, section=text_field(item, "section", w), value=value,
                              text=msg_field(item, "text", w))
    for rid in RULE_IDS:
        if rid not in rules:
            raise InputError(f"{where}: seed_rules lacks rule {rid!r}")
    return rules


def _int_pair(obj: dict[str, Any], key: str, where: str) -> tuple[int, int]:
    value = obj.get(key)
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
            or value[0] > value[1]):
        raise InputError(f"{where}: field '{key}' must be [min, max] whole numbers >= 1")
    return value[0], value[1]


def _parse_tier(raw: Any, where: str, catalog: Catalog) -> Tier:
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object")
    tid = text_field(raw, "id", where)
    where = f"{where.rsplit(': ', 1)[0]}: tier {tid!r}"
    parts_raw = raw.get("parts")
    if not isinstance(parts_raw, dict) or not parts_raw:
        raise InputError(f"{where}: field 'parts' must map a role (cpu, gpu) to its choices")
    choices = []
    for role, choice in parts_raw.items():
        w = f"{where}: parts.{role}"
        if role not in ROLE_CATEGORY or not isinstance(choice, dict):
            raise InputError(f"{w}: role must be cpu or gpu with recommended/alternatives")
        rec = text_field(choice, "recommended", w)
        alts = choice.get("alternatives", [])
        if not isinstance(alts, list) or not all(isinstance(a, str) for a in alts):
            raise InputError(f"{w}: field 'alternatives' must be a list of part ids")
        for pid in (rec, *alts):
            _require_part(catalog, pid, ROLE_CATEGORY[role], w)
        choices.append(TierPartChoice(role=role, recommended=rec, alternatives=tuple(alts)))
    scale = raw.get("model_scale")
    if scale not in ("small", "large"):
        raise InputError(f"{where}: field 'model_scale' must be 'small' or 'large'")
    req = _parse_requirements(raw.get("requirements"), f"{where}: requirements", catalog,
                              tuple(choices))
    price_range = raw.get("price_range_cny")
    rng: tuple[Decimal, Decimal] | None = None
    if price_range is not None:
        if not isinstance(price_range, list) or len(price_range) != 2:
            raise InputError(f"{where}: field 'price_range_cny' must be [low, high] or null")
        lo = parse_money(price_range[0], f"{where}: field 'price_range_cny[0]'")
        hi = parse_money(price_range[1], f"{where}: field 'price_range_cny[1]'")
        if not 0 < lo <= hi:
            raise InputError(f"{where}: field 'price_range_cny' must be 0 < low <= high")
        rng = (lo, hi)
    starter = raw.get("starter_build")
    if not isinstance(starter, dict):
        raise InputError(f"{where}: field 'starter_build' must be an object")
    nodes = starter.get("nodes")
    if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
        raise InputError(f"{where}: field 'starter_build.nodes' must be a whole number >= 1")
    lines = _parse_starter_lines(starter.get("lines"), f"{where}: starter_build", catalog)
    claims_raw = raw.get("claims", [])
    if not isinstance(claims_raw, list):
        raise InputError(f"{where}: field 'claims' must be a list")
    claims = tuple(msg_field({"c": c}, "c", f"{where}: claims[{i}]")
                   for i, c in enumerate(claims_raw))
    return Tier(
        id=tid, section=text_field(raw, "section", where), name=msg_field(raw, "name", where),
        use_cases=msg_field(raw, "use_cases", where), parts=tuple(choices),
        ram=msg_field(raw, "ram", where), storage=msg_field(raw, "storage", where),
        price_range_cny=rng, price_note=msg_field(raw, "price_note", where),
        advantages=msg_field(raw, "advantages", where), model_scale=scale, requirements=req,
        starter_nodes=nodes, starter_lines=lines,
        starter_note=msg_field(starter, "note", f"{where}: starter_build"), claims=claims,
    )


def _require_part(catalog: Catalog, pid: str, category: str | None, where: str) -> Part:
    part = catalog.parts.get(pid)
    if part is None:
        raise InputError(f"{where}: part id {pid!r} is not in the catalog")
    if category is not None and part.category != category:
        raise InputError(f"{where}: part {pid!r} is a {part.category}, expected a {category}")
    return part


def _parse_requirements(raw: Any, where: str, catalog: Catalog,
                        choices: tuple[TierPartChoice, ...]) -> TierRequirements:
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object")
    ram = raw.get("min_ram_gib")
    if isinstance(ram, bool) or not isinstance(ram, int) or ram < 1:
        raise InputError(f"{where}: field 'min_ram_gib' must be a whole number >= 1")
    kinds = raw.get("storage_kinds")
    if not isinstance(kinds, list) or not kinds or any(k not in STORAGE_KINDS for k in kinds):
        raise InputError(f"{where}: field 'storage_kinds' must list some of "
                         f"{', '.join(STORAGE_KINDS)}")
    links = raw.get("interconnect", [])
    if not isinstance(links, list) or any(k not in INTERCONNECTS for k in links):
        raise InputError(f"{where}: field 'interconnect' must list some of "
                         f"{', '.join(INTERCONNECTS)}")
    storage_gb = raw.get("storage_gb")
    if storage_gb is not None and (isinstance(storage_gb, bool)
                                   or not isinstance(storage_gb, int) or storage_gb < 1):
        raise InputError(f"{where}: field 'storage_gb' must be a whole number >= 1 or null")
    mem_type = raw.get("memory_type")
    if mem_type not in (None, "DDR4", "DDR5"):
        raise InputError(f"{where}: field 'memory_type' must be DDR4, DDR5 or null")
    # Minimum cores and VRAM follow from the tier's own parts: computing them keeps one truth.
    cores = [catalog.parts[pid].cpu.cores for c in choices if c.role == "cpu" for pid in c.all_ids]
    vram = [catalog.parts[pid].gpu.vram_bytes for c in choices if c.role == "gpu"
            for pid in c.all_ids]
    return TierRequirements(
        min_cpu_cores=min((c for c in cores if c is not None), default=None),
        min_vram_bytes=min((v for v in vram if v is not None), default=None),
        gpus_per_node=_int_pair(raw, "gpus_per_node", where),
        nodes=_int_pair(raw, "nodes", where),
        min_ram_bytes=ram * GiB,
        memory_type=mem_type,
        storage_kinds=tuple(kinds),
        storage_bytes=storage_gb * GB if storage_gb else None,
        interconnect=tuple(links),
    )


_STARTER_KEYS = {"role", "part_id", "quantity", "scope", "text", "category", *PRICE_KEYS}


def _parse_starter_lines(raw: Any, where: str, catalog: Catalog) -> tuple[StarterLine, ...]:
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: field 'lines' must be a non-empty list")
    lines = []
    for i, item in enumerate(raw):
        w = f"{where}: lines[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{w} must be an object")
        # A misspelt field ("unit_prise") would otherwise drop a price without a word.
        check_keys(item, _STARTER_KEYS, w)
        pid = item.get("part_id")
        text, category = "", ""
        price = LinePrice()
        if pid is None:
            # A custom line (no catalog part): it must say what it is and its category, and it
            # may carry a sourced price (a catalog part's price lives in the catalog).
            text = text_field(item, "text", w)
            category = text_field(item, "category", w)
            price = parse_line_price(item, w)
            if price.unit_price is not None and not price.price_source.strip():
                raise InputError(f"{w}.price_source must say where unit_price comes from")
        else:
            pid = text_field(item, "part_id", w)
            _require_part(catalog, pid, None, w)
            priced = sorted(PRICE_KEYS & set(item))
            if priced:
                raise InputError(f"{w}.{priced[0]}: a catalog part's price belongs in the "
                                 "catalog, not in the tier")
        qty = item.get("quantity")
        if isinstance(qty, bool) or not isinstance(qty, int) or qty < 1:
            raise InputError(f"{w}: field 'quantity' must be a whole number >= 1")
        scope = item.get("scope", "node")
        if scope not in ("node", "cluster"):
            raise InputError(f"{w}: field 'scope' must be 'node' or 'cluster'")
        lines.append(StarterLine(part_id=pid, quantity=qty, role=text_field(item, "role", w),
                                 scope=scope, text=text, category=category, price=price))
    return tuple(lines)


# --- contradictions between a tier and the seed's general rules ---------------------------


def _names(parts: list[Part]) -> str:
    return ", ".join(p.name for p in parts)


def tier_contradictions(tier: Tier, catalog: Catalog) -> list[Finding]:
    """Where the tier's own parts or figures break the seed's general rules (1.1/1.2), or ask
    for what the tier's own platform cannot take.

    One finding per broken rule, naming every offending part; numbers are SI (bytes) or counts.
    """
    rules = catalog.seed_rules
    out: list[Finding] = []
    cpus = [catalog.get(pid) for c in tier.parts if c.role == "cpu" for pid in c.all_ids]
    gpus = [catalog.get(pid) for c in tier.parts if c.role == "gpu" for pid in c.all_ids]
    src = f"seed {tier.section}"

    rule = rules["cpu_min_cores"]
    need = int(rule.value)
    few = [p for p in cpus if p.cpu.cores is not None and p.cpu.cores < need]
    if few:
        least = min(p.cpu.cores or 0 for p in few)
        out.append(Finding(
            code="tier.cpu_cores", severity=Severity.WARNING,
            title=Msg(f"{tier.name.en}: CPU has fewer cores than seed {rule.section} asks",
                      f"{tier.name.zh}：CPU 核心数低于种子文档 {rule.section} 的要求"),
            detail=Msg(f"{_names(few)}: {least} cores; seed {rule.section} recommends >= {need} "
                       f"cores with SMT for data loading.",
                       f"{_names(few)}：{least} 核；种子文档 {rule.section} 建议 ≥{need} 核"
                       "并支持超线程，"
                       "以应对数据加载。"),
            fix=Msg(f"Choose a CPU with >= {need} cores, or keep few DataLoader workers and "
                    "preprocessed data.",
                    f"选择 ≥{need} 核的 CPU，或使用较少的 DataLoader 进程并预处理数据。"),
            source=f"{src} vs seed {rule.section}",
            numbers={"cores": float(least), "required_cores": float(need)},
        ))

    rule = rules["cpu_smt"]
    no_smt = [p for p in cpus if rule.value is True and p.cpu.smt is False]
    if no_smt:
        out.append(Finding(
            code="tier.cpu_smt", severity=Severity.ADVICE,
            title=Msg(f"{tier.name.en}: CPU without SMT", f"{tier.name.zh}：CPU 不支持超线程"),
            detail=Msg(f"{_names(no_smt)} runs one thread per core; seed {rule.section} asks for "
                       "SMT.",
                       f"{_names(no_smt)} 每核单线程；种子文档 {rule.section} 建议支持超线程。"),
            fix=Msg("Count physical cores when sizing DataLoader workers.",
                    "按物理核心数设置 DataLoader 进程数。"),
            source=f"{src} vs seed {rule.section}",
        ))

    rule_id = ("gpu_min_vram_gib_small_models" if tier.model_scale == "small"
               else "gpu_min_vram_gib_large_models")
    rule = rules[rule_id]
    need_bytes = int(float(rule.value) * GiB)
    small = [p for p in gpus if p.gpu.vram_bytes is not None and p.gpu.vram_bytes < need_bytes]
    if small:
        least_b = min(p.gpu.vram_bytes or 0 for p in small)
        scale = Msg("small models", "小型模型") if tier.model_scale == "small" else Msg(
            "large models", "大型模型")
        out.append(Finding(
            code="tier.vram", severity=Severity.WARNING,
            title=Msg(f"{tier.name.en}: GPU memory below seed {rule.section}",
                      f"{tier.name.zh}：显存低于种子文档 {rule.section} 的要求"),
            detail=Msg(f"{_names(small)}: {least_b / GiB:.0f} GiB; seed {rule.section} asks "
                       f">= {float(rule.value):g} GB for {scale.en}.",
                       f"{_names(small)}：{least_b / GiB:.0f} GiB；种子文档 {rule.section} 要求"
                       f"{scale.zh} ≥{float(rule.value):g} GB。"),
            fix=Msg("Prefer the tier's GPU with more memory.", "优先选择该档中显存更大的 GPU。"),
            source=f"{src} vs seed {rule.section}",
            numbers={"vram_bytes": float(least_b), "required_vram_bytes": float(need_bytes)},
        ))

    rule = rules["gpu_tensor_cores"]
    no_tc = [p for p in gpus if rule.value is True and p.gpu.tensor_cores is False]
    if no_tc:
        out.append(Finding(
            code="tier.tensor_cores", severity=Severity.WARNING,
            title=Msg(f"{tier.name.en}: GPU without tensor cores",
                      f"{tier.name.zh}：GPU 没有 Tensor Core"),
            detail=Msg(f"{_names(no_tc)} has no tensor cores: seed {rule.section} asks for "
                       "Tensor Core support, and the AMP speed-up of seed 3.1 barely applies.",
                       f"{_names(no_tc)} 没有 Tensor Core：种子文档 {rule.section} 要求支持 "
                       "Tensor Core，3.1 所述混合精度加速基本无效。"),
            fix=Msg("Choose a GPU with tensor cores (Volta or newer).",
                    "选择带 Tensor Core 的 GPU（Volta 及更新架构）。"),
            source=f"{src} vs seed {rule.section}, seed 3.1",
        ))

    rule = rules["ram_min_gib"]
    need_ram = int(float(rule.value) * GiB)
    have_ram = tier.requirements.min_ram_bytes
    if have_ram < need_ram:
        out.append(Finding(
            code="tier.ram", severity=Severity.WARNING,
            title=Msg(f"{tier.name.en}: RAM below seed {rule.section}",
                      f"{tier.name.zh}：内存低于种子文档 {rule.section} 的建议"),
            detail=Msg(f"The tier lists {have_ram / GiB:.0f} GB; seed {rule.section} recommends "
                       f">= {float(rule.value):g} GB.",
                       f"该档配置 {have_ram / GiB:.0f} GB；种子文档 {rule.section} 建议 "
                       f"≥{float(rule.value):g} GB。"),
            fix=Msg(f"Fit >= {float(rule.value):g} GB of RAM.",
                    f"配置 ≥{float(rule.value):g} GB 内存。"),
            source=f"{src} vs seed {rule.section}",
            numbers={"ram_bytes": float(have_ram), "required_ram_bytes": float(need_ram)},
        ))

    out += _memory_type_contradiction(tier, catalog, gpus)

    rule = rules["storage_fast"]
    fast = {"nvme", "distributed"}
    if not fast & set(tier.requirements.storage_kinds):
        out.append(Finding(
            code="tier.storage", severity=Severity.WARNING,
            title=Msg(f"{tier.name.en}: no NVMe storage", f"{tier.name.zh}：没有 NVMe 存储"),
            detail=Msg(f"Seed {rule.section} recommends NVMe SSDs for training data.",
                       f"种子文档 {rule.section} 建议用 NVMe SSD 存放训练数据。"),
            fix=Msg("Add an NVMe SSD for the working dataset.", "为训练数据增加 NVMe SSD。"),
            source=f"{src} vs seed {rule.section}",
        ))
    return out


def _memory_type_contradiction(tier: Tier, catalog: Catalog, gpus: list[Part]) -> list[Finding]:
    """The tier asks for a memory type that the host CPUs of its own starter platform (the ones
    that can carry its GPUs) do not support: the seed's figure cannot be built as written."""
    want = tier.requirements.memory_type
    hosts = [part for line in tier.starter_lines if line.part_id is not None
             for part in [catalog.get(line.part_id)] if part.category == "cpu"]
    hosts = list({p.id: p for p in hosts}.values())
    types = sorted({t for p in hosts for t in p.cpu.memory_types})
    if want is None or not types or want in types:
        return []
    have = "/".join(types)
    cpu_en = ("the host CPU", "supports") if len(hosts) == 1 else ("the host CPUs", "support")
    return [Finding(
        code="tier.memory_type", severity=Severity.WARNING,
        title=Msg(f"{tier.name.en}: the seed's {want} does not fit the tier's platform",
                  f"{tier.name.zh}：种子文档要求的 {want} 与该档平台不符"),
        detail=Msg(f"Seed {tier.section} asks for {want}, but {_names(hosts)} ({cpu_en[0]} of the "
                   f"platform for {_names(gpus)}) {cpu_en[1]} {have} only.",
                   f"种子文档 {tier.section} 要求 {want}，但 {_names(hosts)}（承载 "
                   f"{_names(gpus)} 的平台主机 CPU）只支持 {have}。"),
        fix=Msg(f"Fit {have} registered memory on this platform; {want} needs a newer platform "
                "and a GPU generation it hosts.",
                f"该平台请配 {have} 带寄存器内存；{want} 需要更新的平台及其支持的 GPU。"),
        source=Msg(f"seed {tier.section} vs vendor CPU specifications",
                   f"种子文档 {tier.section} 节对照 CPU 厂商规格"),
    )]


__all__ = ["TIER_IDS", "load_tiers", "tier_contradictions"]
