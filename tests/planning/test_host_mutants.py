"""Host RAM, storage and CPU cores per node, with bytes worked out in the test (mutation
testing, issue 28). Rules: docs/estimation.md sec. 4 (DataLoader: GPUs x workers x prefetch 2 x
batch x sample bytes, pinned copies 2 per GPU; the weights read once per loading process;
DeepSpeed's estimator for CPU offload; 2 GiB OS + 1 GiB per GPU process; one core decodes
150-300 images/s) and the defaults of torchrig.planning.workload (ImageNet 1,281,167 images of
110,000 B; Alpaca 52,002 examples of 8,192 B).

Parameter counts (Hugging Face / torchvision): ResNet-50 25,557,032; Llama-2-7B 6,738,415,616;
its rank-16 LoRA 39,976,960 (counted in test_requirements_plan.py).
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.host import decoded_bytes
from torchrig.planning.workload import default_workload, resolve_model
from torchrig.units import GiB

R50 = 25_557_032
P7 = 6_738_415_616
A16 = 39_976_960
IMAGE = 224 * 224 * 3  # 150,528 B decoded, x 4 as a float32 tensor


def _ram(task: str, gpu=None, **changes):
    return plan(dataclasses.replace(default_workload(task), **changes), gpu).system_ram


def _dataset(task: str, **changes):
    return dataclasses.replace(default_workload(task).dataset, **changes)


# --------------------------------------------------------------------------- system RAM


def test_image_training_on_one_gpu_item_by_item():
    ram = _ram("image_classification")  # ResNet-50, batch 256, 224 px
    assert ram["dataset_cache"].value == 0.0
    assert ram["dataset_cache"].note.en == "not cached in RAM (read from storage)"
    assert ram["dataloader"].value == 1 * 4 * 2 * 256 * IMAGE * 4 == 1_233_125_376
    assert ram["dataloader"].note.en == (
        "1 GPU x 4 workers x prefetch 2 x batch 256 x 602,112 B (float32 image tensor after "
        "ToTensor/normalize (4 x uint8))")
    assert ram["dataloader"].note.zh == (
        "1 GPU × 4 个 worker × 预取 2 × 批大小 256 × 602,112 字节（ToTensor/归一化后的 float32 "
        "图像张量（uint8 的 4 倍））")
    assert ram["pinned_buffers"].value == 1 * 2 * 256 * IMAGE * 4 == 308_281_344
    assert ram["model_load"].value == 4 * R50  # fp32 file, one process
    assert ram["model_load"].note.en == "weights read into RAM once per loading process: 1 x " \
        "102.2 MB (4 B/param as stored)"
    assert ram["cpu_offload"].value == 0.0
    assert ram["cpu_offload"].note.en == "no CPU offload"
    assert ram["os_and_runtime"].value == 2 * GiB + 1 * GiB
    assert ram["total"].value == 1_233_125_376 + 308_281_344 + 4 * R50 + 3 * GiB
    assert ram["total"].note.en == "per node, sum of the items above"


def test_four_data_parallel_processes_each_load_the_model():
    ram = _ram("image_classification", gpus_per_node=4, num_workers=2)
    assert ram["dataloader"].value == 4 * 2 * 2 * 256 * IMAGE * 4
    assert ram["dataloader"].note.en.startswith("4 GPU x 2 workers x prefetch 2")
    assert ram["pinned_buffers"].value == 4 * 2 * 256 * IMAGE * 4
    assert ram["model_load"].value == 4 * 4 * R50
    assert ram["model_load"].note.en == "weights read into RAM once per loading process: 4 x " \
        "102.2 MB (4 B/param as stored)"
    assert ram["os_and_runtime"].value == 2 * GiB + 4 * GiB
    req = plan(dataclasses.replace(default_workload("image_classification"), gpus_per_node=4,
                                   num_workers=2))
    workers = next(a for a in req.assumptions if a.key == "workers")
    assert (workers.value, workers.text.en) == (2, "2 DataLoader workers per GPU")
    default = plan(default_workload("image_classification"))
    workers = next(a for a in default.assumptions if a.key == "workers")
    assert workers.text.en == "4 DataLoader workers per GPU (common advice: ~4)"
    assert workers.text.zh == "每 GPU 4 个 DataLoader worker（常见建议约 4 个）"
    os_rt = next(a for a in default.assumptions if a.key == "os_runtime")
    assert os_rt.value == 3 * GiB


def test_dataset_cached_in_ram_and_its_decoded_size():
    ram = _ram("image_classification", dataset=_dataset("image_classification",
                                                        cache_in_ram=True))
    assert ram["dataset_cache"].value == 1_281_167 * IMAGE
    assert ram["dataset_cache"].note.en == (
        "1,281,167 samples x 150,528 B decoded (per node: shuffling needs every sample on "
        "every node)")
    own = _ram("image_classification", dataset=_dataset("image_classification",
                                                       cache_in_ram=True, decoded_bytes=1000.0))
    assert own["dataset_cache"].value == 1_281_167 * 1000
    assert own["dataloader"].value == 4 * 2 * 256 * 1000 * 4


def test_decoded_bytes_of_text_images_and_other_sizes():
    text = default_workload("llm_finetune_lora")
    assert decoded_bytes(text, resolve_model(text)) == 2048 * 8.0
    rl = default_workload("reinforcement_learning")  # 84 x 84, 4 stacked frames
    assert decoded_bytes(rl, resolve_model(rl)) == 84 * 84 * 4
    no_size = dataclasses.replace(default_workload("image_classification"), image_size=None)
    assert decoded_bytes(no_size, resolve_model(no_size)) == IMAGE


def test_text_training_loads_once_under_zero3():
    ram = _ram("llm_finetune_full")  # ZeRO-3 on 8 GPUs, seq 2048, batch 1
    # token ids + attention mask, int64: 2048 x 8 x 2 = 32,768 B per sample
    assert ram["dataloader"].value == 8 * 4 * 2 * 1 * 32_768
    assert ram["dataloader"].note.en.endswith("x 32,768 B (token ids + attention mask, int64)")
    assert ram["pinned_buffers"].value == 8 * 2 * 1 * 32_768
    assert ram["model_load"].value == 2 * P7  # 16-bit file, rank-0 / sharded loading
    assert ram["model_load"].note.en == "weights read into RAM once per loading process: 1 x " \
        "13.5 GB (2 B/param as stored); sharded/rank-0 loading"
    ddp = _ram("llm_finetune_full", strategy="ddp")
    assert ddp["model_load"].value == 8 * 2 * P7
    assert "sharded" not in ddp["model_load"].note.en


@pytest.mark.parametrize("changes", [
    dict(strategy="tensor_parallel", tp_size=8),
    dict(strategy="pipeline_parallel", pp_size=8),
    dict(strategy="zero2", offload="optimizer"),
])
def test_model_parallel_and_offload_load_the_weights_once(changes):
    assert _ram("llm_finetune_full", **changes)["model_load"].value == 2 * P7


def test_inference_streams_the_weights():
    ram = _ram("llm_inference")
    assert ram["model_load"].value == 0.0
    assert ram["model_load"].note.en.startswith("weights (16.1 GB) memory-mapped from "
                                                "safetensors and streamed to the GPU")
    assert ram["dataloader"].value == 0.0 and ram["pinned_buffers"].value == 0.0
    assert ram["dataloader"].note.en == "no DataLoader (environment simulation or served " \
        "requests)"
    vision = _ram("image_classification", mode="infer")
    assert vision["dataloader"].value == 4 * 2 * 256 * IMAGE * 4  # batches still load
    rl = _ram("reinforcement_learning")
    assert rl["dataloader"].value == 0.0


def test_offload_by_deepspeeds_estimator():
    # ZeRO-3 offload of the optimizer: params x 16 x 1.5 per node; of the parameters too: 18
    z3 = _ram("llm_finetune_full", offload="optimizer")
    assert z3["cpu_offload"].value == int(P7 * 16 * 1.5)
    assert z3["cpu_offload"].note.en == ("DeepSpeed's estimator for the offloaded states (x1.5 "
                                         "buffer factor)")
    inf = _ram("llm_finetune_full", offload="optimizer_and_params")
    assert inf["cpu_offload"].value == int(P7 * 18 * 1.5)
    two_nodes = _ram("llm_finetune_full", offload="optimizer", nodes=2)
    assert two_nodes["cpu_offload"].value == int(P7 * 16 / 2 * 1.5)
    # ZeRO-2: params x max(4 x GPUs, 16) x 1.5 = x 48 on 8 GPUs
    z2 = _ram("llm_finetune_full", strategy="zero2", offload="optimizer")
    assert z2["cpu_offload"].value == int(P7 * 32 * 1.5)
    z2_two = _ram("llm_finetune_full", strategy="zero2", offload="optimizer", gpus_per_node=2)
    assert z2_two["cpu_offload"].value == int(P7 * 16 * 1.5)


# --------------------------------------------------------------------------- storage


def _storage(task: str, gpu=None, **changes):
    return plan(dataclasses.replace(default_workload(task), **changes), gpu).storage


def test_full_fine_tune_storage():
    s = _storage("llm_finetune_full")
    assert s["dataset_bytes"].value == 52_002 * 8_192
    assert s["dataset_bytes"].note.en == "52,002 samples x 8,192 B on disk"
    assert s["model_bytes"].value == 2 * P7
    assert s["model_bytes"].note.en == "model file, 2 B/param"
    # fp32 weights + AdamW's two fp32 moments = 12 B/param, 3 kept
    assert s["checkpoint_bytes"].value == P7 * 12 * 3
    assert s["checkpoint_bytes"].note.en == ("fp32 weights + optimizer states, to resume "
                                             "training: 80.9 GB x 3 kept")
    assert s["total"].value == 52_002 * 8_192 + 2 * P7 + P7 * 12 * 3
    bf16 = _storage("llm_finetune_full", precision="bf16", checkpoints_kept=1)
    assert bf16["checkpoint_bytes"].value == P7 * (4 + 4)


def test_lora_checkpoints_keep_only_the_adapters():
    s = _storage("llm_finetune_lora")
    assert s["checkpoint_bytes"].value == A16 * (4 + 8) * 3
    assert s["checkpoint_bytes"].note.en.startswith("adapters + their optimizer states (the "
                                                    "base stays unchanged): ")


def test_inference_and_quantized_storage():
    s = _storage("llm_inference")
    assert s["checkpoint_bytes"].value == 0.0
    assert s["checkpoint_bytes"].note.en == "inference: none"
    assert s["model_bytes"].value == 2 * 8_030_261_248
    assert _storage("llm_inference", precision="int8")["model_bytes"].value == 8_030_261_248
    assert _storage("llm_inference", precision="int4")["model_bytes"].value == 8_030_261_248 / 2
    assert _storage("image_classification")["model_bytes"].value == 4 * R50
    bert = _storage("nlp_transformer")  # an encoder's file is fp32
    assert bert["model_bytes"].value == 4 * 109_482_240


GPU = DeviceSpec("Test GPU", 80 * GiB, {"fp16": 320e12}, 2039e9, True)


def test_read_rate_from_the_estimate_or_the_target():
    # ResNet-50 AMP at 2039 GB/s: NVIDIA's 2470 img/s (test_throughput_mutants.py)
    s = _storage("image_classification", GPU)
    assert s["read_rate_bps"].value == pytest.approx(2470 * 110_000, rel=1e-12)
    assert s["read_rate_bps"].note.en == "estimated throughput 2,470 samples/s x 110,000 B " \
        "(all nodes together)"
    target = _storage("image_classification", target_samples_per_s=1000.0)
    assert target["read_rate_bps"].value == 1000 * 110_000
    assert target["read_rate_bps"].note.en == "your target rate 1,000 samples/s x 110,000 B " \
        "(all nodes together)"
    assert target["read_rate_bps"].note.zh == ("你的目标速率 1,000 样本/秒 × 110,000 字节"
                                               "（全部节点合计）")
    unknown = _storage("image_classification")
    assert unknown["read_rate_bps"].value is None
    assert unknown["read_rate_bps"].note.en == "unknown: pick a GPU or give target_samples_per_s"
    cached = _storage("image_classification", GPU, dataset=_dataset("image_classification",
                                                                     cache_in_ram=True))
    assert cached["read_rate_bps"].value == 0.0
    assert cached["read_rate_bps"].note.en == "dataset cached in RAM after the first epoch"
    none = _storage("llm_inference", GPU)
    assert none["read_rate_bps"].value == 0.0
    assert none["read_rate_bps"].note.en == "no dataset is read from storage"


# --------------------------------------------------------------------------- CPU


def _cpu(task: str, gpu=None, **changes):
    return plan(dataclasses.replace(default_workload(task), **changes), gpu).cpu


def test_decode_cores_at_150_images_per_core():
    c = _cpu("image_classification", target_samples_per_s=3000.0)
    assert c["main_processes"].value == 1.0
    assert c["decode_cores"].value == 3000 / 150
    assert c["decode_cores"].note.en == ("3,000 img/s per node / 150 img/s per core (ESTIMATE "
                                         "with no primary source: 150-300 img/s; at 300: 10.0 "
                                         "cores)")
    assert c["cores_needed"].value == 20 + 1
    two = _cpu("image_classification", target_samples_per_s=3100.0, nodes=2, gpus_per_node=2)
    assert two["decode_cores"].value == pytest.approx(1550 / 150, rel=1e-12)
    assert two["cores_needed"].value == 11 + 2  # ceil(10.33) + 2 GPUs
    on_gpu = _cpu("image_classification", GPU)
    assert on_gpu["decode_cores"].value == pytest.approx(2470 / 150, rel=1e-12)


def test_decode_cores_unknown_without_a_rate():
    c = _cpu("image_classification")
    assert c["decode_cores"].value is None and c["cores_needed"].value is None
    assert c["decode_cores"].note.en == "unknown: pick a GPU or give target_samples_per_s"


def test_no_decode_for_cached_images_text_or_inference():
    cached = _cpu("image_classification", target_samples_per_s=3000.0,
                  dataset=_dataset("image_classification", cache_in_ram=True))
    assert cached["decode_cores"].value == 0.0
    assert _cpu("llm_finetune_lora")["decode_cores"].value == 0.0
    assert _cpu("llm_finetune_lora")["cores_needed"].value == 0 + 1
    assert _cpu("image_classification", mode="infer",
                target_samples_per_s=3000.0)["decode_cores"].value == 0.0


def test_environment_processes_take_a_core_each():
    c = _cpu("reinforcement_learning")
    assert c["decode_cores"].value == 8.0
    assert c["decode_cores"].note.en.startswith("environment simulation: 8 environment "
                                                "processes, one core each")
    assert c["cores_needed"].value == 8 + 1
    assert _cpu("reinforcement_learning", num_workers=16)["decode_cores"].value == 16.0


# --------------------------------------------------------------------------- second round


def test_ram_notes_in_both_languages():
    ram = _ram("image_classification")
    assert ram["dataset_cache"].note.zh == "不缓存到内存（从存储读取）"
    assert ram["pinned_buffers"].note.en == ("page-locked copies of the batches in flight "
                                             "(pin_memory), 2 per GPU")
    assert ram["pinned_buffers"].note.zh == "传输中批次的锁页副本（pin_memory），每 GPU 2 个"
    assert ram["model_load"].note.zh == ("每个加载进程把权重读入内存一次：1 × 102.2 MB"
                                         "（存储时每参数 4 字节）")
    assert (ram["cpu_offload"].note.en, ram["cpu_offload"].note.zh) == ("no CPU offload",
                                                                        "无 CPU 卸载")
    assert ram["os_and_runtime"].note.en == ("assumption: 2 GiB OS + 1 GiB per GPU process "
                                             "(Python, PyTorch, CUDA runtime) x 1")
    assert ram["os_and_runtime"].note.zh == ("假设：操作系统 2 GiB + 每个 GPU 进程 1 GiB"
                                             "（Python、PyTorch、CUDA 运行时）× 1")
    assert ram["total"].note.zh == "每节点，以上各项之和"
    req = plan(default_workload("image_classification"))
    os_rt = next(a for a in req.assumptions if a.key == "os_runtime")
    assert os_rt.text.en == "host RAM baseline: 2 GiB for the OS + 1 GiB per GPU process (not " \
        "measured)"
    assert os_rt.text.zh == "内存基线：操作系统 2 GiB + 每个 GPU 进程 1 GiB（未实测）"
    two = plan(dataclasses.replace(default_workload("image_classification"), num_workers=2))
    workers = next(a for a in two.assumptions if a.key == "workers")
    assert workers.text.zh == "每 GPU 2 个 DataLoader worker"
    text = _ram("llm_finetune_lora")
    assert text["dataloader"].note.zh.endswith("× 32,768 字节（token ID 与注意力掩码，int64）")
    cached = _ram("image_classification", dataset=_dataset("image_classification",
                                                          cache_in_ram=True))
    assert cached["dataset_cache"].note.zh == ("1,281,167 个样本 × 解码后 150,528 字节（每节点："
                                               "随机打乱需要每个节点都有全部样本）")


def test_inference_and_offload_notes_in_both_languages():
    ram = _ram("llm_inference")
    assert ram["model_load"].note.en == (
        "weights (16.1 GB) memory-mapped from safetensors and streamed to the GPU: they pass "
        "through the reclaimable page cache, no copy is held in RAM")
    assert ram["model_load"].note.zh == ("权重（16.1 GB）以 safetensors 内存映射方式流式载入 GPU："
                                         "只经过可回收的页缓存，内存中不保留副本")
    assert ram["dataloader"].note.zh == "无 DataLoader（环境模拟或在线请求）"
    off = _ram("llm_finetune_full", offload="optimizer")
    assert off["cpu_offload"].note.zh == "DeepSpeed 估算器给出的卸载状态（含 1.5 倍缓冲系数）"
    # image generation serves requests: no DataLoader
    gen = _ram("image_generation", mode="infer", gradient_checkpointing=False)
    assert gen["dataloader"].value == 0.0 and gen["pinned_buffers"].value == 0.0


def test_two_gpus_under_zero3_load_once_and_say_so():
    ram = _ram("llm_finetune_full", gpus_per_node=2)
    assert ram["model_load"].value == 2 * P7
    assert ram["model_load"].note.en.endswith("; sharded/rank-0 loading")
    one = _ram("llm_finetune_full", gpus_per_node=1)
    assert not one["model_load"].note.en.endswith("loading")


def test_storage_notes_in_both_languages():
    s = _storage("llm_finetune_full")
    assert s["dataset_bytes"].note.zh == "52,002 个样本 × 磁盘上 8,192 字节"
    assert s["model_bytes"].note.zh == "模型文件，每参数 2 字节"
    assert s["checkpoint_bytes"].note.zh == ("fp32 权重 + 优化器状态，用于恢复训练："
                                             "80.9 GB × 保留 3 个")
    assert (s["total"].note.en, s["total"].note.zh) == ("dataset + model + checkpoints",
                                                        "数据集 + 模型 + 检查点")
    lora = _storage("llm_finetune_lora")
    assert lora["checkpoint_bytes"].note.zh.startswith("适配器及其优化器状态（基座不变）：")
    inf = _storage("llm_inference", GPU)
    assert inf["checkpoint_bytes"].note.zh == "推理：无"
    assert inf["read_rate_bps"].note.zh == "不从存储读取数据集"
    est = _storage("image_classification", GPU)
    assert est["read_rate_bps"].note.zh == "估算吞吐 2,470 样本/秒 × 110,000 字节（全部节点合计）"
    cached = _storage("image_classification", GPU, dataset=_dataset("image_classification",
                                                                    cache_in_ram=True))
    assert cached["read_rate_bps"].note.zh == "首个 epoch 后数据集缓存于内存"
    assert _storage("image_classification")["read_rate_bps"].note.zh == \
        "未知：请选择 GPU 或给出 target_samples_per_s"


def test_cpu_notes_and_the_decode_assumption():
    req = plan(dataclasses.replace(default_workload("image_classification"),
                                   target_samples_per_s=3000.0))
    c = req.cpu
    assert (c["main_processes"].note.en, c["main_processes"].note.zh) == (
        "one process per GPU", "每 GPU 一个进程")
    assert c["cores_needed"].note.en == "decode cores + one main process per GPU, per node"
    assert c["cores_needed"].note.zh == "每节点：解码核数 + 每 GPU 一个主进程"
    assert c["decode_cores"].note.zh == ("每节点 3,000 图/秒 / 每核 150 图/秒（无一手来源的估计："
                                         "150-300 图/秒；按 300 计需 10.0 核）")
    a = next(x for x in req.assumptions if x.key == "decode_rate")
    assert a.value == 150.0
    assert a.text.en == "one core decodes and augments 150-300 images/s (estimate, no primary " \
        "source)"
    assert a.text.zh == "每核每秒解码增强 150-300 张图（估计，无一手来源）"
    unknown = _cpu("image_classification")["decode_cores"]
    assert unknown.note.zh == "未知：请选择 GPU 或给出 target_samples_per_s"
    rl = _cpu("reinforcement_learning")["decode_cores"]
    assert rl.note.en == ("environment simulation: 8 environment processes, one core each (more "
                          "processes on more cores raise the environment steps per second)")
    assert rl.note.zh == ("环境模拟：8 个环境进程，各占一核"
                          "（更多核心上的更多进程可提高每秒环境步数）")
    text = _cpu("llm_finetune_lora")["decode_cores"]
    assert text.note.en == ("pre-tokenized text or cached data: loading is light (Dettmers: 1-2 "
                            "cores/GPU)")
    assert text.note.zh == "预分词文本或已缓存数据：加载开销小（Dettmers：每 GPU 1-2 核）"
