// What the conformance run says about each op: for every test function, the
// ops of its chunk (with the element-type family they ran on) and the
// outcome on the device. `kiln-conformance --op-status=FILE` writes it as
// tab-separated lines; scripts/gen_ops_doc.py turns the files of several
// devices into docs/ops.md.
#pragma once
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <tuple>

namespace kiln::conformance {

class OpStatus {
 public:
  enum class Outcome { kPassed, kFailed, kUnsupported };

  // Records one test function of `chunk_text`. For an unsupported function,
  // `reason` is the compiler's or runtime's message; it is charged to the op
  // it names (every op of the chunk if it names none).
  void Record(const std::string& chunk_text, Outcome outcome, const std::string& reason);
  // Lines "op<TAB>family<TAB>passed<TAB>failed<TAB>unsupported<TAB>reason".
  void Write(std::ostream& out) const;

 private:
  struct Counts {
    int passed = 0, failed = 0, unsupported = 0;
    std::string reason;  // the first unsupported reason
  };
  std::map<std::pair<std::string, std::string>, Counts> by_op_;
};

}  // namespace kiln::conformance
