// JsonWriter: a small streaming writer for JSON (RFC 8259) into an ostream.
//
// Keeps only a stack of open containers, so a trace of millions of events streams out in
// constant memory. Strings are escaped fully: quote, backslash and every control character
// (U+0000..U+001F as \n, \t, ... or \u00XX), and bytes that are not valid UTF-8 become
// \ufffd, so the output is always valid JSON whatever the names in a model. Numbers are
// integers or exact decimal fractions written by the caller (Decimal); no floating point, so
// output is byte-identical everywhere. Misuse (a value where a key is due, closing the wrong
// container) throws std::logic_error. Cost: linear in the output.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hyperplan::report {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);
  void String(std::string_view text);
  void Int(int64_t value);
  void Bool(bool value);
  // `value` / 10^fraction_digits, written exactly with trailing zeros dropped:
  // Decimal(1500, 3) -> 1.5, Decimal(2000, 3) -> 2, Decimal(-5, 3) -> -0.005.
  void Decimal(int64_t value, int fraction_digits);
  // A line break before the next item, so arrays of events read one per line.
  void Newline();

  // True when every container opened has been closed.
  bool complete() const { return stack_.empty() && wrote_root_; }

 private:
  enum class Frame : uint8_t { kObjectKey, kObjectValue, kArray };
  void BeforeValue();
  void Raw(std::string_view text);
  // Opens an object or array (`bracket` "{" or "["); closes one, after checking the innermost
  // open frame is `frame` (else std::logic_error naming `what`).
  void Open(Frame frame, std::string_view bracket);
  void Close(Frame frame, std::string_view bracket, const char* what);

  std::ostream& out_;
  std::vector<Frame> stack_;
  std::vector<bool> has_items_;  // parallel to stack_
  bool wrote_root_ = false;
  bool newline_pending_ = false;
};

// The JSON string literal for `text`, quotes included.
std::string JsonString(std::string_view text);

}  // namespace hyperplan::report
