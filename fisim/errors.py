"""The errors fisim explains in one line, in a module of their own so that every layer (the rules,
the engine, the store, the sweep, the command line) can raise them without importing the others.

The command line's entry (fisim.cli.main) prints any FisimError as `fisim: error: MESSAGE` and
exits with its `exit_status`: 2 for a bad input, 1 for a run that failed for another reason. A
layout's LayoutError (fisim.rules.layouts) and a policy's PolicyError (policies) are ConfigErrors.
"""


class FisimError(Exception):
    """An error whose message says, in one line, what went wrong (for a bad input, the valid
    choices too); `exit_status` is the command line's."""

    exit_status = 2


class ConfigError(FisimError, ValueError):
    """A setting or option fisim cannot use; the message names the problem and the valid choices."""


class EngineError(FisimError, RuntimeError):
    """A run stopped by its policy (an illegal choice, a decide() that raises or does not
    compile); the message names the policy."""


class StoreError(FisimError, ValueError):
    """A results directory fisim cannot use; the message says why."""


class PolicyChanged(StoreError):
    """A store whose games were played by a policy that has changed since (a new version, an edited
    policy file or data file). A command that can play those cells again says how (with_option)."""

    def with_option(self, option):
        return StoreError(f"{self}, or {option} to delete those games and play their cells again")


class BackendError(FisimError, RuntimeError):
    """The Dask cluster could not be reached, or failed during the sweep: not the input's fault."""

    exit_status = 1
