// Status: the error value every runtime and compiler layer returns.
// No exceptions cross a layer boundary; a failing call says what went wrong.
// It lives in kernels/common because that is the lowest layer of the tree
// (DESIGN.md's fixed top level has no base/): every library above, the
// compiler and the tools included, already depends on it.
#pragma once
#include <string>
#include <utility>

namespace kiln {

enum class StatusCode { kOk = 0, kInvalidArgument, kOutOfRange, kUnimplemented, kDataLoss,
                        kResourceExhausted, kFailedPrecondition, kInternal, kDeadlineExceeded,
                        kUnavailable, kNotFound, kCancelled };

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const { return ok() ? "OK" : message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status OutOfRange(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
inline Status Unimplemented(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
inline Status DataLoss(std::string m) { return Status(StatusCode::kDataLoss, std::move(m)); }
inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
// What the machine lacks now (no Vulkan device); another machine may have it.
inline Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
// A named thing that does not exist: a missing file, an unknown function.
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
// Work its caller asked to stop (a call cancelled from another thread).
inline Status Cancelled(std::string m) { return Status(StatusCode::kCancelled, std::move(m)); }

// StatusOr<T>: a value or the error that prevented it.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status s) : status_(std::move(s)) {}  // NOLINT: implicit by design
  StatusOr(T v) : value_(std::move(v)), has_value_(true) {}  // NOLINT
  bool ok() const { return has_value_; }
  const Status& status() const { return status_; }
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }

 private:
  Status status_;
  T value_{};
  bool has_value_ = false;
};

}  // namespace kiln

#define KILN_CONCAT_INNER(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_INNER(a, b)
#define KILN_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::kiln::Status _kiln_s = (expr);          \
    if (!_kiln_s.ok()) return _kiln_s;        \
  } while (0)
#define KILN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp.value())
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL(KILN_CONCAT(_kiln_so_, __LINE__), lhs, expr)
