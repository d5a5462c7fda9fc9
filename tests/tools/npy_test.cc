// tools::DecodeNpy / EncodeNpy (tools/common/npy.h): numpy's header
// grammar, Fortran order, byte order, and raw bits for the types numpy lacks.
#include "tools/common/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::tools {
namespace {

// A version 1.0 .npy file of `header` (padded as numpy pads it) and `data`.
std::string Npy(const std::string& header, const std::string& data) {
  std::string h = header;
  h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(h.size() & 0xff);
  file += static_cast<char>(h.size() >> 8);
  return file + h + data;
}

template <typename T>
std::string Bytes(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

std::vector<uint8_t> AsVector(const std::string& s) { return {s.begin(), s.end()}; }

std::string ErrorOf(const std::string& file, ElementType expected = ElementType::kInvalid) {
  auto t = DecodeNpy(file, expected);
  return t.ok() ? "" : t.status().message();
}

std::string HeaderError(const std::string& header) {
  auto h = ParseNpyHeader(header);
  return h.ok() ? "" : h.status().message();
}

TEST(NpyHeader, FollowsPythonsDictLiteral) {
  // Whitespace anywhere, either quote, keys in any order, trailing commas.
  auto h = ParseNpyHeader("{ \"shape\" : ( 3 , ) ,'fortran_order':False,\n \"descr\":'<f4' , }");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->descr, "<f4");
  EXPECT_FALSE(h->fortran_order);
  EXPECT_EQ(h->shape, std::vector<int64_t>{3});
  h = ParseNpyHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (2,3)}");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_TRUE(h->fortran_order);
  EXPECT_EQ(h->shape, (std::vector<int64_t>{2, 3}));
  h = ParseNpyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': ()}");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_TRUE(h->shape.empty());
}

TEST(NpyHeader, RefusesWhatNumpyRefuses) {
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False}"), "the header has no 'shape' key");
  EXPECT_EQ(HeaderError("{'fortran_order': False, 'shape': (3,)}"), "the header has no 'descr' key");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'shape': (3,)}"), "the header has no 'fortran_order' key");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}"),
            "unexpected key 'x' (numpy writes 'descr', 'fortran_order' and 'shape')");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}"),
            "the key 'descr' appears twice");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}"),
            "'shape' must be a tuple: (N,), not (N)");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}"),
            "'shape' must be a tuple of integers of 0 or more");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}"), "'fortran_order' must be True or False");
  EXPECT_EQ(HeaderError("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x"), "text after the header's dict");
  EXPECT_EQ(HeaderError("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (3,)}"),
            "structured dtypes (a 'descr' list of fields) are not supported; save a plain array");
}

TEST(Npy, ReadsBoolInEitherByteOrderSpelling) {
  for (const char* descr : {"|b1", "<b1"}) {
    auto t = DecodeNpy(Npy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (3,), }",
                           std::string("\x01\x00\x01", 3)));
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status().message();
    EXPECT_EQ(t->type, ElementType::kI1);
    EXPECT_EQ(t->data, (std::vector<uint8_t>{1, 0, 1}));
  }
}

TEST(Npy, RefusesBytesAfterTheData) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(ErrorOf(Npy(header, Bytes<int32_t>({1, 2}))), "");
  EXPECT_EQ(ErrorOf(Npy(header, Bytes<int32_t>({1, 2, 3}))), "4 bytes after the array's data");
  EXPECT_EQ(ErrorOf(Npy(header, Bytes<int32_t>({1}))), "truncated data");
}

