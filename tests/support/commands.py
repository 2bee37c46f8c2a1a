"""Running the fisim command line inside the test's process (for tests that read what it prints)."""
from fisim.cli import main


def in_process(capsys, *args):
    """(exit status, stdout, stderr) of `fisim ARGS` run by fisim.cli.main in this process."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
