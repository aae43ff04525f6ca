"""fp8 and fp4 serving (issue 24): the weights by hand, the refusal on a GPU whose tensor cores
lack the format, the KV cache's element type, the serving-only fields and the catalog's dense
fp8/fp4 peaks (docs/estimation.md sec. 8.1, 8.6).

Llama-3-8B (its Hugging Face config): 8,030,261,248 parameters; the 32 blocks' linear layers
hold 32 x (4096 x (4096 + 2 x 1024) + 4096^2 + 3 x 4096 x 14336) = 6,979,321,856 of them, the
rest (embeddings, LM head, norms) 1,050,939,392.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.catalog.loader import load_catalog
from torchrig.errors import InputError
from torchrig.planning.device import DeviceSpec, device_spec, missing_tensor_format
from torchrig.planning.requirements import plan
from torchrig.planning.workload import Workload, default_workload
from torchrig.units import GiB

P8 = 8_030_261_248
LINEAR8 = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336)
REST8 = P8 - LINEAR8
KV8_16BIT = 2 * 32 * 8 * 128 * 2  # 131,072 B per token (vLLM paper sec. 3)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _w(**changes) -> Workload:
    return dataclasses.replace(default_workload("llm_inference"), **changes).validate()


def test_the_linear_layers_and_the_rest_by_hand():
    assert LINEAR8 == 6_979_321_856 and REST8 == 1_050_939_392


def test_fp8_weights_one_byte_for_the_linear_layers(catalog):
    req = plan(_w(precision="fp8"), device_spec(catalog.get("nvidia-h100-sxm")))
    weights = req.vram_per_gpu["weights"]
    assert weights.value == LINEAR8 * 1 + REST8 * 2 == 9_081_200_640
    assert weights.note.en.startswith("1.0000 B/param for the transformer's linear layers (fp8)")


def test_fp4_weights_half_a_byte_and_one_fp8_scale_per_16_values(catalog):
    # NVFP4: 4-bit values, one E4M3 (1 B) scale per block of 16 -> 0.5 + 1/16 = 0.5625 B
    req = plan(_w(precision="fp4"), device_spec(catalog.get("nvidia-b200-sxm")))
    weights = req.vram_per_gpu["weights"]
    assert weights.value == LINEAR8 * 9 / 16 + REST8 * 2 == 6_027_747_328
    assert "one fp8 scale per 16 values" in weights.note.en
    assert "每 16 个值一个 fp8 缩放" in weights.note.zh


def test_fp8_on_an_a100_is_refused_not_computed_at_the_16_bit_peak(catalog):
    a100 = device_spec(catalog.get("nvidia-a100-80gb-sxm"))
    why = missing_tensor_format(a100, "fp8")
    assert why is not None
    assert why.en == ("the A100 80GB SXM4 (Ampere) has no fp8 tensor cores: fp8 needs Ada "
                      "Lovelace, Hopper, Blackwell, CDNA 3")
    assert why.zh.startswith("A100 80GB SXM4（Ampere）没有 fp8 Tensor Core")
    t = plan(_w(precision="fp8", output_tokens=128), a100).throughput
    for key in ("prefill_time_s", "time_to_first_token_s", "time_per_output_token_s",
                "decode_tokens_per_s", "output_tokens_per_s", "max_output_tokens_per_s"):
        assert t[key].value is None, key
        assert t[key].note.en == why.en, key
    # memory is still planned: the refusal is about speed
    assert t["max_concurrent_sequences"].value is not None


def test_fp4_needs_blackwell_and_an_unknown_architecture_is_not_refused(catalog):
    h100 = device_spec(catalog.get("nvidia-h100-sxm"))
    assert missing_tensor_format(h100, "fp8") is None
    assert missing_tensor_format(h100, "fp4").en.endswith("fp4 needs Blackwell")
    assert missing_tensor_format(h100, "bf16") is None
    detected = DeviceSpec("GPU", 80 * GiB)  # no architecture: nothing to refuse on
    assert missing_tensor_format(detected, "fp4") is None


def test_an_fp8_capable_gpu_without_the_figure_is_unknown_not_refused():
    hopper = DeviceSpec("Hopper GPU", 80 * GiB, {"bf16": 989e12}, 3.35e12, True,
                        architecture="Hopper")
    t = plan(_w(precision="fp8"), hopper).throughput
    assert t["time_to_first_token_s"].value is None
    assert t["time_to_first_token_s"].note.en == "Hopper GPU: its dense fp8 peak is unknown"


def test_prefill_runs_at_the_fp8_peak(catalog):
    # H100 SXM: 1,979 TFLOP/s dense fp8 (3,958 with sparsity / 2) against 989.4 bf16
    h100 = device_spec(catalog.get("nvidia-h100-sxm"))
    assert h100.peak_for("fp8") == (1979e12, "fp8")
    n = LINEAR8 + 128256 * 4096  # matmul weights a token passes, the LM head included
    flops = (2 * n + 4 * 32 * 4096 * 2048) * 2048
    fp8 = plan(_w(precision="fp8", seq_len=2048), h100).throughput
    bf16 = plan(_w(seq_len=2048), h100).throughput
    assert fp8["time_to_first_token_s"].value == pytest.approx(flops / (1979e12 * 0.6), rel=1e-12)
    assert bf16["time_to_first_token_s"].value == pytest.approx(flops / (989.4e12 * 0.6),
                                                                rel=1e-12)


def test_an_fp8_kv_cache_is_half_a_16_bit_one():
    w16 = _w(seq_len=4096, batch_size=4, kv_cache_dtype="bf16")
    w8 = dataclasses.replace(w16, kv_cache_dtype="fp8")
    kv16 = plan(w16).vram_per_gpu["kv_cache"].value
    kv8 = plan(w8).vram_per_gpu["kv_cache"].value
    assert kv16 == KV8_16BIT * 4096 * 4 == 2 * GiB
    assert kv8 == 2 * 32 * 8 * 128 * 1 * 4096 * 4 == kv16 / 2


@pytest.mark.parametrize(("precision", "element"), [("bf16", 2), ("fp8", 2), ("int4", 2),
                                                     ("fp32", 4)])
def test_auto_is_the_model_activation_type(precision, element):
    # vLLM's --kv-cache-dtype auto: the model's data type; fp8 weights keep 16-bit activations
    kv = plan(_w(precision=precision, seq_len=1000)).vram_per_gpu["kv_cache"].value
    assert kv == 2 * 32 * 8 * 128 * element * 1000


def test_the_cache_holds_prompt_and_output_tokens():
    kv = plan(_w(seq_len=1000, output_tokens=500, kv_cache_dtype="fp16", batch_size=2)
              ).vram_per_gpu["kv_cache"]
    assert kv.value == KV8_16BIT * 1500 * 2
    assert "1,000 prompt + 500 generated tokens" in kv.note.en


def test_the_kv_budget_and_the_fit_follow_the_kv_dtype(catalog):
    h100 = device_spec(catalog.get("nvidia-h100-sxm"))
    w = _w(precision="fp8", seq_len=2048, output_tokens=128)
    for dtype, per_token in (("bf16", 131_072), ("fp8", 65_536)):
        t = plan(dataclasses.replace(w, kv_cache_dtype=dtype), h100).throughput
        budget = t["kv_cache_budget_bytes"].value
        assert t["max_concurrent_sequences"].value == budget // (per_token * 2176)


@pytest.mark.parametrize(("changes", "message"), [
    (dict(task="llm_finetune_lora", precision="fp8"),
     "field 'precision' fp8 LoRA fine-tuning is not modelled"),
    (dict(task="image_classification", mode="infer", precision="fp4"),
     r"field 'precision' fp4 \(NVFP4\) is modelled for task llm_inference only"),
    (dict(task="llm_finetune_lora", output_tokens=128),
     "field 'output_tokens' applies to task llm_inference only"),
    (dict(task="nlp_transformer", kv_cache_dtype="fp8"),
     "field 'kv_cache_dtype' applies to task llm_inference only"),
    (dict(task="llm_inference", kv_cache_dtype="int8"),
     "field 'kv_cache_dtype' must be one of auto, fp16, bf16, fp8; got 'int8'"),
])
def test_serving_fields_are_refused_elsewhere(changes, message):
    doc = {"format": "torchrig.workload", "version": 1, **changes}
    with pytest.raises(InputError, match=message):
        Workload.from_dict(doc)


def test_the_new_fields_round_trip_through_the_file():
    w = _w(precision="fp4", output_tokens=256, kv_cache_dtype="fp8")
    again = Workload.from_dict(w.to_dict())
    assert (again.precision, again.output_tokens, again.kv_cache_dtype) == ("fp4", 256, "fp8")
    assert Workload.from_dict({"format": "torchrig.workload", "version": 1,
                               "task": "llm_inference"}).kv_cache_dtype == "auto"


# Dense fp8 / fp4 tensor TFLOP/s with FP32 accumulate, as the sources give them
# (resources/catalog/sources.json; a sparse figure halved only where the source says sparse).
PUBLISHED = {
    "nvidia-h100-sxm": (1979, None),  # H100 datasheet: 3,958 "shown with sparsity"
    "nvidia-h100-pcie": (1513, None),  # 3,026 with sparsity
    "nvidia-h200-sxm": (1979, None),  # dense, as the cited page states
    "nvidia-l40s": (733, None),  # L40S datasheet: 733 dense, 1,466 sparse
    "nvidia-rtx-4090": (330.3, None),  # Ada whitepaper: FP8 with FP32 accumulate 330.3/660.6
    "nvidia-rtx-5090": (419, 1676),  # RTX Blackwell whitepaper: 419 and 1,676 dense
    "nvidia-b200-sxm": (4500, 9000),  # Blackwell datasheet: 9 / 18 PFLOPS with sparsity
}


@pytest.mark.parametrize("pid", sorted(PUBLISHED))
def test_catalog_dense_fp8_and_fp4_peaks(catalog, pid):
    g = catalog.get(pid).gpu
    fp8, fp4 = PUBLISHED[pid]
    assert g.fp8_tensor_flops == pytest.approx(fp8 * 1e12)
    assert g.fp4_tensor_flops == (None if fp4 is None else pytest.approx(fp4 * 1e12))


def test_derived_geforce_figures_follow_the_ai_tops_ratio(catalog):
    # Ada: AI TOPS (FP8 sparse, FP16 accumulate) / 4 = FP8 dense with FP32 accumulate; checked
    # on the RTX 4090: 1321 / 4 = 330.25 against the whitepaper's 330.3. Blackwell: AI TOPS
    # (FP4 sparse) / 8 for FP8 and / 2 for FP4; checked on the RTX 5090: 3352 / 8 = 419,
    # 3352 / 2 = 1676.
    assert pytest.approx(330.3, abs=0.06) == 1321 / 4
    assert (3352 / 8, 3352 / 2) == (419, 1676)
    assert catalog.get("nvidia-rtx-4080").gpu.fp8_tensor_flops == pytest.approx(780 / 4 * 1e12)
    g = catalog.get("nvidia-rtx-5080").gpu
    assert (g.fp8_tensor_flops, g.fp4_tensor_flops) == (pytest.approx(225.12e12),
                                                        pytest.approx(900.5e12))
    for pid in ("nvidia-rtx-4080", "nvidia-rtx-5080", "nvidia-h100-sxm", "nvidia-b200-sxm"):
        assert catalog.get(pid).is_derived("fp8_tensor_flops"), pid
    assert not catalog.get("nvidia-rtx-4090").is_derived("fp8_tensor_flops")


def test_gpus_without_fp8_tensor_cores_have_no_fp8_figure(catalog):
    for part in catalog.by_category("gpu"):
        g = part.gpu
        if g.architecture in ("Ampere", "Volta", "Turing"):
            assert g.fp8_tensor_flops is None and g.fp4_tensor_flops is None, part.id
        if g.architecture != "Blackwell":
            assert g.fp4_tensor_flops is None, part.id


def test_fp8_on_an_mi300x_runs_at_its_matrix_core_peak(catalog):
    # CDNA 3 Matrix Cores compute FP8: AMD ROCm's MI300 peak table, "Matrix FP8 | 4096 |
    # 2614.9" TFLOPS dense for the MI300X (docs/hardware-sources.md, "fp8 and fp4"). No fp4.
    mi300x = device_spec(catalog.get("amd-instinct-mi300x"))
    assert missing_tensor_format(mi300x, "fp8") is None
    assert mi300x.peak_for("fp8") == (2614.9e12, "fp8")
    assert missing_tensor_format(mi300x, "fp4").en.startswith(
        "the Instinct MI300X (OAM) (CDNA 3) has no fp4 tensor cores")
    t = plan(_w(precision="fp8", output_tokens=128), mi300x).throughput
    assert t["decode_tokens_per_s"].value is not None
