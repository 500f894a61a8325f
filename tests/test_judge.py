"""OpenAIJudge against a local OpenAI-compatible server (stdlib, 127.0.0.1, port 0), plus RuleJudge and agreement.

The server here is written independently of `mobile_r1.judge_client.ReplayServer`, so these tests do not trust the
library's own fake: they check what actually crosses the wire."""
import base64, json, math, socket, threading, time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from mobile_r1.actions import Click, Open, Terminate
from mobile_r1.judge import JudgeError, RuleJudge, Verdict, agreement
from mobile_r1.judge_client import JudgeConfig, OpenAIJudge, ReplayServer, cache_key

KEY = 'sk-test-5ecret-key-0123456789'


# --- stand-ins for the simulator's Task and the rollout's Trajectory -------------------------------------------
@dataclass
class Task:
    instruction: str
    def is_successful(self, state): return bool(state.get('done'))

@dataclass
class Step:
    think: str | None
    action_text: str | None
    action: object
    screenshot: Image.Image | None = None

@dataclass
class Traj:
    instruction: str
    steps: list
    final_state: dict
    outcome: str = 'terminated'

def make_traj(instruction='Follow the shop', n=4, done=True):
    steps = [Step(f'thought {i}', f'tap {i}', Click((10 * i, 20)), Image.new('RGB', (20, 30), (40 * i, 0, 0)))
             for i in range(n - 1)]
    steps.append(Step('done', 'finish', Terminate('success'), Image.new('RGB', (20, 30), 'green')))
    return Traj(instruction, steps, {'done': done})

TASK = Task('Follow the shop')


# --- a minimal OpenAI-compatible server -----------------------------------------------------------------------
def completion(text):
    return 200, {}, {'id': 'c', 'object': 'chat.completion', 'created': 0, 'model': 'm',
                     'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': text}, 'finish_reason': 'stop'}]}

class Server:
    "Answers POSTs with `responses` in order (the last one repeats); records (path, headers, body) of each request."
    def __init__(self, responses, delay=0.0):
        self.responses, self.delay, self.seen, self.lock = list(responses), delay, [], threading.Lock()
        srv = self
        class H(BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
                with srv.lock:
                    srv.seen.append((self.path, dict(self.headers), body))
                    status, headers, payload = srv.responses[min(len(srv.seen), len(srv.responses)) - 1]
                time.sleep(srv.delay)
                data = json.dumps(payload).encode()
                self.send_response(status)
                for k, v in {'Content-Type': 'application/json', **headers}.items(): self.send_header(k, v)
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        self.httpd = ThreadingHTTPServer(('127.0.0.1', 0), H)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
        self.thread.start()
        self.url = f'http://127.0.0.1:{self.httpd.server_port}/v1'

    def close(self):
        self.httpd.shutdown(); self.httpd.server_close(); self.thread.join(5)

@pytest.fixture
def serve():
    servers = []
    def start(*responses, delay=0.0):
        servers.append(Server(responses, delay))
        return servers[-1]
    yield start
    for s in servers: s.close()

def judge_for(srv, tmp_path=None, **kw):
    cfg = JudgeConfig(base_url=srv.url, cache_dir=str(tmp_path) if tmp_path else None, backoff_s=0.01, max_backoff_s=0.05, **kw)
    return OpenAIJudge(cfg, api_key=KEY)


# --- OpenAIJudge ------------------------------------------------------------------------------------------------
def test_sends_text_and_last_k_png_images(serve):
    srv = serve(completion('Reason: coherent and complete.\nScore: 5'))
    v = judge_for(srv, last_k_images=3).score(TASK, make_traj(n=5))
    assert v == Verdict(1.0, 'coherent and complete.', 'Reason: coherent and complete.\nScore: 5')
    path, headers, body = srv.seen[0]
    assert path == '/v1/chat/completions' and body['model'] == 'gpt-4o' and body['temperature'] == 0
    assert headers.get('authorization') == f'Bearer {KEY}'
    assert body['messages'][0]['role'] == 'system' and body['messages'][0]['content'].startswith('You are an expert in evaluating GUI agent')
    parts = body['messages'][1]['content']
    text = parts[0]['text']
    assert 'Instruction: Follow the shop' in text and 'Step 5:' in text and '"action": "terminate"' in text
    imgs = [p['image_url']['url'] for p in parts if p['type'] == 'image_url']
    assert len(imgs) == 3 and all(u.startswith('data:image/png;base64,') for u in imgs)
    pngs = [base64.b64decode(u.split(',', 1)[1]) for u in imgs]
    assert all(b.startswith(b'\x89PNG') for b in pngs)
    import io
    assert Image.open(io.BytesIO(pngs[-1])).getpixel((0, 0)) == (0, 128, 0)   # the LAST screenshot comes last

@pytest.mark.parametrize('reply,score', [('Reason: x\nScore: 1', 0.0), ('Reason: x\nScore: 3', 0.5),
                                         ('**Reason:** x\n**Score:** 4', 0.75), ('Reason: x\nScore: 5/5', 1.0)])
def test_parses_scores(serve, reply, score):
    assert judge_for(serve(completion(reply))).score(TASK, make_traj()).score == score

def test_retries_429_then_succeeds(serve):
    srv = serve((429, {'Retry-After': '0'}, {'error': {'message': 'Rate limit reached'}}), completion('Reason: ok\nScore: 4'))
    j = judge_for(srv)
    assert j.score(TASK, make_traj()).score == 0.75
    assert len(srv.seen) == 2 and j.stats['retries'] == 1

def test_retry_after_is_honoured_and_capped(serve):
    srv = serve((429, {'Retry-After': '100'}, {'error': {'message': 'slow down'}}), completion('Reason: ok\nScore: 2'))
    t = time.perf_counter()
    assert judge_for(srv).score(TASK, make_traj()).score == 0.25
    assert time.perf_counter() - t < 2          # 100 s asked, capped at max_backoff_s = 0.05

def test_5xx_retries_are_bounded(serve):
    srv = serve((503, {}, {'error': {'message': 'overloaded'}}))
    with pytest.raises(JudgeError, match='gave up after 3 tries'):
        judge_for(srv, max_attempts=3).score(TASK, make_traj())
    assert len(srv.seen) == 3

def test_connection_errors_are_retried_then_reported():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]   # a port nobody listens on once closed
    cfg = JudgeConfig(base_url=f'http://127.0.0.1:{port}/v1', cache_dir=None, max_attempts=2, backoff_s=0.01, timeout_s=2)
    j = OpenAIJudge(cfg, api_key=KEY)
    with pytest.raises(JudgeError, match='gave up after 2 tries'): j.score(TASK, make_traj())
    assert j.stats['requests'] == 2

