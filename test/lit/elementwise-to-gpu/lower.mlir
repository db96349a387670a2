// accel-elementwise-to-gpu: each accel.elementwise becomes a kernel (the op list over
// broadcast inputs, or a row reduction) and a gpu.launch_func in its host function.
// RUN: accel-opt %s --split-input-file --accel-elementwise-to-gpu | FileCheck %s

// [2, 37, 21]: N odd, so one element a thread; 32 threads along N (21 columns rounded
// up to a power of two), 8 rows (256 / 32), grid 1 x 5 x 2.
// The f16 input widens, the [M] scale is read per row, the literal is f32, the result
// truncates to f16 once.
// CHECK-LABEL: func.func @map
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @[[K:accel_elementwise_2x37x21_[0-9a-f]+]]::@[[K]] blocks in (%{{.*}}, %[[C5]], %[[C2]]) threads in (%[[C256]], %{{.*}}, %{{.*}}) args(%arg0 : memref<2x37x21xf16>, %arg1 : memref<37xf32>, %arg2 : memref<2x37x21xf16>)
// CHECK-NOT: accel.elementwise
// CHECK: gpu.func @[[K]](%[[X:.*]]: memref<2x37x21xf16>, %[[S:.*]]: memref<37xf32>, %[[OUT:.*]]: memref<2x37x21xf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 5, 2>}
// CHECK: %[[ROWOK:.*]] = arith.cmpi ult, %[[ROW:.*]], %c37_i32
// CHECK: %[[COLOK:.*]] = arith.cmpi ult, %[[COL:.*]], %c21_i32
// CHECK: %[[OK:.*]] = arith.andi %[[ROWOK]], %[[COLOK]]
// Past M or N the batch index is G (2): past the buffer, the load reads 0.
// CHECK: %[[B:.*]] = arith.select %[[OK]], %{{.*}}, %c2_i32
// CHECK: %[[XV:.*]] = amdgpu.raw_buffer_load %[[X]][%[[B]], %[[ROW]], %[[COL]]] : memref<2x37x21xf16>, i32, i32, i32 -> f16
// CHECK: %[[XF:.*]] = arith.extf %[[XV]] : f16 to f32
// CHECK: %[[R:.*]] = arith.select %[[ROWOK]], %[[ROW]], %c37_i32
// CHECK: %[[SV:.*]] = amdgpu.raw_buffer_load %[[S]][%[[R]]] : memref<37xf32>, i32 -> f32
// CHECK: %[[P:.*]] = arith.mulf %[[XF]], %[[SV]] : f32
// CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[Q:.*]] = arith.addf %[[P]], %[[H]] : f32
// CHECK: %[[Y:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK: amdgpu.raw_buffer_store %[[Y]] -> %[[OUT]][%[[B]], %[[ROW]], %[[COL]]] : f16 -> memref<2x37x21xf16>, i32, i32, i32
func.func @map(%x: memref<2x37x21xf16>, %s: memref<37xf32>, %o: memref<2x37x21xf16>) {
  "accel.elementwise"(%x, %s, %o) {arch = "gfx942", operands = ["gmn", "m"], program = "%0 = mul %e0, %e1; %1 = add %0, 0.5"} : (memref<2x37x21xf16>, memref<37xf32>, memref<2x37x21xf16>) -> ()
  return
}

// -----

// N = 64: four elements a thread (128-bit f32 accesses), 16 threads along N, 16 rows.
// CHECK-LABEL: func.func @vectors
// CHECK: gpu.func @{{.*}} kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
// CHECK: amdgpu.raw_buffer_load %{{.*}} : memref<1x16x64xf32>, i32, i32, i32 -> vector<4xf32>
// CHECK: math.exp %{{.*}} : vector<4xf32>
// CHECK: amdgpu.raw_buffer_store %{{.*}} : vector<4xf32> -> memref<1x16x64xf32>
func.func @vectors(%x: memref<1x16x64xf32>, %o: memref<1x16x64xf32>) {
  "accel.elementwise"(%x, %o) {arch = "gfx1100", operands = ["gmn"], program = "%0 = exp %e0"} : (memref<1x16x64xf32>, memref<1x16x64xf32>) -> ()
  return
}

// -----

// All integers: the chain is i32, the result keeps the low byte (trunci).
// CHECK-LABEL: func.func @integers
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.muli
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @integers(%x: memref<1x4x3xi8>, %s: memref<1xi32>, %o: memref<1x4x3xi8>) {
  "accel.elementwise"(%x, %s, %o) {arch = "gfx942", operands = ["gmn", ""], program = "%0 = mul %e0, %e1"} : (memref<1x4x3xi8>, memref<1xi32>, memref<1x4x3xi8>) -> ()
  return
}

// -----

