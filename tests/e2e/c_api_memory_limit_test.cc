// The C API's memory limits (kiln_device_options_t.max_memory_bytes,
// kiln_session_options_t.max_memory_bytes; docs/memory.md, "Memory
// limits"): a module whose arena passes the limit is refused when a session
// opens it, a call that needs more fails with RESOURCE_EXHAUSTED naming the
// limit and leaves the session usable, and structs of the earlier version
// (without the field) are still accepted.
#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "vm/kiln.h"

namespace {

std::string Message(kiln_status_t s) {
  std::string m = s ? kiln_status_message(s) : "";
  kiln_status_free(s);
  return m;
}

kiln_module_t* Load(bool plan_memory) {
  std::ifstream in(std::string(KILN_TEST_DATA_DIR) + "/memory_hungry.mlir");
  std::stringstream text;
  text << in.rdbuf();
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  options.plan_memory = plan_memory;
  auto bytes = kiln::compiler::Compile(text.str(), "memory_hungry.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  kiln_module_t* module = nullptr;
  if (bytes.ok()) {
    EXPECT_EQ(Message(kiln_module_load_memory(bytes->data(), bytes->size(), &module)), "");
  }
  return module;
}

kiln_status_t Call(kiln_session_t* session) {
  static std::vector<float> x(512 * 512, 0.001f);
  const int64_t dims[] = {512, 512};
  kiln_tensor_t in{KILN_TYPE_F32, 2, dims, x.data(), x.size() * sizeof(float)};
  kiln_results_t* results = nullptr;
  kiln_status_t s = kiln_session_call(session, "main", &in, 1, &results);
  kiln_results_free(results);
  return s;
}

TEST(CApiMemoryLimit, SessionRefusesAModuleWhoseArenaPassesIt) {
  kiln_module_t* module = Load(true);
  ASSERT_NE(module, nullptr);
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  EXPECT_EQ(o.max_memory_bytes, 0u);
  o.max_memory_bytes = 1 << 20;
  kiln_session_t* s = nullptr;
  kiln_status_t status = kiln_session_create_with_options(module, &o, &s);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(Message(status).find("above the memory limit of 1048576 bytes"), std::string::npos);
  EXPECT_EQ(s, nullptr);
  o.max_memory_bytes = 64 << 20;
  ASSERT_EQ(Message(kiln_session_create_with_options(module, &o, &s)), "");
  EXPECT_EQ(Message(Call(s)), "");
  kiln_session_free(s);
  kiln_module_free(module);
}

TEST(CApiMemoryLimit, CallThatNeedsMoreFailsOnASharedDevice) {
  kiln_module_t* module = Load(false);  // transients from the pool, at run time
  ASSERT_NE(module, nullptr);
  kiln_device_options_t d;
  kiln_device_options_init(&d);
  d.max_memory_bytes = 2 << 20;
  kiln_device_t* device = nullptr;
  ASSERT_EQ(Message(kiln_device_create(&d, &device)), "");
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  o.shared_device = device;
  kiln_session_t* s = nullptr;
  ASSERT_EQ(Message(kiln_session_create_with_options(module, &o, &s)), "");
  kiln_status_t status = Call(s);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(Message(status).find("memory limit of 2097152 bytes reached"), std::string::npos);
  // A limit on a session of a shared device is refused: the device's applies.
  kiln_session_t* other = nullptr;
  o.max_memory_bytes = 1 << 30;
  EXPECT_NE(Message(kiln_session_create_with_options(module, &o, &other)).find("max_memory_bytes 0"),
            std::string::npos);
  EXPECT_EQ(other, nullptr);
  kiln_session_free(s);
  kiln_device_free(device);
  kiln_module_free(module);
}

TEST(CApiMemoryLimit, EarlierStructsWithoutTheFieldAreAccepted) {
  kiln_module_t* module = Load(true);
  ASSERT_NE(module, nullptr);
  kiln_device_options_t d;
  kiln_device_options_init(&d);
  d.struct_size = offsetof(kiln_device_options_t, max_memory_bytes);
  d.max_memory_bytes = 1;  // beyond its struct: never read
  kiln_device_t* device = nullptr;
  ASSERT_EQ(Message(kiln_device_create(&d, &device)), "");
  kiln_session_options_t o;
  kiln_session_options_init(&o);
  o.struct_size = offsetof(kiln_session_options_t, max_memory_bytes);
  o.shared_device = device;
  o.max_memory_bytes = 1;  // never read
  kiln_session_t* s = nullptr;
  ASSERT_EQ(Message(kiln_session_create_with_options(module, &o, &s)), "");
  EXPECT_EQ(Message(Call(s)), "");
  kiln_session_free(s);
  kiln_device_free(device);
  kiln_module_free(module);
}

}  // namespace
