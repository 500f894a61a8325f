"""Can a vision tower from random weights learn to read a title, and does it matter where the title sits on the patch
grid? A direct classifier, no language model: one procedural video title ("Golden Cats": 12 adjectives × 10 nouns)
drawn alone on a white screen in the model's frame (224 × 392 by default), the encoder's tokens max-pooled, and two
linear heads name the adjective and the noun. Fresh screens every step; scored on 128 fixed test screens.

Encoders (`--encoder`):
- `qwen`: the tiny model's Qwen2.5-VL vision tower (14-pixel patches, 2 × 2 merge; `--vision` hidden,depth: 64,2).
- `mlp`: a two-layer MLP on each 14 × 14 patch (the tower without attention).
- `cnn`: four 3 × 3 convolutions with stride 2 (shift-equivariant by construction): the control.

Placement (`--place`), in the model frame: `fixed` (always at x=28, y=140), `grid28` / `grid14` (random multiples of 28
or 14 pixels: the merged-token or the patch grid), `random` (any pixel), `few40` (40 fixed places
off the grid: as many as grid28 allows), and `rows`: where SimPhone's video feed puts
its titles at level 0 (x = 74, y = a row's top + 24 for one of seven rows of 64 pixels), drawn on the phone's 360 × 640
screen with its 15-pixel font and resized to the model frame, as a screenshot is; `row1`: always the first row; `rows_jitter`: the same with rows
of 60 to 68 pixels, as layouts jitter from level 1; `feed`: SimPhone's own procedural video feed of a fresh episode
(seven titles among thumbnails and view counts), each title read from its own row of tokens (the tower's tokens of
the row holding the title's middle, max-pooled). The text size is `--px` in the model
frame for the other placements (SimPhone's 15-pixel titles are 9.3 pixels at 224 × 392).

    python benchmarks/bench_reading_align.py --encoder qwen --place fixed [--px 9] [--steps 600] [--lr 1e-3]
        [--init READER.pt] [--save] [--name NAME] [--out runs/reading_align]

Writes OUT/NAME.json: the arguments and, every `--eval-every` steps, the loss and the adjective and noun accuracy (%).
Chance is 8.3% and 10%; the loss of a classifier that knows nothing is ln 12 + ln 10 = 4.79."""
import argparse, json, math, random, time
from pathlib import Path
import torch
from torch import nn
from PIL import Image, ImageDraw
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel
from transformers.models.qwen2_5_vl.configuration_qwen2_5_vl import Qwen2_5_VLVisionConfig
from transformers import Qwen2VLImageProcessorPil
import mobile_r1.sim.render as R
from bench_reading_probe import ADJ, NOUN, screens, token_row

_f = random.Random(40)
FEW40 = [(_f.randrange(0, 112), _f.randrange(56, 336)) for _ in range(40)]   # 40 places anywhere in the 224 × 392 frame
PLACES = ('fixed', 'grid28', 'grid14', 'random', 'few40', 'row1', 'rows', 'rows_jitter', 'feed')


def args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--encoder', choices=('qwen', 'mlp', 'cnn'), default='qwen')
    ap.add_argument('--place', choices=PLACES, default='random')
    ap.add_argument('--px', type=int, default=9); ap.add_argument('--size', default='224,392', help='model frame W,H')
    ap.add_argument('--vision', default='64,2', help='qwen: hidden, depth'); ap.add_argument('--width', type=int, default=128)
    ap.add_argument('--steps', type=int, default=600); ap.add_argument('--bs', type=int, default=16)
    ap.add_argument('--lr', type=float, default=1e-3); ap.add_argument('--eval-every', type=int, default=100)
    ap.add_argument('--test', type=int, default=128); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--init', default=None, help="start from a reader saved by --save (a curriculum's earlier stage)")
    ap.add_argument('--save', action='store_true', help='save the trained reader to OUT/NAME.pt (the tower alone: OUT/NAME.tower.pt)')
    ap.add_argument('--name', default=None); ap.add_argument('--out', default='runs/reading_align')
    a = ap.parse_args(argv)
    a.name = a.name or f'{a.encoder}_{a.place}_{a.px}'
    return a


