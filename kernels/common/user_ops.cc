// The user-op registry (kernels/common/user_ops.h): one map behind a mutex;
// entries are shared_ptrs, so a function stays alive while a dispatch runs
// it even if it is replaced or removed meanwhile.
#include "kernels/common/user_ops.h"

#include <map>
#include <mutex>

namespace kiln {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const UserOpFn>, std::less<>> ops;
};

Registry& TheRegistry() {
  static Registry* r = new Registry;  // never destroyed: ops may run during exit
  return *r;
}

}  // namespace

void RegisterUserOp(std::string target, UserOpFn fn) {
  auto entry = std::make_shared<const UserOpFn>(std::move(fn));
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  r.ops[std::move(target)] = std::move(entry);
}

bool UnregisterUserOp(std::string_view target) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  auto it = r.ops.find(target);
  if (it == r.ops.end()) return false;
  r.ops.erase(it);
  return true;
}

std::shared_ptr<const UserOpFn> FindUserOp(std::string_view target) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  auto it = r.ops.find(target);
  return it == r.ops.end() ? nullptr : it->second;
}

std::string_view UserOpTarget(const KernelParams& params) {
  const KernelAttr* a = params.Find("call_target_name");
  return a ? std::string_view(a->str) : std::string_view();
}

}  // namespace kiln
