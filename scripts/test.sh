#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run every test: the lit/FileCheck suite, then pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC1091
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
echo "== lit (test/lit) =="
lit -sv --order=lexical test/lit
echo "== pytest (test/python) =="
python -m pytest -q test/python "$@"
