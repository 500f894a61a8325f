"""Stage 2 mechanics on CPU: reward functions see the dataset columns, the LM moves, the vision tower does not."""
import torch
from mobile_r1.data import read_dataset
from mobile_r1.metrics import MetricsLog, read_metrics
from mobile_r1.policy import load_policy
from mobile_r1.rewards import action_reward_fn, format_reward_fn
from mobile_r1.stage2 import Stage2Config, grpo_dataset, train_stage2

SEEN = {}

def spy_reward(prompts, completions, **columns):
    "Records what TRL passes; rewards length so every group has a spread (the untrained model earns 0 otherwise)."
    SEEN.update(columns=set(columns), n=len(completions), gold=columns['gold'][0])
    return [len(str(c)) / 100 for c in completions]


def test_stage2_moves_lm_not_vision(tiny_model, sim_data, tmp_path):
    cfg = Stage2Config(base=str(tiny_model), data=str(sim_data['train']), out_dir=str(tmp_path / 's2'), max_steps=2,
                       G=4, prompts_per_step=1, max_completion_length=16, beta=0.0)
    ck = train_stage2(cfg, MetricsLog(tmp_path / 'm.jsonl', stage=2), reward_funcs=[action_reward_fn, format_reward_fn, spy_reward])
    # TRL handed the reward functions our dataset columns, one completion per reward
    assert {'gold', 'bbox', 'image_width', 'image_height', 'model_width', 'model_height'} <= SEEN['columns']
    assert SEEN['n'] == 4 and '"action"' in SEEN['gold']
    rows = read_metrics(tmp_path / 'm.jsonl')
    assert [r['step'] for r in rows] == [1, 2]
    for k in ('reward/mean', 'reward/std', 'reward/action', 'reward/format', 'reward/spy', 'frac_reward_zero_std', 'format_ok', 'loss'):
        assert k in rows[0], k
    before, after = dict(load_policy(str(tiny_model))[0].named_parameters()), dict(load_policy(str(ck))[0].named_parameters())
    assert all(torch.equal(before[n], after[n]) for n in before if 'visual' in n)
    assert any(not torch.equal(before[n], after[n]) for n in before if 'visual' not in n)


def test_reward_fns_return_one_float_per_completion(sim_data):
    ds = grpo_dataset(read_dataset(sim_data['train'])[:1])
    cols = {k: ds[k] for k in ('gold', 'bbox', 'image_width', 'image_height', 'model_width', 'model_height')}
    comps = [[{'role': 'assistant', 'content': 'nonsense'}] for _ in range(len(ds))]
    for fn in (action_reward_fn, format_reward_fn):
        out = fn(ds['prompt'], comps, **cols)
        assert len(out) == len(ds) and all(isinstance(x, float) for x in out)


def test_visited_rounds_with_lora_keep_the_start_as_reference(tiny_model, tmp_path, monkeypatch):
    "LoRA + β > 0 over two visited rounds: TRL's trainer adds a 'ref' adapter each round (it used to fail in round 2)."
    import mobile_r1.stage2 as s2
    refs = []
    restore = s2._restore_ref_adapter
    def spy(model, ref):
        restore(model, ref)
        refs.append({n: p.detach().clone() for n, p in model.named_parameters() if '.ref.' in n})
    monkeypatch.setattr(s2, '_restore_ref_adapter', spy)
    cfg = Stage2Config(base=str(tiny_model), out_dir=str(tmp_path / 's2'), states='visited', rounds=2, lora=True, beta=0.05,
                       lr=1e-2, max_steps=2, G=2, prompts_per_step=1, visit_episodes=2, world=('Video/like_video',),
                       max_turns=2, max_completion_length=16)
    train_stage2(cfg, reward_funcs=[spy_reward])
    assert len(refs) == 2 and refs[0]
    assert all(torch.equal(refs[0][n], refs[1][n]) for n in refs[0])       # round 2's reference is round 1's: the start


def test_micro_batches_give_the_same_step(tiny_model, sim_data, tmp_path):
    "`micro_batch` trains a step's answers in smaller forwards (gradient accumulation): the same answers, the same gradient."
    from transformers import TrainerCallback
    from mobile_r1.stage2 import make_stage2_trainer

    class Grads(TrainerCallback):
        def __init__(self): self.grads = None
        def on_pre_optimizer_step(self, args, state, control, model=None, **kw):
            self.grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}

    def step(micro):
        cfg = Stage2Config(base=str(tiny_model), data=str(sim_data['train']), out_dir=str(tmp_path / f's2-{micro}'), max_steps=1,
                           G=4, prompts_per_step=2, micro_batch=micro, max_completion_length=16, beta=0.0)
        trainer, cb = make_stage2_trainer(cfg, reward_funcs=[spy_reward]), Grads()
        trainer.add_callback(cb)
        trainer.train()
        return cb.grads

    whole, parts = step(None), step(2)
    assert whole and whole.keys() == parts.keys() and any(g.abs().sum() > 0 for g in whole.values())
    for n in whole: torch.testing.assert_close(parts[n], whole[n], rtol=1e-4, atol=1e-6, msg=n)
