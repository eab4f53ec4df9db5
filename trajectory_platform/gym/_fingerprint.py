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

Fingerprint = tuple[str, str, int, int, int, int]
"""An entry's kind (``file``, ``link``, ``other``), the sha256 of its bytes (a link's target), its
hard-link count, its permission bits, its inode number and its status-change time (``st_ctime_ns``).
The link count counts since a second name made for a file (``ln tests/test_x.py alias``) writes it
through a name nobody watches; the permission bits since a test made unreadable fails as surely as
one rewritten. The inode and the change time since a write undone before the next look (one shell
line that backs the test up, weakens it, runs it and puts it back) leaves the bytes as they were,
but not those: every write, rename over, ``chmod`` or new link sets the change time, and no command
of the agent's can set it back (``touch`` sets the other times only); a rename over the file gives
it another inode. Reading never changes either."""


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
        changed = (info.st_ino, info.st_ctime_ns)
        if stat.S_ISLNK(info.st_mode):
            return ("link", hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest(), 1, 0, *changed)
        if not stat.S_ISREG(info.st_mode):
            return ("other", "", info.st_nlink, mode, *changed)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            return ("file", hashlib.sha256(fh.read()).hexdigest(), info.st_nlink, mode, *changed)
    except OSError:
        return ("other", "", 0, 0, 0, 0)
