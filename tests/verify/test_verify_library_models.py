"""verify on the libraries' own models, at tiny sizes: the saved-for-backward bytes it counts
for GPT-2, BERT and Llama configs built by transformers (and a torchvision model, where
torchvision imports beside this torch) equal an independent count made here - a walk over the
autograd graph summing every tensor a node keeps (``grad_fn._saved_*`` saved variables), each
storage once, parameters and buffers left out."""

from __future__ import annotations

import sys
import threading

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from saved_walk import independent_saved_bytes, wrapped_numbers  # noqa: E402

from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402 - after the torch check
from torchrig.verify.probe import Size, run_probe  # noqa: E402
from torchrig.verify.sources import ModelSource, transformers_source  # noqa: E402

pytestmark = pytest.mark.slow  # builds and runs torch models

NO_DROPOUT = {"gpt2": dict(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0),
              "bert": dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
              "llama": dict(attention_dropout=0.0)}
CONFIGS = {
    "gpt2": dict(architectures=["GPT2LMHeadModel"], model_type="gpt2", n_embd=64, n_head=4,
                 n_layer=2, n_positions=64, vocab_size=128, activation_function="gelu_new"),
    "bert": dict(architectures=["BertForSequenceClassification"], model_type="bert",
                 hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
                 intermediate_size=128, vocab_size=128, max_position_embeddings=64,
                 num_labels=2),
    "llama": dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=64,
                  num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
                  intermediate_size=160, vocab_size=128, max_position_embeddings=64),
}


def workload(kind: str):
    task = "nlp_transformer"
    return workload_from_options(task=task, mode="train", model="custom", style=kind
                                 if kind != "gpt2" else "gpt", layers=2, hidden=64, heads=4,
                                 vocab=128, seq_len=32, batch=2, precision="fp32",
                                 optimizer="adamw", attention="sdpa", checkpointing=False)


@pytest.mark.parametrize("kind", ["gpt2", "bert", "llama"])
def test_saved_bytes_of_a_transformers_model_equal_the_graph_walk(kind):
    config = {**CONFIGS[kind], **NO_DROPOUT[kind]}
    source = transformers_source(config, f"{kind} config")
    w = workload(kind)
    mp, spec = v.library_plan(source, w, "cpu")
    assert mp.layers == 2 and mp.seq_axis
    measured = run_probe(spec, Size(2, 2, 32), "cpu", 3, threading.Event())

    # Independently: the class the config names, built here, fed the same ids and labels.
    torch.manual_seed(0)
    cfg = transformers.AutoConfig.for_model(config["model_type"], **{
        k: val for k, val in config.items() if k != "model_type"})
    cfg.use_cache = False
    model = getattr(transformers, config["architectures"][0])._from_config(
        cfg, attn_implementation="sdpa").train()
    ids = torch.randint(0, 128, (2, 32), generator=torch.Generator().manual_seed(0))
    labels = ids if kind != "bert" else torch.randint(
        0, 2, (2,), generator=torch.Generator().manual_seed(0))
    loss = model(input_ids=ids, labels=labels).loss
    expected = independent_saved_bytes(loss, model)
    assert expected > 0
    assert measured.saved_bytes == expected
    assert sum(wrapped_numbers) <= 64  # the few 8-byte numbers left out: no purchase changes
    assert measured.activations == expected  # on the CPU: the saved bytes
    # Weights: the tensors themselves (parameters and buffers).
    weights = sum(t.numel() * t.element_size() for t in [*model.parameters(),
                                                          *model.buffers()])
    assert measured.weights == weights


def test_use_cache_is_off_in_training_and_layers_shrink_with_the_config():
    source = transformers_source({**CONFIGS["llama"], "num_hidden_layers": 6,
                                  "use_cache": True}, "cfg")
    _mp, spec = v.library_plan(source, workload("llama"), "cpu")
    model = spec.build(3)
    assert model.config.num_hidden_layers == 3 and len(model.model.layers) == 3
    assert model.config.use_cache is False
    assert model.config._attn_implementation == "sdpa"


def _torchvision():
    from torchrig.verify.library_models import torchvision_without_ops

    try:
        torchvision_without_ops()  # as verify imports it (without its compiled ops if need be)
        import torchvision
    except Exception as exc:
        pytest.skip(f"torchvision does not import beside torch {torch.__version__}: {exc}")
    return torchvision


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v3_small"])
def test_saved_bytes_of_a_torchvision_model_equal_the_graph_walk(name):
    torchvision = _torchvision()
    w = workload_from_options(task="image_classification", model="resnet18", image_size=32,
                              batch=2, precision="fp32", optimizer="sgd")
    _mp, spec = v.library_plan(ModelSource("torchvision", name=name), w, "cpu")
    measured = run_probe(spec, Size(None, 2), "cpu", 3, threading.Event())
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None).train()
    # verify counts what CUDA keeps: ATen's dropout runs the fused native_dropout on CUDA,
    # which saves a 1-byte bool mask, where the CPU path run here saves a 4-byte float noise
    # tensor (aten/src/ATen/native/Dropout.cpp) - 3 bytes less per element on a GPU.
    dropped: list[int] = []
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout) and module.p > 0:
            module.register_forward_pre_hook(lambda _m, args: dropped.append(args[0].numel()))
    x = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(0))
    out = model(x)
    targets = torch.randint(0, out.shape[-1], (2,), generator=torch.Generator().manual_seed(0))
    loss = torch.nn.functional.cross_entropy(out, targets)
    assert (name == "mobilenet_v3_small") == bool(dropped)  # its classifier's Dropout(0.2)
    cuda_masks = sum(dropped) * (4 - 1)
    assert measured.saved_bytes == independent_saved_bytes(loss, model) - cuda_masks


