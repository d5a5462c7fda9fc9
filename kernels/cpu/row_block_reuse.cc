#include "kernels/cpu/row_block_reuse.h"

#include <cstring>

namespace kiln::cpu {
namespace {

// Structural comparison of two programs' values, memoized per pair so that
// shared subexpressions (a DAG) are compared once each.
class Matcher {
 public:
  Matcher(const ScalarProgram& pa, const std::vector<ProgramInput>& ia, const ScalarProgram& pb,
          const std::vector<ProgramInput>& ib)
      : pa_(pa), ia_(ia), pb_(pb), ib_(ib), memo_(pa.num_values() * pb.num_values(), kUnknown) {}

  bool Same(size_t a, size_t b) {
    int8_t& m = memo_[a * pb_.num_values() + b];
    if (m == kUnknown) m = Compare(a, b) ? kYes : kNo;
    return m == kYes;
  }

 private:
  static constexpr int8_t kUnknown = 0, kYes = 1, kNo = 2;

  bool Compare(size_t a, size_t b) {
    const size_t na = pa_.param_types.size(), nb = pb_.param_types.size();
    if (pa_.ValueType(a) != pb_.ValueType(b)) return false;
    if (a < na || b < nb) return a < na && b < nb && a < ia_.size() && b < ib_.size() && ia_[a] == ib_[b];
    const ScalarInstr& x = pa_.instrs[a - na];
    const ScalarInstr& y = pb_.instrs[b - nb];
    if (x.op != y.op || x.num_operands != y.num_operands || x.num_operands > 3 || x.attr0 != y.attr0 ||
        x.attr1 != y.attr1 || x.constant.i != y.constant.i ||
        std::memcmp(&x.constant.re, &y.constant.re, sizeof(double)) != 0 ||
        std::memcmp(&x.constant.im, &y.constant.im, sizeof(double)) != 0)
      return false;
    for (int o = 0; o < x.num_operands; ++o) {
      // Operands are defined before use (the interpreter checked), so the
      // recursion only goes down and ends.
      if (x.operands[o] >= a || y.operands[o] >= b) return false;
      if (!Same(x.operands[o], y.operands[o])) return false;
    }
    return true;
  }

  const ScalarProgram& pa_;
  const std::vector<ProgramInput>& ia_;
  const ScalarProgram& pb_;
  const std::vector<ProgramInput>& ib_;
  std::vector<int8_t> memo_;
};

bool Comparable(const ScalarProgram& p) { return p.num_values() <= kMaxReuseValues; }

}  // namespace

bool SameValue(const ScalarProgram& pa, const std::vector<ProgramInput>& ia, size_t a, const ScalarProgram& pb,
               const std::vector<ProgramInput>& ib, size_t b) {
  if (!Comparable(pa) || !Comparable(pb) || a >= pa.num_values() || b >= pb.num_values()) return false;
  return Matcher(pa, ia, pb, ib).Same(a, b);
}

int64_t FindProducerValue(const ScalarProgram& prog, const std::vector<ProgramInput>& ins,
                          const ScalarProgram& producer, const std::vector<ProgramInput>& producer_ins) {
  if (!Comparable(prog) || !Comparable(producer) || producer.results.size() != 1 ||
      producer.results[0] >= producer.num_values())
    return -1;
  Matcher m(prog, ins, producer, producer_ins);
  for (size_t v = prog.param_types.size(); v < prog.num_values(); ++v)
    if (m.Same(v, producer.results[0])) return static_cast<int64_t>(v);
  return -1;
}

ScalarProgram ReplaceWithParams(const ScalarProgram& prog, const std::vector<size_t>& replaced,
                                std::vector<int64_t>* sources) {
  const size_t np = prog.param_types.size(), nv = prog.num_values();
  std::vector<int64_t> replacement(nv, -1);  // index into `replaced`
  for (size_t j = 0; j < replaced.size(); ++j) replacement[replaced[j]] = static_cast<int64_t>(j);
  // Liveness from the results down; a replaced value needs nothing below it.
  std::vector<bool> live(nv, false);
  for (uint16_t r : prog.results) live[r] = true;
  for (size_t v = nv; v-- > np;) {
    if (!live[v] || replacement[v] >= 0) continue;
    const ScalarInstr& in = prog.instrs[v - np];
    for (int o = 0; o < in.num_operands; ++o) live[in.operands[o]] = true;
  }
  ScalarProgram out;
  std::vector<uint16_t> renumber(nv, 0);
  sources->clear();
  for (size_t v = 0; v < np; ++v) {
    if (!live[v]) continue;
    renumber[v] = static_cast<uint16_t>(out.param_types.size());
    out.param_types.push_back(prog.param_types[v]);
    sources->push_back(static_cast<int64_t>(v));
  }
  for (size_t j = 0; j < replaced.size(); ++j) {
    if (!live[replaced[j]]) continue;
    renumber[replaced[j]] = static_cast<uint16_t>(out.param_types.size());
    out.param_types.push_back(prog.ValueType(replaced[j]));
    sources->push_back(-1 - static_cast<int64_t>(j));
  }
  const size_t new_np = out.param_types.size();
  for (size_t v = np; v < nv; ++v) {
    if (!live[v] || replacement[v] >= 0) continue;
    ScalarInstr in = prog.instrs[v - np];
    for (int o = 0; o < in.num_operands; ++o) in.operands[o] = renumber[in.operands[o]];
    renumber[v] = static_cast<uint16_t>(new_np + out.instrs.size());
    out.instrs.push_back(in);
  }
  for (uint16_t r : prog.results) out.results.push_back(renumber[r]);
  return out;
}

}  // namespace kiln::cpu
