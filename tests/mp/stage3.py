"""Stage 3 end to end on however many processes it is launched: a few tiny iterations, metrics and model in OUT.

    torchrun --standalone --nproc_per_node 2 tests/mp/stage3.py MODEL OUT [crash | vllm URL IMAGE_TOKEN_ID]

`crash`: every process's judge fails in iteration 2, after iteration 1's checkpoint (a killed run); running again
without it resumes. `vllm URL`: the rollouts come from the vLLM stand-in at URL (`mobile_r1.vllm_standin`), process 0
pushing the weights."""
import sys
from pathlib import Path
from mobile_r1.judge import RuleJudge
from mobile_r1.metrics import MetricsLog
from mobile_r1.stage3 import Stage3Config, train_stage3
from mobile_r1.threads import end_process_group


class DyingJudge(RuleJudge):
    "SimPhone's checker, failing on its second call."
    calls = 0
    def score_many(self, pairs, max_workers=4):
        DyingJudge.calls += 1
        if DyingJudge.calls == 2: raise RuntimeError('simulated crash')
        return super().score_many(pairs, max_workers)


model_dir, out, mode = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None
cfg = Stage3Config(base=model_dir, out_dir=str(Path(out) / 'stage3'), tasks_per_iter=3, G=2, iterations=2, max_turns=2,
                   max_new_tokens=16, checkpoint_every=1, beta=0.0, lr=1e-3)
engine = None
if mode == 'vllm':
    import os
    from mobile_r1.generation import ServerEngine
    from mobile_r1.vllm_standin import LoopbackClient
    client, main = LoopbackClient(sys.argv[4]), os.environ.get('RANK', '0') == '0'
    if main: client.init_communicator()                    # process 0 opens the weight transfer, as TRL does
    engine = ServerEngine(client, image_token_id=int(sys.argv[5]), main=main)
try: train_stage3(cfg, MetricsLog(Path(out) / 'metrics.jsonl', stage=3), judge=DyingJudge() if mode == 'crash' else None, engine=engine)
finally: end_process_group()                     # gloo's threads end before exit, not in the interpreter's teardown
