// Bytecode encoding and decoding, drawn from the one instruction table
// (vm/opcodes.def). Header-only so the compiler's emitter and the runtime
// share it without the compiler linking the runtime.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kiln::vm {

enum class Opcode : uint8_t {
  kInvalid = 0,
#define KILN_OPCODE(name, code, mnemonic, kinds, effect) name = code,
#include "vm/opcodes.def"
#undef KILN_OPCODE
};

namespace opcode_table {
// The code of every row, in table order.
inline constexpr int kCodes[] = {
#define KILN_OPCODE(name, code, mnemonic, kinds, effect) code,
#include "vm/opcodes.def"
#undef KILN_OPCODE
};
constexpr int MaxCode() {
  int m = 0;
  for (int c : kCodes) m = c > m ? c : m;
  return m;
}
// Row k holds code k (1-based): codes are appended in order, never skipped.
constexpr bool Dense() {
  for (int k = 0; k < static_cast<int>(std::size(kCodes)); ++k)
    if (kCodes[k] != k + 1) return false;
  return true;
}
}  // namespace opcode_table

// The largest opcode, derived from the table; kNumOpcodes rows follow
// kInvalid (0).
constexpr int kMaxOpcode = opcode_table::MaxCode();
constexpr int kNumOpcodes = static_cast<int>(std::size(opcode_table::kCodes));
static_assert(opcode_table::Dense() && kNumOpcodes == kMaxOpcode,
              "vm/opcodes.def: rows must have codes 1, 2, 3, ... in order (append-only)");

struct OpcodeInfo {
  std::string_view mnemonic;  // empty for unknown codes
  std::string_view kinds;     // operand kinds, see opcodes.def
  std::string_view effect;    // one register-transfer line, see opcodes.def
};

inline const OpcodeInfo& GetOpcodeInfo(uint8_t code) {
  static constexpr auto table = [] {
    std::array<OpcodeInfo, kMaxOpcode + 1> t{};
#define KILN_OPCODE(name, code, mnemonic, kinds, effect) t[code] = OpcodeInfo{mnemonic, kinds, effect};
#include "vm/opcodes.def"
#undef KILN_OPCODE
    return t;
  }();
  static constexpr OpcodeInfo kUnknown{};
  return code <= kMaxOpcode ? table[code] : kUnknown;
}

// One decoded operand. Lists keep their entries in `list`.
struct Operand {
  char kind = 0;
  uint64_t value = 0;           // register/index/immediate (k: the i64 bits)
  std::vector<uint32_t> list;   // I and R
};

struct Instruction {
  Opcode op = Opcode::kInvalid;
  uint32_t pc = 0;       // offset of the opcode byte
  uint32_t next_pc = 0;  // offset after the instruction
  std::vector<Operand> operands;
  // The values of the first four operands (0 for lists), filled in by the
  // verifier, jump targets as instruction indices: the interpreter's fast
  // paths read them without following `operands`.
  uint32_t a[4] = {0, 0, 0, 0};
};

// Decodes the instruction at `pc`. Returns false (and leaves `out` partial)
// if the opcode is unknown or an operand runs past the end of `code`.
// List lengths are bounded by the remaining bytes, so a hostile count cannot
// make the decoder allocate or read beyond the function.
inline bool DecodeInstruction(std::span<const uint8_t> code, uint32_t pc, Instruction* out) {
  if (pc >= code.size()) return false;
  const OpcodeInfo& info = GetOpcodeInfo(code[pc]);
  if (info.mnemonic.empty()) return false;
  out->op = static_cast<Opcode>(code[pc]);
  out->pc = pc;
  out->operands.clear();
  size_t at = pc + 1;
  auto read_u32 = [&](uint32_t* v) {
    if (code.size() - at < 4) return false;
    std::memcpy(v, code.data() + at, 4);
    at += 4;
    return true;
  };
  for (char kind : info.kinds) {
    Operand o;
    o.kind = kind;
    if (kind == 'k') {
      if (code.size() - at < 8) return false;
      std::memcpy(&o.value, code.data() + at, 8);
      at += 8;
    } else if (kind == 'I' || kind == 'R') {
      uint32_t n;
      if (!read_u32(&n)) return false;
      if (n > (code.size() - at) / 4) return false;
      o.list.resize(n);
      for (uint32_t j = 0; j < n; ++j) read_u32(&o.list[j]);
    } else {
      uint32_t v;
      if (!read_u32(&v)) return false;
      o.value = v;
    }
    out->operands.push_back(std::move(o));
  }
  out->next_pc = static_cast<uint32_t>(at);
  return true;
}

