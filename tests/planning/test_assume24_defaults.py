"""Issue 24, "no silent defaults", through the CLI.

Hand figures behind the expectations:

- The LoRA task's defaults (planning/workload.py): Alpaca, 52,002 examples of 8,192 bytes
  (2,048 int32 tokens), 3 epochs, one micro-batch per optimizer step. Serving: the KV cache
  in the model's 16-bit type (vLLM's ``--kv-cache-dtype auto``), no output length.
- Llama-2-70B's 68,976,648,192 parameters in bf16 are 137.95 GB = 128.5 GiB of weights: more
  than one 80 GiB H100, so serving it needs tensor parallelism; half of them (64.2 GiB) plus
  the 4,096-token KV cache share, 1 GiB of CUDA overhead and the 10% margin is under 80 GiB,
  so 2 GPUs. On 24 GiB RTX 4090s Llama-3-70B's 131.4 GiB need 131.4 / 24 > 5, so 8 (TP groups
  are 1, 2, 4, 8). DeepSeek-V3's 671B parameters (1,250 GiB in bf16) do not fit even
  8 x 80 GiB = 640 GiB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_cli import plan_json as _json
from plan_cli import plan_text as _text

CONFIGS = Path(__file__).parent / "hf_configs"




def _assumed(data: dict) -> dict:
    return {a["option"]: a["value"] for a in data["assumed_settings"]}


# --- 1. every default that changes a figure is an assumption --------------------------------


def test_the_run_length_and_the_data_are_assumptions_when_not_given(capsys):
    values = _assumed(_json(capsys, "--task", "llm_finetune_lora"))
    assert values["--epochs"] == 3.0
    assert values["--dataset-samples"] == 52_002
    assert values["--sample-bytes"] == 8_192
    assert values["--grad-accumulation"] == 1
    assert values["--model"] == "llama-2-7b"
    line = next(x for x in _text(capsys, "--task", "llm_finetune_lora").splitlines()
                if x.startswith("Assumed (the task's defaults"))
    assert "3 epochs" in line
    assert "52,002 samples per epoch (Alpaca's instruction examples)" in line
    assert "8,192 B per sample on disk" in line
    assert "1 micro-batch per optimizer step (gradient accumulation)" in line
    assert "--epochs --dataset-samples --sample-bytes" in line
    zh = _text(capsys, "--task", "llm_finetune_lora", "--lang", "zh")
    assert "3 个 epoch" in zh and "每 epoch 52,002 个样本（Alpaca 指令数据）" in zh


def test_given_ones_are_not_and_serving_assumes_its_kv_cache_type(capsys):
    values = _assumed(_json(capsys, "--task", "llm_finetune_lora", "--epochs", "1",
                            "--dataset-samples", "1000", "--grad-accumulation", "4"))
    assert not {"--epochs", "--dataset-samples", "--grad-accumulation"} & set(values)
    assert values["--sample-bytes"] == 8_192  # still the task's
    serving = _json(capsys, "--task", "llm_inference")
    values = _assumed(serving)
    assert values["--kv-dtype"] == "auto" and values["--output-tokens"] is None
    # Serving reads no dataset and trains for no epochs: nothing to assume about them.
    assert not {"--epochs", "--dataset-samples", "--grad-accumulation"} & set(values)
    text = {a["option"]: a["text"] for a in serving["assumed_settings"]}["--kv-dtype"]
    assert text == {"en": "KV cache in the model's activation type (2 B an element)",
                    "zh": "KV 缓存用模型的激活类型（每元素 2 字节）"}
    given = _assumed(_json(capsys, "--task", "llm_inference", "--kv-dtype", "fp8"))
    assert "--kv-dtype" not in given


def test_an_imported_config_is_the_users_model(capsys):
    values = _assumed(_json(capsys, "--hf-config", str(CONFIGS / "gpt2"), "--task",
                            "llm_finetune_lora"))
    assert "--model" not in values


# --- 2. serving a big imported model: tensor parallelism sized to it ------------------------


def _layout(data: dict) -> tuple[int, str, int]:
    w = data["workload"]
    return w["gpus_per_node"], w["strategy"], w["tp_size"]


@pytest.mark.parametrize(("config", "gpu", "layout"), [
    ("llama-2-70b", None, (2, "tensor_parallel", 2)),                  # 80 GiB H100 (assumed)
    ("llama-3-70b", "nvidia-rtx-4090", (8, "tensor_parallel", 8)),     # 24 GiB cards
])
def test_an_imported_70b_model_is_served_on_enough_gpus(capsys, config, gpu, layout):
    argv = ["--hf-config", str(CONFIGS / config), "--task", "llm_inference",
            *(["--gpu", gpu] if gpu else [])]
    data = _json(capsys, *argv)
    assert _layout(data) == layout
    assert data["sized_to_model"]["fields"] == ["gpus_per_node", "strategy", "tp_size"]
    sized = [a["option"] for a in data["assumed_settings"] if a["basis"] == "sized"]
    assert sized == ["--gpus", "--strategy", "--tp-size"]
    assert data["fits_in_vram"] is (True if gpu else None)
    line = next(x for x in _text(capsys, *argv).splitlines() if "sized to the model" in x)
    assert f"need {layout[0]} x" in line and "with tensor parallelism" in line
    assert f"{layout[0]} GPUs per node" in line and f"tensor-parallel size {layout[0]}" in line


def test_given_gpus_are_kept_and_a_model_too_big_for_eight_says_so(capsys):
    data = _json(capsys, "--hf-config", str(CONFIGS / "llama-2-70b"), "--task",
                 "llm_inference", "--gpus", "4")
    assert _layout(data) == (4, "tensor_parallel", 2)  # two replicas of the fewest that fit
    data = _json(capsys, "--hf-config", str(CONFIGS / "deepseek-v3"), "--task",
                 "llm_inference")
    assert _layout(data) == (1, "ddp", 1)
    assert data["sized_to_model"]["text"]["en"] == (
        "671.03B parameters do not fit 8 x H100 SXM5 80GB (80 GiB) with tensor parallelism: "
        "the task's defaults kept, though they do not fit either")


def test_the_reference_gpu_memory_held_without_the_catalog_is_the_catalogs():
    from torchrig.catalog import load_catalog
    from torchrig.planning.sized_defaults import REFERENCE_GPU, REFERENCE_VRAM_BYTES

    assert load_catalog().get(REFERENCE_GPU).gpu.vram_bytes == REFERENCE_VRAM_BYTES == 80 * 2**30


# --- 3. the size rule's reason agrees with the settings it names ----------------------------


def test_kept_defaults_are_not_called_multi_gpu_when_they_are_one_gpu(capsys):
    text = _text(capsys, "--hf-config", str(CONFIGS / "llama-2-70b"), "--task",
                 "llm_finetune_lora")
    line = next(x for x in text.splitlines() if x.startswith("Assumed (not given)"))
    assert "multi-GPU" not in line
    assert ("the task's defaults kept, though they do not fit either: 1 GPU per node, "
            "data parallel (DDP), gradient checkpointing on") in line
    zh = _text(capsys, "--hf-config", str(CONFIGS / "llama-2-70b"), "--task",
               "llm_finetune_lora", "--lang", "zh")
    line = next(x for x in zh.splitlines() if x.startswith("假设（未指定）"))
    assert "保留任务默认值，但同样放不下：每节点 1 个 GPU" in line and "多 GPU" not in line
    # Eight GPUs kept (a 7B full fine-tune): they fit, and the text does not say otherwise.
    text = _text(capsys, "--hf-config", str(CONFIGS / "llama-2-7b"), "--task",
                 "llm_finetune_full")
    assert "the task's defaults kept: 8 GPUs per node, ZeRO-3 / FSDP" in text
