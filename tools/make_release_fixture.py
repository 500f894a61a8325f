"""Build `tests/fixtures/release/`: a few trajectories shaped like the public Mobile-R1 release (PG23 uploads).

What it copies from the release, on purpose (see nbs/02_data.ipynb, "Reading the release as it is"):
- every trajectory starts with `system_button` "Tap" and no coordinate (the tap on the app's icon), and that
  step's `response` holds the tool call double-encoded (a JSON string inside <tool_call>);
- action values spelled as the dataset card does ("Tap", "Type", "Terminate"), and the button "Search";
- `action` fields as JSON strings, Chinese instructions and app names, two screen sizes, no `bbox`.
The screenshots are drawn boxes (the release's images are real phone screens); run from the repository root."""
import json, random
from pathlib import Path
from PIL import Image, ImageDraw
from mobile_r1.data import system_prompt

OUT = Path('tests/fixtures/release')

def screen(path: Path, size, seed: int):
    "A plain phone-like screenshot: a status bar, a title bar and a few list rows."
    rng = random.Random(seed)
    w, h = size
    img = Image.new('RGB', size, (245, 245, 245)); d = ImageDraw.Draw(img)
    d.rectangle([0, 0, w, h // 30], fill=(30, 30, 30))
    d.rectangle([0, h // 30, w, h // 10], fill=(rng.randrange(60, 200), 120, 200))
    for k in range(5):
        y = h // 8 + k * h // 7
        d.rounded_rectangle([w // 20, y, w - w // 20, y + h // 9], radius=w // 40, fill=(255, 255, 255), outline=(210, 210, 210))
        d.rectangle([w // 10, y + h // 40, w // 10 + w // 6, y + h // 40 + w // 6], fill=(rng.randrange(256), rng.randrange(256), 150))
    img.save(path, optimize=True)

def call(**args) -> str: return json.dumps({'name': 'mobile_use', 'arguments': args}, ensure_ascii=False)
def answer(think, act, tool) -> str: return f'<think>\n{think}\n</think><action>\n{act}\n</action><tool_call>\n{tool}\n</tool_call>'

def step(img, think, subtask, act, action, twice=False):
    enc = json.dumps(action, ensure_ascii=False) if twice else action   # twice: a JSON string of the call, as released
    return {'image': img, 'thought': think, 'subtask': subtask, 'action': enc, 'response': answer(think, act, enc)}

def main():
    (OUT / 'images').mkdir(parents=True, exist_ok=True)
    trips = [
        ('飞猪', '在飞猪搜索杭州的酒店', (1080, 2400), [
            ('在主屏幕上，点击飞猪图标以打开飞猪', '打开飞猪', '点击飞猪图标', call(action='system_button', button='Tap'), True),
            ('飞猪首页已打开，点击顶部的搜索框以输入目的地', '搜索杭州酒店', '点击搜索框', call(action='Tap', coordinate=[540, 310]), False),
            ('搜索框已激活，输入“杭州酒店”', '搜索杭州酒店', '输入杭州酒店', call(action='Type', text='杭州酒店'), False),
            ('已输入关键词，点击键盘上的搜索键', '搜索杭州酒店', '点击搜索', call(action='system_button', button='Search'), False),
            ('搜索结果已显示，任务完成', '结束任务', '结束任务', call(action='Terminate', status='success'), False)]),
        ('闲鱼', '打开闲鱼，查看消息', (720, 1280), [
            ('在主屏幕上，点击闲鱼图标以打开闲鱼', '打开闲鱼', '点击闲鱼图标', call(action='system_button', button='Tap'), True),
            ('闲鱼已打开，点击底部的“消息”标签', '查看消息', '点击消息', call(action='click', coordinate=[430, 1230]), False),
            ('消息页面正在加载，等待一秒', '查看消息', '等待', call(action='wait', time=1), False),
            ('消息列表已显示，任务完成', '结束任务', '结束任务', call(action='terminate', status='success'), False)]),
        ('淘宝', '在淘宝首页向下浏览推荐商品', (1080, 2400), [
            ('在主屏幕上，点击淘宝图标以打开淘宝', '打开淘宝', '点击淘宝图标', call(action='system_button', button='Tap'), True),
            ('淘宝首页已打开，向上滑动以浏览更多推荐', '浏览推荐', '向上滑动', call(action='swipe', coordinate=[540, 1800], coordinate2=[540, 700]), False),
            ('看到了更多推荐商品，返回上一页', '返回', '返回', call(action='system_button', button='Back'), False),
            ('已浏览推荐商品，任务完成', '结束任务', '结束任务', call(action='Terminate', status='success'), False)]),
    ]
    lines, k = [], 0
    for app, instruction, size, steps in trips:
        traj = []
        for think, sub, act, action, twice in steps:
            name = f'images/{k:03d}.png'; screen(OUT / name, size, k); k += 1
            traj.append(step(name, think, sub, act, action, twice))
        lines.append({'app_name': app, 'trajectory_length': len(traj), 'instruction': instruction,
                      'system': system_prompt(instruction), 'image_width': size[0], 'image_height': size[1], 'trajectory': traj})
    (OUT / 'data.jsonl').write_text(''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in lines), encoding='utf-8')
    print(f'{OUT}: {len(lines)} trajectories, {k} screenshots')

if __name__ == '__main__': main()
