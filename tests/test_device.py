"AdbPhone and adbutils (and Google's adb, when its binary is present) against the SimPhone-backed fake adb server."
import os
os.environ['ADBUTILS_ADB_PATH'] = '/bin/false'   # adbutils starts its bundled adb when no server answers: never here
import random, re, subprocess
from pathlib import Path
import pytest
import adbutils
from mobile_r1.actions import Click, Open, SystemButton, Type, Terminate
from mobile_r1.device import ADB_IME, AdbPhone, AdbPhoneError, Phone
from mobile_r1.fake_adb import COMMANDS, LATIN_IME, FakeAdbServer
from mobile_r1.sim import SimConfig, SimPhone, get_task, random_action, tap

NASTY = ['; rm -rf /', "it's \"quoted\" 'twice'", '$(reboot)', '`reboot`', 'a && b || c | d > /x < /y', '\\n $HOME ${PATH} %d']


def _png_equal(a, b): return a.size == b.size and a.convert('RGB').tobytes() == b.convert('RGB').tobytes()


def _ran_only_known_commands(srv):
    "Nothing but the fake's own commands ran, and no line needed refusing (quoting held)."
    log = [e for d in srv.devices.values() for e in d.log]
    assert log and all(isinstance(e, list) and e[0] in COMMANDS for e in log), [e for e in log if not isinstance(e, list) or e[0] not in COMMANDS]


@pytest.fixture
def served():
    sim = SimPhone(popup_prob=0)
    with FakeAdbServer(sim, port=0) as srv, AdbPhone(port=srv.port, settle_s=0.01) as phone:
        yield sim, srv, phone


def test_both_phones_satisfy_the_protocol(served):
    sim, _, phone = served
    assert isinstance(sim, Phone) and isinstance(phone, Phone)
    assert phone.screen_size == sim.screen_size == (360, 640)


def test_screenshot_is_the_simulators_render(served):
    sim, srv, phone = served
    phone.reset(seed=0); phone.step(Open('Shop'))
    assert _png_equal(phone.screenshot(), sim.observe()[0]['screenshot'])
    assert _png_equal(adbutils.AdbClient(port=srv.port).device().screenshot(error_ok=False), sim.observe()[0]['screenshot'])


def test_actions_over_adb_change_the_screen_exactly_as_simphone_step():
    cfg = SimConfig(level=1, popup_prob=0.3)
    sim, twin = SimPhone(cfg), SimPhone(cfg)
    with FakeAdbServer(sim, port=0) as srv, AdbPhone(port=srv.port, settle_timeout_s=0) as phone:
        obs, _ = phone.reset(seed=7)
        twin_obs, _ = twin.reset(seed=7)
        assert sim.state == twin.state and _png_equal(obs['screenshot'], twin_obs['screenshot'])
        rng = random.Random(0)
        for _ in range(15):
            a = random_action(twin, rng)
            obs, r, term, trunc, info = phone.step(a)
            twin_obs, *_ = twin.step(a)
            assert sim.state == twin.state, a
            assert _png_equal(obs['screenshot'], twin_obs['screenshot']), a
            assert obs['app'] == twin_obs['app'] and (r, term, info['error']) == (0.0, False, None)


def test_a_tap_on_an_element(served):
    sim, _, phone = served
    twin = SimPhone(popup_prob=0)
    phone.reset(seed=1); twin.reset(seed=1)
    phone.step(Open('Shop')); twin.step(Open('Shop'))
    act = tap(twin, 'cat:Shoes')
    obs, *_ = phone.step(act)
    twin_obs, *_ = twin.step(act)
    assert _png_equal(obs['screenshot'], twin_obs['screenshot']) and sim.state == twin.state
    assert sim.state.screen != 'home'


def test_chinese_text_arrives_through_adb_keyboard(served):
    sim, srv, phone = served
    phone.reset(seed=0); phone.step(Open('购物')); phone.step(tap(sim, 'q'))
    for text in ('你好，世界', '小米14手机 🚀', '跑鞋\n第二行'):
        obs, *_, info = phone.step(Type(text))
        assert info['error'] is None and sim.state.fields['Shop/home/q'] == text    # replaced, like SimPhone's type
    dev = srv.devices['emulator-5554']
    assert dev.ime == ADB_IME and any(e[:4] == ['am', 'broadcast', '-a', 'ADB_INPUT_B64'] for e in dev.log)
    phone.close()
    assert dev.ime == LATIN_IME                                                      # the old keyboard is back
    _ran_only_known_commands(srv)


@pytest.mark.parametrize('adb_keyboard', [True, False])
def test_shell_metacharacters_arrive_as_text_and_run_nothing(adb_keyboard):
    sim = SimPhone(popup_prob=0)
    with FakeAdbServer(sim, port=0, adb_keyboard=adb_keyboard) as srv, AdbPhone(port=srv.port, settle_timeout_s=0) as phone:
        phone.reset(seed=0); phone.step(Open('Shop')); phone.step(tap(sim, 'q'))
        for text in NASTY:
            if not adb_keyboard: sim.state.fields['Shop/home/q'] = ''                    # `input text` appends
            phone.step(Type(text))
            assert sim.state.fields['Shop/home/q'] == text
        phone.step(Open('$(reboot)'))                                                     # model text in other actions too
        _ran_only_known_commands(srv)


