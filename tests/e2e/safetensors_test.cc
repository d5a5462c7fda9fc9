// The safetensors reader (vm/parameters.cc) against the writer
// (compiler/externalize.cc) and against files that lie: every refusal is a
// clear message, never a crash or a read past the file.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compiler/externalize.h"
#include "vm/parameters.h"

namespace kiln {
namespace {

using compiler::SafetensorsEntryOut;

// A file of a header given as text and `data_bytes` bytes of data.
std::vector<uint8_t> FileOf(const std::string& header, size_t data_bytes, uint64_t declared = UINT64_MAX) {
  uint64_t n = declared == UINT64_MAX ? header.size() : declared;
  std::vector<uint8_t> f(8 + header.size() + data_bytes, 0xAB);
  for (int i = 0; i < 8; ++i) f[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(f.data() + 8, header.data(), header.size());
  return f;
}

std::string Refusal(const std::vector<uint8_t>& file) {
  auto h = vm::ParseSafetensors(file.data(), file.size());
  EXPECT_FALSE(h.ok()) << "accepted";
  return h.ok() ? "" : h.status().message();
}

#define EXPECT_REFUSED(file, text)                                                    \
  do {                                                                                \
    std::string m = Refusal(file);                                                    \
    EXPECT_NE(m.find(text), std::string::npos) << "message: " << m;                   \
    EXPECT_EQ(m.rfind("invalid safetensors file: ", 0), 0u) << "message: " << m;     \
  } while (0)

TEST(Safetensors, WriterRoundTripsAndAligns) {
  std::mt19937 rng(7);
  // Odd sizes and mixed element sizes: each tensor must still start aligned
  // to its element size, the data at 64 bytes.
  std::vector<std::vector<uint8_t>> data = {std::vector<uint8_t>(3), std::vector<uint8_t>(5 * 8),
                                            std::vector<uint8_t>(7 * 2), std::vector<uint8_t>(11 * 4),
                                            std::vector<uint8_t>(0)};
  for (auto& d : data)
    for (auto& b : d) b = static_cast<uint8_t>(rng());
  std::vector<SafetensorsEntryOut> in = {
      {"bytes \"quoted\"\n", ElementType::kUI8, {3}, &data[0]},
      {"f64", ElementType::kF64, {5, 1}, &data[1]},
      {"bf16 \xc3\xa9", ElementType::kBF16, {7}, &data[2]},
      {"f32", ElementType::kF32, {11}, &data[3]},
      {"empty", ElementType::kF32, {0, 4}, &data[4]},
  };
  auto file = compiler::WriteSafetensors(in, {{"producer", "test"}});
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto h = vm::ParseSafetensors(file->data(), file->size());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->data_offset % 64, 0u);
  EXPECT_EQ(h->metadata.at("producer"), "test");
  ASSERT_EQ(h->tensors.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& t = h->tensors[i];
    EXPECT_EQ(t.key, in[i].key);
    EXPECT_EQ(t.type, in[i].type);
    EXPECT_EQ(t.dims, in[i].dims);
    ASSERT_EQ(t.size, data[i].size());
    EXPECT_EQ(t.offset % StorageBytes(t.type), 0u) << t.key;
    if (t.size) {  // memcmp takes no null pointer, even for 0 bytes
      EXPECT_EQ(std::memcmp(file->data() + t.offset, data[i].data(), t.size), 0) << t.key;
    }
  }
}

TEST(Safetensors, WriterRefusesTypesWithoutADtype) {
  std::vector<uint8_t> d(4);
  auto file = compiler::WriteSafetensors({{"x", ElementType::kSI4, {4}, &d}}, {});
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("no dtype for i4"), std::string::npos) << file.status().message();
}

TEST(Safetensors, EscapesAndPaddingAreRead) {
  auto f = FileOf(R"( {"a\u00e9\ud83d\ude00\"\\\/\n" : {"shape":[2],"data_offsets":[0,8],"dtype":"F32"}} )" "    ", 8);
  auto h = vm::ParseSafetensors(f.data(), f.size());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->tensors[0].key, "a\xc3\xa9\xf0\x9f\x98\x80\"\\/\n");
}

