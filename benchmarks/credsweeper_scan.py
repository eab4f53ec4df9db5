"""CredSweeper scan server for ``benchmarks/redact.py --credsweeper``; runs inside CredSweeper's venv.

CredSweeper (onnxruntime, pandas, lxml, ...) is kept out of the project's environment, so the
benchmark starts this script with the interpreter of a venv that has ``credsweeper`` installed and
talks to it over stdin/stdout, one JSON object per line:

request  ``{"paths": [...], "ml_threshold": "medium" | 0 | float}``
reply    ``{"seconds": float, "version": str, "findings": [{"path", "line", "value", "rule"}, ...]}``

``seconds`` is the wall time of ``CredSweeper.run`` alone (rules already compiled, ML model already
loaded by an untimed warm-up scan), so it compares with the in-process timing of the other tools.
API used, as documented in CredSweeper's ``app.py``: ``CredSweeper(ml_threshold=...)`` (``0``
disables ML validation), ``run(FilesProvider(paths))``, ``credential_manager.get_credentials()``.
"""

from __future__ import annotations

import json
import logging
import sys
import time


def main() -> int:
    logging.disable(logging.CRITICAL)
    import credsweeper
    from credsweeper import CredSweeper
    from credsweeper.file_handler.files_provider import FilesProvider

    scanners: dict[str, CredSweeper] = {}
    for raw in sys.stdin:
        request = json.loads(raw)
        threshold = request.get("ml_threshold", "medium")
        key = str(threshold)
        if key not in scanners:
            scanners[key] = CredSweeper(ml_threshold=threshold)
            if request["paths"]:  # warm-up: loads the ML model and the lazily built parts
                scanners[key].run(FilesProvider(request["paths"][:1]))
        scanner = scanners[key]
        scanner.credential_manager.clear_credentials()
        start = time.perf_counter()
        scanner.run(FilesProvider(request["paths"]))
        seconds = time.perf_counter() - start
        findings = [
            {"path": line.path, "line": line.line_num, "value": line.value, "rule": candidate.rule_name}
            for candidate in scanner.credential_manager.get_credentials()
            for line in candidate.line_data_list
            if line.value
        ]
        reply = {"seconds": seconds, "version": credsweeper.__version__, "findings": findings}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
