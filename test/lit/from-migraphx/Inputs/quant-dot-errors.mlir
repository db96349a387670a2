func.func @f16(%a: !migraphx.shaped<64x32xf16, 32x1>, %b: !migraphx.shaped<32x48xf16, 48x1>) -> !migraphx.shaped<64x48xf32, 48x1> attributes {kernel, arch = "gfx942"} {
  // expected-error@+1 {{'migraphx.quant_dot' takes i8 x i8 or fp8 x fp8 operands, got f16 x f16}}
  %0 = migraphx.quant_dot %a, %b : <64x32xf16, 32x1>, <32x48xf16, 48x1> -> <64x48xf32, 48x1>
  return %0 : !migraphx.shaped<64x48xf32, 48x1>
}

// -----

func.func @i8_to_f32(%a: !migraphx.shaped<64x32xi8, 32x1>, %b: !migraphx.shaped<32x48xi8, 48x1>) -> !migraphx.shaped<64x48xf32, 48x1> attributes {kernel, arch = "gfx942"} {
  // expected-error@+1 {{'migraphx.quant_dot' of i8 x i8 yields i32, got f32}}
  %0 = migraphx.quant_dot %a, %b : <64x32xi8, 32x1>, <32x48xi8, 48x1> -> <64x48xf32, 48x1>
  return %0 : !migraphx.shaped<64x48xf32, 48x1>
}

// -----

func.func @fnuz_on_gfx1201(%a: !migraphx.shaped<64x32xf8E4M3FNUZ, 32x1>, %b: !migraphx.shaped<32x48xf8E4M3FNUZ, 48x1>) -> !migraphx.shaped<64x48xf32, 48x1> attributes {kernel, arch = "gfx1201"} {
  // expected-error@+1 {{f8E4M3FNUZ is an FNUZ fp8 format; gfx1201 has the OCP formats f8E4M3FN and f8E5M2}}
  %0 = migraphx.quant_dot %a, %b : <64x32xf8E4M3FNUZ, 32x1>, <32x48xf8E4M3FNUZ, 48x1> -> <64x48xf32, 48x1>
  return %0 : !migraphx.shaped<64x48xf32, 48x1>
}