def screen(r: random.Random, place: str, px: int, W: int, H: int):
    "A screen and what it shows: (image, [(adjective index, noun index, token row or None for the whole screen)])."
    if place == 'feed': return feed(r, W, H)
    i, j = r.randrange(len(ADJ)), r.randrange(len(NOUN))
    if place.startswith('row'):                                     # SimPhone's feed geometry, then resized like a screenshot
        row_h = 64 + (r.randint(-4, 4) if place == 'rows_jitter' else 0)
        img = Image.new('RGB', (360, 640), 'white')
        k = 0 if place == 'row1' else r.randrange(7)
        ImageDraw.Draw(img).text((74, 86 + row_h * k + 24), f'{ADJ[i]} {NOUN[j]}', font=R.font(15), fill=(20, 20, 20), anchor='lm')
        return img.resize((W, H), Image.BICUBIC), [(i, j, None)]
    img = Image.new('RGB', (W, H), 'white')
    ImageDraw.Draw(img).text(where(r, place, W, H), f'{ADJ[i]} {NOUN[j]}', font=R.font(px), fill=(20, 20, 20))
    return img, [(i, j, None)]


def feed(r: random.Random, W: int, H: int):
    "SimPhone's procedural video feed of a fresh episode (`bench_reading_probe.screens`), resized as a screenshot; each row's title and its token row."
    while not (shot := screens('title', 1, r.randrange(1 << 30), 15)): pass   # an episode whose first screen is not the home screen: another
    img, rows = shot[0]
    labels = [(ADJ.index(t.split(' ', 1)[0]), NOUN.index(t.split(' ', 1)[1]), token_row(b, H)) for t, b in rows]
    return img.resize((W, H), Image.BICUBIC), labels


