"""The reference estimators as their authors compute them, every option and more than one
node (mutation testing, issue 28). DeepSpeed's estimate_zero2_model_states_mem_needs and
estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py;
the DeepSpeed memory docs print their tables for T0_3B: 2851M parameters, 32M largest layer,
8 GPUs on one node), and HF accelerate's ``estimate-memory`` (model size = all parameters and
buffers at the dtype; training column = the largest of four equal components: 4x the fp32
size, 2x for 16-bit). Expected bytes are the formulas worked by hand below.
"""

from __future__ import annotations

from torchrig.planning.requirements.estimators import (
    accelerate_estimate,
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
)

P, LL = 2851e6, 32e6


def test_zero2_without_offload_keeps_4_bytes_per_gpu_of_a_node_in_ram():
    # cpu = P x 4 x GPUs per node x 1.5; gpu = 2P + 18P / all GPUs
    assert deepspeed_zero2_estimate(P, 8, 1, cpu_offload=False) == (
        int(2851e6 * 4 * 8 * 1.5), int(2 * 2851e6 + int(18 * 2851e6 / 8)))
    # two nodes of 4: the RAM is per node's GPUs, the states are sharded over all 8
    assert deepspeed_zero2_estimate(P, 4, 2, cpu_offload=False) == (
        int(2851e6 * 4 * 4 * 1.5), int(2 * 2851e6 + int(18 * 2851e6 / 8)))
    assert deepspeed_zero2_estimate(P, 8, 1, False, buffer_factor=1.0)[0] == int(2851e6 * 32)


def test_zero2_offload_needs_at_least_16_bytes_per_parameter():
    # cpu = P x max(4 x all GPUs, 16) x 1.5; gpu = 2P
    assert deepspeed_zero2_estimate(P, 2, 1, cpu_offload=True) == (int(2851e6 * 16 * 1.5),
                                                                   int(2 * 2851e6))
    assert deepspeed_zero2_estimate(P, 4, 2, cpu_offload=True) == (int(2851e6 * 32 * 1.5),
                                                                   int(2 * 2851e6))
    assert deepspeed_zero2_estimate(P, 8, 1, True, buffer_factor=2.0)[0] == int(2851e6 * 64)


def test_zero3_offload_of_params_and_optimizer():
    # gpu = 4 x largest layer; cpu = P x 18 / nodes x 1.5 (zero_init) or
    # P x max(4 x GPUs per node, 18 / nodes) x 1.5
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, True) == (int(2851e6 * 18 * 1.5),
                                                                 int(4 * 32e6))
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, True, zero_init=False)[0] == \
        int(2851e6 * 32 * 1.5)
    assert deepspeed_zero3_estimate(P, LL, 4, 2, True, True) == (int(2851e6 * 9 * 1.5),
                                                                 int(4 * 32e6))
    assert deepspeed_zero3_estimate(P, LL, 2, 2, True, True, zero_init=False)[0] == \
        int(2851e6 * 9 * 1.5)  # max(8, 9)
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, True, buffer_factor=1.0)[0] == \
        int(2851e6 * 18)


def test_zero3_offload_of_the_optimizer_only():
    # gpu = 4 x largest layer + 2P / all GPUs; cpu = P x 16 / nodes x 1.5 (zero_init) or
    # P x max(4 x GPUs per node, 16 / nodes) x 1.5
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, False) == (
        int(2851e6 * 16 * 1.5), int(4 * 32e6 + int(2 * 2851e6 / 8)))
    assert deepspeed_zero3_estimate(P, LL, 4, 2, True, False) == (
        int(2851e6 * 8 * 1.5), int(4 * 32e6 + int(2 * 2851e6 / 8)))
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, False, zero_init=False)[0] == \
        int(2851e6 * 32 * 1.5)
    assert deepspeed_zero3_estimate(P, LL, 2, 1, True, False, zero_init=False)[0] == \
        int(2851e6 * 16 * 1.5)  # max(8, 16)
    assert deepspeed_zero3_estimate(P, LL, 1, 2, True, False, zero_init=False)[0] == \
        int(2851e6 * 8 * 1.5)  # one GPU on each of two nodes: max(4, 16 / 2)
    assert deepspeed_zero3_estimate(P, LL, 8, 1, True, False, buffer_factor=1.0)[0] == \
        int(2851e6 * 16)


def test_zero3_without_offload():
    # gpu = 4 x largest layer + 18P / all GPUs; cpu = largest layer x 4 x GPUs per node x 1.5
    # (zero_init) or P x 4 x GPUs per node x 1.5
    assert deepspeed_zero3_estimate(P, LL, 8, 1, False, False) == (
        int(32e6 * 4 * 8 * 1.5), int(4 * 32e6 + int(18 * 2851e6 / 8)))
    assert deepspeed_zero3_estimate(P, LL, 4, 2, False, False) == (
        int(32e6 * 4 * 4 * 1.5), int(4 * 32e6 + int(18 * 2851e6 / 8)))
    assert deepspeed_zero3_estimate(P, LL, 8, 1, False, False, zero_init=False)[0] == \
        int(2851e6 * 4 * 8 * 1.5)
    assert deepspeed_zero3_estimate(P, LL, 8, 1, False, False, buffer_factor=1.0)[0] == \
        int(32e6 * 4 * 8)
    # offload_params alone is not an option DeepSpeed has: without offload_optimizer it is
    # ignored
    assert deepspeed_zero3_estimate(P, LL, 8, 1, False, True) == \
        deepspeed_zero3_estimate(P, LL, 8, 1, False, False)


def test_the_estimates_are_whole_bytes():
    cpu, gpu = deepspeed_zero3_estimate(1001, 3, 3, 1, True, False)
    assert (cpu, gpu) == (int(1001 * 16 * 1.5), 12 + int(2002 / 3))
    assert isinstance(cpu, int) and isinstance(gpu, int)
    assert deepspeed_zero2_estimate(1001, 3, 1, False) == (int(1001 * 12 * 1.5),
                                                           2002 + int(18018 / 3))


def test_accelerate_divisors_and_training_column():
    total = 1_000_000.0  # fp32 bytes of parameters and buffers
    assert accelerate_estimate(total, "fp32") == (total, 4 * total)
    assert accelerate_estimate(total, "tf32") == (total, 4 * total)
    for precision in ("amp_fp16", "amp_bf16", "bf16"):
        assert accelerate_estimate(total, precision) == (total / 2, 2 * total)
    assert accelerate_estimate(total, "int8") == (total / 4, 2 * total)
    assert accelerate_estimate(total, "int4") == (total / 8, 2 * total)
