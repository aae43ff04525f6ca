"""The command-line face of TorchRig (see README "Command line").

Each subcommand is a thin layer: parse arguments, call the core, print. Exit codes: 0 ok,
1 findings of severity "blocker" (``check``), 2 bad input (one line on stderr, no traceback),
3 a quote with unpriced lines exported without ``--draft`` (``export``; nothing written).
Heavy modules (torch, reportlab) are imported inside the handlers that need them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchrig import __version__, process_exit  # process_exit first: what was open at start
from torchrig.errors import InputError
from torchrig.terminal import write_error, write_json, write_lines

if TYPE_CHECKING:
    from torchrig.builds.build import Build
    from torchrig.builds.capabilities import Capabilities
    from torchrig.catalog.model import Catalog
    from torchrig.planning.workload import Workload

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, asking for the terminal's width when it first lays text out
    instead of when it is made: a parser makes one for every option it adds (only to check the
    option's metavar), and each asked the terminal, the first importing shutil with bz2 and
    lzma - about a tenth of a ``torchrig plan`` process that prints no help at all.

    The width and help column are computed as HelpFormatter.__init__ computes them, and served
    through the two attributes its layout code reads; tests/test_cli27_help_layout.py compares
    every command's help with argparse's own formatter at several terminal widths."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None, **kwargs: Any) -> None:
        self._asked = (indent_increment, max_help_position, width)
        self._laid_out: tuple[int, int] | None = None
        super().__init__(prog, indent_increment, max_help_position, width=0, **kwargs)

    def _layout(self) -> tuple[int, int]:
        """(help column, width), as HelpFormatter.__init__ computes them."""
        if self._laid_out is None:
            indent_increment, max_help_position, width = self._asked
            if width is None:
                import shutil

                width = shutil.get_terminal_size().columns - 2
            self._laid_out = (min(max_help_position, max(width - 20, indent_increment * 2)),
                              width)
        return self._laid_out

    @property
    def _max_help_position(self) -> int:
        return self._layout()[0]

    @_max_help_position.setter
    def _max_help_position(self, _value: int) -> None:
        """HelpFormatter.__init__ sets it from the placeholder width; :meth:`_layout` holds it."""

    @property
    def _width(self) -> int:
        return self._layout()[1]

    @_width.setter
    def _width(self, _value: int) -> None:
        """As :attr:`_max_help_position`."""


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad arguments already; make its message one line like ours. Its
    help is laid out by :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        _err(f"{self.prog}: {message}")
        raise SystemExit(EXIT_BAD_INPUT)


def _err(line: str) -> None:
    write_error(line)


def _out(text: str) -> None:
    write_lines(text)


def _print_json(data: Any) -> None:
    write_json(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False))


# --- detect -----------------------------------------------------------------------------------


def cmd_detect(args: argparse.Namespace) -> int:
    from torchrig.hardware import detect
    from torchrig.hardware.text import format_profile_text

    profile = detect(use_torch=args.torch)
    if args.json:
        _print_json(profile.to_dict())
    else:
        _out(format_profile_text(profile, lang=args.lang))
    return EXIT_OK


# --- check ------------------------------------------------------------------------------------


def _workload_from_args(args: argparse.Namespace) -> Workload:
    """``--workload FILE`` with any flags on top, or the flags alone (``--task`` required)."""
    from torchrig.planning.workload import Workload, load_workload, workload_from_options

    flags = {name: getattr(args, name, None) for name in PLAN_FLAGS}
    if args.checkpointing is not None:
        flags["checkpointing"] = args.checkpointing == "on"
    if getattr(args, "tied_embeddings", None) is not None:
        flags["tied_embeddings"] = args.tied_embeddings == "on"
    for name in ON_OFF_FLAGS:
        if getattr(args, name, None) is not None:
            flags[name] = getattr(args, name) == "on"
    if getattr(args, "hf_config", None):
        from torchrig.planning.hf_config import hf_workload_fields, load_hf_config

        model = load_hf_config(_path(args.hf_config))
        # The config describes the model; explicit flags still win over it.
        base_task = flags.get("task")
        if base_task is None and args.workload:
            base_task = load_workload(_path(args.workload)).task
        imported = hf_workload_fields(model, base_task)
        if flags.get("head") not in (None, "sequence_classification", "token_classification"):
            imported.pop("num_labels", None)  # the config's classes belong to its own head
        flags = {**imported, **{k: v for k, v in flags.items() if v is not None}}
        if args.workload:
            flags.pop("name", None)
    if args.workload:
        base = load_workload(_path(args.workload))
        if not any(v is not None for v in flags.values()):
            return base
        doc = base.to_dict()
        for name, value in flags.items():
            if value is not None:
                key = PLAN_DOC_KEYS.get(name, name)
                if key.startswith("dataset."):
                    doc["dataset"][key.split(".", 1)[1]] = value
                else:
                    doc[key] = value
        return Workload.from_dict(doc, where=f"{args.workload} with command-line options")
    if flags.get("task") is None:
        raise InputError("give --task (or --workload FILE); see torchrig plan --help")
    return workload_from_options(**flags)


def _subject(spec: str, catalog: Catalog) -> tuple[Capabilities, Build | None]:
    from torchrig.builds.capabilities import from_build, from_profile
    from torchrig.report.open_build import load_build_or_sheet

    if spec == "this":
        from torchrig.hardware import detect

        return from_profile(detect(), catalog), None
    build = load_build_or_sheet(_path(spec), catalog)
    return from_build(build, catalog), build


def cmd_plan(args: argparse.Namespace) -> int:
    workload = _workload_from_args(args)
    # The catalog (and the solver and advice over it) only for --gpu and --recommend: a plan
    # of the workload alone reads neither, and loading it was most of that plan's run.
    catalog = None
    device = None
    if args.bought_for is not None and not args.recommend:
        raise InputError("--for names the machine a recommendation is for: add --recommend")
    report = _collective_report(args)
    if args.gpu and args.gpu != "this":
        from torchrig.part_id_scan import surely_unknown_part

        if surely_unknown_part(args.gpu):  # Catalog.get's message, without loading it
            raise InputError(f"unknown catalog part id {args.gpu!r}")
    if args.gpu or args.recommend:
        from torchrig.catalog import load_catalog
        from torchrig.planning.device import device_spec, subject_device

        catalog = load_catalog()
        if args.gpu == "this":
            device = subject_device(_subject("this", catalog)[0])
        elif args.gpu:
            part = catalog.get(args.gpu)
            if part.category != "gpu":
                raise InputError(f"--gpu {args.gpu}: {part.name} is a {part.category}, "
                                 "not a GPU")
            device = device_spec(part)
    # Imported once the input is known to be good: a bad --gpu fails without them.
    from torchrig.planning.assumed_settings import assumed_settings
    from torchrig.planning.plan_output import format_advice_text, format_plan_text
    from torchrig.planning.plan_parameters import plan_parameters
    from torchrig.planning.requirements import plan
    from torchrig.planning.sized_defaults import size_to_model

    given = _options_given(args)
    sizing = None
    if not args.workload:
        # An imported or chosen model's layout follows its size (docs/estimation.md sec. 2.6);
        # without --gpu it is sized for the rule's reference GPU (the catalog is read then).
        sizing = size_to_model(workload, given, device)
        workload = sizing.workload
    measured = None
    if report is not None:  # the link the benchmark measured, for this workload's messages
        from torchrig.planning.requirements.measured_network import plan_link

        measured = plan_link(report, workload)
    req = plan(workload, device, measured)
    answer = None
    if device is not None and catalog is not None:
        from torchrig.planning.solver import solve

        answer = solve(workload, device, catalog)
    advice = (_recommendation(args, workload, catalog)
              if args.recommend and catalog is not None else None)
    # A workload file chose every setting; flags alone leave the rest to the task's defaults.
    assumed = [] if sizing is None else assumed_settings(workload, given, sizing.fields,
                                                         sizing.reason, req.assumptions)
    if args.json:
        data = req.to_dict()
        data["parameters"] = plan_parameters(workload).to_dict()
        data["assumed_settings"] = [a.to_dict() for a in assumed]
        data["sized_to_model"] = None if sizing is None else sizing.to_dict()
        data["solver"] = None if answer is None else answer.to_dict()
        data["measured_link"] = None if measured is None else measured.to_dict()
        if advice is not None:
            data["recommendation"] = advice.to_dict()
        _print_json(data)
    else:
        text = format_plan_text(workload, req, lang=args.lang, answer=answer,
                                assumed=assumed)
        if advice is not None:
            text += "\n" + format_advice_text(advice, args.lang)
        _out(text)
    return EXIT_OK


def _collective_report(args: argparse.Namespace) -> Any:
    """``plan --collective-report``: the report, read and checked by the benchmark's own
    loader (the one the GUI uses); its link is weighed against a GPU's step time."""
    if args.collective_report is None:
        return None
    if not args.gpu:
        raise InputError("--collective-report needs --gpu (PART_ID or this): the measured link "
                         "is weighed against a GPU's step time")
    from torchrig.bench.collective.report import load_collective_report

    try:
        return load_collective_report(_path(args.collective_report))
    except InputError as exc:
        raise InputError(f"--collective-report {exc}") from None


