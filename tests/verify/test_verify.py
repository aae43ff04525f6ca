"""torchrig verify: sizes and extrapolation (pure), real tiny runs on the CPU against the plan,
the CUDA path with a fake allocator, out-of-memory retry, cancel, refusals and feedback."""

from __future__ import annotations

import threading

import pytest

from torchrig.errors import InputError
from torchrig.planning.requirements import plan
from torchrig.planning.workload import Workload, workload_from_options

torch = pytest.importorskip("torch")

from torchrig.bench.base import Cancelled  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402 - after the torch check
from torchrig.verify.probe import (  # noqa: E402
    CudaMemory,
    ProbeResult,
    Size,
    precision_plan,
    run_probe,
)
from torchrig.verify.written_workload import feedback_workload  # noqa: E402

pytestmark = pytest.mark.slow  # builds and runs torch models


def tiny_llama(**extra) -> Workload:
    options = dict(task="llm_finetune_full", mode="finetune", model="custom", style="llama",
                   layers=2, hidden=64, heads=4, kv_heads=2, ffn=160, vocab=256, seq_len=32,
                   batch=2, precision="amp_bf16", optimizer="adamw", strategy="ddp", gpus=1,
                   checkpointing=False)
    options.update(extra)
    return workload_from_options(**options)


def cpu_runtime(free: int = 64 * 2**30) -> v.Runtime:
    return v.Runtime("cpu", "cpu", "test CPU", None, free)


def result_of(w: Workload, **kw):
    return v.verify(w, "cpu", runtime=kw.pop("runtime", cpu_runtime()), **kw)


# --- sizes and extrapolation --------------------------------------------------------------


def probe(layers, batch, seq=None, **values) -> ProbeResult:
    base = dict(weights=0.0, gradients=0.0, optimizer_states=0.0, activations=0.0,
                step_peak=None, reserved_peak=None, outside_allocator=None, step_s=1.0,
                forward_flops=1.0, saved_bytes=0.0)
    base.update(values)
    return ProbeResult(size=Size(layers, batch, seq), **base)


def test_extrapolation_is_exact_for_bilinear_memory():
    def acts(layers, batch):  # per-step part + per layer + per sample + per layer-sample
        return 100 + 10 * layers + 7 * batch + 3 * layers * batch

    probes = [probe(lay, b, activations=float(acts(lay, b)), weights=50.0 * lay + 20,
                    forward_flops=float(lay * b), step_s=2.0)
              for lay in (1, 2) for b in (2, 4)]
    m = v.extrapolate(probes, Size(12, 32))
    assert m.activations == pytest.approx(acts(12, 32))
    assert m.weights == pytest.approx(50 * 12 + 20)
    # time: every run took 2 s whatever its FLOPs - all fixed cost, so 2 s at the target
    # too; 48x beyond the largest run it is an estimate, the range reaching up to the largest
    # run's seconds per FLOP times the target's FLOPs (2 s / 8 x 384 = 96 s)
    assert m.step_s == pytest.approx(2.0)
    assert m.time_factor == pytest.approx(12 * 32 / (2 * 4))
    assert (m.step_s_low, m.step_s_high) == (pytest.approx(2.0), pytest.approx(96.0))


def test_extrapolation_along_tokens_when_sequences_were_shortened():
    probes = [probe(1, 1, s, activations=5.0 * s + 9) for s in (16, 32)]
    m = v.extrapolate(probes, Size(1, 4, 128))
    assert m.activations == pytest.approx(5 * 4 * 128 + 9)


def test_ladder_reduces_layers_then_batch_then_sequence():
    steps = v.ladder(Size(12, 8, 512), seq_reducible=True)
    assert steps[0] == [Size(12, 8, 512)]
    assert steps[1] == [Size(3, 8, 512), Size(6, 8, 512)]
    batch_steps = [s for s in steps if {x.layers for x in s} == {1, 2}]
    assert batch_steps[0] == [Size(1, 2, 512), Size(1, 4, 512), Size(2, 2, 512),
                              Size(2, 4, 512)]
    assert batch_steps[-1][0].seq < 512 and batch_steps[-1][0].batch == 1
    assert all(s.seq == 512 for s in v.ladder(Size(12, 8, 512), seq_reducible=False)[-1])


