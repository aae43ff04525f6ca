"""The Wizard's texts: its choices' display names, its steps, each field's step and label and
help, and the money fields' errors, in form order. Marked for translation in the
``WizardPage`` context (:mod:`torchrig.gui.pages.wizard_page` translates them with
``self.tr``); the fields' keys and kinds are the model's (planning.wizard_model.FIELD_KINDS,
the same keys in the same order)."""

from __future__ import annotations

from torchrig.gui.qt import QT_TRANSLATE_NOOP

CHOICE_LABELS = {
    # tasks
    "image_classification": QT_TRANSLATE_NOOP("WizardPage", "Image classification"),
    "detection_segmentation": QT_TRANSLATE_NOOP("WizardPage", "Detection / segmentation"),
    "nlp_transformer": QT_TRANSLATE_NOOP("WizardPage", "NLP / transformer training"),
    "llm_finetune_full": QT_TRANSLATE_NOOP("WizardPage", "LLM fine-tuning (full)"),
    "llm_finetune_lora": QT_TRANSLATE_NOOP("WizardPage", "LLM fine-tuning (LoRA)"),
    "llm_inference": QT_TRANSLATE_NOOP("WizardPage", "LLM inference"),
    "reinforcement_learning": QT_TRANSLATE_NOOP("WizardPage", "Reinforcement learning"),
    "image_generation": QT_TRANSLATE_NOOP("WizardPage", "Image generation (diffusion)"),
    # modes
    "train": QT_TRANSLATE_NOOP("WizardPage", "Train from scratch"),
    "finetune": QT_TRANSLATE_NOOP("WizardPage", "Fine-tune"),
    "infer": QT_TRANSLATE_NOOP("WizardPage", "Inference"),
    # precisions
    "fp32": QT_TRANSLATE_NOOP("WizardPage", "FP32"),
    "tf32": QT_TRANSLATE_NOOP("WizardPage", "TF32 (FP32 with tensor cores)"),
    "amp_fp16": QT_TRANSLATE_NOOP("WizardPage", "AMP FP16 (mixed precision)"),
    "amp_bf16": QT_TRANSLATE_NOOP("WizardPage", "AMP BF16 (mixed precision)"),
    "bf16": QT_TRANSLATE_NOOP("WizardPage", "BF16 (pure)"),
    "fp8": QT_TRANSLATE_NOOP("WizardPage", "FP8 (LLM inference; transformer training with "
                             "Transformer Engine; Ada, Hopper, Blackwell, CDNA 3)"),
    "fp4": QT_TRANSLATE_NOOP("WizardPage", "FP4 (NVFP4) weights and activations (LLM "
                             "inference; Blackwell)"),
    "int8": QT_TRANSLATE_NOOP("WizardPage", "INT8 weights (inference)"),
    "int4": QT_TRANSLATE_NOOP("WizardPage", "INT4 weights, GPTQ/AWQ style (inference)"),
    # KV cache types, keyed "field.code": the codes bf16 and fp8 name precisions above too
    "kv_cache_dtype.auto": QT_TRANSLATE_NOOP("WizardPage", "Auto: the model's 16-bit type"),
    "kv_cache_dtype.fp16": QT_TRANSLATE_NOOP("WizardPage", "FP16 (2 bytes an element)"),
    "kv_cache_dtype.bf16": QT_TRANSLATE_NOOP("WizardPage", "BF16 (2 bytes an element)"),
    "kv_cache_dtype.fp8": QT_TRANSLATE_NOOP("WizardPage", "FP8 (half the bytes)"),
    # optimizers
    "sgd": QT_TRANSLATE_NOOP("WizardPage", "SGD"),
    "sgd_momentum": QT_TRANSLATE_NOOP("WizardPage", "SGD with momentum"),
    "adamw": QT_TRANSLATE_NOOP("WizardPage", "AdamW"),
    "adam_8bit": QT_TRANSLATE_NOOP("WizardPage", "Adam 8-bit"),
    # strategies
    "ddp": QT_TRANSLATE_NOOP("WizardPage", "DDP (data parallel)"),
    "zero1": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-1 (optimizer states sharded)"),
    "zero2": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-2 (+ gradients sharded)"),
    "zero3": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-3 / FSDP (+ weights sharded)"),
    "tensor_parallel": QT_TRANSLATE_NOOP("WizardPage", "Tensor parallel"),
    "pipeline_parallel": QT_TRANSLATE_NOOP("WizardPage", "Pipeline parallel"),
    "expert_parallel": QT_TRANSLATE_NOOP("WizardPage", "Expert parallel (MoE experts split)"),
    # offloads
    "none": QT_TRANSLATE_NOOP("WizardPage", "None"),
    "optimizer": QT_TRANSLATE_NOOP("WizardPage", "Optimizer states to CPU RAM"),
    "optimizer_and_params": QT_TRANSLATE_NOOP("WizardPage",
                                              "Optimizer states and weights to CPU RAM"),
    # classifier-free guidance
    "default": QT_TRANSLATE_NOOP("WizardPage", "The model's usual setting (on)"),
    "on": QT_TRANSLATE_NOOP("WizardPage", "On: two denoiser passes per step"),
    "off": QT_TRANSLATE_NOOP("WizardPage", "Off"),
    # the network between nodes: planning/links.py's names of its inter-node links (a test
    # holds them equal), keyed "network.code"; "network." is none given
    "network.": QT_TRANSLATE_NOOP("WizardPage", "Not given: the machine's own, if known"),
    "network.eth_10g": QT_TRANSLATE_NOOP("WizardPage", "10 GbE"),
    "network.eth_25g": QT_TRANSLATE_NOOP("WizardPage", "25 GbE"),
    "network.eth_100g": QT_TRANSLATE_NOOP("WizardPage", "100 GbE"),
    "network.ib_hdr": QT_TRANSLATE_NOOP("WizardPage", "InfiniBand HDR (200 Gb/s)"),
    "network.ib_ndr": QT_TRANSLATE_NOOP("WizardPage", "InfiniBand NDR (400 Gb/s)"),
}
"""Display names of the workload's choice values (the values stay codes in the file)."""

