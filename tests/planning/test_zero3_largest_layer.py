"""ZeRO-3's gather buffer for a language model given by its parameter count only (issue 24).

DeepSpeed's estimator (deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs)
counts 4 B x the largest layer; the planner adds the 5e7-parameter prefetch bucket:
2 x min(LL + 5e7, 1e9, P) + 2 x LL (docs/estimation.md sec. 1.2). Without layer shapes LL is
estimated (docs/estimation.md sec. 1.2, "ZeRO-3's gather buffer"): hidden from the GPT-3 paper's
Table 2.1 (arXiv 2005.14165; log-log between neighbouring rows), ffn = 4 x hidden (that table's
caption), vocab 32,000 (the planner's custom default), LL = max(vocab x hidden, hidden x ffn).
Every expected figure below is worked by hand from those published rows.
"""

from __future__ import annotations

import json

import pytest

from torchrig.planning.plan_output import format_plan_text
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.largest_layer import estimate_largest_layer, table_hidden
from torchrig.planning.workload import workload_from_options

PREFETCH = 50_000_000  # stage3_prefetch_bucket_size default
MAX_LIVE = 1_000_000_000  # stage3_max_live_parameters default
T5_3B_P = 2_851_000_000  # DeepSpeed's worked example (memory.rst, t5-3b)
LLAMA2_70B_P = 68_976_648_192  # Llama-2-70B's count (the preset's, from its config.json)


def _zero3(task: str = "llm_finetune_full", **extra) -> object:
    options = dict(task=task, model="custom", precision="amp_bf16", gpus=8, strategy="zero3")
    options.update(extra)
    return workload_from_options(**options)


def _buffer(largest: int) -> int:
    return 2 * (largest + PREFETCH) + 2 * largest


def test_table_rows_give_their_own_d_model():
    # GPT-3 Table 2.1 rows, as printed: 2.7B -> 2560, 175B -> 12288, 125M -> 768.
    assert table_hidden(2.7e9) == 2560
    assert table_hidden(175e9) == 12288
    assert table_hidden(125e6) == 768
    assert table_hidden(100e6) is None and table_hidden(200e9) is None


def test_params_only_2_85b_estimates_a_gpt3_shaped_layer():
    # 2.851B lies between the 2.7B (2560) and 6.7B (4096) rows:
    # exponent = ln(4096/2560) / ln(6.7/2.7) = 0.470004 / 0.908855 = 0.517139
    # hidden = 2560 x (2.851/2.7)^0.517139 = 2560 x 1.028542 = 2633.07 -> 2633
    # embedding 32,000 x 2,633 = 84,256,000 > MLP 2,633 x 10,532 = 27,730,756
    # buffer = 2 x (84,256,000 + 5e7) + 2 x 84,256,000 = 437,024,000 B
    # (the old upper bound was 2 x min(P, 1e9) = 2e9 B)
    largest = 32_000 * 2_633
    req = plan(_zero3(params=T5_3B_P))
    assert req.vram_per_gpu["comm_buffers"].value == _buffer(largest) == 437_024_000
    assert "estimated" in req.vram_per_gpu["comm_buffers"].note.en
    a = {x.key: x for x in req.assumptions}["zero3_largest_layer"]
    assert a.value == largest
    assert "hidden 2,633" in a.text.en and "--hidden" in a.text.en


def test_params_only_70b_against_the_real_llama_2_70b_shape():
    # 68.977B between the 13B (5140) and 175B (12288) rows:
    # exponent = ln(12288/5140) / ln(175/13) = 0.871570 / 2.599837 = 0.335241
    # hidden = 5140 x (68.977/13)^0.335241 = 5140 x 1.749719 = 8993.56 -> 8994
    # MLP 8,994 x 35,976 = 323,568,144 > embedding 32,000 x 8,994 = 287,808,000
    # buffer = 2 x (323,568,144 + 5e7) + 2 x 323,568,144 = 1,394,272,576 B
    estimated = 8_994 * 4 * 8_994
    w = _zero3(params=LLAMA2_70B_P)
    assert plan(w).vram_per_gpu["comm_buffers"].value == _buffer(estimated) == 1_394_272_576
    # The real shape (config.json: hidden 8192, ffn 28672, vocab 32000): the embedding
    # 32,000 x 8,192 = 262,144,000 beats the MLP 8,192 x 28,672 = 234,881,024; the preset's
    # path is unchanged: 2 x (262,144,000 + 5e7) + 2 x 262,144,000 = 1,148,576,000 B.
    # The estimate is 1.234x the real largest layer, 1.21x its buffer.
    real = workload_from_options(task="llm_finetune_full", model="llama-2-70b",
                                 precision="amp_bf16", gpus=8, strategy="zero3")
    req = plan(real)
    assert req.vram_per_gpu["comm_buffers"].value == _buffer(32_000 * 8_192) == 1_148_576_000
    assert "zero3_largest_layer" not in {a.key for a in req.assumptions}


