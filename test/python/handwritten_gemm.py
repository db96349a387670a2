"""A hand-written LDS-staged MFMA GEMM in Kernel IR, independent of accel's codegen.

The simulator's own GEMM test runs this, so a simulator bug cannot hide behind a
matching codegen bug: 64x64 tile per workgroup of 256 threads (4 waves of 64, a 2x2
arrangement of 32x32 v_mfma_f32_32x32x8_f16 tiles), K step 32 staged through LDS
(A row-major, B transposed so each lane's 4 K values are contiguous), raw buffer
loads, barriers around the LDS tiles. It lowers to gfx942 ISA with the kernel pipeline.
"""

TILE = 64
KT = 32
PAD = 8   # LDS row padding (f16 elements) so 32 lanes reading one column spread banks


def gemm_kernel(m: int, n: int, k: int) -> str:
    """Kernel IR for C[m,n] f32 = A[m,k] f16 @ B[k,n] f16; m, n multiples of 64,
    k a multiple of 32."""
    lda = KT + PAD
    a_t = f"memref<{m}x{k}xf16>"
    b_t = f"memref<{k}x{n}xf16>"
    c_t = f"memref<{m}x{n}xf32>"
    as_t = f"memref<{TILE}x{lda}xf16, #gpu.address_space<workgroup>>"
    lines = [
        "module attributes {gpu.container_module} {",
        "  gpu.module @gemm_module {",
        f"    gpu.func @gemm(%A: {a_t}, %B: {b_t}, %C: {c_t}) "
        f"workgroup(%As: {as_t}, %Bs: {as_t}) kernel "
        "attributes {known_block_size = array<i32: 256, 1, 1>} {",
        "      %t = gpu.thread_id x",
        "      %bx = gpu.block_id x",
        "      %by = gpu.block_id y",
    ]
    consts = set(range(8)) | {8 * kk for kk in range(KT // 8)} | {32, 64, KT, k}
    lines += [f"      %c{v} = arith.constant {v} : index" for v in sorted(consts)]
    lines += [
        "      %zero = arith.constant dense<0.0> : vector<16xf32>",
        # Wave and lane decomposition: wave w = t/64 -> (wr, wc) in a 2x2 grid.
        "      %w = arith.divui %t, %c64 : index",
        "      %l = arith.remui %t, %c64 : index",
        "      %wr = arith.divui %w, %c2 : index",
        "      %wc = arith.remui %w, %c2 : index",
        "      %l32 = arith.remui %l, %c32 : index",
        "      %lh = arith.divui %l, %c32 : index",
        "      %lk = arith.muli %lh, %c4 : index",
        "      %wr32 = arith.muli %wr, %c32 : index",
        "      %wc32 = arith.muli %wc, %c32 : index",
        "      %arow = arith.addi %wr32, %l32 : index",
        "      %bcol = arith.addi %wc32, %l32 : index",
        "      %row0 = arith.muli %by, %c64 : index",
        "      %col0 = arith.muli %bx, %c64 : index",
        # Global->LDS copy: A tile 64x32 as 256 x 8 f16 (t/4, 8*(t%4)); B tile 32x64
        # as 256 x 8 f16 (t/8, 8*(t%8)).
        "      %ar = arith.divui %t, %c4 : index",
        "      %ac4 = arith.remui %t, %c4 : index",
        "      %ac = arith.muli %ac4, %c8 : index",
        "      %br = arith.divui %t, %c8 : index",
        "      %bc8 = arith.remui %t, %c8 : index",
        "      %bc = arith.muli %bc8, %c8 : index",
        "      %ga_row = arith.addi %row0, %ar : index",
        "      %ga_row_i = arith.index_cast %ga_row : index to i32",
        "      %gb_col = arith.addi %col0, %bc : index",
        "      %gb_col_i = arith.index_cast %gb_col : index to i32",
        f"      %acc = scf.for %k0 = %c0 to %c{k} step %c{KT} iter_args(%cur = %zero) -> (vector<16xf32>) {{",
        "        %ga_col = arith.addi %k0, %ac : index",
        "        %ga_col_i = arith.index_cast %ga_col : index to i32",
        f"        %va = amdgpu.raw_buffer_load %A[%ga_row_i, %ga_col_i] : {a_t}, i32, i32 -> vector<8xf16>",
        "        %gb_row = arith.addi %k0, %br : index",
        "        %gb_row_i = arith.index_cast %gb_row : index to i32",
        f"        %vb = amdgpu.raw_buffer_load %B[%gb_row_i, %gb_col_i] : {b_t}, i32, i32 -> vector<8xf16>",
        f"        vector.store %va, %As[%ar, %ac] : {as_t}, vector<8xf16>",
    ]
    for e in range(8):
        lines += [
            f"        %vb{e} = vector.extract %vb[{e}] : f16 from vector<8xf16>",
            f"        %bn{e} = arith.addi %bc, %c{e} : index",
            f"        memref.store %vb{e}, %Bs[%bn{e}, %br] : {as_t}",
        ]
    lines += ["        gpu.barrier"]
    prev = "%cur"
    for kk in range(KT // 8):
        lines += [
            f"        %kc{kk} = arith.addi %lk, %c{8 * kk} : index",
            f"        %fa{kk} = vector.load %As[%arow, %kc{kk}] : {as_t}, vector<4xf16>",
            f"        %fb{kk} = vector.load %Bs[%bcol, %kc{kk}] : {as_t}, vector<4xf16>",
            f"        %d{kk} = amdgpu.mfma 32x32x8 %fa{kk} * %fb{kk} + {prev} blgp = none "
            ": vector<4xf16>, vector<4xf16>, vector<16xf32>",
        ]
        prev = f"%d{kk}"
    lines += ["        gpu.barrier", f"        scf.yield {prev} : vector<16xf32>", "      }"]
    # Epilogue: lane l, element e holds D[8*(e//4) + 4*(l//32) + e%4][l%32].
    lines += [
        "      %crow0 = arith.addi %row0, %wr32 : index",
        "      %crow1 = arith.addi %crow0, %lk : index",
        "      %ccol0 = arith.addi %col0, %wc32 : index",
        "      %ccol = arith.addi %ccol0, %l32 : index",
    ]
    for e in range(16):
        off = 8 * (e // 4) + e % 4
        lines += [
            f"      %o{e} = arith.constant {off} : index",
            f"      %cr{e} = arith.addi %crow1, %o{e} : index",
            f"      %x{e} = vector.extract %acc[{e}] : f32 from vector<16xf32>",
            f"      memref.store %x{e}, %C[%cr{e}, %ccol] : {c_t}",
        ]
    lines += ["      gpu.return", "    }", "  }", "}"]
    return "\n".join(lines) + "\n"