def test_torchvision_that_cannot_be_used_is_named_and_the_reference_model_stands_in(
        monkeypatch):
    from torchrig.verify.library_models import LibraryMissing, import_library

    monkeypatch.setitem(sys.modules, "torchvision", None)  # "import torchvision" fails here
    with pytest.raises(LibraryMissing) as missing:
        import_library("torchvision")
    assert missing.value.msg.en.startswith("torchvision is not installed")
    w = workload_from_options(task="image_classification", model="resnet18",
                              image_size=32, batch=2, precision="fp32", optimizer="sgd")
    used, mp, _spec = v.choose_model(ModelSource("torchvision", name="resnet18"), w, "cpu")
    assert used.kind == "reference" and used.fallback == missing.value.msg
    assert "not the library you train" in mp.description.en
    assert missing.value.msg.en in mp.description.en
    # No reference model of convnext: refused with the reason, nothing guessed.
    with pytest.raises(v.VerifyError, match="torchvision"):
        v.choose_model(ModelSource("torchvision", name="convnext_tiny"),
                       workload_from_options(task="image_classification", model="custom",
                                             params=28_000_000, image_size=32, batch=2),
                       "cpu")


@pytest.mark.parametrize("dropout, kind, reducible", [
    (0.1, "cpu", False),  # CPU SDPA with dropout keeps the tokens x tokens probabilities
    (0.1, "cuda", True),  # CUDA's fused kernels drop out inside: linear in the tokens
    (0.0, "cpu", True),
])
def test_sequences_are_shortened_only_where_memory_is_linear_in_tokens(dropout, kind,
                                                                       reducible):
    source = transformers_source({**CONFIGS["gpt2"], "attn_pdrop": dropout}, "cfg")
    mp, _spec = v.library_plan(source, workload("gpt2"), kind)
    assert mp.seq_reducible is reducible


def test_cpu_sdpa_with_attention_dropout_saves_the_probabilities():
    # Why the rule above: the graph keeps seq x seq per head once attention dropout is on.
    config = {**CONFIGS["gpt2"], "resid_pdrop": 0.0, "embd_pdrop": 0.0}
    counts = {}
    for p in (0.0, 0.1):
        cfg = transformers.AutoConfig.for_model("gpt2", **{
            k: val for k, val in {**config, "attn_pdrop": p}.items() if k != "model_type"})
        cfg.use_cache = False
        model = transformers.GPT2LMHeadModel._from_config(
            cfg, attn_implementation="sdpa").train()
        ids = torch.randint(0, 128, (1, 64), generator=torch.Generator().manual_seed(0))
        counts[p] = independent_saved_bytes(model(input_ids=ids, labels=ids).loss, model)
    # at least the fp32 probabilities: 2 layers x 4 heads x 64 x 64 x 4 bytes
    assert counts[0.1] - counts[0.0] >= 2 * 4 * 64 * 64 * 4


@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_checkpointing_under_emulated_autocast_recomputes_what_it_saved(kind):
    # The shipped llama2-7b-lora workload (AMP, checkpointing) failed on transformers with
    # "CheckpointError: Recomputed values ... have different metadata": the recomputation runs
    # inside backward, outside the emulated casts, and came out in fp32 where the forward had
    # bf16. With checkpointing each layer keeps its input instead of its activations.
    source = transformers_source({**CONFIGS[kind], **NO_DROPOUT[kind]}, f"{kind} config")
    saved = {}
    for ckpt in (True, False):
        w = workload_from_options(task="nlp_transformer", mode="train", model="custom",
                                  style="gpt" if kind == "gpt2" else kind, layers=2, hidden=64,
                                  heads=4, vocab=128, seq_len=32, batch=2,
                                  precision="amp_bf16", optimizer="adamw", attention="sdpa",
                                  checkpointing=ckpt)
        _mp, spec = v.library_plan(source, w, "cpu")
        saved[ckpt] = run_probe(spec, Size(2, 2, 32), "cpu", 3, threading.Event()).saved_bytes
    assert 0 < saved[True] < saved[False]