// A row sum of exp(x - max): one thread a row (5 rows: block 8), a rolled loop over the
// row's 20 / 4 column vectors from 0, the four lanes added in order, one f16 store at
// column 0 of [2, 5, 1].
// CHECK-LABEL: func.func @row_sum
// CHECK: gpu.launch_func @[[K:accel_reduce_sum_2x5x20_[0-9a-f]+]]::@[[K]]
// CHECK: gpu.func @[[K]](%[[X:.*]]: memref<2x5x20xf16>, %[[MX:.*]]: memref<2x5xf32>, %[[OUT:.*]]: memref<2x5x1xf16>) kernel attributes {known_block_size = array<i32: 8, 1, 1>, known_grid_size = array<i32: 1, 1, 2>}
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[S:.*]] = %c0_i32 to %c5_i32 step %c1_i32 iter_args(%[[T:.*]] = %[[ZERO]]) -> (vector<4xf32>)
// CHECK: %[[COL:.*]] = arith.muli %[[S]], %c4_i32
// CHECK: amdgpu.raw_buffer_load %[[X]][%{{.*}}, %{{.*}}, %[[COL]]] : memref<2x5x20xf16>, i32, i32, i32 -> vector<4xf16>
// CHECK: math.exp
// CHECK: %[[NEXT:.*]] = arith.addf %[[T]], %{{.*}} : vector<4xf32>
// CHECK: scf.yield %[[NEXT]] : vector<4xf32>
// CHECK: } {loop_annotation = #loop_annotation}
// CHECK: %[[L0:.*]] = vector.extract %[[SUM]][0] : f32 from vector<4xf32>
// CHECK: %[[L1:.*]] = vector.extract %[[SUM]][1] : f32 from vector<4xf32>
// CHECK: %[[A01:.*]] = arith.addf %[[L0]], %[[L1]] : f32
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: amdgpu.raw_buffer_store %[[Y]] -> %[[OUT]][%{{.*}}, %{{.*}}, %c0_i32] : f16 -> memref<2x5x1xf16>, i32, i32, i32
func.func @row_sum(%x: memref<2x5x20xf16>, %m: memref<2x5xf32>, %o: memref<2x5x1xf16>) {
  "accel.elementwise"(%x, %m, %o) {arch = "gfx942", operands = ["gmn", "gm"], program = "%0 = sub %e0, %e1; %1 = exp %0", reduce = "sum", n = 20} : (memref<2x5x20xf16>, memref<2x5xf32>, memref<2x5x1xf16>) -> ()
  return
}

// -----

// A row max starts at -inf (f32) / the smallest i32.
// CHECK-LABEL: func.func @row_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
func.func @row_max(%x: memref<1x3x7xf32>, %o: memref<1x3x1xf32>, %i: memref<1x3x7xi32>, %p: memref<1x3x1xi32>) {
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", reduce = "max", n = 7} : (memref<1x3x7xf32>, memref<1x3x1xf32>) -> ()
  "accel.elementwise"(%i, %p) {arch = "gfx942", operands = ["gmn"], program = "", reduce = "max", n = 7} : (memref<1x3x7xi32>, memref<1x3x1xi32>) -> ()
  return
}

// -----

// Identical ops share one kernel.
// CHECK-LABEL: func.func @shared
// CHECK: gpu.launch_func @[[K:accel_elementwise_[0-9a-z_]+]]::@[[K]]
// CHECK: gpu.launch_func @[[K]]::@[[K]]
// CHECK-COUNT-1: gpu.module
// CHECK-NOT: gpu.module
func.func @shared(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>, %p: memref<1x4x4xf32>) {
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "%0 = relu %e0"} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  "accel.elementwise"(%o, %p) {arch = "gfx942", operands = ["gmn"], program = "%0 = relu %e0"} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

// int4 pairs (MIGraphX's unpack): N = 8, four values a thread from two bytes at column / 2,
// split low nibble first ((b << 4) >> 4 and b >> 4 signed; b & 15 and b >> 4 unsigned)
// and interleaved by one shuffle.
// CHECK-LABEL: func.func @int4
// CHECK: %[[B:.*]] = amdgpu.raw_buffer_load %{{.*}}[%{{.*}}, %{{.*}}, %[[HALF:.*]]] : memref<1x3x4xi8>, i32, i32, i32 -> vector<2xi8>
// CHECK: %[[FOUR:.*]] = arith.constant dense<4> : vector<2xi8>
// CHECK: %[[UP:.*]] = arith.shli %[[B]], %[[FOUR]] : vector<2xi8>
// CHECK: %[[LO:.*]] = arith.shrsi %[[UP]], %[[FOUR]] : vector<2xi8>
// CHECK: %[[HI:.*]] = arith.shrsi %[[B]], %[[FOUR]] : vector<2xi8>
// CHECK: vector.shuffle %[[LO]], %[[HI]] [0, 2, 1, 3] : vector<2xi8>, vector<2xi8>
// CHECK: arith.sitofp %{{.*}} : vector<4xi8> to vector<4xf32>
// CHECK: gpu.func
// CHECK: arith.andi %{{.*}}, %{{.*}} : vector<2xi8>
// CHECK: arith.shrui %{{.*}}, %{{.*}} : vector<2xi8>
func.func @int4(%w: memref<1x3x4xi8>, %s: memref<1x3x8xf16>, %o: memref<1x3x8xf16>, %u: memref<1x3x8xf16>) {
  "accel.elementwise"(%w, %s, %o) {arch = "gfx942", operands = ["gmn", "gmn"], packing = ["s4", ""], program = "%0 = mul %e0, %e1"} : (memref<1x3x4xi8>, memref<1x3x8xf16>, memref<1x3x8xf16>) -> ()
  "accel.elementwise"(%w, %s, %u) {arch = "gfx942", operands = ["gmn", "gmn"], packing = ["u4", ""], program = "%0 = mul %e0, %e1"} : (memref<1x3x4xi8>, memref<1x3x8xf16>, memref<1x3x8xf16>) -> ()
  return
}