def _options_given(args: argparse.Namespace) -> set[str]:
    """The plan options on the command line, spelled as typed ("--gpus", "--seq-len")."""
    names = [*PLAN_FLAGS, "checkpointing"]
    given = {"--" + name.replace("_", "-") for name in names
             if getattr(args, name, None) is not None}
    if getattr(args, "hf_config", None):
        given.add("--model")  # the config is the user's model
    return given


def _recommendation(args: argparse.Namespace, workload: Workload, catalog: Catalog) -> Any:
    """``plan --recommend``: the lowest tier and every catalog GPU by time and money."""
    from decimal import Decimal

    from torchrig.planning.advice import advise, positive_amount, time_target_seconds

    hourly: dict[str, Decimal] = {}
    for entry in args.gpu_hour_price or ():
        part_id, sep, amount = entry.partition("=")
        if not sep:
            raise InputError(f"--gpu-hour-price {entry!r}: give PART_ID=AMOUNT")
        if catalog.get(part_id).category != "gpu":
            raise InputError(f"--gpu-hour-price: {part_id} is not a GPU")
        hourly[part_id] = positive_amount(amount, f"--gpu-hour-price {part_id}")
    rate = None if args.cny_per_usd is None else positive_amount(args.cny_per_usd,
                                                                 "--cny-per-usd")
    target = None
    if args.time_target_hours is not None:
        target = time_target_seconds(args.time_target_hours, "--time-target-hours")
    return advise(workload, catalog, currency=args.currency, cny_per_usd=rate,
                  hourly_prices=hourly, time_target_s=target,
                  subject=_bought_for(args.bought_for, catalog))


