"""trajectory_platform: agent logs to a released policy, with proof."""