// A jump-target operand (kind 'p'): a byte offset into the function's
// bytecode. Its own type so that a register cannot be emitted where a target
// belongs, or the reverse.
struct BytecodeTarget {
  uint32_t pc = 0;
};

// Appends instructions; the compiler's emitter.
//
// Emit(op, operands...) is the typed form: the operands given are checked
// against the opcode's kinds string (vm/opcodes.def) before anything is
// written, so an operand missing, extra or out of order cannot produce
// bytecode that decodes differently from what the emitter meant. The check
// is by operand class (it cannot tell an i64 register from a ref register,
// both u32):
//   u32 or enum         one of i r c e f s t u
//   BytecodeTarget      p
//   int64_t             k
//   a span of u32       I or R (count, then the entries)
// On a mismatch nothing is written and error() names the first one (the
// check is a few compares per instruction, so it is always on).
class BytecodeWriter {
 public:
  uint32_t pc() const { return static_cast<uint32_t>(code_.size()); }

  // Returns the offset of the instruction's jump target (for PatchTarget) if
  // it has one, else the offset of its opcode byte; UINT32_MAX on a mismatch.
  template <typename... Args>
  uint32_t Emit(Opcode op, const Args&... args) {
    const std::string_view kinds = GetOpcodeInfo(static_cast<uint8_t>(op)).kinds;
    const char given[] = {OperandClass<Args>()..., '\0'};
    if (!Matches(kinds, std::string_view(given, sizeof...(Args)))) {
      if (error_.empty())
        error_ = "bytecode emitter: '" + std::string(GetOpcodeInfo(static_cast<uint8_t>(op)).mnemonic) +
                 "' takes operands \"" + std::string(kinds) + "\" but was given \"" +
                 std::string(given, sizeof...(Args)) + "\" (w: u32, p: target, k: i64, L: list)";
      return UINT32_MAX;
    }
    uint32_t target_at = pc();
    Op(op);
    (Put(args, &target_at), ...);
    return target_at;
  }
  // The first mismatch Emit refused, or empty.
  const std::string& error() const { return error_; }

  // The untyped pieces Emit is made of.
  void Op(Opcode op) { code_.push_back(static_cast<uint8_t>(op)); }
  void U32(uint32_t v) { Append(&v, 4); }
  void I64(int64_t v) { Append(&v, 8); }
  void List(std::span<const uint32_t> regs) {
    U32(static_cast<uint32_t>(regs.size()));
    for (uint32_t r : regs) U32(r);
  }
  // Reserves a u32 jump target to patch later; returns its offset.
  uint32_t PlaceholderTarget() {
    uint32_t at = pc();
    U32(0);
    return at;
  }
  void PatchTarget(uint32_t at, uint32_t target) { std::memcpy(code_.data() + at, &target, 4); }
  std::vector<uint8_t>& bytes() { return code_; }

 private:
  template <typename T>
  static constexpr char OperandClass() {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, BytecodeTarget>) {
      return 'p';
    } else if constexpr (std::is_same_v<U, int64_t>) {
      return 'k';
    } else if constexpr (std::is_convertible_v<const U&, std::span<const uint32_t>>) {
      return 'L';
    } else {
      static_assert((std::is_integral_v<U> || std::is_enum_v<U>) && sizeof(U) <= 4,
                    "a bytecode operand is a u32 (or enum), BytecodeTarget, int64_t or a span of u32");
      return 'w';
    }
  }
  static bool Matches(std::string_view kinds, std::string_view given) {
    if (kinds.size() != given.size()) return false;
    for (size_t i = 0; i < kinds.size(); ++i) {
      const char k = kinds[i], g = given[i];
      const bool ok = k == 'p'               ? g == 'p'
                      : k == 'k'             ? g == 'k'
                      : k == 'I' || k == 'R' ? g == 'L'
                                             : g == 'w';
      if (!ok) return false;
    }
    return true;
  }
  template <typename T>
  void Put(const T& v, uint32_t* target_at) {
    constexpr char c = OperandClass<T>();
    if constexpr (c == 'p') {
      *target_at = pc();
      U32(v.pc);
    } else if constexpr (c == 'k') {
      I64(v);
    } else if constexpr (c == 'L') {
      List(std::span<const uint32_t>(v));
    } else {
      U32(static_cast<uint32_t>(v));
    }
  }
  void Append(const void* p, size_t n) {
    auto b = static_cast<const uint8_t*>(p);
    code_.insert(code_.end(), b, b + n);
  }
  std::vector<uint8_t> code_;
  std::string error_;
};

}  // namespace kiln::vm
