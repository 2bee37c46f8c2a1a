"""The compile cache's home: fisim writes small modules there for Numba to compile and cache
(fisim.engine.generated: the engine and each policy's entry; policies/search.py: a search over another
policy), each named with a hash of every source it compiles.

Numba's cache (cache=True) notices a change in the file of the function it caches, not in the files
that function calls into; so only these written modules are cached, and a change anywhere gives a
new name, compiled afresh (DESIGN: "key the cache on the package version").
"""
import importlib.util
import os
import sys
from pathlib import Path

_loaded = {}


def cache_dir():
    """Where the compiled engine and policies live: $FISIM_CACHE_DIR, else the user's cache directory."""
    base = os.environ.get("FISIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fisim")
    return Path(base)


def safe(stem):
    return "".join(ch if ch.isalnum() else "_" for ch in stem)


def cached_module(stem, text):
    """The module `stem` of the cache directory (loaded once per process), written with `text`
    if it is not there yet."""
    name = safe(stem)
    if name in _loaded:
        return _loaded[name]
    directory = cache_dir() / "runners"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        try:        # never over another process's copy: Numba's cache is keyed on the file's mtime
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:     # a file system without hard links
            os.replace(tmp, path)
        tmp.unlink(missing_ok=True)
    spec = importlib.util.spec_from_file_location(f"fisim_runner_{name}", path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded       # Numba's cache finds a function's module by name
    spec.loader.exec_module(loaded)
    _loaded[name] = loaded
    return loaded
