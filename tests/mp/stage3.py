"""Stage 3 end to end on however many processes it is launched: a few tiny iterations, metrics and model in OUT.

    torchrun --standalone --nproc_per_node 2 tests/mp/stage3.py MODEL OUT"""
import sys
from pathlib import Path
from mobile_r1.metrics import MetricsLog
from mobile_r1.stage3 import Stage3Config, train_stage3

model_dir, out = sys.argv[1:3]
cfg = Stage3Config(base=model_dir, out_dir=str(Path(out) / 'stage3'), tasks_per_iter=3, G=2, iterations=2, max_turns=2,
                   max_new_tokens=16, checkpoint_every=1, beta=0.0, lr=1e-3)
train_stage3(cfg, MetricsLog(Path(out) / 'metrics.jsonl', stage=3))
