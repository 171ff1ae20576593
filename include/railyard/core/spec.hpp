// railyard/core/spec.hpp — the `KIND:key=value,key=value` boundary format.
//
// Spec strings describe clusters, jobs and other inputs on command lines and in
// environment variables. SpecReader splits one, hands out typed values with
// defaults and bounds, and finally reports keys nobody asked for, so a typo is an
// error instead of being ignored:
//
//   RAILYARD_ASSIGN_OR_RETURN(railyard::SpecReader reader,
//                             railyard::SpecReader::parse("rail_fat_tree:hosts=64,oversub=2:1"));
//   reader.kind();                                          // "rail_fat_tree"
//   RAILYARD_ASSIGN_OR_RETURN(int64_t hosts, reader.required_int("hosts", 1, 1 << 20));
//   RAILYARD_ASSIGN_OR_RETURN(railyard::Ratio r, reader.ratio("oversub", {1, 1}));
//   RAILYARD_RETURN_IF_ERROR(reader.finish());              // unknown keys -> error
//
// A spec without ':' has only a kind (used for preset names). Keys are
// case-sensitive and may appear once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard {

class SpecReader {
 public:
  // Splits `text` into a kind and key=value entries. Fails on empty kind, an
  // entry without '=', an empty key or value, or a repeated key.
  [[nodiscard]] static StatusOr<SpecReader> parse(std::string_view text) {
    SpecReader reader;
    const size_t colon = text.find(':');
    reader.kind_ = std::string(text.substr(0, colon));
    if (reader.kind_.empty())
      return invalid_argument_error(
          str_cat("spec '", text, "': missing kind before ':' (e.g. rail_fat_tree:hosts=64)"));
    if (colon == std::string_view::npos) return reader;
    const std::string_view body = text.substr(colon + 1);
    if (body.empty()) return reader;
    for (std::string_view item : split(body, ',')) {
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
        // The field is the key when there is one ("tp=" names tp), "key" when
        // it is missing ("=8"), else the entry itself ("tp", or "entry" for an
        // empty one), so that callers can map the error to their flag.
        std::string_view field = item, value;
        if (item.empty()) {
          field = "entry";
        } else if (eq == 0) {
          field = "key";
          value = item;
        } else if (eq != std::string_view::npos) {
          field = item.substr(0, eq);
        }
        return with_field(
            invalid_argument_error(
                item.empty()
                    ? str_cat("spec entry '' in '", text,
                              "': expected key=value (two commas in a row or a trailing comma)")
                    : str_cat("spec entry '", item, "': expected key=value")),
            field, value);
      }
      std::string key(item.substr(0, eq));
      const std::string_view value = item.substr(eq + 1);
      for (const Entry& e : reader.entries_)
        if (e.key == key)
          return with_field(
              invalid_argument_error(
                  str_cat(key, ": key given twice (", key, "=", e.value, ", then ", item, ")")),
              key, value);
      reader.entries_.push_back({std::move(key), std::string(value), false});
    }
    return reader;
  }

  [[nodiscard]] const std::string& kind() const { return kind_; }
  [[nodiscard]] bool has(std::string_view key) const { return find(key) != nullptr; }

  // The raw value of `key`, or `fallback` when absent. Marks the key as used.
  [[nodiscard]] std::string_view text(std::string_view key, std::string_view fallback = {}) {
    const Entry* e = use(key);
    return e ? std::string_view(e->value) : fallback;
  }

  // An integer in [lo, hi], or `fallback` when the key is absent.
  [[nodiscard]] StatusOr<int64_t> integer(std::string_view key, int64_t fallback, int64_t lo,
                                                int64_t hi) {
    const Entry* e = use(key);
    if (e == nullptr) return fallback;
    return parse_int_in(key, e->value, lo, hi);
  }

  // An integer in [lo, hi] that must be present.
  [[nodiscard]] StatusOr<int64_t> required_int(std::string_view key, int64_t lo, int64_t hi) {
    if (find(key) == nullptr)
      return invalid_argument_error(
          str_cat(key, ": required key is missing (", kind_, " needs ", key, "=N)"));
    return integer(key, 0, lo, hi);
  }

  // A down:up ratio, or `fallback` when absent.
  [[nodiscard]] StatusOr<Ratio> ratio(std::string_view key, Ratio fallback) {
    const Entry* e = use(key);
    if (e == nullptr) return fallback;
    return parse_ratio(key, e->value);
  }

  // One of `choices`; returns its index, or `fallback` when absent.
  [[nodiscard]] StatusOr<int> choice(std::string_view key,
                                           std::initializer_list<std::string_view> choices,
                                           int fallback) {
    const Entry* e = use(key);
    if (e == nullptr) return fallback;
    int index = 0;
    for (std::string_view c : choices) {
      if (e->value == c) return index;
      ++index;
    }
    return invalid_field(key, e->value, str_cat("expected one of ", join(choices, ", ")));
  }

  // Error if any key was never read: it is unknown to the caller. `known` lists
  // the accepted keys for the message.
  [[nodiscard]] Status finish(std::initializer_list<std::string_view> known = {}) const {
    for (const Entry& e : entries_) {
      if (e.used) continue;
      std::string message = str_cat(e.key, "=", e.value, ": unknown key for ", kind_);
      if (known.size() > 0) str_append(message, " (known keys: ", join(known, ", "), ")");
      return invalid_argument_error(message);
    }
    return ok_status();
  }

 private:
  struct Entry {
    std::string key;
    std::string value;
    bool used;
  };

  [[nodiscard]] const Entry* find(std::string_view key) const {
    for (const Entry& e : entries_)
      if (e.key == key) return &e;
    return nullptr;
  }
  const Entry* use(std::string_view key) {
    for (Entry& e : entries_)
      if (e.key == key) {
        e.used = true;
        return &e;
      }
    return nullptr;
  }

  std::string kind_;
  std::vector<Entry> entries_;
};

}  // namespace railyard
