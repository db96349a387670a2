// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// k_steps_per_read: on gfx942 one 128-bit LDS read (8 f16 of kpack 8) serves two
// 16x16x16 k-steps (4 K per lane each); gfx1100's WMMA takes 16 K per lane, one read each.
// CHECK-LABEL: func.func @mfma
// CHECK: k_steps_per_read = 2 : i64
func.func @mfma(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @wmma
// CHECK: k_steps_per_read = 1 : i64
func.func @wmma(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// lds_buffers: scheduleVersion 2 double-buffers the tiles in LDS.
// CHECK-LABEL: func.func @double_buffer
// CHECK: lds_buffers = 2 : i64
func.func @double_buffer(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,2,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// scheduleVersion 1 (rocMLIR's default) keeps one buffer, even where two would fit.
// CHECK-LABEL: func.func @default_fits
// CHECK: lds_buffers = 1 : i64
func.func @default_fits(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// sched_barriers: fences around each k-tile's MMAs when a tile is loaded ahead
// (codegen/schedule.py), and load_wait_once: one wait for all its loads before its
// LDS stores ...
// CHECK-LABEL: func.func @ahead
// CHECK: interleave_reads = true
// CHECK-SAME: lds_read_ahead = true, load_wait_once = true
// CHECK-SAME: sched_barriers = true
func.func @ahead(%a: memref<1x64x128xf16>, %b: memref<1x128x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x128xf16>, memref<1x128x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// ... and none when neither is (gfx942 with the AGPRs full of accumulators).
// CHECK-LABEL: func.func @none_ahead
// CHECK: interleave_reads = false
// CHECK-SAME: lds_read_ahead = true, load_wait_once = false
// CHECK-SAME: sched_barriers = false
func.func @none_ahead(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,32,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// waves_per_eu is the perf config's wavesPerEU (0: none); grid_group its gridGroupSize,
// at most the M tiles there are (320 / 32 = 10) and at least 1 (the plain order).
// CHECK-LABEL: func.func @fields
// CHECK: grid_group = 4 : i64
// CHECK-SAME: waves_per_eu = 2 : i64
// CHECK-LABEL: func.func @clamped
// CHECK: grid_group = 10 : i64
// CHECK-SAME: waves_per_eu = 0 : i64
// CHECK-LABEL: func.func @plain
// CHECK: grid_group = 1 : i64
func.func @fields(%a: memref<1x320x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x320x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,2,4,1,1"} : (memref<1x320x64xf16>, memref<1x64x64xf16>, memref<1x320x64xf32>) -> ()
  return
}
func.func @clamped(%a: memref<1x320x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x320x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,64,1,1"} : (memref<1x320x64xf16>, memref<1x64x64xf16>, memref<1x320x64xf32>) -> ()
  return
}
func.func @plain(%a: memref<1x320x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x320x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x320x64xf16>, memref<1x64x64xf16>, memref<1x320x64xf32>) -> ()
  return
}

// -----

// lds_read_ahead: MMA fragments read a group of k-steps ahead on RDNA (above), and on
// gfx942 whether the accumulators fill the AGPRs (above) or not, as on a 128x128 tile
// with 64x32 per wave; their reads are not pinned there (interleave_reads).
// CHECK-LABEL: func.func @cdna3_fragments_ahead
// CHECK: interleave_reads = false
// CHECK-SAME: lds_read_ahead = true, load_wait_once = true
func.func @cdna3_fragments_ahead(%a: memref<1x256x256xf16>, %b: memref<1x256x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,128,16,64,32,32,8,1,1,2,0,0,1,1"} : (memref<1x256x256xf16>, memref<1x256x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// ... but not where the accumulators fill the AGPRs and two groups of fragments, the
// k-tile's copy and the addresses need all 256 arch VGPRs (the 256x256x64 tile with
// 128x128 per wave and 16x16 MFMAs, B row-major: 288), which spilled; there
// sched_barriers fence the MMAs off the k-tile's copy, with nothing loaded ahead.
// CHECK-LABEL: func.func @agprs_full_no_read_ahead
// CHECK: lds_read_ahead = false, load_wait_once = false
// CHECK-SAME: sched_barriers = true
func.func @agprs_full_no_read_ahead(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,16,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// ... and with two LDS buffers and 64-bit copies and fragments (kpack 4), whose copy
// of the next k-tile LLVM otherwise hoisted into the MMAs (it spilled); with kpack 8
// nothing is fenced.
// CHECK-LABEL: func.func @agprs_full_two_buffers_kpack4
// CHECK: lds_buffers = 2
// CHECK-SAME: lds_read_ahead = true, load_wait_once = false
// CHECK-SAME: sched_barriers = true
// CHECK-LABEL: func.func @agprs_full_two_buffers_kpack8
// CHECK: sched_barriers = false
func.func @agprs_full_two_buffers_kpack4(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,4,128,128,32,4,1,2,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
func.func @agprs_full_two_buffers_kpack8(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,2,128,128,32,8,1,2,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// interleave_reads: on gfx1100 (a lane holds the whole K of its row, so a fragment is
// two 128-bit reads, above) each group's LDS reads are pinned among the MMAs; on
// gfx1201 LLVM's own order is kept.
// CHECK-LABEL: func.func @rdna4_reads_unpinned
// CHECK: interleave_reads = false
// CHECK-SAME: lds_read_ahead = true
func.func @rdna4_reads_unpinned(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// ... nor with a single k-tile (no k-tile loop), as here (K = kPerBlock = 64).
// CHECK-LABEL: func.func @one_k_tile_reads_unpinned
// CHECK: interleave_reads = false
func.func @one_k_tile_reads_unpinned(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// pipeline_depth: with two LDS buffers the loaded-ahead operands' loads run two k-tiles
// ahead where a k-tile's MMAs at peak rate cover less than a load's latency and the
// register estimate holding two k-tiles of the copy stays within its headroom
// (tuning/validity.py pipeline_depth). gfx942 16x64x128 on 2 waves: 256 MFMA clocks a
// k-tile against 1200, 160 registers of 512.
// CHECK-LABEL: func.func @two_ahead
// CHECK: lds_buffers = 2 : i64
// CHECK-SAME: pipeline_depth = 2 : i64
func.func @two_ahead(%a: memref<1x528x1024xf16>, %b: memref<1x1024x528xf16>, %c: memref<1x528x528xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,64,16,16,32,16,8,1,2,2,0,0,1,1"} : (memref<1x528x1024xf16>, memref<1x1024x528xf16>, memref<1x528x528xf16>) -> ()
  return
}

// -----

// One ahead with one LDS buffer (scheduleVersion 1), where two stages would double the
// loop body (and its compile time).
// CHECK-LABEL: func.func @one_buffer
// CHECK: lds_buffers = 1 : i64
// CHECK-SAME: pipeline_depth = 1 : i64
func.func @one_buffer(%a: memref<1x528x1024xf16>, %b: memref<1x1024x528xf16>, %c: memref<1x528x528xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,64,16,16,32,16,8,1,1,2,0,0,1,1"} : (memref<1x528x1024xf16>, memref<1x1024x528xf16>, memref<1x528x528xf16>) -> ()
  return
}

// -----

// One ahead where a k-tile's MMAs already cover the latency: gfx942 128x128x64 on 2
// waves, 2048 MFMA clocks a k-tile.
// CHECK-LABEL: func.func @covered
// CHECK: pipeline_depth = 1 : i64
func.func @covered(%a: memref<1x512x512xf16>, %b: memref<1x512x512xf16>, %c: memref<1x512x512xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,128,8,128,64,32,8,1,2,2,0,0,1,1"} : (memref<1x512x512xf16>, memref<1x512x512xf16>, memref<1x512x512xf16>) -> ()
  return
}

// -----

// One ahead where a second stage does not fit: gfx1100 16x32x128 on one wave (512 WMMA
// clocks against 1600 would pay), whose register estimate is the 256 VGPRs already.
// CHECK-LABEL: func.func @no_room
// CHECK: pipeline_depth = 1 : i64
func.func @no_room(%a: memref<1x48x4096xf16>, %b: memref<1x4096x4096xf16>, %c: memref<1x48x4096xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:16,32,16,16,32,16,8,1,2,2,0,0,1,1"} : (memref<1x48x4096xf16>, memref<1x4096x4096xf16>, memref<1x48x4096xf16>) -> ()
  return
}
