"""A credential in a Lisp association list: ``("password" . "X")``, ``(password . "X")``.

Emacs configurations (``auth-sources``, ``smtpmail``, ``gnus``, ``request`` headers), Common Lisp
and Scheme keep settings in alists of dotted pairs: the key, a space, a dot, a space, the value.
No ``name <op> value`` rule reads `` . `` as an operator, so the value stayed (session 44, round
G). The same three characters are PHP's and Perl's join operator (``$url = "password" . $x;``,
``hash("password" . $salt)``): a pair counts only where the text shows Lisp (a list quoted with
``'(``, or a form that opens with a Lisp operator: ``(setq``, ``(defvar``, ``(push``, ...) and the
pair's ``(`` opens a list, not a call (no name stands glued before it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.alternations import literal_first
from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding

_LISP = re.compile(
    r"(?:^|[\s(])'\(|\((?:setq(?:-default|-local)?|setf|defvar|defcustom|defconst|defparameter|let\*?"
    r"|push|add-to-list|list|cons|quote|assoc|alist-get|use-package|define|setenv)[\s)]"
)
"""What only Lisp writes: a quoted list, or a form opened by a Lisp operator."""
_PAIR = re.compile(
    literal_first(r"(?<![\w$\])])", "(")
    + r"[ \t]*(?P<name>\"[^\"\n]{1,64}\"|:?[A-Za-z][\w-]{0,63})[ \t]+\.[ \t]+"
    r"(?P<value>\"(?:[^\"\\\n]|\\.){1,512}\")[ \t]*\)"
)
"""A dotted pair whose value is a string, its ``(`` opening a list (nothing glued before it)."""


def find_lisp_pair_values(text: str) -> Iterator[Finding]:
    """The value of every dotted pair a credential's name keys, in a text that shows Lisp (module
    docstring)."""
    if " . " not in text or _LISP.search(text) is None:
        return
    for pair in _PAIR.finditer(text):
        name_class = credential_class(pair.group("name").strip('"').lstrip(":"))
        if name_class is None:
            continue
        start, end = pair.start("value") + 1, pair.end("value") - 1
        value = text[start:end]
        if acceptable_value(value, True, name_class, '"'):
            yield Finding(
                "PASSWORD" if name_class == "password" else "SECRET", start, end, value, "lisp_pair"
            )