def _bought_for(spec: str | None, catalog: Catalog) -> Capabilities | None:
    """``plan --for``: the machine the recommendation is bought for, named as the Wizard's
    "Check against" box names it - a build file (or sheet PDF), a catalog tier, or this
    machine - and made into capabilities by the same functions (``from_build``, ``from_tier``,
    ``from_profile``), which advise() reads as the Wizard's plan does. A path that exists is a
    build even when its name is a tier's."""
    if spec is None:
        return None
    path = _path(spec)
    if spec in catalog.tiers and not path.exists():
        from torchrig.builds.capabilities import from_tier

        return from_tier(catalog.tier(spec), catalog)
    if spec != "this" and not path.exists() and path.suffix.lower() not in (".json", ".pdf"):
        raise InputError(f"--for {spec}: not a build file, a tier ({', '.join(catalog.tiers)}) "
                         "or 'this'")
    try:
        return _subject(spec, catalog)[0]
    except InputError as exc:
        raise InputError(f"--for {exc}") from None


def _default_rate_arguments(p: argparse.ArgumentParser) -> None:
    """The exchange rate for a build that has none, as the GUI's Settings give new builds."""
    rate = p.add_argument_group("default exchange rate (used when the build has none)")
    rate.add_argument("--cny-per-usd", dest="cny_per_usd", metavar="RATE",
                      help="CNY per USD, to price catalog parts in the build's other currency")
    rate.add_argument("--rate-date", dest="rate_date", metavar="YYYY-MM-DD",
                      help="the day that rate was taken (required with --cny-per-usd; printed "
                           "on the quote)")


