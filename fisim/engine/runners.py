"""Compiled runners: a policy's compiled entry with the engine's entry points, and a first run's
compile, its units compiled at the same time in this process and child processes.

A unit is the engine's entry point used (run_games for bulk play, record_game for a transcript)
or one policy's entry (with the entries of the policies its compiled code plays: PLAYS). Each is
compiled by Numba into the cache directory (fisim.engine.generated); a marker file beside its
generated module says it is there. The engine and a policy are separate compile units, so a first
run compiles the engine here while a child compiles the policy, and two cores take the time of
the larger; this process then loads the policy from the cache. A unit a child could not compile
(a policy that does not compile) is compiled where it is used, and its error reported there.
"""
import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from numba import config, types

import policies
from fisim.engine import generated
from fisim.errors import EngineError
from fisim.jit.policy_call import ENTRY_TYPES, PLAY_OUT, PLAY_OUT_TYPES, export, python_address
from fisim.rules.state import P_SIZE, R_SIZE, SEEN_DECKS

log = logging.getLogger("fisim.engine")     # the command line shows its INFO messages on stderr
_runners = {}
_play_out = None     # the address exported_play_out registered
_preparing = threading.Lock()


class Runner:
    """A policy's compiled entry with the engine's entry points, which it calls as the engine's
    without their `policy` argument (the entry's address)."""

    def __init__(self, policy):
        self.policy = policy        # a policies.Policy
        self.engine = generated.engine_module()
        sees = policies.sees_decks(policy)      # (in the file's name: the file compiles what it is handed)
        self.decide = generated.policy_module(policy, sees, SEEN_DECKS if sees else P_SIZE)
        self._address = None

    @property
    def address(self):
        """Where the policy's entry is compiled (compiling it, or loading it from the cache, on
        first use), after the entries of the policies its code plays (Policy.plays), and the
        engine's play_out they play on with, are exported. A decide that does not return an int is
        refused here, before it plays (EngineError)."""
        if self._address is None:
            if self.policy.plays:
                exported_play_out()
            for played in self.policy.plays:
                exported(played)
            entry = self.decide.entry
            if config.DISABLE_JIT:
                self._address = np.int64(python_address(entry))
            else:
                result = _compiled(entry, ENTRY_TYPES)
                returned = result.signature.return_type
                if returned != types.int64:     # (policy_call.chosen made any integer int64)
                    raise EngineError(f"policy {self.policy.NAME}: decide() must return an int, the index of "
                                      f"the option chosen, on every path; it returns {returned}")
                self._address = _pointer(result)
        return self._address

    def marker(self, entry=None):
        """The file that says the engine's `entry` (None: the policy's entry) is compiled and cached."""
        module = self.decide if entry is None else self.engine
        return Path(module.__file__).with_suffix(f".{entry}.compiled" if entry else ".compiled")

    def run_games(self, geometry, cfg, policy_arg, master_seed, first_game, repeat, lo, hi, out):
        self.engine.run_games(geometry, cfg, policy_arg, self.address, master_seed, first_game, repeat, lo, hi, out)

    def record_game(self, g, rng, master_seed, game, repeat, out):
        self.engine.record_game(g, rng, self.address, master_seed, game, repeat, out)

    def run_phase(self, g, rng, phase, arg):
        self.engine.run_phase(g, rng, self.address, phase, arg)


def runner(policy):
    """The compiled runner for a policy (a policies.Policy): one per policy's code, whatever its
    parameter (search:16 and search:64 share one)."""
    key = (policy.code_name, generated.source_key(policy))
    if key not in _runners:
        _runners[key] = Runner(policy)
    return _runners[key]


def exported(policy):
    """Register the policy's compiled entry as a symbol of this process, policy.symbol:
    compiled code of another policy takes its address with policy_call.symbol_address and plays
    games on with it through the engine's play_out (search plays expert)."""
    name = policy.symbol
    export(name, runner(policy).address)
    return name


def exported_play_out():
    """Register the engine's play_out as the symbol PLAY_OUT, once in a process (compiling it, or
    loading it from the cache): a search's compiled code calls it there (policy_call.call_play_out),
    so no policy imports the engine."""
    global _play_out
    if _play_out is None:
        play_out = generated.engine_module().play_out
        _play_out = python_address(play_out) if config.DISABLE_JIT else _pointer(_compiled(play_out, PLAY_OUT_TYPES))
        export(PLAY_OUT, _play_out)


def _compiled(dispatcher, signature):
    """The compile result of a Numba dispatcher for argument types `signature` (compiling it, or
    loading it from the cache, the first time)."""
    dispatcher.compile(signature)
    return dispatcher.overloads[signature]


def _pointer(result):
    """Where a compile result's function is in this process, for a call at its address."""
    return np.int64(result.library.get_pointer_to_function(result.fndesc.llvm_func_name))


def policy_arg(policy):
    """The parameter a policy was named with (pub's P_POLICY_ARG), 0 for a policy without one."""
    return policy.ARG


def bulk_arguments(layout, config_, policy, master_seed, first_game, repeat):
    """The arguments of run_games before the address, typed as the compiled entry takes them."""
    return (layout.geometry, config_.to_array(), np.int64(policy_arg(policy)), np.uint64(master_seed),
            np.int64(first_game), np.int64(repeat))


@contextlib.contextmanager
def first_use(run, entry, policy):
    """Say (as an INFO log message) what is compiled here, the first time an engine entry point or
    a policy's entry is used with this cache (when `prepare` did not compile it); mark both
    compiled."""
    markers = (run.marker(entry), run.marker())
    if not markers[0].exists():
        log.info("compiling the engine for policy %s (first run only)...", policy.NAME)
    elif not markers[1].exists():
        log.info("compiling policy %s (its first run only)...", policy.NAME)
    yield
    for marker in markers:
        marker.touch()


