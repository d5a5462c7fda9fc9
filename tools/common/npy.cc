// .npy files for the vm-* tools (tools/common/npy.h). The format:
// numpy.org/doc/stable/reference/generated/numpy.lib.format.html.
#include "tools/common/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>

#include "kernels/common/file_io.h"
#include "kernels/scalar/scalar.h"
#include "tools/common/input_parse.h"

namespace kiln::tools {
namespace {

// ---- the header: a Python dict literal --------------------------------------

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  StatusOr<NpyHeader> Parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    if (!Eat('{')) return Error("the header is not a dict literal ('{...}')");
    while (!Peek('}')) {
      KILN_ASSIGN_OR_RETURN(std::string key, String());
      if (!Eat(':')) return Error("expected ':' after '" + key + "'");
      auto once = [&](bool* seen) -> Status {
        if (*seen) return Error("the key '" + key + "' appears twice");
        *seen = true;
        return Status::Ok();
      };
      if (key == "descr") {
        KILN_RETURN_IF_ERROR(once(&seen_descr));
        if (Peek('['))
          return Error("structured dtypes (a 'descr' list of fields) are not supported; save a plain array");
        KILN_ASSIGN_OR_RETURN(h.descr, String());
      } else if (key == "fortran_order") {
        KILN_RETURN_IF_ERROR(once(&seen_order));
        if (Word("True")) h.fortran_order = true;
        else if (Word("False")) h.fortran_order = false;
        else return Error("'fortran_order' must be True or False");
      } else if (key == "shape") {
        KILN_RETURN_IF_ERROR(once(&seen_shape));
        KILN_ASSIGN_OR_RETURN(h.shape, Shape());
      } else {
        return Error("unexpected key '" + key + "' (numpy writes 'descr', 'fortran_order' and 'shape')");
      }
      if (!Eat(',')) break;
    }
    if (!Eat('}')) return Error("expected ',' or '}' in the header");
    SkipSpace();
    if (pos_ != s_.size()) return Error("text after the header's dict");
    if (!seen_descr) return Error("the header has no 'descr' key");
    if (!seen_order) return Error("the header has no 'fortran_order' key");
    if (!seen_shape) return Error("the header has no 'shape' key");
    return h;
  }