def cmd_check(args: argparse.Namespace) -> int:
    from torchrig.builds.build import with_default_rate
    from torchrig.builds.check_output import check_json, format_check_text
    from torchrig.builds.compat import check_build
    from torchrig.builds.pricing import price_build, shipped_default
    from torchrig.catalog import load_catalog
    from torchrig.findings import format_findings_text, has_blocker, sort_findings
    from torchrig.i18n import Msg, counted

    catalog = load_catalog()
    caps, build = _subject(args.build, catalog)
    if build is not None:
        build = with_default_rate(build, args.cny_per_usd, args.rate_date)
    # A build with no rate of its own (and none given here) is priced at the shipped reference.
    default = shipped_default(catalog)
    findings = check_build(build, catalog, region=args.region) if build is not None else []
    analysis = None
    if args.workload:
        from torchrig.planning.analysis import analyze
        from torchrig.planning.workload import load_workload

        analysis = analyze(load_workload(_path(args.workload)), caps, catalog)
        findings = sort_findings([*findings, *analysis.findings])
    if args.json:
        data: dict[str, Any] = (check_json(price_build(build, catalog, default_rate=default),
                                           findings)
                                if build is not None else
                                {"format": "torchrig.check", "version": 1, "build": None,
                                 "findings": [f.to_dict() for f in findings],
                                 "has_blocker": has_blocker(findings)})
        if analysis is not None:
            data["requirements"] = analysis.requirements.to_dict()
        _print_json(data)
    elif build is not None:
        _out(format_check_text(price_build(build, catalog, default_rate=default), findings,
                               lang=args.lang))
    else:
        gpus = Msg(f"{counted(caps.gpu_count, 'GPU', 'GPUs')}", f"{caps.gpu_count} 块 GPU")
        _out(f"{caps.label.get(args.lang)}: {caps.cpu_name or '?'}, {gpus.get(args.lang)}\n"
             + format_findings_text(findings, args.lang))
    return EXIT_FINDINGS if has_blocker(findings) else EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from torchrig.report.cli_export import run_export_cli

    return run_export_cli(args)


# --- verify -----------------------------------------------------------------------------------


def cmd_verify(args: argparse.Namespace) -> int:
    from torchrig.verify.cli import run_verify_cli

    return run_verify_cli(args, _workload_from_args)


# --- bench ------------------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    if args.collective:
        from torchrig.bench.collective.launch import run_collective_cli

        return run_collective_cli(args)
    from torchrig.bench.cli import run_cli

    return run_cli(args, catalog_peaks=True)


def _add_bench_options(parser: argparse.ArgumentParser) -> None:
    """Imported only when the bench command is used: the bench package is not needed (and
    costs import time) for detect, check or plan."""
    from torchrig.bench.cli import add_bench_arguments
    from torchrig.bench.collective.launch import add_cli_arguments

    add_bench_arguments(parser)
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    group = parser.add_argument_group(
        "collective benchmark (torch.distributed; see docs/collective.md)")
    group.add_argument("--collective", action="store_true",
                       help="measure all-reduce/all-gather/reduce-scatter bandwidth with torchrun")
    add_cli_arguments(group, include_json=False)  # type: ignore[arg-type]


PLAN_FLAGS = ("task", "model", "mode", "precision", "optimizer", "batch", "seq_len",
              "image_size", "gpus", "nodes", "network", "nics_per_node", "strategy",
              "dataset_samples", "sample_bytes",
              "params", "layers", "hidden", "heads", "kv_heads", "vocab", "ffn", "head_dim",
              "experts", "active_experts", "expert_ffn", "attention", "epochs", "lora_rank",
              "tp_size", "pp_size", "vp_size", "ep_size", "offload", "grad_accumulation",
              "style",
              "denoising_steps", "output_tokens", "kv_dtype", "hidden_dropout",
              "attention_dropout", "embedding_dropout", "head", "num_labels")
ON_OFF_FLAGS = ("guidance", "precomputed_latents", "ema")
"""Boolean workload fields spelled --FLAG on|off (unset: the workload's own value)."""
PLAN_DOC_KEYS = {"batch": "batch_size", "gpus": "gpus_per_node", "checkpointing":
                 "gradient_checkpointing", "dataset_samples": "dataset.samples",
                 "sample_bytes": "dataset.sample_bytes", "kv_dtype": "kv_cache_dtype"}


