"""Human names for the codes the core keeps in files and JSON, in English and Chinese.

Files, JSON output and the CLI's options use stable codes (``llm_finetune_lora``,
``amp_bf16``, ``nvme``); whatever a person reads - the PDF quote, the shared build text, the
comparison table - shows these names instead. One table per kind of code, so the PDF, the text
export and the GUI say the same thing. :func:`label` falls back to the code itself for a
value no table knows (a free-text category of a custom line), never to an empty string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from torchrig.i18n import Msg, plural

TASKS: dict[str, Msg] = {
    "image_classification": Msg("Image classification", "图像分类"),
    "detection_segmentation": Msg("Detection / segmentation", "目标检测 / 分割"),
    "nlp_transformer": Msg("NLP transformer training", "NLP Transformer 训练"),
    "llm_finetune_full": Msg("Full LLM fine-tuning", "大模型全参数微调"),
    "llm_finetune_lora": Msg("LoRA fine-tuning", "LoRA 微调"),
    "llm_inference": Msg("LLM inference", "大模型推理"),
    "reinforcement_learning": Msg("Reinforcement learning", "强化学习"),
    "image_generation": Msg("Image generation (diffusion)", "图像生成（扩散模型）"),
}

MODELS: dict[str, Msg] = {
    "resnet18": Msg("ResNet-18", "ResNet-18"),
    "resnet50": Msg("ResNet-50", "ResNet-50"),
    "resnet152": Msg("ResNet-152", "ResNet-152"),
    "vit-b-16": Msg("ViT-B/16", "ViT-B/16"),
    "bert-base": Msg("BERT-base (uncased)", "BERT-base（不区分大小写）"),
    "bert-base-cased": Msg("BERT-base (cased)", "BERT-base（区分大小写）"),
    "bert-large": Msg("BERT-large (uncased)", "BERT-large（不区分大小写）"),
    "gpt2": Msg("GPT-2 (124M)", "GPT-2（1.24 亿参数）"),
    "llama-2-7b": Msg("Llama 2 7B", "Llama 2 7B"),
    "llama-2-13b": Msg("Llama 2 13B", "Llama 2 13B"),
    "llama-2-70b": Msg("Llama 2 70B", "Llama 2 70B"),
    "llama-3-8b": Msg("Llama 3 8B", "Llama 3 8B"),
    "llama-3-70b": Msg("Llama 3 70B", "Llama 3 70B"),
    "gpt-3-175b": Msg("GPT-3 175B", "GPT-3 175B"),
    "faster-rcnn-r50-fpn": Msg("Faster R-CNN ResNet-50-FPN", "Faster R-CNN ResNet-50-FPN"),
    "mask-rcnn-r50-fpn": Msg("Mask R-CNN ResNet-50-FPN", "Mask R-CNN ResNet-50-FPN"),
    "retinanet-r50-fpn": Msg("RetinaNet ResNet-50-FPN", "RetinaNet ResNet-50-FPN"),
    "yolov8n": Msg("YOLOv8n (640 px)", "YOLOv8n（640 像素）"),
    "yolov8s": Msg("YOLOv8s (640 px)", "YOLOv8s（640 像素）"),
    "yolov8m": Msg("YOLOv8m (640 px)", "YOLOv8m（640 像素）"),
    "nature-cnn": Msg("Nature DQN CNN (PPO actor-critic)",
                      "Nature DQN 卷积网络（PPO 演员-评论家）"),
    "sd-1.5": Msg("Stable Diffusion 1.5 (U-Net)", "Stable Diffusion 1.5（U-Net）"),
    "sdxl-base-1.0": Msg("Stable Diffusion XL 1.0 base (U-Net)",
                         "Stable Diffusion XL 1.0 基础模型（U-Net）"),
    "dit-xl-2-256": Msg("DiT-XL/2 (256 px)", "DiT-XL/2（256 像素）"),
}
"""Model presets by id, as the Wizard's model list, the plan and the PDF name them."""

MODES: dict[str, Msg] = {
    "train": Msg("training from scratch", "从头训练"),
    "finetune": Msg("fine-tuning", "微调"),
    "infer": Msg("inference", "推理"),
}