def test_choose_sizes_falls_back_to_the_smallest_set_when_only_memory_fits():
    steps = v.ladder(Size(None, 64), seq_reducible=False)
    chosen = v.choose_sizes(steps, lambda grid: True, lambda grid: False)
    assert chosen == [Size(None, 1), Size(None, 2)]
    assert v.choose_sizes(steps, lambda grid: False, lambda grid: True) is None
    assert v.choose_sizes(steps, lambda g: max(s.batch for s in g) <= 16,
                          lambda g: True) == [Size(None, 8), Size(None, 16)]


def test_reduction_note_says_what_was_reduced():
    note = v.reduction_note(Size(12, 32, 128), [Size(1, 1, 32), Size(2, 1, 64)])
    assert "1 and 2 of 12 layers" in note.en and "per token" in note.en
    assert "12" in note.zh and v.reduction_note(Size(1, 2), [Size(1, 2)]) is None


# --- real runs on the CPU -------------------------------------------------------------------


def test_tiny_llama_model_states_match_the_plan_exactly_and_activations_closely():
    r = result_of(tiny_llama())
    assert r.sizes == [(2, 2, 32)] and r.reduction is None
    for key in ("weights", "gradients", "optimizer_states"):
        assert r.row(key).diff_percent == pytest.approx(0.0, abs=0.01), key
    assert abs(r.row("activations").diff_percent) < 2.0
    assert r.row("overhead").measured is None  # no CUDA context on a CPU
    assert r.row("samples_per_s").measured > 0
    assert r.feedback is None
    doc = r.to_dict()
    assert doc["format"] == "torchrig.verify" and doc["rows"][0]["key"] == "weights"


def test_a_reduced_copy_extrapolates_to_the_plan(monkeypatch):
    monkeypatch.setattr(v, "CPU_TIME_BUDGET_S", 0.0)  # force the smallest set
    w = tiny_llama(layers=6, batch=4)
    r = result_of(w)
    assert r.reduction is not None and len(r.sizes) == 4
    for key in ("weights", "gradients", "optimizer_states"):
        assert r.row(key).diff_percent == pytest.approx(0.0, abs=0.5), key
    assert abs(r.row("activations").diff_percent) < 3.0


def test_bert_and_gpt_styles_in_fp32_and_bf16():
    for style, precision, mode in (("bert", "fp32", "finetune"), ("gpt", "bf16", "train")):
        w = workload_from_options(task="nlp_transformer", mode=mode, model="custom",
                                  style=style, layers=2, hidden=64, heads=4, vocab=200, ffn=128,
                                  seq_len=16, batch=2, precision=precision, optimizer="adamw")
        r = result_of(w)
        assert abs(r.row("weights").diff_percent) < 1.0, style
        assert abs(r.row("activations").diff_percent) < 3.0, style


def test_a_custom_resnet_the_planner_cannot_size_gets_its_figures_fed_back():
    w = workload_from_options(task="image_classification", model="custom", params=11_689_512,
                              layers=18, image_size=64, batch=2, precision="fp32",
                              optimizer="sgd_momentum")
    assert plan(w).vram_per_gpu["activations"].value is None
    r = result_of(w)
    assert r.row("weights").diff_percent == pytest.approx(0.0, abs=0.1)  # ResNet-18's count
    fb = r.feedback
    assert fb["activation_bytes_per_sample"] > 0 and fb["forward_flops_per_sample"] > 0
    assert "torchrig verify" in fb["figures_source"]
    updated = feedback_workload(r)
    again = plan(updated)
    assert again.vram_per_gpu["activations"].value == pytest.approx(
        fb["activation_bytes_per_sample"] * 2)
    assert again.throughput["flops_per_sample"].value is not None
    assert Workload.from_dict(updated.to_dict()) == updated  # the one validator accepts it


def test_checkpointing_keeps_less_than_without():
    plain = result_of(tiny_llama(precision="fp32", layers=4))
    ckpt = result_of(tiny_llama(precision="fp32", layers=4, checkpointing=True))
    assert ckpt.measured.activations < 0.7 * plain.measured.activations


