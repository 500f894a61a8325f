"""SimPhone behind the standard APIs: Gymnasium (`mobile_r1.gym_env`) and OpenEnv (`mobile_r1.openenv_server`, served by
`mobile-r1 serve-env` in a process of its own), with SimPhone and with a phone over adb (the fake adb server)."""
import os
os.environ.setdefault('ADBUTILS_ADB_PATH', '/bin/false')
import random, socket, subprocess, sys, textwrap, time, urllib.request
from contextlib import contextmanager
import numpy as np
import pytest
import gymnasium as gym
from gymnasium.utils.env_checker import check_env
from mobile_r1.actions import Open, Terminate
from mobile_r1.gym_env import ENV_ID, PhoneEnv, vector_env
from mobile_r1.sim import SimConfig, SimPhone, get_task, random_action
from mobile_r1.sim.expert import expert_action

pytest.importorskip('openenv.core')
from mobile_r1.openenv_server import PhoneAction, PhoneClient

CLI = [sys.executable, '-m', 'mobile_r1']


def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


@contextmanager
def served(*args, timeout=120):
    "`mobile-r1 serve-env ARGS` in its own process; yields its base URL."
    port = free_port()
    proc = subprocess.Popen([*CLI, 'serve-env', '--port', str(port), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f'http://127.0.0.1:{port}'
    try:
        t0 = time.time()
        while True:
            if proc.poll() is not None: raise RuntimeError(f'serve-env exited: {proc.stderr.read()[-3000:]}')
            try:
                with urllib.request.urlopen(url + '/health', timeout=2): break
            except OSError:
                if time.time() - t0 > timeout: raise TimeoutError('serve-env did not answer /health')
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try: proc.wait(10)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()


def test_check_env_passes():
    check_env(gym.make(ENV_ID, max_turns=5, render_mode='rgb_array').unwrapped)
    check_env(PhoneEnv(level=3, popup_prob=0.5, max_turns=3))


def test_make_without_importing_first():
    code = "import gymnasium as gym; e = gym.make('mobile_r1.gym_env:mobile_r1/SimPhone-v0', max_turns=3); print(e.reset(seed=0)[0]['screenshot'].shape)"
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and '(640, 360, 3)' in r.stdout, r.stderr[-2000:]


def test_unparseable_answers_cost_a_step_never_an_exception():
    env = gym.make(ENV_ID, popup_prob=0.0, max_turns=4)
    obs, _ = env.reset(seed=0)
    for k, bad in enumerate(['', 'no tags at all', '<think>x</think><action>y</action><tool_call>{"name": "mobile_use"</tool_call>',
                             '<think>a</think><action>b</action><tool_call>{"name": "mobile_use", "arguments": {"action": "fly"}}</tool_call>'], 1):
        obs2, r, term, trunc, info = env.step(bad)
        assert info['format_ok'] is False and info['parse_error'] and info['error'].startswith('invalid action'), info
        assert r == 0.0 and not term and trunc == (k == 4)
        np.testing.assert_array_equal(obs2['screenshot'], obs['screenshot'])
        assert len(obs2['history'].splitlines()) == k + 1          # header + one line per spent turn
    assert [t.format_ok for t in info['trajectory'].turns] == [False] * 4 and info['trajectory'].outcome == 'step_limit'


def test_expert_plays_to_success_through_gym_and_the_trajectory_is_judge_ready():
    from mobile_r1.judge import RuleJudge
    env = PhoneEnv(popup_prob=0.3, level=1, max_turns=15, expert=True)
    obs, info = env.reset(seed=4)
    task, done = get_task(info['task_id']), False
    while not done:
        obs, reward, term, trunc, info = env.step(info['expert'][0])
        done = term or trunc
    tr = info['trajectory']
    assert (reward, term, tr.success, tr.outcome) == (1.0, True, True, 'terminated')
    assert task.is_successful(tr.final_state) and all(t.gold is not None for t in tr.turns)
    v = RuleJudge().score_many([(task, tr)])[0]
    assert v.score > 0.5, v
    with pytest.raises(RuntimeError, match='call reset'): env.step(Open('Shop'))


def test_terminate_without_success_earns_nothing():
    env = PhoneEnv(popup_prob=0.0, expert=True)
    _, info = env.reset(seed=0)
    *_, info = env.step(info['expert'][0])
    _, r, term, _, info = env.step(Terminate('success'))
    assert term and r == 0.0 and info['trajectory'].success is False


def test_vector_envs_sync_and_async():
    for mode in ('sync', 'async'):
        v = vector_env(3, mode=mode, popup_prob=0.0, max_turns=2)
        try:
            obs, _ = v.reset(seed=0)
            assert obs['screenshot'].shape == (3, 640, 360, 3) and len(obs['instruction']) == 3
            obs, r, term, trunc, info = v.step(['garbage', Open('Shop'), 'garbage'])
            assert list(info['format_ok']) == [False, True, False] and not term.any()
            obs, r, term, trunc, info = v.step(['x'] * 3)
            assert trunc.all() and all(t.outcome == 'step_limit' for t in info['trajectory'])
        finally: v.close()


def _replay_direct(task_id, seed, actions, cfg):
    ph = SimPhone(cfg)
    out = [np.asarray(ph.reset(get_task(task_id), seed=seed)[0]['screenshot'])]
    for a in actions: out.append(np.asarray(ph.step(a)[0]['screenshot']))
    return out


def test_same_seed_same_observations_direct_gym_openenv():
    "One seed, one action sequence: byte-identical screenshots (and the same text) directly, through Gymnasium and over OpenEnv."
    kw = dict(level=2, popup_prob=0.5, max_turns=12)
    env = PhoneEnv(**kw)
    obs, info = env.reset(seed=11)
    twin, rng = SimPhone(SimConfig(level=2, popup_prob=0.5, max_steps=12)), random.Random(0)
    twin.reset(get_task(info['task_id']), seed=info['seed'])
    actions = []
    for _ in range(8):
        actions.append(random_action(twin, rng)); twin.step(actions[-1])
    gym_obs = [obs] + [env.step(a)[0] for a in actions]
    direct = _replay_direct(info['task_id'], info['seed'], actions, SimConfig(level=2, popup_prob=0.5, max_steps=12))
    with served('--level', '2', '--popup-prob', '0.5', '--max-turns', '12') as url, PhoneClient(base_url=url).sync() as c:
        r = c.reset(seed=11)
        assert r.observation.info['task_id'] == info['task_id'] and r.observation.info['seed'] == info['seed']
        oe = [r.observation] + [c.step(a).observation for a in actions]
    for d, g, o in zip(direct, gym_obs, oe):
        np.testing.assert_array_equal(g['screenshot'], d)
        np.testing.assert_array_equal(o.pixels(), d)
        assert (o.instruction, o.history) == (g['instruction'], g['history'])


def test_openenv_client_in_another_process_plays_a_task_to_success():
    code = textwrap.dedent('''
        import sys
        from mobile_r1.openenv_server import PhoneAction, PhoneClient
        with PhoneClient(base_url=sys.argv[1]).sync() as c:
            r = c.reset(seed=5, task='Shop/cart/Mi 14 Phone')
            while not r.done: r = c.step(PhoneAction(tool_call=r.observation.info['expert']['arguments']))
            print('RESULT', r.reward, r.observation.info['success'], r.observation.info['outcome'])''')
    with served('--expert', '--popup-prob', '0.3') as url:
        r = subprocess.run([sys.executable, '-c', code, url], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'RESULT 1.0 True terminated' in r.stdout, r.stdout


DISCONNECT = textwrap.dedent('''
    import os, sys
    from mobile_r1.openenv_server import PhoneClient
    c = PhoneClient(base_url=sys.argv[1]).sync()
    c.reset(seed=1); c.step('not an answer')
    print('MID-EPISODE', flush=True)
    os._exit(0)                      # gone without closing: the socket just drops''')


def test_a_client_that_disconnects_mid_episode_leaves_the_server_serving():
    with served('--max-sessions', '2') as url:
        with PhoneClient(base_url=url).sync() as other:
            other.reset(seed=2)
            for _ in range(3):       # more dropped sessions than the server has room for: each must be freed
                r = subprocess.run([sys.executable, '-c', DISCONNECT, url], capture_output=True, text=True, timeout=300)
                assert 'MID-EPISODE' in r.stdout, r.stderr[-2000:]
            assert other.step(Open('Shop')).observation.info['event'] == 'opened Shop/home'   # the first session goes on
        time.sleep(0.5)
        with PhoneClient(base_url=url).sync() as c, PhoneClient(base_url=url).sync() as d:
            assert c.reset(seed=0).observation.info['seed'] == d.reset(seed=0).observation.info['seed']


def test_a_phone_over_adb_behind_the_same_server():
    "`--phones adb:...` with one (fake) device: a client plays an episode, drops mid-episode, and the next client gets the device."
    from mobile_r1.fake_adb import FakeAdbServer
    sim = SimPhone(popup_prob=0)
    with FakeAdbServer(sim, port=0) as adb, served('--phones', f'adb:emulator-5554@127.0.0.1:{adb.port}', '--max-turns', '8') as url:
        task = get_task('Settings/turn_on/Airplane mode')
        with PhoneClient(base_url=url).sync() as c:
            r = c.reset(seed=3, task=task.id)
            assert r.observation.instruction == task.instruction and r.observation.pixels().shape == (640, 360, 3)
            while not r.done: r = c.step(expert_action(sim, task).action)     # the fake device's SimPhone plans the next step
            assert r.done and r.reward == 0.0 and r.observation.info['success'] is None   # no checker on a real phone: the judge decides
        assert sim.state.data['Settings']['Airplane mode'] is True and len(r.observation.history.splitlines()) == 4
        r = subprocess.run([sys.executable, '-c', DISCONNECT, url], capture_output=True, text=True, timeout=300)
        assert 'MID-EPISODE' in r.stdout, r.stderr[-2000:]
        time.sleep(0.5)
        with PhoneClient(base_url=url).sync() as c:       # the one device came back to the pool
            assert c.reset(seed=4, task=task.id).observation.info['task_id'] == task.id
        with pytest.raises(ValueError, match='no expert'): PhoneEnv(phones=f'adb:emulator-5554@127.0.0.1:{adb.port}', expert=True)


def test_serve_env_without_openenv_names_the_fix(monkeypatch):
    import builtins
    from mobile_r1 import cli
    real = builtins.__import__
    def fake(name, *a, **k):
        if name.startswith('openenv'): raise ImportError(f"No module named 'openenv'")
        return real(name, *a, **k)
    monkeypatch.delitem(sys.modules, 'mobile_r1.openenv_server', raising=False)
    monkeypatch.setattr(builtins, '__import__', fake)
    with pytest.raises(ValueError, match=r"pip install 'mobile_r1\[env\]'"): cli.cmd_serve_env(cli.build_parser().parse_args(['serve-env']))