 private:
  Status Error(const std::string& why) const { return InvalidArgument(why); }

  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool Word(std::string_view w) {
    SkipSpace();
    if (s_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) return false;
    pos_ = end;
    return true;
  }
  // '...' or "..."; numpy's keys and dtype strings need no escapes.
  StatusOr<std::string> String() {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return Error("expected a quoted string in the header");
    char quote = s_[pos_];
    size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return Error("an unterminated string in the header");
    std::string v(s_.substr(pos_ + 1, end - pos_ - 1));
    if (v.find('\\') != std::string::npos) return Error("escapes in the header's strings are not supported");
    pos_ = end + 1;
    return v;
  }
  // (), (3,), (2, 3) — a one-element tuple needs its comma, as in Python.
  StatusOr<std::vector<int64_t>> Shape() {
    if (!Eat('(')) return Error("'shape' must be a tuple of integers");
    std::vector<int64_t> dims;
    bool comma = false;
    while (!Peek(')')) {
      SkipSpace();
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      std::string digits(s_.substr(start, pos_ - start));
      if (digits.empty()) return Error("'shape' must be a tuple of integers of 0 or more");
      // Past 2^32 the count is refused as too many elements; keep it in range.
      int64_t d = digits.size() > 12 ? kMaxInputElements + 1 : std::stoll(digits);
      dims.push_back(d);
      comma = Eat(',');
      if (!comma) break;
    }
    if (!Eat(')')) return Error("'shape' must be a tuple of integers");
    if (dims.size() == 1 && !comma) return Error("'shape' must be a tuple: (N,), not (N)");
    return dims;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---- dtypes -------------------------------------------------------------------

struct NpyType {
  ElementType type;
  char kind;  // numpy's kind: b, i, u, f, c
  int size;
};
// The types numpy has; the others are stored as raw bits (IsRawBitsType).
constexpr NpyType kNpyTypes[] = {
    {ElementType::kI1, 'b', 1},   {ElementType::kSI8, 'i', 1},  {ElementType::kSI16, 'i', 2},
    {ElementType::kSI32, 'i', 4}, {ElementType::kSI64, 'i', 8}, {ElementType::kUI8, 'u', 1},
    {ElementType::kUI16, 'u', 2}, {ElementType::kUI32, 'u', 4}, {ElementType::kUI64, 'u', 8},
    {ElementType::kF16, 'f', 2},  {ElementType::kF32, 'f', 4},  {ElementType::kF64, 'f', 8},
    {ElementType::kC64, 'c', 8},  {ElementType::kC128, 'c', 16}};

const NpyType* NumpyTypeOf(ElementType t) {
  for (const auto& nt : kNpyTypes)
    if (nt.type == t) return &nt;
  return nullptr;
}

struct Dtype {
  ElementType type = ElementType::kInvalid;
  bool raw_bits = false;    // 'V' (void) or an unsigned integer: may hold a type numpy lacks
  bool big_endian = false;
};

// "<f4", "|b1", ">i8", "|V2"; nullopt for what numpy can hold but Kiln not.
std::optional<Dtype> ParseDtype(const std::string& descr) {
  if (descr.size() < 3 || std::string_view("<>|=").find(descr[0]) == std::string_view::npos) return std::nullopt;
  char kind = descr[1];
  std::string size_text = descr.substr(2);
  if (size_text.size() > 2 || !std::all_of(size_text.begin(), size_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int size = std::stoi(size_text);
  Dtype d;
  d.big_endian = descr[0] == '>' && size > 1;
  if (kind == 'V') {
    // Raw bytes: ml_dtypes' bfloat16, float8_* and int4 save as these.
    if (size == 1) d.type = ElementType::kUI8;
    else if (size == 2) d.type = ElementType::kUI16;
    else return std::nullopt;
    d.raw_bits = true;
    return d;
  }
  for (const auto& nt : kNpyTypes)
    if (nt.kind == kind && nt.size == size) d.type = nt.type;
  if (d.type == ElementType::kInvalid) return std::nullopt;
  d.raw_bits = kind == 'u';
  return d;
}

// Raw bits of a sub-byte type must be stored as vm-run writes them, so that
// the VM never sees a value outside the type: integers sign- or
// zero-extended to the byte, floats in the low bits.
Status CheckRawBits(const vm::HostTensor& t) {
  const int bits = BitWidth(t.type);
  if (bits >= 8) return Status::Ok();
  for (size_t i = 0; i < t.data.size(); ++i) {
    uint8_t b = t.data[i];
    bool ok = IsInteger(t.type) ? static_cast<uint8_t>(ref::WrapInteger(t.type, KindOf(t.type) == ElementKind::kSigned
                                                                                     ? static_cast<int8_t>(b)
                                                                                     : b)) == b
                                : (b >> bits) == 0;
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", b);
      return InvalidArgument("element " + std::to_string(i) + " (" + hex + ") is not a " + std::string(Name(t.type)) +
                             (IsInteger(t.type) ? " (stored " +
                                                      std::string(KindOf(t.type) == ElementKind::kSigned ? "sign" : "zero") +
                                                      "-extended in one byte)"
                                                : " (stored in the low " + std::to_string(bits) + " bits of a byte)"));
    }
  }
  return Status::Ok();
}

// Column-major (Fortran-order) data to row-major.
std::vector<uint8_t> FromFortranOrder(const std::vector<uint8_t>& data, const std::vector<int64_t>& dims, size_t width) {
  const size_t rank = dims.size();
  std::vector<uint8_t> out(data.size());
  // Column-major strides, in elements.
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = 1; k < rank; ++k) stride[k] = stride[k - 1] * dims[k - 1];
  std::vector<int64_t> index(rank, 0);
  const size_t n = width ? data.size() / width : 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < rank; ++k) src += index[k] * stride[k];
    std::memcpy(out.data() + i * width, data.data() + src * width, width);
    for (size_t k = rank; k-- > 0;) {  // the next row-major index: the last dimension fastest
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

StatusOr<NpyHeader> ParseNpyHeader(std::string_view text) { return HeaderParser(text).Parse(); }

StatusOr<vm::HostTensor> DecodeNpy(std::string_view bytes, ElementType expected) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") return InvalidArgument("missing magic");
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) return InvalidArgument("format version " + std::to_string(major) + " is not 1, 2 or 3");
  auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<uint8_t>(bytes[i])); };
  size_t header_len, header_start;
  if (major == 1) {
    header_len = byte(8) | byte(9) << 8;
    header_start = 10;
  } else {
    if (bytes.size() < 12) return InvalidArgument("truncated");
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    header_start = 12;
  }
  if (header_len > bytes.size() - header_start) return InvalidArgument("truncated header");
  auto header = ParseNpyHeader(bytes.substr(header_start, header_len));
  if (!header.ok()) return header.status();

  auto dtype = ParseDtype(header->descr);
  if (!dtype) return InvalidArgument("unsupported dtype '" + header->descr + "'");
  vm::HostTensor t;
  t.type = dtype->type;
  // Raw bits of the same width feed a type numpy lacks.
  const bool retype = dtype->raw_bits && expected != ElementType::kInvalid && !NumpyTypeOf(expected) &&
                      StorageBytes(expected) == StorageBytes(t.type);
  int64_t n = 1;
  for (int64_t d : header->shape) {
    if (d > kMaxInputElements || (d != 0 && n > kMaxInputElements / d))
      return InvalidArgument("too many elements (the limit is 2^32 = " + std::to_string(kMaxInputElements) + ")");
    n *= d;
  }
  t.dims = header->shape;
  const size_t width = StorageBytes(t.type);
  const size_t need = static_cast<size_t>(n) * width;
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < need) return InvalidArgument("truncated data");
  if (bytes.size() - data_start > need)
    return InvalidArgument(std::to_string(bytes.size() - data_start - need) + " bytes after the array's data");
  t.data.assign(bytes.begin() + data_start, bytes.end());
  if (dtype->big_endian) {  // each value (each part of a complex value) to little-endian
    const size_t part = IsComplex(t.type) ? width / 2 : width;
    for (size_t i = 0; i < t.data.size(); i += part) std::reverse(t.data.begin() + i, t.data.begin() + i + part);
  }
  if (header->fortran_order && t.dims.size() > 1) t.data = FromFortranOrder(t.data, t.dims, width);
  if (IsBool(t.type))  // numpy's bools are 0 or 1; any other byte means true
    for (auto& b : t.data) b = b != 0;
  if (retype) {
    t.type = expected;
    KILN_RETURN_IF_ERROR(CheckRawBits(t));
  }
  return t;
}

