"""Files written whole or not at all."""
import os
from pathlib import Path

OPEN_FILES = Path("/proc/self/fd")      # Linux: an open file by its descriptor, even one with no name


def atomic_write(path, write):
    """Call write(tmp) on a temporary file beside `path`, then rename it into place: a reader sees
    the old file, or the new one complete, never a half-written one. Where the system allows, the
    file has no name until it is complete, so a process killed while writing it leaves nothing
    behind."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    anonymous = _anonymous_file(path.parent)
    try:
        if anonymous is None:
            write(tmp)
        else:
            write(OPEN_FILES / str(anonymous))
            _name(anonymous, tmp)
        os.replace(tmp, path)
    except OSError as exc:          # name the file meant, not the temporary one
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    finally:
        if anonymous is not None:
            os.close(anonymous)
        if tmp.exists():
            tmp.unlink()


def _anonymous_file(folder):
    """A descriptor of a new file in `folder` that has no name (Linux's O_TMPFILE), or None where
    the system or the file system does not make one."""
    if not hasattr(os, "O_TMPFILE") or not OPEN_FILES.is_dir():
        return None
    try:
        return os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o644)
    except OSError:
        return None


def _name(fd, path):
    """Give the file open as `fd` the name `path` (linkat through /proc, which os.link does only
    when handed a directory descriptor)."""
    files = os.open(OPEN_FILES, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(str(fd), path, src_dir_fd=files, follow_symlinks=True)
    finally:
        os.close(files)
