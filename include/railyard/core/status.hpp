// railyard/core/status.hpp — railyard's error type: absl::Status, with the failing
// field carried as structured data, and a standalone build for code loaded into
// another process.
//
// Library boundaries (spec strings, files, C ABI arguments) return
// railyard::Status or railyard::StatusOr<T>. In a normal build railyard::Status
// IS absl::Status (an alias). railyard::StatusOr<T> is railyard's own small
// result type with absl::StatusOr's interface (ok, status, value, *, ->); it
// converts to absl::StatusOr<T>, so a caller may hold results either way. (Its
// own: absl::StatusOr's constructors are costly to instantiate, and a
// header-only library instantiates one per result type in every translation
// unit.) Messages name the offending field and value, and the field travels
// with the status, so no caller has to parse message text to learn it:
//
//   railyard::StatusOr<int> parse_thing(std::string_view text) {
//     RAILYARD_ASSIGN_OR_RETURN(int64_t n, parse_int("count", text));  // core/parse.hpp
//     if (n == 0) return railyard::invalid_field("count", text, "must be positive");
//     return static_cast<int>(n);
//   }
//   auto r = parse_thing("0");
//   r.status().message();                        // "count=0: must be positive"
//   railyard::error_field(r.status())->field;    // "count"
//   railyard::error_field(r.status())->value;    // "0"
//   absl::StatusOr<int> a = parse_thing("7");    // converts
//
// The field is an absl::Status payload under kFieldPayloadUrl ("field=value" as
// text, split at the first '='). with_context() prefixes a message and keeps the
// code and the field, so an error stays attributable however far it travels.
//
// Standalone build. The NCCL plugins (libnccl-tuner-railyard.so, a net plugin's
// advisor) are loaded into processes that may carry another Abseil, and their
// shared objects must need nothing but the C and C++ runtimes. Abseil's Status
// is a compiled library, so a translation unit that defines
// RAILYARD_STANDALONE_STATUS before including any railyard header gets
// railyard's own header-only Status instead: the same name, the same codes, the
// same member functions this library calls (ok, code, message). Code written
// against this header compiles either way. Do not mix the two modes in one
// program unless the standalone code sits behind hidden visibility (as the
// plugins do): the types differ.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <stdexcept>
#include <type_traits>

#ifndef RAILYARD_STANDALONE_STATUS
#include "absl/status/status.h"
#endif

#include "railyard/core/strings.hpp"

#define RAILYARD_STATUS_CONCAT_INNER_(a, b) a##b
#define RAILYARD_STATUS_CONCAT_(a, b) RAILYARD_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (a Status); returns it from the caller when not ok.
#define RAILYARD_RETURN_IF_ERROR(expr)                                                     \
  do {                                                                                     \
    if (::railyard::Status railyard_status_ = (expr); !railyard_status_.ok())              \
      return railyard_status_;                                                             \
  } while (false)

// Evaluates `rexpr` (a StatusOr<T>); on error returns its status from the
// caller, otherwise declares/assigns `lhs` from its value.
#define RAILYARD_ASSIGN_OR_RETURN(lhs, rexpr) \
  RAILYARD_ASSIGN_OR_RETURN_IMPL_(RAILYARD_STATUS_CONCAT_(railyard_statusor_, __LINE__), lhs, rexpr)

#define RAILYARD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                    \
  if (!tmp.ok()) return std::move(tmp).status();         \
  lhs = std::move(tmp).value()