StatusOr<vm::HostTensor> ReadNpy(const std::string& path, ElementType expected) {
  KILN_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  auto t = DecodeNpy(bytes, expected);
  if (!t.ok()) return InvalidArgument("'" + path + "' is not a valid .npy file: " + t.status().message());
  return t;
}

StatusOr<std::string> EncodeNpy(const vm::HostTensor& t) {
  // A tuple or token has no array form: an empty .npy would lose it silently.
  if (t.is_tuple) return InvalidArgument("a tuple cannot be written to .npy");
  if (t.is_token) return InvalidArgument("a token cannot be written to .npy");
  std::string descr;
  if (const NpyType* nt = NumpyTypeOf(t.type)) {
    descr = std::string(nt->size == 1 ? "|" : "<") + nt->kind + std::to_string(nt->size);
  } else {
    // Raw bits; every type numpy lacks is stored in one or two bytes.
    descr = StorageBytes(t.type) == 2 ? "<u2" : "|u1";
  }
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
  return file;
}

Status WriteNpy(const std::string& path, const vm::HostTensor& t) {
  auto file = EncodeNpy(t);
  if (!file.ok()) return InvalidArgument(file.status().message() + " ('" + path + "')");
  return WriteFile(path, *file);
}

}  // namespace kiln::tools
