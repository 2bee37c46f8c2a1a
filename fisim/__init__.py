"""fisim: a Monte Carlo difficulty analyzer for the cooperative board game Forbidden Island."""
__version__ = "0.1.0"
