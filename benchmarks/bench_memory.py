"""The memory estimate of `mobile_r1.scale` against measurement, at more shapes than the notebook's check: the tiny and
the small Qwen2.5-VL, each stage at the notebook's shapes and with one thing changed (twice the batch, no gradient
checkpointing, fp32 compute, LoRA over a bf16 base, 256-token answers in stage 3), and the rollouts of stages 2 and 3.

    python benchmarks/bench_memory.py                          # both sizes, every variant (about 10 minutes on 2 cores)
    python benchmarks/bench_memory.py --sizes tiny --variants paper --no-rollouts   # the notebook's three shapes
    python benchmarks/bench_memory.py --model DIR --variants lora --stages 3        # one saved model, one case

Every measurement runs in a fresh process. A training step is measured by `mobile_r1.scale.measure_step`: the bytes of
the tensors alive (`LiveBytes`, what `torch.cuda.max_memory_allocated` reports on a GPU), its peak over the second
step. A rollout (`mobile_r1.decode.sample`: prefill, then decoding with a KV cache, `answer` tokens for every prompt) is
measured the same way. As a cross-check of the tensor count, the child also reads its peak resident memory over the
measured part (Linux: VmHWM, reset through /proc/self/clear_refs; glibc is told to hand big blocks back at once with
MALLOC_MMAP_THRESHOLD_): `rss/live` near 1 says the count misses nothing large. One JSON line per measurement, then
the worst ratios; exit status 1 if a term is outside the notebook's tolerance (`memory_check`: counts within 2%,
activations, the step's total and the rollout within a factor of 2)."""
import argparse, json, math, os, subprocess, sys, tempfile, time
from pathlib import Path

VARIANTS = ('paper', 'batch x2', 'no checkpointing', 'fp32 compute', 'lora', 'long answers')


def tiny_settings(c: dict, variant: str) -> list:
    "The notebook's three tiny-model settings (`paper()` presets at the tiny image budget), with `variant` changed."
    from dataclasses import replace
    from mobile_r1.data import PromptConfig
    from mobile_r1.scale import settings
    from mobile_r1.stage1 import Stage1Config
    from mobile_r1.stage2 import Stage2Config
    from mobile_r1.stage3 import Stage3Config
    small = PromptConfig()
    kw = {'lora': {'lora': True, 'dtype': 'bfloat16'}, 'fp32 compute': {'mixed_precision': 'no'}}.get(variant, {})
    a3 = 256 if variant == 'long answers' else 64
    out = settings(c, Stage1Config.paper(batch_size=4, prompt=small, **kw),
                   Stage2Config.paper(G=4, prompts_per_step=4, micro_batch=16, max_completion_length=32, prompt=small, **kw),
                   Stage3Config.paper(micro_batch=8, max_new_tokens=a3, prompt=small, **kw), screen=(360, 640), sft_answer=32)
    if variant == 'batch x2': out = [replace(s, batch=2 * s.batch) for s in out]
    if variant == 'no checkpointing': out = [replace(s, checkpointing=False) for s in out]
    return out


def _status(key: str) -> int:
    "A field of /proc/self/status, in bytes (None where it cannot be read)."
    try:
        line = next(l for l in Path('/proc/self/status').read_text().splitlines() if l.startswith(key + ':'))
        return int(line.split()[1]) * 1024
    except (OSError, StopIteration): return None


def with_rss():
    "Make `mobile_r1.scale.LiveBytes` also read the process's peak resident memory over what it measures."
    import mobile_r1.scale as scale
    class RssLiveBytes(scale.LiveBytes):
        def __enter__(self):
            try: Path('/proc/self/clear_refs').write_text('5')         # VmHWM := the current resident memory
            except OSError: pass
            self.rss0 = _status('VmRSS')
            RssLiveBytes.last = self
            return super().__enter__()
        def __exit__(self, *exc):
            super().__exit__(*exc)
            hwm = _status('VmHWM')
            self.rss = hwm - self.rss0 if hwm is not None and self.rss0 is not None else None
    scale.LiveBytes = RssLiveBytes
    return RssLiveBytes


def measure_rollout(model_dir, s, gpus: int = 1) -> float:
    "GiB of tensors alive at the peak of decoding `s`'s rollouts on one of `gpus` GPUs (prefill, then `s.answer` tokens each)."
    import contextlib, torch
    from dataclasses import replace
    from mobile_r1.decode import sample
    from mobile_r1.policy import PolicyConfig, load_policy
    from mobile_r1.scale import GB, LiveBytes, fake_batch
    model, _ = load_policy(PolicyConfig(model=str(model_dir), dtype=s.dtype, lora=s.lora, freeze_vision=True))
    n = math.ceil(s.rollouts / s.group / gpus) * s.group if s.split else s.rollouts
    enc = fake_batch(model.config, replace(s, batch=n, tokens=s.tokens - s.answer, answer=1))['inputs']
    enc['image_index'] = torch.arange(n)
    cast = s.autocast and (not s.split or gpus == 1 or s.rollout_autocast_n)
    with LiveBytes(*model.parameters(), *model.buffers(), *enc.values()) as lb, \
         (torch.autocast('cpu', dtype=torch.bfloat16) if cast else contextlib.nullcontext()):
        sample(model, enc, stop_ids=[], max_new_tokens=s.answer, temperature=1.0)    # no stop: every answer at its limit
    return lb.peak / GB


