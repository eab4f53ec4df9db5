"""The proof-of-value experiment on the gym's learnable family (issue 9 item 8), in four steps.

It is an experiment about the platform, not a stage of it, so it lives beside the other benchmarks
and only imports the product:

- :mod:`.corpus`: what every variant trains on (the learnable split, the scripted expert's
  episodes, the compact tool view, the masked tables);
- :mod:`.calibrate`: seconds per step and per evaluation measured on this machine, and the
  ``--quick`` tier's mechanics (scripted stubs through the real evaluator, a smoke training run);
- :mod:`.plan`: the shared step count those costs allow within the budget, or a refusal;
- :mod:`.run`: one (variant, seed) trained with the platform runner and evaluated closed loop;
- :mod:`.compare`: per-variant summaries and the paired comparisons over gated seeds.

``benchmarks/ablations.py`` is the command line that strings them together.
"""
