// railyard/core/file.hpp — whole-file reads and writes whose errors name the
// field the path came from (a flag, a config key), as every boundary error does.
//
//   railyard::StatusOr<std::string> text = railyard::read_text_file("trace", "jobs.csv");
//   // missing: "trace=jobs.csv: cannot open the file", error_field() == {"trace", "jobs.csv"}
//   railyard::Status s = railyard::write_text_file("svg", "out/heat.svg", svg_text);
//   railyard::Status d = railyard::make_directories("out", "plan-out/jobs/llm");  // mkdir -p
//   railyard::Status w = railyard::check_writable("svg", "out/heat.svg");  // before long work
//
// Bytes are read and written unchanged (binary mode): no newline translation.
// An empty path is an error of its own, so a forgotten value is never taken for
// a file.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "railyard/core/status.hpp"

namespace railyard {

// Reads the whole file at `path` into `out`. Returns what went wrong ("the file
// name is empty", "cannot open the file", "cannot read the file"), or an empty
// view on success; for callers that name the input their own way.
[[nodiscard]] inline std::string_view read_file_into(std::string_view path, std::string& out) {
  if (path.empty()) return "the file name is empty";
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) return "cannot open the file";
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return "cannot read the file";
  return {};
}

// The whole content of the file at `path`. Errors (InvalidArgument, field
// `field` = the path): an empty path, a file that cannot be opened or read.
[[nodiscard]] inline StatusOr<std::string> read_text_file(std::string_view field,
                                                          std::string_view path) {
  std::string text;
  if (const std::string_view problem = read_file_into(path, text); !problem.empty())
    return invalid_field(field, path, problem);
  return text;
}

// Writes `text` to `path`, replacing what was there. Errors (InvalidArgument,
// field `field` = the path): an empty path, a file that cannot be written whole
// (a missing directory, no permission, a full disk).
[[nodiscard]] inline Status write_text_file(std::string_view field, std::string_view path,
                                            std::string_view text) {
  if (path.empty()) return invalid_field(field, path, "the file name is empty");
  std::ofstream out{std::string(path), std::ios::binary | std::ios::trunc};
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return invalid_field(field, path, "cannot write the file");
  return ok_status();
}

// Whether write_text_file(field, path, ...) can create or replace the file,
// checked without touching it: a program calls this before a long computation
// so a mistyped output path fails at once, not minutes later. The directory
// part must exist and be writable; an existing `path` must be a writable
// non-directory. Errors as write_text_file's ("cannot write the file"), with the
// reason.
[[nodiscard]] inline Status check_writable(std::string_view field, std::string_view path) {
  if (path.empty()) return invalid_field(field, path, "the file name is empty");
  const std::string file(path);
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return invalid_field(field, path, str_cat("cannot write the file (no directory ", dir, ")"));
  if (::stat(file.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return invalid_field(field, path, "cannot write the file (it is a directory)");
    if (::access(file.c_str(), W_OK) != 0)
      return invalid_field(field, path,
                           str_cat("cannot write the file (", std::strerror(errno), ")"));
  } else if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return invalid_field(field, path,
                         str_cat("cannot write the file (", dir, ": ", std::strerror(errno), ")"));
  }
  return ok_status();
}

// Creates the directory `path` and any missing parents (mkdir -p), POSIX
// mkdir(2) with mode 0777 (less the umask). Errors (InvalidArgument, field
// `field` = the path): an empty path, a component that exists and is not a
// directory, or what mkdir reports (strerror).
[[nodiscard]] inline Status make_directories(std::string_view field, std::string_view path) {
  if (path.empty()) return invalid_field(field, path, "the directory name is empty");
  std::string prefix;
  size_t pos = 0;
  while (pos <= path.size()) {
    const size_t slash = path.find('/', pos);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    prefix.assign(path.substr(0, end));
    pos = end + 1;
    if (prefix.empty() || prefix.back() == '/' || prefix == "." || prefix == "..") continue;
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return invalid_field(field, path,
                           str_cat("cannot create directory ", prefix, ": ", std::strerror(errno)));
    struct stat st {};
    if (::stat(prefix.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return invalid_field(field, path, str_cat("cannot create directory ", prefix,
                                                ": a file of that name is in the way"));
  }
  return ok_status();
}

}  // namespace railyard
