// User ops through the C API (vm/kiln.h, "User ops"): a custom_call whose
// target Kiln does not know compiles to kiln.custom_call; a session of the
// module is refused until a host function is registered under the target
// (naming it), then each call runs the function on views of the operands
// and results (several of each, mixed types, the backend_config, the
// user data); a failure it reports fails the call with its message, and
// the session stays usable; a replaced or removed registration releases
// its user data, and calls then fail naming the target. Results a user op cannot have are refused at
// compile time, and the Vulkan target leaves such a function out.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "tests/support/c_status.h"
#include "vm/kiln.h"

namespace {

constexpr char kProgram[] = R"(
func.func @main(%x: tensor<2x3xf32>, %n: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %y, %s = stablehlo.custom_call @kiln_test_affine(%x, %n) {backend_config = "bias=0.25"} : (tensor<2x3xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>)
  %z = stablehlo.multiply %y, %y : tensor<2x3xf32>
  return %z, %s : tensor<2x3xf32>, tensor<i32>
}
)";

std::vector<uint8_t> Compile(const std::string& text, const char* target, std::vector<std::string>* warnings = nullptr,
                             std::string* error = nullptr) {
  kiln::compiler::CompileOptions options;
  options.target = target;
  auto bytes = kiln::compiler::Compile(text, "custom.mlir", options, warnings);
  if (error) *error = bytes.ok() ? "" : bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

using kiln::test::Code;
using kiln::test::Message;

struct Counter {
  int calls = 0;
  bool fail = false;
  int released = 0;
};

// y = x * n + bias (bias from the backend_config), s = n + elements of x.
int32_t Affine(void* user_data, const kiln_tensor_t* in, size_t n_in, const kiln_mutable_tensor_t* out, size_t n_out,
               const char* config, char* error, size_t error_size) {
  auto* counter = static_cast<Counter*>(user_data);
  ++counter->calls;
  if (counter->fail) {
    std::snprintf(error, error_size, "the test asked this call to fail");
    return 7;
  }
  float bias = 0;
  if (n_in != 2 || n_out != 2 || in[0].element_type != KILN_TYPE_F32 || in[1].element_type != KILN_TYPE_I32 ||
      out[1].element_type != KILN_TYPE_I32 || in[0].rank != 2 || in[0].dims[1] != 3 ||
      std::sscanf(config, "bias=%f", &bias) != 1) {
    std::snprintf(error, error_size, "unexpected operands or config '%s'", config);
    return 1;
  }
  int32_t n;
  std::memcpy(&n, in[1].data, 4);
  const auto* x = static_cast<const float*>(in[0].data);
  auto* y = static_cast<float*>(out[0].data);
  const size_t count = in[0].byte_size / 4;
  for (size_t i = 0; i < count; ++i) y[i] = x[i] * static_cast<float>(n) + bias;
  const int32_t s = n + static_cast<int32_t>(count);
  std::memcpy(out[1].data, &s, 4);
  return 0;
}

TEST(CustomCall, RegisteredHostFunctionRunsAndUnregisteredIsRefused) {
  const std::vector<uint8_t> bytes = Compile(kProgram, "cpu");
  ASSERT_FALSE(bytes.empty());
  kiln_module_t* module = nullptr;
  ASSERT_EQ(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &module)), "");
  kiln_session_t* session = nullptr;
  kiln_status_t refused = kiln_session_create(module, "cpu", &session);
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(kiln_status_code(refused), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(Message(refused).find("custom_call @kiln_test_affine"), std::string::npos);

  Counter counter;
  auto release = [](void* user_data) { ++static_cast<Counter*>(user_data)->released; };
  ASSERT_EQ(Message(kiln_register_custom_call("kiln_test_affine", &Affine, &counter, release)), "");
  ASSERT_EQ(Message(kiln_session_create(module, "cpu", &session)), "");
  const float x[6] = {1, -2, 3, 0.5f, 0, -1};
  const int32_t n = 3;
  const int64_t xd[2] = {2, 3};
  const kiln_tensor_t inputs[2] = {{KILN_TYPE_F32, 2, xd, x, sizeof x}, {KILN_TYPE_I32, 0, nullptr, &n, 4}};
  for (int call = 0; call < 2; ++call) {
    kiln_results_t* results = nullptr;
    ASSERT_EQ(Message(kiln_session_call(session, "main", inputs, 2, &results)), "");
    kiln_tensor_t z, s;
    ASSERT_EQ(Message(kiln_results_get(results, 0, &z)), "");
    ASSERT_EQ(Message(kiln_results_get(results, 1, &s)), "");
    for (int i = 0; i < 6; ++i) {
      const float y = x[i] * 3 + 0.25f;
      EXPECT_EQ(static_cast<const float*>(z.data)[i], y * y) << i;
    }
    EXPECT_EQ(*static_cast<const int32_t*>(s.data), 9);
    kiln_results_free(results);
  }
  EXPECT_EQ(counter.calls, 2);

  // A failure the function reports fails that call, with its message.
  counter.fail = true;
  kiln_results_t* results = nullptr;
  kiln_status_t failed = kiln_session_call(session, "main", inputs, 2, &results);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(kiln_status_code(failed), KILN_STATUS_INTERNAL);
  const std::string m = Message(failed);
  EXPECT_NE(m.find("custom_call @kiln_test_affine: the test asked this call to fail"), std::string::npos) << m;
  counter.fail = false;
  ASSERT_EQ(Message(kiln_session_call(session, "main", inputs, 2, &results)), "");
  kiln_results_free(results);

  // Registered again (replacing it: the first registration is released),
  // then unregistered: calls fail naming the target, new sessions are
  // refused, and the second registration is released too.
  EXPECT_EQ(counter.released, 0);
  ASSERT_EQ(Message(kiln_register_custom_call("kiln_test_affine", &Affine, &counter, release)), "");
  EXPECT_EQ(counter.released, 1);
  ASSERT_EQ(Message(kiln_unregister_custom_call("kiln_test_affine")), "");
  EXPECT_EQ(counter.released, 2);
  kiln_status_t gone = kiln_session_call(session, "main", inputs, 2, &results);
  EXPECT_EQ(kiln_status_code(gone), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(Message(gone).find("custom_call @kiln_test_affine"), std::string::npos);
  kiln_session_t* second = nullptr;
  EXPECT_EQ(Code(kiln_session_create(module, "cpu", &second)), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Code(kiln_unregister_custom_call("kiln_test_affine")), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Code(kiln_register_custom_call("", &Affine, nullptr, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_register_custom_call("x", nullptr, nullptr, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_session_free(session);
  kiln_module_free(module);
}

TEST(CustomCall, CompileTimeLimits) {
  std::string error;
  // Results of a user op are tensors of static shape.
  Compile(R"(
func.func @main(%x: tensor<2xf32>) -> tuple<tensor<2xf32>> {
  %t = stablehlo.custom_call @kiln_test_tuple(%x) : (tensor<2xf32>) -> tuple<tensor<2xf32>>
  return %t : tuple<tensor<2xf32>>
}
)",
          "cpu", nullptr, &error);
  EXPECT_NE(error.find("stablehlo.custom_call @kiln_test_tuple: a user op's results must be tensors of static shape"),
            std::string::npos)
      << error;
  // For every target the module compiles; the Vulkan device leaves the
  // function out, with a warning.
  std::vector<std::string> warnings;
  EXPECT_FALSE(Compile(kProgram, "all", &warnings, &error).empty()) << error;
  bool warned = false;
  for (const std::string& w : warnings) warned |= w.find("unavailable on the vulkan device") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
