"""Add `static_steps` (the n of a static accuracy) to the rows of committed run assets written before table rows
carried it. The steps a static benchmark scores are a property of the split's data, so they are regenerated from the
run's recorded config (`mobile_r1.quickstart.make_split`), not measured again.

    python tools/static_steps.py nbs/assets/real_run nbs/assets/busy_run"""
import argparse, json, tempfile
from dataclasses import fields
from pathlib import Path
from mobile_r1.data import atomic_write, read_dataset
from mobile_r1.quickstart import QuickstartConfig, make_split


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('folders', nargs='+', help='asset folders holding run.json (its config) and table.json')
    a = ap.parse_args()
    names = {f.name for f in fields(QuickstartConfig)}
    for folder in map(Path, a.folders):
        conf = json.loads((folder / 'run.json').read_text())['config']
        cfg = QuickstartConfig(**{k: tuple(v) if k == 'world' else v for k, v in conf.items() if k in names})
        tmp, n = Path(tempfile.mkdtemp()), {}
        table = json.loads((folder / 'table.json').read_text())
        for r in table['rows']:
            if r.get('accuracy') is None: continue
            if r['split'] not in n: n[r['split']] = sum(len(e.steps) for e in read_dataset(make_split(cfg, r['split'], tmp / r['split'])))
            r['static_steps'] = n[r['split']]
        atomic_write(folder / 'table.json', json.dumps(table, indent=1))
        print(folder, n)


if __name__ == '__main__':
    main()
