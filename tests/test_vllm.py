"""The vLLM engines on real vLLM, where it is installed with a CUDA GPU; skipped elsewhere. On every machine the server
path runs against the loopback stand-in of `vllm serve` instead (nbs/05b_generation, nbs/05c_vllm_standin,
tests/test_multiprocess.py): TRL's client, the prompts as token ids, the image features, and the weight pushes."""
import importlib.util

import pytest
import torch

pytestmark = pytest.mark.skipif(importlib.util.find_spec('vllm') is None or not torch.cuda.is_available(),
                                reason='needs vLLM (pip install vllm) and a CUDA GPU; the stand-in tests cover the server API here')


def test_colocated_vllm_answers_as_the_model_and_takes_its_new_weights(tiny_model):
    from mobile_r1.generation import ColocateEngine, VLLMPolicy
    from mobile_r1.policy import Policy
    from mobile_r1.sim import SimPhone, task_list
    policy = Policy.load(str(tiny_model))
    policy.model.float()
    vp = VLLMPolicy(policy, ColocateEngine(str(tiny_model)))
    tasks = task_list('train')[:8]
    batch = [(t.instruction, [], SimPhone().reset(t, seed=k)[0]['screenshot']) for k, t in enumerate(tasks)]

    def greedy(p):
        msgs, imgs, _ = p.prepare(batch)
        return p.generate(msgs, imgs, max_new_tokens=32)

    local, served = greedy(policy), greedy(vp)
    assert served.prompt_ids == local.prompt_ids
    assert sum(a == b for a, b in zip(local.completion_ids, served.completion_ids)) >= 6   # kernels differ: rare ties may flip
    with torch.no_grad():
        for p in policy.model.parameters():
            if p.requires_grad: p.add_(torch.randn_like(p) * 0.05)
    after = greedy(policy)
    vp.sync()
    assert sum(a == b for a, b in zip(after.completion_ids, greedy(vp).completion_ids)) >= 6
