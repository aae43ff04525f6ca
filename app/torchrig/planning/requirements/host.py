"""The host: system RAM per node (dataset cache, DataLoader workers and pinned buffers, model
loading, CPU offload by DeepSpeed's estimator, OS and runtime), storage (dataset, model,
checkpoints, read rate) and CPU cores (decode and augmentation, environment simulation;
docs/estimation.md sec. 4, Dettmers).
"""

from __future__ import annotations

import math

from torchrig.i18n import Msg
from torchrig.planning.requirements.assumptions import (
    DECODE_RATE_PER_CORE,
    DEFAULT_ENV_PROCESSES,
    IMAGE_TASKS,
    OS_BASELINE_BYTES,
    PREFETCH_FACTOR,
    RUNTIME_PER_PROCESS_BYTES,
    WORKERS_PER_GPU,
)
from torchrig.planning.requirements.estimators import (
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
)
from torchrig.planning.requirements.model_states import (
    lora_trainable_params,
    optimizer_state_bytes_per_param,
)
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import (
    LOW_PRECISION,
    QUANTIZED,
    TEXT_TASKS,
    ResolvedModel,
    Workload,
)
from torchrig.units import fmt_gb


def _batch_tensor_bytes(w: Workload, model: ResolvedModel) -> tuple[float, Msg]:
    """One collated sample as the DataLoader hands it over."""
    if w.task in TEXT_TASKS:
        seq = model.seq_len or 1
        return seq * 8.0 * 2, Msg("token ids + attention mask, int64",
                                  "token ID 与注意力掩码，int64")
    decoded = decoded_bytes(w, model)
    return decoded * 4.0, Msg("float32 image tensor after ToTensor/normalize (4 x uint8)",
                              "ToTensor/归一化后的 float32 图像张量（uint8 的 4 倍）")


def decoded_bytes(w: Workload, model: ResolvedModel) -> float:
    if w.dataset.decoded_bytes is not None:
        return w.dataset.decoded_bytes
    if w.task in TEXT_TASKS:
        return (model.seq_len or 1) * 8.0
    image = w.image_size or 224
    return float(image * image * model.channels)


def system_ram_items(w: Workload, model: ResolvedModel,
                     assumptions: list[Assumption]) -> dict[str, Item]:
    """Host RAM per node, item by item."""
    items: dict[str, Item] = {}
    items["dataset_cache"] = _dataset_cache(w, model)
    items["dataloader"], items["pinned_buffers"] = _loader(w, model, assumptions)
    items["model_load"] = _model_load(w, model)
    items["cpu_offload"] = _cpu_offload(w, model)
    items["os_and_runtime"] = _os_and_runtime(w.gpus_per_node, assumptions)
    items["total"] = Item(sum(i.value or 0.0 for i in items.values()), Msg(
        "per node, sum of the items above", "每节点，以上各项之和"))
    return items


def _dataset_cache(w: Workload, model: ResolvedModel) -> Item:
    decoded = decoded_bytes(w, model)
    if w.dataset.cache_in_ram:
        return Item(w.dataset.samples * decoded, Msg(
            f"{w.dataset.samples:,} samples x {decoded:,.0f} B decoded (per node: shuffling "
            "needs every sample on every node)",
            f"{w.dataset.samples:,} 个样本 × 解码后 {decoded:,.0f} 字节（每节点：随机打乱需要"
            "每个节点都有全部样本）"))
    return Item(0.0, Msg("not cached in RAM (read from storage)", "不缓存到内存（从存储读取）"))