def prepare(policy_list, entries="run_games"):
    """Compile into the cache what playing the engine's entry point `entries` (a name, or several)
    with these policies needs and it lacks: the first unit (an engine's entry, if missing) on a
    thread of this process, each other one in a child process at the same time, while the calling
    thread waits: Ctrl-C there stops the compile at once (the children are killed, what they
    finished is cached) with a KeyboardInterrupt. Logged as INFO messages with `compiling` set
    (True at the start, False at the end), which the command line shows as one line that ticks."""
    with _preparing:
        runs = list({id(run): run for run in map(runner, policy_list)}.values())
        units = _missing(runs, (entries,) if isinstance(entries, str) else entries)
        if not units or config.DISABLE_JIT:
            return
        names = sorted({step.policy.code_name for unit in units for step in unit if isinstance(step, Runner)})
        what = " and ".join((["the engine"] if any(isinstance(unit[0], str) for unit in units) else [])
                            + ([f"polic{'ies' if len(names) > 1 else 'y'} {', '.join(names)}"] if names else []))
        log.info("compiling %s (first run only)", what, extra={"compiling": True})
        start = time.monotonic()
        apart = [unit for unit in units[1:] if None not in map(_argument, unit)]
        children = []
        try:
            for unit in apart:
                children.append(_child(unit))

            def compile_here():     # not in the waiting thread: the compiler's callbacks swallow a KeyboardInterrupt
                for unit in units:
                    if unit not in apart:
                        _compile_here(unit)

            here = threading.Thread(target=compile_here, name="fisim-compile", daemon=True)
            here.start()
            here.join()
            for child in children:
                child.wait()
        except KeyboardInterrupt:
            for child in children:
                child.kill()
                child.wait()
            log.info("compile of %s stopped after %.0f s (what finished is cached)", what, time.monotonic() - start,
                     extra={"compiling": False})
            raise
        log.info("compiled %s in %.0f s", what, time.monotonic() - start, extra={"compiling": False})


def _missing(runs, entries):
    """The units not in the cache, each a tuple of steps compiled in order: one of the engine's
    entry points (its name), or a policy's group (the runners of the policies it plays, then its own)."""
    units = [(entry,) for entry in entries if not runs[0].marker(entry).exists()]
    groups = [tuple(runner(p) for p in run.policy.plays) + (run,) for run in runs]
    groups = [g for g in groups if not all(r.marker().exists() for r in g)]
    # a group within another (expert, and search, which plays expert) is compiled with it
    return units + [g for g in dict.fromkeys(groups) if not any(set(g) < set(other) for other in groups)]


def _compile_here(unit):
    """Compile a unit in this process; what does not compile is left to where it is used, which
    reports the error."""
    try:
        for step in unit:
            if isinstance(step, Runner):
                _compile_entry(step)
            else:
                compile_engine_entry(step)
    except Exception:
        pass


def _argument(step):
    """A step as an argument of this module's command line (None: a policy another process cannot
    resolve): `engine:ENTRY`, or `policy:` and the policy as a cell names it (policies.Policy.given)."""
    if not isinstance(step, Runner):
        return f"engine:{step}"
    return f"policy:{step.policy.given}" if step.policy.given else None


def _child(unit):
    """A child process compiling `unit` into the cache (this package on its path)."""
    root = str(Path(__file__).parent.parent.parent)     # the folder that holds the package
    path = os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return subprocess.Popen([sys.executable, "-m", "fisim.engine.runners", *map(_argument, unit)],
                            env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def compile_engine_entry(entry):
    """Compile (or load) the engine's entry point `entry` with a call that plays nothing (or, for
    record_game, one game of the random policy), and mark it compiled."""
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    from fisim.rules.rng import N_STREAMS
    from fisim.rules.state import new_game_array
    layout, settings = builtin_layout("standard"), GameConfig()
    run = runner(policies.load_policy("random"))
    rng = np.zeros(N_STREAMS, np.uint64)
    g = new_game_array(layout.geometry, settings.to_array(), 1 << 16)
    if entry == "run_games":        # no games, the address unused
        geometry, cfg, arg, seed, first_game, repeat = bulk_arguments(layout, settings, run.policy, 0, 0, 0)
        run.engine.run_games(geometry, cfg, arg, np.int64(0), seed, first_game, repeat, np.int64(0), np.int64(0),
                             np.zeros((0, R_SIZE), np.int32))
    elif entry == "trace_games":     # no games
        geometry, cfg, arg, seed, first_game, repeat = bulk_arguments(layout, settings, run.policy, 0, 0, 0)
        run.engine.trace_games(geometry, cfg, arg, np.int64(0), seed, first_game, repeat, np.int64(0), np.int64(0),
                               np.int64(0), np.zeros((0, 2), np.int32), np.zeros((0, R_SIZE), np.int32))
    elif entry == "record_game":
        run.record_game(g, rng, np.uint64(0), np.int64(0), np.int64(0), np.zeros(R_SIZE, np.int32))
    elif entry == "play_out":
        exported_play_out()
    elif entry == "run_phase":
        run.engine.run_phase(g, rng, np.int64(0), np.int64(-1), np.int64(0))
    else:
        raise ValueError(f"no engine entry point {entry!r}")
    run.marker(entry).touch()


def _compile_entry(run):
    """Compile (or load) a runner's policy entry, and mark it."""
    run.address
    run.marker().touch()


def main(steps):
    for step in steps:
        kind, _, name = step.partition(":")
        compile_engine_entry(name) if kind == "engine" else _compile_entry(runner(policies.load_policy(name)))


if __name__ == "__main__":
    main(sys.argv[1:])
