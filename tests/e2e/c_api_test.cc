// The C API (vm/kiln.h): a call end to end, every detectable misuse an app
// could make answered with a status (its code and a message), never a crash;
// the version and function signatures. Session options and threads:
// c_api_session_options_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "kiln_version.h"
#include "schema/format_version.h"
#include "tests/support/c_status.h"
#include "vm/kiln.h"

namespace {

std::vector<uint8_t> SpecModule(const char* target = "cpu") {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/examples/spec_program.mlir");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  kiln::compiler::CompileOptions options;
  options.target = target;
  auto bytes = kiln::compiler::Compile(text, "spec_program.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

using kiln::test::Code;
using kiln::test::Message;

std::vector<uint8_t> CompileText(const std::string& text) {
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = kiln::compiler::Compile(text, "inline.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = SpecModule();
    ASSERT_FALSE(bytes.empty());
    ASSERT_EQ(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &module_)), "");
    ASSERT_EQ(Message(kiln_session_create(module_, "cpu", &session_)), "");
    image_.assign(784, 0.5f);
    weights_.assign(7840, 0.01f);
    bias_.assign(10, 0.25f);
    inputs_[0] = {KILN_TYPE_F32, 2, image_dims_, image_.data(), image_.size() * 4};
    inputs_[1] = {KILN_TYPE_F32, 2, weight_dims_, weights_.data(), weights_.size() * 4};
    inputs_[2] = {KILN_TYPE_F32, 2, bias_dims_, bias_.data(), bias_.size() * 4};
  }
  void TearDown() override {
    kiln_session_free(session_);
    kiln_module_free(module_);
  }
  kiln_module_t* module_ = nullptr;
  kiln_session_t* session_ = nullptr;
  std::vector<float> image_, weights_, bias_;
  int64_t image_dims_[2] = {28, 28}, weight_dims_[2] = {784, 10}, bias_dims_[2] = {1, 10};
  kiln_tensor_t inputs_[3];
};

TEST_F(CApi, CallsMainAndReadsTheResult) {
  ASSERT_EQ(kiln_module_function_count(module_), 1u);
  EXPECT_STREQ(kiln_module_function_name(module_, 0), "main");
  EXPECT_EQ(kiln_module_function_name(module_, 1), nullptr);

  kiln_results_t* results = nullptr;
  ASSERT_EQ(Message(kiln_session_call(session_, "main", inputs_, 3, &results)), "");
  ASSERT_EQ(kiln_results_count(results), 1u);
  kiln_tensor_t out;
  ASSERT_EQ(Message(kiln_results_get(results, 0, &out)), "");
  EXPECT_EQ(out.element_type, KILN_TYPE_F32);
  ASSERT_EQ(out.rank, 2);
  EXPECT_EQ(out.dims[0], 1);
  EXPECT_EQ(out.dims[1], 10);
  ASSERT_EQ(out.byte_size, 40u);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(static_cast<const float*>(out.data)[k], 784 * 0.5 * 0.01 + 0.25, 1e-4);
  EXPECT_NE(Message(kiln_results_get(results, 1, &out)).find("out of range"), std::string::npos);
  kiln_results_free(results);
}

// Inputs are read in place and results land in the storage of the results
// freed last: results still held keep their values, a freed one's memory
// carries the next call's result, and results outlive their session.
TEST_F(CApi, RepeatedCallsRecycleFreedResultsOnly) {
  auto value = [](kiln_results_t* r) {
    kiln_tensor_t out;
    EXPECT_EQ(Message(kiln_results_get(r, 0, &out)), "");
    return std::pair<const void*, float>(out.data, static_cast<const float*>(out.data)[3]);
  };
  kiln_results_t* first = nullptr;
  ASSERT_EQ(Message(kiln_session_call(session_, "main", inputs_, 3, &first)), "");
  const auto [first_data, first_value] = value(first);
  EXPECT_NEAR(first_value, 784 * 0.5 * 0.01 + 0.25, 1e-4);

  bias_.assign(10, 1.25f);  // the caller's memory changes between calls
  kiln_results_t* second = nullptr;
  ASSERT_EQ(Message(kiln_session_call(session_, "main", inputs_, 3, &second)), "");
  EXPECT_NE(value(second).first, first_data);  // `first` is still held: not reused
  EXPECT_NEAR(value(second).second, 784 * 0.5 * 0.01 + 1.25, 1e-4);
  EXPECT_NEAR(value(first).second, first_value, 0);

  kiln_results_free(first);
  bias_.assign(10, 2.25f);
  kiln_results_t* third = nullptr;
  ASSERT_EQ(Message(kiln_session_call(session_, "main", inputs_, 3, &third)), "");
  EXPECT_EQ(value(third).first, first_data);  // the freed results' storage
  EXPECT_NEAR(value(third).second, 784 * 0.5 * 0.01 + 2.25, 1e-4);
  EXPECT_NEAR(value(second).second, 784 * 0.5 * 0.01 + 1.25, 1e-4);

  // A failed call leaves what was recycled alone and returns no results.
  kiln_results_free(second);
  kiln_results_t* none = nullptr;
  EXPECT_NE(Message(kiln_session_call(session_, "main", inputs_, 2, &none)), "");
  EXPECT_EQ(none, nullptr);

  kiln_session_free(session_);
  session_ = nullptr;
  EXPECT_NEAR(value(third).second, 784 * 0.5 * 0.01 + 2.25, 1e-4);  // outlives the session
  kiln_results_free(third);
}

#ifdef KILN_HAVE_VULKAN
// The same call on the Vulkan device (lavapipe in CI), from a module built
// for every target.
TEST_F(CApi, CallsMainOnTheVulkanDevice) {
  auto bytes = SpecModule("all");
  ASSERT_FALSE(bytes.empty());
  kiln_module_t* module = nullptr;
  kiln_session_t* session = nullptr;
  ASSERT_EQ(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &module)), "");
  ASSERT_EQ(Message(kiln_session_create(module, "vulkan", &session)), "");
  kiln_results_t* results = nullptr;
  ASSERT_EQ(Message(kiln_session_call(session, "main", inputs_, 3, &results)), "");
  kiln_tensor_t out;
  ASSERT_EQ(Message(kiln_results_get(results, 0, &out)), "");
  ASSERT_EQ(out.byte_size, 40u);
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(static_cast<const float*>(out.data)[k], 784 * 0.5 * 0.01 + 0.25, 1e-4);
  kiln_results_free(results);
  kiln_session_free(session);
  EXPECT_NE(Message(kiln_session_create(module, "vulkan:x", &session)).find("expected vulkan:N"), std::string::npos);
  kiln_module_free(module);
}
#endif

