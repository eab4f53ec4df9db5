"""Self-improvement rounds and DAgger: the domain core (curation §The self-improvement loop,
fine-tuning 16.6).

A round is: pick the tasks whose P_inform lies in the informative band (``selection``), let a
sampler attempt each k times with pinned seeds and judge every attempt with the full cascade
(``sampling``; a checkpoint's sampler in ``model_sampler``), fold the admitted ones into the next
mix under staleness retirement and action-sequence dedup (``mix``), label learner-visited states
with the scripted expert, verified by an oracle-checked continuation, and turn the verified labels
into SFT records that train only the expert's turns (``dagger``), and watch the round against the
previous one for collapse, with held-out and retention acceptance and an audit sample
(``collapse``). Teacher and context distillation (``distill``) produce trajectories that pass the
same admission; derived records are judged by the cascade through ``judge``. Settings:
``settings``.

The package sits above ``evaluation`` (a checkpoint's sampler is evaluation's model policy) and
never imports Dagster; see ``docs/rounds.md``.
"""