def test_malformed_reply_is_a_clear_error_and_not_cached(serve, tmp_path):
    srv = serve(completion('The agent did great, I would say excellent!'))
    with pytest.raises(JudgeError) as e: judge_for(srv, tmp_path).score(TASK, make_traj())
    msg = str(e.value)
    assert "no 'Score: k'" in msg and 'The agent did great' in msg and KEY not in msg
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(JudgeError, match='from 1 to 5'):
        judge_for(serve(completion('Reason: x\nScore: 9'))).score(TASK, make_traj())

def test_cache_hit_makes_no_second_request(serve, tmp_path):
    srv = serve(completion('Reason: ok\nScore: 5'))
    v1 = judge_for(srv, tmp_path).score(TASK, make_traj())
    v2 = judge_for(srv, tmp_path).score(TASK, make_traj())            # a fresh judge, same cache
    assert v1 == v2 and len(srv.seen) == 1
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].suffix == '.json' and json.loads(files[0].read_text())['score'] == 1.0
    judge_for(srv, tmp_path).score(TASK, make_traj(n=3))               # a different trajectory is a miss
    assert len(srv.seen) == 2 and not list(tmp_path.glob('*.tmp')) and not list(tmp_path.glob('.*'))

def test_cache_key_covers_everything_that_changes_the_reply():
    u = 'http://127.0.0.1:8000/v1'
    k = cache_key('gpt-4o', 'p', [b'a'], u)
    keys = {k, cache_key('gpt-4o-mini', 'p', [b'a'], u), cache_key('gpt-4o', 'q', [b'a'], u), cache_key('gpt-4o', 'p', [b'b'], u),
            cache_key('gpt-4o', 'pa', [], u), cache_key('gpt-4o', 'p', [b'a'], 'http://127.0.0.1:8001/v1'),
            cache_key('gpt-4o', 'p', [b'a'], u, temperature=0.7), cache_key('gpt-4o', 'p', [b'a'], u, max_tokens=64)}
    assert len(keys) == 8
    assert cache_key('gpt-4o', 'p', [b'a'], u + '/') == k                # the same endpoint, however it is written

