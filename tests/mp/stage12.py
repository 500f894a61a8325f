"""Stages 1 and 2 on however many processes they are launched: two steps each from MODEL on DATA, into OUT.

    torchrun --standalone --nproc_per_node 2 tests/mp/stage12.py MODEL DATA OUT BATCH"""
import sys
from pathlib import Path
from mobile_r1.metrics import MetricsLog
from mobile_r1.stage1 import Stage1Config, train_stage1
from mobile_r1.stage2 import Stage2Config, train_stage2
from mobile_r1.threads import end_process_group

model_dir, data, out, batch = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
s1 = train_stage1(Stage1Config(base=model_dir, data=data, out_dir=str(out / 'stage1'), max_steps=2, batch_size=batch, lr=1e-3,
                               warmup_ratio=0.0, logging_steps=1), MetricsLog(out / 'metrics.jsonl', stage=1))
train_stage2(Stage2Config(base=str(s1), data=data, out_dir=str(out / 'stage2'), max_steps=2, G=2, prompts_per_step=batch // 2,
                          max_completion_length=16, logging_steps=1), MetricsLog(out / 'metrics.jsonl', stage=2))
end_process_group()                               # gloo's threads end before exit, not in the interpreter's teardown
