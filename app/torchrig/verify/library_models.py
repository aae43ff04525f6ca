"""The user's real model for ``verify``: transformers from a config, torchvision / timm by name,
or the user's own factory function - built with random weights, nothing downloaded.

Each builder returns a :class:`LibraryModel`: how to build the model at a number of layers
(transformers only: ``num_hidden_layers``; the others are reduced by batch only), the inputs
of a batch, how to call it and what its loss is. :mod:`torchrig.verify.measure` turns it into
the probes' :class:`~torchrig.verify.probe.ProbeSpec`.

A library that is not installed, or that is installed but does not import beside this torch
(a torchvision wheel built for another torch fails with "operator torchvision::nms does not
exist"), raises :class:`LibraryMissing` with the reason; verify then falls back to the
reference model where there is one, and says so.

Imports torch: import lazily.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812 - the name PyTorch's docs use

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.workload import VISION_TASKS, Workload, resolve_model
from torchrig.verify.cuda_emulation import recompute_context
from torchrig.verify.sources import VERIFY_IMAGE_SIZE, ModelSource

Batch = tuple[Any, Any]  # (inputs, targets); targets None: the model computes its loss


class LibraryMissing(InputError):
    """The library a source needs cannot be used here; ``msg`` says why, in both languages."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(msg.en)
        self.msg = msg


class FactoryError(InputError):
    """The user's factory cannot be loaded or called; ``msg`` says why."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(msg.en)
        self.msg = msg


@dataclass
class LibraryModel:
    """How to build, feed and train one library or factory model."""

    build: Callable[[int | None], nn.Module]
    batch: Callable[[int, int | None], Batch]  # (batch size, sequence length) -> CPU tensors
    layers: int | None  # reducible blocks (None: reduced by batch only)
    seq_axis: bool
    description: Msg
    attention_dropout: float = 0.0
    """Dropout on the attention probabilities: off CUDA, SDPA then takes its math path, which
    keeps the (tokens x tokens) probabilities - memory no longer linear in the tokens."""
    image_size: int | None = None
    """Pixels per side of the images ``batch`` makes (None: not images, or the user's own
    batch() makes them)."""
    loss: Callable[[Any, Any], torch.Tensor] | None = None
    """(output, targets) -> the training loss, where :func:`loss_of` is not the model's (a
    denoiser's noise regression)."""


# torchvision registers fake and autograd kernels for its compiled operators (nms, roi_align,
# deform_conv2d, ...) in these two modules. When its compiled library does not load - a wheel
# built for another torch, e.g. PyPI's CUDA torchvision beside a CPU torch - the first
# registration fails ("operator torchvision::nms does not exist") and the whole import with it,
# although its models are plain Python over torch operators. The second try leaves these two out.
TORCHVISION_OP_REGISTRATIONS = ("torchvision._meta_registrations",
                                "torchvision._autograd_registrations")


def torchvision_without_ops() -> Msg | None:
    """Import torchvision; when its compiled operators cannot load, import it without them and
    say so (its classification models run; models that call nms or roi_align fail when they
    reach them). None when torchvision imports whole or is not installed."""
    if "torchvision" in sys.modules:
        return getattr(sys.modules["torchvision"], "_torchrig_without_ops", None)
    try:
        importlib.import_module("torchvision")
        return None
    except ImportError:
        return None
    except RuntimeError as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        if not (first.startswith("operator torchvision::") and "does not exist" in first):
            raise
    for loaded in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[loaded]  # the half-imported package of the first try
    import types
    for name in TORCHVISION_OP_REGISTRATIONS:
        sys.modules[name] = types.ModuleType(name)
    module = importlib.import_module("torchvision")
    note = Msg(f"torchvision {module.__version__} without its compiled operators ({first}: the "
               f"wheel was built for another torch than {torch.__version__}); its models run, "
               "nms / roi_align / deform_conv2d do not",
               f"torchvision {module.__version__} 未加载其编译算子（{first}：该 wheel 为另一版本 "
               f"torch 构建，而非 {torch.__version__}）；模型可运行，nms / roi_align / "
               "deform_conv2d 不可用")
    setattr(module, "_torchrig_without_ops", note)  # noqa: B010 - a third-party module
    return note


