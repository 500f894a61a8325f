"""Where an RL step's time goes, and how many answers per second each RL stage gets beside the decode loop.

Stage 2 (TRL's GRPOTrainer, G = 8 answers for each of `--prompts` recorded steps), five ways: TRL's own generation
and scoring; the decode loop inside TRL's trainer (`09a_stage2_decode`); that plus one forward per prompt in the
scoring passes (`09b_shared_prompt`, the default); the default with each of TRL's G copies of a screenshot
preprocessed and encoded (as before `05_policy` kept one per distinct image); and the default with β = 0 (no
reference model). Seconds per
optimiser step split into generation (TRL's `_generate_single_turn`), rewards (`_calculate_rewards`), the other
scoring passes (old and reference log-probabilities) and training (loss forward, backward, optimiser). Stage 3 (our
loop), with one forward per turn and then per prompt (the default): seconds per iteration split into rollouts
(`play`: the decode loop and SimPhone) and the update. Beside each,
the decode loop (`mobile_r1.decode` through `Policy.generate`) on a batch of the same size, prompts and length limit.
The last line prints the two ratios (stage 2: the default), decode loop's answers/s over the stage's: the target is at most 2 for each.

    python benchmarks/bench_rl_speed.py [--steps 4] [--stage1-steps 150] [--prompts 8]

Measured in one run on the same model; run it on a quiet machine (a second torch process on 2 cores slows every
figure several times, and not all alike)."""
import argparse, tempfile, time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
import torch
from transformers import TrainerCallback
from transformers.processing_utils import ProcessorMixin
import mobile_r1.stage2_decode as sd
import mobile_r1.stage3 as s3
from mobile_r1.policy import QwenVLImageProcessor
from mobile_r1.data import read_dataset, step_sample
from mobile_r1.policy import Policy, tiny_qwen_vl
from mobile_r1.sim.generate import generate_dataset, sim_corpus
from mobile_r1.stage1 import Stage1Config, train_stage1
from mobile_r1.stage2 import Stage2Config, make_stage2_trainer
from mobile_r1.stage3 import Stage3Config, train_stage3


class Clock:
    "Total seconds spent in the wrapped callables, by name."
    def __init__(self): self.s = {}
    def wrap(self, name, fn):
        def timed(*a, **k):
            t = time.perf_counter()
            try: return fn(*a, **k)
            finally: self.s[name] = self.s.get(name, 0.0) + time.perf_counter() - t
        return timed


class Steps(TrainerCallback):
    "Wall time of each optimiser step."
    def __init__(self): self.times, self.t = [], None
    def on_step_begin(self, *a, **k): self.t = time.perf_counter()
    def on_step_end(self, *a, **k): self.times.append(time.perf_counter() - self.t)


def decode_rate(policy: Policy, msgs: list, imgs: list, max_new_tokens: int, reps: int = 2) -> float:
    "Answers per second of the decode loop on this batch, sampled at T = 1 (the best of `reps` runs after a warm-up)."
    policy.generate(msgs[:2], imgs[:2], max_new_tokens=8, temperature=1.0)
    best = float('inf')
    for _ in range(reps):
        t = time.perf_counter(); policy.generate(msgs, imgs, max_new_tokens=max_new_tokens, temperature=1.0)
        best = min(best, time.perf_counter() - t)
    return len(msgs) / best


STAGE2 = {'TRL (generate and scoring)': dict(generation='trl', share_prompts=False),
          'decode loop': dict(generation='decode', share_prompts=False),
          'decode loop + one forward per prompt (default)': dict(generation='decode', share_prompts=True),
          'default, every copy preprocessed and encoded': dict(generation='decode', share_prompts=True, copies=True),
          'default, beta = 0': dict(generation='decode', share_prompts=True, beta=0.0)}


@contextmanager
def every_copy(on: bool):
    "With `on`, the processor preprocesses and the decode loop encodes each of TRL's G copies of a screenshot (as before 05_policy's dedupe)."
    if not on: yield; return
    saved = QwenVLImageProcessor._process_images, sd._distinct_screens
    QwenVLImageProcessor._process_images = ProcessorMixin._process_images
    sd._distinct_screens = lambda pix, grid, images: (pix, grid, torch.arange(len(grid)))
    try: yield
    finally: QwenVLImageProcessor._process_images, sd._distinct_screens = saved


def stage2(s1: Path, data: Path, steps: int, out: Path, prompts: int, copies: bool = False, **kw) -> tuple[dict, float]:
    "Seconds per stage-2 step by phase (the config's fields `kw`), and the decode loop's answers/s on the same prompts."
    cfg = Stage2Config(base=str(s1), data=str(data), out_dir=str(out / 's2'), max_steps=steps + 1, prompts_per_step=prompts, **kw)
    tr, clock, timer = make_stage2_trainer(cfg), Clock(), Steps()
    for name in ('_generate_single_turn', '_calculate_rewards', '_generate_and_score_completions'):
        setattr(tr, name, clock.wrap(name, getattr(tr, name)))
    tr.add_callback(timer)
    with every_copy(copies): tr.train()
    n = len(timer.times)                               # the first step warms up; its share is taken out pro rata
    keep = sum(timer.times[1:]) / sum(timer.times)
    step = sum(timer.times[1:]) / (n - 1)
    gen, rew, all_ = (clock.s[k] * keep / (n - 1) for k in ('_generate_single_turn', '_calculate_rewards', '_generate_and_score_completions'))
    phases = {'generation': gen, 'rewards': rew, 'old and reference log-probs': all_ - gen - rew, 'training': step - all_, 'step': step}
    eps = read_dataset(data)
    batch = [step_sample(ep, i) for ep in eps for i in range(len(ep.steps))][:cfg.prompts_per_step]
    msgs = [b['messages'] for b in batch for _ in range(cfg.G)]
    imgs = [b['images'][0] for b in batch for _ in range(cfg.G)]
    return {**phases, 'answers': cfg.G * cfg.prompts_per_step}, decode_rate(Policy.load(str(s1)), msgs, imgs, cfg.max_completion_length)


