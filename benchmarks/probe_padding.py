"""How far TRL's scoring was off with a right-padding processor (the stage-2 bug `09b_shared_prompt` describes), on a
trained model: one stage-2 step of `--prompts` recorded steps × G = 8 answers, then that step's batch scored by TRL's
path with the image tokens' types laid out as the right-padding processor gave them, and by the shared forward.

    python benchmarks/probe_padding.py RUN    # RUN: a quickstart folder (its models/stage1 and data/train)"""
import argparse, tempfile
from pathlib import Path
import torch
from trl import GRPOTrainer
from mobile_r1.shared_prompt import loss_scoring_call, right_padded_types, shared_prompt_logps
from mobile_r1.stage2 import Stage2Config, make_stage2_trainer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('run', type=Path)
    ap.add_argument('--prompts', type=int, default=4)
    a = ap.parse_args()
    tr = make_stage2_trainer(Stage2Config(base=str(a.run / 'models' / 'stage1'), data=str(a.run / 'data' / 'train'),
                                          out_dir=tempfile.mkdtemp(), prompts_per_step=a.prompts, max_steps=1))
    (model, ids, mask, keep), kw = loss_scoring_call(tr)
    P = ids.shape[1] - keep
    with torch.no_grad():
        right = shared_prompt_logps(model, ids, mask, keep, kw['pixel_values'], kw['image_grid_thw'], kw['num_images'])[0]
        wrong = GRPOTrainer._get_per_token_logps_and_entropies(
            tr, model, ids, mask, keep, **{**kw, 'mm_token_type_ids': right_padded_types(kw['mm_token_type_ids'], mask, P)})[0]
    m, padded = mask[:, -keep:].float(), (mask[:, :P] == 0).any(1)
    d = (right - wrong).abs() * m
    print(f'{int(padded.sum())} of {len(ids)} rows have a padded prompt')
    for name, sel in (('padded', padded), ('not padded', ~padded)):
        if sel.any():
            print(f'{name}: |Δ log-prob| {d[sel].sum().item() / m[sel].sum().item():.3f} per answer token (at most {d[sel].max().item():.2f}), '
                  f'{d[sel].sum(1).mean().item():.2f} per answer; answer log-prob {(right * m)[sel].sum(1).mean().item():.2f} '
                  f'with the right positions, {(wrong * m)[sel].sum(1).mean().item():.2f} with the bug')


if __name__ == '__main__':
    main()
