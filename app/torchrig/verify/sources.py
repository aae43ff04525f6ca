"""Whose model ``verify`` runs (torch-free): the user's own factory, a Hugging Face config
built by transformers, a diffusers denoiser (a diffusion preset's published config or the
user's own), a torchvision or timm model by name, or TorchRig's reference copy.

The planner's calibration was measured on TorchRig's reference models
(:mod:`torchrig.verify.reference_models`), so measuring those beside the plan agrees by
construction. The libraries' own code is what a user trains, so verify prefers it, in this
order: the user's factory, transformers or diffusers from the config, torchvision / timm by
name, the preset's own library model (:mod:`torchrig.verify.preset_models`); the reference
model only where no library model exists or its library is missing, or when asked for, and
then says so (text, JSON, GUI). A diffusion preset has no reference model: verify builds it
with diffusers or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.verify import diffusion_configs

KINDS = ("factory", "transformers", "diffusers", "torchvision", "timm", "reference")
VERIFY_IMAGE_SIZE = 224
"""Pixels per side of the images verify makes for a vision model whose workload gives no
image size (torchvision's and timm's ImageNet models are built for 224)."""
LIBRARY_PREFIXES = ("torchvision", "timm")


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from.

    ``kind``: one of :data:`KINDS`. ``name``: the torchvision / timm model name, or the class a
    Hugging Face config names (``architectures``). ``path`` and ``function``: the factory's
    file (or ``package.module``) and function. ``config``: the Hugging Face config.json's
    contents. ``fallback``: why the reference model stands in (None when it was asked for).
    """

    kind: str
    name: str = ""
    path: str = ""
    function: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    fallback: Msg | None = None

    @property
    def label(self) -> str:
        """What ran, for the JSON's ``source`` and the text: library + class, or file +
        function."""
        if self.kind == "factory":
            return f"factory {self.path}:{self.function}"
        if self.kind == "reference":
            return "TorchRig reference model"
        return f"{self.kind} {self.name}"

    def describe(self) -> Msg:
        if self.kind == "factory":
            return Msg(f"your factory {self.function}() in {self.path}",
                       f"你的工厂函数 {self.path} 中的 {self.function}()")
        if self.kind == "reference":
            why = self.fallback or Msg("", "")
            tail_en = f" ({why.en})" if why.en else ""
            tail_zh = f"（{why.zh}）" if why.zh else ""
            return Msg("TorchRig's reference model (its own re-implementation, the code the "
                       f"planner was calibrated on, not the library you train){tail_en}",
                       "TorchRig 参考模型（自有的重新实现，即规划校准所用的代码，"
                       f"并非你训练所用的库）{tail_zh}")
        if self.kind in ("transformers", "diffusers"):
            return Msg(f"{self.kind} {self.name} built from the config (random weights)",
                       f"{self.kind} {self.name}，由配置构建（随机权重）")
        return Msg(f"{self.kind} {self.name} (random weights)",
                   f"{self.kind} {self.name}（随机权重）")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "path": self.path,
                "function": self.function, "config": self.config,
                "fallback": None if self.fallback is None else self.fallback.to_dict()}

    @classmethod
    def from_dict(cls, doc: Any, where: str = "model source") -> ModelSource:
        if not isinstance(doc, dict) or doc.get("kind") not in KINDS:
            raise InputError(f"{where}: kind must be one of {', '.join(KINDS)}")
        texts = {k: doc.get(k) or "" for k in ("name", "path", "function")}
        if not all(isinstance(v, str) and len(v) <= 1000 for v in texts.values()):
            raise InputError(f"{where}: name, path and function must be short texts")
        config = doc.get("config") or {}
        if not isinstance(config, dict):
            raise InputError(f"{where}: config must be an object")
        fallback = doc.get("fallback")
        return cls(str(doc["kind"]), texts["name"], texts["path"], texts["function"],
                   config, None if fallback is None else Msg.from_json(fallback, where))


REFERENCE = ModelSource("reference")
"""TorchRig's reference model, asked for (``--reference-model``): no fallback reason."""


def parse_library_model(spec: str) -> ModelSource:
    """``torchvision:NAME`` or ``timm:NAME`` (the ``--model`` flag's library form)."""
    prefix, _, name = spec.partition(":")
    if prefix not in LIBRARY_PREFIXES or not name.strip():
        raise InputError(f"--model {spec}: give torchvision:NAME or timm:NAME (for example "
                         "torchvision:convnext_tiny), or a preset id")
    return ModelSource(prefix, name=name.strip())


def parse_factory(spec: str) -> ModelSource:
    """``FILE.py:FUNC`` or ``package.module:FUNC`` (``--model-factory``)."""
    path, sep, function = spec.rpartition(":")
    if not sep or not path or not function.isidentifier():
        raise InputError(f"--model-factory {spec}: give FILE.py:FUNCTION or "
                         "package.module:FUNCTION")
    return ModelSource("factory", path=path, function=function)


def transformers_source(config: dict[str, Any], where: str) -> ModelSource:
    """The class a Hugging Face config names in ``architectures`` (its first entry)."""
    names = config.get("architectures")
    if not isinstance(names, list) or not names or not isinstance(names[0], str):
        raise InputError(f"{where}: the config has no \"architectures\" list naming the model "
                         "class to build (e.g. [\"GPT2LMHeadModel\"])")
    if not isinstance(config.get("model_type"), str):
        raise InputError(f"{where}: the config has no \"model_type\"")
    return ModelSource("transformers", name=names[0], config=config)


def diffusers_source(config: dict[str, Any], where: str) -> ModelSource:
    """The diffusers denoiser a config's ``_class_name`` names, where verify can feed it."""
    name = diffusion_configs.class_name(config)
    if name not in diffusion_configs.CLASSES:
        raise InputError(f"{where}: verify builds the diffusers classes "
                         f"{' and '.join(diffusion_configs.CLASSES)}, not {name or 'this config'}"
                         " (give the denoiser's config: unet/config.json or "
                         "transformer/config.json)")
    diffusion_configs.check_sizes(config, where)
    return ModelSource("diffusers", name=name, config=dict(config))


def preset_source(preset_id: str) -> ModelSource | None:
    """The diffusers model of a diffusion preset, from its published config (None: the preset
    is not a diffusion model)."""
    config = diffusion_configs.PRESET_CONFIGS.get(preset_id)
    return None if config is None else diffusers_source(config, preset_id)
