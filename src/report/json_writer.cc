// Streaming JSON writer (see json_writer.h).
#include "report/json_writer.h"

#include <cstdlib>
#include <stdexcept>

#include "report/utf8.h"

namespace hyperplan::report {

std::string JsonString(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          const size_t length = Utf8SequenceLength(text, i);
          if (length == 0) {
            out += "\\ufffd";
          } else {
            out.append(text.substr(i, length));
            i += length;
            continue;
          }
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

void JsonWriter::Raw(std::string_view text) { out_.write(text.data(), text.size()); }

void JsonWriter::BeforeValue() {
  if (stack_.empty()) {
    if (wrote_root_) throw std::logic_error("JsonWriter: a second root value");
    wrote_root_ = true;
    return;
  }
  switch (stack_.back()) {
    case Frame::kObjectKey:
      throw std::logic_error("JsonWriter: a value where a key is due");
    case Frame::kObjectValue:
      stack_.back() = Frame::kObjectKey;
      return;
    case Frame::kArray:
      if (has_items_.back()) Raw(",");
      has_items_.back() = true;
      if (newline_pending_) Raw("\n");
      newline_pending_ = false;
      return;
  }
}

void JsonWriter::Open(Frame frame, std::string_view bracket) {
  BeforeValue();
  Raw(bracket);
  stack_.push_back(frame);
  has_items_.push_back(false);
}

void JsonWriter::Close(Frame frame, std::string_view bracket, const char* what) {
  if (stack_.empty() || stack_.back() != frame) {
    throw std::logic_error(std::string("JsonWriter: ") + what);
  }
  if (newline_pending_ && has_items_.back()) Raw("\n");
  newline_pending_ = false;
  stack_.pop_back();
  has_items_.pop_back();
  Raw(bracket);
}

void JsonWriter::BeginObject() { Open(Frame::kObjectKey, "{"); }

void JsonWriter::EndObject() {
  Close(Frame::kObjectKey, "}", "EndObject without an open object awaiting a key");
}

void JsonWriter::BeginArray() { Open(Frame::kArray, "["); }

void JsonWriter::EndArray() { Close(Frame::kArray, "]", "EndArray without an open array"); }

void JsonWriter::Key(std::string_view key) {
  if (stack_.empty() || stack_.back() != Frame::kObjectKey) {
    throw std::logic_error("JsonWriter: a key outside an object");
  }
  if (has_items_.back()) Raw(",");
  has_items_.back() = true;
  if (newline_pending_) Raw("\n");
  newline_pending_ = false;
  Raw(JsonString(key));
  Raw(":");
  stack_.back() = Frame::kObjectValue;
}

void JsonWriter::String(std::string_view text) {
  BeforeValue();
  Raw(JsonString(text));
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  Raw(std::to_string(value));
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  Raw(value ? "true" : "false");
}

void JsonWriter::Decimal(int64_t value, int fraction_digits) {
  BeforeValue();
  // Magnitude as unsigned so that INT64_MIN has one too.
  const uint64_t magnitude =
      value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  uint64_t scale = 1;
  for (int d = 0; d < fraction_digits; ++d) scale *= 10;
  std::string text = value < 0 ? "-" : "";
  text += std::to_string(magnitude / scale);
  uint64_t fraction = magnitude % scale;
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, static_cast<size_t>(fraction_digits) - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  Raw(text);
}

void JsonWriter::Newline() { newline_pending_ = true; }

}  // namespace hyperplan::report