def test_text_no_keyboard_can_type_is_an_explicit_error():
    sim = SimPhone(popup_prob=0)
    with FakeAdbServer(sim, port=0, adb_keyboard=False) as srv, AdbPhone(port=srv.port, settle_timeout_s=0) as phone:
        phone.reset(seed=0); phone.step(Open('Shop')); phone.step(tap(sim, 'q'))
        with pytest.raises(AdbPhoneError, match='Install ADB Keyboard'): phone.step(Type('你好'))
        with pytest.raises(AdbPhoneError, match='not installed'):
            AdbPhone(port=srv.port, adb_keyboard=True, settle_timeout_s=0).type_text('hi')


def test_open_terminate_and_truncation():
    sim = SimPhone(popup_prob=0)
    with FakeAdbServer(sim, port=0) as srv, AdbPhone(port=srv.port, settle_timeout_s=0, max_steps=3) as phone:
        obs, info = phone.reset(get_task('Shop/cart/Mi 14 Phone'), seed=0)
        assert obs['app'] is None and sim.task.id == 'Shop/cart/Mi 14 Phone'
        obs, r, term, trunc, info = phone.step(Open('Settings'))
        assert obs['app'] == sim.state.app == 'Settings' and info['package'] == 'com.android.settings'
        obs, r, term, trunc, info = phone.step(Open('Unknown App'))
        assert 'no package known' in info['error'] and not trunc
        obs, r, term, trunc, info = phone.step(Click((5000, 5000)))
        assert 'off the 360x640 screen' in info['error'] and trunc and not term
        phone.reset()
        obs, r, term, trunc, info = phone.step(Terminate('success'))
        assert term and r == 0.0 and not trunc
        with pytest.raises(RuntimeError, match='reset'): phone.step(SystemButton('Home'))


def test_no_server_no_device_two_devices():
    with FakeAdbServer({}, port=0) as srv:
        with pytest.raises(AdbPhoneError, match='no device on the adb server') as e: AdbPhone(port=srv.port)
        assert 'adb devices' in str(e.value)
    with pytest.raises(AdbPhoneError, match=f'no adb server at 127.0.0.1:{srv.port}.*fake-adb'): AdbPhone(port=srv.port)
    with FakeAdbServer({'sim-1': SimPhone(), 'sim-2': SimPhone()}, port=0) as srv:
        with pytest.raises(AdbPhoneError, match=r'2 devices \(sim-1, sim-2\): pass serial='): AdbPhone(port=srv.port)
        with pytest.raises(AdbPhoneError, match="no device 'sim-9'"): AdbPhone(port=srv.port, serial='sim-9')
        assert AdbPhone(port=srv.port, serial='sim-2', settle_timeout_s=0).serial == 'sim-2'


def test_cli_has_fake_adb():
    from mobile_r1.cli import build_parser
    a = build_parser().parse_args(['fake-adb', '--port', '0', '--task', 'Shop/cart/Mi 14 Phone', '--level', '1'])
    assert (a.port, a.task, a.level, a.serial, a.no_adb_keyboard) == (0, 'Shop/cart/Mi 14 Phone', 1, 'emulator-5554', False)
    assert callable(a.func)


ADB = Path(adbutils.__file__).parent / 'binaries' / 'adb'

def _adb_is_41() -> bool:
    if not ADB.exists(): return False
    try: out = subprocess.run([str(ADB), 'version'], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired): return False
    return 'Android Debug Bridge version 1.0.41' in out


@pytest.mark.skipif(not _adb_is_41(), reason="needs adbutils' bundled adb 1.0.41 (the fake server answers version 41)")
def test_googles_adb_client_drives_the_fake(tmp_path):
    # `-H 127.0.0.1` makes adb treat the server as remote, so it never launches its own; the fake's version matches
    # the client's, so the client never asks it to die either.
    sim = SimPhone(popup_prob=0)
    sim.reset(seed=0)
    with FakeAdbServer(sim, port=0) as srv:
        adb = lambda *a: subprocess.run([str(ADB), '-H', '127.0.0.1', '-P', str(srv.port), *a], capture_output=True,
                                        timeout=10, env={**os.environ, 'HOME': str(tmp_path)})
        r = adb('devices')
        assert r.returncode == 0 and re.search(rb'emulator-5554\s+device', r.stdout), r
        r = adb('shell', 'wm', 'size')
        assert r.returncode == 0 and r.stdout.strip() == b'Physical size: 360x640', r
        x, y = tap(sim, 'icon:Shop').coordinate
        assert adb('shell', 'input', 'tap', str(x), str(y)).returncode == 0 and sim.state.app == 'Shop'
        r = adb('exec-out', 'screencap', '-p')
        assert r.stdout.startswith(b'\x89PNG')
        assert adb('shell', 'no_such_tool').returncode == 127