def stage3(s1: Path, iterations: int, out: Path, monkey, **kw) -> tuple[dict, float]:
    "Seconds per stage-3 iteration by phase (the config's fields `kw`), and the decode loop's answers/s on a batch of its size (the tasks' first screens)."
    cfg = Stage3Config(base=str(s1), out_dir=str(out / 's3'), world=('Video/like_video',), iterations=iterations + 1, checkpoint_every=10 ** 6, **kw)
    clock, turns, times = Clock(), [], []
    play, update = s3.play, s3._update
    def counted_play(*a, **k):
        trajs = play(*a, **k); turns.append(sum(len(t.turns) for t in trajs)); return trajs
    monkey(s3, 'play', clock.wrap('rollouts', counted_play))
    monkey(s3, '_update', clock.wrap('update', update))
    t0 = time.perf_counter()
    train_stage3(cfg)
    total = time.perf_counter() - t0
    monkey(s3, 'play', play); monkey(s3, '_update', update)
    per = lambda x: x / (iterations + 1)
    phases = {'rollouts': per(clock.s['rollouts']), 'update': per(clock.s['update'])}
    phases['other (judge, load, save)'] = per(total) - phases['rollouts'] - phases['update']
    phases['iteration'] = per(total)
    env = s3.make_env('sim', 'train', world=cfg.world)
    pol, phone = Policy.load(str(s1)), env.phones(1)[0]
    shots = [(t.instruction, [], phone.reset(t, seed=j)[0]['screenshot'].copy())
             for j, t in enumerate(env.tasks[j % len(env.tasks)] for j in range(cfg.tasks_per_iter * cfg.G))]
    msgs, imgs, _ = pol.prepare(shots, cfg.prompt)
    env.close()
    return {**phases, 'answers': sum(turns) / len(turns)}, decode_rate(pol, msgs, imgs, cfg.max_new_tokens)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=4, help='timed stage-2 steps and stage-3 iterations (after one warm-up)')
    ap.add_argument('--stage1-steps', type=int, default=150, help='a short stage 1 first, so answers parse and rewards differ')
    ap.add_argument('--prompts', type=int, default=8, help="stage 2's prompts per step, G = 8 answers each (the tiny preset's: 8)")
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp())
    data = generate_dataset(d / 'train', 'train', n=40, seed=0, world=('Video/like_video',))
    s1 = train_stage1(Stage1Config(base=str(tiny_qwen_vl(d / 'tiny', sim_corpus())), data=str(data), out_dir=str(d / 's1'),
                                   max_steps=a.stage1_steps))
    rates, decode = {}, {}
    for name, kw in STAGE2.items():
        p2, r2 = stage2(s1, data, a.steps, d, a.prompts, **kw)
        print(f"stage 2, {name}: seconds per step ({p2['answers']} answers):",
              ', '.join(f'{k} {v:.2f}' for k, v in p2.items() if k != 'answers'))
        rates[name], decode[name] = p2['answers'] / p2['step'], r2
        print(f'stage 2, {name}: {rates[name]:.1f} answers/s; decode loop on the same {p2["answers"]} prompts: {r2:.1f} answers/s')
    default = 'decode loop + one forward per prompt (default)'
    a2, r2 = rates[default], decode[default]
    print(f"one forward per prompt: {a2 / rates['decode loop']:.2f}x the answers/s of one per answer")
    print(f"each distinct screenshot preprocessed and encoded once: {a2 / rates['default, every copy preprocessed and encoded']:.2f}x "
          "the answers/s of every copy")
    for share in (False, True):                                      # one forward per turn, then the default: one per prompt
        p3, r3 = stage3(s1, a.steps, d / f'share{int(share)}', lambda m, k, v: setattr(m, k, v), share_prompts=share)
        name = 'one forward per prompt (default)' if share else 'one forward per turn'
        print(f"stage 3, {name}: seconds per iteration ({p3['answers']:.0f} turns):",
              ', '.join(f'{k} {v:.2f}' for k, v in p3.items() if k != 'answers'))
        a3 = p3['answers'] / p3['iteration']
        print(f'stage 3, {name}: {a3:.1f} answers/s; decode loop on a batch of its episodes\' size: {r3:.1f} answers/s')
    print(f'ratios, decode loop over stage (target <= 2 each): stage 2 {r2 / a2:.2f}, stage 3 {r3 / a3:.2f}')


if __name__ == '__main__':
    main()
