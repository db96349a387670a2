"""The README's main job runs, writes its outputs and reports every kernel as PASS."""

import json
import subprocess
import sys


def test_main_job(tmp_path):
    out = subprocess.run([sys.executable, "-m", "accel.tools.main_job", str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()[2:8]]
    assert [(r[0], r[1]) for r in rows] == [(a, j) for a in ("gfx942", "gfx1100", "gfx1201")
                                           for j in ("seed001", "4096^3")]
    assert all(r[-1] == "PASS" for r in rows)
    for arch in ("gfx942", "gfx1100", "gfx1201"):
        meta = json.loads((tmp_path / arch / "seed001.json").read_text())
        kernel = meta["kernels"][0]
        # Seed 001's tile: v3:32,32,8,16,16,8,... is mPB=nPB=32, kPB=8*8, both operands accel.
        assert kernel["perf_config"].startswith("v4:32,32,8,")
        assert [a["layout"] for a in kernel["args"]] == ["accel", "accel", "row"]
        assert kernel["args"][0]["shape"] == [1, 4, 80, 8, 32, 8]
        assert (tmp_path / arch / kernel["code_object"]).read_bytes()[:4] == b"\x7fELF"