TEST_F(CApi, WrongInputsAreReported) {
  kiln_results_t* results = nullptr;
  EXPECT_NE(Message(kiln_session_call(session_, "main", inputs_, 2, &results)).find("takes 3 inputs (tensor<28x28xf32>, tensor<784x10xf32>, tensor<1x10xf32>), got 2"),
            std::string::npos);
  int64_t wrong_dims[2] = {2, 392};
  kiln_tensor_t wrong[3] = {inputs_[0], inputs_[1], inputs_[2]};
  wrong[0].dims = wrong_dims;
  EXPECT_NE(Message(kiln_session_call(session_, "main", wrong, 3, &results)).find("must be tensor<28x28xf32>"),
            std::string::npos);
  wrong[0] = inputs_[0];
  wrong[0].byte_size -= 4;
  EXPECT_NE(Message(kiln_session_call(session_, "main", wrong, 3, &results)).find("does not match its shape"),
            std::string::npos);
  wrong[0] = inputs_[0];
  wrong[0].element_type = 99;
  EXPECT_NE(Message(kiln_session_call(session_, "main", wrong, 3, &results)).find("unknown element type"),
            std::string::npos);
  wrong[0] = inputs_[0];
  int64_t negative[2] = {-28, -28};
  wrong[0].dims = negative;
  EXPECT_NE(Message(kiln_session_call(session_, "main", wrong, 3, &results)).find("invalid dimension"),
            std::string::npos);
  wrong[0] = inputs_[0];
  wrong[0].rank = 65;
  EXPECT_NE(Message(kiln_session_call(session_, "main", wrong, 3, &results)), "");
  EXPECT_NE(Message(kiln_session_call(session_, "nope", inputs_, 3, &results)).find("nope"), std::string::npos);
  EXPECT_EQ(results, nullptr);
}

