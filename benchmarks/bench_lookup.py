"""Looking a named title up, in words alone: the language model's half of "tap the title the instruction names", with
no screen and no image, so that a step costs what a text model's does. Seven titles of the Video feed are written out
with their places, and the question names one of them:

    Tap "Brave Puppies". The screen shows: "Lucky Puppies" at [112, 68]; … "Brave Puppies" at [112, 220]; …  →  [112, 220]

Where the question stands decides which circuit can answer it, in a model that only looks back:
- `--order question-first` (the phone's order: the instruction comes before the screenshot in both prompt styles):
  each listed title can look back at the question and mark itself as the one named; the answer then copies the
  marked place. Two lookups, one after the other.
- `--order listing-first` (the order of `bench_reading_probe`'s text controls): the listing cannot see the question,
  so the answer must find the named title among seven by matching, then move on to its place: an induction head,
  which needs a previous-token step first.

`--place before` writes each place before its title ('[112, 220] "Brave Puppies";'), so that a title's last word can
gather its own place as it looks back, and the answer can copy the place from the one token that is also the match.
A screen's tokens hold their title and their place in one token in the same way. `--words 1` names each title by
its first word alone (one token, 12 of them): matching one token to one token, with no second word to check.
`--every-token` puts the loss on every token, as a language model is pretrained, and not on the answer alone: the
listing then has something to predict: in the phone's order, one of its titles is the one the question named.

The model is the tiny Qwen2.5-VL of the reading probes (`--spec`, from random weights), called on text alone. The
places are those of a feed in the model's 224 × 392 frame: x = 112, seven distinct rows' y from 60 to 372. Scored on
256 fresh questions by exact answers (every answer token the greedy one: teacher-forced, which equals greedy decoding);
a random row of seven scores 14.3%.

    python benchmarks/bench_lookup.py [--order question-first] [--place after] [--keys 7] [--words 2] [--every-token] [--spec 128,2,4,2,64,2]
        [--steps 4000] [--bs 32] [--lr 1e-3] [--name NAME] [--out runs/lookup]

Writes OUT/NAME.json (the arguments and, every `--eval-every` steps, the training loss and the score). On 2 CPU cores
a step of 32 takes about a quarter of a second with a second run beside it (the head runs on the answer alone)."""
import argparse, json, random, time
from pathlib import Path
import torch
from transformers import AutoModelForImageTextToText
from mobile_r1.data import atomic_write
from mobile_r1.policy import load_processor
from mobile_r1.sim.apps import vocabulary
from bench_reading_probe import ADJ, shows, tiny_model

TITLES, YS = vocabulary('videos'), range(60, 380, 8)


def args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--order', choices=('question-first', 'listing-first'), default='question-first')
    ap.add_argument('--place', choices=('after', 'before'), default='after', help="a place after its title ('\"X\" at [112, 68];') or before it ('[112, 68] \"X\";')")
    ap.add_argument('--keys', default='7', help='titles listed per question, N or a range A-B drawn per question (2-7: the easy lookups '
                    'among the hard ones); 1 is the control: nothing to choose, only a place to copy. Scored on the largest')
    ap.add_argument('--words', type=int, choices=(1, 2), default=2, help="a title's words: 2 as the feed writes them ('Brave Puppies'), or 1 (the adjective alone, one token: 'Brave')")
    ap.add_argument('--spec', default='128,2,4,2,64,2', help='text hidden, text layers, heads, kv heads, vision hidden, vision depth')
    ap.add_argument('--steps', type=int, default=4000); ap.add_argument('--bs', type=int, default=32)
    ap.add_argument('--lr', type=float, default=1e-3); ap.add_argument('--eval-every', type=int, default=250)
    ap.add_argument('--every-token', action='store_true', help='the loss on every token, as a language model is pretrained, not on the answer alone (the score is still the answer\'s)')
    ap.add_argument('--test', type=int, default=256); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--name', default=None); ap.add_argument('--out', default='runs/lookup')
    a = ap.parse_args(argv)
    most = min(len(ADJ) if a.words == 1 else len(TITLES), len(YS))
    lo, _, hi = a.keys.partition('-')
    try: a.keys_range = (int(lo), int(hi or lo))
    except ValueError: ap.error(f'--keys takes N or A-B, got {a.keys!r}')
    if not 1 <= a.keys_range[0] <= a.keys_range[1] <= most: ap.error(f'--keys must lie in 1..{most} (distinct titles at distinct rows)')
    a.name = a.name or f'{a.order}_{a.place}_k{a.keys}' + ('_1word' if a.words == 1 else '') + ('_every' if a.every_token else '')
    return a