def _loader(w: Workload, model: ResolvedModel, assumptions: list[Assumption]
            ) -> tuple[Item, Item]:
    """The batches DataLoader workers prefetch (:data:`PREFETCH_FACTOR` each), and their
    page-locked copies."""
    g = w.gpus_per_node
    sample, sample_note = _batch_tensor_bytes(w, model)
    workers = w.num_workers if w.num_workers is not None else WORKERS_PER_GPU
    if w.task == "reinforcement_learning" or not w.is_training and w.task in (
            *TEXT_TASKS, "image_generation"):
        loader = 0.0
        loader_note = Msg("no DataLoader (environment simulation or served requests)",
                          "无 DataLoader（环境模拟或在线请求）")
        pinned = 0.0
    else:
        loader = g * workers * PREFETCH_FACTOR * w.batch_size * sample
        loader_note = Msg(
            f"{g} GPU x {workers} workers x prefetch {PREFETCH_FACTOR} x batch "
            f"{w.batch_size} x {sample:,.0f} B ({sample_note.en})",
            f"{g} GPU × {workers} 个 worker × 预取 {PREFETCH_FACTOR} × 批大小 {w.batch_size} × "
            f"{sample:,.0f} 字节（{sample_note.zh}）")
        pinned = g * PREFETCH_FACTOR * w.batch_size * sample
        assumptions.append(Assumption("workers", Msg(
            f"{workers} DataLoader workers per GPU"
            + ("" if w.num_workers is not None else " (common advice: ~4)"),
            f"每 GPU {workers} 个 DataLoader worker"
            + ("" if w.num_workers is not None else "（常见建议约 4 个）")), workers))
    return Item(loader, loader_note), Item(pinned, Msg(
        "page-locked copies of the batches in flight (pin_memory), 2 per GPU",
        "传输中批次的锁页副本（pin_memory），每 GPU 2 个"))


def _stored_bytes_per_param(w: Workload, model: ResolvedModel) -> float:
    """Bytes per parameter of the model file: 16-bit for text decoders, fp32 otherwise,
    1 or 0.5 for a quantized model. fp8 training reads the 16-bit / fp32 checkpoint (its fp8
    copies are made on the GPU, docs/estimation.md sec. 14)."""
    stored = 2.0 if (model.arch is not None and w.task in TEXT_TASKS
                     and model.arch.style != "bert") else 4.0
    fp8_training = w.precision in LOW_PRECISION and w.is_training
    if w.precision in (*QUANTIZED, *LOW_PRECISION) and not fp8_training:
        stored = {"int8": 1.0, "int4": 0.5, "fp8": 1.0, "fp4": 0.5}[w.precision]
    return stored


def _model_load(w: Workload, model: ResolvedModel) -> Item:
    g = w.gpus_per_node
    stored = _stored_bytes_per_param(w, model)
    one_copy = model.params * stored
    copies = 1 if (w.strategy in ("zero3", "tensor_parallel", "pipeline_parallel")
                   or w.offload != "none") else g
    if not w.is_training:
        return Item(0.0, Msg(
            f"weights ({fmt_gb(one_copy)}) memory-mapped from safetensors and streamed to the "
            "GPU: they pass through the reclaimable page cache, no copy is held in RAM",
            f"权重（{fmt_gb(one_copy)}）以 safetensors 内存映射方式流式载入 GPU：只经过可回收的"
            "页缓存，内存中不保留副本"))
    return Item(one_copy * copies, Msg(
        f"weights read into RAM once per loading process: {copies} x {fmt_gb(one_copy)} "
        f"({stored:g} B/param as stored)"
        + ("; sharded/rank-0 loading" if copies == 1 and g > 1 else ""),
        f"每个加载进程把权重读入内存一次：{copies} × {fmt_gb(one_copy)}（存储时每参数 "
        f"{stored:g} 字节）"))


def _cpu_offload(w: Workload, model: ResolvedModel) -> Item:
    """The offloaded states, by DeepSpeed's estimator."""
    g = w.gpus_per_node
    offload = 0.0
    offload_note = Msg("no CPU offload", "无 CPU 卸载")
    if w.offload != "none":
        if w.strategy == "zero2":
            offload = deepspeed_zero2_estimate(model.params, g, w.nodes, True)[0]
        else:
            offload = deepspeed_zero3_estimate(
                model.params, model.largest_layer_params or 0, g, w.nodes, True,
                w.offload == "optimizer_and_params")[0]
        offload_note = Msg("DeepSpeed's estimator for the offloaded states (x1.5 buffer factor)",
                           "DeepSpeed 估算器给出的卸载状态（含 1.5 倍缓冲系数）")
    return Item(float(offload), offload_note)


