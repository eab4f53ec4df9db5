"""Secrets of network-device configuration lines (Cisco IOS/NX-OS, Arista EOS, Juniper Junos and
their kin).

A router's or switch's configuration states a credential as a command: a keyword path, for some
an argument or two, an optional type digit (``0`` clear, ``7`` reversible, ``5``/``8``/``9``
hashed), then the value, with no ``=`` or ``:`` (``enable secret 0 V``, ``snmp-server community V
RO``, ``tacacs-server host H key 7 V``, `` ip ospf message-digest-key 1 md5 V``). The assignment
rules read a bare space after a credential word as prose, and ``community`` or ``key`` is no
credential name, so such lines kept their secret (a red team, 2026-12-07: 21 of 24 configs).

:data:`GRAMMAR` is the table of those commands, one pattern per command family, each anchored at a
line's start (after indentation: sub-mode lines are indented) and ending at the line's end or a
trailer the command allows (a Junos statement's ``;``, its ``set`` path before it: :data:`_SET`),
so prose that merely begins with the same words (``enable password
protection for ...``) does not match a whole line. A value of lower-case letters alone
(``public``, a dictionary word) counts only in a text that reads as a configuration
(:data:`_CONFIG_MARK`: ``hostname``, ``interface``, ``!`` lines); a template's placeholder
(``<hash>``, ``{{ var }}``, ``$VAR``) never does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.model import Finding

_T = r"(?:[05789] )?"
"""The optional type digit before a value."""
_V = r"(?P<value>[^\s\"']+|\"[^\"\n]+\")"
_V2 = r"(?P<value2>[^\s\"']+)"
_END = r"[^\S\n]*$"
_JEND = r";?[^\S\n]*$"
"""A Junos statement's end: its hierarchical form ends in ``;``."""
_SET = r"(?:set (?:[^\s\"]+ )*?)?"
"""A Junos ``set`` command's path before a statement (``set system login user ops authentication``):
the same statement as in the hierarchical form, one line."""
_COMMANDS = (
    rf"enable (?:secret|password)(?: level \d+)? {_T}{_V}{_END}",
    rf"username \S+(?: (?:privilege \d+|role \S+))* (?:secret|password) {_T}{_V}(?: role \S+)?{_END}",
    rf"snmp-server community {_V}(?: (?:view \S+|RO|RW|ro|rw|\d+|\S+))*{_END}",
    rf"snmp-server host \S+(?: (?:traps|informs))?(?: version (?:1|2c))? {_V}(?: [a-z][\w-]*)*{_END}",
    rf"snmp-server user \S+ \S+(?: remote \S+)? v3 auth (?:md5|sha\w*) {_V}"
    rf"(?: priv (?:des|3des|aes(?: \d+)?) {_V2})?{_END}",
    rf"(?:tacacs|radius)-server(?: host \S+(?: [a-z-]+ \d+)*)? key {_T}{_V}{_END}",
    rf"(?:tacacs|radius) server \S+\n(?:[^\S\n]+\S.*\n)*?[^\S\n]+key {_T}{_V}{_END}",
    rf"ip ospf authentication-key {_T}{_V}{_END}",
    rf"(?:ip ospf )?message-digest-key \d+ md5 {_T}{_V}{_END}",
    rf"(?:standby|vrrp|glbp) \d+ authentication(?: md5 key-string| text)? {_T}{_V}(?: timeout \d+)?{_END}",
    rf"ntp authentication-key \d+ md5 {_V}(?: \d)?{_END}",
    rf"crypto isakmp key {_T}{_V} (?:address|hostname) \S+.*?{_END}",
    rf"(?:ikev[12] )?pre-shared-key(?: (?:local|remote))?(?: address \S+)?(?: key)? {_T}{_V}{_END}",
    rf"ppp (?:chap|pap) (?:password|sent-username \S+ password) {_T}{_V}{_END}",
    rf"(?:isis password|domain-password|area-password) {_V}(?: level-[12])?{_END}",
    rf"wpa-psk (?:ascii|hex) {_T}{_V}{_END}",
    rf"key-string {_T}{_V}{_END}",
    rf"{_SET}(?:encrypted-password|plain-text-password-value|authentication-key|authentication-password"
    rf"|privacy-password|privacy-key|secret|pre-shared-key (?:ascii|hexadecimal)-text) {_V}{_JEND}",
    rf"{_SET}authentication md5 \d+ key {_V}{_JEND}",
    rf"{_SET}snmp community {_V}(?: (?:authorization|clients?|view|routing-instance) \S+)*(?: \{{)?{_JEND}",
    rf"community {_V}(?: \{{){_END}",
)
"""The commands, a space standing for any run of blanks (so a pattern writes none in a class)."""
GRAMMAR: tuple[re.Pattern[str], ...] = tuple(
    re.compile(r"(?m)^[ \t]*(?:no[ \t]+)?" + command.replace(" ", r"[ \t]+")) for command in _COMMANDS
)
"""One pattern per command family that states a secret (module docstring)."""
_HINTS = ("secret", "password", "snmp", "key", "auth", "psk")
"""Words one of the commands holds: a text without any is not read."""
_CONFIG_MARK = re.compile(
    r"(?m)^(?:hostname[ \t]+\S+|interface[ \t]+\S+|!|end|version[ \t]+\d[\d.]*)[ \t]*$"
    r"|^[ \t]*(?:set (?:system|interfaces|protocols|snmp|security|routing-options|policy-options) \S"
    r"|(?:system|interfaces|protocols|snmp) \{$|host-name \S+;$|version \S+;$)"
)
_PLACEHOLDER = re.compile(r"<[^>]*>|\{\{.*|.*\}\}|\$\{?[A-Za-z_]\w*\}?|%\w+%|\*+|x+|X+|\.+")
"""A template's or a document's stand-in for the value (``<hash>``, ``{{ var }}``, ``$VAR``)."""
_LOWER_WORD = re.compile(r"[a-z]+")


def find_device_secrets(text: str) -> Iterator[Finding]:
    """The secret of each configuration line of ``text`` that :data:`GRAMMAR` reads."""
    lower = text.lower()
    if not any(hint in lower for hint in _HINTS):
        return
    configured: bool | None = None
    for pattern in GRAMMAR:
        for match in pattern.finditer(text):
            for group in ("value", "value2"):
                value = match.groupdict().get(group)
                if not value or _PLACEHOLDER.fullmatch(value.strip('"')):
                    continue
                if _LOWER_WORD.fullmatch(value):
                    configured = bool(_CONFIG_MARK.search(text)) if configured is None else configured
                    if not configured:
                        continue
                start = match.start(group) + (1 if value.startswith('"') else 0)
                bare = value.strip('"')
                yield Finding("PASSWORD", start, start + len(bare), bare, "device_config")
