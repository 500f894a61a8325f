"""Mobile-R1 (arXiv 2506.20332) in notebooks: multi-turn RL with task-level rewards for vision-language phone agents

Modules:

- `mobile_r1.actions`: The `mobile_use` action language: validated action dataclasses, a lenient parser for the model's answer, the canonical writer, and the coordinate frames a point travels through.
- `mobile_r1.answer_key`: The references the tutorials' checks compare with, computed inside the library and dropped, so that no check cell computes an answer in plain sight and no answer is left in a student's kernel.
- `mobile_r1.cli`: One entry point for the main job and the tools: `quickstart`, `pretrain`, `train`, `headroom`, `eval`, `view`, `data`, `fake-adb`, `serve-env` and `course`.
- `mobile_r1.course`: How the tutorials are built: exercises with a blank and a check that talks, solutions in one place, and one command that writes the student and the teacher version.
- `mobile_r1.data`: Read and write trajectories laid out like the Hugging Face `PG23/Mobile-R1` release (`data.jsonl` + `images/`), tolerate its quirks, and build the chat samples each training stage needs (system prompt, text history, resized screenshot, golden answer in the model's frame).
- `mobile_r1.decode`: Batched sampling written out: identical screenshots encoded once, one prefill, a KV cache, per-row positions, and finished rows leaving the batch.
- `mobile_r1.device`: The `Phone` protocol every stage drives, and `AdbPhone`: the same `reset`/`step` on a real Android phone or emulator, over adb.
- `mobile_r1.env`: Where online episodes are played: phones from a spec (`sim`, or `adb:SERIAL[,SERIAL…]` for real phones and emulators), tasks from a SimPhone split or a JSONL file of instructions, and episodes queued across however many phones there are.
- `mobile_r1.evaluate`: The paper's static benchmark (step Accuracy, Task Success, Tail Success, Format and Args Errors) on any Mobile-R1-format split, online task success on SimPhone, and the results table.
- `mobile_r1.fake_adb`: An adb server on 127.0.0.1 whose devices are SimPhones, so adbutils, `AdbPhone` and Google's own `adb` drive the simulator: the adb code path, tested without a phone.
- `mobile_r1.generation`: Where a rollout's answers come from: the project's decode loop (the default), or vLLM, as a server (TRL's client for `vllm serve`) or in-process, with the trained weights pushed to it after every optimiser step.
- `mobile_r1.grpo`: One clipped, KL-regularised loss for both RL stages, the three ways stage 3 hands a trajectory's advantage to its turns (trajectory-level credit, the step-aware departure, GiGPO's step groups), and the steps that keep only groups with signal (dynamic sampling, replay).
- `mobile_r1.gym_env`: SimPhone (or phones over adb) as a Gymnasium environment, `mobile_r1/SimPhone-v0`: the screenshot as an RGB array, the instruction and the action history as text; the model's answer text as the action; the task checker's success as the reward.
- `mobile_r1.headroom`: Greedy success against pass@k at the rollout temperature, per task and per kind of screen, and the share of GRPO groups that would carry a signal: measured before an RL stage, so its curves have a ceiling to climb toward.
- `mobile_r1.judge`: Stage 3's task-level reward: a judge reads a whole trajectory and returns a score in [0, 1] with a reason: the simulator's checker (`RuleJudge`) or a GPT-4o-style model reading a prompt we build and answering `Reason:` / `Score:`; and how far two judges agree. The HTTP client (`OpenAIJudge`: endpoint, retries, cache, a replayed server) is `07b_judge_client`.
- `mobile_r1.judge_client`: `OpenAIJudge`: the judge of `07_judge` behind any OpenAI-compatible endpoint, with retries, a verdict cache, and a replayed endpoint for offline use.
- `mobile_r1.metrics`: One JSONL row per logging step, with the same names in every stage, and the TRL callback that writes them.
- `mobile_r1.openenv_server`: The Gymnasium environment of `06b_standard_env` behind OpenEnv's HTTP contract: `mobile-r1 serve-env` serves SimPhone (or phones over adb) with no Docker, and `PhoneClient` plays it from any process or machine.
- `mobile_r1.policy`: Load a vision-language model by Hub id or folder (Qwen2.5-VL-3B is the paper's), or build a tiny Qwen2.5-VL in code; add LoRA, freeze the vision tower, and act on phone screens in batches.
- `mobile_r1.precision`: Why a GPU run in bf16 weights can report losses and rewards while barely training, and the settings every stage's `paper()` uses instead: fp32 master weights with bf16 compute, or LoRA adapters kept in fp32.
- `mobile_r1.pretrain`: The paper's stage 1 starts from a model that already reads; ours starts from random weights. This recipe trains the tiny Qwen2.5-VL on SimPhone's expert trajectories outside the quickstart's training world, so that stage 1 starts from a model that knows the screens, the answer format, and how to find on a screen what the instruction names.
- `mobile_r1.prompts`: Two ways to put a step in front of the model: the release's prompt (`mobile-r1`), for training on the release, and the layout of Qwen's own mobile agent (`qwen`), which tells a Hub checkpoint the whole `mobile_use` schema and the screen's resolution.
- `mobile_r1.quickstart`: One command, the whole method: build a tiny model, generate SimPhone data, run stages 1, 2 and 3, evaluate after each, and write the table, the curves, sample trajectories and a report.
- `mobile_r1.reader`: Before the phone base learns tasks, its vision tower learns to read: alone, with two small heads on top, it names the titles on SimPhone's video feed.
- `mobile_r1.report`: One self-contained HTML page per run: reward curves, the results table and a trajectory viewer, readable in any browser with no server and no network.
- `mobile_r1.rewards`: The action-level reward of stage 2, the task-level reward of stage 3, and the group-relative advantages GRPO turns them into.
- `mobile_r1.rollout`: Play whole episodes on a phone: `run_episode` as a plain loop, and a batched runner that plays many episodes at once with one model call per turn.
- `mobile_r1.scale`: Parameter counts from a model's config, checked against a model built in code; memory and time per stage for Qwen2.5-VL-3B, with LoRA and with full finetuning, labelled as estimates; and which launch config fits which hardware.
- `mobile_r1.shared_prompt`: The RL stages' scoring and training passes with each distinct prompt run once and its cache shared by the answers to it: the same log-probabilities and gradients as one forward per answer, for a fraction of the work.
- `mobile_r1.sim.apps`: Ten apps declared as data, in the spirit of the paper's 28 Chinese apps: shopping, travel (TravelPig), food delivery, video, maps, messaging, settings, music, and two apps kept out of training (movie tickets, notes); plus the English → Chinese glossary.
- `mobile_r1.sim.content`: Each episode draws the titles its apps list from a vocabulary, in an order of its own, with the task's titles among them; held-out titles never appear in a training episode.
- `mobile_r1.sim.core`: The data schema of SimPhone's apps (elements, screens, apps), the copyable phone state a checker reads, the difficulty config, and the layout that turns a screen's identity into element boxes.
- `mobile_r1.sim.expert`: A planner that reads the current phone state and gives the golden next action with the paper's thought ("state + next action + purpose"), an action sentence and the target's box: the annotator behind SimPhone's data, and a reference policy.
- `mobile_r1.sim.generate`: Run the expert over a split's tasks, with random pop-ups and detours so recoveries appear, and write the trajectories in the Mobile-R1 format (data.jsonl + PNG images), atomically.
- `mobile_r1.sim.phone`: The built-in phone: Gymnasium-shaped `reset`/`step` over the apps, taking `mobile_r1.actions` in device pixels and returning screenshots, visible elements with boxes, and a copyable state.
- `mobile_r1.sim.render`: Draw what the phone shows (a `View`: visible elements with boxes, the app bar, tabs, keyboard, pop-up) as a flat, phone-like PIL screenshot; deterministic, cached by view.
- `mobile_r1.sim.tasks`: Instruction templates over every app, goal predicates over the phone state (the checker), and the `train` / `held_out` / `unseen_apps` splits.
- `mobile_r1.stage1`: Supervised finetuning on golden trajectories with TRL's SFTTrainer, so the model answers in the `<think>…<action>…<tool_call>…` format; ends with a format-compliance report.
- `mobile_r1.stage2`: Single-step online RL on TRL's GRPOTrainer: sample G answers per recorded step, reward each with the action-level reward plus the format reward, and push the better ones up.
- `mobile_r1.stage2_decode`: TRL's GRPOTrainer with its generation on `mobile_r1.decode`, the loop stage 3 and evaluation sample with: the same answers, several times faster on a CPU.
- `mobile_r1.stage3`: The paper's contribution, as our own loop: play G whole episodes per instruction on a phone, score each trajectory with a judge, and push every turn of the better trajectories up.
- `mobile_r1.threads`: How many threads a run uses, and why two runs on one machine no longer slow each other down fivefold: idle OpenMP workers sleep instead of spinning, and each run takes its share of the cores that are free.
- `mobile_r1.vllm_standin`: A loopback HTTP server that answers the endpoints TRL's vLLM client calls, with the project's decode loop on its own copy of a model, so the vLLM path of stage 3 runs, and is tested, on a CPU without vLLM.
- `mobile_r1.widgets`: Watch reward curves live while a stage trains, replay a finished run's metrics, and step through trajectories turn by turn."""

# first: OMP_WAIT_POLICY=PASSIVE before anything loads torch (nbs/15a_threads.ipynb)
from .threads import WAIT_POLICY

__version__ = "0.0.1"
