"""The game itself: cards, the deal stream, rulesets, the reference engine and the result columns.

The bottom layer: it imports nothing else of escoba_sim.
"""
