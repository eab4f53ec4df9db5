"""The gym: the platform's closed-loop environment (see ``docs/gym.md``).

- :mod:`~trajectory_platform.gym.fixtures` / :mod:`~trajectory_platform.gym.library`: task fixtures
  and the deterministic fixture library; :mod:`~trajectory_platform.gym.families` holds the
  repository templates.
- :mod:`~trajectory_platform.gym.tools`: versioned JSON-Schema tool families.
- :mod:`~trajectory_platform.gym.protocol`: the tool-call wire format (shared with training).
- :mod:`~trajectory_platform.gym.sandbox`: workspaces, diffs and the sealed oracle.
- :mod:`~trajectory_platform.gym.isolation`: the bubblewrap sandbox every untrusted process runs in.
- :mod:`~trajectory_platform.gym.janitor`: sweeps what crashed runs left behind.
- :mod:`~trajectory_platform.gym.runtime`: the enforced, logged tool runtime.
- :mod:`~trajectory_platform.gym.faults`: fault injection and structural reachability.
- :mod:`~trajectory_platform.gym.policies`: the ``Policy`` interface, scripted expert, noisy
  profiles and evaluation stubs.
- :mod:`~trajectory_platform.gym.rollout`: scripted rollouts with a ground-truth sidecar.
"""