TEST(Npy, RefusesUnsupportedDtypesAndVersions) {
  EXPECT_EQ(ErrorOf(Npy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", "abc")),
            "unsupported dtype '<U3'");
  std::string v4 = Npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", Bytes<int32_t>({1}));
  v4[6] = 4;
  EXPECT_EQ(ErrorOf(v4), "format version 4 is not 1, 2 or 3");
}

TEST(Npy, TransposesFortranOrderArrays) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  auto t = DecodeNpy(Npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", Bytes<int32_t>({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t->data, AsVector(Bytes<int32_t>({1, 2, 3, 4, 5, 6})));
  // Rank 3: element (i, j, k) = 100i + 10j + k, at i + 2j + 6k in Fortran order.
  std::vector<int32_t> fortran(2 * 3 * 4), c_order;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        fortran[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
        c_order.push_back(100 * i + 10 * j + k);
      }
  std::string data(reinterpret_cast<const char*>(fortran.data()), fortran.size() * 4);
  t = DecodeNpy(Npy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }", data));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->data.size(), c_order.size() * 4);
  EXPECT_EQ(std::memcmp(t->data.data(), c_order.data(), t->data.size()), 0);
}

TEST(Npy, SwapsBigEndianValues) {
  auto t = DecodeNpy(Npy("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", std::string("\x01\x02\x03\x04", 4)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->data, (std::vector<uint8_t>{4, 3, 2, 1}));
  t = DecodeNpy(Npy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->data, (std::vector<uint8_t>{4, 3, 2, 1, 8, 7, 6, 5}));
}

// The types numpy lacks are read from raw bits of the same width when the
// argument wants them: vm-run's own '<u2'/'|u1' and ml_dtypes' '|V2'/'|V1'.
TEST(Npy, RawBitsFeedTypesNumpyLacks) {
  const std::string bits = Bytes<uint16_t>({0x3fc0, 0xc049, 0x7f80});  // bf16 1.5, -3.140625, inf
  for (const char* descr : {"<u2", "|V2", "<V2"}) {
    auto t = DecodeNpy(Npy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (3,), }", bits),
                       ElementType::kBF16);
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status().message();
    EXPECT_EQ(t->type, ElementType::kBF16) << descr;
    EXPECT_EQ(std::string(t->data.begin(), t->data.end()), bits);
  }
  std::string u2 = Npy("{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", bits);
  // Without a wish, or for a type numpy has (f16 is '<f2'), the dtype decides.
  EXPECT_EQ(DecodeNpy(u2)->type, ElementType::kUI16);
  EXPECT_EQ(DecodeNpy(u2, ElementType::kF16)->type, ElementType::kUI16);
  // The width must match.
  EXPECT_EQ(DecodeNpy(u2, ElementType::kF8E4M3FN)->type, ElementType::kUI16);
  auto f8 = DecodeNpy(Npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "\x38\x7e"), ElementType::kF8E4M3FN);
  ASSERT_TRUE(f8.ok()) << f8.status().message();
  EXPECT_EQ(f8->type, ElementType::kF8E4M3FN);
}

TEST(Npy, RawBitsOfSubByteTypesMustBeStoredAsVmRunStoresThem) {
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
  auto i4 = DecodeNpy(Npy(header, "\xf8\x07\xff"), ElementType::kSI4);  // -8, 7, -1 sign-extended
  ASSERT_TRUE(i4.ok()) << i4.status().message();
  EXPECT_EQ(i4->type, ElementType::kSI4);
  EXPECT_EQ(ErrorOf(Npy(header, "\xf8\x0f\xff"), ElementType::kSI4),
            "element 1 (0x0f) is not a i4 (stored sign-extended in one byte)");
  EXPECT_EQ(ErrorOf(Npy(header, std::string("\x01\x1f\x00", 3)), ElementType::kF4E2M1FN),
            "element 1 (0x1f) is not a f4E2M1FN (stored in the low 4 bits of a byte)");
}

// What EncodeNpy writes, DecodeNpy reads back as it was, for every type
// (those numpy lacks given the argument's type, as vm-run gives it).
TEST(Npy, WrittenFilesReadBack) {
  for (int code = 1; code <= kMaxElementTypeCode; ++code) {
    auto type = ElementTypeFromCode(code);
    ASSERT_TRUE(type);
    vm::HostTensor t;
    t.type = *type;
    t.dims = {2, 2};
    t.data.resize(4 * StorageBytes(*type));
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<uint8_t>(i % 2);  // valid in every type
    auto file = EncodeNpy(t);
    ASSERT_TRUE(file.ok()) << file.status().message();
    auto back = DecodeNpy(*file, *type);
    ASSERT_TRUE(back.ok()) << Name(*type) << ": " << back.status().message();
    EXPECT_EQ(back->type, *type) << Name(*type);
    EXPECT_EQ(back->dims, t.dims);
    EXPECT_EQ(back->data, t.data) << Name(*type);
  }
}

}  // namespace
}  // namespace kiln::tools
