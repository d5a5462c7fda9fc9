// vm/kiln.hpp, the C++ layer over the C API, as an app uses it: built as
// C++17 (the standard it promises), it loads the MLP example and runs it
// against the generator's own numbers, reads signatures with names, and
// turns every failure into kiln_cpp::Error with the C status's code and
// message. Handles are move-only and free what they own exactly once (the
// sanitizer build checks the "once").
#include "vm/kiln.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#ifndef KILN_HPP_DATA_DIR
#error "KILN_HPP_DATA_DIR: the folder of the build's mlp.kiln, mlp_expect1.txt and named_values.kiln"
#endif

namespace {

static_assert(__cplusplus == 201703L, "this test checks the header as C++17");
static_assert(!std::is_copy_constructible_v<kiln_cpp::Module> && !std::is_copy_assignable_v<kiln_cpp::Session> &&
              !std::is_copy_constructible_v<kiln_cpp::Results> && !std::is_copy_constructible_v<kiln_cpp::Device>);
// A view of dims in a temporary vector would dangle: refused at compile time.
static_assert(!std::is_constructible_v<kiln_cpp::TensorView, const float*, std::vector<int64_t>>);
static_assert(std::is_constructible_v<kiln_cpp::TensorView, const float*, const std::vector<int64_t>&>);
static_assert(std::is_nothrow_move_constructible_v<kiln_cpp::Module> &&
              std::is_nothrow_move_assignable_v<kiln_cpp::Session> &&
              std::is_nothrow_move_constructible_v<kiln_cpp::Results> &&
              std::is_nothrow_move_assignable_v<kiln_cpp::Device>);

const std::string kData = KILN_HPP_DATA_DIR;

// The MLP example's input (examples/c_api/run_mlp.c's pixels) and the ten
// probabilities gen_mlp.py --expect 1 computes for it.
std::vector<float> Pixels() {
  std::vector<float> p(784);
  for (int i = 0; i < 784; ++i) p[i] = static_cast<float>((i * 37) % 101) / 100.0f;
  return p;
}

std::vector<double> Expected() {
  std::ifstream in(kData + "/mlp_expect1.txt");
  return std::vector<double>(std::istream_iterator<double>(in), std::istream_iterator<double>());
}

kiln_status_code_t CodeOf(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const kiln_cpp::Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return KILN_STATUS_OK;
}

TEST(KilnHpp, RunsTheMlpExample) {
  kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/mlp.kiln");
  kiln_cpp::Signature sig = module.GetSignature("main");
  ASSERT_EQ(sig.args.size(), 1u);
  ASSERT_EQ(sig.results.size(), 1u);
  EXPECT_EQ(sig.function, "main");
  EXPECT_EQ(sig.args[0].kind, KILN_VALUE_TENSOR);
  EXPECT_EQ(sig.args[0].element_type, KILN_TYPE_F32);
  EXPECT_EQ(sig.args[0].dims, (std::vector<int64_t>{1, 784}));
  EXPECT_EQ(sig.args[0].name, "");
  EXPECT_EQ(sig.results[0].dims, (std::vector<int64_t>{1, 10}));

  kiln_cpp::Session session(module, "cpu", 2);
  const std::vector<float> pixels = Pixels();
  const std::vector<int64_t> dims = {1, 784};
  kiln_cpp::TensorView x(pixels.data(), dims);
  EXPECT_EQ(x.element_type(), KILN_TYPE_F32);
  EXPECT_EQ(x.byte_size(), 784u * 4);
  const std::vector<double> want = Expected();
  ASSERT_EQ(want.size(), 10u);
  for (int round = 0; round < 3; ++round) {  // the session reuses freed results' memory
    kiln_cpp::Results out = session.Call("main", {x});
    ASSERT_EQ(out.size(), 1u);
    kiln_cpp::TensorView probs = out[0];
    ASSERT_EQ(probs.dims(), (std::vector<int64_t>{1, 10}));
    ASSERT_EQ(probs.num_elements(), 10);
    const float* p = probs.data<float>();
    for (int k = 0; k < 10; ++k) EXPECT_NEAR(p[k], want[k], 1e-5) << "class " << k << ", round " << round;
    EXPECT_THROW(probs.data<int32_t>(), std::invalid_argument);
    EXPECT_THROW(probs.dim(2), std::out_of_range);
    EXPECT_EQ(CodeOf([&] { (void)out[1]; }), KILN_STATUS_OUT_OF_RANGE);
  }
}

TEST(KilnHpp, FailuresThrowErrorWithTheStatus) {
  std::string message;
  EXPECT_EQ(CodeOf([] { kiln_cpp::Module::LoadFile(kData + "/no_such.kiln"); }, &message), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(message.find("no_such.kiln"), std::string::npos) << message;
  const char junk[] = "not a module";
  EXPECT_EQ(CodeOf([&] { kiln_cpp::Module::LoadMemory(junk, sizeof junk); }), KILN_STATUS_DATA_LOSS);

  kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/mlp.kiln");
  EXPECT_EQ(CodeOf([&] { module.FindFunction("nope"); }), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(CodeOf([&] { module.GetSignature(99); }), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(CodeOf([&] { kiln_cpp::Session(module, "no-such-device"); }), KILN_STATUS_INVALID_ARGUMENT);
  kiln_cpp::Session session(module, "cpu", 1);
  const std::vector<float> small(10);
  const std::vector<int64_t> dims = {1, 10};
  EXPECT_EQ(CodeOf([&] { session.Call("main", {kiln_cpp::TensorView(small.data(), dims)}); }, &message),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message.find("tensor<1x784xf32>"), std::string::npos) << message;
  // The session is still usable after a refused call.
  const std::vector<float> pixels = Pixels();
  const std::vector<int64_t> ok_dims = {1, 784};
  EXPECT_EQ(session.Call("main", {kiln_cpp::TensorView(pixels.data(), ok_dims)}).size(), 1u);
}

TEST(KilnHpp, SignaturesCarryNames) {
  kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/named_values.kiln");
  ASSERT_EQ(module.function_count(), 3u);
  EXPECT_EQ(module.function_name(0), "main");
  EXPECT_EQ(CodeOf([&] { module.function_name(3); }), KILN_STATUS_OUT_OF_RANGE);
  kiln_cpp::Signature sig = module.GetSignature(0);
  ASSERT_EQ(sig.args.size(), 3u);
  EXPECT_EQ(sig.args[0].name, "params['w']");
  EXPECT_EQ(sig.args[1].name, "x");
  EXPECT_EQ(sig.args[2].name, "");
  EXPECT_EQ(sig.args[2].element_type, KILN_TYPE_I32);
  EXPECT_TRUE(sig.args[2].dims.empty());
  ASSERT_EQ(sig.results.size(), 3u);
  EXPECT_EQ(sig.results[0].name, "[0]");
  EXPECT_EQ(sig.results[1].name, "['count']");
}

TEST(KilnHpp, HandlesMoveAndOutliveWhatTheyShare) {
  kiln_cpp::Session a, b;
  kiln_cpp::Device device = kiln_cpp::Device::Create([] {
    kiln_cpp::DeviceOptions o;
    o.cpu_threads = 2;
    o.spin_policy = KILN_SPIN_BLOCK;
    return o;
  }());
  {
    kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/mlp.kiln");
    kiln_cpp::Module moved = std::move(module);
    EXPECT_EQ(module.get(), nullptr);  // NOLINT: moved-from is empty by contract
    ASSERT_NE(moved.get(), nullptr);
    a = kiln_cpp::Session(moved, device);
    b = kiln_cpp::Session(moved, device);
  }  // the module's handle is gone; the sessions keep it alive
  kiln_cpp::Device released = std::move(device);  // and the sessions keep the device
  released = kiln_cpp::Device();                  // move-assign frees the old one
  EXPECT_EQ(released.get(), nullptr);
  const std::vector<float> pixels = Pixels();
  const std::vector<int64_t> dims = {1, 784};
  kiln_cpp::Results ra = a.Call("main", {kiln_cpp::TensorView(pixels.data(), dims)});
  kiln_cpp::Results rb = b.Call("main", {kiln_cpp::TensorView(pixels.data(), dims)});
  const std::vector<double> want = Expected();
  for (int k = 0; k < 10; ++k) {
    EXPECT_NEAR(ra[0].data<float>()[k], want[k], 1e-5);
    EXPECT_EQ(ra[0].data<float>()[k], rb[0].data<float>()[k]);
  }
  kiln_cpp::Results kept = std::move(ra);
  a = kiln_cpp::Session();  // results outlive their session
  EXPECT_NEAR(kept[0].data<float>()[0], want[0], 1e-5);
}

TEST(KilnHpp, ProfileReturnsTheOpsTable) {
  kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/mlp.kiln");
  kiln_cpp::Session session(module, "cpu", 1);
  const std::vector<float> pixels = Pixels();
  const std::vector<int64_t> dims = {1, 784};
  session.ProfileBegin();
  session.Call("main", {kiln_cpp::TensorView(pixels.data(), dims)});
  std::string table = session.ProfileEnd();
  EXPECT_NE(table.find("%"), std::string::npos) << table;
  EXPECT_EQ(CodeOf([&] { session.ProfileEnd(); }), KILN_STATUS_FAILED_PRECONDITION);
}

TEST(KilnHpp, VersionAndElementTypes) {
  EXPECT_EQ(kiln_cpp::Version().format_major, kiln_version()->format_major);
  EXPECT_EQ(kiln_cpp::ElementTypeFromName("f32"), KILN_TYPE_F32);
  EXPECT_EQ(kiln_cpp::ElementTypeFromName("nope"), 0);
  EXPECT_EQ(kiln_cpp::ElementTypeSize(KILN_TYPE_F64), 8u);
}

// A user op through the C++ layer: refused before it is registered (naming
// the target), run once registered (the backend_config reaches it), an
// exception it throws fails the call with its message, and unregistering
// refuses new sessions again.
TEST(KilnHpp, CustomCallRegisteredRunAndRefused) {
  const kiln_cpp::Module module = kiln_cpp::Module::LoadFile(kData + "/custom_call.kiln");
  std::string message;
  EXPECT_EQ(CodeOf([&] { kiln_cpp::Session s(module); }, &message), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(message.find("@kiln_test_scale"), std::string::npos) << message;
  bool fail = false;
  kiln_cpp::RegisterCustomCall("kiln_test_scale", [&fail](const kiln_cpp::CustomCallArgs& a) {
    if (fail) throw std::runtime_error("asked to fail");
    if (a.input_count != 1 || a.output_count != 1 || a.inputs[0].element_type != KILN_TYPE_F32)
      throw std::runtime_error("unexpected operands");
    const float scale = std::stof(a.backend_config);
    const size_t n = a.inputs[0].byte_size / sizeof(float);
    for (size_t i = 0; i < n; ++i) a.output<float>(0)[i] = a.input<float>(0)[i] * scale;
  });
  kiln_cpp::Session session(module);
  const std::vector<float> x = {1, -2, 0.5f, 4, 8};
  const std::vector<int64_t> dims = {5};
  kiln_cpp::Results out = session.Call("main", {kiln_cpp::TensorView(x.data(), dims)});
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[0].data<float>()[i], x[i] * 2.5f + x[i]);
  fail = true;
  EXPECT_EQ(CodeOf([&] { session.Call("main", {kiln_cpp::TensorView(x.data(), dims)}); }, &message),
            KILN_STATUS_INTERNAL);
  EXPECT_NE(message.find("asked to fail"), std::string::npos) << message;
  kiln_cpp::UnregisterCustomCall("kiln_test_scale");
  EXPECT_EQ(CodeOf([&] { kiln_cpp::Session s(module); }), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(CodeOf([] { kiln_cpp::UnregisterCustomCall("kiln_test_scale"); }), KILN_STATUS_NOT_FOUND);
}

}  // namespace