TEST_F(CApi, NullArgumentsAreErrors) {
  kiln_results_t* results = nullptr;
  EXPECT_NE(Message(kiln_session_call(nullptr, "main", inputs_, 3, &results)), "");
  EXPECT_NE(Message(kiln_session_call(session_, nullptr, inputs_, 3, &results)), "");
  EXPECT_NE(Message(kiln_session_call(session_, "main", nullptr, 3, &results)), "");
  EXPECT_NE(Message(kiln_session_call(session_, "main", inputs_, 3, nullptr)), "");
  EXPECT_NE(Message(kiln_module_load_file(nullptr, &module_)), "");
  EXPECT_NE(Message(kiln_session_create(nullptr, "cpu", &session_)), "");
  EXPECT_NE(Message(kiln_results_get(nullptr, 0, nullptr)), "");
  EXPECT_EQ(kiln_results_count(nullptr), 0u);
  EXPECT_EQ(kiln_module_function_count(nullptr), 0u);
  kiln_results_free(nullptr);
  kiln_session_free(nullptr);
  kiln_module_free(nullptr);
  kiln_status_free(nullptr);
}

TEST(CApiLoad, BadModulesAndDevicesAreRefused) {
  kiln_module_t* m = nullptr;
  EXPECT_NE(Message(kiln_module_load_file("/nonexistent/x.kiln", &m)), "");
  EXPECT_EQ(m, nullptr);
  const char garbage[] = "this is not a module file at all";
  EXPECT_NE(Message(kiln_module_load_memory(garbage, sizeof garbage, &m)), "");
  EXPECT_NE(Message(kiln_module_load_memory(garbage, 0, &m)).find("empty"), std::string::npos);
  auto bytes = SpecModule();
  bytes.resize(bytes.size() / 2);
  EXPECT_NE(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &m)), "");
  EXPECT_EQ(m, nullptr);

  auto good = SpecModule();
  ASSERT_EQ(Message(kiln_module_load_memory(good.data(), good.size(), &m)), "");
  kiln_session_t* s = nullptr;
  EXPECT_NE(Message(kiln_session_create(m, "tpu", &s)).find("unknown device 'tpu'"), std::string::npos);
  EXPECT_EQ(s, nullptr);
  kiln_module_free(m);
}

// A directory or an unreadable path is a plain message naming it, not a
// C++ stream exception caught as an internal error.
TEST(CApiLoad, DirectoryAndUnreadablePathsAreNamed) {
  kiln_module_t* m = nullptr;
  EXPECT_EQ(Message(kiln_module_load_file("/tmp", &m)), "'/tmp' is a directory");
  EXPECT_EQ(m, nullptr);
  std::string missing = Message(kiln_module_load_file("/nonexistent/x.kiln", &m));
  EXPECT_NE(missing.find("cannot open '/nonexistent/x.kiln': No such file or directory"), std::string::npos) << missing;
}

TEST(CApiTypes, NamesAndSizes) {
  EXPECT_EQ(kiln_element_type_from_name("f32"), KILN_TYPE_F32);
  EXPECT_EQ(kiln_element_type_from_name("bf16"), KILN_TYPE_BF16);
  EXPECT_EQ(kiln_element_type_from_name("ui8"), KILN_TYPE_UI8);
  EXPECT_EQ(kiln_element_type_from_name("nonsense"), 0);
  EXPECT_EQ(kiln_element_type_from_name(nullptr), 0);
  EXPECT_EQ(kiln_element_type_size(KILN_TYPE_F64), 8u);
  EXPECT_EQ(kiln_element_type_size(KILN_TYPE_I1), 1u);
  EXPECT_EQ(kiln_element_type_size(kiln_element_type_from_name("complex<f64>")), 16u);
  EXPECT_EQ(kiln_element_type_size(-3), 0u);
  EXPECT_EQ(kiln_element_type_size(999), 0u);
}

