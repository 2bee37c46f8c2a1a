"""The project's scripts (scripts/NAME.py), loaded as modules so that a test calls their functions."""
import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent.parent / "scripts"


def script(name):
    """scripts/<name>.py, loaded afresh as the module `name`."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
