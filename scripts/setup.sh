#!/usr/bin/env bash
# Set up accel on a fresh machine that has Python 3.11 and pip: a virtualenv in
# .venv with accel installed editable and the test tools. Idempotent and quick
# when already done. Source it (it activates .venv) or run it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
if [ ! -x "$ROOT/.venv/bin/python" ]; then
    "$PY" -m venv "$ROOT/.venv"
fi
# shellcheck disable=SC1091
source "$ROOT/.venv/bin/activate"
STAMP="$ROOT/.venv/.accel-installed"
if [ ! -f "$STAMP" ] || [ "$ROOT/pyproject.toml" -nt "$STAMP" ]; then
    python -m pip install --quiet --disable-pip-version-check --upgrade pip
    python -m pip install --quiet --disable-pip-version-check -e "$ROOT[test]"
    touch "$STAMP"
fi
