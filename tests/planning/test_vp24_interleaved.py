"""The interleaved (virtual) pipeline schedule (issue 24, ``vp_size``): each GPU of a p-stage
pipeline holds v model chunks of L/(p·v) layers (Narayanan et al. 2021 sec. 2.2.2, Megatron-LM's
``forward_backward_pipelining_with_interleaving``). Every expected figure is worked out here by
hand from the paper's formula or Megatron's warm-up count, and each differs from what plain
1F1B (m / (m + p - 1) busy, min(m, p) micro-batches of L/p layers held) would give.

- Busy share: a step lasts m + (p - 1)/v micro-batch slots, so a stage is busy
  m / (m + (p - 1)/v) = 1 / (1 + (1/v)·(p - 1)/m), the paper's bubble fraction (1/v)·(p - 1)/m
  of the ideal time.
- Held activations on the first stage: Megatron's num_warmup_microbatches on rank 0 is
  (p - 1)·2 + (v - 1)·p chunk forwards, plus the one the steady phase runs before its first
  backward, at most the step's m·v; each is L/(p·v) layers.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.errors import InputError
from torchrig.planning.device import DeviceSpec
from torchrig.planning.links import LINKS
from torchrig.planning.presets import get_preset, load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.activations import (
    pipeline_held_layers,
    transformer_activations,
)
from torchrig.planning.requirements.scaling import model_parallel_step
from torchrig.planning.workload import Workload, default_workload, workload_from_options
from torchrig.units import GiB

GPU = DeviceSpec("Test GPU", 80 * GiB, {"fp32": 20e12, "tf32": 160e12, "fp16": 320e12,
                                         "bf16": 320e12}, 2039e9, True, LINKS["nvlink3"])
MFU = 0.40
# Llama-2-7B full fine-tune at seq 2048 with checkpointing (x 4/3), as test_throughput_mutants.
N7 = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 32000 * 4096
LLAMA_FLOPS = (6 * N7 + 12 * 32 * 4096 * 2048) * 2048 * 4 / 3
# Llama-2-13B (40 layers, hidden 5120, FFN 13824, untied 32000-row head), the same way.
N13 = 40 * (4 * 5120**2 + 3 * 5120 * 13824) + 32000 * 5120
LLAMA13_FLOPS = (6 * N13 + 12 * 40 * 5120 * 2048) * 2048 * 4 / 3
CAL = load_calibration()
MiB = 1024 * 1024
LLAMA2_7B = 6_738_415_616
NDR_BUSBW = 50e9 * 0.8


def _pipeline(p: int, v: int, m: int, model: str = "llama-2-7b", **more) -> Workload:
    """One pipeline of p stages over p GPUs (no data parallelism), m micro-batches a step."""
    w = dataclasses.replace(default_workload("llm_finetune_full"), model=model,
                            strategy="pipeline_parallel", pp_size=p, vp_size=v,
                            gpus_per_node=p, grad_accumulation=m, **more)
    return w.validate()


# --- the bubble ---------------------------------------------------------------------------


# (p, v, m): busy = m / (m + (p - 1) / v), written out; 1F1B's m / (m + p - 1) beside it.
BUSY = [
    (2, 2, 4, 4 / (4 + 1 / 2), 4 / 5, "llama-2-7b"),  # 8/9 = 89 %, not 80 %
    (4, 2, 8, 8 / (8 + 3 / 2), 8 / 11, "llama-2-7b"),  # 16/19 = 84 %, not 73 %
    (4, 10, 32, 32 / (32 + 3 / 10), 32 / 35, "llama-2-13b"),  # 320/323 = 99 %, not 91 %
]
FLOPS = {"llama-2-7b": LLAMA_FLOPS, "llama-2-13b": LLAMA13_FLOPS}


@pytest.mark.parametrize(("p", "v", "m", "busy", "plain", "model"), BUSY)
def test_interleaved_stage_idles_for_a_v_times_smaller_bubble(p, v, m, busy, plain, model):
    # The paper's formula: bubble / ideal = (1/v)(p - 1)/m, busy = 1 / (1 + bubble / ideal).
    assert busy == pytest.approx(1 / (1 + (p - 1) / (v * m)), rel=1e-15)
    assert busy != pytest.approx(plain, rel=1e-3)
    w = _pipeline(p, v, m, model)
    t = plan(w, GPU).throughput
    assert t["flops_per_sample"].value == pytest.approx(FLOPS[model], rel=1e-12)
    per_gpu = 320e12 * MFU / FLOPS[model] * busy
    assert t["samples_per_s_per_gpu"].value == pytest.approx(per_gpu, rel=1e-12)
    assert t["samples_per_s"].value == pytest.approx(p * per_gpu, rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en.endswith(
        f"; x {m} / ({m} + ({p} - 1) / {v}) = {busy:.0%} busy: {m} micro-batches per step "
        f"through {p} pipeline stages of {v} model chunks each, the rest is the bubble of the "
        "interleaved 1F1B schedule (Narayanan et al. 2021, sec. 2.2.2)")
    assert t["samples_per_s_per_gpu"].note.zh.endswith(
        f"；× {m} / ({m} + ({p} - 1) / {v}) = {busy:.0%} 忙碌：每步 {m} 个微批次流经 {p} 个"
        f"流水线阶段（每阶段 {v} 个模型块），其余为交错 1F1B 调度的气泡（Narayanan 等 2021，"
        "2.2.2 节）")
    assumed = {a.key: a for a in plan(w, GPU).assumptions}["pipeline_schedule"]
    assert assumed.value == pytest.approx(busy)
    assert f"each GPU holding {v} model chunks" in assumed.text.en
    assert f"（为 1F1B 的 {v} 倍）未计入" in assumed.text.zh


def test_vp_size_1_is_plain_1f1b_figure_for_figure():
    # m = 8 over p = 4: 8 / (8 + 4 - 1) = 8/11, the 1F1B note word for word, and the same plan
    # as a document written before the field existed (it reads as 1).
    w = _pipeline(4, 1, 8)
    doc = w.to_dict()
    del doc["vp_size"]
    old = Workload.from_dict(doc)
    assert old.vp_size == 1 and old == w
    t = plan(w, GPU).throughput
    assert t["samples_per_s_per_gpu"].value == pytest.approx(
        320e12 * MFU / LLAMA_FLOPS * 8 / 11, rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en.endswith(
        "; x 8 / (8 + 4 - 1) = 73% busy: 8 micro-batches per step through 4 pipeline stages, "
        "the rest is the bubble of the 1F1B schedule (Narayanan et al. 2021, sec. 2.2.1)")
    assert plan(old, GPU).to_dict() == plan(w, GPU).to_dict()


def test_gradient_sync_hides_behind_one_of_the_shorter_step_s_slots():
    # PP 2, v = 2, m = 2 over 2 nodes x 8 H100 (DP 8), 1 s of compute a step, checkpointing:
    # the step is 2 + (2 - 1)/2 = 2.5 slots of 0.4 s (1F1B: 3 slots of 1/3 s). The sync of the
    # stage's 4P/2 B over one NDR port shared by 2 rings (20e9 B/s) hides behind the last
    # slot's backward (3/4 of it); the link never idles from the second bucket on:
    #   step = 1.5 x 0.4 + 0.4/4 + 0.3 x 26 MiB / G + 1.75 x (G - 1 MiB) / 20e9
    #          + (buckets - 1) x 20 us
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="pipeline_parallel",
                            pp_size=2, vp_size=2, grad_accumulation=2, gpus_per_node=8,
                            nodes=2).validate()
    step = model_parallel_step(w, 1.0, LINKS["nvlink4"], LINKS["ib_ndr"])
    grads = LLAMA2_7B * 4 // 2
    buckets = 1 + -(-(grads - MiB) // (25 * MiB))
    expected = (1.5 * 0.4 + 0.4 / 4 + 0.3 * 26 * MiB / grads
                + 1.75 * (grads - MiB) / (NDR_BUSBW / 2) + (buckets - 1) * 20e-6)
    assert step.step_time_s == pytest.approx(expected)
    plain = (2 / 3 + 1 / 12 + 0.25 * 26 * MiB / grads
             + 1.75 * (grads - MiB) / (NDR_BUSBW / 2) + (buckets - 1) * 20e-6)
    assert step.step_time_s != pytest.approx(plain, rel=1e-3)
    assert step.dp_comm_s == pytest.approx(
        1.75 * grads / (NDR_BUSBW / 2) + buckets * 20e-6)


# --- what the first stage holds ---------------------------------------------------------------


# (p, v, m, L): rank 0 runs 2(p - 1) + (v - 1)p warm-up chunk forwards, then one more before
# its first backward, at most m·v; each chunk is L/(p·v) layers.
HELD = [
    # 2·1 + 1·2 = 4 warm-up, + 1 = 5 of m·v = 8 chunks of 32/4 = 8 layers: 40 layers
    # (1F1B: min(4, 2) = 2 micro-batches x 16 layers = 32)
    (2, 2, 4, "llama-2-7b", 5, 40, 32),
    # 2·3 + 1·4 = 10, + 1 = 11 of 16 chunks of 32/8 = 4 layers: 44 (1F1B: 4 x 8 = 32)
    (4, 2, 8, "llama-2-7b", 11, 44, 32),
    # 2·3 + 9·4 = 42, + 1 = 43 of 320 chunks of 40/40 = 1 layer: 43 (1F1B: 4 x 10 = 40)
    (4, 10, 32, "llama-2-13b", 43, 43, 40),
]


@pytest.mark.parametrize(("p", "v", "m", "model", "chunks", "layers", "plain"), HELD)
def test_first_stage_holds_megatron_s_warm_up_of_chunks(p, v, m, model, chunks, layers,
                                                        plain):
    w = _pipeline(p, v, m, model)
    total = get_preset(model).arch.layers
    assert chunks * total // (p * v) == layers
    assert pipeline_held_layers(w, total) == pytest.approx(layers)
    assert layers != plain
    assert pipeline_held_layers(dataclasses.replace(w, vp_size=1), total) == plain


def test_a_step_of_p_micro_batches_runs_all_its_chunks_in_the_warm_up():
    # p = 2, v = 2, m = 2: the warm-up would be 2·1 + 1·2 = 4 and one more 5, but the step has
    # only m·v = 4 chunk forwards: all 4 are held, 4 x 32/4 = 32 layers (not 5 x 8 = 40). With m
    # = p this is also what 1F1B holds (min(2, 2) x 16 = 32), the only case the two agree:
    # m·v below the warm-up + 1 means m·v < 2p + vp - p, m < p + p/v, and m is a multiple of p.
    w = _pipeline(2, 2, 2)
    assert pipeline_held_layers(w, 32) == pytest.approx(32)


def test_activation_bytes_and_note_count_the_held_chunks():
    # GPT-2 (12 layers), p = 2, v = 2, m = 4: 5 chunk forwards of 12/4 = 3 layers = 15 layers'
    # worth of one micro-batch (1F1B: 12), + the outside and half the autocast copies.
    base = workload_from_options(task="nlp_transformer", model="gpt2", mode="train", batch=4,
                                 seq_len=1024, precision="amp_fp16")
    w = dataclasses.replace(base, strategy="pipeline_parallel", pp_size=2, vp_size=2,
                            gpus_per_node=2, grad_accumulation=4).validate()
    arch = dataclasses.replace(get_preset("gpt2").arch, activation="")
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer = tc.layer_bytes_per_token(arch, 1024) * 1024 * 4
    outside = tc.outside_bytes_per_sequence(arch, 1024) * 4
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768) / 2
    acts = transformer_activations(w, arch, 1024, CAL, False)
    assert acts.bytes == pytest.approx(15 * layer + outside + copies, rel=1e-12)
    assert "; interleaved pipeline (2 chunks per GPU): the first stage holds 5 chunk forwards " \
        "of 3 layers = 15 layers = 5/4 of all layers' worth (Megatron-LM's " \
        "num_warmup_microbatches + 1)" in acts.note.en
    assert "；交错流水线（每 GPU 2 个模型块）：第一阶段保存 5 个模型块前向 × 3 层 = 15 层 = " \
        "全部层的 5/4（Megatron-LM 的预热前向数 + 1）" in acts.note.zh


# --- refusals -------------------------------------------------------------------------------------


def _doc(**changes):
    return {**default_workload("llm_finetune_full").to_dict(), **changes}


PIPE = dict(strategy="pipeline_parallel", pp_size=4, gpus_per_node=8)
REFUSALS = [
    (dict(vp_size=2),
     "field 'vp_size' is 2: virtual pipeline stages need a pipeline (pp_size at least 2, "
     "strategy pipeline_parallel); pp_size is 1"),
    (dict(PIPE, vp_size=2, grad_accumulation=6),
     "field 'vp_size' is 2: the interleaved schedule needs the micro-batches per step "
     "(grad_accumulation 6) to be a multiple of the 4 pipeline stages (Megatron-LM requires "
     "it)"),
    (dict(PIPE, vp_size=3, grad_accumulation=8),
     "field 'vp_size' is 3: the 32 layers do not split into 4 pipeline stages x 3 chunks = 12 "
     "equal chunks (32 is not a multiple of 12)"),
    (dict(vp_size=0), "field 'vp_size' must be between 1 and 4096, got 0"),
]


@pytest.mark.parametrize(("changes", "message"), REFUSALS)
def test_load_and_save_refuse_alike(changes, message):
    with pytest.raises(InputError) as loading:
        Workload.from_dict(_doc(**changes))
    with pytest.raises(InputError) as saving:
        dataclasses.replace(default_workload("llm_finetune_full"), **changes).validate()
    assert str(loading.value) == f"workload: {message}"
    assert str(saving.value) == f"workload: {message}"


def test_inference_is_refused_virtual_stages():
    w = dataclasses.replace(default_workload("llm_inference"), strategy="pipeline_parallel",
                            pp_size=2, gpus_per_node=2, vp_size=2)
    with pytest.raises(InputError, match="field 'vp_size' is 2: virtual pipeline stages apply "
                                         "to training only"):
        w.validate()


def test_the_valid_interleaved_layout_loads_and_round_trips():
    w = Workload.from_dict(_doc(**PIPE, vp_size=2, grad_accumulation=8))
    assert (w.pp_size, w.vp_size, w.grad_accumulation) == (4, 2, 8)
    assert Workload.from_dict(w.to_dict()) == w


# --- the CLI ----------------------------------------------------------------------------------


ARGS = ["plan", "--task", "llm_finetune_full", "--model", "llama-2-13b", "--strategy",
        "pipeline_parallel", "--pp-size", "4", "--gpus", "8", "--grad-accumulation", "32"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--vp-size", "3"], "field 'vp_size' is 3: the 40 layers do not split into 4 pipeline "
                         "stages x 3 chunks = 12 equal chunks (40 is not a multiple of 12)"),
    (["--vp-size", "10", "--grad-accumulation", "30"],
     "field 'vp_size' is 10: the interleaved schedule needs the micro-batches per step "
     "(grad_accumulation 30) to be a multiple of the 4 pipeline stages"),
    (["--vp-size", "2", "--pp-size", "1", "--strategy", "ddp"],
     "field 'vp_size' is 2: virtual pipeline stages need a pipeline"),
])
def test_cli_refuses_with_the_numbers(capsys, extra, message):
    from torchrig.cli import main

    assert main([*ARGS, *extra]) == 2
    assert message in capsys.readouterr().err


def test_cli_plan_text_and_json_carry_the_virtual_stages(capsys):
    import json

    from torchrig.cli import main

    assert main([*ARGS, "--vp-size", "10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["workload"]["vp_size"] == 10
    assert main([*ARGS, "--vp-size", "10"]) == 0
    out = capsys.readouterr().out
    assert "; 4 pipeline stages × 10 virtual stages per GPU (interleaved 1F1B);" in out
    assert main([*ARGS, "--vp-size", "10", "--lang", "zh"]) == 0
    assert "；4 个流水线阶段 × 每 GPU 10 个虚拟阶段（交错 1F1B）；" in capsys.readouterr().out
    assert main(ARGS) == 0
    assert "virtual stages" not in capsys.readouterr().out


def test_interleaved_notes_are_in_one_language_each():
    from tests.test_runtime_language import check

    req = plan(_pipeline(4, 10, 32, "llama-2-13b"), GPU)
    texts = {f"{section}.{key}": item.note
             for section, items in (("vram", req.vram_per_gpu), ("throughput", req.throughput))
             for key, item in items.items()}
    texts.update({f"assumption.{a.key}": a.text for a in req.assumptions})
    assert not check(texts, {"Test GPU"}), "\n".join(check(texts, {"Test GPU"}))
