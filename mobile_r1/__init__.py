"""Mobile-R1 (arXiv 2506.20332) in notebooks: multi-turn RL with task-level rewards for vision-language phone agents

Modules:

- `mobile_r1.actions`: The `mobile_use` action language: validated action dataclasses, a lenient parser for the model's answer, the canonical writer, and the coordinate frames a point travels through."""

__version__ = "0.0.1"
