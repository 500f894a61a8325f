"""What does reading need? Small probes that split finding a title on a screen into its parts, each trained from
random weights on one kind of single-step question about SimPhone's procedural Video feed, then scored greedily on
screens of fresh seeds (192 by default).

Tasks (`--task`):
- `mark`: one row's thumbnail is painted red, the others grey; "Tap "the red row"." Finding a place, no reading.
- `title`: "Tap "Golden Cats"." on the feed as it is: finding the row a title names (the step stage 1 fails on).
- `scan`: the same question, answered by reading the rows top to bottom, each judged against the named title, until
  it is found, then its row's place: "Quiet Guitar no; Golden Cats yes [112, 72]". A thought that turns the lookup
  into steps that each look at one place: read the next row, compare two titles, tap the row just read.
- `markread`: the red row as in `mark`; "Read the red row." → its title. Reading one marked row.
- `read`: "Read the titles." → every visible title, top to bottom.
- `solo`: one title alone on a blank screen at a random place; "Read the screen." → the title. Reading, nothing else.
- `has`: "Is "Golden Cats" on the screen?" → yes or no, half the time each: matching a named title to the screen,
  without saying where.
- `hastext`: the control of `has`: the same question after the screen's titles written out as text ("The screen shows:
  "Quiet Guitar"; "Golden Cats"; …"). Matching words to words: what the language model can learn without reading.
- `titletext`: the control of `title`: the same question after each title written out with its row's centre
  ("The screen shows: "Quiet Guitar" at [112, 72]; …"). Looking a place up by its words, without reading.
- `placestext`: every title written out with its place, then "Where are "Golden Cats"; "Quiet Guitar"; …" in a shuffled
  order → their places, in that order: seven lookups an answer (dense associative recall).
- `copytext`: the titles written out as text in a shuffled order, "Repeat the titles." → the same list: dense copying.

Knobs: `--spec` (text hidden, text layers, heads, kv heads, vision hidden, vision depth: the tiny model is
128,2,4,2,64,2), `--max-pixels` (image budget; 234416 keeps 364 × 644), `--title-px` (the rows' title font, 15 as
SimPhone draws it), `--rows K` (title, scan, has: keep K of the feed's rows), `--align W` (title, scan, has: tie each
title's row of screen tokens to the model's embeddings of its words), `--echo` (placestext, titletext: the answer names the title
before its place), `--every-token` (the loss on every text token, the question's too: with the screen first, the title
a question names is predicted from the screen), `--blank` (the text controls: a 56 × 56 blank instead of the screen).
The answer is short: "[x, y]" in the model's frame for a tap (after the judged rows for `scan`), the text for a
reading. Prompts are a bare user turn (no system prompt, no history), so a step is cheap.

    python benchmarks/bench_reading_probe.py --task title [--spec 128,2,4,2,64,2] [--steps 1500] [--bs 16]
        [--lr 1e-3] [--max-pixels 89376] [--title-px 15] [--tower visual.pt] [--freeze-tower] [--from-model M]
        [--text-first] [--rows K] [--align 1] [--every-token] [--echo] [--blank] [--save] [--name NAME] [--out runs/reading_probe]

Writes OUT/NAME.json (the arguments and, every `--eval-every` steps, the training loss, the alignment loss with
`--align`, with `--every-token` (title) the nats a test question spends on the words of the title it names, and the
score: % of taps inside the named row, or % of titles, places or answers given exactly). On 2 CPU cores a step of 16
takes about half a second at the default budget, with a second probe beside it on the other core."""
import argparse, json, random, time
from pathlib import Path
import torch
from PIL import Image, ImageDraw
from transformers import AutoModelForImageTextToText
import mobile_r1.sim.render as R
from mobile_r1.data import model_frame
from mobile_r1.decode import encode, sample
from mobile_r1.policy import TINY_SIZES, load_processor, tiny_qwen_vl
from mobile_r1.sim.apps import ADJECTIVES, NOUNS, vocabulary
from mobile_r1.sim.expert import expert_action
from mobile_r1.sim.generate import sim_corpus
from mobile_r1.sim.phone import SimPhone, scene
from mobile_r1.sim.tasks import task_list

TASKS = ('mark', 'title', 'scan', 'markread', 'read', 'solo', 'has', 'hastext', 'copytext', 'titletext', 'placestext')
READS = ('markread', 'read', 'solo', 'has', 'hastext', 'copytext', 'placestext')
PROMPTS = {'markread': 'Read the red row.', 'read': 'Read the titles.', 'solo': 'Read the screen.'}
ADJ, NOUN = list(ADJECTIVES), list(NOUNS['videos'])             # a video title is 'adjective noun'


