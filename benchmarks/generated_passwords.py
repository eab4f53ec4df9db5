"""How many generated passwords survive redaction, by the symbols they draw from and their length.

Password generators (``pwgen -sy``, password managers, ``secrets.choice`` over printable ASCII)
write tokens that no vendor format or label marks; only their randomness does. Each password is
written three ways an agent log shows one: alone on its line, after ``Generated:``, and as a JSON
string value. It survives when any eight consecutive characters of it are still in
``redact_text``'s output. Deterministic (seeded); no value is printed.

Usage: ``.venv/bin/python benchmarks/generated_passwords.py [--per-alphabet 60]``; the last stdout
line is a JSON object: survivors and totals per alphabet and length.
"""

from __future__ import annotations

import argparse
import json
import random
import string

from trajectory_platform.curation.redact import redact_text

SALT = b"generated-passwords"
ALPHABETS = {
    "letters_digits_14_symbols": string.ascii_letters + string.digits + "!%^+*&$#@~_-=?",
    "letters_digits_8_symbols": string.ascii_letters + string.digits + "!@#$%^&*",
    "all_printable": "".join(chr(code) for code in range(33, 127)),
}
LENGTHS = (16, 20, 24, 32, 40)


def contexts(password: str) -> tuple[str, ...]:
    return (f"{password}\n", f"Generated: {password}\n", json.dumps({"value": password}) + "\n")


def survives(password: str, text: str) -> bool:
    out, _ = redact_text(text, SALT)
    return any(password[i : i + 8] in out for i in range(len(password) - 7))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-alphabet", type=int, default=60, help="passwords drawn per alphabet")
    args = parser.parse_args()
    result: dict[str, dict[str, list[int]]] = {}
    for seed, (name, alphabet) in enumerate(ALPHABETS.items()):
        draw = random.Random(seed)
        counts = result.setdefault(name, {})
        for _ in range(args.per_alphabet):
            length = draw.choice(LENGTHS)
            password = "".join(draw.choice(alphabet) for _ in range(length))
            tally = counts.setdefault(str(length), [0, 0])
            for text in contexts(password):
                tally[0] += survives(password, text)
                tally[1] += 1
        total = [sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())]
        by_length = ", ".join(
            f"{length}: {s}/{n}" for length, (s, n) in sorted(counts.items(), key=lambda kv: int(kv[0]))
        )
        print(f"{name:<28} survived {total[0]:>4} of {total[1]:<4} ({by_length})")
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