namespace railyard {

// The payload key under which the failing field travels ("field=value").
inline constexpr std::string_view kFieldPayloadUrl = "type.railyard.dev/field";

#ifndef RAILYARD_STANDALONE_STATUS

using Status = absl::Status;
using StatusCode = absl::StatusCode;

namespace detail {
inline absl::string_view to_absl(std::string_view s) { return {s.data(), s.size()}; }
}  // namespace detail

// A status with `code` and `message` (OK when code is kOk; the message is then dropped).
[[nodiscard]] inline Status make_status(StatusCode code, std::string_view message) {
  return Status(code, detail::to_absl(message));
}

// The message as a std::string_view (Debian's Abseil has its own string_view).
[[nodiscard]] inline std::string_view message_of(const Status& s) noexcept {
  const absl::string_view m = s.message();
  return {m.data(), m.size()};
}

namespace detail {
inline void set_field_payload(Status& s, std::string_view text) {
  s.SetPayload(detail::to_absl(kFieldPayloadUrl), absl::Cord(detail::to_absl(text)));
}
inline std::optional<std::string> field_payload(const Status& s) {
  auto p = s.GetPayload(detail::to_absl(kFieldPayloadUrl));
  if (!p) return std::nullopt;
  return std::string(*p);
}
}  // namespace detail

#else  // RAILYARD_STANDALONE_STATUS

// The canonical codes, numbered as absl::StatusCode (and google.rpc.Code).
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string_view message) : code_(code) {
    if (code != StatusCode::kOk) message_.assign(message);
  }
  [[nodiscard]] bool ok() const noexcept { return code_ == StatusCode::kOk; }
  [[nodiscard]] StatusCode code() const noexcept { return code_; }
  [[nodiscard]] std::string_view message() const noexcept { return message_; }
  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  friend void detail_set_field(Status&, std::string_view);
  friend std::optional<std::string> detail_get_field(const Status&);
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::optional<std::string> field_;  // "field=value"
};

inline void detail_set_field(Status& s, std::string_view text) {
  if (!s.ok()) s.field_ = std::string(text);
}
inline std::optional<std::string> detail_get_field(const Status& s) { return s.field_; }

[[nodiscard]] inline Status make_status(StatusCode code, std::string_view message) {
  return Status(code, message);
}
[[nodiscard]] inline std::string_view message_of(const Status& s) noexcept { return s.message(); }

namespace detail {
inline void set_field_payload(Status& s, std::string_view text) { detail_set_field(s, text); }
inline std::optional<std::string> field_payload(const Status& s) { return detail_get_field(s); }
}  // namespace detail

#endif  // RAILYARD_STANDALONE_STATUS

// A value or the Status that prevented it: absl::StatusOr's interface (ok,
// status, value, operator*, operator->), kept small so that the many result
// types of a header-only library cost little to compile. It converts to
// absl::StatusOr<T> (or any type built from a T or a Status that names T as
// its value_type), so callers may hold results either way.
template <class T>
class StatusOr {
  static_assert(!std::is_reference_v<T> && !std::is_same_v<std::remove_cv_t<T>, Status>);

 public:
  using value_type = T;

  // An error (kUnknown) until assigned, as absl::StatusOr.
  StatusOr() : status_(make_status(StatusCode::kUnknown, "no value assigned")) {}
  StatusOr(const Status& s) : status_(s) { check_error(); }  // NOLINT: implicit, as absl's
  StatusOr(Status&& s) : status_(std::move(s)) { check_error(); }
  template <class U = T,
            class = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                     !std::is_same_v<std::decay_t<U>, Status> &&
                                     !std::is_same_v<std::decay_t<U>, StatusOr>>>
  StatusOr(U&& v) : value_(std::forward<U>(v)) {}  // NOLINT: implicit, as absl's

  [[nodiscard]] bool ok() const noexcept { return value_.has_value(); }
  [[nodiscard]] const Status& status() const& noexcept { return status_; }
  [[nodiscard]] Status status() && { return std::move(status_); }

  T& value() & { return checked(); }
  const T& value() const& {
    if (!value_) throw std::logic_error(std::string(message_of(status_)));
    return *value_;
  }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

  // To absl::StatusOr<T> and the like: a result type naming T as its value_type,
  // buildable from a Status and from a T.
  template <class S, class = std::enable_if_t<std::is_same_v<typename S::value_type, T> &&
                                              std::is_constructible_v<S, const Status&> &&
                                              std::is_constructible_v<S, const T&>>>
  operator S() const& {  // NOLINT: implicit on purpose
    return value_ ? S(*value_) : S(status_);
  }
  template <class S, class = std::enable_if_t<std::is_same_v<typename S::value_type, T> &&
                                              std::is_constructible_v<S, Status&&> &&
                                              std::is_constructible_v<S, T&&>>>
  operator S() && {  // NOLINT: implicit on purpose
    return value_ ? S(std::move(*value_)) : S(std::move(status_));
  }

