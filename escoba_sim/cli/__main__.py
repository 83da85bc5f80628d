"""``python -m escoba_sim.cli``: the same command line as the ``escoba-sim`` entry point."""

from . import main

main()
