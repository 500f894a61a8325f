"""The policy (build, save, load, errors) and a short stage-1 run on CPU."""
import json, os, subprocess, sys
import pytest
import torch
from mobile_r1.data import read_dataset, step_sample, system_prompt
from mobile_r1.policy import Policy, PolicyConfig, load_policy, trainable_summary
from mobile_r1.stage1 import Stage1Config, sft_dataset, train_stage1
from mobile_r1.metrics import MetricsLog, read_metrics


def test_build_save_load(tiny_model):
    model, proc = load_policy(str(tiny_model))
    assert model.config.model_type == 'qwen2_5_vl'
    assert proc.tokenizer.convert_tokens_to_ids('<|image_pad|>') == model.config.image_token_id
    s = trainable_summary(model)
    assert s['trainable_vision'] == 0 and s['trainable'] > 0          # vision frozen by default


def test_act_maps_to_device_pixels(tiny_model, sim_data):
    from mobile_r1.sim.phone import SimPhone
    pol = Policy.load(str(tiny_model))
    phone = SimPhone()
    obs, _ = phone.reset(seed=0)
    out = pol.act([('Open Shop', [], obs['screenshot'])] * 3, max_new_tokens=8)
    assert len(out) == 3
    fr = pol.model_frame(*obs['screen_size'])
    assert fr.size == (224, 392) and obs['screen_size'] == (360, 640)


def test_errors_are_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match='tiny_qwen_vl'): load_policy(str(tmp_path / 'nope'))
    (tmp_path / 'empty').mkdir()
    with pytest.raises(FileNotFoundError, match='config.json'): load_policy(str(tmp_path / 'empty'))


def test_hub_id_without_network_is_one_clear_error(tmp_path):
    code = ("from mobile_r1.policy import load_policy\n"
            "try: load_policy('Qwen/Qwen2.5-VL-3B-Instruct')\n"
            "except OSError as e: print('ERR', e)\n")
    env = {**os.environ, 'HF_HUB_OFFLINE': '1', 'HF_HOME': str(tmp_path)}
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=120).stdout
    assert out.startswith('ERR') and 'Qwen/Qwen2.5-VL-3B-Instruct' in out and 'local folder' in out, out


def test_stage1_samples_carry_the_papers_system_prompt(sim_data):
    eps = read_dataset(sim_data['train'])
    ds = sft_dataset(eps[:2])
    sys_text = ds[0]['prompt'][0]['content'][0]['text']
    assert sys_text == system_prompt(eps[0].instruction)
    assert sys_text.startswith('You are a mobile GUI agent.') and '在标签<think> </think>内输出思考过程。' in sys_text


def test_two_step_sft_moves_loss_and_checkpoint_loads(tiny_model, sim_data, tmp_path):
    before = {n: p.detach().clone() for n, p in load_policy(str(tiny_model))[0].named_parameters()}
    cfg = Stage1Config(base=str(tiny_model), data=str(sim_data['train']), out_dir=str(tmp_path / 's1'),
                       max_steps=2, batch_size=4, logging_steps=1, lr=1e-3)
    ck = train_stage1(cfg, MetricsLog(tmp_path / 'm.jsonl', stage=1))
    rows = read_metrics(tmp_path / 'm.jsonl')
    assert [r['step'] for r in rows] == [1, 2] and all(r['stage'] == 1 for r in rows)
    assert rows[0]['loss'] != rows[1]['loss']
    model, proc = load_policy(str(ck))
    after = dict(model.named_parameters())
    assert any(not torch.equal(before[n], after[n]) for n in before if 'visual' not in n)
    assert json.loads((ck / 'mobile_r1.json').read_text())['stage'] == 1
    assert not (tmp_path / 's1.tmp').exists()
