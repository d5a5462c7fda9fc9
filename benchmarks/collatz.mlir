// A `while` loop over scalar i64 tensors: N Collatz steps from 27 (restarting
// at 27 whenever the sequence reaches 1). N arrives at run time, so nothing
// can be computed at compile time. benchmarks/collatz.sh times it beside Lua.
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %start = stablehlo.constant dense<27> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %x = %start) : tensor<i64>, tensor<i64>
    cond {
      %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %rem = stablehlo.remainder %x, %two : tensor<i64>
      %even = stablehlo.compare EQ, %rem, %zero, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %half = stablehlo.divide %x, %two : tensor<i64>
      %x3 = stablehlo.multiply %x, %three : tensor<i64>
      %odd = stablehlo.add %x3, %one : tensor<i64>
      %next = stablehlo.select %even, %half, %odd : tensor<i1>, tensor<i64>
      %done = stablehlo.compare EQ, %next, %one, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %again = stablehlo.select %done, %start, %next : tensor<i1>, tensor<i64>
      %i1 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %i1, %again : tensor<i64>, tensor<i64>
    }
  return %r#1 : tensor<i64>
}
