"""escoba-sim: a simulator and strategy-analysis tool for Escoba del 15."""

__version__ = "0.1.0"
