"""The README's figures are the committed assets' figures: each number a paragraph quotes is read back from the asset
it comes from (nbs/assets/...), so a new run that changes an asset fails here until the README says so."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / 'nbs' / 'assets'


def paragraph(head: str) -> str:
    "The README paragraph that starts with `head`, whitespace squashed."
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    start = text.index(head)
    return ' '.join(text[start:text.index('\n\n', start)].split())


def test_the_plateau_paragraph_quotes_its_assets():
    p = paragraph('**Stage 1 had not reached its plateau.**')
    rows = json.loads((ASSETS / 'plateau' / 'plateau.json').read_text())['rows']
    steps = [r['steps'] for r in rows]
    assert steps == [300, 600, 1200, 2400] and all(r['quiet']['online_episodes'] == 128 for r in rows)
    quiet = [f"{r['quiet']['online_success']:.1f}" for r in rows]
    assert f"won {quiet[0]}, {quiet[1]}, {quiet[2]} and {quiet[3]}% of 128 quiet-phone episodes" in p
    busy = [f"{r['preset_phones']['online_success']:.1f}" for r in rows[2:]]
    assert f"({busy[0]} and {busy[1]}% with pop-ups at 0.1 from 1,200 steps on)" in p
    h = json.loads((ASSETS / 'plateau' / 'headroom_1200_p05.json').read_text())['screens']['interruption']
    assert f"closed {h['greedy']['rate']:.1f}% of them greedily and {h['pass@8']['rate']:.1f}% with one of 8 samples (n = {h['greedy']['n']}" in p
    rl = json.loads((ASSETS / 'plateau' / 'rl_at_plateau.json').read_text())
    s1, s2, s3, control = (f"{r['online_success']:.2f}" for r in rl['rows'] if r.get('control') != 'continued')
    assert f"{s1} after stage 1, {s2} after stage 2 and {s3} after stage 3 with the preset's budgets" in p
    more, most = ([f"{r['online_success']:.2f}" for r in rl['variants'][v]['rows']] for v in ('more_rl', 'strong_rl'))
    assert f"{more[0]} and {more[1]} with larger ones, {most[0]} and {most[1]} with larger still" in p
    assert f"against {control} for the control" in p and rl['variants']['strong_rl']['stage2']['lr'] == 1e-3
    errs = [rl['rows'][0]['online_format_errors']] + [rl['variants'][v]['rows'][1]['online_format_errors'] for v in ('more_rl', 'strong_rl')]
    assert f"from {errs[0]} to {errs[1]} and {errs[2]}" in p
    assert rl['config']['stage1_steps'] == 1200 and rl['config']['popup_prob'] == 0.5 and rl['config']['seed'] == 0


def test_the_rl_lift_paragraph_quotes_its_assets():
    p = paragraph('**RL lifts where the demonstrations show pop-ups sometimes, and stage 1 decides how far.**')
    pp = json.loads((ASSETS / 'plateau' / 'popups_plateau.json').read_text())['results'][0]
    assert f"sampled the ad's × at {pp['ad']['pass@8']['rate']:.1f}% of ad states" in p
    row = json.loads((ASSETS / 'plateau' / 'plateau_data_popup_prob=0.1.json').read_text())['rows'][0]
    assert row['steps'] == 1200 and f"still won {row['quiet']['online_success']:.1f}% of quiet episodes" in p
    h = json.loads((ASSETS / 'plateau' / 'headroom_1200_p05_dp0.1.json').read_text())['screens']['interruption']
    assert f"closed {h['pass@8']['rate']:.1f}% of the interruptions it met, against {h['greedy']['rate']:.1f}% greedily" in p
    runs = [json.loads((ASSETS / 'plateau' / f"rl_dp01{'' if s == 0 else f'_seed{s}'}.json").read_text()) for s in (0, 1, 2)]
    assert [r['config']['seed'] for r in runs] == [0, 1, 2] and all(r['config']['data_popup_prob'] == 0.1 for r in runs)
    assert all(r['variants']['onpolicy']['stage2']['rounds'] == 8 for r in runs)
    s1 = [r['rows'][0] for r in runs]
    on2, on3 = ([r['variants']['onpolicy']['rows'][k] for r in runs] for k in (0, 1))
    closed = ', '.join(f"{a['online_interruptions']['rate']:.1f} → {b['online_interruptions']['rate']:.1f}" for a, b in zip(s1, on2))
    assert f"on every seed ({closed})" in p
    pct = lambda r: f"{r['online_success']:.2f}"
    assert f"success from {pct(s1[0])} to {pct(on2[0])}, from {pct(s1[1])} to {pct(on2[1])} and from {pct(s1[2])} to {pct(on2[2])}" in p
    assert f"added nothing ({', '.join(map(pct, on3))})" in p
    apart = [b['online_ci'][0] > a['online_ci'][1] for a, b in zip(s1, on2)]
    assert apart == [True, False, False] and 'beyond both intervals on seed 0 only' in p
    cont = [next(x for x in r['rows'] if x.get('control') == 'continued') for r in runs]
    assert f"gave {pct(cont[0])}, {pct(cont[1])} and {pct(cont[2])}" in p
    lo, hi = min(x['online_success'] for x in s1), max(x['online_success'] for x in s1)
    assert f"({lo:.0f} to {hi:.0f} over three seeds)" in p


def test_tutorial_one_reads_the_runs_the_notebooks_quote():
    "tutorials/assets are written by tools/tutorial_assets.py from nbs/assets: a new run there fails here until they are rewritten."
    import importlib.util
    spec = importlib.util.spec_from_file_location('tutorial_assets', ROOT / 'tools' / 'tutorial_assets.py')
    tool = importlib.util.module_from_spec(spec); spec.loader.exec_module(tool)
    for name, made in (('tiny_seed0', tool.tiny()), ('popups_seed0', tool.popups())):
        assert json.loads((ROOT / 'tutorials' / 'assets' / f'{name}.json').read_text()) == made, f'run python tools/tutorial_assets.py ({name})'


def _mean_sd(name: str, variant: str, stages: str) -> str:
    "Mean ± sd over the seeds of one row of a bench_variants asset (nbs/assets/<name>/variants.json), as the README writes it."
    import statistics
    R = json.loads((ASSETS / name / 'variants.json').read_text())
    xs = [next(r for r in R['seeds'][s]['rows'] if (r['variant'], r['stages']) == (variant, stages))['online_success'] for s in sorted(R['seeds'])]
    assert len(xs) == 3 and all(r['online_episodes'] == 128 for s in R['seeds'] for r in R['seeds'][s]['rows'])
    return f'{statistics.mean(xs):.1f} ± {statistics.stdev(xs):.1f}'


def test_the_benchmark_headlines_quote_their_assets():
    "The tiny, busy and full headlines (10a's three-seed benchmarks) and the timed default quickstart."
    text = ' '.join((ROOT / 'README.md').read_text(encoding='utf-8').split())
    m = lambda *a: _mean_sd(*a)
    assert (f"train-task success **{m('variants', 'stage 1', '1')} after stage 1, {m('variants', 'preset (tiny)', '2')} after stage 2 and "
            f"{m('variants', 'preset (tiny)', '2+3')} after stage 3**") in text
    assert f"stage 1 continued for stage 2's wall time gave {m('variants', 'stage 1 continued', '1')}." in text
    assert (f"gave **{m('variants_busy', 'stage 1', '1')} after stage 1, {m('variants_busy', 'preset (busy)', '2')} after stage 2, and after "
            f"stage 3 {m('variants_busy', 'preset (busy)', '2+3')} with trajectory-level credit, {m('variants_busy', 'gigpo', '2+3')} with GiGPO "
            f"and {m('variants_busy', 'step_aware', '2+3')} with our step-aware rule**") in text
    assert (f"gave **{m('variants_full', 'stage 1', '1')} after stage 1, {m('variants_full', 'preset (full)', '2')} after stage 2 and "
            f"{m('variants_full', 'preset (full)', '2+3')} after stage 3**") in text
    import re, statistics
    clock = [int(a) * 60 + float(b) for a, b in re.findall(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\d+):([\d.]+)',
                                                            (ASSETS / 'tiny_today' / 'time.txt').read_text())]
    mmss = lambda s: f'{int(round(s)) // 60} min {int(round(s)) % 60} s'
    assert len(clock) == 3 and f'took {mmss(min(clock))} to {mmss(max(clock))} over three runs (median {mmss(statistics.median(clock))})' in text


def test_the_quickstart_and_its_stage_one_draws_quote_their_assets():
    text = ' '.join((ROOT / 'README.md').read_text(encoding='utf-8').split())
    q = json.loads((ASSETS / 'tiny_today' / 'quickstart.json').read_text())
    s = [f"{r['online_success']:.2f}" for k in sorted(q['rows']) for r in q['rows'][k] if r['split'] == 'train_tasks']
    one = json.loads((ASSETS / 'plateau' / 'plateau_threads=1.json').read_text())['rows'][0]
    bench = json.loads((ASSETS / 'variants' / 'variants.json').read_text())['seeds']['0']['rows'][0]
    assert bench['variant'] == 'stage 1' and one['steps'] == q['config']['stage1_steps'] == 600
    assert (f"`mobile-r1 quickstart` itself gives seed 0 {s[0]} → {s[1]} → {s[2]} (three runs, the same to the episode)" in text and
            f"earlier version ({bench['online_success']:.2f} on seed 0), and the same stage 1 with one thread instead of two gives "
            f"{one['preset_phones']['online_success']:.2f}." in text)


def test_readme_reading_probes():
    "The README's reading-probe figures are the assets' (bench_reading_align feed run, bench_reading_probe read, title, text-control and alignment runs)."
    text = ' '.join((ROOT / 'README.md').read_text(encoding='utf-8').split())
    A = ROOT / 'nbs' / 'assets'
    feed = json.loads((A / 'reading_align' / 'feed.json').read_text())
    at400 = next(e for e in feed['log'] if e['step'] == 400)
    assert at400['adjective'] == 100.0 and f"{at400['noun']}% of the nouns of {feed['titles']} titles by step 400" in text
    tap = lambda n: json.loads((A / 'reading_probe' / f'{n}.json').read_text())['log'][-1]
    probe = lambda n: tap(n)['score']
    assert f"({probe('read_feedtower_frozen')}% read exactly, against {probe('read')}% from random weights)" in text
    assert f"find a named one ({probe('title_feedtower_frozen')}%" in text
    assert f"({probe('has_feedtower_frozen_textfirst')}% yes-or-no answers right)" in text
    assert f"no better than a random row ({probe('titletext')}% with the places written beside the titles)" in text
    copy = json.loads((A / 'reading_probe' / 'copytext.json').read_text())['log']
    assert f"exactly, by step 500 ({next(e['score'] for e in copy if e['step'] == 500)}%)" in text
    assert json.loads((A / 'reading_probe' / 'has_feedtower_align_textfirst.json').read_text())['log'][-1]['align_loss'] < 0.01
    look = lambda n: json.loads((A / 'lookup' / f'{n}.json').read_text())['log']
    assert f"copies a listed place exactly by step 250 ({look('question-first_before_k1_1word')[0]['score']}%)" in text
    long = look('question-first_before_k2_1word_long')[-1]
    assert f"through {long['step']:,} steps of 32 ({long['score']}%)" in text
    every = look('question-first_before_k2_1word_every')
    assert f"reaches {every[-1]['score']}% by step {every[-1]['step']:,}" in text and every[7] == {**every[7], 'step': 2000, 'score': 79.3}
    seven = look('question-first_before_k7_every')[-1]
    assert f"two words stay near a random pick ({seven['score']}% after {seven['step']:,} steps)" in text
    runs = [tap(n) for n in ('title_feedtower_align_every', 'title_textfirst_every', 'title_rows2_feedtower_align_every', 'title_rows2_textfirst_every')]
    assert all(r['step'] == 3000 for r in runs)
    assert "({}% and {}% among seven rows, {}% and {}% between two)".format(*(r['score'] for r in runs)) in text
    nll = json.loads((A / 'reading_probe' / 'title_rows2_every_nll_test.json').read_text())['log'][0]['title_nll']
    assert f"predicts the named title's words at {nll:.2f} nats" in text
    tied, frozen, one = tap('scan_feedtower_align'), tap('scan_feedtower_frozen'), tap('title_feedtower_frozen')
    assert tied['step'] == frozen['step'] == 3000 and one['score'] == 17.2
    from mobile_r1.evaluate import wilson_interval
    lo, hi = wilson_interval(round(tied['score'] * 169 / 100), 169)
    assert f"in {tied['score']}% [{lo:.1f}, {hi:.1f}] of 169 test questions after 3,000 steps with the tied tower ({frozen['score']}% with" in text
    (sb,) = json.loads((A / 'base_scan' / 'grounding.json').read_text())['bases'].values()
    cpu0 = json.loads((A / 'base_gpu' / 'grounding.json').read_text())['bases']['tiny224_cpu']
    t, t0 = sb['kinds']['title'], cpu0['kinds']['title']
    assert sb['card']['config']['max_minutes'] == 35 and sb['card']['config']['scan']
    assert f"taps the named title in {t['correct']}% of {t['n']} title steps, not yet beyond the first CPU base's {t0['correct']}%" in text
    from mobile_r1.metrics import read_metrics
    rr = read_metrics(A / 'reader' / 'reader.jsonl')
    at = next(r for r in rr if r['title'] == 100.0)
    assert f"names all {at['n_titles']} test titles at step {at['step']}, after {at['time_s'] / 60:.1f} minutes" in text
    (b2,) = json.loads((A / 'base_scan2' / 'grounding.json').read_text())['bases'].values()
    f2, k2 = b2['card']['figures']['train'], b2['kinds']
    q = {n: {r['split']: r for r in json.loads((A / 'base_scan2' / f'quickstart_{n}.json').read_text())['rows']['1']} for n in ('base', 'scratch')}
    assert (f"({b2['card']['config']['max_minutes']:.0f} minutes, {b2['card']['steps_done']:,} steps) learns the fixed controls ({k2['fixed']['correct']}%) "
            f"and wins {f2['online_success']:.1f}% [{f2['online_ci'][0]:.1f}, {f2['online_ci'][1]:.1f}] of its own tasks, but taps a named title in "
            f"only {k2['title']['correct']}% of {k2['title']['n']} title steps") in text
    assert (f"wins {q['base']['train_tasks']['online_success']:.1f}% of the training tasks against {q['scratch']['train_tasks']['online_success']:.1f}% "
            f"from random weights (n = {q['base']['train_tasks']['online_episodes']} each)") in text
    t2 = b2['title_answers']
    assert t2['scans_repeating_a_row'] == t2['n'] == t2['top_place_n'] == 59 and t2['tap_places'] == 1
    assert "(its thoughts write the list from the instruction, and all its taps go to one place)" in text


def test_the_shipped_base_paragraph_quotes_its_assets():
    from mobile_r1.pretrain import SHIPPED_BASE, check_base
    p = paragraph('**A base ships, and stage 1 from it is better on average, not yet on every seed.**')
    card = check_base(SHIPPED_BASE)
    c = card['config']
    assert f"{card['steps_done']:,} steps of {c['batch_size']} on {c['episodes']:,} expert trajectories ({card['train_samples']:,} steps) of the {card['tasks']:,} training tasks" in p
    assert f"{sum(card['wall_s'].values()) / 60:.0f} minutes on 2 CPU cores" in p and card['device'] == 'CPU, 2 cores'
    assert f"(`{card['command']} --ship`" in p
    mb = sum(f.stat().st_size for f in SHIPPED_BASE.iterdir()) / 2**20
    assert f"`mobile_r1/bases/tiny` ({mb:.1f} MB," in p
    qs = {(k, s): json.loads((ASSETS / 'shipped_base' / f'{k}_s{s}.json').read_text()) for k in ('base', 'scratch') for s in (0, 1, 2)}
    s1 = {k: [next(r for r in qs[k, s]['rows']['1'] if r['split'] == 'train_tasks') for s in (0, 1, 2)] for k in ('base', 'scratch')}
    assert all(r['online_episodes'] == 128 for rs in s1.values() for r in rs)
    b, z = ([f"{r['online_success']:.1f}" for r in s1[k]] for k in ('base', 'scratch'))
    assert f"won {b[0]}, {b[1]} and {b[2]}% of 128 training-task episodes, against {z[0]}, {z[1]} and {z[2]}% from random weights" in p
    fmt = sorted(qs['base', s]['format_compliance_stage1'] for s in (0, 1, 2))
    assert f"({fmt[0]:.1f} to {fmt[-1]:.0f}%)" in p
    assert all(r['online_success'] == 0.0 and r['online_episodes'] == 64 for q in qs.values() for r in q['rows']['1'] if r['split'] == 'held_out')
    assert '14:26.31' in (ASSETS / 'shipped_base' / 'time_base_s2.txt').read_text() and 'took 14 min 26 s on 2 cores' in p
    assert '12:13.26' in (ASSETS / 'shipped_base' / 'time_scratch_s0.txt').read_text() and 'against 12 min 13 s from random weights (seed 0)' in p
