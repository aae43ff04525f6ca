"""``torchrig verify [WORKLOAD.json] [plan's flags]``: measure the model here, beside its plan.

Whose model (docs/verify.md sec. 1): ``--model-factory FILE.py:FUNC`` (the user's own code),
``--hf-config`` (transformers builds the class the config names), ``--model torchvision:NAME``
or ``--model timm:NAME``; otherwise the preset's own library model (its published config in
transformers, torchvision's classifier, diffusers' denoiser), and TorchRig's reference copy only
where none exists or with ``--reference-model``, labelled so.
The workload comes from the file and the same flags ``plan`` takes.

Progress goes to stderr one line per run; the comparison table to stdout (``--json FILE`` also
writes the document, SI units). ``--apply OUT.json`` writes the workload with the measured
activation bytes and FLOPs per sample, for ``plan --workload OUT.json``; ``--write-back``
stores them in the workload file itself when the planner cannot size the model.

Whatever the model's own code raises ends as one line on stderr and exit 2 (bad input, a model
that cannot run), never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchrig.bench.cli import check_json_path
from torchrig.errors import InputError

if TYPE_CHECKING:
    from torchrig.planning.workload import Workload
    from torchrig.verify.sources import ModelSource


def add_verify_arguments(parser: argparse.ArgumentParser,
                         add_plan_options: Callable[[argparse.ArgumentParser], None]) -> None:
    parser.add_argument("workload_file", metavar="WORKLOAD.json", nargs="?",
                        help="a saved workload file (or --workload FILE, or plan's flags)")
    add_plan_options(parser)
    source = parser.add_argument_group("whose model (default: --model, or the workload's)")
    source.add_argument("--model-factory", dest="model_factory", metavar="FILE.py:FUNC",
                        help="your own code: FUNC() returns the torch.nn.Module; an optional "
                             "batch(batch_size) in the same file returns (inputs, targets)")
    source.add_argument("--reference-model", dest="reference_model", action="store_true",
                        help="TorchRig's own copy of the preset (the code the planner was "
                             "calibrated on) instead of the library's model")
    parser.add_argument("--device", default="auto",
                        help="auto, cpu, cuda, cuda:N or mps (default: auto = the first GPU "
                             "torch can use, else the CPU)")
    parser.add_argument("--steps", type=int, default=3, metavar="N",
                        help="steps per run: a warm-up, a memory step and N-2 timed steps "
                             "(3 to 1000; default 3)")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="also write the comparison as JSON (SI units)")
    parser.add_argument("--apply", default=None, metavar="OUT.json",
                        help="write the workload with the measured activation bytes and FLOPs "
                             "per sample to OUT.json (plan --workload OUT.json uses them)")
    parser.add_argument("--write-back", dest="write_back", action="store_true",
                        help="store the measured activation bytes and FLOPs per sample in "
                             "the workload file when the planner cannot size the model")
    parser.add_argument("--lang", choices=["en", "zh"], default="en")


def verify_inputs(args: argparse.Namespace,
                  workload_from_args: Callable[[argparse.Namespace], Workload]
                  ) -> tuple[Workload, ModelSource | None]:
    """The workload (file and flags, as plan reads them) and whose model to run."""
    from torchrig.planning.hf_config import load_hf_config
    from torchrig.verify.diffusion_configs import is_diffusers_config
    from torchrig.verify.sources import (
        REFERENCE,
        parse_factory,
        parse_library_model,
        transformers_source,
    )

    if args.workload_file and args.workload:
        raise InputError("give the workload once: WORKLOAD.json or --workload FILE")
    args.workload = args.workload or args.workload_file
    source: ModelSource | None = None
    library_name = None
    if args.model and ":" in args.model:
        source = parse_library_model(args.model)
        library_name = source.name
        args.model = None
    if args.model_factory:
        if source is not None or args.hf_config:
            raise InputError("give one model: --model-factory, --hf-config or --model LIB:NAME")
        source = parse_factory(args.model_factory)
    if args.hf_config:
        if source is not None:
            raise InputError("give one model: --hf-config or --model LIB:NAME")
        config_path = Path(args.hf_config).expanduser()
        doc = _config_doc(config_path)
        if is_diffusers_config(doc):
            source = _diffusers_inputs(args, doc, str(config_path))
            args.hf_config = None  # the planner sizes it as the preset it matches
        else:
            load_hf_config(config_path)  # the planner reads it too: its errors first
            source = transformers_source(doc, str(config_path))
    if args.reference_model:
        if source is not None or args.hf_config:
            raise InputError("--reference-model runs TorchRig's copy of a preset: give it "
                             "without --model-factory, --hf-config or --model LIB:NAME")
        source = REFERENCE
    if source is not None and source.kind not in ("transformers", "diffusers", "reference") \
            and args.workload is None:
        if args.task is None:
            args.task = "image_classification" if source.kind != "factory" else None
        if args.task is None:
            raise InputError("--model-factory needs --task (or a workload file): it says "
                             "what the inputs are and how the plan counts the model")
        if args.model is None:
            args.model = library_name if library_name in _preset_ids() else "custom"
        if args.model == "custom" and args.params is None and args.hidden is None:
            # The planner needs a size for a model it has no preset of: count the real one.
            args.params = _count_params(source)
    return workload_from_args(args), source


def _diffusers_inputs(args: argparse.Namespace, doc: dict[str, Any], where: str
                      ) -> ModelSource:
    """A diffusers denoiser config: its class is built, and the plan is the diffusion preset of
    the same architecture (the planner sizes image generation only from its measured
    presets)."""
    from torchrig.verify.diffusion_configs import PRESET_CONFIGS
    from torchrig.verify.sources import diffusers_source

    source = diffusers_source(doc, where)
    if args.task not in (None, "image_generation"):
        raise InputError(f"{where}: a diffusers {source.name} config is an image generation "
                         f"model, not --task {args.task}")
    try:
        from torchrig.verify.diffusion_models import matching_preset
        from torchrig.verify.library_models import LibraryMissing

        preset = matching_preset(source)
    except ImportError:
        raise InputError("verify needs PyTorch, which is not installed") from None
    except LibraryMissing as exc:
        raise InputError(f"{where}: {exc.msg.en}") from None
    if preset is None:
        raise InputError(
            f"{where}: this {source.name} is none of the architectures the planner has "
            f"measured ({', '.join(PRESET_CONFIGS)}); it sizes image generation only for "
            "those, so there is no plan to put the measurement beside")
    if args.model not in (None, preset):
        raise InputError(f"{where}: the config is {preset}'s architecture, not --model "
                         f"{args.model}")
    args.task, args.model = "image_generation", preset
    return source


def _preset_ids() -> set[str]:
    from torchrig.planning.presets import load_presets

    return set(load_presets())


def _config_doc(path: Path) -> dict[str, Any]:
    from torchrig.jsonio import parse_json_text, read_text_file
    from torchrig.planning.hf_config import MAX_CONFIG_BYTES

    if path.is_dir():
        path = path / "config.json"
    doc = parse_json_text(read_text_file(path, MAX_CONFIG_BYTES), str(path))
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a JSON object")
    return doc


def _count_params(source: ModelSource) -> int:
    """Parameters of the real model, built on the meta device (no memory, no weights)."""
    from torchrig.planning.workload import workload_from_options

    try:
        import torch

        from torchrig.verify.library_models import (
            FactoryError,
            LibraryMissing,
            library_model,
            param_count,
        )

        # Any valid workload: the builders read only the model from the source here.
        probe = workload_from_options(task="image_classification", model="resnet18",
                                      image_size=32, batch=1)
        with torch.device("meta"):
            return param_count(library_model(source, probe).build(None))
    except ImportError:
        raise InputError("verify needs PyTorch, which is not installed") from None
    except LibraryMissing as exc:
        raise InputError(f"{source.label}: {exc.msg.en}") from None
    except FactoryError as exc:
        raise InputError(exc.msg.en) from None


def run_verify_cli(args: argparse.Namespace,
                   workload_from_args: Callable[[argparse.Namespace], Workload]) -> int:
    """Returns 0; raises InputError (exit 2 in the CLI) for bad input, a refused run, or a
    model that fails (its own exception, in one line)."""
    try:
        return _run(args, workload_from_args)
    except (InputError, KeyboardInterrupt):
        raise
    except Exception as exc:  # the user's model code can raise anything: one line, exit 2
        first = str(exc).splitlines()[0][:300] if str(exc) else ""
        raise InputError(f"the model failed: {type(exc).__name__}"
                         + (f": {first}" if first else "")) from None


def _run(args: argparse.Namespace,
         workload_from_args: Callable[[argparse.Namespace], Workload]) -> int:
    from torchrig.jsonio import atomic_write_json
    from torchrig.planning.workload import save_workload
    from torchrig.verify.compare import format_text
    from torchrig.verify.measure import VerifyProgress, device_for_plan, verify
    from torchrig.verify.written_workload import feedback_workload, measured_workload

    json_path = check_json_path(args.json)
    apply_path = check_json_path(args.apply)
    workload, source = verify_inputs(args, workload_from_args)
    if args.write_back and args.workload is None:
        raise InputError("--write-back needs a workload file; use --apply OUT.json")
    lang = args.lang

    def progress(p: VerifyProgress) -> None:
        if sys.stderr is not None:  # None in a Windows GUI-script process
            print(f"verify: {p.message.get(lang)}", file=sys.stderr, flush=True)

    from torchrig.bench.settings import resolve_device

    device = resolve_device(args.device)
    result = verify(workload, device, args.steps, progress=progress,
                    gpu=device_for_plan(device), source=source)
    sys.stdout.write(format_text(result, lang))
    if json_path is not None:
        atomic_write_json(json_path, result.to_dict())
    if apply_path is not None:
        save_workload(measured_workload(result), apply_path)
        print(f"verify: wrote the workload with the measured figures to {apply_path}"
              if lang == "en" else f"verify: 已将含实测数值的工作负载写入 {apply_path}",
              file=sys.stderr)
    if args.write_back:
        path = Path(args.workload).expanduser()
        updated = feedback_workload(result)
        if updated is None:
            print("verify: the planner sizes this model itself; the workload file is "
                  "unchanged" if lang == "en" else
                  "verify: 规划可自行估算此模型；工作负载文件未修改", file=sys.stderr)
        else:
            save_workload(updated, path)
            print(f"verify: wrote the measured figures to {path}" if lang == "en"
                  else f"verify: 已将实测数值写入 {path}", file=sys.stderr)
    return 0