def token_row(box, H: int) -> int:
    "The row of merged 28-pixel tokens, in a model frame `H` pixels high, that holds the title of a feed row at `box` (phone pixels)."
    return int((box[1] + 24) * H / 640) // 28


def args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--task', choices=TASKS, default='title')
    ap.add_argument('--spec', default='128,2,4,2,64,2', help='text hidden, text layers, heads, kv heads, vision hidden, vision depth')
    ap.add_argument('--steps', type=int, default=1500); ap.add_argument('--bs', type=int, default=16)
    ap.add_argument('--lr', type=float, default=1e-3); ap.add_argument('--screens', type=int, default=1500)
    ap.add_argument('--max-pixels', type=int, default=114 * 28 * 28); ap.add_argument('--title-px', type=int, default=15)
    ap.add_argument('--rows', type=int, default=None, help='keep this many of the feed\'s rows, drawn per screen, and paint the others over '
                    'with the row\'s own background: fewer titles to choose from (title, scan, has)')
    ap.add_argument('--eval-every', type=int, default=250); ap.add_argument('--test-screens', type=int, default=192); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--from-model', default=None, help='start from a model a probe saved (--save), not from random weights')
    ap.add_argument('--save', action='store_true', help='save the trained model and processor to OUT/NAME.model')
    ap.add_argument('--text-first', action='store_true', help='the question before the screen in the user turn (so image tokens can attend to it)')
    ap.add_argument('--freeze-tower', action='store_true', help='keep the vision tower (and its merger) fixed: train the language model alone')
    ap.add_argument('--tower', default=None, help="start the vision tower (and its merger) from this state dict (torch.save of model.model.visual's)")
    ap.add_argument('--align', type=float, default=0.0, help="weight of a word-alignment loss: each title's row of image tokens, "
                    "scored against the language model's own embeddings of the title's two words, max-pooled over the row (title, scan, has)")
    ap.add_argument('--echo', action='store_true', help='placestext, titletext: the answer names each title before its place ("Golden Cats" at [112, 111])')
    ap.add_argument('--every-token', action='store_true', help='the loss on every text token (the question too, not the image tokens), as a '
                    'language model is pretrained: with the screen first, the named title is then predicted from the screen (the score is still the answer\'s)')
    ap.add_argument('--blank', action='store_true', help='a text control without the screen: a 56 × 56 blank image (4 tokens) in its place, at a text model\'s cost')
    ap.add_argument('--name', default=None); ap.add_argument('--out', default='runs/reading_probe')
    a = ap.parse_args(argv)
    a.name = a.name or a.task
    if a.align and a.task not in ('title', 'scan', 'has'): ap.error('--align needs the feed as it is: --task title, scan or has')
    if a.rows is not None and (a.task not in ('title', 'scan', 'has') or a.rows < 1):
        ap.error('--rows keeps at least one row of the feed, for --task title, scan or has')
    if a.echo and a.task not in ('placestext', 'titletext'): ap.error('--echo is for placestext and titletext')
    if a.blank and not a.task.endswith('text'): ap.error('--blank is for the text controls (hastext, titletext, placestext, copytext): the others need the screen')
    return a


def tiny_model(spec: str, folder: Path, max_pixels: int) -> Path:
    """A tiny Qwen2.5-VL from random weights, saved at `folder`: `spec` gives text hidden, text layers, heads, kv heads,
    vision hidden and vision depth; its tokenizer is trained on SimPhone's text and on places written as '[112, 72]'."""
    TINY_SIZES['probe'] = tuple(int(v) for v in spec.split(','))
    corpus = sim_corpus(content='procedural') + [f'[{i}, {j}]' for i in range(0, 400, 7) for j in range(0, 400, 11)]
    return tiny_qwen_vl(folder, corpus=corpus, size='probe', max_pixels=max_pixels)


def big_titles(px: int):
    "Draw list rows with a `px` title font (the views line moves down and shrinks); SimPhone draws 15."
    old = R._line
    def _line(p, it, surf, fg, sub, div, acc):
        if it.kind != 'row': return old(p, it, surf, fg, sub, div, acc)
        x1, y1, x2, y2 = it.box
        p.rect(it.box, surf); p.line([(76, y2 - 1), (R.BASE_W, y2 - 1)], div, 1)
        p.rect((14, y1 + 9, 60, y2 - 9), R.rgb(it.hue, 0.6), r=8)
        p.text((74, y1 + 24), it.label, px, fg, width=270)
        if it.sub: p.text((74, y1 + 52), it.sub, 10, sub, width=240)
    R._line = _line


