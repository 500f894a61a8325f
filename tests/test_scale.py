"""`mobile_r1.scale`: the estimates read the configs the stages run with, and a measured training step of the tiny model
agrees with them, while an estimate with a term badly wrong does not."""
import json, os, subprocess, sys
from dataclasses import replace
from pathlib import Path
import pytest
import torch
from mobile_r1.data import PromptConfig
from mobile_r1.scale import (QWEN25_VL_3B, LiveBytes, fake_batch, forward_flops, hardware_table, lora_settings, measure_step,
                             memory_check, memory_gb, qwen_vl_config, seconds_per_step, settings)
from mobile_r1.stage1 import Stage1Config
from mobile_r1.stage2 import Stage2Config
from mobile_r1.stage3 import Stage3Config

ROOT = Path(__file__).resolve().parents[1]


def tiny_config(model_dir) -> dict:
    from transformers import AutoConfig
    return qwen_vl_config(AutoConfig.from_pretrained(model_dir))


def test_settings_follow_the_configs():
    s1, s2, s3 = settings(stage1=Stage1Config.paper(batch_size=2, grad_accum=3),
                          stage2=Stage2Config.paper(G=4, prompts_per_step=3, micro_batch=6, beta=0.0, max_completion_length=100),
                          stage3=Stage3Config.paper(micro_batch=5, tasks_per_iter=2, G=4, max_turns=7, mixed_precision='no'))
    assert (s1.batch, s1.samples, s1.checkpointing) == (2, 6, True)      # checkpointing as a GPU gets it from sft_args
    assert (s2.batch, s2.samples, s2.rollouts, s2.answer, s2.reference, s2.ref_pass) == (6, 12, 12, 100, None, False)
    assert (s3.batch, s3.samples, s3.rollouts, s3.turns, s3.reference, s3.autocast) == (5, 56, 8, 7, 'float32', False)
    assert settings(turns=4)[2].samples == 8 * 8 * 4
    p1, p2, p3 = settings()
    assert (p2.batch, p2.samples, p3.batch, p2.reference, p3.reference, p3.checkpointing) == (8, 64, 4, 'float32', 'bfloat16', True)
    assert all(s.reference is None and s.ref_pass for s in lora_settings()[1:])      # LoRA: no copy, the adapter switched off


def test_image_tokens_come_from_the_frame():
    s = settings()[0]
    assert (s.grid, s.image_tokens, s.patches) == ((172, 78), 3354, 13416)        # 1080×2400 → 1092×2408
    assert settings(stage1=Stage1Config.paper(prompt=PromptConfig()), screen=(360, 640))[0].image_tokens == 112


def test_batches_per_gpu_and_split():
    "Stages 1-2: the batch is per GPU, so 8 GPUs train 8 times the samples in the same time; stage 3 splits one batch."
    s1, s2, s3 = settings()
    for s in (s1, s2):
        one, eight = seconds_per_step(QWEN25_VL_3B, s, 1), seconds_per_step(QWEN25_VL_3B, s, 8)
        assert eight['total'] == pytest.approx(one['total']) and eight['samples'] == 8 * one['samples']
    one, eight = seconds_per_step(QWEN25_VL_3B, s3, 1), seconds_per_step(QWEN25_VL_3B, s3, 8)
    assert eight['total'] == pytest.approx(one['total'] / 8) and eight['samples'] == one['samples']
    assert memory_gb(QWEN25_VL_3B, s3, 8)['rollout'] < memory_gb(QWEN25_VL_3B, s3, 1)['rollout'] / 4
    with pytest.raises(ValueError, match='DDP only'): memory_gb(QWEN25_VL_3B, s3, 8, zero=3)


def test_time_counts_the_reference_pass_and_the_prefill():
    s2 = settings()[1]
    t = seconds_per_step(QWEN25_VL_3B, s2)
    assert t['reference'] > 0 and t['rollout'] > 0
    assert seconds_per_step(QWEN25_VL_3B, replace(s2, ref_pass=False))['reference'] == 0


def test_live_bytes_counts_what_is_made_and_freed():
    w = torch.zeros(1000)
    with LiveBytes(w) as lb:
        w.add_(1); v = w.view(10, 100)                      # in place and a view: nothing new
        a = torch.ones(1000); b = a * 2; del b              # 4000 bytes each, the second freed
    assert lb.peak == 8000 and lb.live == 4000


def test_memory_check_on_the_tiny_model(tiny_model):
    "Stage 3's step, measured, agrees with the estimate within the tolerance; estimates with a term badly wrong fail."
    c = tiny_config(tiny_model)
    s = settings(c, stage3=Stage3Config.paper(micro_batch=4, max_new_tokens=32, prompt=PromptConfig()), screen=(360, 640))[2]
    m = measure_step(tiny_model, s)
    assert memory_check(m, memory_gb(c, s)) == []
    assert 'activations' in memory_check(m, memory_gb(c, replace(s, batch=1)))
    assert 'reference' in memory_check(m, memory_gb(c, replace(s, reference='float32')))
    assert 'weights' in memory_check(m, memory_gb(c, replace(s, dtype='bfloat16')))


def test_forward_flops_match_torchs_counter(tiny_model):
    from torch.utils.flop_counter import FlopCounterMode
    from mobile_r1.policy import load_policy, PolicyConfig
    model, _ = load_policy(PolicyConfig(model=str(tiny_model)))
    c = tiny_config(tiny_model)
    s = replace(settings(c, stage3=Stage3Config.paper(max_new_tokens=16, prompt=PromptConfig()), screen=(360, 640))[2], batch=1)
    with torch.no_grad(), FlopCounterMode(display=False) as fc: model(**fake_batch(model.config, s)['inputs'], logits_to_keep=s.answer)
    counted = sum(v for k, v in fc.get_flop_counts()['Global'].items() if 'attention' not in str(k))
    assert counted / forward_flops(c, s, s.tokens, s.answer) == pytest.approx(1, abs=0.02)


def test_readme_holds_the_table():
    assert hardware_table() in (ROOT / 'README.md').read_text(encoding='utf-8'), \
        "README's Hardware table is not hardware_table()'s: paste the new one"


def test_bench_memory_smoke(tiny_model):
    "The benchmark, at one case: stage 3's step with LoRA and its rollout, each in a fresh process."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_memory.py'), '--model', str(tiny_model), '--variants', 'lora', '--stages', '3']
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    rows = [json.loads(l) for l in r.stdout.splitlines() if l.startswith('{')]
    assert [x['what'] for x in rows] == ['training step', 'rollout of 64'] and all(not x['fails'] for x in rows)
