"""Two fixes from the field, each behind a switch that is off by default: GUI-G²'s partial credit for near-miss taps
(`mobile_r1.rewards.partial_action_reward`) and Dr. GRPO's advantage and length normalisation (`group_advantages(...,
scale_rewards=)`, `grpo_loss(..., loss_type=)`), wired into stage 2 (TRL) and stage 3 (our loop)."""
import json, math, random
from types import SimpleNamespace
import pytest
import torch
from mobile_r1.actions import Click, LongPress, Open, Swipe, SystemButton, Type, Wait, format_response
from mobile_r1.grpo import grpo_loss
from mobile_r1.rewards import (action_reward, action_reward_fn, format_reward_fn, gaussian_point_reward, group_advantages,
                               in_box, partial_action_reward)

ROW, CENTRE = [0, 200, 720, 240], (360, 220)          # a full-width list row, 40 px high


# --- partial credit (GUI-G²)

def test_gaussian_centre_is_the_max_and_it_falls_with_distance():
    assert gaussian_point_reward(CENTRE, ROW) == 1.0
    for axis in (0, 1):
        vals = [gaussian_point_reward((CENTRE[0] + d * (axis == 0), CENTRE[1] + d * (axis == 1)), ROW) for d in range(0, 200, 7)]
        assert all(a > b for a, b in zip(vals, vals[1:]))
    assert math.isclose(gaussian_point_reward((720, 240), ROW), math.exp(-1))      # sigma = half the width and height


def test_inside_never_earns_less_than_outside():
    rng = random.Random(0)
    for _ in range(30):
        x1, y1 = rng.randrange(0, 600), rng.randrange(0, 2000)
        box = [x1, y1, x1 + rng.randrange(1, 400), y1 + rng.randrange(1, 200)]
        gold = Click(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2))
        pts = [(rng.randrange(0, 1200), rng.randrange(0, 2400)) for _ in range(300)]
        pts += [(rng.randrange(box[0], box[2] + 1), rng.randrange(box[1], box[3] + 1)) for _ in range(50)]
        for w in (0.25, 0.5, 1.0):
            r = [(in_box(p, box), partial_action_reward(Click(p), gold, box, weight=w)) for p in pts]
            inside, outside = [v for i, v in r if i], [v for i, v in r if not i]
            assert inside and min(inside) == 1.0 and max(outside, default=0) < w


def test_the_adjacent_row_earns_something_less_than_a_hit():
    near = partial_action_reward(Click((360, 270)), Click(CENTRE), ROW)
    assert math.isclose(near, 0.5 * math.exp(-0.5 * (50 / 20) ** 2))
    assert 0 < near < 1.0 == partial_action_reward(Click((5, 201)), Click(CENTRE), ROW)
    assert action_reward(Click((360, 270)), Click(CENTRE), ROW) == 0.0
    assert 0 < partial_action_reward(LongPress((360, 270)), LongPress(CENTRE), ROW) < 1


def test_other_actions_and_boxless_taps_keep_the_binary_reward():
    up = Swipe((360, 1000), (360, 300))
    cases = [(Swipe((100, 900), (120, 200)), up, None), (Swipe((100, 900), (120, 200)), up, [300, 800, 400, 1100]),
             (Type('vip'), Type('VIP'), None), (Open('Tmall'), Open('Taobao'), None), (SystemButton('Back'), SystemButton('Home'), None),
             (Wait(1), Wait(3), None), (Click((760, 1064)), Click((560, 1064)), None), (Click((660, 1064)), Click((560, 1064)), None),
             (LongPress((360, 270)), Click(CENTRE), ROW), (None, Click(CENTRE), ROW)]
    for pred, gold, box in cases:
        assert partial_action_reward(pred, gold, box, screen=(1080, 2400)) == action_reward(pred, gold, box, screen=(1080, 2400))
    with pytest.raises(ValueError, match='never pays more'): partial_action_reward(Click((1, 1)), Click(CENTRE), ROW, weight=1.1)