def test_given_shape_parts_replace_the_assumed_ones():
    # params with t5-3b's hidden 1024, ffn 16384 and vocab 32128 but no layers or heads (so no
    # full architecture): LL = max(32,128 x 1,024 = 32,899,072, 1,024 x 16,384 = 16,777,216);
    # buffer = 2 x (32,899,072 + 5e7) + 2 x 32,899,072 = 231,596,288 B.
    req = plan(_zero3(params=T5_3B_P, hidden=1024, ffn=16384, vocab=32128))
    assert req.vram_per_gpu["comm_buffers"].value == _buffer(32_128 * 1_024) == 231_596_288
    a = {x.key: x for x in req.assumptions}["zero3_largest_layer"]
    assert "hidden: given; ffn: given; vocab: given" in a.text.en
    # hidden alone: ffn 4 x 1024 and the 32,000 vocab -> LL = 32,000 x 1,024 = 32,768,000
    only_hidden = plan(_zero3(params=T5_3B_P, hidden=1024))
    assert only_hidden.vram_per_gpu["comm_buffers"].value == _buffer(32_000 * 1_024)


def test_a_full_custom_shape_uses_its_real_largest_layer():
    # layers, hidden and heads given: the architecture's own largest module, no assumption.
    # Llama style, hidden 1024, ffn 16384, vocab 32128: 32,128 x 1,024 = 32,899,072.
    req = plan(_zero3(params=T5_3B_P, layers=24, hidden=1024, heads=32, ffn=16384,
                      vocab=32128))
    assert req.vram_per_gpu["comm_buffers"].value == _buffer(32_128 * 1_024)
    assert "zero3_largest_layer" not in {a.key for a in req.assumptions}


@pytest.mark.parametrize("task,params,bound", [
    ("llm_finetune_full", 100_000_000, 2 * 100_000_000),  # below the table: 2 x P
    ("llm_finetune_full", 200_000_000_000, 2 * MAX_LIVE),  # above the table's 175B
    ("image_classification", T5_3B_P, 2 * MAX_LIVE),  # not a language model
])
def test_the_upper_bound_stays_where_the_estimate_cannot_apply(task, params, bound):
    # 2 x min(P, stage3_max_live_parameters = 1e9) in 16 bit.
    req = plan(_zero3(task=task, params=params))
    assert req.vram_per_gpu["comm_buffers"].value == bound
    assert "upper bound" in req.vram_per_gpu["comm_buffers"].note.en
    assert "zero3_largest_layer" not in {a.key for a in req.assumptions}


def test_the_assumption_is_in_the_plan_text_and_json():
    w = _zero3(params=T5_3B_P)
    req = plan(w)
    assert "largest layer estimated at 84.3M parameters" in format_plan_text(w, req, "en")
    assumptions = json.loads(json.dumps(req.to_dict()))["assumptions"]
    mine = [a for a in assumptions if a["key"] == "zero3_largest_layer"]
    assert mine and mine[0]["value"] == 84_256_000
    assert "估计" in mine[0]["text"]["zh"]


def test_estimate_function_keeps_the_mlp_when_it_is_larger():
    # 175B row: hidden 12288, MLP 12,288 x 49,152 = 603,979,776 > 32,000 x 12,288 = 393,216,000
    g = estimate_largest_layer(175e9)
    assert g is not None and g.largest == 12_288 * 49_152
    assert estimate_largest_layer(100e6) is None
    small = estimate_largest_layer(100e6, hidden=512)
    assert small is not None and small.largest == 32_000 * 512
