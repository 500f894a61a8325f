"""The rollout decode loop against `transformers`' generate: rows that end early leave the batch without changing
the others, LoRA-wrapped models decode the same way, and shared screens are encoded once."""
import torch
from mobile_r1.data import format_history, prompt_messages
from mobile_r1.decode import encode, sample
from mobile_r1.policy import Policy, PolicyConfig, add_lora, load_policy
from mobile_r1.sim.expert import expert_action
from mobile_r1.sim.phone import SimPhone
from mobile_r1.sim.tasks import task_list


def _batch(proc):
    "Five prompts of different lengths over three screens (three prompts share the first screen)."
    phone, task = SimPhone(), task_list('train')[0]
    shots = [phone.reset(task, seed=0)[0]['screenshot']]
    for _ in range(2): shots.append(phone.step(expert_action(phone, task).action)[0]['screenshot'])
    shots = [s.convert('RGB').resize((224, 392)) for s in shots]
    hist = [[], ['Open Shop.'], ['Open Shop.', 'Tap the search box.'], [], ['Open Shop.'] * 4]
    texts = [proc.apply_chat_template(prompt_messages(task.instruction, format_history(h)), add_generation_prompt=True,
                                      tokenize=False) for h in hist]
    return texts, [shots[0], shots[1], shots[0], shots[2], shots[0]]


def _hf_greedy(model, proc, texts, images, eos, n):
    ref = proc(text=texts, images=images, return_tensors='pt', padding=True, padding_side='left')
    out = model.generate(**ref, max_new_tokens=n, do_sample=False, eos_token_id=eos, temperature=None, top_p=None,
                         top_k=None, pad_token_id=proc.tokenizer.pad_token_id)[:, ref['input_ids'].shape[1]:].tolist()
    return [r[:r.index(eos) + 1] if eos in r else r for r in out]


def _eos_that_ends_rows_apart(answers):
    "A token that the greedy answers reach at different steps (and not at all in some), to stand in for <|im_end|>."
    firsts = lambda t: [a.index(t) if t in a else None for a in answers]
    for t in {t for a in answers for t in a}:
        f = firsts(t)
        if None in f and len({x for x in f if x is not None}) >= 2: return t
    for t in {t for a in answers for t in a}:
        if len(set(firsts(t))) >= 2: return t
    raise AssertionError('no token ends the rows at different steps')


def _check_against_generate(model, proc):
    model.eval()
    texts, images = _batch(proc)
    enc = encode(proc, texts, images)
    free = _hf_greedy(model, proc, texts, images, eos=-1, n=24)
    eos = _eos_that_ends_rows_apart(free)
    ref = _hf_greedy(model, proc, texts, images, eos=eos, n=24)
    assert len({len(r) for r in ref}) >= 2                       # rows do end at different steps
    assert sample(model, enc, eos, max_new_tokens=24) == ref
    assert sample(model, enc, -1, max_new_tokens=24) == free


def test_rows_leaving_the_batch_do_not_change_the_others(tiny_model):
    model, proc = load_policy(str(tiny_model))
    _check_against_generate(model, proc)


def test_lora_model_decodes_like_generate(tiny_model):
    model, proc = load_policy(PolicyConfig(model=str(tiny_model), lora=True))
    with torch.no_grad():                                        # make the adapters matter (LoRA's B starts at zero)
        g = torch.Generator().manual_seed(0)
        for n, p in model.named_parameters():
            if 'lora_B' in n: p.add_(torch.randn(p.shape, generator=g) * 0.5)
    _check_against_generate(model, proc)


def test_shared_screens_are_encoded_once(tiny_model):
    model, proc = load_policy(str(tiny_model))
    texts, images = _batch(proc)
    enc = encode(proc, texts, images)
    assert enc['image_index'].tolist() == [0, 1, 0, 2, 0]
    assert enc['image_grid_thw'].shape[0] == 3
    calls = []
    vis = model.model.visual
    hook = vis.register_forward_hook(lambda m, i, o: calls.append(i[0].shape[0]))
    try: Policy(model, proc).generate([prompt_messages('x', format_history([]))] * 4, [images[0]] * 4, max_new_tokens=2)
    finally: hook.remove()
    assert calls == [enc['pixel_values'].shape[0] // 3]         # one image's patches through the vision tower


def test_sampled_answers_never_hold_a_vision_placeholder(tiny_model):
    "A young policy at T=1 must not write <|image_pad|> (the loss pass would count an image that is not there)."
    model, proc = load_policy(PolicyConfig(model=str(tiny_model)))
    vision = set(proc.tokenizer.convert_tokens_to_ids(['<|vision_start|>', '<|vision_end|>', '<|image_pad|>', '<|video_pad|>']))
    lm = model.get_output_embeddings()
    with torch.no_grad(): lm.weight[sorted(vision)] = lm.weight.abs().max() * 50    # make them the likeliest tokens
    texts, images = _batch(proc)
    msgs = [[{'role': 'user', 'content': [{'type': 'image'}, {'type': 'text', 'text': 'go'}]}]] * len(images)
    torch.manual_seed(0)
    gen = Policy(model, proc).generate(msgs, images, max_new_tokens=6, temperature=1.0)
    assert gen.completion_ids and not vision & {t for row in gen.completion_ids for t in row}
    greedy = Policy(model, proc).generate(msgs, images, max_new_tokens=2)    # greedy is left as generate's
    assert vision & {t for row in greedy.completion_ids for t in row}
