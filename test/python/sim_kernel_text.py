"""Hand-written Kernel IR for the simulator's tests: one kernel @k in gpu.module @m."""

from accel.sim import run_kernel_text


def kernel(args: str, body: str, attributions: str = "", prelude: str = "") -> str:
    """A module whose kernel defines %t (thread id), %c0, %c1, then `prelude` and `body`."""
    wg = f" workgroup({attributions})" if attributions else ""
    return f"""module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @k({args}){wg} kernel {{
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
{prelude}{body}
      gpu.return
    }}
  }}
}}
"""


def run(text, args, block=(1, 1, 1), grid=(1, 1, 1), **kw):
    return run_kernel_text(text, "k", grid=grid, block=block, args=args, **kw)