def import_library(name: str) -> Any:
    """The module, or :class:`LibraryMissing` saying why it cannot be used."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach the network at run time
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        # timm imports torchvision's layers, and transformers (so peft) imports torchvision
        # whenever it is installed: a torchvision without its operators would break them too.
        torchvision_without_ops()
        module = importlib.import_module(name)
    except ImportError:
        extra = name in ("transformers", "peft", "diffusers")
        how = "the models extra: pip install -e .[models]" if extra \
            else "a build that matches this torch"
        how_zh = "models 额外依赖：pip install -e .[models]" if extra else "与此 torch 匹配的版本"
        raise LibraryMissing(Msg(f"{name} is not installed (install {how})",
                                 f"未安装 {name}（请安装{how_zh}）")) from None
    except Exception as exc:  # a wheel built for another torch fails while it registers ops
        first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise LibraryMissing(Msg(f"{name} is installed but does not import beside torch "
                                 f"{torch.__version__}: {first}",
                                 f"已安装 {name}，但无法与 torch {torch.__version__} 一起导入："
                                 f"{first}")) from None
    if name in ("transformers", "diffusers"):
        # Their config checks (a token id past a shrunken vocabulary) and casting advice
        # ("modules ... should be kept in float32") are not ours to report.
        module.logging.set_verbosity_error()
    return module


# --- transformers -----------------------------------------------------------------------------


def _hf_config(source: ModelSource, w: Workload, layers: int | None) -> Any:
    transformers = import_library("transformers")
    doc = dict(source.config)
    model_type = doc.pop("model_type")
    try:
        config = transformers.AutoConfig.for_model(model_type, **doc)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"transformers cannot read this config ({model_type}): "
                         f"{str(exc).splitlines()[0][:200]}") from None
    if layers is not None:
        config.num_hidden_layers = layers
        kinds = getattr(config, "layer_types", None)
        if isinstance(kinds, list) and len(kinds) > layers:
            config.layer_types = kinds[:layers]
    if w.is_training:
        config.use_cache = False
    return config


def hf_layers(source: ModelSource, w: Workload) -> int:
    return int(_hf_config(source, w, None).num_hidden_layers)


def transformers_model(source: ModelSource, w: Workload) -> LibraryModel:
    transformers = import_library("transformers")
    cls = getattr(transformers, source.name, None)
    if cls is None or not hasattr(cls, "_from_config"):
        raise InputError(f"transformers {transformers.__version__} has no model class "
                         f"{source.name!r} (the config's architectures)")
    config = _hf_config(source, w, None)
    full_layers = int(config.num_hidden_layers)
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    if vocab <= 0:
        raise InputError(f"the config of {source.name} has no vocab_size")
    name = source.name

    def build(layers: int | None) -> nn.Module:
        cfg = _hf_config(source, w, layers)
        model = cls._from_config(cfg, attn_implementation=w.attention)
        if w.gradient_checkpointing and w.is_training:
            # The recomputation under the same emulated casts as the forward (on the CPU).
            # transformers 5 renamed the method (the old name warns it will go in v6).
            kwargs = {"use_reentrant": False, "context_fn": recompute_context}
            if hasattr(model, "activation_checkpointing_enable"):
                model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
            else:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
        if w.is_lora:
            model = lora_wrap(model, w)
        return model

    def batch(size: int, seq: int | None) -> Batch:
        gen = torch.Generator().manual_seed(0)
        ids = torch.randint(0, vocab, (size, seq or w.seq_len or 128), generator=gen)
        inputs: dict[str, Any] = {"input_ids": ids}
        if not w.is_training:
            if w.task == "llm_inference" and name.endswith(("ForCausalLM", "LMHeadModel")):
                # Serving's prefill computes the next token's logits only, as the plan counts.
                inputs["logits_to_keep"] = 1
            return inputs, None
        if name.endswith(("ForCausalLM", "LMHeadModel", "ForMaskedLM")):
            inputs["labels"] = ids
        elif name.endswith("ForSequenceClassification"):
            labels = int(getattr(config, "num_labels", 2) or 2)
            inputs["labels"] = torch.randint(0, labels, (size,), generator=gen)
        return inputs, None

    dropouts = [getattr(config, key, None) for key in
                ("attn_pdrop", "attention_probs_dropout_prob", "attention_dropout")]
    attention_dropout = next((float(d) for d in dropouts if isinstance(d, (int, float))), 0.0)
    return LibraryModel(build, batch, full_layers, True, attention_dropout=attention_dropout,
                        description=Msg(
        f"transformers {name} from the config: {full_layers} layers, vocabulary {vocab}, "
        f"{w.attention} attention, random weights",
        f"transformers {name}（由配置构建）：{full_layers} 层，词表 {vocab}，{w.attention} 注意力，"
        "随机权重"))


def lora_wrap(model: nn.Module, w: Workload) -> nn.Module:
    """peft's LoRA on every linear layer of the blocks (``all-linear``: what the planner
    counts), rank from the workload."""
    peft = import_library("peft")
    config = peft.LoraConfig(r=int(w.lora_rank or 8), lora_alpha=2 * int(w.lora_rank or 8),
                             target_modules="all-linear", lora_dropout=0.0)
    with warnings.catch_warnings():
        # peft asks transformers a deprecated question (is_gradient_checkpointing): theirs.
        warnings.simplefilter("ignore", FutureWarning)
        return peft.get_peft_model(model, config)


# --- torchvision and timm ---------------------------------------------------------------------


def vision_model(source: ModelSource, w: Workload) -> LibraryModel:
    lib = import_library(source.kind)
    if source.kind == "torchvision":
        try:
            lib.models.get_model_builder(source.name)
        except ValueError:
            raise InputError(f"torchvision has no model {source.name!r}") from None

        def make() -> nn.Module:
            return lib.models.get_model(source.name, weights=None)
    else:
        if not lib.is_model(source.name):
            raise InputError(f"timm has no model {source.name!r}")

        def make() -> nn.Module:
            return lib.create_model(source.name, pretrained=False)

    image = w.image_size or VERIFY_IMAGE_SIZE
    channels = resolve_model(w).channels

    def build(_layers: int | None) -> nn.Module:
        return make()

    def batch(size: int, _seq: int | None) -> Batch:
        gen = torch.Generator().manual_seed(0)
        return torch.randn(size, channels, image, image, generator=gen), None

    degraded = torchvision_without_ops()
    return LibraryModel(build, batch, None, False, Msg(
        f"{source.kind} {source.name} at {image}px, random weights"
        + (f" ({degraded.en})" if degraded else ""),
        f"{source.kind} {source.name}，{image}px，随机权重"
        + (f"（{degraded.zh}）" if degraded else "")), image_size=image)


# --- the user's factory -----------------------------------------------------------------------


def load_factory(source: ModelSource) -> tuple[Callable[[], Any], Callable[[int], Any] | None]:
    """The factory function and the module's optional ``batch(batch_size)``."""
    where = f"{source.path}:{source.function}"
    try:
        if source.path.endswith(".py") or os.sep in source.path or "/" in source.path:
            path = Path(source.path).expanduser().resolve()
            if not path.is_file():
                raise FactoryError(Msg(f"{where}: no such file", f"{where}：文件不存在"))
            spec = importlib.util.spec_from_file_location(f"torchrig_factory_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise FactoryError(Msg(f"{where}: not a Python file", f"{where}：不是 Python 文件"))
            module = importlib.util.module_from_spec(spec)
            sys.path.insert(0, str(path.parent))  # its own imports beside it
            try:
                spec.loader.exec_module(module)
            finally:
                sys.path.remove(str(path.parent))
        else:
            module = importlib.import_module(source.path)
    except FactoryError:
        raise
    except Exception as exc:
        raise FactoryError(_failed(where, "loading", exc)) from None
    fn = getattr(module, source.function, None)
    if not callable(fn):
        raise FactoryError(Msg(f"{where}: the module has no function {source.function}",
                               f"{where}：模块中没有函数 {source.function}"))
    batch = getattr(module, "batch", None)
    return fn, batch if callable(batch) else None


def _failed(where: str, doing: str, exc: BaseException) -> Msg:
    first = str(exc).splitlines()[0][:200] if str(exc) else ""
    what = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    zh = {"loading": "加载", "calling": "调用"}.get(doing, doing)
    return Msg(f"{where}: {doing} failed with {what}", f"{where}：{zh}失败，{what}")


def factory_model(source: ModelSource, w: Workload) -> LibraryModel:
    fn, user_batch = load_factory(source)
    where = f"{source.path}:{source.function}"
    text = w.task not in VISION_TASKS and w.task != "image_generation"
    image = w.image_size or VERIFY_IMAGE_SIZE
    channels = resolve_model(w).channels
    seq = w.seq_len or 128

    def build(_layers: int | None) -> nn.Module:
        try:
            model = fn()
        except Exception as exc:
            raise FactoryError(_failed(where, "calling", exc)) from None
        if not isinstance(model, nn.Module):
            raise FactoryError(Msg(f"{where} returned {type(model).__name__}, not a "
                                   "torch.nn.Module", f"{where} 返回了 {type(model).__name__}，"
                                   "不是 torch.nn.Module"))
        if w.is_lora:
            model = lora_wrap(model, w)
        return model

    def batch(size: int, _seq: int | None) -> Batch:
        if user_batch is not None:
            try:
                made = user_batch(size)
            except Exception as exc:
                raise FactoryError(_failed(f"{source.path}:batch", "calling", exc)) from None
            if not (isinstance(made, tuple) and len(made) == 2):
                raise FactoryError(Msg(f"{source.path}:batch({size}) must return (inputs, "
                                       "targets)", f"{source.path}:batch({size}) 必须返回 "
                                       "(inputs, targets)"))
            return made[0], made[1]
        gen = torch.Generator().manual_seed(0)
        if text:
            embedding = next((m for m in _probe_model().modules()
                              if isinstance(m, nn.Embedding)), None)
            if embedding is None:
                raise FactoryError(Msg(
                    f"{where}: a text model without an nn.Embedding - add batch(batch_size) "
                    "returning (inputs, targets) to the file",
                    f"{where}：文本模型没有 nn.Embedding，请在文件中提供 batch(batch_size)，返回 "
                    "(inputs, targets)"))
            return torch.randint(0, embedding.num_embeddings, (size, seq), generator=gen), None
        return torch.randn(size, channels, image, image, generator=gen), None

    probed: list[nn.Module] = []

    def _probe_model() -> nn.Module:
        if not probed:
            probed.append(build(None))
        return probed[0]

    return LibraryModel(build, batch, None, False, Msg(
        f"your factory {source.function}() from {source.path}, "
        + ("its batch() for the inputs" if user_batch else "inputs made from the task"),
        f"你的工厂函数 {source.path} 中的 {source.function}()，"
        + ("输入来自其 batch()" if user_batch else "输入按任务生成")),
        image_size=None if text or user_batch is not None else image)


def library_model(source: ModelSource, w: Workload) -> LibraryModel:
    if source.kind == "transformers":
        return transformers_model(source, w)
    if source.kind in ("torchvision", "timm"):
        return vision_model(source, w)
    if source.kind == "factory":
        return factory_model(source, w)
    raise InputError(f"no library builder for {source.kind}")


# --- calling a model and its loss -------------------------------------------------------------


def to_device(value: Any, device: str, dtype: torch.dtype) -> Any:
    """Tensors (in tuples, lists, dicts) onto ``device``; floating ones in the model's dtype."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            return value.to(device=device, dtype=dtype)
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device, dtype) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(v, device, dtype) for v in value)
    return value


def call(model: nn.Module, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    return model(inputs)


def loss_of(output: Any, targets: Any) -> torch.Tensor:
    """The model's own loss (Hugging Face computes it from ``labels``), else cross-entropy
    with integer targets, mean squared error with float targets, or - without targets - a
    cross-entropy of the logits against fixed pseudo-random classes."""
    own = getattr(output, "loss", None)
    if isinstance(own, torch.Tensor):
        return own
    out = first_tensor(output)
    if out.dim() == 0:
        return out
    if targets is not None:
        t = targets.to(out.device) if isinstance(targets, torch.Tensor) else targets
        if isinstance(t, torch.Tensor) and not t.is_floating_point():
            return F.cross_entropy(out.float().reshape(-1, out.shape[-1]), t.reshape(-1))
        return F.mse_loss(out.float(), t.float())
    logits = out.float().reshape(-1, out.shape[-1])
    gen = torch.Generator(device="cpu").manual_seed(0)
    classes = torch.randint(0, out.shape[-1], (logits.shape[0],), generator=gen)
    return F.cross_entropy(logits, classes.to(out.device))


def first_tensor(output: Any) -> torch.Tensor:
    """The first tensor of a model's output (logits of a ModelOutput, the main head of a
    tuple with auxiliary heads)."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict):
        values = list(output.values())
    elif isinstance(output, (tuple, list)):
        values = list(output)
    else:
        values = [getattr(output, "logits", None)]
    for v in values:
        if isinstance(v, torch.Tensor):
            return v
        if isinstance(v, (tuple, list, dict)):
            return first_tensor(v)
    raise InputError(f"the model returned {type(output).__name__} without a tensor")


def has_batchnorm(model: nn.Module) -> bool:
    """Training through BatchNorm needs two or more values per channel: never batch 1."""
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())


def param_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
