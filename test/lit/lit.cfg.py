# lit configuration for accel's FileCheck tests.  Run: lit -sv test/lit
import atexit
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "accel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

# Tools run from the same interpreter that runs lit, so a venv or an editable
# install both work without PATH set-up.
py = sys.executable
config.substitutions.append(("%python", py))
config.substitutions.append(("accel-opt", f"{py} -m accel.tools.accel_opt"))
config.substitutions.append(("accel-compile", f"{py} -m accel.tools.accel_compile"))
config.substitutions.append(("accel-run", f"{py} -m accel.tools.accel_run"))
config.substitutions.append(("accel-select", f"{py} -m accel.tools.accel_select"))
filecheck = shutil.which("filecheck", path=os.path.dirname(py)) or shutil.which("filecheck")
config.substitutions.append(("FileCheck", filecheck or "filecheck"))

# Keep the user's cache dir (the ld.lld shim lives there) and nothing else that
# could change results.
for var in ("HOME", "XDG_CACHE_HOME", "ROCM_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# accel-compile's kernel cache: one of the run's own, never the user's.
_kernel_cache = tempfile.mkdtemp(prefix="accel-lit-cache-")
atexit.register(shutil.rmtree, _kernel_cache, ignore_errors=True)
config.environment["ACCEL_CACHE_DIR"] = _kernel_cache