PRECISIONS: dict[str, Msg] = {
    "fp32": Msg("FP32", "FP32"),
    "tf32": Msg("TF32", "TF32"),
    "amp_fp16": Msg("AMP (fp16)", "自动混合精度（fp16）"),
    "amp_bf16": Msg("AMP (bf16)", "自动混合精度（bf16）"),
    "bf16": Msg("BF16", "BF16"),
    "fp8": Msg("FP8 (weights and activations)", "FP8（权重与激活）"),
    "fp4": Msg("FP4 (NVFP4, Blackwell)", "FP4（NVFP4，Blackwell）"),
    "int8": Msg("INT8 weights", "INT8 权重"),
    "int4": Msg("INT4 weights", "INT4 权重"),
}

TRAINING_PRECISIONS: dict[str, Msg] = {
    "fp8": Msg("FP8 (Transformer Engine: fp8 GEMMs, fp32 master weights)",
               "FP8（Transformer Engine：fp8 矩阵乘，fp32 主权重）"),
}
"""Where a precision means something else in training than in inference: fp8 inference keeps
weights and activations in fp8; fp8 training runs the linear layers' GEMMs in fp8 and keeps
fp32 master weights (docs/estimation.md sec. 14)."""


def precision_label(precision: str, training: bool, lang: str) -> str:
    """The name of a workload's precision as the plan prints it, in ``lang``."""
    table = TRAINING_PRECISIONS if training and precision in TRAINING_PRECISIONS else PRECISIONS
    return label(table, precision, lang)


OPTIMIZERS: dict[str, Msg] = {
    "sgd": Msg("SGD", "SGD"),
    "sgd_momentum": Msg("SGD with momentum", "带动量的 SGD"),
    "adamw": Msg("AdamW", "AdamW"),
    "adam_8bit": Msg("8-bit Adam", "8 位 Adam"),
}

# The head a transformer's parameter count includes (workload_fields.HEADS).
HEADS: dict[str, Msg] = {
    "lm": Msg("LM head", "语言模型输出头"),
    "sequence_classification": Msg("sequence-classification head", "序列分类输出头"),
    "token_classification": Msg("token-classification head", "词元分类输出头"),
    "question_answering": Msg("question-answering head", "问答输出头"),
    "base": Msg("pooler (base model)", "池化层（基础模型）"),
}

STRATEGIES: dict[str, Msg] = {
    "ddp": Msg("data parallel (DDP)", "数据并行（DDP）"),
    "zero1": Msg("ZeRO-1", "ZeRO-1"),
    "zero2": Msg("ZeRO-2", "ZeRO-2"),
    "zero3": Msg("ZeRO-3 / FSDP", "ZeRO-3 / FSDP"),
    "expert_parallel": Msg("expert parallel (MoE)", "专家并行（MoE）"),
    "tensor_parallel": Msg("tensor parallel", "张量并行"),
    "pipeline_parallel": Msg("pipeline parallel", "流水线并行"),
}

STORAGE_KINDS: dict[str, Msg] = {
    "nvme": Msg("NVMe", "NVMe"),
    "sata-ssd": Msg("SATA SSD", "SATA 固态硬盘"),
    "ssd": Msg("SSD", "固态硬盘"),
    "hdd": Msg("HDD", "机械硬盘"),
    "network": Msg("network storage", "网络存储"),
    "distributed": Msg("distributed storage", "分布式存储"),
    "virtual": Msg("virtual disk", "虚拟磁盘"),
    "unknown": Msg("unknown drive", "未知类型硬盘"),
}

GPU_FORMS: dict[str, Msg] = {
    "pcie": Msg("PCIe card", "PCIe 卡"),
    "sxm4": Msg("SXM4 module", "SXM4 模组"),
    "sxm5": Msg("SXM5 module", "SXM5 模组"),
    "sxm6": Msg("SXM6 module", "SXM6 模组"),
    "oam": Msg("OAM module", "OAM 模组"),
    "module": Msg("embedded module", "嵌入式模组"),
}

INTERCONNECTS: dict[str, Msg] = {
    "pcie": Msg("PCIe", "PCIe"),
    "nvlink": Msg("NVLink", "NVLink"),
    "nvlink-bridge": Msg("NVLink bridge", "NVLink 桥"),
    "infiniband": Msg("InfiniBand", "InfiniBand"),
    "ethernet": Msg("Ethernet", "以太网"),
}

