"""Task environments users bring (issue 18): a deployed agent's own tasks, judged like the gym's.

A task environment is a directory in a versioned format (:mod:`.format`): S0, a sealed oracle,
reference solutions, the environment's own tool manifest and, optionally, its tool implementation
for replay. :mod:`.validate` refuses one the oracle cannot judge (accepts S0, rejects a reference,
disagrees with itself, needs a runtime the sandbox lacks); :mod:`.registry` keeps the validated
ones under a workdir and serves them to the verifier as gym fixtures, linked to logs by
``task.fixture_id``. ``docs/environments.md`` is the user's page.

Layer: above :mod:`trajectory_platform.gym` (whose fixtures, sandbox and oracle it reuses), below
curation and training; it imports only ``gym`` and ``traces``.
"""
