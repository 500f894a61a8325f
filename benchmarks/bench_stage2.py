"""Stage 2 overhead: seconds per step of our stage 2 (grpo_dataset + action/format rewards + metrics callback) vs a
bare GRPOTrainer step on the same model and data (a constant reward, no callback), measured in one run, plus steps/s
and peak memory. Target: ratio <= 1.2. Run: `python benchmarks/bench_stage2.py` (builds a tiny model and a short
stage 1 first, so the rewards are not all zero)."""
import argparse, os, resource, tempfile, time
from pathlib import Path
from transformers import TrainerCallback
from mobile_r1.metrics import MetricsLog
from mobile_r1.policy import tiny_qwen_vl
from mobile_r1.sim.generate import generate_dataset, sim_corpus
from mobile_r1.stage1 import Stage1Config, train_stage1
from mobile_r1.stage2 import Stage2Config, make_stage2_trainer


class StepTimer(TrainerCallback):
    "Wall time of each optimiser step (generation + rewards + update)."
    def __init__(self): self.times, self.t = [], None
    def on_step_begin(self, *a, **k): self.t = time.perf_counter()
    def on_step_end(self, *a, **k): self.times.append(time.perf_counter() - self.t)


def constant_reward(prompts, completions, **kw): return [0.0] * len(completions)


def timed(trainer, warmup):
    timer = StepTimer(); trainer.add_callback(timer); trainer.train()
    t = timer.times[warmup:]
    return sum(t) / len(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--steps', type=int, default=12)
    ap.add_argument('--warmup', type=int, default=2)
    ap.add_argument('--stage1-steps', type=int, default=200)
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp())
    data = generate_dataset(d / 'train', 'train', n=60, seed=0)
    s1 = train_stage1(Stage1Config(base=str(tiny_qwen_vl(d / 'tiny', sim_corpus())), data=str(data), out_dir=str(d / 's1'), max_steps=a.stage1_steps))
    cfg = Stage2Config(base=str(s1), data=str(data), out_dir=str(d / 's2'), max_steps=a.steps + a.warmup, beta=0.05)
    res = {}
    for name, kw in (('bare', dict(reward_funcs=[constant_reward])), ('ours', dict(log=MetricsLog(d / 'm.jsonl', 2)))):
        res[name] = timed(make_stage2_trainer(cfg, **kw), a.warmup)
    print(f"bare GRPOTrainer: {res['bare']:.3f} s/step ({1 / res['bare']:.2f} steps/s)")
    print(f"stage 2 (ours):   {res['ours']:.3f} s/step ({1 / res['ours']:.2f} steps/s)")
    print(f"ratio ours/bare:  {res['ours'] / res['bare']:.2f}  (target <= 1.2; G={cfg.G}, {cfg.prompts_per_step} prompts/step)")
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == '__main__':
    main()