def test_trl_reward_is_partial_with_the_switch_and_binary_without():
    from trl.trainer.utils import get_callable_name
    from mobile_r1.stage2 import Stage2Config, stage2_reward_funcs
    taps = [[{'role': 'assistant', 'content': format_response('A row.', 'Tap it.', Click(p))}] for p in ((360, 230), (360, 270), (360, 600))]
    cols = dict(gold=[json.dumps(Click(CENTRE).args())] * 3, image_width=[720] * 3, image_height=[1280] * 3, bbox=[ROW] * 3)
    off, on = stage2_reward_funcs(Stage2Config()), stage2_reward_funcs(Stage2Config(partial_credit=0.5))
    assert off == [action_reward_fn, format_reward_fn]
    assert [get_callable_name(f) for f in on] == ['action_reward_fn', 'format_reward_fn']    # metric names unchanged
    assert off[0](None, taps, **cols) == [1.0, 0.0, 0.0]
    got = on[0](None, taps, **cols)
    assert got[0] == 1.0 and math.isclose(got[1], 0.5 * math.exp(-0.5 * 2.5 ** 2)) and 0 <= got[2] < 1e-6
    with pytest.raises(ValueError, match='partial_credit must lie'): stage2_reward_funcs(Stage2Config(partial_credit=2))


def test_stage3_step_aware_correctness_takes_partial_credit():
    from mobile_r1.stage3 import turn_correctness
    turn = lambda p: SimpleNamespace(action=Click(p), gold=(Click(CENTRE), ROW), screenshot=SimpleNamespace(size=(720, 1280)))
    tr = SimpleNamespace(turns=[turn((360, 230)), turn((360, 270))])
    assert turn_correctness([tr]) == [[1.0, 0.0]]
    assert turn_correctness([tr], 0.5)[0][0] == 1.0 and 0 < turn_correctness([tr], 0.5)[0][1] < 0.5


# --- Dr. GRPO: advantages

def test_mean_only_advantages():
    assert torch.allclose(group_advantages([1., 0., 0., 0.], 4, scale_rewards='none'), torch.tensor([0.75, -0.25, -0.25, -0.25]))
    assert torch.equal(group_advantages([1., 0., 0., 0.], 4, scale_rewards=False), group_advantages([1., 0., 0., 0.], 4, scale_rewards='none'))
    assert torch.equal(group_advantages([2., 1., 1., 1.], 4, scale_rewards=True), group_advantages([2., 1., 1., 1.], 4))
    for s in ('group', 'none', 'batch', True, False):
        assert group_advantages([5., 5., 5., 5., 1., 1.], 2, scale_rewards=s).abs().sum() == 0       # equal rewards: zeros
    with pytest.raises(ValueError, match='scale_rewards must be one of'): group_advantages([1., 0.], 2, scale_rewards='std')


# --- Dr. GRPO: length normalisation

def _token_grads(mask, adv, **kw):
    lp = torch.full(mask.shape, -1.0).requires_grad_()
    grpo_loss(lp, lp.detach(), adv, mask, **kw)[0].backward()
    return lp.grad


def test_dr_grpo_token_weight_does_not_depend_on_the_answer_length():
    mask = torch.tensor([[1., 1., 0., 0., 0., 0.], [1., 1., 1., 1., 1., 1.]])          # answers of 2 and 6 tokens
    adv = torch.tensor([1.0, -1.0])
    g = _token_grads(mask, adv)                                                       # grpo: -A / (N |y_i|)
    assert torch.allclose(g[:, 0], torch.tensor([-1 / 4, 1 / 12]))
    g = _token_grads(mask, adv, loss_type='dr_grpo', max_len=10)                       # dr_grpo: -A / (N L_max)
    assert torch.allclose(g[0, :2], torch.full((2,), -1 / 20)) and torch.allclose(g[1], torch.full((6,), 1 / 20))
    g = _token_grads(mask, adv, loss_type='dapo')                                      # dapo: -A / (all tokens)
    assert torch.allclose(g[0, :2], torch.full((2,), -1 / 8)) and torch.allclose(g[1], torch.full((6,), 1 / 8))
    with pytest.raises(ValueError, match='pass max_len'): grpo_loss(g, g, adv, mask, loss_type='dr_grpo')