TEST(CApiVersion, NamesTheRuntimeAndTheModuleFormat) {
  const kiln_version_t* v = kiln_version();
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->major, KILN_VERSION_MAJOR);
  EXPECT_EQ(v->minor, KILN_VERSION_MINOR);
  EXPECT_EQ(v->patch, KILN_VERSION_PATCH);
  EXPECT_EQ(v->format_major, kiln::kFormatMajor);
  EXPECT_EQ(v->format_minor, kiln::kFormatMinor);
  EXPECT_EQ(std::string(v->text), std::string("Kiln ") + KILN_VERSION_STRING + " (module format " +
                                      std::to_string(kiln::kFormatMajor) + "." + std::to_string(kiln::kFormatMinor) +
                                      ")");
  EXPECT_EQ(kiln_version(), v);  // static data
}

// Each kind of failure carries its code, so an app can branch without
// parsing messages.
TEST_F(CApi, FailuresCarryTheirCode) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "ok");
  kiln_results_t* results = nullptr;
  EXPECT_EQ(Code(kiln_session_call(session_, "nope", inputs_, 3, &results)), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Code(kiln_session_call(session_, "main", inputs_, 2, &results)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_session_call(nullptr, "main", inputs_, 3, &results)), KILN_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(Message(kiln_session_call(session_, "main", inputs_, 3, &results)), "");
  kiln_tensor_t out;
  EXPECT_EQ(Code(kiln_results_get(results, 1, &out)), KILN_STATUS_OUT_OF_RANGE);
  kiln_results_free(results);

  kiln_module_t* m = nullptr;
  EXPECT_EQ(Code(kiln_module_load_file("/nonexistent/x.kiln", &m)), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Code(kiln_module_load_file("/tmp", &m)), KILN_STATUS_INVALID_ARGUMENT);
  auto bytes = SpecModule();
  bytes.resize(bytes.size() / 2);
  EXPECT_EQ(Code(kiln_module_load_memory(bytes.data(), bytes.size(), &m)), KILN_STATUS_DATA_LOSS);
  kiln_session_t* s = nullptr;
  EXPECT_EQ(Code(kiln_session_create(module_, "tpu", &s)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(s, nullptr);
}

// "" is not a device name; NULL is how a caller asks for the default.
TEST_F(CApi, EmptyDeviceNameIsRefused) {
  kiln_session_t* s = nullptr;
  kiln_status_t status = kiln_session_create(module_, "", &s);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(status)).find("device name is empty"), std::string::npos)
      << kiln_status_message(status);
  kiln_status_free(status);
  EXPECT_EQ(s, nullptr);
  ASSERT_EQ(Message(kiln_session_create(module_, nullptr, &s)), "");
  kiln_session_free(s);
}