def screens(task: str, n: int, seed0: int, title_px: int, keep: int | None = None) -> list:
    """`n` feed screens of fresh procedural episodes: (image, [(title or 'the red row', box), ...]) per screen; with `keep`,
    that many rows drawn per screen stay and the others are painted over with their own background."""
    ts = [t for t in task_list('train', content='procedural') if t.id.startswith('Video/like_video')]
    ph, res = SimPhone(), []
    for s in range(n):
        obs, _ = ph.reset(ts[s % len(ts)], seed=seed0 + s)
        obs, *_ = ph.step(expert_action(ph, ts[0]).action)          # open Video: its feed
        rows = [(t.label, t.box) for t in scene(ph)[1] if t.id.startswith('row:')]
        if not rows: continue                                        # an episode whose first screen is not the home screen
        img, r = obs['screenshot'].convert('RGB'), random.Random(seed0 + s)
        if keep is not None and keep < len(rows):
            kept = sorted(r.sample(range(len(rows)), keep)); d = ImageDraw.Draw(img)
            for j, (_, b) in enumerate(rows):
                if j not in kept: d.rectangle((b[0], b[1], b[2] - 1, b[3] - 1), fill=img.getpixel((b[0] + 2, b[1] + 2)))   # PIL's box is inclusive
            rows = [rows[j] for j in kept]
        if task in ('mark', 'markread'):
            d, k = ImageDraw.Draw(img), r.randrange(len(rows))
            for j, (_, b) in enumerate(rows):
                d.rectangle((b[0] + 14, b[1] + 10, b[0] + 58, b[3] - 10), fill=(220, 30, 30) if j == k else (128, 128, 128))
            rows = [('the red row', b) if task == 'mark' else (t, b) for j, (t, b) in enumerate(rows) if j == k]
        if task == 'solo':
            t = r.choice(rows)[0]
            img = Image.new('RGB', (360, 640), 'white')
            ImageDraw.Draw(img).text((r.randrange(10, 120), r.randrange(60, 560)), t, font=R.font(title_px), fill=(20, 20, 20))
            rows = [(t, (0, 0, 360, 640))]
        res.append((img, rows))
    return res


def shows(titles, place=None) -> str:
    """The screen written out in words, for the text controls: 'The screen shows: "Quiet Guitar"; …', or, given `place`,
    each (title, box) pair as '"Quiet Guitar" at [112, 72];'."""
    return 'The screen shows: ' + ' '.join(f'"{t[0]}" at {place(t[1])};' if place else f'"{t}";' for t in titles)