TEST(Safetensors, LyingFilesAreRefused) {
  const std::string good = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
  ASSERT_TRUE(vm::ParseSafetensors(FileOf(good, 16).data(), 8 + good.size() + 16).ok());
  EXPECT_REFUSED(std::vector<uint8_t>(5), "shorter than the 8-byte header length");
  EXPECT_REFUSED(FileOf(good, 16, good.size() + 17), "header length " + std::to_string(good.size() + 17) +
                                                         " runs past the end of the file");
  EXPECT_REFUSED(FileOf(good, 16, UINT64_MAX - 3), "runs past the end of the file");
  // Offsets out of range, backwards, overlapping; sizes that do not match.
  EXPECT_REFUSED(FileOf(good, 15), "tensor 'w''s data_offsets [0, 16] run past the end of the data (15 bytes)");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", 16), "end before they begin");
  EXPECT_REFUSED(FileOf(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 16),
                 "the tensors 'a' and 'b' overlap");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", 16),
                 "tensor 'w' has shape and dtype F32 needing 12 bytes, but its data_offsets span 16");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F16","shape":[1099511627776,1099511627776],"data_offsets":[0,16]}})", 16),
                 "needing more than 16 bytes");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551616]}})", 16),
                 "too large");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", 16), "is not [begin, end]");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}})", 16), "more than 2 entries");
  // Dtypes, shapes, fields.
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", 16), "unknown dtype 'F33'");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 16),
                 "shape is not a non-negative integer");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 16),
                 "shape is not a non-negative integer");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})", 16),
                 "unknown field 'extra'");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2]}})", 16), "lacks 'data_offsets'");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 16),
                 "the field 'dtype' twice");
  // Duplicate keys.
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 16),
                 "the tensor 'w' appears twice");
  EXPECT_REFUSED(FileOf(R"({"__metadata__":{"a":"1","a":"2"}})", 0), "__metadata__ has the key 'a' twice");
  EXPECT_REFUSED(FileOf(R"({"__metadata__":{},"__metadata__":{}})", 0), "'__metadata__' appears twice");
  EXPECT_REFUSED(FileOf(R"({"__metadata__":{"a":1}})", 0), "expected a string");
  // Malformed JSON.
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 16), "malformed JSON header");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}x)", 16), "text after the header");
  EXPECT_REFUSED(FileOf(R"([])", 0), "it is not an object");
  EXPECT_REFUSED(FileOf(R"({"w\q":{}})", 0), "unknown escape");
  EXPECT_REFUSED(FileOf(R"({"w\ud800":{}})", 0), "unpaired surrogate");
  EXPECT_REFUSED(FileOf(R"({"w)", 0), "unterminated string");
  EXPECT_REFUSED(FileOf(std::string("{\"w\x01\":{}}"), 0), "control character");
  EXPECT_REFUSED(FileOf(R"({"w":{"dtype":"F32","shape":[02],"data_offsets":[0,8]}})", 16), "leading zero");
  EXPECT_REFUSED(FileOf("", 0), "it is not an object");
}

TEST(Safetensors, EveryTruncationIsRefusedCleanly) {
  std::vector<uint8_t> d(24, 1);
  auto file = compiler::WriteSafetensors({{"a", ElementType::kF32, {2, 3}, &d}}, {{"k", "v"}});
  ASSERT_TRUE(file.ok());
  for (size_t n = 0; n < file->size(); ++n) {
    auto h = vm::ParseSafetensors(file->data(), n);  // ASan catches any read past n
    EXPECT_FALSE(h.ok()) << "a file cut at " << n << " bytes was accepted";
  }
}

TEST(Safetensors, ScopesRefuseAKeyInTwoFiles) {
  std::vector<uint8_t> d(4);
  auto bytes = compiler::WriteSafetensors({{"w", ElementType::kF32, {1}, &d}}, {});
  ASSERT_TRUE(bytes.ok());
  auto a = vm::ParameterFile::FromBytes("a.safetensors", *bytes);
  auto b = vm::ParameterFile::FromBytes("b.safetensors", *bytes);
  ASSERT_TRUE(a.ok() && b.ok());
  vm::ParameterSet set;
  ASSERT_TRUE(set.Add("", *a).ok());
  ASSERT_TRUE(set.Add("other", *b).ok());  // another scope: fine
  Status s = set.Add("", *b);
  EXPECT_NE(s.message().find("parameter 'w' is in both 'a.safetensors' and 'b.safetensors'"), std::string::npos)
      << s.message();
  auto missing = set.Find("other", "v");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("parameter 'other::v' is not in 'b.safetensors'"), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace kiln
