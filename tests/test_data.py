"The Mobile-R1 data format: SimPhone export → load round trip, quirks, errors naming file and line, chat samples."
import json
import pytest
from mobile_r1.actions import Click, Frame, parse_response, to_frame
from mobile_r1.data import (read_dataset, load_hf_dataset, write_dataset, DataFormatError, step_sample, sft_sample,
                            model_frame, PromptConfig, system_prompt)
from mobile_r1.sim.generate import generate_dataset, GenConfig


@pytest.fixture(scope='module')
def sim_dir(tmp_path_factory):
    return generate_dataset(tmp_path_factory.mktemp('d') / 'train', 'train', n=30, level=1, seed=3,
                            cfg=GenConfig(popup_prob=0.3, detour_prob=0.15))


def test_export_load_same_steps(sim_dir, tmp_path):
    eps = read_dataset(sim_dir)
    assert len(eps) == 30 and all(e.extra['success'] for e in eps)
    assert any(s.extra.get('detour') for e in eps for s in e.steps)
    write_dataset(eps, tmp_path)
    back = read_dataset(tmp_path / 'data.jsonl')
    for a, b in zip(eps, back):
        assert [(s.image, s.action, s.thought, s.action_text, s.subtask, s.response, s.bbox, s.extra) for s in a.steps] == \
               [(s.image, s.action, s.thought, s.action_text, s.subtask, s.response, s.bbox, s.extra) for s in b.steps]
        assert (a.instruction, a.extra, a.image_width) == (b.instruction, b.extra, b.image_width)
    assert (tmp_path / 'data.jsonl').read_bytes() == (sim_dir / 'data.jsonl').read_bytes()


def test_record_fields(sim_dir):
    rec = json.loads((sim_dir / 'data.jsonl').read_text().splitlines()[0])
    for k in ('app_name', 'trajectory_length', 'instruction', 'system', 'image_width', 'image_height', 'trajectory',
              'task_id', 'split', 'level', 'seed'):
        assert k in rec
    step = rec['trajectory'][0]
    assert isinstance(step['action'], str) and json.loads(step['action'])['name'] == 'mobile_use'
    assert rec['system'].endswith('用户任务: ' + rec['instruction']) and rec['trajectory_length'] == len(rec['trajectory'])
    assert (sim_dir / step['image']).exists()


def test_hf_datasets_loader(sim_dir):
    a, b = read_dataset(sim_dir), load_hf_dataset(sim_dir)
    assert [s.action for e in a for s in e.steps] == [s.action for e in b for s in e.steps]


def test_malformed_line_names_file_and_line(sim_dir, tmp_path):
    lines = (sim_dir / 'data.jsonl').read_text().splitlines()
    (tmp_path / 'data.jsonl').write_text('\n'.join(lines[:4] + ['{"instruction": "x", "trajectory": ['] + lines[4:]) + '\n')
    with pytest.raises(DataFormatError, match=r'data\.jsonl:5: not valid JSON'): read_dataset(tmp_path)
    with pytest.raises(DataFormatError, match=r'data\.jsonl:5: not valid JSON'): load_hf_dataset(tmp_path)   # not the library's own error
    bad = json.loads(lines[0]); bad['trajectory'][1]['action'] = '{"action": "click"}'
    (tmp_path / 'data.jsonl').write_text(lines[0] + '\n' + json.dumps(bad) + '\n')
    with pytest.raises(DataFormatError, match=r'data\.jsonl:2: step 1: a tap with no coordinate'): read_dataset(tmp_path)


def test_quirks_double_encoded_and_tap(tmp_path):
    call = {'name': 'mobile_use', 'arguments': {'action': 'system_button', 'button': 'Tap', 'coordinate': [548, 1064]}}
    rec = {'app_name': 'a', 'trajectory_length': 1, 'instruction': 'i', 'system': '', 'image_width': 1080, 'image_height': 2400,
           'trajectory': [{'image': 'x.png', 'thought': 't', 'subtask': '', 'action': json.dumps(json.dumps(call)), 'response': ''}]}
    (tmp_path / 'data.jsonl').write_text(json.dumps(rec) + '\n')
    s = read_dataset(tmp_path)[0].steps[0]
    assert s.action == Click((548, 1064)) and 'Tap' in s.notes[0]


def test_chat_samples_map_golden_into_model_frame(sim_dir):
    ep = read_dataset(sim_dir)[0]
    i = next(k for k, s in enumerate(ep.steps) if isinstance(s.action, Click))
    smp = step_sample(ep, i)
    fr = model_frame(ep.image_width, ep.image_height)
    assert smp['frame'] == fr.size == (224, 392) and smp['images'][0].size == fr.size
    assert smp['messages'][0]['content'][0]['text'] == system_prompt(ep.instruction)
    assert smp['messages'][1]['content'][0] == {'type': 'image'}
    assert smp['messages'][1]['content'][1]['text'].count('\n') == max(i, 1)
    p = parse_response(smp['answer'])
    assert p.format_ok and p.action == Click(to_frame(ep.steps[i].action.coordinate, ep.frame, fr))
    x1, y1, x2, y2 = smp['bbox']
    assert x1 <= p.action.coordinate[0] < x2 and y1 <= p.action.coordinate[1] < y2
    sft = sft_sample(ep, i, PromptConfig(history=2))
    assert sft['completion'][0]['content'][0]['text'] == smp['answer'] and len(sft['images']) == 1


def test_qwen_prompt_lists_the_whole_schema_and_the_resolution():
    "Every action, every argument of every action, every enum, and the resized frame's resolution."
    import dataclasses, re
    from mobile_r1.actions import Action, ACTION_TYPES, BUTTONS, STATUSES
    from mobile_r1.prompts import qwen_system_prompt
    sp = qwen_system_prompt(672, 1484)
    tool = json.loads(re.search(r'<tools>\n(.*)\n</tools>', sp, re.S).group(1))['function']
    props = tool['parameters']['properties']
    assert props['action']['enum'] == list(ACTION_TYPES) and all(f'`{a}`' in props['action']['description'] for a in ACTION_TYPES)
    assert {f.name for cls in Action.registry.values() for f in dataclasses.fields(cls)} | {'action'} == set(props)
    assert props['button']['enum'] == list(BUTTONS) and props['status']['enum'] == list(STATUSES)
    assert "The screen's resolution is 672x1484." in tool['description']


def test_a_policy_answers_in_the_qwen_style(tiny_model, sim_dir):
    "The qwen layout goes through the chat template and the processor; frames come from the policy's own budget."
    from mobile_r1.policy import Policy
    pol = Policy.load(str(tiny_model))
    ep = read_dataset(sim_dir)[0]
    msgs, imgs, frames = pol.prepare([(ep.instruction, ['open "Video"'], ep.image(1))], PromptConfig(style='qwen'))
    fr = frames[0][0]
    assert f'resolution is {fr.width}x{fr.height}' in msgs[0][0]['content'][0]['text'] and imgs[0].size == fr.size
    assert 'Step 1: open "Video";' in msgs[0][1]['content'][0]['text']
    assert len(pol.act([(ep.instruction, [], ep.image(0))], PromptConfig(style='qwen'), max_new_tokens=4)) == 1
