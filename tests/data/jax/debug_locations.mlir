// A JAX export printed with debug info (`lower(...).as_text(debug_info=True)`):
// every op, argument and function carries a loc(...), most through #loc
// aliases that MLIR prints after the module. Kiln keeps each op's origin
// for its diagnostics (compiler/parse/parse_location.cc); the program runs
// as it would without them.
#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default"} loc("x")) -> (tensor<4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32> loc(#loc7)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc)
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32> loc(#loc8)
    %2 = stablehlo.multiply %0, %1 : tensor<4xf32> loc(fused<"meta">[#loc8, callsite("inner"("/src/model.py":20:2) at "/src/model.py":14:6)])
    %3 = stablehlo.add %2, %arg0 : tensor<4xf32> loc("/src/model.py":15:11 to :20)
    return %3 : tensor<4xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/src/model.py":12:0)
#loc3 = loc("/src/model.py":13:8)
#loc4 = loc("f"(#loc2))
#loc5 = loc("jit(f)/jit(main)/sin"(#loc3))
#loc6 = loc("jit(f)/jit(main)/mul"(#loc3))
#loc7 = loc(callsite(#loc4 at #loc5))
#loc8 = loc(callsite(#loc4 at #loc6))