class Probe:
    def __init__(self, a):
        self.a = a
        torch.manual_seed(0)
        folder = a.from_model or tiny_model(a.spec, Path(a.out) / f'init_{a.name}', a.max_pixels)
        self.proc = load_processor(str(folder))
        self.model = AutoModelForImageTextToText.from_pretrained(str(folder))
        if a.tower: self.model.model.visual.load_state_dict(torch.load(a.tower))
        if a.freeze_tower: self.model.model.visual.requires_grad_(False)
        self.W, self.H = model_frame(360, 640, a.max_pixels).size
        self.end = self.proc.tokenizer.convert_tokens_to_ids('<|im_end|>')
        tok = self.proc.tokenizer.convert_tokens_to_ids              # the words as a question spells them: 'Tap "Quiet Guitar".'
        self.adj, self.noun = torch.tensor([tok(w) for w in ADJ]), torch.tensor([tok('Ġ' + w) for w in NOUN])

    def box(self, b): return [round(b[0] * self.W / 360), round(b[1] * self.H / 640), round(b[2] * self.W / 360), round(b[3] * self.H / 640)]

    def place(self, b) -> str:
        "The centre of phone box `b` in the model's frame, as an answer writes it: '[112, 72]'."
        f = self.box(b)
        return f'[{(f[0] + f[2]) // 2}, {(f[1] + f[3]) // 2}]'

    def item(self, img, rows, r):
        "One question on a screen: (image, prompt, answer, box or None)."
        if self.a.task in ('has', 'hastext'):                       # a title on the screen, or one that is not, half the time each
            shown = [t for t, _ in rows]
            t = r.choice(shown) if r.random() < 0.5 else r.choice([v for v in vocabulary('videos') if v not in shown])
            listed = shows(shown) + ' ' if self.a.task == 'hastext' else ''   # the control: the titles as text
            return img, f'{listed}Is "{t}" on the screen?', 'yes' if t in shown else 'no', None
        if self.a.task == 'copytext':                               # dense copying, word by word: what builds induction heads
            shown = [t for t, _ in rows]; r.shuffle(shown)
            return img, shows(shown) + ' Repeat the titles.', '; '.join(shown), None
        if self.a.task == 'placestext':                             # dense lookups: every title's place, asked in a shuffled order
            asked = rows[:]; r.shuffle(asked)
            return (img, shows(rows, self.place) + ' Where are ' + ' '.join(f'"{v}";' for v, _ in asked),
                    '; '.join(self.answer(v, b) for v, b in asked), None)
        if self.a.task in READS: return img, PROMPTS[self.a.task], '; '.join(t for t, _ in rows), None   # one row but for `read`
        t, b = r.choice(rows)
        if self.a.task == 'scan':                                   # read down to the named title, judging each row, then tap it
            seen = [f'{v} no' for v, _ in rows[:rows.index((t, b))]]
            return img, f'Tap "{t}".', '; '.join(seen + [f'{t} yes {self.place(b)}']), self.box(b)
        listed = shows(rows, self.place) + ' ' if self.a.task == 'titletext' else ''
        return img, f'{listed}Tap "{t}".', self.answer(t, b), self.box(b)

    def answer(self, t: str, b) -> str:
        """A place asked for by its title: '[112, 72]', or with `--echo` '"Quiet Guitar" at [112, 72]'."""
        return (f'"{t}" at ' if self.a.echo else '') + self.place(b)

    def texts(self, items):
        turn = lambda q: [{'type': 'image'}, {'type': 'text', 'text': q}][::-1 if self.a.text_first else 1]
        msgs = [[{'role': 'user', 'content': turn(q)}] for _, q, _, _ in items]
        return ([self.proc.apply_chat_template(m, add_generation_prompt=True, tokenize=False) for m in msgs],
                [Image.new('RGB', (56, 56), 'white') if self.a.blank else img.resize((self.W, self.H), Image.BICUBIC) for img, *_ in items])

    def forward(self, items, hidden: bool = False):
        "The model on `items` with their answers: (output, input ids, labels), labels on the answer, or on every text token with `--every-token`."
        texts, imgs = self.texts(items)
        enc = encode(self.proc, [t + ans + '<|im_end|>' for t, (_, _, ans, _) in zip(texts, items)], imgs)
        idx, thw = enc.pop('image_index'), enc['image_grid_thw']    # the model wants one image per placeholder: repeat the shared ones
        pv = enc['pixel_values'].split(thw.prod(-1).tolist())
        enc['pixel_values'], enc['image_grid_thw'] = torch.cat([pv[j] for j in idx.tolist()]), thw[idx]
        labels = enc['input_ids'].clone(); labels[enc['attention_mask'] == 0] = -100
        if self.a.every_token: labels[enc['input_ids'] == self.proc.image_token_id] = -100
        else:
            for r, (_, _, ans, _) in enumerate(items): labels[r, :-len(self.proc.tokenizer(ans + '<|im_end|>')['input_ids'])] = -100
        return self.model(**enc, labels=labels, output_hidden_states=hidden), enc['input_ids'], labels

    def loss(self, items, shown=None):
        "The answer's loss (every token's with `--every-token`); with `--align`, plus the word-alignment loss on the rows `shown` on each screen."
        out, ids, labels = self.forward(items, bool(self.a.align))
        if not self.a.align: return out.loss
        self.aligned = self.align(out.hidden_states[0], ids, shown)
        return out.loss + self.a.align * self.aligned

    @torch.no_grad()
    def named(self, items) -> float:
        """Nats per question on the words of the title it names, on `items` (the test questions), each word predicted
        from what came before it: with the screen first, ln 12 + ln 10 = 4.79 knowing only the vocabulary, ln k knowing
        that it is one of the k titles on the screen. Needs `--every-token` (the question's words are labelled)."""
        self.model.eval(); nats = 0.0
        for i in range(0, len(items), 16):
            out, _, labels = self.forward(items[i:i + 16])
            want = labels[:, 1:]
            at = torch.isin(want, torch.cat([self.adj, self.noun]))
            nats += torch.nn.functional.cross_entropy(out.logits[:, :-1][at].float(), want[at], reduction='sum').item()
        self.model.train()
        return round(nats / len(items), 3)

    def align(self, h, ids, shown):
        "Cross-entropy of each title's adjective and noun, scored as (image token · word embedding) max-pooled over the title's token row."
        E, cols, ai, ni, rows = self.model.get_input_embeddings().weight, self.W // 28, [], [], []
        for r, rs in enumerate(shown):
            g = h[r][ids[r] == self.proc.image_token_id].view(-1, cols, h.shape[-1])   # the screen's merged tokens, row by row
            for t, b in rs:
                a, n = t.split(' ', 1)
                rows.append(g[token_row(b, self.H)]); ai.append(ADJ.index(a)); ni.append(NOUN.index(n))
        g = torch.stack(rows)                                       # titles × tokens a row × hidden
        la, ln = (g @ E[self.adj].T).amax(1), (g @ E[self.noun].T).amax(1)
        return torch.nn.functional.cross_entropy(la, torch.tensor(ai)) + torch.nn.functional.cross_entropy(ln, torch.tensor(ni))

    @torch.no_grad()
    def score(self, items) -> float:
        "% of taps inside the named row, or % of titles read exactly (greedy); a scan also counts in `found` the answers that say yes to the named title."
        self.model.eval(); hit = tot = self.found = 0
        for i in range(0, len(items), 32):
            chunk = items[i:i + 32]; texts, imgs = self.texts(chunk)
            comp = sample(self.model, encode(self.proc, texts, imgs), [self.end], self.budget, 0.0, 1.0, [])
            for c, (_, _, ans, f) in zip(self.proc.tokenizer.batch_decode(comp, skip_special_tokens=True), chunk):
                if f is None:
                    g, p = ans.split('; '), c.strip().split('; ')
                    hit += sum(x == y for x, y in zip(g, p)); tot += len(g)
                    continue
                tot += 1; c = c.strip()
                if self.a.task == 'scan':                           # the scan stopped at the named title
                    named = ans.rsplit('; ', 1)[-1].split(' yes ')[0]
                    self.found += c.rsplit('; ', 1)[-1].startswith(f'{named} yes ')
                try: x, y = json.loads(c[c.rfind('['):]); hit += f[0] <= x <= f[2] and f[1] <= y <= f[3]
                except (ValueError, TypeError): pass
        self.model.train()
        return round(100 * hit / tot, 1)

    @property
    def budget(self) -> int:
        "Tokens a greedy answer may take: a place is about 10, a title about 5; placestext answers seven, echoed or not."
        if self.a.task == 'placestext': return 200 if self.a.echo else 100
        if self.a.task == 'scan': return 90                         # up to seven titles judged, then a place
        return (60 if self.a.task in READS else 10) + (20 if self.a.echo else 0)


