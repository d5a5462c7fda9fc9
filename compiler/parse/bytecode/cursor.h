// A bounds-checked read position in an MLIR bytecode buffer: the primitives
// of the format (bytes, PrefixVarInts, zigzag signed varints, sections,
// null-terminated strings). Every read checks the bytes left first; a
// failure throws BytecodeError with the absolute file offset, which the
// reader's entry point turns into `file: error: ... (at byte N)`.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace kiln::ir::bytecode {

struct BytecodeError {
  size_t offset = 0;
  std::string message;
};

[[noreturn]] inline void Fail(size_t offset, std::string message) { throw BytecodeError{offset, std::move(message)}; }

// A slice of the file; `offset` is where it starts in the file.
struct Span {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  std::string_view str() const { return {reinterpret_cast<const char*>(data), size}; }
};

class Cursor {
 public:
  explicit Cursor(Span s) : s_(s) {}
  bool empty() const { return pos_ == s_.size; }
  size_t left() const { return s_.size - pos_; }
  size_t offset() const { return s_.offset + pos_; }  // absolute, for messages
  size_t pos() const { return pos_; }

  [[noreturn]] void Error(const std::string& message) const { Fail(offset(), message); }

  uint8_t Byte() {
    if (empty()) Error("unexpected end of data");
    return s_.data[pos_++];
  }

  Span Bytes(uint64_t n) {
    if (n > left()) Error("needs " + std::to_string(n) + " bytes, only " + std::to_string(left()) + " left");
    Span out{s_.data + pos_, static_cast<size_t>(n), offset()};
    pos_ += static_cast<size_t>(n);
    return out;
  }

  // PrefixVarInt: the count of trailing zero bits of the first byte is the
  // number of bytes that follow; a zero first byte means eight follow.
  uint64_t VarInt() {
    const size_t at = offset();
    uint8_t first = Byte();
    if (first & 1) return first >> 1;
    int extra = first == 0 ? 8 : __builtin_ctz(first);
    if (static_cast<size_t>(extra) > left()) Fail(at, "truncated varint");
    uint64_t v = 0;
    for (int i = 0; i < extra; ++i) v |= static_cast<uint64_t>(s_.data[pos_ + i]) << (8 * i);
    pos_ += extra;
    if (first == 0) return v;
    return (v << (7 - extra)) | (static_cast<uint64_t>(first) >> (extra + 1));
  }

  int64_t SignedVarInt() {
    uint64_t u = VarInt();
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  }

  // A varint whose low bit is a flag: (value << 1) | flag.
  uint64_t VarIntWithFlag(bool* flag) {
    uint64_t u = VarInt();
    *flag = u & 1;
    return u >> 1;
  }

  // A count of items that each take at least `min_bytes` bytes: checked
  // against the data left, so that a hostile count cannot make the reader
  // reserve gigabytes before it runs out of input.
  uint64_t Count(const char* what, size_t min_bytes = 1) {
    const size_t at = offset();
    uint64_t n = VarInt();
    if (min_bytes && n > left() / min_bytes)
      Fail(at, std::string(what) + " count " + std::to_string(n) + " exceeds the " + std::to_string(left()) +
                   " bytes left");
    return n;
  }

  std::string_view CString() {
    const void* nul = memchr(s_.data + pos_, 0, left());
    if (!nul) Error("string without a terminating NUL");
    size_t n = static_cast<const uint8_t*>(nul) - (s_.data + pos_);
    std::string_view out(reinterpret_cast<const char*>(s_.data + pos_), n);
    pos_ += n + 1;
    return out;
  }

  // Skips 0xCB padding to `alignment` (a power of two, relative to the
  // file start, as the writer aligns).
  void AlignTo(uint64_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 4096)
      Error("invalid alignment " + std::to_string(alignment));
    while ((offset() & (alignment - 1)) != 0)
      if (Byte() != 0xCB) Fail(offset() - 1, "expected alignment padding byte 0xCB");
  }

  // section { idAndIsAligned: byte, length: varint, alignment: varint?,
  // padding, data }.
  Span Section(uint8_t* id) {
    uint8_t b = Byte();
    *id = b & 0x7F;
    uint64_t length = VarInt();
    if (b & 0x80) AlignTo(VarInt());
    return Bytes(length);
  }

 private:
  Span s_;
  size_t pos_ = 0;
};

}  // namespace kiln::ir::bytecode