def test_concurrent_duplicates_are_paid_once(serve, tmp_path):
    srv = serve(completion('Reason: ok\nScore: 5'), delay=0.1)
    vs = judge_for(srv, tmp_path).score_many([(TASK, make_traj())] * 4, max_workers=4)
    assert [v.score for v in vs] == [1.0] * 4 and len(srv.seen) == 1

def test_score_many_keeps_order_and_runs_in_parallel(serve):
    srv = serve(completion('Reason: ok\nScore: 5'), delay=0.3)
    j = judge_for(srv)
    t = time.perf_counter()
    vs = j.score_many([(TASK, make_traj(f'task {i}')) for i in range(4)], max_workers=4)
    assert time.perf_counter() - t < 1.0 and len(vs) == 4 and len(srv.seen) == 4
    assert sorted(b['messages'][1]['content'][0]['text'].split('\n')[0] for _, _, b in srv.seen) == [f'Instruction: task {i}' for i in range(4)]

def test_key_never_in_repr_str_or_cache(serve, tmp_path):
    srv = serve(completion('Reason: ok\nScore: 5'))
    j = judge_for(srv, tmp_path)
    j.score(TASK, make_traj())
    assert KEY not in repr(j) and KEY not in str(j) and KEY not in repr(j.cfg)
    assert all(KEY not in p.read_text() for p in tmp_path.rglob('*') if p.is_file())

def test_echoed_key_is_scrubbed_from_errors(serve):
    srv = serve((404, {}, {'error': {'message': f'model not found for key {KEY}'}}))
    with pytest.raises(JudgeError) as e: judge_for(srv).score(TASK, make_traj())
    assert '404' in str(e.value) and KEY not in str(e.value)
    with pytest.raises(JudgeError, match='rejected the API key'):
        judge_for(serve((401, {}, {'error': {'message': f'Incorrect API key provided: {KEY}'}}))).score(TASK, make_traj())

def test_missing_key_or_endpoint_is_a_clear_error(monkeypatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    with pytest.raises(JudgeError, match='OPENAI_API_KEY'): OpenAIJudge(JudgeConfig(base_url='http://127.0.0.1:1/v1'))
    with pytest.raises(JudgeError, match='no judge endpoint'): OpenAIJudge(JudgeConfig(), api_key=KEY)
    with pytest.raises(JudgeError, match='MY_KEY'): OpenAIJudge(JudgeConfig(base_url='http://127.0.0.1:1/v1', api_key_env='MY_KEY'))
    monkeypatch.setenv('MY_KEY', KEY)
    monkeypatch.setenv('OPENAI_BASE_URL', 'http://127.0.0.1:1/v1')
    j = OpenAIJudge(JudgeConfig(api_key_env='MY_KEY'))                 # both from the environment
    assert j.base_url == 'http://127.0.0.1:1/v1' and KEY not in repr(j)

def test_replay_server_serves_the_real_client():
    with ReplayServer(['Reason: replayed\nScore: 4']) as srv:
        v = OpenAIJudge(JudgeConfig(base_url=srv.url, cache_dir=None), api_key='x').score(TASK, make_traj())
    assert v.score == 0.75 and len(srv.requests) == 1


# --- RuleJudge and agreement -------------------------------------------------------------------------------------
def test_rule_judge():
    rj = RuleJudge()
    assert rj.score(TASK, make_traj(done=True)).score == 1.0
    assert 'does not hold' in rj.score(TASK, make_traj(done=False)).reason
    t = make_traj(); t.steps[-1] = Step('x', 'x', Terminate('failure'))
    assert rj.score(TASK, t).score == 0.0
    t = make_traj(); t.steps.pop(); t.outcome = 'step_limit'
    v = rj.score(TASK, t)
    assert v.score == 0.0 and 'step_limit' in v.reason
    assert rj.score(TASK, Traj('x', [Step(None, None, None)], {'done': True}, 'invalid')).score == 0.0

def test_agreement():
    r = agreement([Verdict(1, ''), Verdict(1, ''), Verdict(0, ''), Verdict(0, '')], [1.0, 0.5, 0.25, 0.75])
    assert r == {'n': 4, 'accuracy': 0.5, 'kappa': 0.0, 'mae': 0.375, 'success_rate_a': 0.5, 'success_rate_b': 0.5}
    assert agreement([1, 0, 1], [1, 0, 1])['kappa'] == 1.0
    assert math.isnan(agreement([0, 0], [0, 0])['kappa'])
    with pytest.raises(ValueError, match='same trajectories'): agreement([1], [])
