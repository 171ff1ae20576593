// railyard/core/status.hpp — error helpers on top of absl::Status.
//
// Library boundaries (spec strings, files, C ABI arguments) return absl::Status or
// absl::StatusOr<T>; messages name the offending field and value. Two macros keep
// the propagation short:
//
//   absl::StatusOr<int> parse_thing(std::string_view text) {
//     RAILYARD_ASSIGN_OR_RETURN(int64_t n, parse_int("count", text));  // core/parse.hpp
//     if (n == 0) return invalid_field("count", text, "must be positive");
//     return static_cast<int>(n);
//   }
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "railyard/core/strings.hpp"

#define RAILYARD_STATUS_CONCAT_INNER_(a, b) a##b
#define RAILYARD_STATUS_CONCAT_(a, b) RAILYARD_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status); returns it from the caller when not ok.
#define RAILYARD_RETURN_IF_ERROR(expr)                                                           \
  do {                                                                                           \
    if (absl::Status railyard_status_ = (expr); !railyard_status_.ok()) return railyard_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status from the
// caller, otherwise declares/assigns `lhs` from its value.
#define RAILYARD_ASSIGN_OR_RETURN(lhs, rexpr) \
  RAILYARD_ASSIGN_OR_RETURN_IMPL_(RAILYARD_STATUS_CONCAT_(railyard_statusor_, __LINE__), lhs, rexpr)

#define RAILYARD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                    \
  if (!tmp.ok()) return std::move(tmp).status();         \
  lhs = std::move(tmp).value()

namespace railyard {

// "key=value: problem" — the one message shape every boundary error uses, so a
// user always sees which field and which value were rejected.
[[nodiscard]] inline absl::Status invalid_field(std::string_view key, std::string_view value,
                                                std::string_view problem) {
  return absl::InvalidArgumentError(str_cat(key, "=", value, ": ", problem));
}

}  // namespace railyard
