"SimPhone: every task solvable by its expert (fresh and after detours), determinism, no-op clicks, strict checker."
import random
import pytest
from mobile_r1.actions import Click, Open, Terminate, SystemButton
from mobile_r1.sim.core import SimConfig, scale_box, inside
from mobile_r1.sim.phone import SimPhone, random_action, scene, tap
from mobile_r1.sim.tasks import task_list, get_task, SPLITS
from mobile_r1.sim.expert import expert_action, solve
from mobile_r1.actions import parse_response


def _solve_all(level, split, detour_steps, popup_prob=0.3):
    ph, failed = SimPhone(SimConfig(level=level, popup_prob=popup_prob, max_steps=200)), []
    for i, t in enumerate(task_list(split, level)):
        ph.reset(t, seed=1000 * level + i)
        rng = random.Random(i)
        for _ in range(detour_steps):
            *_, term, _, _ = ph.step(random_action(ph, rng))
        steps = solve(ph, t, max_steps=40)
        if not t.is_successful(ph.state): failed.append((t.id, [g.action_text for g in steps][-5:]))
    return failed


@pytest.mark.parametrize('split', SPLITS)
def test_expert_solves_every_task_level0(split):
    assert _solve_all(0, split, 0) == []
    assert _solve_all(0, split, 4) == []


@pytest.mark.parametrize('split', SPLITS)
def test_expert_solves_every_task_level3_after_detour(split):
    assert len(task_list(split, 3)) > len(task_list(split, 0))          # two-goal tasks are added
    assert _solve_all(3, split, 5, popup_prob=0.4) == []


def test_split_sizes_and_disjoint_apps():
    n = {s: len(task_list(s)) for s in SPLITS}
    assert 100 <= n['train'] <= 160 and n['held_out'] >= 25 and n['unseen_apps'] >= 15
    train_apps = {t.app for t in task_list('train', 3)}
    assert not train_apps & {t.app for t in task_list('unseen_apps', 3)}
    assert not {t.id for t in task_list('train', 3)} & {t.id for t in task_list('held_out', 3)}


def _screens(seed, level):
    ph, rng = SimPhone(SimConfig(level=level, popup_prob=0.3)), random.Random(seed)
    obs, _ = ph.reset(seed=seed); out = [obs['screenshot'].tobytes()]
    for _ in range(25):
        obs, *_ = ph.step(random_action(ph, rng)); out.append(obs['screenshot'].tobytes())
    return out


@pytest.mark.parametrize('level', [0, 2, 3])
def test_same_seed_same_bytes(level):
    assert _screens(7, level) == _screens(7, level)
    assert _screens(7, level) != _screens(8, level)


def test_level0_layout_fixed_per_screen():
    "At level 0 an element's box depends only on the screen: two different episodes agree."
    boxes = []
    for seed in (1, 2):
        ph = SimPhone(SimConfig(level=0, popup_prob=0)); ph.reset(seed=seed); ph.step(Open('TravelPig'))
        boxes.append({t.id: t.box for t in scene(ph)[1]})
    assert boxes[0] == boxes[1]
    ph = SimPhone(SimConfig(level=1, popup_prob=0))
    jit = set()
    for seed in range(5):
        ph.reset(seed=seed); ph.step(Open('TravelPig')); jit.add(tuple(sorted((t.id, t.box) for t in scene(ph)[1])))
    assert len(jit) > 1


def test_click_outside_every_element_changes_nothing():
    ph, rng, checked = SimPhone(SimConfig(level=2, popup_prob=0.3)), random.Random(0), 0
    ph.reset(seed=0)
    w, h = ph.screen_size
    for _ in range(60):
        _, targets = scene(ph)
        free = [(x, y) for x in range(5, w, 37) for y in range(30, h, 41)
                if not any(inside((x, y), scale_box(t.box, ph.cfg.scale)) for t in targets)]
        if free:
            before = ph.state.key()
            *_, info = ph.step(Click(rng.choice(free)))
            assert ph.state.key() == before and info['error'] == 'no element at this point'
            checked += 1
        ph.step(random_action(ph, rng))
        if ph.state.status is not None: ph.reset()
    assert checked > 20


def test_strict_checker_and_reward():
    t = get_task('TravelPig/follow/Super VIP')
    ph = SimPhone(SimConfig(popup_prob=0)); ph.reset(t, seed=0)
    *_, r, term, _, _ = ph.step(Terminate('success'))                 # nothing done yet
    assert term and r == 0.0
    ph.reset(t, seed=0)
    rewards = []
    for _ in range(20):
        g = expert_action(ph, t)
        assert parse_response(g.response).action == g.action
        _, r, term, _, _ = ph.step(g.action); rewards.append(r)
        if term: break
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    ph = SimPhone(SimConfig(popup_prob=1.0)); ph.reset(t, seed=0)   # a pop-up open at terminate: failure
    for _ in range(20):
        g = expert_action(ph, t)
        if g.action == Terminate('success'): break
        ph.step(g.action)
    ph.state.popup = ph.state.popup or __import__('mobile_r1.sim.core', fromlist=['x']).make_popup('ad', 'x', '', random.Random(0), 0)
    *_, r, term, _, _ = ph.step(Terminate('success'))
    assert term and r == 0.0


def test_info_elements_have_device_boxes():
    ph = SimPhone(SimConfig(scale=2, popup_prob=0)); obs, info = ph.reset(seed=0)
    assert obs['screen_size'] == (720, 1280) and obs['screenshot'].size == (720, 1280)
    icon = next(e for e in info['elements'] if e['id'] == 'icon:Shop')
    x1, y1, x2, y2 = icon['box']
    ph.step(Click(((x1 + x2) // 2, (y1 + y2) // 2)))
    assert ph.state.app == 'Shop'


def test_zh_falls_back_or_renders():
    from mobile_r1.sim.render import find_cjk_font
    if find_cjk_font() is None:
        with pytest.warns(UserWarning, match='CJK font'): ph = SimPhone(SimConfig(lang='zh'))
        assert ph.cfg.lang == 'en'
    else:
        ph = SimPhone(SimConfig(lang='zh', popup_prob=0)); ph.reset(seed=0)
        *_, info = ph.step(Open('飞猪旅行'))
        assert ph.state.app == 'TravelPig' and any(e['label'] == '酒店套餐' for e in info['elements'])
