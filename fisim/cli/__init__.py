"""The `fisim` command line: one module per command (fisim/cli/<command>.py), the options they share
(fisim/cli/options.py), and here the group and its entry point, which turns every error fisim
explains into one line and an exit status. Heavy modules (the engine, pandas) are imported inside
commands so that `--help` and argument errors stay fast; results go to stdout or to a file
written whole. docs/cli.md is the reference.
"""
import logging
import os
import sys
import threading
import time

import click

from fisim.cli import compare, design, ladder, layouts, policies, replay, report, simulate, sweep, tune
from fisim.cli.options import Stopped
from fisim.errors import FisimError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fisim")
def cli():
    """fisim: how hard is Forbidden Island? Monte Carlo answers with confidence intervals."""
    notices = logging.getLogger("fisim")
    if sys.stderr.isatty() and not any(isinstance(h, _Notices) for h in notices.handlers):
        notices.addHandler(_Notices())
    notices.setLevel(logging.INFO)


class _Notices(logging.Handler):
    """The library's INFO messages (a first run's compile) as `fisim: ...` lines on stderr, when
    it is a terminal (like the progress bars: output piped to a file or a program stays as it
    was). A compile (records with `compiling` set) is one line whose elapsed time ticks until the
    compile ends."""

    def __init__(self):
        super().__init__()
        self._ticking = None

    def emit(self, record):
        compiling = getattr(record, "compiling", None)
        if compiling is None:
            click.echo(f"fisim: {record.getMessage()}", err=True)
        elif compiling:
            stop = threading.Event()
            ticker = threading.Thread(target=self._tick, args=(record.getMessage(), time.monotonic(), stop),
                                      daemon=True)
            ticker.start()
            self._ticking = stop, ticker
        else:
            if self._ticking:
                self._ticking[0].set()
                self._ticking[1].join()
                self._ticking = None
            click.echo(f"\r\033[Kfisim: {record.getMessage()}", err=True)

    @staticmethod
    def _tick(message, start, stop):
        while not stop.is_set():
            elapsed = int(time.monotonic() - start)
            click.echo(f"\r\033[Kfisim: {message} {elapsed // 60}:{elapsed % 60:02d}", err=True, nl=False)
            stop.wait(1)


for command in (simulate.simulate, replay.replay, sweep.sweep, report.report, compare.compare, ladder.ladder,
                tune.tune, design.design, layouts.layouts, policies.policies):
    cli.add_command(command)


def main(argv=None):
    """Entry point: an error fisim explains (fisim.errors.FisimError) ends in one line on stderr
    and its exit status, as do click's own usage errors; a file that cannot be written, in one
    line and exit status 1; Ctrl-C, in one line saying what is kept (fisim.cli.options.on_interrupt)
    and exit status 130."""
    try:
        cli.main(args=argv, prog_name="fisim", standalone_mode=False)
    except click.UsageError as exc:
        where = f"fisim {exc.ctx.command.name}" if exc.ctx and exc.ctx.command.name != "cli" else "fisim"
        click.echo(f"{where}: error: {exc.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"fisim: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:     # click turns a KeyboardInterrupt into Abort
        stopped = exc if isinstance(exc, Stopped) else exc.__cause__
        said = stopped.args[0] if isinstance(stopped, Stopped) else Stopped.NOTHING_KEPT
        click.echo(f"fisim: interrupted; {said}", err=True)
        sys.exit(130)
    except FisimError as exc:
        click.echo(f"fisim: error: {exc}", err=True)
        sys.exit(exc.exit_status)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        click.echo(f"fisim: error: cannot write{where}: {exc.strerror or exc}", err=True)
        sys.exit(1)


def program():
    """The `fisim` program: main, which on Ctrl-C leaves at once, whatever is still in flight on
    other threads (a block of games, a compile: fisim.engine.in_workers) — waiting for it could
    take minutes, and nothing of it is kept."""
    try:
        main()
    except SystemExit as exc:
        if exc.code != 130:
            raise
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