def main(argv=None):
    a = args(argv)
    torch.set_num_threads(a.threads); random.seed(0)
    if a.title_px != 15: big_titles(a.title_px)
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    t0, p = time.time(), Probe(a)
    train = screens(a.task, a.screens, 100, a.title_px, a.rows)
    test = [p.item(img, rows, random.Random(i)) for i, (img, rows) in enumerate(screens(a.task, a.test_screens, 90000, a.title_px, a.rows))]
    if a.task == 'read': test = test[:64]                          # 64 screens of about 7 titles each
    print(f'{a.name}: {len(train)} training screens, {len(test)} test questions, frame {p.W} × {p.H}', flush=True)
    opt = torch.optim.AdamW([w for w in p.model.parameters() if w.requires_grad], lr=a.lr, weight_decay=0.0)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1, (s + 1) / 50))
    rng, log = random.Random(1), []
    def report(step, loss=None):
        score = p.score(test)                                        # sets p.found on a scan
        log.append({'step': step, **({'loss': round(loss.item(), 4)} if loss is not None else {}),
                    **({'align_loss': round(p.aligned.item(), 4)} if a.align and loss is not None else {}),
                    **({'title_nll': p.named(test)} if a.every_token and a.task == 'title' else {}),
                    'score': score, **({'found': round(100 * p.found / len(test), 1)} if a.task == 'scan' else {}), 'wall_s': round(time.time() - t0)})
        print(a.name, log[-1], flush=True)
        (out / f'{a.name}.json').write_text(json.dumps({'args': vars(a), 'test': len(test), 'log': log}, indent=1))
    if a.steps == 0: report(0)                                      # --from-model M --steps 0: score a saved model
    for step in range(1, a.steps + 1):
        shots = rng.sample(train, a.bs)                              # distinct screens per batch
        loss = p.loss([p.item(img, rows, rng) for img, rows in shots], [rows for _, rows in shots])
        loss.backward(); torch.nn.utils.clip_grad_norm_(p.model.parameters(), 1.0); opt.step(); warm.step(); opt.zero_grad()
        if step % a.eval_every == 0 or step == a.steps: report(step, loss)
    if a.save: p.model.save_pretrained(out / f'{a.name}.model'); p.proc.save_pretrained(out / f'{a.name}.model')


if __name__ == '__main__':
    main()
