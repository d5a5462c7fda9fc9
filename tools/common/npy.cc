// .npy files for the vm-* tools (tools/common/npy.h).
#include "tools/common/npy.h"

#include <cstring>
#include <sstream>

#include "kernels/common/file_io.h"
#include "tools/common/input_parse.h"

namespace kiln::tools {

namespace {
struct NpyType {
  ElementType type;
  const char* descr;
};
// numpy's names; types numpy lacks are stored as raw bits.
constexpr NpyType kNpyTypes[] = {
    {ElementType::kI1, "|b1"},   {ElementType::kSI8, "|i1"},  {ElementType::kSI16, "<i2"}, {ElementType::kSI32, "<i4"},
    {ElementType::kSI64, "<i8"}, {ElementType::kUI8, "|u1"},  {ElementType::kUI16, "<u2"}, {ElementType::kUI32, "<u4"},
    {ElementType::kUI64, "<u8"}, {ElementType::kF16, "<f2"},  {ElementType::kF32, "<f4"},  {ElementType::kF64, "<f8"},
    {ElementType::kC64, "<c8"},  {ElementType::kC128, "<c16"}};
}  // namespace

StatusOr<vm::HostTensor> ReadNpy(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<uint8_t> bytes(text.begin(), text.end());
  auto bad = [&](const std::string& why) { return InvalidArgument("'" + path + "' is not a valid .npy file: " + why); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return bad("missing magic");
  size_t header_len, header_start;
  if (bytes[6] == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) return bad("truncated");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (size_t{bytes[11]} << 24);
    header_start = 12;
  }
  if (header_len > bytes.size() - header_start) return bad("truncated header");
  std::string header(bytes.begin() + header_start, bytes.begin() + header_start + header_len);
  auto field = [&](const std::string& key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return "";
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) return "";
    size_t s = header.find_first_not_of(' ', colon + 1);
    if (s == std::string::npos) return "";
    if (header[s] == '\'') {
      size_t e = header.find('\'', s + 1);
      return e == std::string::npos ? "" : header.substr(s + 1, e - s - 1);
    }
    if (header[s] == '(') {
      size_t e = header.find(')', s);
      return e == std::string::npos ? "" : header.substr(s + 1, e - s - 1);
    }
    size_t e = header.find_first_of(",}", s);
    return header.substr(s, e == std::string::npos ? std::string::npos : e - s);
  };
  vm::HostTensor t;
  std::string descr = field("descr");
  for (const auto& nt : kNpyTypes)
    if (descr == nt.descr) t.type = nt.type;
  if (descr == "|b1") t.type = ElementType::kI1;
  if (t.type == ElementType::kInvalid) return bad("unsupported dtype '" + descr + "'");
  if (field("fortran_order") == "True") return bad("fortran_order arrays are not supported");
  std::stringstream shape(field("shape"));
  std::string dim;
  int64_t n = 1;
  while (std::getline(shape, dim, ',')) {
    size_t s = dim.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    int64_t d;
    if (!ParseInteger(dim.substr(s), &d) || d < 0 || d > kMaxInputElements) return bad("bad shape");
    if (d != 0 && n > kMaxInputElements / d) return bad("too many elements");
    n *= d;
    t.dims.push_back(d);
  }
  size_t need = static_cast<size_t>(n) * StorageBytes(t.type);
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < need) return bad("truncated data");
  t.data.assign(bytes.begin() + data_start, bytes.begin() + data_start + need);
  return t;
}

Status WriteNpy(const std::string& path, const vm::HostTensor& t) {
  // A tuple or token has no array form: an empty .npy would lose it silently.
  if (t.is_tuple) return InvalidArgument("a tuple cannot be written to .npy ('" + path + "')");
  if (t.is_token) return InvalidArgument("a token cannot be written to .npy ('" + path + "')");
  std::string descr;
  for (const auto& nt : kNpyTypes)
    if (nt.type == t.type) descr = nt.descr;
  if (descr.empty()) descr = StorageBytes(t.type) == 1 ? "|u1" : (StorageBytes(t.type) == 2 ? "<u2" : "|u1");
  std::string shape;
  for (int64_t d : t.dims) shape += std::to_string(d) + ",";
  if (t.dims.size() > 1) shape.pop_back();
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string file("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  file += static_cast<char>(len & 0xff);
  file += static_cast<char>(len >> 8);
  file += header;
  file.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return WriteFile(path, file);
}

}  // namespace kiln::tools