def child(spec: dict) -> None:
    "One measurement in this fresh process; prints it as JSON."
    from transformers import AutoConfig
    from mobile_r1.scale import memory_check, memory_gb, measure_step, qwen_vl_config, rollout_bytes, GB
    rss = with_rss()
    c = qwen_vl_config(AutoConfig.from_pretrained(spec['model']))
    s = tiny_settings(c, spec['variant'])[spec['stage']]
    t0, row = time.time(), {k: spec[k] for k in ('size', 'variant')} | {'stage': s.name, 'batch': s.batch, 'tokens': s.tokens}
    if spec['what'] == 'rollout':
        m, e = measure_rollout(spec['model'], s), rollout_bytes(c, s) / GB
        row |= {'what': f'rollout of {s.rollouts}', 'measured_mib': round(m * 1024, 1), 'estimated_mib': round(e * 1024, 1),
                'ratio': round(m / e, 2), 'fails': [] if 0.5 <= m / e <= 2 else ['rollout'], 'live_mib': round(rss.last.peak / 2 ** 20, 1)}
    else:
        m, e = measure_step(spec['model'], s), memory_gb(c, s)
        e_total = e['weights'] + e['trained state'] + e['reference'] + e['activations']
        row |= {'what': 'training step', 'measured_mib': {k: round(v * 1024, 1) for k, v in m.items()},
                'estimated_mib': {k: round(e[k] * 1024, 1) for k in m if k != 'total'} | {'total': round(e_total * 1024, 1)},
                'ratio': round(m['activations'] / e['activations'], 2), 'fails': memory_check(m, e), 'live_mib': round(rss.last.peak / 2 ** 20, 1)}
    if rss.last.rss is not None: row |= {'rss_mib': round(rss.last.rss / 2 ** 20, 1), 'rss/live': round(rss.last.rss / max(rss.last.peak, 1), 2)}
    print(json.dumps(row | {'seconds': round(time.time() - t0, 1)}), flush=True)


def models(sizes, out: Path) -> dict:
    "The tiny Qwen2.5-VLs of `sizes`, built once in `out`."
    from mobile_r1.policy import tiny_qwen_vl
    from mobile_r1.sim.generate import sim_corpus
    paths, corpus = {}, None
    for size in sizes:
        paths[size] = out / size
        if not (paths[size] / 'config.json').exists():
            corpus = corpus or sim_corpus()
            tiny_qwen_vl(paths[size], corpus, size=size)
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--sizes', nargs='+', default=['tiny', 'small'])
    ap.add_argument('--variants', nargs='+', default=list(VARIANTS), choices=VARIANTS)
    ap.add_argument('--stages', nargs='+', type=int, default=[1, 2, 3], choices=[1, 2, 3])
    ap.add_argument('--no-rollouts', action='store_true', help='training steps only')
    ap.add_argument('--model', help='measure this saved model (e.g. one tiny_qwen_vl built) instead of building --sizes')
    ap.add_argument('--out', default=str(Path(tempfile.gettempdir()) / 'bench_memory'), help='where the models are built')
    ap.add_argument('--child', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child: return child(json.loads(a.child))
    paths, rows = ({'given': Path(a.model)} if a.model else models(a.sizes, Path(a.out))), []
    env = {**os.environ, 'MALLOC_MMAP_THRESHOLD_': '65536', 'IN_TEST': os.environ.get('IN_TEST', '1')}
    jobs = [(size, v, st - 1, 'step') for size in paths for v in a.variants for st in a.stages]
    if not a.no_rollouts: jobs += [(size, 'paper', st - 1, 'rollout') for size in paths for st in a.stages if st > 1]
    for size, v, st, what in jobs:
        spec = {'model': str(paths[size]), 'size': size, 'variant': v, 'stage': st, 'what': what}
        r = subprocess.run([sys.executable, __file__, '--child', json.dumps(spec)], capture_output=True, text=True, env=env)
        if r.returncode: sys.exit(f'{size} {v} stage {st + 1} {what} failed:\n{r.stderr[-3000:]}')
        rows.append(json.loads(r.stdout.strip().splitlines()[-1])); print(json.dumps(rows[-1]), flush=True)
    ratios = [r['ratio'] for r in rows]
    print(f'{len(rows)} measurements; measured/estimated (activations, rollout) from {min(ratios):.2f} to {max(ratios):.2f}; '
          f"rss/live from {min(r.get('rss/live', 1) for r in rows):.2f} to {max(r.get('rss/live', 1) for r in rows):.2f}")
    bad = [f"{r['size']} {r['variant']} {r['stage']} {r['what']}: {r['fails']}" for r in rows if r['fails']]
    if bad: sys.exit('outside the tolerance:\n  ' + '\n  '.join(bad))


if __name__ == '__main__': main()
