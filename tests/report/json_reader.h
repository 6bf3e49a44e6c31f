// Test support: a strict JSON (RFC 8259) reader, independent of the writer. Numbers keep their
// text, so a test can read "1234.567" microseconds back as exactly 1234567 ns. Rejects
// trailing commas, leading zeros, bad escapes, raw control characters in strings, lone
// surrogate escapes, duplicate keys, and anything after the root value.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hyperplan::testing {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // kNumber: its literal text; kString: the decoded string
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in document order

  const JsonValue* Find(const std::string& key) const {
    for (const auto& [name, value] : members) {
      if (name == key) return &value;
    }
    return nullptr;
  }
  const JsonValue& At(const std::string& key) const {
    const JsonValue* value = Find(key);
    if (value == nullptr) throw std::runtime_error("json: no key '" + key + "'");
    return *value;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : text_(text) {}

  JsonValue Parse() {
    JsonValue root = Value(0);
    Space();
    if (pos_ != text_.size()) Fail("text after the root value");
    return root;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error("json at byte " + std::to_string(pos_) + ": " + what);
  }
  void Space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  JsonValue Value(int depth) {
    if (depth > 64) Fail("nesting too deep");
    Space();
    JsonValue value;
    const char c = Peek();
    if (c == '{') {
      value.kind = JsonValue::Kind::kObject;
      ++pos_;
      Space();
      if (Peek() == '}') {
        ++pos_;
        return value;
      }
      while (true) {
        Space();
        std::string key = String();
        for (const auto& member : value.members) {
          if (member.first == key) Fail("duplicate key '" + key + "'");
        }
        Space();
        Expect(':');
        value.members.emplace_back(std::move(key), Value(depth + 1));
        Space();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::kArray;
      ++pos_;
      Space();
      if (Peek() == ']') {
        ++pos_;
        return value;
      }
      while (true) {
        value.items.push_back(Value(depth + 1));
        Space();
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::kString;
      value.text = String();
      return value;
    }
    if (Literal("true")) {
      value.kind = JsonValue::Kind::kBool;
      value.boolean = true;
      return value;
    }
    if (Literal("false")) {
      value.kind = JsonValue::Kind::kBool;
      return value;
    }
    if (Literal("null")) return value;
    value.kind = JsonValue::Kind::kNumber;
    value.text = Number();
    return value;
  }

  std::string Number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (Peek() >= '0' && Peek() <= '9') ++pos_;
      if (pos_ == from) Fail("expected a digit");
    };
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
      if (Peek() >= '0' && Peek() <= '9') Fail("leading zero");
    } else {
      digits();
    }
    if (Peek() == '.') {
      ++pos_;
      digits();
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      digits();
    }
    return text_.substr(start, pos_ - start);
  }

  unsigned Hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = Peek();
      code <<= 4;
      if (h >= '0' && h <= '9') {
        code |= static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        code |= static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        code |= static_cast<unsigned>(h - 'A' + 10);
      } else {
        Fail("bad \\u escape");
      }
      ++pos_;
    }
    return code;
  }

  std::string String() {
    Expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) Fail("unterminated string");
      const auto c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return out;
      if (c < 0x20) Fail("raw control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      const char e = Peek();
      ++pos_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = Hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (!Literal("\\u")) Fail("lone high surrogate");
            const unsigned low = Hex4();
            if (low < 0xDC00 || low > 0xDFFF) Fail("bad low surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            Fail("lone low surrogate");
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          Fail("bad escape");
      }
    }
  }

  static void AppendUtf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

inline JsonValue ParseJson(const std::string& text) { return JsonReader(text).Parse(); }

// A JSON number literal of microseconds (no exponent) as exact nanoseconds: "1234.567" ->
// 1234567. Throws when it is not a whole number of nanoseconds.
inline int64_t MicrosecondsTextToNs(const std::string& number) {
  if (number.find_first_of("eE-") != std::string::npos) {
    throw std::runtime_error("unexpected number form: " + number);
  }
  const size_t dot = number.find('.');
  std::string whole = number.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
  if (fraction.size() > 3) throw std::runtime_error("finer than 1 ns: " + number);
  fraction.append(3 - fraction.size(), '0');
  return std::stoll(whole) * 1000 + std::stoll(fraction);
}

}  // namespace hyperplan::testing