def where(r: random.Random, place: str, W: int, H: int) -> tuple:
    "The title's top left in the model frame, for a placement drawn there (not the row placements, not the feed)."
    if place == 'fixed': return 28, 140
    if place == 'few40': return FEW40[r.randrange(40)]               # as many places as grid28 has, off its grid
    g = {'grid28': 28, 'grid14': 14, 'random': 1}[place]
    return g * r.randrange(0, (W // 2) // g), g * r.randrange(2, (H - 56) // g)


class Reader(nn.Module):
    "An encoder whose tokens are max-pooled into two heads: adjective and noun."
    def __init__(self, a):
        super().__init__()
        self.kind = a.encoder
        if a.encoder == 'qwen':
            vh, depth = (int(v) for v in a.vision.split(','))
            cfg = Qwen2_5_VLVisionConfig(depth=depth, hidden_size=vh, intermediate_size=2 * vh, num_heads=2, out_hidden_size=a.width,
                                         fullatt_block_indexes=[depth - 1], window_size=112)
            self.enc = Qwen2_5_VisionTransformerPretrainedModel._from_config(cfg)
        elif a.encoder == 'mlp':
            self.enc = nn.Sequential(nn.Linear(3 * 2 * 14 * 14, 256), nn.GELU(), nn.Linear(256, a.width))
        else:
            c = a.width
            self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.GELU(), nn.Conv2d(32, 64, 3, 2, 1), nn.GELU(),
                                     nn.Conv2d(64, c, 3, 2, 1), nn.GELU(), nn.Conv2d(c, c, 3, 2, 1))
        self.adj, self.noun = nn.Linear(a.width, len(ADJ)), nn.Linear(a.width, len(NOUN))

    def forward(self, x, labels):
        "Adjective and noun logits for each (i, j, token row) of `labels` (one list per image): the row's tokens max-pooled, or all of them."
        if self.kind == 'cnn':
            if any(r is not None for ls in labels for *_, r in ls): raise ValueError('--place feed needs a token grid: --encoder qwen or mlp')
            f = self.enc(x['pixels']).flatten(2).amax(-1)
        else:
            pv, thw = x['pixel_values'], x['image_grid_thw']
            if self.kind == 'qwen':
                tok, per = self.enc(pv, grid_thw=thw).pooler_output, (thw.prod(-1) // 4).tolist()   # merged 2 × 2: tokens per image
            else: tok, per = self.enc(pv), thw.prod(-1).tolist()
            W = int(thw[0, 2]) // 2                                       # tokens a row (the merged grid's width)
            f = torch.stack([t.amax(0) if r is None else t.view(-1, W, t.shape[-1])[r].amax(0)
                             for t, ls in zip(tok.split(per), labels) for *_, r in ls])
            return self.adj(f), self.noun(f)
        f = torch.cat([f[k:k + 1].expand(len(ls), -1) for k, ls in enumerate(labels)])
        return self.adj(f), self.noun(f)


def batch(imgs, ip, kind):
    if kind == 'cnn':
        import numpy as np
        x = torch.tensor(np.stack([np.asarray(im, dtype=np.float32) / 127.5 - 1 for im in imgs])).permute(0, 3, 1, 2)
        return {'pixels': x}
    return dict(ip(images=imgs, return_tensors='pt'))


def main(argv=None):
    a = args(argv)
    torch.set_num_threads(a.threads); torch.manual_seed(a.seed)
    W, H = (int(v) for v in a.size.split(','))
    ip = Qwen2VLImageProcessorPil(size={'shortest_edge': 56 * 56, 'longest_edge': W * H})
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    model, t0 = Reader(a), time.time()
    if a.init: model.load_state_dict(torch.load(a.init))
    tr = random.Random(a.seed + 1)
    test = [screen(random.Random(10_000 + k), a.place, a.px, W, H) for k in range(a.test)]
    tx, tl = batch([s[0] for s in test], ip, a.encoder), [s[1] for s in test]
    ti, tj = torch.tensor([i for ls in tl for i, _, _ in ls]), torch.tensor([j for ls in tl for _, j, _ in ls])
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.0)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1, (s + 1) / 50))
    log = []
    print(f'{a.name}: {sum(p.numel() for p in model.parameters()):,} parameters, frame {W} × {H}', flush=True)
    for step in range(1, a.steps + 1):
        ss = [screen(tr, a.place, a.px, W, H) for _ in range(a.bs)]
        la, ln = model(batch([s[0] for s in ss], ip, a.encoder), [s[1] for s in ss])
        loss = (nn.functional.cross_entropy(la, torch.tensor([i for s in ss for i, _, _ in s[1]]))
                + nn.functional.cross_entropy(ln, torch.tensor([j for s in ss for _, j, _ in s[1]])))
        loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); warm.step(); opt.zero_grad()
        if step % a.eval_every == 0 or step == a.steps:
            with torch.no_grad(): pa, pn = model(tx, tl)
            log.append({'step': step, 'loss': round(loss.item(), 3), 'adjective': round(100 * (pa.argmax(-1) == ti).float().mean().item(), 1),
                        'noun': round(100 * (pn.argmax(-1) == tj).float().mean().item(), 1), 'wall_s': round(time.time() - t0)})
            print(a.name, log[-1], flush=True)
            (out / f'{a.name}.json').write_text(json.dumps({'args': vars(a), 'titles': len(ti), 'chance': [round(100 / len(ADJ), 1), 10.0],
                                                            'prior_loss': round(math.log(len(ADJ)) + math.log(len(NOUN)), 2), 'log': log}, indent=1))
    if a.save: torch.save(model.state_dict(), out / f'{a.name}.pt'); torch.save(model.enc.state_dict(), out / f'{a.name}.tower.pt')


if __name__ == '__main__':
    main()