def _os_and_runtime(g: int, assumptions: list[Assumption]) -> Item:
    """:data:`OS_BASELINE_BYTES` + :data:`RUNTIME_PER_PROCESS_BYTES` per GPU process."""
    item = Item(float(OS_BASELINE_BYTES + g * RUNTIME_PER_PROCESS_BYTES), Msg(
        f"assumption: 2 GiB OS + 1 GiB per GPU process (Python, PyTorch, CUDA runtime) x {g}",
        f"假设：操作系统 2 GiB + 每个 GPU 进程 1 GiB（Python、PyTorch、CUDA 运行时）× {g}"))
    assumptions.append(Assumption("os_runtime", Msg(
        "host RAM baseline: 2 GiB for the OS + 1 GiB per GPU process (not measured)",
        "内存基线：操作系统 2 GiB + 每个 GPU 进程 1 GiB（未实测）"),
        OS_BASELINE_BYTES + g * RUNTIME_PER_PROCESS_BYTES))
    return item


def storage_items(w: Workload, model: ResolvedModel, samples_per_s: float | None
                  ) -> dict[str, Item]:
    """Disk space (dataset, model file, checkpoints) and the rate the dataset is read at."""
    items: dict[str, Item] = {}
    dataset = w.dataset.samples * w.dataset.sample_bytes
    items["dataset_bytes"] = Item(dataset, Msg(
        f"{w.dataset.samples:,} samples x {w.dataset.sample_bytes:,.0f} B on disk",
        f"{w.dataset.samples:,} 个样本 × 磁盘上 {w.dataset.sample_bytes:,.0f} 字节"))
    stored = _stored_bytes_per_param(w, model)
    items["model_bytes"] = Item(model.params * stored, Msg(
        f"model file, {stored:g} B/param", f"模型文件，每参数 {stored:g} 字节"))
    items["checkpoint_bytes"] = _checkpoints(w, model)
    items["read_rate_bps"] = _read_rate(w, samples_per_s)
    items["total"] = Item(dataset + (items["model_bytes"].value or 0.0)
                          + (items["checkpoint_bytes"].value or 0.0), Msg(
        "dataset + model + checkpoints", "数据集 + 模型 + 检查点"))
    return items


def _checkpoints(w: Workload, model: ResolvedModel) -> Item:
    """The checkpoints kept: what resuming training needs (a LoRA run's adapters only)."""
    if not w.is_training:
        return Item(0.0, Msg("inference: none", "推理：无"))
    if w.is_lora:
        trainable = lora_trainable_params(w, model)
        per = trainable * (4 + optimizer_state_bytes_per_param(w.optimizer, 4))
        note = Msg("adapters + their optimizer states (the base stays unchanged)",
                   "适配器及其优化器状态（基座不变）")
    else:
        per = model.params * (4 + optimizer_state_bytes_per_param(
            w.optimizer, 2 if w.precision == "bf16" else 4))
        note = Msg("fp32 weights + optimizer states, to resume training",
                   "fp32 权重 + 优化器状态，用于恢复训练")
    return Item(per * w.checkpoints_kept, Msg(
        f"{note.en}: {fmt_gb(per)} x {w.checkpoints_kept} kept",
        f"{note.zh}：{fmt_gb(per)} × 保留 {w.checkpoints_kept} 个"))


