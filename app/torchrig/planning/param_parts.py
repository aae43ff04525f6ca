"""A transformer's parameters by part - embeddings, blocks, head - and how many train.

Why by part: a config's ``architectures`` decides the head, and the head can be most of a
small model's difference (BERT-base's masked-LM head has a 30,522-wide output bias and a
768 x 768 transform, its sequence classifier a pooler and 2 x 768 weights), while LoRA trains
only the adapters. The parts are counted as the Hugging Face classes build them (a tied output
embedding is the input embedding's matrix, counted once, as ``model.parameters()`` yields it):

- embeddings: the token table, plus GPT-2's and BERT's learned positions and BERT's token types
  (2) and embedding LayerNorm;
- blocks: every layer (norms, biases, experts, routers) and the final norm;
- head: the LM head (an untied output matrix; BERT's masked-LM transform - dense, LayerNorm -
  and its decoder bias), a classifier (BERT: the pooler and a labels x hidden layer with bias;
  decoders: a bias-free ``score`` layer), a token classifier or question-answering layer
  (labels or 2 outputs, with bias), or, for a bare model, BERT's pooler.
"""

from __future__ import annotations

from typing import Any

from torchrig.planning.presets import TransformerArch
from torchrig.records import record

PRESET_HEAD = {"bert": "base", "gpt": "lm", "llama": "lm"}
"""The head a preset's published parameter count includes: BERT's is BertModel with its pooler
(Devlin et al.'s 110M), GPT-2's and Llama's the causal-LM model (docs/estimation.md sec. 2)."""


@record
class ParamParts:
    embeddings: int
    blocks: int
    head: int
    lora: int = 0

    @property
    def model(self) -> int:
        """The model's own parameters (adapters excluded)."""
        return self.embeddings + self.blocks + self.head

    def to_dict(self) -> dict[str, Any]:
        return {"embeddings": self.embeddings, "blocks": self.blocks, "head": self.head,
                "lora_adapters": self.lora}


def embedding_params(arch: TransformerArch) -> int:
    h = arch.hidden
    table = arch.vocab * h
    if arch.style == "bert":
        return table + arch.max_positions * h + 2 * h + 2 * h  # positions, types, LayerNorm
    if arch.style == "gpt":
        return table + arch.max_positions * h
    return table


def block_params(arch: TransformerArch) -> int:
    """Every layer and the final norm (GPT-2: LayerNorm, Llama-style: RMSNorm; BERT's blocks
    end in their own post-LayerNorm)."""
    layers = arch.layers * (arch.layer_params() - arch.layer_matmul_params()) \
        + arch.total_matmul_params()
    final = {"gpt": 2 * arch.hidden, "llama": arch.hidden}.get(arch.style, 0)
    return layers + final


def head_params(arch: TransformerArch, head: str, labels: int) -> int:
    h, v = arch.hidden, arch.vocab
    bert = arch.style == "bert"
    if head == "lm":
        untied = 0 if arch.tied_embeddings else v * h
        return (h * h + h + 2 * h + v + untied) if bert else untied
    if head == "sequence_classification":
        return (h * h + h + h * labels + labels) if bert else h * labels
    if head == "token_classification":
        return h * labels + labels
    if head == "question_answering":
        return h * 2 + 2
    return h * h + h if bert else 0  # the bare model: BERT keeps its pooler


def param_parts(arch: TransformerArch, head: str, labels: int = 2,
                lora_rank: int | None = None) -> ParamParts:
    """The parts for ``head`` (workload_fields.HEADS); adapters when ``lora_rank`` is given."""
    return ParamParts(embedding_params(arch), block_params(arch),
                      head_params(arch, head, labels),
                      arch.lora_params(lora_rank) if lora_rank else 0)


def head_difference(arch: TransformerArch, head: str, labels: int = 2) -> int:
    """Parameters ``head`` has more than the head a preset's published count includes."""
    return head_params(arch, head, labels) - head_params(arch, PRESET_HEAD[arch.style], labels)


__all__ = ["PRESET_HEAD", "ParamParts", "block_params", "embedding_params", "head_difference",
           "head_params", "param_parts"]
