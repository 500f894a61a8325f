"""Mobile-R1 (arXiv 2506.20332) in notebooks: multi-turn RL with task-level rewards for vision-language phone agents

Modules:

- `mobile_r1.actions`: The `mobile_use` action language: validated action dataclasses, a lenient parser for the model's answer, the canonical writer, and the coordinate frames a point travels through.
- `mobile_r1.data`: Read and write trajectories laid out like the Hugging Face `PG23/Mobile-R1` release (`data.jsonl` + `images/`), tolerate its quirks, and build the chat samples each training stage needs (system prompt, text history, resized screenshot, golden answer in the model's frame).
- `mobile_r1.judge`: Stage 3's task-level reward: a judge reads a whole trajectory and returns a score in [0, 1] with a reason: the simulator's checker (`RuleJudge`) or a GPT-4o-style model behind any OpenAI-compatible endpoint (`OpenAIJudge`), with retries, a thread pool, a disk cache, and an agreement report.
- `mobile_r1.sim.apps`: Ten apps declared as data, in the spirit of the paper's Chinese apps: shopping, travel (TravelPig), food delivery, video, maps, messaging, settings, music, and two apps kept out of training (movie tickets, notes); plus the English → Chinese glossary.
- `mobile_r1.sim.core`: The data schema of SimPhone's apps (elements, screens, apps), the copyable phone state a checker reads, the difficulty config, and the layout that turns a screen's identity into element boxes.
- `mobile_r1.sim.expert`: A planner that reads the current phone state and gives the golden next action with the paper's thought ("state + next action + purpose"), an action sentence and the target's box: the annotator behind SimPhone's data, and a reference policy.
- `mobile_r1.sim.generate`: Run the expert over a split's tasks, with random pop-ups and detours so recoveries appear, and write the trajectories in the Mobile-R1 format (data.jsonl + PNG images), atomically.
- `mobile_r1.sim.phone`: The built-in phone: Gymnasium-shaped `reset`/`step` over the apps, taking `mobile_r1.actions` in device pixels and returning screenshots, visible elements with boxes, and a copyable state.
- `mobile_r1.sim.render`: Draw what the phone shows (a `View`: visible elements with boxes, the app bar, tabs, keyboard, pop-up) as a flat, phone-like PIL screenshot; deterministic, cached by view.
- `mobile_r1.sim.tasks`: Instruction templates over every app, goal predicates over the phone state (the checker), and the `train` / `held_out` / `unseen_apps` splits."""

__version__ = "0.0.1"