def test_multi_gpu_layouts_are_measured_as_one_gpu():
    r = result_of(tiny_llama(gpus=8, strategy="zero3", precision="amp_bf16"))
    assert r.verified.total_gpus == 1 and r.verified.strategy == "ddp"
    assert any("one GPU" in n.en for n in r.notes)


def test_an_interleaved_pipeline_is_measured_as_one_gpu_of_plain_1f1b_stages():
    # 2 stages x 2 chunks of the 2 layers (one layer a chunk), 4 micro-batches a step: valid
    # as planned; one process measures one GPU, with no pipeline and so no virtual stages.
    w = tiny_llama(gpus=2, strategy="pipeline_parallel", pp_size=2, vp_size=2,
                   grad_accumulation=4, layers=4)
    assert w.vp_size == 2
    r = result_of(w)
    assert (r.verified.pp_size, r.verified.vp_size, r.verified.total_gpus) == (1, 1, 1)
    assert any("one GPU" in n.en for n in r.notes)


@pytest.mark.parametrize("options,words", [
    # QLoRA / 4-bit weights on a CPU: bitsandbytes runs on CUDA only - said, not guessed
    (dict(precision="int4", task="llm_inference", mode="infer"),
     "needs bitsandbytes, which runs on CUDA GPUs"),
    # LoRA runs through peft on a real model (--hf-config / --model-factory), not the
    # reference copy
    (dict(task="llm_finetune_lora", lora_rank=8), "LoRA is measured with peft"),
    (dict(optimizer="adam_8bit"), "bitsandbytes"),
])
def test_refusals_are_bad_input_with_a_reason(options, words):
    with pytest.raises(v.VerifyError, match=words) as err:
        result_of(tiny_llama(**options))
    assert isinstance(err.value, InputError) and err.value.msg.zh


def test_int4_on_a_gpu_is_refused_as_needing_a_quantization_library():
    gpu = v.Runtime("cuda:0", "cuda", "Fake GPU", None, 2**34)  # refused before any run
    with pytest.raises(v.VerifyError, match="quantization library"):
        result_of(tiny_llama(precision="int4", task="llm_inference", mode="infer"),
                  runtime=gpu)


def test_a_custom_model_without_an_architecture_is_refused():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=32, batch=2)
    with pytest.raises(v.VerifyError, match="cannot build"):
        result_of(w)


def test_too_little_free_memory_is_refused_before_running():
    with pytest.raises(v.VerifyError, match="smallest copy"):
        result_of(tiny_llama(), runtime=cpu_runtime(free=1000))


def test_out_of_memory_is_reported_and_retried_smaller_once(monkeypatch):
    import torchrig.verify.probe as vp  # verify imports run_probe at call time

    original = vp.run_probe
    failed = []

    def flaky(spec, size, device, steps, cancel, memory=None):
        if size.batch == 2 and size.layers == 2 and not failed:
            failed.append(size)
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(spec, size, device, steps, cancel, memory)

    monkeypatch.setattr(vp, "run_probe", flaky)
    r = result_of(tiny_llama())
    assert failed and r.reduction is not None
    assert any("out of memory" in n.en for n in r.notes)


def test_cancel_stops_the_run():
    cancel = threading.Event()

    def progress(p):
        if p.done >= 1:
            cancel.set()

    with pytest.raises(Cancelled):
        result_of(tiny_llama(layers=4), cancel=cancel, progress=progress)


def test_steps_out_of_range_is_bad_input():
    with pytest.raises(InputError, match="steps"):
        result_of(tiny_llama(), steps=2)


# --- the CUDA path, with a fake allocator ---------------------------------------------------


