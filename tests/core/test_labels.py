"""Every code a person can meet has a name in both languages (labels.py), and plurals agree."""

from __future__ import annotations

import pytest

from torchrig import labels
from torchrig.builds.build import CUSTOM_CATEGORIES
from torchrig.builds.capabilities import STORAGE_RANK
from torchrig.catalog import load_catalog
from torchrig.i18n import Msg, counted, plural
from torchrig.planning import workload
from torchrig.planning.presets import load_presets

TABLES = {
    "TASKS": (labels.TASKS, workload.TASKS),
    "MODES": (labels.MODES, workload.MODES),
    "PRECISIONS": (labels.PRECISIONS, workload.PRECISIONS),
    "OPTIMIZERS": (labels.OPTIMIZERS, workload.OPTIMIZERS),
    "STRATEGIES": (labels.STRATEGIES, workload.STRATEGIES),
    "MODELS": (labels.MODELS, tuple(load_presets())),
    "CATEGORIES": (labels.CATEGORIES, CUSTOM_CATEGORIES),
    "STORAGE_KINDS": (labels.STORAGE_KINDS, tuple(STORAGE_RANK)),
}


def test_model_names_are_the_presets_names_and_read_as_chinese() -> None:
    for pid, preset in load_presets().items():
        assert labels.MODELS[pid].en == preset.name, pid
        zh = labels.MODELS[pid].zh
        assert "(" not in zh and " px" not in zh, zh  # full-width brackets, 像素


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_code_has_a_name_in_both_languages(name: str) -> None:
    table, codes = TABLES[name]
    for code in codes:
        assert code in table, (name, code)
        assert table[code].en.strip() and table[code].zh.strip(), (name, code)
        assert table[code].en != code, (name, code)  # a name, not the code again


def test_catalog_and_tier_codes_have_names() -> None:
    catalog = load_catalog()
    for part in catalog.parts.values():
        assert part.category in labels.CATEGORIES, part.id
    for tier in catalog.tiers.values():
        for kind in tier.requirements.storage_kinds:
            assert kind in labels.STORAGE_KINDS, (tier.id, kind)
        for link in tier.requirements.interconnect:
            assert link in labels.INTERCONNECTS, (tier.id, link)


def test_the_names_people_asked_for() -> None:
    assert labels.label(labels.TASKS, "llm_finetune_lora", "en") == "LoRA fine-tuning"
    assert labels.label(labels.PRECISIONS, "amp_bf16", "en") == "AMP (bf16)"
    assert labels.label(labels.STORAGE_KINDS, "nvme", "en") == "NVMe"
    assert labels.joined(labels.INTERCONNECTS, ("nvlink", "infiniband"), "en") == \
        "NVLink / InfiniBand"
    assert labels.label(labels.TASKS, "llm_finetune_lora", "zh") == "LoRA 微调"


def test_an_unknown_code_is_shown_as_given() -> None:
    assert labels.label(labels.CATEGORIES, "Rack rails", "zh") == "Rack rails"


def test_plural_picks_the_form() -> None:
    one, many = Msg("{n} GPU", "{n} 块 GPU"), Msg("{n} GPUs", "{n} 块 GPU")
    assert plural(1, one, many, "en") == "1 GPU"
    assert plural(8, one, many, "en") == "8 GPUs"
    assert plural(0, one, many, "en") == "0 GPUs"
    assert plural(8, one, many, "zh") == "8 块 GPU"


def test_counts_read_in_the_right_number() -> None:
    assert [labels.cores(n, "en") for n in (1, 2)] == ["1 core", "2 cores"]
    assert labels.cores(1, "zh") == "1 核"
    assert [counted(n, "slot", "slots") for n in (1, 3)] == ["1 slot", "3 slots"]


def test_a_seed_citation_names_the_document_in_chinese() -> None:
    assert labels.citation("seed 1.2, 4.3", "zh") == "种子文档 1.2、4.3 节"
    assert labels.citation("Tim Dettmers; seed 1.1", "zh") == "Tim Dettmers; 种子文档 1.1 节"
    assert labels.citation("seed 1.1", "en") == "seed 1.1"
    # Text other than the project's documents is a title and stays; prose comes as a Msg.
    assert labels.citation("Puget Systems", "zh") == "Puget Systems"
    specs = Msg("vendor CPU specifications", "CPU 厂商规格")
    assert [labels.citation(specs, lang) for lang in ("en", "zh")] == [specs.en, specs.zh]


def test_the_project_references_are_named_in_chinese() -> None:
    """Benchmark reports store references' sources as text ("hardware reference sec. 3")."""
    assert labels.citation("hardware reference sec. 3", "zh") == "硬件参考第 3 节"
    assert labels.citation("seed 4.3; hardware reference sec. 3", "zh") == (
        "种子文档 4.3 节; 硬件参考第 3 节")
    assert labels.citation("estimation.md section 7", "zh") == "估算参考第 7 节"
    assert labels.citation("seed 2.1 vs seed 4.2", "zh") == "种子文档 2.1 节 对照 种子文档 4.2 节"
    assert labels.citation("hardware reference sec. 3", "en") == "hardware reference sec. 3"


def test_the_docs_folder_citations_are_named_in_chinese() -> None:
    """The code cites docs/hardware-sources.md and docs/estimation.md by section; reports saved
    before that still say "hardware reference sec. 3", and both read the same in Chinese."""
    assert labels.citation("docs/hardware-sources.md sec. 3", "zh") == "硬件参考第 3 节"
    assert labels.citation("docs/hardware-sources.md section 6", "zh") == "硬件参考第 6 节"
    assert labels.citation("seed 4.3; docs/estimation.md sec. 5 (H200)", "zh") == (
        "种子文档 4.3 节; 估算参考第 5 节 (H200)")
    assert labels.citation("estimation reference, section 5", "zh") == "估算参考第 5 节"
    assert labels.citation("docs/estimation.md sec. 5", "en") == "docs/estimation.md sec. 5"
