// Every process waits for a message nobody sends: vm-check must end with the
// timeout error, not hang.
func.func public @stuck() {
  %tok = stablehlo.after_all : !stablehlo.token
  %x, %t = "stablehlo.recv"(%tok) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  func.return
}
