"""Running the fisim command line: the installed `fisim` command in a process of its own, or its
entry point inside the test's process (for tests that read what it prints); what a terminal showed."""
import os
import subprocess
import sys
from pathlib import Path

from fisim.cli import main

FISIM = Path(sys.executable).parent / "fisim"


def run(*args, cwd=None, timeout=600):
    """The finished process of `fisim ARGS` (its stdout and stderr as text)."""
    return subprocess.run([str(FISIM), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def as_from_a_terminal(*argv):
    """The command line that runs `argv` as from a terminal: with Ctrl-C's default action, whatever
    this test run inherited (a job started in the background by a script ignores SIGINT, and so
    would every process it starts: bash could not even trap it)."""
    return [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            "os.execvp(sys.argv[1], sys.argv[1:])", *map(str, argv)]


def in_process(capsys, *args):
    """(exit status, stdout, stderr) of `fisim ARGS` run by fisim.cli.main in this process."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def shown_on(terminal):
    """What a pseudo-terminal showed (`terminal`: pty.openpty()'s first end, closed here), read
    until every process writing to its other end has closed it."""
    shown = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:          # the terminal closed: everything has been read
            break
        if not chunk:
            break
        shown += chunk
    os.close(terminal)
    return shown.decode(errors="replace")