 private:
  void check_error() {
    // An OK status without a value is a caller's bug; keep it an error.
    if (status_.ok()) status_ = make_status(StatusCode::kInternal, "StatusOr built from an OK status");
  }
  T& checked() {
    // Code loaded into another process must never abort it: a bad access
    // throws, and the plugin boundary catches every exception.
    if (!value_) throw std::logic_error(std::string(message_of(status_)));
    return *value_;
  }
  Status status_;
  std::optional<T> value_;
};

// --- Constructors, the same in both builds ---------------------------------

[[nodiscard]] inline Status ok_status() { return Status(); }
[[nodiscard]] inline Status invalid_argument_error(std::string_view message) {
  return make_status(StatusCode::kInvalidArgument, message);
}
[[nodiscard]] inline Status not_found_error(std::string_view message) {
  return make_status(StatusCode::kNotFound, message);
}
[[nodiscard]] inline Status already_exists_error(std::string_view message) {
  return make_status(StatusCode::kAlreadyExists, message);
}
[[nodiscard]] inline Status resource_exhausted_error(std::string_view message) {
  return make_status(StatusCode::kResourceExhausted, message);
}
[[nodiscard]] inline Status failed_precondition_error(std::string_view message) {
  return make_status(StatusCode::kFailedPrecondition, message);
}
[[nodiscard]] inline Status unavailable_error(std::string_view message) {
  return make_status(StatusCode::kUnavailable, message);
}
[[nodiscard]] inline Status internal_error(std::string_view message) {
  return make_status(StatusCode::kInternal, message);
}

// --- The failing field -------------------------------------------------------

// Which input was rejected: the field's name as the library knows it (a spec key
// like "hosts", an option like "incast", a file column) and the value given.
struct FieldError {
  std::string field;
  std::string value;
};

// `s` with `field` and `value` attached (no effect on an OK status).
[[nodiscard]] inline Status with_field(Status s, std::string_view field, std::string_view value) {
  if (!s.ok()) detail::set_field_payload(s, str_cat(field, "=", value));
  return s;
}

// The field attached to `s`, if any.
[[nodiscard]] inline std::optional<FieldError> error_field(const Status& s) {
  std::optional<std::string> text = detail::field_payload(s);
  if (!text) return std::nullopt;
  const size_t eq = text->find('=');
  if (eq == std::string::npos) return FieldError{*text, ""};
  return FieldError{text->substr(0, eq), text->substr(eq + 1)};
}

// True when `s` carries `field`.
[[nodiscard]] inline bool has_field(const Status& s, std::string_view field) {
  const std::optional<FieldError> f = error_field(s);
  return f && f->field == field;
}

// "key=value: problem" with code InvalidArgument and the field attached — the one
// message shape every boundary error uses, so a user always sees which field and
// which value were rejected.
[[nodiscard]] inline Status invalid_field(std::string_view key, std::string_view value,
                                          std::string_view problem) {
  return with_field(invalid_argument_error(str_cat(key, "=", value, ": ", problem)), key, value);
}

// What is wrong, without the "field=value: " that invalid_field() puts first:
// for a caller that names the input its own way (a command line shows
// "--count=0: must be positive"). The whole message when `s` carries no field or
// its message does not start with it (with_context() put something first).
[[nodiscard]] inline std::string_view error_problem(const Status& s) {
  const std::string_view message = message_of(s);
  const std::optional<std::string> f = detail::field_payload(s);
  if (!f) return message;
  const std::string prefix = str_cat(*f, ": ");
  if (message.substr(0, prefix.size()) != prefix) return message;
  return message.substr(prefix.size());
}

// `s` with "prefix: " before its message; the code and the field are kept.
[[nodiscard]] inline Status with_context(const Status& s, std::string_view prefix) {
  if (s.ok()) return s;
  Status out = make_status(s.code(), str_cat(prefix, ": ", message_of(s)));
  if (std::optional<std::string> f = detail::field_payload(s)) detail::set_field_payload(out, *f);
  return out;
}

}  // namespace railyard
