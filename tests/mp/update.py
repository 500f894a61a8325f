"""One stage-3 update on saved rollouts, on however many processes it is launched (python, or accelerate launch).

    python tests/mp/update.py MODEL ROLLOUTS OUT.pt        # or: torchrun --standalone --nproc_per_node 2 tests/mp/update.py ...

Process `rank` takes the groups `split_groups` deals it; the loss divides by the turns of all processes; process 0
saves the trainable parameters after one SGD step (SGD: the step is linear in the gradient, so 1 and N processes
can be compared to float precision)."""
import json, sys
from pathlib import Path
import torch
from accelerate import Accelerator
from mobile_r1.policy import Policy, PolicyConfig, load_policy
from mobile_r1.rewards import group_advantages
from mobile_r1.rollout import load_trajectories
from mobile_r1.grpo import trajectory_turn_advantages
from mobile_r1.stage3 import Stage3Config, _total, _update, split_groups
from mobile_r1.threads import end_process_group

model_dir, rollouts, out = sys.argv[1:4]
G = 2
acc = Accelerator(cpu=True)
model, proc = load_policy(PolicyConfig(model=model_dir, freeze_vision=True))
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1.0)
if acc.num_processes == 1: model, opt = acc.prepare(model, opt)
else: model, opt = model.to(acc.device), acc.prepare_optimizer(opt)
trajs = load_trajectories(rollouts)
rewards = json.loads((Path(rollouts) / 'rewards.json').read_text())
mine = split_groups(len(trajs) // G, acc.num_processes, acc.process_index)
items = []
for g in mine:
    group = trajs[g * G:(g + 1) * G]
    adv = trajectory_turn_advantages(group_advantages(rewards[g * G:(g + 1) * G], G), [len(t.turns) for t in group])
    turns = [(t.instruction, turn) for t in group for turn in t.turns]
    items += [(q, turn, a) for (q, turn), a in zip(turns, adv) if turn.completion_ids]
n_turns = _total(acc, len(items))
before = {n: p.detach().clone() for n, p in acc.unwrap_model(model).named_parameters() if p.requires_grad}
_update(model, None, Policy(model, proc), opt, acc, items, Stage3Config(beta=0.0, micro_batch=2), n_turns)
if acc.is_main_process:
    torch.save({n: (p.detach() - before[n]).cpu() for n, p in acc.unwrap_model(model).named_parameters() if p.requires_grad}, out)
    print(f'{acc.num_processes} process(es): groups of process 0 {mine}, {n_turns} turns in all', flush=True)
acc.wait_for_everyone()
end_process_group()                               # gloo's threads end before exit, not in the interpreter's teardown
