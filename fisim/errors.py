"""Errors of the rules and the engine, in a module of their own so the rules, the engine and the
layers above them (simulation, sweep, command line) can all import them without importing each
other."""


class ConfigError(ValueError):
    """A setting fisim cannot play; the message names the problem and the valid choices."""


class EngineError(RuntimeError):
    """A run stopped by its policy (an illegal choice, a decide() that raises or does not
    compile); the message names the policy, and the command line prints it as one line."""
