// Device-resident buffers, donation and calls into caller memory (vm/kiln.h,
// "Device-resident buffers and donation"; vm/c_api_buffers.cc,
// vm/context_buffers.cc), on the toy decoder tests/data/decoder_step.mlir:
// 256 steps with the cache on the device, where the devices' transfer
// counters show each step moving only its token, its position and its
// logits, and the last logits equal the full recompute. On the CPU device and,
// where built, on Vulkan (lavapipe in CI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hal/devices.h"
#include "vm/context.h"
#include "vm/kiln.h"

namespace {

constexpr int kSteps = 256, kWidth = 16, kLogits = 32, kVocab = 32;

std::string Message(kiln_status_t s) {
  std::string m = s ? kiln_status_message(s) : "";
  kiln_status_free(s);
  return m;
}

kiln_status_code_t Code(kiln_status_t s) {
  kiln_status_code_t c = kiln_status_code(s);
  kiln_status_free(s);
  return c;
}

std::vector<uint8_t> Compile(const std::string& text, const char* target = "all") {
  kiln::compiler::CompileOptions options;
  options.target = target;
  auto bytes = kiln::compiler::Compile(text, "test.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

std::vector<uint8_t> DecoderModule() {
  std::ifstream in(std::string(KILN_TEST_DATA_DIR) + "/decoder_step.mlir");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Compile(text);
}

int TokenAt(int t) { return (t * 7 + 3) % kVocab; }

kiln_transfer_stats_t Stats(kiln_session_t* s) {
  kiln_transfer_stats_t st{};
  EXPECT_EQ(Message(kiln_session_transfer_stats(s, &st)), "");
  return st;
}

class Decoder : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    bytes_ = DecoderModule();
    ASSERT_FALSE(bytes_.empty());
    ASSERT_EQ(Message(kiln_module_load_memory(bytes_.data(), bytes_.size(), &module_)), "");
    ASSERT_EQ(Message(kiln_session_create(module_, GetParam(), &session_)), "");
  }
  void TearDown() override {
    kiln_session_free(session_);
    kiln_module_free(module_);
  }
  // A zero cache on the device.
  kiln_buffer_t* ZeroCache() {
    static const int64_t dims[2] = {kSteps, kWidth};
    std::vector<float> zeros(kSteps * kWidth, 0.0f);
    kiln_tensor_t t{KILN_TYPE_F32, 2, dims, zeros.data(), zeros.size() * sizeof(float)};
    kiln_buffer_t* b = nullptr;
    EXPECT_EQ(Message(kiln_buffer_upload(session_, &t, &b)), "");
    return b;
  }
  // One step: the cache stays on the device, the logits go into `logits`.
  kiln_status_t Step(kiln_buffer_t* cache, int32_t token, int32_t t, float* logits, kiln_buffer_t** next) {
    kiln_tensor_t tok{KILN_TYPE_I32, 0, nullptr, &token, 4}, pos{KILN_TYPE_I32, 0, nullptr, &t, 4};
    kiln_value_t in[3] = {{nullptr, cache}, {&tok, nullptr}, {&pos, nullptr}};
    kiln_output_t out[2] = {{KILN_RESULT_BUFFER, nullptr, 0, next},
                            {KILN_RESULT_INTO, logits, kLogits * sizeof(float), nullptr}};
    return kiln_session_call_values(session_, "step", in, 3, out, 2, nullptr);
  }
  std::vector<uint8_t> bytes_;
  kiln_module_t* module_ = nullptr;
  kiln_session_t* session_ = nullptr;
};

// The acceptance test: 256 steps, each moving the token and its position up
// (where not read in place: Vulkan copies them, the CPU reads them where they
// are) and the logits down, never the cache; the last logits equal full().
TEST_P(Decoder, CacheStaysOnTheDeviceFor256Steps) {
  const bool vulkan = std::string(GetParam()) == "vulkan";
  kiln_buffer_t* cache = ZeroCache();
  ASSERT_NE(cache, nullptr);
  std::vector<float> logits(kLogits);
  std::vector<int32_t> tokens(kSteps);
  for (int t = 0; t < kSteps; ++t) {
    tokens[t] = TokenAt(t);
    const kiln_transfer_stats_t before = Stats(session_);
    kiln_buffer_t* next = nullptr;
    ASSERT_EQ(Message(Step(cache, tokens[t], t, logits.data(), &next)), "") << "step " << t;
    const kiln_transfer_stats_t after = Stats(session_);
    // Donated (tf.aliasing_output = 0): the old handle is spent.
    kiln_tensor_t desc;
    ASSERT_EQ(Code(kiln_buffer_describe(cache, &desc)), KILN_STATUS_FAILED_PRECONDITION);
    kiln_buffer_free(cache);
    cache = next;
    ASSERT_EQ(after.downloads - before.downloads, 1u) << "step " << t;
    ASSERT_EQ(after.download_bytes - before.download_bytes, kLogits * sizeof(float)) << "step " << t;
    // The first step also brings the module's constants to a Vulkan device.
    if (t == 0) continue;
    ASSERT_EQ(after.uploads - before.uploads, vulkan ? 2u : 0u) << "step " << t;
    ASSERT_EQ(after.upload_bytes - before.upload_bytes, vulkan ? 8u : 0u) << "step " << t;
  }
  // The recompute from every token at once, into the caller's memory.
  std::vector<float> full(kLogits, -1.0f);
  static const int64_t tdims[1] = {kSteps};
  kiln_tensor_t all{KILN_TYPE_I32, 1, tdims, tokens.data(), tokens.size() * 4};
  void* data[1] = {full.data()};
  size_t sizes[1] = {full.size() * sizeof(float)};
  ASSERT_EQ(Message(kiln_session_call_into(session_, "full", &all, 1, data, sizes, 1)), "");
  double scale = 0;
  for (float v : full) scale = std::max(scale, std::fabs(double{v}));
  ASSERT_GT(scale, 0.01);  // not a trivially zero answer
  for (int k = 0; k < kLogits; ++k) EXPECT_NEAR(logits[k], full[k], 1e-5 * scale + 1e-6) << "logit " << k;
  // The cache itself: row t holds token t's embedding, the same as full's rows.
  std::vector<float> rows(kSteps * kWidth);
  ASSERT_EQ(Message(kiln_buffer_download(cache, rows.data(), rows.size() * sizeof(float))), "");
  for (int t = 0; t < kSteps; ++t) {
    if (tokens[t] != tokens[0]) continue;
    for (int j = 0; j < kWidth; ++j) ASSERT_EQ(rows[t * kWidth + j], rows[j]);
  }
  kiln_buffer_free(cache);
}

// A buffer round trip; describe; results kept on the device passed back in.
TEST_P(Decoder, UploadDescribeDownload) {
  static const int64_t dims[2] = {kSteps, kWidth};
  std::vector<float> v(kSteps * kWidth);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f - 7.0f;
  kiln_tensor_t t{KILN_TYPE_F32, 2, dims, v.data(), v.size() * 4};
  const kiln_transfer_stats_t before = Stats(session_);
  kiln_buffer_t* b = nullptr;
  ASSERT_EQ(Message(kiln_buffer_upload(session_, &t, &b)), "");
  const kiln_transfer_stats_t after = Stats(session_);
  EXPECT_EQ(after.uploads - before.uploads, 1u);
  EXPECT_EQ(after.upload_bytes - before.upload_bytes, v.size() * 4);
  kiln_tensor_t d;
  ASSERT_EQ(Message(kiln_buffer_describe(b, &d)), "");
  EXPECT_EQ(d.element_type, KILN_TYPE_F32);
  ASSERT_EQ(d.rank, 2);
  EXPECT_EQ(d.dims[0], kSteps);
  EXPECT_EQ(d.dims[1], kWidth);
  EXPECT_EQ(d.data, nullptr);
  EXPECT_EQ(d.byte_size, v.size() * 4);
  std::vector<float> back(v.size(), 0.0f);
  ASSERT_EQ(Message(kiln_buffer_download(b, back.data(), back.size() * 4)), "");
  EXPECT_EQ(back, v);
  // Sizes are checked.
  EXPECT_EQ(Code(kiln_buffer_download(b, back.data(), back.size() * 4 - 1)), KILN_STATUS_INVALID_ARGUMENT);
  // Both results kept on the device: the logits are a buffer of their own.
  int32_t token = 5, pos = 0;
  kiln_tensor_t tok{KILN_TYPE_I32, 0, nullptr, &token, 4}, at{KILN_TYPE_I32, 0, nullptr, &pos, 4};
  kiln_value_t in[3] = {{nullptr, b}, {&tok, nullptr}, {&at, nullptr}};
  kiln_buffer_t *cache = nullptr, *logits = nullptr;
  kiln_output_t out[2] = {{KILN_RESULT_BUFFER, nullptr, 0, &cache}, {KILN_RESULT_BUFFER, nullptr, 0, &logits}};
  kiln_results_t* results = nullptr;
  ASSERT_EQ(Message(kiln_session_call_values(session_, "step", in, 3, out, 2, &results)), "");
  // Placed elsewhere: described, without data.
  kiln_tensor_t r;
  ASSERT_EQ(Message(kiln_results_get(results, 1, &r)), "");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.dims[0], kLogits);
  EXPECT_EQ(r.byte_size, 0u);
  kiln_results_free(results);
  ASSERT_EQ(Message(kiln_buffer_describe(logits, &d)), "");
  EXPECT_EQ(d.byte_size, kLogits * 4u);
  // The same call on host tensors gives the same logits.
  kiln_tensor_t inputs[3] = {t, tok, at};
  std::vector<float> want(kLogits), got(kLogits);
  void* data[2] = {back.data(), want.data()};
  size_t sizes[2] = {back.size() * 4, want.size() * 4};
  ASSERT_EQ(Message(kiln_session_call_into(session_, "step", inputs, 3, data, sizes, 2)), "");
  ASSERT_EQ(Message(kiln_buffer_download(logits, got.data(), got.size() * 4)), "");
  EXPECT_EQ(got, want);
  kiln_buffer_free(b);
  kiln_buffer_free(cache);
  kiln_buffer_free(logits);
}

