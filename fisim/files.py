"""Files written whole or not at all."""
import os
from pathlib import Path


def atomic_write(path, write):
    """Call write(tmp) on a temporary file beside `path`, then rename it into place: a reader sees
    the old file, or the new one complete, never a half-written one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:          # name the file meant, not the temporary one
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    finally:
        if tmp.exists():
            tmp.unlink()
