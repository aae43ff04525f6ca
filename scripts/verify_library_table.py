"""The table docs/verify.md sec. 4 reports: ``torchrig verify`` on the libraries' own models -
three Hugging Face configs, two torchvision models, one factory model - measured (as verify
reports it, extrapolated where it ran a reduced copy) beside the plan and beside an
independent count made here at the full size: one forward pass of the same model, summing what
the autograd graph keeps (``grad_fn._saved_*`` saved variables, each storage once, parameters
and buffers excluded; the same CUDA dropout-mask emulation verify uses on a CPU), with the
wall time of each verify run. Random weights, nothing downloaded.

    PYTHONPATH=app python scripts/verify_library_table.py [--only NAME] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
import time
from pathlib import Path

GPT2 = dict(architectures=["GPT2LMHeadModel"], model_type="gpt2", n_embd=768, n_head=12,
            n_layer=12, n_positions=1024, vocab_size=50257, activation_function="gelu_new",
            resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1)  # gpt2's config.json, as shipped
BERT = dict(architectures=["BertForSequenceClassification"], model_type="bert",
            hidden_size=768, num_attention_heads=12, num_hidden_layers=12,
            intermediate_size=3072, vocab_size=30522, max_position_embeddings=512,
            hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, num_labels=2)
LLAMA = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=768,
             num_attention_heads=12, num_key_value_heads=4, num_hidden_layers=12,
             intermediate_size=2048, vocab_size=32000, max_position_embeddings=2048)
FACTORY = textwrap.dedent('''
    import torch
    from torch import nn

    def make_model():
        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                                 nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))
        return nn.Sequential(block(3, 32), block(32, 64), block(64, 128),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))
    ''')

CASES = {
    "gpt2-124m": ("hf", GPT2, dict(task="nlp_transformer", mode="train", batch=1, seq_len=1024)),
    "bert-base-cls": ("hf", BERT, dict(task="nlp_transformer", mode="finetune", batch=8,
                                       seq_len=128)),
    "llama-160m": ("hf", LLAMA, dict(task="nlp_transformer", mode="train", batch=1,
                                     seq_len=512)),
    "tv-resnet50": ("torchvision", "resnet50", dict(task="image_classification",
                                                    model="resnet50", batch=4, image_size=224)),
    "tv-convnext_tiny": ("torchvision", "convnext_tiny",
                         dict(task="image_classification", batch=4, image_size=224)),
    "factory-cnn": ("factory", FACTORY, dict(task="image_classification", batch=64,
                                             image_size=32)),
}


def independent_count(model, loss) -> int:
    import torch

    excluded = {t.untyped_storage().data_ptr() for t in [*model.parameters(),
                                                         *model.buffers()]}
    seen: set[int] = set()
    total = 0
    stack, visited = [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        values = [getattr(node, n) for n in dir(node) if n.startswith("_saved_")]
        if hasattr(node, "saved_tensors"):
            values += list(node.saved_tensors)
        for value in values:
            for t in (value if isinstance(value, (tuple, list)) else [value]):
                if not isinstance(t, torch.Tensor):
                    continue
                if t.dim() == 0 and t.dtype == torch.float64:
                    continue  # a Python number autograd keeps (8 bytes), not a tensor
                s = t.untyped_storage()
                if s.data_ptr() not in excluded and s.data_ptr() not in seen:
                    seen.add(s.data_ptr())
                    total += s.nbytes()
        stack.extend(fn for fn, _ in node.next_functions)
    return total


def run_case(name: str) -> dict:
    import torch

    from torchrig.planning.hf_config import hf_workload_fields, parse_hf_config
    from torchrig.planning.workload import workload_from_options
    from torchrig.verify import measure as v
    from torchrig.verify.cuda_emulation import CudaEmulation
    from torchrig.verify.library_models import LibraryMissing, library_model, loss_of
    from torchrig.verify.sources import ModelSource, parse_factory, transformers_source

    kind, what, options = CASES[name]
    options = dict(precision="fp32", optimizer="adamw", **options)
    tmp = Path(tempfile.mkdtemp())
    if kind == "hf":
        fields = hf_workload_fields(parse_hf_config(what), options["task"])
        w = workload_from_options(**{**fields, **options})
        source = transformers_source(what, name)
    elif kind == "torchvision":
        source = ModelSource("torchvision", name=what)
        # convnext_tiny: no preset, torchvision's published 28,589,128 parameters
        custom = {} if "model" in options else {"model": "custom", "params": 28_589_128}
        w = workload_from_options(**custom, **options)
    else:
        (tmp / "cnn.py").write_text(what)
        source = parse_factory(f"{tmp / 'cnn.py'}:make_model")
        # conv 3x32x9 + BN 64, conv 32x64x9 + BN 128, conv 64x128x9 + BN 256, linear 1290
        params = 864 + 64 + 18_432 + 128 + 73_728 + 256 + 1_290
        w = workload_from_options(model="custom", params=params, **options)
    row: dict = {"case": name, "source": source.label}
    started = time.perf_counter()
    try:
        r = v.verify(w, "cpu", source=source,
                     progress=lambda p: print(f"  {name}: {p.message.en}", file=sys.stderr))
    except v.VerifyError as exc:
        row.update(refused=exc.msg.en, wall_s=round(time.perf_counter() - started, 1))
        return row
    row.update(wall_s=round(r.wall_s, 1), ran=r.source["label"], sizes=r.sizes,
               reduction=None if r.reduction is None else r.reduction.en,
               measured_saved=r.measured.saved_bytes,
               planned_activations=r.row("activations").predicted,
               step_s=r.measured.step_s, step_range=(r.measured.step_s_low,
                                                     r.measured.step_s_high),
               time_factor=r.measured.time_factor, time_fit_error=r.measured.time_fit_error)
    # Independent count at the full size, on the model verify ran (library or reference).
    try:
        built = library_model(source, r.verified) if r.source["kind"] != "reference" else None
    except LibraryMissing:
        built = None
    if built is not None:
        torch.manual_seed(0)
        model = built.build(None).train()
        x, targets = built.batch(w.batch_size, w.seq_len)
        with CudaEmulation(None):
            out = model(**x) if isinstance(x, dict) else model(x)
            loss = loss_of(out, targets)
        row["independent_saved"] = independent_count(model, loss)
        del model, out, loss
        # The step time verify reports (fitted and extrapolated where it ran a reduced copy)
        # against a plain training loop of the full model: AdamW, forward, backward, step.
        row["full_step_s"] = plain_step_time(built, w)
        row["time_extrapolation_error"] = r.measured.step_s / row["full_step_s"] - 1
    return row


def plain_step_time(built, w, steps: int = 3) -> float:  # noqa: ANN001 - a LibraryModel
    """Median seconds of ``steps`` full-size training steps after one warm-up, in a plain
    loop that shares nothing with verify's timing (its fit, its runs, its sizes)."""
    import statistics

    import torch

    from torchrig.verify.library_models import loss_of

    torch.manual_seed(0)
    model = built.build(None).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x, targets = built.batch(w.batch_size, w.seq_len)
    times = []
    for i in range(steps + 1):
        started = time.perf_counter()
        out = model(**x) if isinstance(x, dict) else model(x)
        loss_of(out, targets).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if i:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CASES), action="append")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    for name in args.only or list(CASES):
        row = run_case(name)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