def _add_plan_options(p: argparse.ArgumentParser) -> None:
    from torchrig.planning.presets import STYLES
    from torchrig.planning.workload import (
        ATTENTIONS,
        KV_CACHE_DTYPES,
        MODES,
        OFFLOADS,
        OPTIMIZERS,
        PRECISIONS,
        STRATEGIES,
        TASKS,
    )
    from torchrig.planning.workload_fields import HEADS, NETWORKS

    p.add_argument("--workload", metavar="FILE", help="start from a workload file")
    p.add_argument("--hf-config", dest="hf_config", metavar="PATH",
                   help="a Hugging Face config.json (or a folder holding one): the model's "
                        "architecture as --model custom; --task defaults to llm_inference for "
                        "decoders and nlp_transformer for BERT/RoBERTa")
    p.add_argument("--task", choices=TASKS)
    p.add_argument("--model", help="preset id (resnet50, bert-base, llama-2-7b, ...) or custom")
    p.add_argument("--mode", choices=MODES)
    p.add_argument("--precision", choices=PRECISIONS)
    p.add_argument("--optimizer", choices=OPTIMIZERS)
    p.add_argument("--batch", type=int, help="micro-batch per GPU")
    p.add_argument("--seq-len", dest="seq_len", type=int,
                   help="tokens per sequence (llm_inference: the prompt)")
    p.add_argument("--output-tokens", dest="output_tokens", type=int,
                   help="llm_inference: tokens generated per request (the KV cache holds "
                        "prompt + output)")
    p.add_argument("--kv-dtype", dest="kv_dtype", choices=KV_CACHE_DTYPES,
                   help="llm_inference: KV cache element type (auto = the model's 16-bit type, "
                        "vLLM's default)")
    p.add_argument("--image-size", dest="image_size", type=int)
    p.add_argument("--checkpointing", choices=["on", "off"], help="gradient checkpointing")
    p.add_argument("--gpus", type=int, help="GPUs per node")
    p.add_argument("--nodes", type=int)
    p.add_argument("--network", metavar="LINK_ID",
                   help=f"the network between nodes: {', '.join(NETWORKS)} "
                        "(docs/hardware-sources.md sec. 3); without it a run over several "
                        "nodes assumes perfect scaling across them")
    p.add_argument("--nics-per-node", dest="nics_per_node", type=int, metavar="N",
                   help="ports of --network each node has for the GPUs' traffic (default 1; "
                        "a DGX H100 has 8)")
    p.add_argument("--strategy", choices=STRATEGIES)
    p.add_argument("--tp-size", dest="tp_size", type=int)
    p.add_argument("--pp-size", dest="pp_size", type=int)
    p.add_argument("--vp-size", dest="vp_size", type=int,
                   help="virtual pipeline stages per GPU: model chunks of the interleaved 1F1B "
                        "schedule (Megatron-LM; default 1, plain 1F1B)")
    p.add_argument("--ep-size", dest="ep_size", type=int,
                   help="GPUs the routed experts are split over (strategy expert_parallel)")
    p.add_argument("--offload", choices=OFFLOADS)
    p.add_argument("--dataset-samples", dest="dataset_samples", type=int)
    p.add_argument("--sample-bytes", dest="sample_bytes", type=float)
    p.add_argument("--epochs", type=float)
    p.add_argument("--lora-rank", dest="lora_rank", type=int)
    p.add_argument("--grad-accumulation", dest="grad_accumulation", type=int,
                   help="micro-batches per optimizer step")
    p.add_argument("--attention", choices=ATTENTIONS,
                   help="sdpa (fused, the default) or eager (saves the attention scores)")
    custom = p.add_argument_group("custom model (--model custom, or what --hf-config reads)")
    custom.add_argument("--params", type=count, metavar="N",
                        help="parameters, e.g. 2850000000 or 2.85e9")
    for flag in ("layers", "hidden", "heads", "kv-heads", "vocab", "ffn", "head-dim"):
        custom.add_argument(f"--{flag}", dest=flag.replace("-", "_"), type=int)
    custom.add_argument("--style", choices=STYLES, help="transformer block style")
    custom.add_argument("--tied-embeddings", dest="tied_embeddings", choices=["on", "off"],
                        help="input and output embeddings share one matrix")
    gen = p.add_argument_group("image generation (task image_generation)")
    gen.add_argument("--denoising-steps", dest="denoising_steps", type=int,
                     help="denoiser evaluations per generated image (default 50)")
    gen.add_argument("--guidance", choices=["on", "off"],
                     help="classifier-free guidance: two denoiser passes per step")
    gen.add_argument("--precomputed-latents", dest="precomputed_latents", choices=["on", "off"],
                     help="training reads VAE latents encoded beforehand (no VAE encoding)")
    p.add_argument("--ema", choices=["on", "off"],
                   help="training keeps an fp32 moving average of the weights (DiT, diffusers "
                        "--use_ema)")
    config = p.add_argument_group("what a transformer's config.json also says (any transformer)")
    for flag in ("hidden-dropout", "attention-dropout", "embedding-dropout"):
        config.add_argument(f"--{flag}", dest=flag.replace("-", "_"), type=float, metavar="P",
                            help="dropout probability (0 saves no mask; default: the block "
                                 "style's, GPT-2 and BERT 0.1, Llama-style 0)")
    config.add_argument("--head", choices=HEADS,
                        help="the output head (a config's architectures: ...ForCausalLM = lm)")
    config.add_argument("--num-labels", dest="num_labels", type=int,
                        help="classes of a classification head (default 2)")
    moe = p.add_argument_group("mixture of experts (--model custom)")
    moe.add_argument("--experts", type=int, help="routed experts per MoE layer")
    moe.add_argument("--active-experts", dest="active_experts", type=int,
                     help="experts each token is routed to")
    moe.add_argument("--expert-ffn", dest="expert_ffn", type=int, help="one expert's MLP width")