// Misuse gets a status, never a crash or a write past the caller's memory.
TEST_P(Decoder, MisuseIsReported) {
  kiln_buffer_t* cache = ZeroCache();
  std::vector<float> logits(kLogits + 1, 42.0f);
  int32_t token = 1, pos = 0;
  kiln_tensor_t tok{KILN_TYPE_I32, 0, nullptr, &token, 4}, at{KILN_TYPE_I32, 0, nullptr, &pos, 4};
  kiln_buffer_t* next = nullptr;
  // A result buffer of the wrong size: refused before anything is written,
  // and the donated cache is not consumed.
  kiln_value_t in[3] = {{nullptr, cache}, {&tok, nullptr}, {&at, nullptr}};
  kiln_output_t out[2] = {{KILN_RESULT_BUFFER, nullptr, 0, &next},
                          {KILN_RESULT_INTO, logits.data(), (kLogits + 1) * 4, nullptr}};
  kiln_status_t s = kiln_session_call_values(session_, "step", in, 3, out, 2, nullptr);
  EXPECT_NE(std::string(kiln_status_message(s)).find("needs 128 bytes, its buffer has 132"), std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
  EXPECT_EQ(logits[0], 42.0f);
  EXPECT_EQ(next, nullptr);
  kiln_tensor_t d;
  EXPECT_EQ(Message(kiln_buffer_describe(cache, &d)), "");
  // Both or neither of tensor and buffer; an unknown placement; no place for a buffer.
  kiln_value_t both[3] = {{&tok, cache}, {&tok, nullptr}, {&at, nullptr}};
  out[1].size = kLogits * 4;
  EXPECT_EQ(Code(kiln_session_call_values(session_, "step", both, 3, out, 2, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_output_t bad[2] = {{7, nullptr, 0, nullptr}, out[1]};
  EXPECT_EQ(Code(kiln_session_call_values(session_, "step", in, 3, bad, 2, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_output_t nowhere[2] = {{KILN_RESULT_BUFFER, nullptr, 0, nullptr}, out[1]};
  EXPECT_EQ(Code(kiln_session_call_values(session_, "step", in, 3, nowhere, 2, nullptr)),
            KILN_STATUS_INVALID_ARGUMENT);
  // Host results without out_results; the wrong count of placements.
  kiln_output_t host[2] = {{KILN_RESULT_HOST, nullptr, 0, nullptr}, out[1]};
  EXPECT_EQ(Code(kiln_session_call_values(session_, "step", in, 3, host, 2, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Code(kiln_session_call_values(session_, "step", in, 3, out, 1, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  // A buffer of the wrong shape for the argument.
  static const int64_t small_dims[1] = {4};
  float small[4] = {};
  kiln_tensor_t st{KILN_TYPE_F32, 1, small_dims, small, sizeof small};
  kiln_buffer_t* wrong = nullptr;
  ASSERT_EQ(Message(kiln_buffer_upload(session_, &st, &wrong)), "");
  kiln_value_t mis[3] = {{nullptr, wrong}, {&tok, nullptr}, {&at, nullptr}};
  s = kiln_session_call_values(session_, "step", mis, 3, out, 2, nullptr);
  EXPECT_NE(std::string(kiln_status_message(s)).find("input 0 of 'step' must be tensor<256x16xf32>"),
            std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
  kiln_buffer_free(wrong);
  // A bad upload.
  kiln_tensor_t lying{KILN_TYPE_F32, 1, small_dims, small, 3};
  EXPECT_EQ(Code(kiln_buffer_upload(session_, &lying, &wrong)), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(wrong, nullptr);
  // Consumed: every use but free is refused.
  ASSERT_EQ(Message(kiln_session_call_values(session_, "step", in, 3, out, 2, nullptr)), "");
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(Code(kiln_buffer_describe(cache, &d)), KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(Code(kiln_buffer_download(cache, logits.data(), 4)), KILN_STATUS_FAILED_PRECONDITION);
  s = kiln_session_call_values(session_, "step", in, 3, out, 2, nullptr);
  EXPECT_NE(std::string(kiln_status_message(s)).find("donated to an earlier call"), std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
  kiln_buffer_free(cache);
  // A buffer of another device (a session with a device of its own).
  kiln_session_t* other = nullptr;
  ASSERT_EQ(Message(kiln_session_create(module_, GetParam(), &other)), "");
  in[0].buffer = next;
  EXPECT_EQ(Code(kiln_session_call_values(other, "step", in, 3, out, 2, nullptr)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_session_free(other);
  // call_into's result count must be the function's.
  kiln_tensor_t inputs[3] = {{KILN_TYPE_F32, 0, nullptr, nullptr, 0}, tok, at};
  void* data[1] = {logits.data()};
  size_t sizes[1] = {4};
  EXPECT_EQ(Code(kiln_session_call_into(session_, "step", inputs, 3, data, sizes, 1)), KILN_STATUS_INVALID_ARGUMENT);
  kiln_buffer_free(next);
}

INSTANTIATE_TEST_SUITE_P(Devices, Decoder,
                         ::testing::Values("cpu"
#ifdef KILN_HAVE_VULKAN
                                           ,
                                           "vulkan"
#endif
                                           ));

// Donation in place, seen inside: the result is the donated buffer itself,
// and the counters show no transfer for it. Without tf.aliasing_output the
// result is a buffer of its own.
TEST(ContextDonation, ResultTakesTheDonatedBuffer) {
  auto bytes = DecoderModule();
  auto module = kiln::vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const kiln::vm::LoadedFunction& step = (*module)->functions[(*module)->FindFunction("step")];
  ASSERT_EQ(step.donations.size(), 1u);
  EXPECT_EQ(step.donations[0].arg, 0u);
  EXPECT_EQ(step.donations[0].output, 0);
  EXPECT_TRUE((*module)->functions[(*module)->FindFunction("full")].donations.empty());
  auto device = kiln::hal::CreateDeviceByName("cpu", 1);
  ASSERT_TRUE(device.ok());
  auto context = kiln::vm::Context::Create(*module, device->get());
  ASSERT_TRUE(context.ok()) << context.status().message();
  auto cache = std::make_shared<kiln::hal::BufferView>();
  cache->type = kiln::ElementType::kF32;
  cache->dims = {kSteps, kWidth};
  cache->buffer = *(*device)->Allocate(kSteps * kWidth * 4);
  int32_t token = 3, pos = 2;
  std::vector<kiln::vm::CallInput> in(3);
  in[0].device = cache;
  in[1].host = kiln::vm::BorrowedTensor{kiln::ElementType::kSI32, nullptr, 0, &token, 4};
  in[2].host = kiln::vm::BorrowedTensor{kiln::ElementType::kSI32, nullptr, 0, &pos, 4};
  std::vector<kiln::vm::ResultPlacement> placement(2);
  placement[0].kind = kiln::vm::ResultPlacement::Kind::kDevice;
  kiln::vm::CallOutcome outcome;
  ASSERT_TRUE((*context)->Invoke("step", in, placement, {}, &outcome).ok());
  EXPECT_EQ(outcome.consumed, std::vector<uint32_t>{0});
  EXPECT_EQ(outcome.in_place, std::vector<uint32_t>{0});
  EXPECT_EQ(outcome.results[0].device->buffer, cache->buffer);
  std::vector<float> rows(kSteps * kWidth);
  ASSERT_TRUE((*device)->Download(*cache->buffer, 0, rows.data(), rows.size() * 4).ok());
  float norm = 0;
  for (int j = 0; j < kWidth; ++j) norm += std::fabs(rows[2 * kWidth + j]);
  EXPECT_GT(norm, 0.0f);  // row 2 now holds token 3's embedding
  for (int j = 0; j < kWidth; ++j) EXPECT_EQ(rows[1 * kWidth + j], 0.0f);
  EXPECT_EQ(outcome.results[1].host.data.size(), kLogits * 4u);  // downloaded, the default
  // The logits kept on the device: a buffer of their own, not part of an arena.
  placement[1].kind = kiln::vm::ResultPlacement::Kind::kDevice;
  in[0].device = outcome.results[0].device;
  ASSERT_TRUE((*context)->Invoke("step", in, placement, {}, &outcome).ok());
  const auto& logits = *outcome.results[1].device;
  EXPECT_EQ(logits.offset, 0u);
  EXPECT_EQ(logits.buffer->size(), kLogits * 4u);
  EXPECT_NE(logits.buffer, cache->buffer);
}

// The compiler reads tf.aliasing_output and jax.buffer_donor, and refuses a
// result index out of range.
TEST(ContextDonation, CompilerRecordsDonations) {
  auto bytes = Compile(R"(
func.func public @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>, %c: tensor<2xf32> {tf.aliasing_output = 0 : i32})
    -> (tensor<2xf32>, tensor<4xf32>) {
  %s = stablehlo.add %a, %b : tensor<4xf32>
  return %c, %s : tensor<2xf32>, tensor<4xf32>
}
)",
                       "cpu");
  auto module = kiln::vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const auto& d = (*module)->functions[0].donations;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].arg, 0u);
  EXPECT_EQ(d[0].output, -1);
  EXPECT_EQ(d[1].arg, 2u);
  EXPECT_EQ(d[1].output, 0);
  // jax.buffer_donor: the first device result of its type and shape (result 1).
  auto device = kiln::hal::CreateDeviceByName("cpu", 1);
  ASSERT_TRUE(device.ok());
  auto context = kiln::vm::Context::Create(*module, device->get());
  ASSERT_TRUE(context.ok());
  std::vector<kiln::vm::CallInput> in(3);
  std::vector<std::shared_ptr<kiln::hal::BufferView>> views;
  const float a[4] = {1, 2, 3, 4}, c[2] = {5, 6};
  for (int i = 0; i < 3; ++i) {
    auto v = std::make_shared<kiln::hal::BufferView>();
    v->type = kiln::ElementType::kF32;
    v->dims = {i == 2 ? 2 : 4};
    v->buffer = *(*device)->AllocateCopy(i == 2 ? static_cast<const void*>(c) : a, v->ByteSize());
    in[i].device = v;
    views.push_back(v);
  }
  std::vector<kiln::vm::ResultPlacement> placement(2);
  placement[0].kind = placement[1].kind = kiln::vm::ResultPlacement::Kind::kDevice;
  kiln::vm::CallOutcome outcome;
  ASSERT_TRUE((*context)->Invoke("main", in, placement, {}, &outcome).ok());
  EXPECT_EQ(outcome.consumed, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(outcome.results[1].device->buffer, views[0]->buffer);
  // Result 0 returns argument 2 itself: its donated buffer, with no copy.
  EXPECT_EQ(outcome.results[0].device->buffer, views[2]->buffer);
  float sum[4];
  ASSERT_TRUE((*device)->Download(*views[0]->buffer, 0, sum, sizeof sum).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(sum[i], 2 * a[i]);
  // An alias past the results is refused at compile time.
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  auto bad = kiln::compiler::Compile(R"(
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 3 : i32}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
)",
                                     "bad.mlir", options, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tf.aliasing_output must be a result index below 1"), std::string::npos)
      << bad.status().message();
}

// One buffer passed for a donated argument and for another: the result that
// returns the other argument is copied out before the donated result is
// written over the buffer.
TEST(ContextDonation, BufferPassedTwiceKeepsBothResults) {
  auto bytes = Compile(R"(
func.func public @main(%a: tensor<3xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>) {
  %s = stablehlo.add %a, %b : tensor<3xf32>
  return %s, %b : tensor<3xf32>, tensor<3xf32>
}
)",
                       "cpu");
  auto module = kiln::vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto device = kiln::hal::CreateDeviceByName("cpu", 1);
  ASSERT_TRUE(device.ok());
  auto context = kiln::vm::Context::Create(*module, device->get());
  ASSERT_TRUE(context.ok());
  const float x[3] = {1, 2, 3};
  auto v = std::make_shared<kiln::hal::BufferView>();
  v->type = kiln::ElementType::kF32;
  v->dims = {3};
  v->buffer = *(*device)->AllocateCopy(x, sizeof x);
  std::vector<kiln::vm::CallInput> in(2);
  in[0].device = in[1].device = v;
  std::vector<kiln::vm::ResultPlacement> placement(2);
  placement[0].kind = placement[1].kind = kiln::vm::ResultPlacement::Kind::kDevice;
  kiln::vm::CallOutcome outcome;
  ASSERT_TRUE((*context)->Invoke("main", in, placement, {}, &outcome).ok());
  EXPECT_EQ(outcome.results[0].device->buffer, v->buffer);
  EXPECT_NE(outcome.results[1].device->buffer, v->buffer);
  float sum[3], same[3];
  ASSERT_TRUE((*device)->Download(*outcome.results[0].device->buffer, 0, sum, sizeof sum).ok());
  ASSERT_TRUE((*device)->Download(*outcome.results[1].device->buffer, 0, same, sizeof same).ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sum[i], 2 * x[i]);
    EXPECT_EQ(same[i], x[i]);
  }
}

}  // namespace
