"""Property tests: the parser never raises, reports broken structure, and every action and frame round-trips."""
import json, math
from hypothesis import given, settings, strategies as st, HealthCheck
import mobile_r1.actions as A

N = 3_000  # examples per property; the four parser properties below feed it 12,000 answers

text = st.text(alphabet=st.characters(codec='utf-8'), max_size=40)
free = text.filter(lambda t: not A._TAG.search(t))       # text that cannot fake a block tag
coord = st.integers(0, 4000)
point = st.tuples(coord, coord)
seconds = st.floats(0, 60, allow_nan=False).map(lambda t: round(t, 3))
actions = st.one_of(
    st.builds(A.Key, free), st.builds(A.Click, point), st.builds(A.LongPress, point, seconds),
    st.builds(A.Swipe, point, point), st.builds(A.Type, free), st.builds(A.SystemButton, st.sampled_from(A.BUTTONS)),
    st.builds(A.Open, free), st.builds(A.Wait, seconds), st.builds(A.Terminate, st.sampled_from(A.STATUSES)))
answers = st.builds(A.format_response, free.filter(str.strip), free.filter(str.strip), actions)
settings_ = settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck))


@settings_
@given(actions, free.filter(str.strip), free.filter(str.strip))
def test_round_trip(a, think, act):
    p = A.parse_response(A.format_response(think, act, a))
    assert p.format_ok and p.error is None and p.action == a
    assert A.Action.from_args(json.loads(json.dumps(a.args()))) == a


@settings_
@given(st.one_of(text, st.binary(max_size=60).map(lambda b: b.decode('utf-8', 'replace')),
                 st.lists(st.sampled_from(['<think>', '</think>', '<action>', '</action>', '<tool_call>',
                                           '</tool_call>', '{', '}', '"', 'x', '\n', '{"name": "mobile_use"}']),
                          max_size=12).map(''.join)))
def test_garbage_never_raises(s):
    p = A.parse_response(s)
    assert isinstance(p, A.Parsed)
    assert p.format_ok == (p.error is None)
    if p.format_ok: assert p.action is not None and s.count('<think>') == 1


def _cut(s, data):
    i = data.draw(st.integers(0, len(s) - 1))
    return s[:i]

TAGS = ['<think>', '</think>', '<action>', '</action>', '<tool_call>', '</tool_call>']

@settings_
@given(answers, st.data())
def test_structural_mutations_are_reported(ans, data):
    kind = data.draw(st.sampled_from(['truncate', 'drop_tag', 'swap', 'dup', 'prefix']))
    if kind == 'truncate':
        bad = ans[:ans.rindex('</tool_call>') + data.draw(st.integers(0, len('</tool_call>') - 1))]
    elif kind == 'drop_tag':
        tag = data.draw(st.sampled_from(TAGS))
        bad = ans.replace(tag, '', 1)
    elif kind == 'swap':
        think = ans[:ans.index('<action>')]
        bad = ans[len(think):ans.index('<tool_call>')] + think + ans[ans.index('<tool_call>'):]
    elif kind == 'dup':
        bad = ans[:ans.index('<action>')] + ans
    else:
        bad = data.draw(st.text(min_size=1, max_size=5).filter(str.strip)) + ans
    p = A.parse_response(bad)
    assert not p.format_ok and p.error, (kind, bad)


@settings_
@given(answers, st.one_of(st.just('{'), st.just('null'), st.just('"x"'), st.just('[1, 2]'),
                          st.just('{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [NaN, 1]}}'),
                          st.just('{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1e400, 1]}}'),
                          st.just('{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [99999999999, 1]}}'),
                          st.just('{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [1, 2]}}'),
                          st.just('{"name": "mobile_use", "arguments": {"action": "teleport"}}'),
                          st.just('{"name": "other", "arguments": {"action": "wait"}}'),
                          text.map(lambda t: json.dumps({'name': 'mobile_use', 'arguments': t}))))
def test_bad_tool_calls_are_reported(ans, body):
    head = ans[:ans.index('<tool_call>')]
    p = A.parse_response(f'{head}<tool_call>{body}</tool_call>')
    assert not p.format_ok and p.error and p.action is None


sizes = st.integers(1, 4000)

@settings(max_examples=2_000, deadline=None)
@given(sizes, sizes, sizes, sizes, st.data())
def test_frames_round_trip(w1, h1, w2, h2, data):
    a, b = A.Frame(w1, h1), A.Frame(w2, h2)
    p = (data.draw(st.integers(0, w1 - 1)), data.draw(st.integers(0, h1 - 1)))
    q = A.to_frame(p, a, b)
    assert 0 <= q[0] < w2 and 0 <= q[1] < h2
    back = A.to_frame(q, b, a)
    for i, (ea, eb) in enumerate(zip(a.size, b.size)):
        if eb >= ea: assert back[i] == p[i]
        else: assert abs(back[i] - p[i]) <= math.ceil(ea / eb)


@settings(max_examples=2_000, deadline=None)
@given(st.integers(100, 4000), st.integers(100, 4000), st.data())
def test_device_model_norm_frames(w, h, data):
    """device -> model -> device is exact when the model's view is larger, within a pixel step otherwise; norm likewise."""
    if max(w, h) / min(w, h) > 200: return
    dev, model, norm = A.Frame(w, h), A.Frame.model_view(w, h), A.Frame.normalised()
    assert model.width % 28 == 0 and model.height % 28 == 0
    p = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    for other in (model, norm):
        q = A.to_frame(p, dev, other)
        back = A.to_frame(q, other, dev)
        for i in range(2):
            step = dev.size[i] / other._extent(i)
            assert abs(back[i] - p[i]) <= max(0, math.ceil(step)), (dev, other, p, q, back)
    a = A.Click(p)
    assert A.action_to_frame(A.action_to_frame(a, dev, norm), norm, dev).coordinate == A.to_frame(A.to_frame(p, dev, norm), norm, dev)
