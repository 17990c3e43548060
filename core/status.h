// Errors as values: every fallible function below main returns Status or Result<T>.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace convparity {

enum class StatusCode {
  kOk,
  kInvalid,      // not a legal convolution / malformed input (user error, exit 2)
  kUnsupported,  // legal, but a system under test declines it (verdict: skipped)
  kLimit,        // over a configured size limit (user error, exit 2)
  kInternal,     // a bug of the harness (exit 3)
  kTimedOut,     // a system under test gave no answer in time (an exec: child; verdict: hung)
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status Invalid(std::string m) { return {StatusCode::kInvalid, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status Limit(std::string m) { return {StatusCode::kLimit, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with where it happened ("case.json: ...").
  Status WithContext(const std::string& where) const {
    return ok() ? *this : Status(code_, where + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  // From a result of a type that converts to T (a derived class's pointer to its base's).
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U, T> && !std::is_same_v<U, T>>>
  Result(Result<U>&& other) : status_(other.status()) {  // NOLINT: implicit by design
    if (other.ok()) value_.emplace(std::move(other).value());
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace convparity

#define CP_RETURN_IF_ERROR(expr)       \
  do {                                 \
    ::convparity::Status _st = (expr); \
    if (!_st.ok()) return _st;         \
  } while (0)