class FakeCuda:
    """Stands in for torch.cuda: allocator statistics that grow with each phase, and a log of
    the calls (resets between phases, the cache emptied at the end)."""

    def __init__(self):
        self.calls: list[str] = []
        self.allocated = 1000
        self.peak = 1000

    def synchronize(self, device):
        self.calls.append("sync")

    def reset_peak_memory_stats(self, device):
        self.calls.append("reset")
        self.peak = self.allocated

    def memory_allocated(self, device):
        self.allocated += 100  # every read sees the next phase's tensors
        self.peak = max(self.peak, self.allocated + 50)
        return self.allocated

    def max_memory_allocated(self, device):
        return self.peak

    def max_memory_reserved(self, device):
        return self.peak + 300

    def memory_reserved(self, device):
        return self.peak + 300

    def mem_get_info(self, device):
        return (10_000_000, 10_002_000 + self.peak + 300)

    def empty_cache(self):
        self.calls.append("empty_cache")


def test_cuda_path_reads_phases_resets_between_them_and_empties_the_cache():
    fake = FakeCuda()
    w = tiny_llama(precision="fp32")
    spec = v.probe_spec(w, "cpu")
    result = run_probe(spec, Size(2, 2, 32), "cpu", 3, threading.Event(),
                       CudaMemory("cuda:0", fake))
    assert [p.name for p in result.phases] == ["forward", "backward", "optimizer"]
    assert fake.calls.count("reset") >= 3
    assert fake.calls[-1] == "empty_cache"
    assert result.activations == 100  # allocated after forward - before it
    assert result.step_peak == max(p.peak_allocated for p in result.phases)
    assert result.reserved_peak == result.step_peak + 300
    assert result.outside_allocator == 2000


def test_cuda_rows_use_the_allocator_figures():
    fake = FakeCuda()
    rt = v.Runtime("cpu", "cuda", "Fake GPU", CudaMemory("cuda:0", fake), 64 * 2**30)
    r = v.verify(tiny_llama(precision="fp32"), "cpu", runtime=rt)
    total = r.row("total")
    assert total.measured == pytest.approx(r.measured.reserved_peak + 2000)
    assert r.row("overhead").measured == 2000
    assert r.row("fragmentation").measured == pytest.approx(
        r.measured.reserved_peak - r.measured.step_peak)
    assert r.to_dict()["phases"][0]["phase"] == "forward"


def test_precision_plans():
    amp16 = precision_plan("amp_fp16", "cuda")
    assert amp16.autocast == torch.float16 and amp16.scaler and not amp16.emulate
    assert precision_plan("amp_bf16", "cuda").scaler is False
    assert precision_plan("amp_fp16", "cpu").emulate
    assert precision_plan("fp32", "cpu").emulate  # 1-byte dropout masks, as on CUDA
    assert precision_plan("fp32", "cpu").autocast is None
    assert precision_plan("bf16", "cuda").model_dtype == torch.bfloat16
    assert precision_plan("tf32", "cuda").tf32


def test_fast_emulation_keeps_exactly_what_cuda_autocast_keeps():
    from torchrig.verify import reference_models as vm
    from torchrig.verify.cuda_emulation import CudaEmulation, FastCudaEmulation

    torch.manual_seed(0)
    model = vm.TransformerModel("gpt", vm.Shape(2, 64, 4, 4, 128, 100, 32), "sdpa", "lm")
    ids = torch.randint(0, 100, (2, 16))
    exact = vm.SavedTensorCounter(model)
    with exact.counting(), CudaEmulation(torch.bfloat16):
        model(ids)
    fast = vm.SavedTensorCounter(model)
    with fast.counting(), FastCudaEmulation(torch.bfloat16, fast.count):
        loss = model(ids)
    loss.backward()
    assert fast.result.total == exact.result.total
    assert all(p.grad is not None for p in model.parameters())


def test_a_cancelled_probe_frees_the_model_before_emptying_the_cache():
    import weakref

    fake = FakeCuda()
    spec = v.probe_spec(tiny_llama(precision="fp32"), "cpu")
    built = []
    build = spec.build

    def tracked(layers):
        model = build(layers)
        built.append(weakref.ref(model))
        return model

    spec.build = tracked
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_probe(spec, Size(2, 2, 32), "cpu", 3, cancel, CudaMemory("cuda:0", fake))
    assert built and built[0]() is None  # nothing holds the model any more
    assert fake.calls[-1] == "empty_cache"