def test_micro_batches_add_up_for_every_loss_type():
    gen = torch.Generator().manual_seed(0)
    logp, old, ref = (torch.randn(4, 7, generator=gen) - 2 for _ in range(3))
    mask = (torch.rand(4, 7, generator=gen) > 0.3).float(); mask[:, 0] = 1
    adv = torch.tensor([1.0, -0.5, 0.2, -0.7])
    for kw in ({}, dict(loss_type='dr_grpo', max_len=9), dict(loss_type='dapo', n_tokens=int(mask.sum()))):
        whole = grpo_loss(logp, old, adv, mask, ref_logp=ref, beta=0.1, **kw)[0]
        parts = sum(grpo_loss(logp[i:i + 2], old[i:i + 2], adv[i:i + 2], mask[i:i + 2], ref_logp=ref[i:i + 2], beta=0.1,
                              n_answers=4, **kw)[0] for i in (0, 2))
        assert torch.isclose(whole, parts, atol=1e-6), kw


def test_stage3_switches_are_checked_and_passed():
    from mobile_r1.judge import RuleJudge
    from mobile_r1.stage3 import Stage3Config, _check_switches, stage3_env
    assert (Stage3Config().loss_type, Stage3Config().scale_rewards, Stage3Config().partial_credit) == ('grpo', 'group', 0.0)
    with pytest.raises(ValueError, match='loss_type must be one of'): stage3_env(Stage3Config(loss_type='bnpo'), RuleJudge())
    with pytest.raises(ValueError, match='set step_aware > 0'): stage3_env(Stage3Config(partial_credit=0.5), RuleJudge())
    with pytest.raises(ValueError, match='own groups'): _check_switches(Stage3Config(scale_rewards='batch'), world=2)
    _check_switches(Stage3Config(scale_rewards='batch'), world=1)


def test_trl_config_gets_the_switches(tmp_path):
    from mobile_r1.stage2 import Stage2Config, grpo_args
    a = grpo_args(Stage2Config(scale_rewards='none', loss_type='dr_grpo'), tmp_path)
    assert (a.scale_rewards, a.loss_type) == ('none', 'dr_grpo')
    assert grpo_args(Stage2Config(), tmp_path).scale_rewards == 'group'
    with pytest.raises(ValueError, match='scale_rewards must be one of'): grpo_args(Stage2Config(scale_rewards='std'), tmp_path)


