"""Removing what a deletion leaves on disk, the one way every deletion path does it (uploads, results, a job's
scratch, model versions): a file or a whole tree, only inside an allowed root (MEDIA_ROOT, MODEL_DIR,
JOB_SCRATCH_DIR), then the directories that this left empty, up to that root and never the root itself or
anything above it.

A symbolic link is removed as a link: what it points to is never followed, neither when it is the path itself,
nor inside the tree, nor as a directory on the way to the path (such a path counts as outside the root)."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from django.core.files.storage import Storage


class OutsideRoot(ValueError):
    """A path that is the root itself, or that lies (once its directories are resolved) outside the root."""


def _inside(path: Path | str, root: Path | str) -> tuple[Path, Path]:
    """``path`` with its directories resolved (its last part kept as it is, so a link stays a link) and the
    resolved ``root``; raises OutsideRoot unless the path lies strictly below the root."""
    path, root = Path(path), Path(root).resolve()
    if path.name in ("", ".", ".."):
        raise OutsideRoot(f"{path} names no file or directory of its own under {root}")
    located = path.parent.resolve() / path.name
    if located == root or root not in located.parents:
        raise OutsideRoot(f"{path} is not inside {root}")
    return located, root


def remove(path: Path | str, *, root: Path | str) -> bool:
    """Remove ``path`` (a file, a link or a directory tree) when it lies inside ``root``, then the directories
    above it that are left empty, up to ``root`` (excluded). Returns whether there was anything to remove.
    Raises OutsideRoot, removing nothing, for a path outside the root."""
    located, root = _inside(path, root)
    if located.is_symlink() or (located.exists() and not located.is_dir()):
        located.unlink(missing_ok=True)
        existed = True
    elif located.is_dir():
        _remove_tree(located)
        existed = True
    else:
        existed = False
    _remove_empty_directories(located.parent, root)
    return existed


def remove_empty_parents(path: Path | str, *, root: Path | str) -> None:
    """Remove the directory above ``path`` and its own parents, while each is empty, up to ``root``
    (excluded): after a file was deleted by other means (a storage backend)."""
    located, root = _inside(path, root)
    _remove_empty_directories(located.parent, root)


def remove_stored(storage: Storage, name: str) -> None:
    """Remove what a Django storage holds under ``name`` (a file, or a directory such as an upload's own), then
    the directories this left empty up to the storage's root; on a storage without local paths (remote), the
    file alone, through the storage."""
    try:
        path, root = Path(storage.path(name)), Path(storage.path(""))
    except NotImplementedError:
        storage.delete(name)
        return
    remove(path, root=root)


def _remove_tree(directory: Path) -> None:
    # rmtree unlinks the links inside, never follows them. Another process removing the same tree (two workers'
    # sweeps) makes it stop at an entry that vanished: start again on what is left.
    for attempt in range(3):
        try:
            shutil.rmtree(directory)
            return
        except FileNotFoundError:
            if not directory.exists():
                return
            if attempt == 2:
                raise


def _remove_empty_directories(directory: Path, root: Path) -> None:
    while directory != root and root in directory.parents:
        try:
            os.rmdir(directory)  # only an empty directory; another process may have just put a file in it
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                return
            raise
        directory = directory.parent
