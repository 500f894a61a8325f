"""Draw the picture of the three stages on the front page: `python tools/draw_stages.py` writes nbs/assets/three_stages.png.

The numbers are the paper's (June table, Qwen2.5-VL-3B on the Mobile-R1 benchmark), as in ../shared/PAPER.md."""
from pathlib import Path
from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parents[1] / 'nbs' / 'assets' / 'three_stages.png'
STAGES = [  # title, what it trains on, its reward, the notebook, Accuracy / Task Success after it (paper)
    ('Stage 1: format finetuning', 'SFT on annotated trajectories', 'supervised (cross-entropy)', '08_stage1_sft', '60.10 / 7.60'),
    ('Stage 2: action-level GRPO', 'one step: G answers per recorded screen', 'R_act + R_fmt  (click in box, exact match)', '09_stage2_grpo', '82.84 / 48.00'),
    ('Stage 3: task-level GRPO', 'whole episodes: G per instruction, live phone', 'judge score + w (2 mean R_fmt - 1)', '10_stage3_grpo', '84.42 / 49.40'),
]
COLORS = [(66, 133, 244), (52, 168, 83), (234, 67, 53)]


def draw(path: Path = OUT) -> Path:
    W, H, bw, bh, top = 1200, 330, 350, 215, 70
    img = Image.new('RGB', (W, H), 'white')
    d = ImageDraw.Draw(img)
    f = lambda px: ImageFont.load_default(px)
    d.text((W // 2, 28), 'Mobile-R1: Qwen2.5-VL-3B learns to operate a phone in three stages', fill=(30, 30, 30), font=f(24), anchor='mm')
    gap = (W - 3 * bw) // 4
    for k, ((title, data, reward, nb, score), col) in enumerate(zip(STAGES, COLORS)):
        x = gap + k * (bw + gap)
        d.rounded_rectangle((x, top, x + bw, top + bh), 16, outline=col, width=4, fill=(250, 250, 250))
        d.rounded_rectangle((x, top, x + bw, top + 46), 16, fill=col)
        d.rectangle((x, top + 30, x + bw, top + 46), fill=col)
        d.text((x + bw // 2, top + 23), title, fill='white', font=f(19), anchor='mm')
        for j, (label, text) in enumerate((('data', data), ('reward', reward), ('notebook', nb))):
            y = top + 66 + 34 * j
            d.text((x + 14, y), label, fill=(120, 120, 120), font=f(14))
            d.text((x + 14, y + 15), text, fill=(30, 30, 30), font=f(15))
        d.text((x + 14, top + bh - 30), f'paper: Accuracy / Task Success {score}', fill=col, font=f(14))
        if k < 2:
            ax = x + bw + 6
            d.line((ax, top + bh // 2, ax + gap - 14, top + bh // 2), fill=(90, 90, 90), width=4)
            d.polygon([(ax + gap - 12, top + bh // 2), (ax + gap - 26, top + bh // 2 - 9), (ax + gap - 26, top + bh // 2 + 9)], fill=(90, 90, 90))
    d.text((W // 2, H - 18), 'each stage starts from the model the one before it left; answers: <think>...</think><action>...</action><tool_call>{"name": "mobile_use", ...}</tool_call>',
           fill=(90, 90, 90), font=f(14), anchor='mm')
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, optimize=True)
    return path


if __name__ == '__main__':
    print(draw())