# Field key (as in the workload document) -> (step, label), in form order; the fields' kinds
# are the model's (planning.wizard_model.FIELD_KINDS, the same keys in the same order).
STEPS = (
    QT_TRANSLATE_NOOP("WizardPage", "Task"),
    QT_TRANSLATE_NOOP("WizardPage", "Model"),
    QT_TRANSLATE_NOOP("WizardPage", "Training"),
    QT_TRANSLATE_NOOP("WizardPage", "Data"),
    QT_TRANSLATE_NOOP("WizardPage", "Scale"),
)
TASK_STEP, MODEL_STEP, TRAINING_STEP, DATA_STEP, SCALE_STEP = STEPS
FIELDS: dict[str, tuple[str, str]] = {
    "task": (TASK_STEP, QT_TRANSLATE_NOOP("WizardPage", "Task")),
    "mode": (TASK_STEP, QT_TRANSLATE_NOOP("WizardPage", "Mode")),
    "model": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Model")),
    "params": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Parameters (custom)")),
    "layers": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Layers (custom)")),
    "hidden": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Hidden size (custom)")),
    "heads": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Attention heads (custom)")),
    "kv_heads": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "KV heads (custom)")),
    "vocab": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Vocabulary (custom)")),
    "precision": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Precision")),
    "optimizer": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Optimizer")),
    "batch_size": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Batch size per GPU")),
    "grad_accumulation": (TRAINING_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Gradient accumulation steps")),
    "image_size": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Image size (pixels)")),
    "seq_len": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Sequence length (tokens)")),
    "output_tokens": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage",
                                                       "Output tokens per request (serving)")),
    "kv_cache_dtype": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "KV cache type (serving)")),
    "gradient_checkpointing": (TRAINING_STEP,
                               QT_TRANSLATE_NOOP("WizardPage", "Gradient checkpointing")),
    "lora_rank": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "LoRA rank")),
    "epochs": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Epochs")),
    "ema": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Keep a moving average of the "
                                             "weights (EMA)")),
    "denoising_steps": (TRAINING_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Denoising steps per image (generation)")),
    "guidance": (TRAINING_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Classifier-free guidance (generation)")),
    "dataset.samples": (DATA_STEP, QT_TRANSLATE_NOOP("WizardPage", "Samples per epoch")),
    "dataset.sample_bytes": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Mean sample size on disk (bytes)")),
    "dataset.decoded_bytes": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Decoded sample size (bytes, empty = derive)")),
    "dataset.cache_in_ram": (DATA_STEP, QT_TRANSLATE_NOOP("WizardPage",
                                                          "Cache the dataset in RAM")),
    "precomputed_latents": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Images already encoded to VAE latents")),
    "gpus_per_node": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "GPUs per node")),
    "nodes": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Nodes")),
    "network": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Network between nodes")),
    "nics_per_node": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Network ports per node")),
    "strategy": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Strategy")),
    "tp_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Tensor-parallel size")),
    "pp_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Pipeline-parallel size")),
    "vp_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage",
                                              "Virtual pipeline stages per GPU")),
    "ep_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Expert-parallel size")),
    "offload": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "CPU offload")),
}
FIELD_HELP = {
    "task": QT_TRANSLATE_NOOP(
        "WizardPage", "The kind of work; choosing one loads that task's typical defaults"),
    "mode": QT_TRANSLATE_NOOP(
        "WizardPage", "Training keeps gradients and optimizer states in memory; inference "
        "needs only the weights and activations"),
    "model": QT_TRANSLATE_NOOP(
        "WizardPage", "A model preset with published parameter counts, or Custom… to enter "
        "the architecture yourself"),
    "params": QT_TRANSLATE_NOOP(
        "WizardPage", "Total trainable parameters, e.g. 7000000000 for a 7B model"),
    "layers": QT_TRANSLATE_NOOP("WizardPage", "Number of transformer blocks"),
    "hidden": QT_TRANSLATE_NOOP("WizardPage", "Width of the hidden state (d_model)"),
    "heads": QT_TRANSLATE_NOOP("WizardPage", "Attention heads per layer"),
    "kv_heads": QT_TRANSLATE_NOOP(
        "WizardPage", "Key/value heads (fewer than attention heads with grouped-query "
        "attention); sets the KV cache size"),
    "vocab": QT_TRANSLATE_NOOP("WizardPage", "Tokenizer vocabulary size (embedding rows)"),
    "precision": QT_TRANSLATE_NOOP(
        "WizardPage", "Number format of weights and math. Mixed precision (AMP) halves "
        "activation memory and uses tensor cores; Adam's states stay FP32 (seed 3.1)"),
    "optimizer": QT_TRANSLATE_NOOP(
        "WizardPage", "Sets the optimizer state per parameter: none for SGD, one for "
        "momentum, two FP32 moments for AdamW"),
    "batch_size": QT_TRANSLATE_NOOP(
        "WizardPage", "Samples one GPU processes per step (the micro-batch); activation "
        "memory grows with it"),
    "grad_accumulation": QT_TRANSLATE_NOOP(
        "WizardPage", "Micro-batches per optimizer step: the global batch is batch x this x "
        "data-parallel GPUs; gradients are synchronised once per step, and a pipeline's "
        "stages idle less with more of them"),
    "image_size": QT_TRANSLATE_NOOP(
        "WizardPage", "Input side length in pixels (224 for ImageNet classification)"),
    "seq_len": QT_TRANSLATE_NOOP(
        "WizardPage", "Tokens per sample; attention activations and the KV cache grow "
        "with it"),
    "output_tokens": QT_TRANSLATE_NOOP(
        "WizardPage", "LLM inference: tokens generated per request; the sequence length is "
        "then the prompt, and the KV cache holds both"),
    "kv_cache_dtype": QT_TRANSLATE_NOOP(
        "WizardPage", "LLM inference: the KV cache's number format; FP8 halves it, so twice "
        "the requests fit"),
    "gradient_checkpointing": QT_TRANSLATE_NOOP(
        "WizardPage", "Recompute activations in the backward pass: much less activation "
        "memory for extra compute time (seed 3.3)"),
    "lora_rank": QT_TRANSLATE_NOOP(
        "WizardPage", "Rank of the LoRA adapters; only the adapters are trained"),
    "epochs": QT_TRANSLATE_NOOP(
        "WizardPage", "Passes over the dataset; used for the time estimate"),
    "ema": QT_TRANSLATE_NOOP(
        "WizardPage", "Training keeps an FP32 exponential moving average of the weights, as "
        "diffusion training usually does: 4 more bytes per trained parameter"),
    "denoising_steps": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation: denoiser passes per image (empty = 50); guidance "
        "doubles each"),
    "guidance": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation: guidance runs the denoiser with and without the "
        "prompt (or class) at every step, twice the work per image"),
    "precomputed_latents": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation training: the images were encoded to latents "
        "beforehand, so the VAE does not encode each batch (less memory and time)"),
    "dataset.samples": QT_TRANSLATE_NOOP(
        "WizardPage", "Images, sequences or environment steps in one epoch"),
    "dataset.sample_bytes": QT_TRANSLATE_NOOP(
        "WizardPage", "Average size of one sample as stored (e.g. a JPEG); sets the disk "
        "read rate the loader needs"),
    "dataset.decoded_bytes": QT_TRANSLATE_NOOP(
        "WizardPage", "One sample after decoding, in RAM; empty derives it from the image "
        "size or sequence length"),
    "dataset.cache_in_ram": QT_TRANSLATE_NOOP(
        "WizardPage", "Keep the decoded dataset in RAM so epochs after the first do not read "
        "the disk (seed 1.2)"),
    "gpus_per_node": QT_TRANSLATE_NOOP("WizardPage", "GPUs in each machine"),
    "nodes": QT_TRANSLATE_NOOP("WizardPage", "Machines; more than one adds network traffic"),
    "network": QT_TRANSLATE_NOOP(
        "WizardPage", "The link between the nodes (for more than one node); not given, the "
        "network of the machine checked against when it has one, else the time assumes "
        "perfect scaling across nodes, an upper bound"),
    "nics_per_node": QT_TRANSLATE_NOOP(
        "WizardPage", "Ports of that network each node has for the GPUs' traffic (empty = 1; "
        "a DGX H100 has 8)"),
    "strategy": QT_TRANSLATE_NOOP(
        "WizardPage", "How the work is split over GPUs: DDP copies the model to every GPU, "
        "ZeRO/FSDP shard its states, tensor and pipeline parallelism split the model "
        "(seed 3.2)"),
    "tp_size": QT_TRANSLATE_NOOP(
        "WizardPage", "GPUs that split each layer (tensor parallelism); keep it within one "
        "node's NVLink domain"),
    "pp_size": QT_TRANSLATE_NOOP("WizardPage", "Pipeline stages the layers are split into"),
    "vp_size": QT_TRANSLATE_NOOP(
        "WizardPage", "Model chunks each pipeline GPU holds (Megatron's interleaved 1F1B): "
        "the pipeline's bubble shrinks by this factor; 1 = plain 1F1B. Needs gradient "
        "accumulation steps a multiple of the pipeline stages"),
    "ep_size": QT_TRANSLATE_NOOP(
        "WizardPage", "GPUs a mixture of experts' routed experts are split over (each GPU keeps "
        "the attention and shared layers)"),
    "offload": QT_TRANSLATE_NOOP(
        "WizardPage", "Move optimizer states (and weights) to CPU RAM to save VRAM, at the "
        "cost of PCIe traffic"),
}
MONEY_ERRORS = {
    "time_target": QT_TRANSLATE_NOOP("WizardPage",
                                      "Time target: give a positive number of hours"),
    "rate": QT_TRANSLATE_NOOP("WizardPage",
                              "Exchange rate: give a positive number of CNY per USD, such as "
                              "7.1"),
    "hourly_price": QT_TRANSLATE_NOOP("WizardPage",
                                      "Price per GPU-hour: give a positive amount such as 2.50 "
                                      "or 1,299.00 (a point before the decimals; commas only "
                                      "between groups of three digits)"),
}
"""What the error line under the money fields says for each field that does not parse."""