CATEGORIES: dict[str, Msg] = {
    "gpu": Msg("GPU", "显卡"),
    "cpu": Msg("CPU", "处理器"),
    "memory": Msg("Memory", "内存"),
    "storage": Msg("Storage", "存储"),
    "motherboard": Msg("Motherboard", "主板"),
    "psu": Msg("Power supply", "电源"),
    "network": Msg("Network", "网络"),
    "server-platform": Msg("Server platform", "服务器平台"),
    "platform": Msg("Server platform", "服务器平台"),
    "case": Msg("Case", "机箱"),
    "cpu_cooler": Msg("CPU cooler", "CPU 散热器"),
    "cooling": Msg("Cooling", "散热"),
    "storage-system": Msg("Storage system", "存储系统"),
    "shared-storage": Msg("Shared storage", "共享存储"),
    "backup": Msg("Backup", "备份"),
    "switch": Msg("Network switch", "交换机"),
    "software": Msg("Software", "软件"),
    "service": Msg("Service", "服务"),
    "other": Msg("Other", "其他"),
}

GPU_COOLING: dict[str, Msg] = {
    "open-air": Msg("open-air fans", "开放式风扇"),
    "blower": Msg("blower", "涡轮风扇"),
    "passive": Msg("passive (server airflow)", "被动散热（靠服务器风道）"),
    "liquid": Msg("liquid", "水冷"),
}

CHOICES: dict[str, dict[str, Msg]] = {"gpu": GPU_COOLING}
"""Names of the text specs the part picker filters by, per category, where the catalog keeps
a code; the other filters' values (sockets, board sizes, DDR5, ATX 3.1) are names already."""

PRICE_KINDS: dict[str, Msg] = {
    "launch-msrp": Msg("launch MSRP", "首发建议价"),
    "msrp": Msg("MSRP", "建议零售价"),
    "retail": Msg("retail", "零售价"),
    "street": Msg("street price", "市场价"),
    "estimate": Msg("estimate", "估算"),
    "user": Msg("user price", "用户报价"),
}

PRICE_RELIABILITY: dict[str, Msg] = {
    "high": Msg("high", "高"),
    "medium": Msg("medium", "中"),
    "low": Msg("low", "低"),
}
"""How far a catalog price's source can be trusted (docs/hardware-sources.md, "Conventions")."""


def label(table: Mapping[str, Msg], code: str, lang: str) -> str:
    """The ``lang`` name of ``code`` in ``table``; a code no table knows is shown as given."""
    msg = table.get(code)
    return msg.get(lang) if msg is not None else code


def joined(table: Mapping[str, Msg], codes: tuple[str, ...] | list[str], lang: str,
           sep: str = " / ") -> str:
    """Several codes of one kind as one readable text: ``NVMe / HDD``."""
    return sep.join(label(table, code, lang) for code in codes)



_SEED_SECTIONS = re.compile(r"\bseed (\d+(?:\.\d+)?(?:(?:, |、)\d+(?:\.\d+)?)*)")
_REFERENCE_SECTIONS = re.compile(
    r"(?:\bdocs/)?\b(hardware-sources|hardware|estimation)(?: reference|\.md),? "
    r"sec(?:tion|\.) (\d+)")
"""The project's reference documents cited by section: ``docs/hardware-sources.md sec. 3``
and ``docs/estimation.md section 7`` as the code cites them now, and the older "hardware
reference sec. 3" / "estimation.md sec. 5" that saved benchmark reports still hold."""
_REFERENCE_NAMES = {"hardware-sources": "硬件参考", "hardware": "硬件参考",
                    "estimation": "估算参考"}


def citation(source: Msg | str, lang: str) -> str:
    """A rule's source for a reader. Text ("seed 4.2", "Tim Dettmers; seed 1.1",
    "docs/hardware-sources.md sec. 3", as benchmark reports also store it) names the project's
    own documents in ``lang`` ("种子文档 4.2 节", "硬件参考第 3 节"); other names (papers,
    vendors, people) are titles and stay as written. A :class:`Msg` is already in both
    languages."""
    if isinstance(source, Msg):
        return source.get(lang)
    if lang != "zh":
        return source
    text = _SEED_SECTIONS.sub(lambda m: f"种子文档 {m.group(1).replace(', ', '、')} 节", source)
    text = text.replace(" vs ", " 对照 ")  # "seed 2.1 vs seed 4.2": a tier checked against a rule
    return _REFERENCE_SECTIONS.sub(
        lambda m: f"{_REFERENCE_NAMES[m.group(1)]}第 {m.group(2)} 节", text)


def cores(n: int, lang: str) -> str:
    """A core count: "1 core", "8 cores", "8 核"."""
    return plural(n, Msg("{n} core", "{n} 核"), Msg("{n} cores", "{n} 核"), lang)