// -----

// Unsigned bytes (MIGraphX's ui8) widen as such: uitofp in an f32 computation, extui in
// an i32 one.
// CHECK-LABEL: func.func @unsigned_bytes
// CHECK: arith.uitofp %{{.*}} : vector<4xi8> to vector<4xf32>
// CHECK: gpu.func
// CHECK: arith.extui %{{.*}} : vector<4xi8> to vector<4xi32>
func.func @unsigned_bytes(%z: memref<1x2x8xi8>, %o: memref<1x2x8xf32>, %p: memref<1x2x8xi32>) {
  "accel.elementwise"(%z, %o) {arch = "gfx942", operands = ["gmn"], packing = ["u8"], program = "%0 = mul %e0, 0.5"} : (memref<1x2x8xi8>, memref<1x2x8xf32>) -> ()
  "accel.elementwise"(%z, %p) {arch = "gfx942", operands = ["gmn"], packing = ["u8"], program = ""} : (memref<1x2x8xi8>, memref<1x2x8xi32>) -> ()
  return
}

// -----

// An input read through its index map (input_maps): N of two strides, n = n0 * 2 + n1
// over a [2, 11, 2, 37] buffer. Its elements are not adjacent, so each of a thread's
// two columns is one scalar load at the map's indices, joined into the vector; a thread
// past M or N evaluates the map at row and column 0 and moves the batch index to 2,
// past the buffer. The symbol names the map: no packed kernel shares it.
// CHECK-LABEL: func.func @mapped
// CHECK: gpu.func @accel_elementwise_2x37x22_{{[0-9a-f]+}}(%[[X:.*]]: memref<2x11x2x37xf16>, %[[OUT:.*]]: memref<2x37x22xf32>)
// CHECK: %[[ROWOK:.*]] = arith.cmpi ult, %[[ROW:.*]], %c37_i32
// CHECK: %[[COLOK:.*]] = arith.cmpi ult, %[[COL:.*]], %c22_i32
// CHECK: %[[OK:.*]] = arith.andi %[[ROWOK]], %[[COLOK]]
// CHECK: %[[R:.*]] = arith.select %[[ROWOK]], %[[ROW]], %c0_i32
// CHECK: %[[C:.*]] = arith.select %[[COLOK]], %[[COL]], %c0_i32
// CHECK: %[[N0:.*]] = arith.divui %[[C]], %c2_i32
// CHECK: %[[N1:.*]] = arith.remui %[[C]], %c2_i32
// CHECK: %[[B:.*]] = arith.select %[[OK]], %{{.*}}, %c2_i32
// CHECK: %[[A:.*]] = amdgpu.raw_buffer_load %[[X]][%[[B]], %[[N0]], %[[N1]], %[[R]]] : memref<2x11x2x37xf16>, i32, i32, i32, i32 -> f16
// CHECK: %[[C1:.*]] = arith.addi %[[C]], %c1_i32
// CHECK: %[[M0:.*]] = arith.divui %[[C1]], %c2_i32
// CHECK: %[[M1:.*]] = arith.remui %[[C1]], %c2_i32
// CHECK: %[[A1:.*]] = amdgpu.raw_buffer_load %[[X]][%[[B]], %[[M0]], %[[M1]], %[[R]]] : memref<2x11x2x37xf16>, i32, i32, i32, i32 -> f16
// CHECK: %[[V:.*]] = vector.from_elements %[[A]], %[[A1]] : vector<2xf16>
// CHECK: arith.extf %[[V]] : vector<2xf16> to vector<2xf32>
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %[[OUT]][%[[B]], %[[ROW]], %[[COL]]] : vector<2xf32> -> memref<2x37x22xf32>
func.func @mapped(%x: memref<2x11x2x37xf16>, %o: memref<2x37x22xf32>) {
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "%0 = exp %e0", input_maps = [affine_map<(d0, d1, d2) -> (d0, d2 floordiv 2, d2 mod 2, d1)>]} : (memref<2x11x2x37xf16>, memref<2x37x22xf32>) -> ()
  return
}
