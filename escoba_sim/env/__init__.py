"""Escoba for reinforcement learning (needs the ``rl`` extra; docs/ecosystem.md).

- ``escoba_sim.env.escoba_v0``: a PettingZoo AEC environment, one hand per
  episode, every seat an agent (``escoba_v0.env(rules="tradicional")``).
- ``escoba_sim.env.vector.EscobaVectorEnv``: a Gymnasium vector environment,
  N hands in lock-step in the compiled core, one learner seat against a
  built-in strategy.

Both use the action encoding and observation planes of ``escoba_sim.env.actions``.
"""
