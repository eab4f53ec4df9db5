"""What a workspace entry is, for telling whether anything changed it (replay's measure of the
writes each replayed call made, ``curation/verify/replay.py``).

Standard library only: the host imports it (``gym/shell.py``, shell mode, between two sandboxed
commands) and the replay driver runs it inside the sandbox, shipped beside it (tools mode, whose
calls all run in one driver process): one rule for both.
"""

import hashlib
import os
import stat
from collections.abc import Callable

Fingerprint = tuple[str, str, int, int]
"""An entry's kind (``file``, ``link``, ``other``), the sha256 of its bytes (a link's target), its
hard-link count and its permission bits. The link count counts since a second name made for a file
(``ln tests/test_x.py alias``) writes it through a name nobody watches; the permission bits since a
test made unreadable fails as surely as one rewritten."""


def fingerprints(root: str, watched: Callable[[str], bool]) -> dict[str, Fingerprint]:
    """Each entry under ``root`` whose ``/``-separated relative path ``watched`` selects, by
    :data:`Fingerprint`, never following a link (an entry that cannot be read is ``other``)."""
    found: dict[str, Fingerprint] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if watched(rel):
                found[rel] = _fingerprint(path)
    return found


def _fingerprint(path: str) -> Fingerprint:
    try:
        info = os.lstat(path)
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISLNK(info.st_mode):
            return ("link", hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest(), 1, 0)
        if not stat.S_ISREG(info.st_mode):
            return ("other", "", info.st_nlink, mode)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            return ("file", hashlib.sha256(fh.read()).hexdigest(), info.st_nlink, mode)
    except OSError:
        return ("other", "", 0, 0)
