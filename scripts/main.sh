#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the main job: compile seed 001's GEMM and a
# 4096^3 GEMM for gfx942, gfx1100 and gfx1201, simulate scaled-down versions and
# print a summary table. Outputs go to ./out (or the directory given).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC1091
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
python -m accel.tools.main_job "${1:-out}"
