"""Copy what a notebook shows of a phone base into nbs/assets: its card, its training curve, and the reading benchmark
run on it (`benchmarks/bench_reading.py`). The weights stay where they are (a base ships in mobile_r1/bases/ or not at all).

    python tools/base_assets.py runs/base runs/bench_reading --out nbs/assets/base_cpu"""
import argparse, json, shutil
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('base', help='the folder `mobile-r1 pretrain --out` wrote (holding model/ and pretrain.jsonl)')
    ap.add_argument('reading', help='the folder `bench_reading.py --out` wrote (holding reading.json)')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    base, reading, out = Path(a.base), Path(a.reading), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    card = json.loads((base / 'model' / 'mobile_r1.json').read_text())['base']
    (out / 'card.json').write_text(json.dumps(card, indent=1))
    shutil.copy(base / 'model' / 'BASE.md', out / 'BASE.md')
    shutil.copy(base / 'pretrain.jsonl', out / 'pretrain.jsonl')
    shutil.copy(reading / 'reading.json', out / 'reading.json')
    print(f'wrote {", ".join(p.name for p in sorted(out.iterdir()))} to {out}')


if __name__ == '__main__':
    main()