def question(r: random.Random, a, keys: int | None = None) -> tuple[str, str]:
    "One question and its answer: `keys` (or a number drawn from `a.keys_range`) distinct titles at distinct rows, top to bottom, one of them named."
    lo, hi = a.keys_range
    keys = keys or (r.randint(lo, hi) if lo < hi else lo)             # a fixed count draws nothing: the stream stays as it was
    titles, ys = r.sample(TITLES if a.words == 2 else ADJ, keys), sorted(r.sample(YS, keys))
    place = {t: f'[112, {y}]' for t, y in zip(titles, ys)}
    listed = (shows([(t, place[t]) for t in titles], str) if a.place == 'after'     # as bench_reading_probe's titletext writes it
              else 'The screen shows: ' + ' '.join(f'{place[t]} "{t}";' for t in titles))
    t = r.choice(titles)
    return (f'Tap "{t}". {listed}' if a.order == 'question-first' else f'{listed} Tap "{t}".'), place[t]


class Lookup:
    def __init__(self, a):
        torch.manual_seed(0)
        folder = tiny_model(a.spec, Path(a.out) / f'init_{a.name}', 114 * 28 * 28)
        self.proc = load_processor(str(folder)); self.tok = self.proc.tokenizer
        self.model = AutoModelForImageTextToText.from_pretrained(str(folder))
        self.every = a.every_token

    def batch(self, items):
        "Token ids, labels (the answer and its end token only) and the attention mask of a right-padded batch."
        seqs, labs = [], []
        for q, ans in items:
            p = self.tok(self.proc.apply_chat_template([{'role': 'user', 'content': [{'type': 'text', 'text': q}]}],
                                                       add_generation_prompt=True, tokenize=False))['input_ids']
            c = self.tok(ans + '<|im_end|>')['input_ids']
            seqs.append(p + c); labs.append([-100] * len(p) + c)
        L = max(map(len, seqs))
        ids = torch.tensor([s + [self.tok.pad_token_id] * (L - len(s)) for s in seqs])
        mask = torch.arange(L)[None] < torch.tensor([len(s) for s in seqs])[:, None]
        return ids, torch.tensor([s + [-100] * (L - len(s)) for s in labs]), mask.long()

    def logits(self, items, every: bool = False):
        """The answer's logits and the tokens they should give, or with `every` those of every token of the batch; the
        head runs on those positions alone (the answer's are a fraction of the cost)."""
        ids, labels, mask = self.batch(items)
        h = self.model.model(input_ids=ids, attention_mask=mask).last_hidden_state[:, :-1]
        keep = mask[:, 1:].bool() if every else labels[:, 1:] != -100    # position t predicts token t + 1
        return self.model.lm_head(h[keep]), ids[:, 1:][keep], keep.sum(1)

    def loss(self, items):
        logits, want, _ = self.logits(items, self.every)
        return torch.nn.functional.cross_entropy(logits, want)

    @torch.no_grad()
    def score(self, items) -> float:
        "% of answers whose every token is the greedy one, given the answer so far (so greedy decoding writes it exactly)."
        self.model.eval(); hit = 0
        for i in range(0, len(items), 64):
            logits, want, n = self.logits(items[i:i + 64])
            hit += sum(bool(r.all()) for r in (logits.argmax(-1) == want).split(n.tolist()))
        self.model.train()
        return round(100 * hit / len(items), 1)


def main(argv=None):
    a = args(argv)
    torch.set_num_threads(a.threads)
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    t0, m = time.time(), Lookup(a)
    test = [question(random.Random(10 ** 6 + i), a, a.keys_range[1]) for i in range(a.test)]     # their own seeds, apart from training; the most titles
    print(f'{a.name}: {test[0][0]} -> {test[0][1]}', flush=True)
    opt = torch.optim.AdamW(m.model.parameters(), lr=a.lr, weight_decay=0.0)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1, (s + 1) / 50))
    rng, log = random.Random(1), []
    for step in range(1, a.steps + 1):
        loss = m.loss([question(rng, a) for _ in range(a.bs)])
        loss.backward(); torch.nn.utils.clip_grad_norm_(m.model.parameters(), 1.0); opt.step(); warm.step(); opt.zero_grad()
        if step % a.eval_every == 0 or step == a.steps:
            log.append({'step': step, 'loss': round(loss.item(), 4), 'score': m.score(test), 'wall_s': round(time.time() - t0)})
            print(a.name, log[-1], flush=True)
            atomic_write(out / f'{a.name}.json', json.dumps({'args': vars(a), 'test': len(test), 'log': log}, indent=1))


if __name__ == '__main__':
    main()