TEST_F(CApi, SignaturesOfPublicFunctions) {
  size_t main_index = 99;
  ASSERT_EQ(Message(kiln_module_find_function(module_, "main", &main_index)), "");
  EXPECT_EQ(main_index, 0u);
  EXPECT_EQ(Code(kiln_module_find_function(module_, "nope", &main_index)), KILN_STATUS_NOT_FOUND);
  size_t args = 0, results = 0;
  ASSERT_EQ(Message(kiln_module_function_arity(module_, main_index, &args, &results)), "");
  EXPECT_EQ(args, 3u);
  EXPECT_EQ(results, 1u);
  const int64_t want_args[3][2] = {{28, 28}, {784, 10}, {1, 10}};
  for (size_t i = 0; i < 3; ++i) {
    kiln_value_type_t t;
    ASSERT_EQ(Message(kiln_module_function_arg(module_, main_index, i, &t)), "");
    EXPECT_EQ(t.kind, KILN_VALUE_TENSOR);
    EXPECT_EQ(t.element_type, KILN_TYPE_F32);
    ASSERT_EQ(t.rank, 2);
    EXPECT_EQ(t.dims[0], want_args[i][0]);
    EXPECT_EQ(t.dims[1], want_args[i][1]);
  }
  kiln_value_type_t r;
  ASSERT_EQ(Message(kiln_module_function_result(module_, main_index, 0, &r)), "");
  EXPECT_EQ(r.element_type, KILN_TYPE_F32);
  ASSERT_EQ(r.rank, 2);
  EXPECT_EQ(r.dims[0], 1);
  EXPECT_EQ(r.dims[1], 10);

  EXPECT_EQ(Code(kiln_module_function_arg(module_, main_index, 3, &r)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(Code(kiln_module_function_result(module_, main_index, 1, &r)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(Code(kiln_module_function_arity(module_, 1, &args, &results)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(Code(kiln_module_function_arg(nullptr, 0, 0, &r)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_module_function_arg(module_, 0, 0, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_module_function_arity(module_, 0, nullptr, &results)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_module_find_function(module_, nullptr, &main_index)), KILN_STATUS_INVALID_ARGUMENT);
}

// Dynamic sizes read -1; other element types and ranks come through;
// private functions are not listed or found.
TEST(CApiSignature, DynamicDimsScalarsAndPrivateFunctions) {
  auto bytes = CompileText(R"(
func.func @dyn(%a: tensor<?x4xf32>, %n: tensor<i64>) -> tensor<?x4xf32> {
  %r = func.call @helper(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}
func.func private @helper(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %a : tensor<?x4xf32>
}
)");
  ASSERT_FALSE(bytes.empty());
  kiln_module_t* m = nullptr;
  ASSERT_EQ(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &m)), "");
  EXPECT_EQ(kiln_module_function_count(m), 1u);
  size_t index = 9;
  EXPECT_EQ(Code(kiln_module_find_function(m, "helper", &index)), KILN_STATUS_NOT_FOUND);
  ASSERT_EQ(Message(kiln_module_find_function(m, "dyn", &index)), "");
  kiln_value_type_t a, n, r;
  ASSERT_EQ(Message(kiln_module_function_arg(m, index, 0, &a)), "");
  ASSERT_EQ(Message(kiln_module_function_arg(m, index, 1, &n)), "");
  ASSERT_EQ(Message(kiln_module_function_result(m, index, 0, &r)), "");
  ASSERT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], -1);
  EXPECT_EQ(a.dims[1], 4);
  EXPECT_EQ(n.element_type, KILN_TYPE_I64);
  EXPECT_EQ(n.rank, 0);
  ASSERT_EQ(r.rank, 2);
  EXPECT_EQ(r.dims[0], -1);
  kiln_module_free(m);
}

// Argument and result names from the source's attributes
// (tests/data/named_values.mlir): "" where there is none, never NULL; the
// same misuse checks as the types.
TEST(CApiSignature, ArgumentAndResultNames) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/data/named_values.mlir");
  auto bytes = CompileText(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  ASSERT_FALSE(bytes.empty());
  kiln_module_t* m = nullptr;
  ASSERT_EQ(Message(kiln_module_load_memory(bytes.data(), bytes.size(), &m)), "");
  size_t main_index = 9, tf_index = 9;
  ASSERT_EQ(Message(kiln_module_find_function(m, "main", &main_index)), "");
  ASSERT_EQ(Message(kiln_module_find_function(m, "tf_names", &tf_index)), "");
  auto arg = [&](size_t f, size_t i) {
    const char* name = nullptr;
    EXPECT_EQ(Message(kiln_module_function_arg_name(m, f, i, &name)), "");
    EXPECT_NE(name, nullptr);
    return std::string(name ? name : "<null>");
  };
  auto result = [&](size_t f, size_t i) {
    const char* name = nullptr;
    EXPECT_EQ(Message(kiln_module_function_result_name(m, f, i, &name)), "");
    EXPECT_NE(name, nullptr);
    return std::string(name ? name : "<null>");
  };
  EXPECT_EQ(arg(main_index, 0), "params['w']");
  EXPECT_EQ(arg(main_index, 1), "x");
  EXPECT_EQ(arg(main_index, 2), "");
  EXPECT_EQ(result(main_index, 0), "[0]");
  EXPECT_EQ(result(main_index, 1), "['count']");
  EXPECT_EQ(result(main_index, 2), "");
  EXPECT_EQ(arg(tf_index, 0), "inputs.0");
  EXPECT_EQ(arg(tf_index, 1), "b");
  EXPECT_EQ(result(tf_index, 0), "sum");

  const char* name = "unchanged";
  EXPECT_EQ(Code(kiln_module_function_arg_name(m, main_index, 3, &name)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(Code(kiln_module_function_result_name(m, main_index, 3, &name)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(Code(kiln_module_function_arg_name(m, 99, 0, &name)), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(name, "unchanged");
  EXPECT_EQ(Code(kiln_module_function_arg_name(nullptr, 0, 0, &name)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_module_function_result_name(m, 0, 0, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_module_free(m);
}

}  // namespace
