"""Model presets: architecture facts from the models' published configs, plus the measured
activation coefficients that ``scripts/calibrate_activations.py`` stores next to them.

The data lives in ``resources/model_presets.json`` so a reviewer can check each figure against
the source quoted beside it. Transformer parameter counts are also derived here from the
architecture (:meth:`TransformerArch.param_count`) and a test checks both agree, so a typo in
either cannot pass silently.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.jsonio import get_num, get_str, load_versioned, req
from torchrig.records import field, record

PRESETS_FORMAT = "torchrig.model-presets"
PRESETS_VERSION = 1

FAMILIES = ("cnn", "vit", "transformer", "diffusion")
STYLES = ("gpt", "bert", "llama")
"""Transformer block styles the calibration measures: GPT-2 (pre-LN, GELU, dropout), BERT
(post-LN, GELU, dropout) and Llama (RMSNorm, rotary, SwiGLU, no dropout, grouped K/V)."""


@record
class TransformerArch:
    """The shape facts of a transformer that memory, FLOPs and KV cache depend on.

    Beyond the classic shape, the fields Hugging Face configs of current families carry:
    ``explicit_head_dim`` (Gemma, Qwen3: head size not hidden / heads), ``qkv_bias`` (Qwen2),
    ``activation`` (GPT-2's ``gelu_new``), mixture of experts (``experts`` routed experts of
    ``expert_ffn`` width, ``active_experts`` per token, an always-on shared expert of
    ``shared_expert_ffn`` width, the first ``dense_layers`` layers dense), DeepSeek's multi-head
    latent attention (``kv_lora_rank`` > 0: K/V compressed to a latent of that rank plus a
    ``rope_head_dim`` rotary key; ``q_lora_rank``; ``v_head_dim``) and sliding-window
    attention (``sliding_layers`` of the layers attend to the last ``sliding_window`` tokens).
    """

    style: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    max_positions: int = 0
    tied_embeddings: bool = True
    explicit_head_dim: int = 0
    qkv_bias: bool = False
    activation: str = ""
    experts: int = 0
    active_experts: int = 0
    expert_ffn: int = 0
    shared_expert_ffn: int = 0
    dense_layers: int = 0
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_layers: int = 0

    @property
    def head_dim(self) -> int:
        return self.explicit_head_dim or self.hidden // self.heads

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def gated_mlp(self) -> bool:
        return self.style == "llama"

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    def _attention_params(self) -> int:
        h = self.hidden
        if self.is_mla:
            qk = self.heads * (self.head_dim + self.rope_head_dim)
            q = (h * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * qk
                 if self.q_lora_rank else h * qk)
            kv = (h * (self.kv_lora_rank + self.rope_head_dim) + self.kv_lora_rank
                  + self.kv_lora_rank * self.heads * (self.head_dim + self.v_head_dim))
            return q + kv + self.heads * self.v_head_dim * h
        return h * (self.q_dim + 2 * self.kv_dim) + self.q_dim * h

    def _dense_mlp_params(self) -> int:
        return (3 if self.gated_mlp else 2) * self.hidden * self.ffn

    def _moe_mlp_params(self, experts: int) -> int:
        h = self.hidden
        return experts * 3 * h * self.expert_ffn + 3 * h * self.shared_expert_ffn \
            + h * self.experts  # router

    def routed_expert_params(self) -> int:
        """Weights of the routed experts (what expert parallelism splits over GPUs)."""
        return self.moe_layers * self.experts * 3 * self.hidden * self.expert_ffn

    def layer_matmul_params(self) -> int:
        """Weights of the matrix multiplies in one dense layer (Q, K, V, O and the MLP)."""
        return self._attention_params() + self._dense_mlp_params()

    def total_matmul_params(self) -> int:
        """Matrix-multiply weights of all layers, every expert included (what memory holds)."""
        dense = self.layers - self.moe_layers
        return (self.layers * self._attention_params() + dense * self._dense_mlp_params()
                + self.moe_layers * self._moe_mlp_params(self.experts))

    def active_matmul_params(self) -> int:
        """Matrix-multiply weights one token passes through (MoE: the routed experts only)."""
        dense = self.layers - self.moe_layers
        return (self.layers * self._attention_params() + dense * self._dense_mlp_params()
                + self.moe_layers * self._moe_mlp_params(self.active_experts))

    @property
    def activation_ffn(self) -> float:
        """FFN width a token's activations span, averaged over layers (MoE: routed experts +
        shared expert)."""
        if not self.is_moe:
            return float(self.ffn)
        moe = self.active_experts * self.expert_ffn + self.shared_expert_ffn
        return (self.dense_layers * self.ffn + self.moe_layers * moe) / self.layers

    def layer_params(self) -> int:
        h, kv, f = self.hidden, self.kv_dim, self.ffn
        if self.style == "llama":
            bias = (self.q_dim + 2 * kv) if self.qkv_bias else 0
            return self.layer_matmul_params() + bias + 2 * h  # two RMSNorm weights
        biases = (h + 2 * kv) + h + f + h
        return self.layer_matmul_params() + biases + 2 * 2 * h  # two LayerNorms (w + b)

    def param_count(self) -> int:
        """Parameters of the Hugging Face base model (BERT: BertModel with pooler; GPT-2 and
        GPT-3: tied LM head; Llama-style: separate LM head unless tied), counted from the
        architecture; a tied embedding is counted once."""
        h, v = self.hidden, self.vocab
        total = self.layers * (self.layer_params() - self.layer_matmul_params()) \
            + self.total_matmul_params()
        if self.style == "bert":
            total += v * h + self.max_positions * h + 2 * h + 2 * h  # word, position, type, LN
            total += h * h + h  # pooler
        elif self.style == "gpt":
            total += v * h + self.max_positions * h + 2 * h  # embeddings + final LayerNorm
        else:
            total += v * h + h  # embeddings + final RMSNorm
        if not self.tied_embeddings:
            total += v * h
        return total

    def active_param_count(self) -> int:
        """Parameters one token uses (equal to :meth:`param_count` for a dense model)."""
        return self.param_count() - self.total_matmul_params() + self.active_matmul_params()

    def largest_layer_params(self) -> int:
        """DeepSpeed's "largest layer": the most parameters one module owns directly - the
        embedding table, or the widest linear layer."""
        h = self.hidden
        linear = max(h * self.ffn + (0 if self.style == "llama" else self.ffn),
                     h * (self.q_dim + 2 * self.kv_dim), h * self.expert_ffn)
        return max(self.vocab * h, linear)

    def forward_matmul_params(self, lm_head: bool) -> int:
        """Parameters that take part in a matrix multiply per token (embedding lookups do not;
        MoE: the active experts only): the 2N in "forward FLOPs per token = 2N + attention"."""
        return self.active_matmul_params() + (self.vocab * self.hidden if lm_head else 0)

    def lora_params(self, rank: int) -> int:
        """Trainable LoRA parameters with adapters on every linear layer of every block (the
        QLoRA paper's recommendation, Dettmers et al. 2023, arXiv 2305.14314): rank x (in + out)
        per adapted matrix (MoE: every expert's)."""
        h, kv, f, q = self.hidden, self.kv_dim, self.ffn, self.q_dim
        if self.is_mla:
            qk = self.heads * (self.head_dim + self.rope_head_dim)
            attn = ((h + self.q_lora_rank) + (self.q_lora_rank + qk) if self.q_lora_rank
                    else h + qk)
            attn += (h + self.kv_lora_rank + self.rope_head_dim) \
                + (self.kv_lora_rank + self.heads * (self.head_dim + self.v_head_dim)) \
                + (self.heads * self.v_head_dim + h)
        elif self.style == "gpt":
            # GPT-2 packs Q, K and V into one layer (c_attn, hidden -> 3 x hidden): one adapter,
            # as peft's "all-linear" adapts it.
            attn = (h + q + 2 * kv) + (q + h)
        else:
            attn = (h + q) + 2 * (h + kv) + (q + h)
        dense = (3 if self.gated_mlp else 2) * (h + f)
        moe = 3 * (h + self.expert_ffn) * self.experts + (
            3 * (h + self.shared_expert_ffn) if self.shared_expert_ffn else 0)
        dense_layers = self.layers - self.moe_layers
        return rank * (self.layers * attn + dense_layers * dense + self.moe_layers * moe)

    def kv_cache_bytes_per_token(self, bytes_per_element: float) -> float:
        """vLLM paper (Kwon et al. 2023, arXiv 2309.06180, sec. 3): 2 (K and V) x layers x KV heads
        x head size x element size. Multi-head latent attention caches one compressed latent
        and the rotary key per layer instead (DeepSeek-V2, arXiv 2405.04434, sec. 2.1)."""
        if self.is_mla:
            return self.layers * (self.kv_lora_rank + self.rope_head_dim) * bytes_per_element
        return 2 * self.layers * self.kv_heads * self.head_dim * bytes_per_element

    def kv_cache_bytes_per_sequence(self, tokens: int, bytes_per_element: float) -> float:
        """KV cache of one sequence of ``tokens``: sliding-window layers keep only the window."""
        per_layer = self.kv_cache_bytes_per_token(bytes_per_element) / self.layers
        window = min(tokens, self.sliding_window) if self.sliding_window else tokens
        sliding = self.sliding_layers if self.sliding_window else 0
        return per_layer * ((self.layers - sliding) * tokens + sliding * window)


@record
class DiffusionActs:
    """Bytes autograd saves for one precision (fp32, amp, bf16) at the preset's resolution, and
    the inference working set; measured by ``scripts/calibrate_diffusion.py``."""

    bytes_per_sample: int
    bytes_per_step: int
    checkpointed_bytes_per_sample: int
    checkpointed_bytes_per_step: int
    inference_peak_bytes_per_sample: int


@record
class InferenceReference:
    """A published end-to-end generation time the utilisation of eager inference is derived
    from (see ``source``)."""

    seconds_per_image: float
    steps: int
    peak_flops: float
    source: str


@record
class DiffusionFacts:
    """A latent diffusion model: the trained denoiser (U-Net or DiT; the preset's ``params``)
    beside the frozen VAE and text encoder(s) that stay in memory.

    ``forward_flops`` is one denoiser forward for one sample at the preset's image size;
    ``attention_quadratic_flops`` is the part of it that grows with the square of the latent
    area (self-attention's score and value products), the rest grows linearly."""

    vae_params: int
    text_encoder_params: int
    guidance: bool
    lora_params_per_rank: int
    latent_size: int
    forward_flops: int
    attention_quadratic_flops: int
    vae_encode_flops: int
    vae_decode_flops: int
    vae_encode_peak_bytes: dict[str, int]
    vae_decode_peak_bytes: dict[str, int]
    precisions: dict[str, DiffusionActs]
    inference_reference: InferenceReference | None = None

    def forward_flops_at(self, image: int, image_ref: int) -> float:
        s = (image / image_ref) ** 2
        q = self.attention_quadratic_flops
        return (self.forward_flops - q) * s + q * s * s


@record
class ModelPreset:
    id: str
    name: str
    family: str
    tasks: tuple[str, ...]
    params: int
    source: str
    largest_layer_params: int
    buffer_bytes: int = 0
    image_size: int | None = None
    channels: int | None = None
    seq_len: int | None = None
    arch: TransformerArch | None = None
    forward_flops_per_sample: int | None = None
    activation_bytes_per_sample: int | None = None
    """Published figures for a model the calibration script cannot build (detection models):
    forward FLOPs and training activation bytes per sample at ``image_size``; see ``source``."""
    diffusion: DiffusionFacts | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "name": self.name, "family": self.family, "tasks": list(self.tasks),
            "params": self.params, "largest_layer_params": self.largest_layer_params,
            "buffer_bytes": self.buffer_bytes, "source": self.source,
        }
        if self.image_size is not None:
            out["image_size"] = self.image_size
            out["channels"] = self.channels
        if self.seq_len is not None:
            out["seq_len"] = self.seq_len
        for key in ("forward_flops_per_sample", "activation_bytes_per_sample"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.arch is not None:
            out.update(style=self.arch.style, layers=self.arch.layers, hidden=self.arch.hidden,
                       heads=self.arch.heads, kv_heads=self.arch.kv_heads, ffn=self.arch.ffn,
                       vocab=self.arch.vocab, max_positions=self.arch.max_positions,
                       tied_embeddings=self.arch.tied_embeddings,
                       activation=self.arch.activation or None)
        return out


# --- calibration ----------------------------------------------------------------------------


@record
class VisionPrecisionCal:
    """Saved-for-backward bytes measured for one vision preset at one precision."""

    bytes_per_sample: int
    bytes_per_step: int
    units: tuple[tuple[int, int], ...]  # per residual block: (saved bytes, input bytes) / sample


@record
class VisionCal:
    image_size: int
    forward_flops_per_sample: int
    precisions: dict[str, VisionPrecisionCal]


@record
class TransformerCal:
    """Per-token coefficients (bytes) fitted exactly from measurements of small shapes."""

    layer: dict[str, float]
    outside_per_token: dict[str, float]
    outside_per_sequence: dict[str, float]
    layer_input_bytes_per_hidden: float

    def layer_bytes_per_token(self, arch: TransformerArch, seq: int) -> float:
        c = self.layer
        return (c["constant"] + c["hidden"] * arch.hidden + c["ffn"] * arch.activation_ffn
                + c["heads"] * arch.heads + c["kv_dim"] * arch.kv_dim
                + c["heads_x_seq"] * arch.heads * seq)

    def outside_bytes_per_sequence(self, arch: TransformerArch, seq: int,
                                   logits: int | None = None) -> float:
        """``logits``: logits per token the head computes (None: the vocabulary, as measured);
        the measured bytes per vocabulary entry are per logit (the fp32 loss's input)."""
        t, s = self.outside_per_token, self.outside_per_sequence
        width = arch.vocab if logits is None else logits
        per_token = t["constant"] + t["hidden"] * arch.hidden + t["vocab"] * width
        return seq * per_token + s["constant"] + s["hidden"] * arch.hidden


@record
class Calibration:
    date: str
    torch_version: str
    vision: dict[str, VisionCal] = field(default_factory=dict)
    transformer: dict[str, TransformerCal] = field(default_factory=dict)

    def transformer_cal(self, style: str, attention: str, head: str,
                        precision: str) -> TransformerCal | None:
        return self.transformer.get(f"{style}/{attention}/{head}/{precision}")


# --- loading --------------------------------------------------------------------------------


def presets_path() -> Path:
    # torchrig.resources, not the catalog loader: importing the catalog package for a folder
    # name cost a plan with no GPU a third of its run.
    from torchrig.resources import resources_dir

    return resources_dir() / "model_presets.json"


def load_presets() -> dict[str, ModelPreset]:
    """All presets by id (cached; the file ships with the app)."""
    return _load(str(presets_path()))[0]


def load_calibration() -> Calibration | None:
    """The measured coefficients, or None when the calibration script has not been run."""
    return _load(str(presets_path()))[1]


def get_preset(preset_id: str) -> ModelPreset:
    presets = load_presets()
    if preset_id not in presets:
        raise InputError(
            f"unknown model preset {preset_id!r}: use one of {', '.join(presets)} or 'custom'"
        )
    return presets[preset_id]


def clear_cache() -> None:
    _load.cache_clear()


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[dict[str, ModelPreset], Calibration | None]:
    data = load_versioned(Path(path), PRESETS_FORMAT, PRESETS_VERSION)
    entries = req(data, "presets", path)
    if not isinstance(entries, list):
        raise InputError(f"{path}: field 'presets' must be a list")
    presets: dict[str, ModelPreset] = {}
    for i, entry in enumerate(entries):
        preset = _parse_preset(entry, f"{path}: presets[{i}]")
        if preset.id in presets:
            raise InputError(f"{path}: preset id {preset.id!r} appears twice")
        presets[preset.id] = preset
    cal = data.get("calibration")
    return presets, (_parse_calibration(cal, f"{path}: calibration") if cal else None)


def _parse_preset(entry: Any, where: str) -> ModelPreset:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object")
    pid = get_str(entry, "id", where)
    where = f"{where} ({pid})"
    family = get_str(entry, "family", where)
    if family not in FAMILIES:
        raise InputError(f"{where}: field 'family' must be one of {', '.join(FAMILIES)}")
    tasks = req(entry, "tasks", where)
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise InputError(f"{where}: field 'tasks' must be a list of task names")

    def whole(key: str, optional: bool = False) -> Any:
        return get_num(entry, key, where, minimum=0, integer=True, optional=optional)

    arch = None
    if family == "transformer":
        style = get_str(entry, "style", where)
        if style not in STYLES:
            raise InputError(f"{where}: field 'style' must be one of {', '.join(STYLES)}")
        arch = TransformerArch(
            style=style, layers=whole("layers"), hidden=whole("hidden"), heads=whole("heads"),
            kv_heads=whole("kv_heads"), ffn=whole("ffn"), vocab=whole("vocab"),
            max_positions=whole("max_positions"),
            tied_embeddings=bool(entry.get("tied_embeddings", True)),
            activation=_activation(entry, where),
        )
    diffusion = _parse_diffusion(entry, where) if family == "diffusion" else None
    largest = whole("largest_layer_params", optional=True)
    if largest is None:
        if arch is None:
            raise InputError(f"{where}: missing field 'largest_layer_params'")
        largest = arch.largest_layer_params()
    return ModelPreset(
        id=pid, name=get_str(entry, "name", where), family=family, tasks=tuple(tasks),
        params=whole("params"), source=get_str(entry, "source", where),
        largest_layer_params=largest, buffer_bytes=whole("buffer_bytes", optional=True) or 0,
        image_size=whole("image_size", optional=True), channels=whole("channels", optional=True),
        seq_len=whole("seq_len", optional=True), arch=arch,
        forward_flops_per_sample=whole("forward_flops_per_sample", optional=True),
        activation_bytes_per_sample=whole("activation_bytes_per_sample", optional=True),
        diffusion=diffusion,
    )


def _activation(entry: dict[str, Any], where: str) -> str:
    """The config's activation (GPT-2's gelu_new, BERT's gelu, Llama's silu); "" = the
    calibration's for the style (a model without a published config: GPT-3)."""
    value = entry.get("activation", "")
    if not isinstance(value, str):
        raise InputError(f"{where}: field 'activation' must be text")
    return value


VAE_PRECISIONS = ("fp32", "bf16")


def _parse_diffusion(entry: dict[str, Any], where: str) -> DiffusionFacts:
    measured = req(entry, "measured", where)
    w = f"{where}.measured"

    def whole(data: Any, key: str, at: str) -> int:
        return int(get_num(data, key, at, minimum=0, integer=True))

    precisions = {}
    for precision in ("fp32", "amp", "bf16"):
        p = req(measured, precision, w)
        precisions[precision] = DiffusionActs(**{
            k: whole(p, k, f"{w}.{precision}") for k in (
                "bytes_per_sample", "bytes_per_step", "checkpointed_bytes_per_sample",
                "checkpointed_bytes_per_step", "inference_peak_bytes_per_sample")})
    vae = req(measured, "vae", w)
    ref = entry.get("inference_reference")
    reference = None
    if ref is not None:
        r = f"{where}.inference_reference"
        reference = InferenceReference(
            seconds_per_image=float(get_num(ref, "seconds_per_image", r, minimum=0)),
            steps=int(get_num(ref, "steps", r, minimum=1, integer=True)),
            peak_flops=float(get_num(ref, "peak_flops", r, minimum=0)),
            source=get_str(ref, "source", r))
    return DiffusionFacts(
        vae_params=whole(entry, "vae_params", where),
        text_encoder_params=whole(entry, "text_encoder_params", where),
        guidance=bool(entry.get("guidance", True)),
        lora_params_per_rank=whole(entry, "lora_params_per_rank", where),
        latent_size=whole(measured, "latent_size", w),
        forward_flops=whole(measured, "forward_flops_per_sample", w),
        attention_quadratic_flops=whole(measured, "attention_quadratic_flops", w),
        vae_encode_flops=whole(vae, "encode_flops", w),
        vae_decode_flops=whole(vae, "decode_flops", w),
        vae_encode_peak_bytes={p: whole(vae, f"encode_peak_bytes_{p}", w) for p in VAE_PRECISIONS},
        vae_decode_peak_bytes={p: whole(vae, f"decode_peak_bytes_{p}", w) for p in VAE_PRECISIONS},
        precisions=precisions, inference_reference=reference)


def _parse_calibration(data: Any, where: str) -> Calibration:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected an object")
    vision: dict[str, VisionCal] = {}
    for pid, entry in dict(data.get("vision", {})).items():
        w = f"{where}.vision.{pid}"
        precisions = {}
        for precision in ("fp32", "amp", "bf16"):
            p = req(entry, precision, w)
            precisions[precision] = VisionPrecisionCal(
                bytes_per_sample=get_num(p, "bytes_per_sample", w, minimum=0, integer=True),
                bytes_per_step=get_num(p, "bytes_per_step", w, minimum=0, integer=True),
                units=tuple((int(u[0]), int(u[1])) for u in req(p, "units", w)),
            )
        vision[pid] = VisionCal(
            image_size=get_num(entry, "image_size", w, minimum=1, integer=True),
            forward_flops_per_sample=get_num(entry, "forward_flops_per_sample", w, minimum=0,
                                             integer=True),
            precisions=precisions,
        )
    transformer: dict[str, TransformerCal] = {}
    for key, entry in dict(data.get("transformer", {})).items():
        w = f"{where}.transformer.{key}"
        transformer[key] = TransformerCal(
            layer=_coefficients(req(entry, "layer_bytes_per_token", w), w),
            outside_per_token=_coefficients(req(entry, "outside_layers_bytes_per_token", w), w),
            outside_per_sequence=_coefficients(
                req(entry, "outside_layers_bytes_per_sequence", w), w),
            layer_input_bytes_per_hidden=get_num(entry, "layer_input_bytes_per_hidden", w,
                                                 minimum=0),
        )
    return Calibration(
        date=get_str(data, "date", where), torch_version=get_str(data, "torch_version", where),
        vision=vision, transformer=transformer,
    )


def _coefficients(data: Any, where: str) -> dict[str, float]:
    if not isinstance(data, dict):
        raise InputError(f"{where}: coefficients must be an object")
    return {str(k): float(get_num(data, k, where)) for k in data}