def _read_rate(w: Workload, samples_per_s: float | None) -> Item:
    """Bytes per second read from storage at the estimated (or the target) throughput."""
    rate_source = samples_per_s if samples_per_s is not None else w.target_samples_per_s
    rate = None
    if rate_source is not None and not w.dataset.cache_in_ram:
        rate = rate_source * w.dataset.sample_bytes
    if not w.dataset.sample_bytes:
        return Item(0.0, Msg("no dataset is read from storage", "不从存储读取数据集"))
    if w.dataset.cache_in_ram:
        return Item(0.0, Msg("dataset cached in RAM after the first epoch",
                             "首个 epoch 后数据集缓存于内存"))
    if rate is None:
        return Item(rate, Msg("unknown: pick a GPU or give target_samples_per_s",
                              "未知：请选择 GPU 或给出 target_samples_per_s"))
    src = "estimated throughput" if samples_per_s is not None else "your target rate"
    src_zh = "估算吞吐" if samples_per_s is not None else "你的目标速率"
    return Item(rate, Msg(f"{src} {rate_source:,.0f} samples/s x {w.dataset.sample_bytes:,.0f} B "
                          "(all nodes together)",
                          f"{src_zh} {rate_source:,.0f} 样本/秒 × {w.dataset.sample_bytes:,.0f} "
                          "字节（全部节点合计）"))


def cpu_items(w: Workload, samples_per_s: float | None,
              assumptions: list[Assumption]) -> dict[str, Item]:
    """CPU cores per node: one main process per GPU plus the data pipeline's."""
    items: dict[str, Item] = {}
    g = w.gpus_per_node
    items["main_processes"] = Item(float(g), Msg("one process per GPU", "每 GPU 一个进程"))
    rate = samples_per_s if samples_per_s is not None else w.target_samples_per_s
    items["decode_cores"] = _decode_cores(w, rate, assumptions)
    decode = items["decode_cores"].value
    items["cores_needed"] = Item(
        None if decode is None else float(math.ceil(decode) + g), Msg(
            "decode cores + one main process per GPU, per node",
            "每节点：解码核数 + 每 GPU 一个主进程"))
    return items


def _decode_cores(w: Workload, rate: float | None, assumptions: list[Assumption]) -> Item:
    """Cores that decode and augment images at ``rate`` (:data:`DECODE_RATE_PER_CORE`), or
    that simulate the environments."""
    if w.task in IMAGE_TASKS and w.is_training and not w.dataset.cache_in_ram:
        low, high = DECODE_RATE_PER_CORE
        if rate is None:
            return Item(None, Msg(
                "unknown: pick a GPU or give target_samples_per_s",
                "未知：请选择 GPU 或给出 target_samples_per_s"))
        per_node = rate / w.nodes
        item = Item(per_node / low, Msg(
            f"{per_node:,.0f} img/s per node / {low:.0f} img/s per core (ESTIMATE with no "
            f"primary source: 150-300 img/s; at 300: {per_node / high:.1f} cores)",
            f"每节点 {per_node:,.0f} 图/秒 / 每核 {low:.0f} 图/秒（无一手来源的估计："
            f"150-300 图/秒；按 300 计需 {per_node / high:.1f} 核）"))
        assumptions.append(Assumption("decode_rate", Msg(
            "one core decodes and augments 150-300 images/s (estimate, no primary source)",
            "每核每秒解码增强 150-300 张图（估计，无一手来源）"), low))
        return item
    if w.task == "reinforcement_learning":
        envs = w.num_workers or DEFAULT_ENV_PROCESSES
        return Item(float(envs), Msg(
            f"environment simulation: {envs} environment processes, one core each (more "
            "processes on more cores raise the environment steps per second)",
            f"环境模拟：{envs} 个环境进程，各占一核（更多核心上的更多进程可提高每秒环境步数）"))
    return Item(0.0, Msg(
        "pre-tokenized text or cached data: loading is light (Dettmers: 1-2 cores/GPU)",
        "预分词文本或已缓存数据：加载开销小（Dettmers：每 GPU 1-2 核）"))
