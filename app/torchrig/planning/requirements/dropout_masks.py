"""Dropout masks: the bytes a training step saves because a dropout probability is not 0.

Why it matters: PyTorch's dropout at p = 0 is the identity - ``torch.nn.functional.dropout``
returns its input unchanged when ``p == 0`` (ATen ``_dropout_impl``: ``if (p == 0 || !train ||
input.numel() == 0) return input;``, and the fused CUDA kernel is only taken for ``0 < p < 1``),
so nothing is saved for backward. At p > 0 the CUDA kernel (``native_dropout``) saves a 1-byte
bool mask per element. The activation calibration (``scripts/calibrate_activations.py``) measured
each block style with its own dropout - GPT-2 and BERT 0.1 everywhere, Llama-style none - so a
config with other probabilities is corrected by the difference of the mask bytes below.

Where the masks are (Korthikanti et al. 2022, arXiv 2205.05198, sec. 4.1, and the Hugging Face
GPT-2 / BERT code):

- two residual-branch masks per layer, after the attention projection and after the MLP:
  1 byte x hidden per token each (``resid_pdrop`` / ``hidden_dropout_prob``);
- with eager attention, a mask over the attention probabilities: 1 byte x heads x seq per
  token; in fp32 the dropped-out probabilities are a separate 4-byte tensor the value matmul
  saves, while in 16 bit they replace the 16-bit cast of the softmax output that would be saved
  anyway (Korthikanti's 5as/h = 2 softmax + 1 mask + 2 dropout output). With sdpa the fused
  CUDA kernels regenerate the mask from the RNG state and save none;
- one mask over the embeddings' output: 1 byte x hidden per token (``embd_pdrop``);
- a sequence classifier's dropout on the pooled output: 1 byte x hidden per sequence, plus the
  dropped-out copy (activation size) that the classifier's matmul saves instead of the pooled
  output itself.

Llama-style blocks have no residual or embedding dropout in the Hugging Face code, so only the
attention probability applies to them.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.presets import TransformerArch
from torchrig.planning.workload import Workload
from torchrig.records import record

CALIBRATED_DROPOUT: dict[str, float] = {"gpt": 0.1, "bert": 0.1, "llama": 0.0}
"""The dropout probability each style's calibration model runs with
(``torchrig.verify.reference_models``: GptBlock and BertBlock 0.1, LlamaBlock none); also
the default when a workload does not say (GPT-2's and BERT's published configs are 0.1)."""


@record
class Dropout:
    """Probabilities of the three places a transformer drops out."""

    hidden: float
    attention: float
    embedding: float

    @property
    def has_residual(self) -> bool:
        return self.hidden > 0


def calibrated(style: str) -> Dropout:
    p = CALIBRATED_DROPOUT[style]
    return Dropout(p, p, p)


def dropout_of(w: Workload, arch: TransformerArch) -> Dropout:
    """The workload's dropout: what it gives, else its style's (:data:`CALIBRATED_DROPOUT`).
    Llama-style code has no residual or embedding dropout, whatever a config says."""
    base = CALIBRATED_DROPOUT[arch.style]
    hidden = base if w.hidden_dropout is None else w.hidden_dropout
    attention = base if w.attention_dropout is None else w.attention_dropout
    embedding = hidden if w.embedding_dropout is None else w.embedding_dropout
    if arch.style == "llama":
        hidden = embedding = 0.0
    return Dropout(hidden, attention, embedding)


def _on(p: float) -> float:
    return 1.0 if p > 0 else 0.0


def layer_mask_bytes_per_token(d: Dropout, arch: TransformerArch, eager: bool, seq: int,
                               fp32: bool) -> float:
    """Bytes per token one layer saves for its dropouts (see the module docstring)."""
    residual = 2 * arch.hidden * _on(d.hidden) if arch.style != "llama" else 0.0
    scores = arch.heads * seq * (1 + (4 if fp32 else 0)) * _on(d.attention) if eager else 0.0
    return residual + scores


def outside_mask_bytes(d: Dropout, arch: TransformerArch, seq: int, head: str,
                       act_bytes: float) -> float:
    """Bytes per sequence saved for the embeddings' dropout and the dropout before a
    classifier: BERT's pooled sequence classifier (mask and dropped-out copy of the pooled
    vector) or a token classifier (a mask per token; the copy replaces the final hidden state
    the classifier's matmul would save anyway)."""
    if arch.style == "llama":
        return 0.0
    embeddings = arch.hidden * seq * _on(d.embedding)
    classifier = 0.0
    if head == "sequence_classification" and arch.style == "bert":
        classifier = arch.hidden * (1 + act_bytes) * _on(d.hidden)
    elif head == "token_classification":
        classifier = arch.hidden * seq * _on(d.hidden)
    return embeddings + classifier


def correction(w: Workload, arch: TransformerArch, seq: int, fp32: bool
               ) -> tuple[float, Msg]:
    """Per-layer bytes per token to add to the calibrated figure for the workload's dropout
    (negative: masks the calibration counted that this model does not save), and a note."""
    d, cal = dropout_of(w, arch), calibrated(arch.style)
    eager = w.attention == "eager"
    delta = (layer_mask_bytes_per_token(d, arch, eager, seq, fp32)
             - layer_mask_bytes_per_token(cal, arch, eager, seq, fp32))
    if d == cal or (not delta and arch.style == "llama"):
        return delta, Msg("", "")
    text = (f"dropout {d.hidden:g} (residual), {d.attention:g} (attention), "
            f"{d.embedding:g} (embeddings)" if arch.style != "llama"
            else f"attention dropout {d.attention:g}")
    zh = (f"dropout：残差 {d.hidden:g}，注意力 {d.attention:g}，嵌入 {d.embedding:g}"
          if arch.style != "llama" else f"注意力 dropout {d.attention:g}")
    if delta < 0:
        return delta, Msg(f"{text}: p = 0 saves no mask, {-delta:,.0f} B/token/layer less",
                          f"{zh}：p = 0 不保存掩码，每层每 token 少 {-delta:,.0f} 字节")
    if delta > 0:
        return delta, Msg(f"{text}: masks add {delta:,.0f} B/token/layer",
                          f"{zh}：掩码每层每 token 多 {delta:,.0f} 字节")
    return delta, Msg(text, zh)


def outside_correction(w: Workload, arch: TransformerArch, seq: int, head: str,
                       act_bytes: float) -> float:
    """Bytes per sequence outside the layers to add for the workload's dropout; the
    calibration measured a token classifier's dropout nowhere (it has none), BERT's pooled
    classifier with its 0.1."""
    measured = head if head == "sequence_classification" else "lm"
    return (outside_mask_bytes(dropout_of(w, arch), arch, seq, head, act_bytes)
            - outside_mask_bytes(calibrated(arch.style), arch, seq, measured, act_bytes))


def korthikanti_dropout_terms(d: Dropout) -> tuple[float, float]:
    """Korthikanti's Table 2 per-layer terms that are dropout's, as (x sbh, x as^2 b): the two
    1-byte residual masks (2 sbh) and the attention mask plus its 16-bit output (3 as^2 b)."""
    return 2.0 * _on(d.hidden), 3.0 * _on(d.attention)


__all__ = ["CALIBRATED_DROPOUT", "Dropout", "calibrated", "correction", "dropout_of",
           "korthikanti_dropout_terms", "layer_mask_bytes_per_token", "outside_correction"]
