"""The game itself: cards, the deal stream, rulesets, the reference engine and the result columns.

The lowest layer of the game: of escoba_sim it imports only the layers below it, ``i18n`` (the words a
person reads) and ``files`` (reading a ruleset's TOML file), never anything above.
"""
