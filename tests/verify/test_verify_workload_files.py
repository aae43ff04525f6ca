"""No shipped workload crashes verify: every file in workloads/ runs at its smallest size
(``quick``) or is refused with a reason in both languages - never another exception. The
budget is a 512 MiB machine so the large models are refused by their planned size, not run."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from torchrig.planning.workload import load_workload  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402 - after the torch check

pytestmark = pytest.mark.slow  # runs torch models

WORKLOADS = sorted((Path(__file__).resolve().parents[2] / "workloads").glob("*.json"))


def test_there_are_workload_files():
    assert len(WORKLOADS) >= 10


@pytest.mark.parametrize("path", WORKLOADS, ids=[p.stem for p in WORKLOADS])
def test_every_workload_file_runs_at_its_smallest_size_or_is_refused(path):
    runtime = v.Runtime("cpu", "cpu", "test CPU", None, 2**29)
    try:
        result = v.verify(load_workload(path), "cpu", runtime=runtime, quick=True)
    except v.VerifyError as refused:
        assert refused.msg.en and refused.msg.zh and refused.msg.en != refused.msg.zh
        return
    assert result.measured.weights > 0 and result.row("weights").measured > 0
    if path.stem == "cifar10-resnet18":
        # Issue 23: the batch-1 pilot reached BatchNorm on a 1x1 map (32 px input) and
        # crashed; now every run has two samples or more, extrapolated to the planned batch.
        assert min(b for _l, b, _s in result.sizes) == 2
        assert result.measured.batch == result.verified.batch_size == 128
    # No model was named: the preset's own library model ran where one exists (issue 23),
    # else TorchRig's reference model, saying why.
    expected = LIBRARY_MODEL.get(path.stem)
    if expected is not None:
        assert result.source["label"] == expected and result.source["fallback"] is None
    else:
        assert result.source["kind"] == "reference" and result.source["fallback"] is not None
        assert "reference model" in result.model.en and "参考模型" in result.model.zh


LIBRARY_MODEL = {
    # The class each shipped file's preset is published as, written by hand from the files:
    # a fine-tuned BERT plans a sequence classifier, GPT-2 and Llama a causal LM.
    "bert-base-finetune-sst2": "transformers BertForSequenceClassification",
    "bert-large-pretrain-8gpu": "transformers BertForMaskedLM",
    "gpt2-train-8gpu": "transformers GPT2LMHeadModel",
    "cifar10-resnet18": "torchvision resnet18",
    "imagenet-resnet50-amp-8gpu": "torchvision resnet50",
    "vit-b16-finetune": "torchvision vit_b_16",
    "dit-xl2-train": "diffusers DiTTransformer2DModel",
    "sd15-finetune": "diffusers UNet2DConditionModel",
}
for _name in ("llama2-7b-full-zero3-8xa100", "llama2-7b-lora", "llama2-70b-inference-bf16-tp4",
              "llama3-8b-inference-int4", "llama2-7b-qlora-int4"):
    LIBRARY_MODEL[_name] = "transformers LlamaForCausalLM"