def count(text: str) -> int | float:
    """A count as typed, ``2850000000`` or ``2.85e9``: read as a number here, and judged
    (whole, finite, in range) by the workload's own field rule (planning/workload_fields.py),
    the one place a workload file's ``params`` is checked too. Named for argparse's message
    ("invalid count value: 'x'") when the text is no number at all."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def _add_detect_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="full profile as JSON (SI units)")
    p.add_argument(
        "--torch", action="store_true",
        help="also ask torch (slower: imports torch) for CUDA/ROCm/MPS facts",
    )
    p.add_argument("--lang", choices=["en", "zh"], default="en")


def _add_plan_command_options(p: argparse.ArgumentParser) -> None:
    _add_plan_options(p)
    p.add_argument("--gpu", metavar="PART_ID|this",
                   help="plan for a catalog GPU (e.g. nvidia-rtx-4090) or this machine's GPU: "
                        "adds throughput and time per epoch")
    p.add_argument("--collective-report", dest="collective_report", metavar="FILE",
                   help="a report of torchrig bench --collective: the scaling model uses the "
                        "all-reduce busbw it measured (inside a node for a one-node report, "
                        "between nodes otherwise) in place of the catalog link "
                        "(docs/collective.md)")
    p.add_argument("--json", action="store_true", help="every breakdown in SI units")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    money = p.add_argument_group("recommendation by time and money (--recommend)")
    money.add_argument("--recommend", action="store_true",
                       help="the lowest tier that runs it, and every catalog GPU with its time "
                            "and price")
    money.add_argument("--for", dest="bought_for", metavar="BUILD|TIER|this",
                       help="the machine the GPU is bought for, as the Wizard's Check against: "
                            "a build file (workstation: PCIe cards that fit it; server: SXM "
                            "modules only as the whole system), a tier (entry, professional, "
                            "enterprise: its starter build) or this machine; without it the "
                            "GPUs per node decide")
    money.add_argument("--currency", choices=["USD", "CNY"], default="USD")
    money.add_argument("--cny-per-usd", dest="cny_per_usd", metavar="RATE",
                       help="exchange rate to compare catalog prices in either currency")
    money.add_argument("--gpu-hour-price", dest="gpu_hour_price", action="append",
                       metavar="PART_ID=AMOUNT",
                       help="your price per GPU-hour (rental or charge rate), in --currency: "
                            "adds cost per epoch / per million tokens; repeatable")
    money.add_argument("--time-target-hours", dest="time_target_hours", type=float,
                       metavar="H", help="the run must finish within H hours")


def _add_check_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("build", metavar="BUILD|this", help="a build file (.json), or 'this' machine")
    p.add_argument("--workload", metavar="FILE", help="a workload file: add bottleneck findings")
    p.add_argument("--json", action="store_true", help="priced bill of materials and findings")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.add_argument("--region", choices=["cn", "us", "eu"],
                   help="where the build is plugged in: checks the wall outlet (cn 220 V 10/16 A, "
                        "us 120 V 15 A, eu 230 V 16 A); cn also checks US export controls")
    _default_rate_arguments(p)


def _add_export_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("build", metavar="BUILD", nargs="?",
                   help="a build file (.json) or an exported sheet; left out with --workload: "
                        "the workload's plan sheet")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="OUT.pdf (the sheet), OUT.xlsx (the quote with formulas), OUT.md, "
                        "OUT.bbcode, OUT.txt or OUT.csv; '-' writes text to standard output")
    p.add_argument("--format", choices=["pdf", "xlsx", "md", "bbcode", "text", "csv"],
                   help="the output format (default: from OUT's suffix)")
    p.add_argument("--workload", metavar="FILE", help="add the requirements and bottlenecks")
    p.add_argument("--bench", metavar="FILE", help="add a benchmark report")
    p.add_argument("--tier", metavar="ID", help="compare with this tier (default: the build's)")
    p.add_argument("--lang", choices=["en", "zh"], default="zh")
    p.add_argument("--internal", action="store_true",
                   help="the shop's internal sheet: keeps price ages, reliability, estimate "
                        "remarks and adds the benchmarked machine ('This machine') to the tier "
                        "comparison (all left out of a customer quote)")
    p.add_argument("--draft", action="store_true",
                   help="write a quote with unpriced lines, stamped DRAFT (without it such an "
                        "export exits 3 and writes nothing)")
    p.add_argument("--invariant", action="store_true",
                   help="byte-stable output (fixed ids and dates; for tests and archives)")
    _default_rate_arguments(p)


def _add_verify_options(p: argparse.ArgumentParser) -> None:
    from torchrig.verify.cli import add_verify_arguments

    add_verify_arguments(p, _add_plan_options)


Handler = Callable[[argparse.Namespace], int]
Options = Callable[[argparse.ArgumentParser], None]

COMMANDS: dict[str, tuple[str, Options, Handler]] = {
    "detect": ("show this machine's CPU, GPUs, memory, disks, software", _add_detect_options,
               cmd_detect),
    "plan": ("what a workload needs: VRAM, RAM, storage, CPU, network",
             _add_plan_command_options, cmd_plan),
    "check": ("price a build and check its parts fit together; with --workload, also find its "
              "bottlenecks", _add_check_options, cmd_check),
    "export": ("write the PDF build sheet / quote for a build, or the priced build as Markdown, "
               "BBCode, text or CSV", _add_export_options, cmd_export),
    "verify": ("run the model (your factory, a Hugging Face config, torchvision/timm, or "
               "TorchRig's reference copy) here for a few steps and put the measurement beside "
               "the plan", _add_verify_options, cmd_verify),
    "bench": ("measure this machine with torch (GPU or CPU)", _add_bench_options, cmd_bench),
}
"""Each command: its one-line help (``torchrig --help``), what adds its options, its handler."""


def invoked_command(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option (the top-level
    options, ``-h`` and ``--version``, take no value), or None."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser. Given the command line, only the command it names gets its
    options: adding a command's options imports what their choices come from (plan's: the
    presets and the workload model; verify's and bench's: their packages), which a process
    running another command, or ``torchrig --help``, never reads. Without it: every command's.

    ``torchrig --help`` lists each command by the name and help given to ``add_parser``, so it
    reads the same either way, and a command's own parser is complete whenever it parses.

    A command line that starts with a command's name gets that command's parser alone: each
    parser argparse makes looks up three gettext translations (a few stat calls each, 0.2 ms
    apiece on a plain Linux), and nothing after the command's name goes to the top-level
    parser, whose help and command list only a line with no command, an unknown one, or
    options before it can print.
    """
    wanted = None if argv is None else invoked_command(argv)
    alone = argv is not None and wanted in COMMANDS and argv[0] == wanted
    parser = _Parser(
        prog="torchrig",
        description="TorchRig (PyTorch 硬件配置助手): plan, build, check and benchmark "
        "machines for PyTorch. Without a command, starts the GUI.",
    )
    parser.add_argument("--version", action="version", version=f"torchrig {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (help_text, add_options, handler) in COMMANDS.items():
        if alone and name != wanted:
            continue
        p = sub.add_parser(name, help=help_text)
        if argv is None or name == wanted:
            add_options(p)
        p.set_defaults(handler=handler)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv) if argv is not None else sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_OK
    try:
        return int(handler(args))
    except InputError as exc:
        _err(f"torchrig {args.command}: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err(f"torchrig {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _path(value: str) -> Path:
    return Path(value).expanduser()


def entry_point() -> None:
    """The ``torchrig-cli`` script: :func:`main` as a process, ended by
    :func:`torchrig.process_exit.end_process` (no interpreter teardown after an export)."""
    process_exit.end_process(main())


if __name__ == "__main__":
    entry_point()