def test_grpo_loss_equals_trl_compute_loss_for_dr_grpo_and_dapo(tiny_model, sim_data, tmp_path):
    "The shared loss and TRL's, on the same tokens, with the clip and the KL acting and mean-only advantages."
    from dataclasses import replace
    from mobile_r1.data import read_dataset
    from mobile_r1.policy import Policy
    from mobile_r1.stage2 import Stage2Config, make_stage2_trainer
    from mobile_r1.stage3 import token_logps, turn_batch
    cfg = Stage2Config(base=str(tiny_model), data=str(sim_data['train']), out_dir=str(tmp_path / 's2'), G=4,
                       max_completion_length=24, loss_type='dr_grpo', scale_rewards='none')
    trainer = make_stage2_trainer(cfg)
    model, policy = trainer.model.eval(), Policy(trainer.model, trainer.processing_class)
    ep = read_dataset(sim_data['train'])[0]
    answers = [format_response('The hotel row.', 'Tap it.', Click(p)) for p in ((150, 230), (300, 210), (150, 420), (10, 10))]
    ids = [policy.processor.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
    tb = turn_batch(policy, [SimpleNamespace(history=[], screenshot=ep.image(0), completion_ids=i) for i in ids], [ep.instruction] * 4)
    with torch.no_grad(): logp = token_logps(model, tb)
    gen = torch.Generator().manual_seed(0)
    old, ref = logp + 0.3 * torch.randn(logp.shape, generator=gen), logp + 0.2 * torch.randn(logp.shape, generator=gen)
    A = group_advantages([2., 2., 1., 0.], 4, scale_rewards='none')
    x, P = tb['inputs'], tb['P']
    inputs = {'prompt_ids': x['input_ids'][:, :P], 'prompt_mask': x['attention_mask'][:, :P], 'completion_ids': tb['completion_ids'],
              'completion_mask': tb['mask'].long(), 'advantages': A, 'old_per_token_logps': old, 'ref_per_token_logps': ref,
              'num_images': [1] * 4, 'num_items_in_batch': tb['mask'].sum(),
              **{k: x[k] for k in ('pixel_values', 'image_grid_thw', 'mm_token_type_ids') if k in x}}
    with torch.no_grad(): theirs = trainer.compute_loss(model, inputs)
    ours = grpo_loss(logp, old, A, tb['mask'], cfg.epsilon, ref, cfg.beta, loss_type='dr_grpo', max_len=cfg.max_completion_length)[0]
    assert abs(ours.item() - theirs.item()) < 1e-6
    assert abs(grpo_loss(logp, old, A, tb['mask'], cfg.epsilon, ref, cfg.beta)[0].item() - theirs.item()) > 1e-5   # not vacuous
    dapo = make_stage2_trainer(replace(cfg, loss_type='dapo'))
    with torch.no_grad(): theirs_dapo = dapo.compute_loss(dapo.model.eval(), inputs)
    assert abs(grpo_loss(logp, old, A, tb['mask'], cfg.epsilon, ref, cfg.beta, loss_type='dapo')[0].item() - theirs_dapo.item()) < 1e-6
    high = make_stage2_trainer(replace(cfg, epsilon_high=0.28))            # clip-higher: TRL's epsilon_high, our eps_high
    with torch.no_grad(): theirs_high = high.compute_loss(high.model.eval(), inputs)
    ours_high = grpo_loss(logp, old, A, tb['mask'], cfg.epsilon, ref, cfg.beta, loss_type='dr_grpo', max_len=cfg.max_completion_length, eps_high=0.28)[0]
    assert abs(ours_high.item() - theirs_high.item()) < 1e-6 and abs(ours_high.item() - ours.item()) > 1e-6


# --- clip-higher, dynamic sampling, replay and GiGPO in the stages

def test_new_stage3_switches_are_checked():
    from mobile_r1.stage3 import Stage3Config, _check_switches
    c = Stage3Config()
    assert (c.eps_high, c.gigpo, c.resample, c.replay) == (None, 0.0, 0, False)          # off by default
    with pytest.raises(ValueError, match='set one of them to 0'): _check_switches(Stage3Config(step_aware=0.5, gigpo=1.0), world=1)
    with pytest.raises(ValueError, match='at least 0'): _check_switches(Stage3Config(resample=-1), world=1)
    with pytest.raises(ValueError, match='clip tighter'): _check_switches(Stage3Config(eps_high=0.1), world=1)
    _check_switches(Stage3Config(eps_high=0.28, gigpo=1.0, resample=4, replay=True), world=2)


def test_trl_config_gets_clip_higher(tmp_path):
    from mobile_r1.stage2 import Stage2Config, grpo_args
    assert grpo_args(Stage2Config(epsilon_high=0.28), tmp_path).epsilon_high == 0.28
    assert grpo_args(Stage2Config(), tmp_path).epsilon_high in (None, Stage2Config().epsilon)    # TRL: None means the symmetric clip


def test_stage3_runs_with_every_fix_and_logs_the_signal(tiny_model, tmp_path):
    from mobile_r1.metrics import MetricsLog, read_metrics
    from mobile_r1.policy import load_policy
    from mobile_r1.stage3 import Stage3Config, train_stage3
    cfg = Stage3Config(base=str(tiny_model), out_dir=str(tmp_path / 's3'), world=('Video/like_video',), tasks_per_iter=2, G=2,
                       iterations=2, max_turns=2, max_new_tokens=24, beta=0.0, lr=1e-2, eps_high=0.28, gigpo=1.0, resample=2,
                       replay=True, scale_rewards='none', loss_type='dr_grpo')
    class OddJudge:                     # the untrained model never succeeds: a judge that passes about half of the episodes
        def score_many(self, pairs):
            from mobile_r1.judge import Verdict
            return [Verdict(float(len(tr.turns[0].text) % 2), 'odd answer length') for _, tr in pairs]
    out = train_stage3(cfg, MetricsLog(tmp_path / 'm.jsonl', stage=3), judge=OddJudge())
    rows = read_metrics(tmp_path / 'm.jsonl')
    assert [r['step'] for r in rows] == [1, 2] and sum(r['trained'] for r in rows) > 0
    for r in rows:
        assert r['groups'] == 2 and 0 <= r['signal_share'] <= 1 and 0 <= r['extra'] <= 2
        assert r['trained'] <= r['groups'] + r['extra'] and r['episodes'] == 4          # the metrics: the first draw only
        assert r['frac_reward_zero_std'] <= 1 - r['signal_share'] + 1e-6                 # won and lost: the rewards differ too
    before, after = dict(load_policy(str(tiny_model))[0].named_parameters()), dict(load_policy(str(out))[0].named_parameters())
    assert any(not torch.equal(before[n], after[n]) for n in before if 'visual' not in n)


def test_stage2_screens_recorded_states(tiny_model, sim_data, tmp_path, monkeypatch):
    "Dynamic sampling on recorded states: only the states where the sampled answers disagree are trained on."
    import mobile_r1.stage2 as s2
    from mobile_r1.data import read_dataset
    from mobile_r1.metrics import MetricsLog, read_metrics
    n_states = sum(len(ep.steps) for ep in read_dataset(sim_data['train']))
    counts = [i % 5 for i in range(n_states)]                        # of 4 answers: 0 and 4 agree, 1-3 disagree
    seen = {}
    def fake(policy, turns, n, prompt, temperature=1.0):
        seen.update(n=n, turns=turns)
        return counts
    monkeypatch.setattr(s2, 'sampled_correct', fake)
    cfg = s2.Stage2Config(base=str(tiny_model), data=str(sim_data['train']), out_dir=str(tmp_path / 's2'), G=4, screen=4)
    trainer = s2.make_stage2_trainer(cfg, MetricsLog(tmp_path / 'm.jsonl', stage=2))
    assert seen['n'] == 4 and len(seen['turns']) == n_states and seen['turns'][0][1].gold is not None
    kept = [i for i, x in enumerate(counts) if 0 < x < 4]
    full = s2.grpo_dataset(read_dataset(sim_data['train']))
    assert trainer.train_dataset['gold'] == [full['gold'][i] for i in kept]
    row = read_metrics(tmp_path / 'm.jsonl')[0]
    assert abs(row['screen/signal_share'] - len(kept) / n_states) < 1e-9


def test_screen_pays_near_miss_credit(monkeypatch):
    "With partial_credit the screen keeps what training can learn from: a state no sample solves, where one miss lands nearer."
    import mobile_r1.stage2 as s2
    seen = {}
    def fake(policy, turns, n, prompt, batch=64, temperature=1.0, partial_credit=0.0):
        seen['w'] = partial_credit
        return [[0, 0.3, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [1, 0.2, 0, 0]]
    monkeypatch.setattr(s2, 'sampled_rewards', fake)
    keep, stats = s2.screen_states(None, [None] * 4, 4, prefix='visit/', partial_credit=0.5)
    assert seen['w'] == 0.5 and keep == [0, 3]
    assert stats == {'visit/never_solved': 0.5, 'visit/always_solved': 0.25, 'visit/signal_share': 0.5}
    monkeypatch.setattr(s2, 'sampled_correct', lambda *a, **k: [0, 4, 0, 1])     # binary: only the state with 1 of 4 hits
    assert s2.screen_states(None, [None] * 4, 4)[0] == [3]
