"""Errors the engine raises, in a module of their own so the engine and the layers above it
(simulation, sweep, command line) can all import them without importing each other."""


class EngineError(RuntimeError):
    """A run stopped by its policy (an illegal choice, a decide() that raises or does not
    compile); the message names the policy, and the command line prints it as one line."""
