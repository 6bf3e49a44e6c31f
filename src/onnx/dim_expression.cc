// Recursive-descent evaluation of dim expressions (see dim_expression.h).
#include "onnx/dim_expression.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace hyperplan::onnx_import {
namespace {

// Longer text is taken as an opaque name: exporters write short expressions, and the parser
// recurses once per parenthesis, so this also bounds its stack.
constexpr size_t kLongestExpression = 256;

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// expression := term (('+' | '-') term)*
// term       := factor (('*' | '/' | '//' | '%') factor)*
// factor     := integer | name | '(' expression ')' | '-' factor
class Parser {
 public:
  Parser(std::string_view text,
         const std::function<std::optional<int64_t>(std::string_view)>& lookup,
         std::vector<std::string>& unbound)
      : text_(text), lookup_(lookup), unbound_(unbound) {}

  // nullopt inside `Value` means "no value" (an unbound name or inexact arithmetic); a syntax
  // error sets failed_ instead, and the caller then treats the text as an opaque name.
  using Value = std::optional<int64_t>;

  bool ParseAll(Value& result) {
    result = Expression();
    SkipSpace();
    return !failed_ && pos_ == text_.size();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(std::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  // One precedence level: operands from `operand`, joined left to right by the first of
  // `operators` that matches where the parse stands ("//" before "/").
  template <typename Operand>
  Value Level(Operand operand, std::initializer_list<std::pair<std::string_view, char>> operators) {
    Value value = operand();
    while (!failed_) {
      const auto op = std::find_if(operators.begin(), operators.end(),
                                   [&](const auto& candidate) { return Accept(candidate.first); });
      if (op == operators.end()) break;
      value = Combine(value, operand(), op->second);
    }
    return value;
  }

  Value Expression() {
    return Level([this] { return Term(); }, {{"+", '+'}, {"-", '-'}});
  }

  Value Term() {
    return Level([this] { return Factor(); }, {{"//", 'f'}, {"*", '*'}, {"/", '/'}, {"%", '%'}});
  }

  Value Factor() {
    SkipSpace();
    if (pos_ >= text_.size()) return Fail();
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Value value = Expression();
      if (!Accept(")")) return Fail();
      return value;
    }
    if (c == '-') {
      ++pos_;
      return Combine(int64_t{0}, Factor(), '-');
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t number = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (__builtin_mul_overflow(number, 10, &number) ||
            __builtin_add_overflow(number, text_[pos_] - '0', &number)) {
          return Fail();
        }
        ++pos_;
      }
      if (pos_ < text_.size() && IsNameChar(text_[pos_])) return Fail();  // "2x" is a name
      return number;
    }
    if (IsNameStart(c)) {
      const size_t start = pos_;
      while (pos_ < text_.size() && (IsNameChar(text_[pos_]) || IsHyphenInName())) ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      if (Value bound = lookup_(name)) return bound;
      if (std::find(unbound_.begin(), unbound_.end(), name) == unbound_.end()) {
        unbound_.emplace_back(name);
      }
      return std::nullopt;
    }
    return Fail();
  }

  static Value Combine(Value left, Value right, char op) {
    if (!left || !right) return std::nullopt;
    int64_t result = 0;
    switch (op) {
      case '+':
        if (__builtin_add_overflow(*left, *right, &result)) return std::nullopt;
        return result;
      case '-':
        if (__builtin_sub_overflow(*left, *right, &result)) return std::nullopt;
        return result;
      case '*':
        if (__builtin_mul_overflow(*left, *right, &result)) return std::nullopt;
        return result;
      case '/':
        if (*right == 0 || *left % *right != 0) return std::nullopt;
        return *left / *right;
      case 'f': {
        if (*right == 0) return std::nullopt;
        int64_t quotient = *left / *right;
        if ((*left % *right != 0) && ((*left < 0) != (*right < 0))) --quotient;
        return quotient;
      }
      default:  // '%'
        if (*right == 0) return std::nullopt;
        return *left % *right;
    }
  }

  // A '-' with name characters on both sides ("seq-len") is part of a name: expressions from
  // exporters space their minus signs ("past_sequence - 1").
  bool IsHyphenInName() const {
    return text_[pos_] == '-' && pos_ > 0 && IsNameChar(text_[pos_ - 1]) &&
           pos_ + 1 < text_.size() && IsNameChar(text_[pos_ + 1]);
  }

  Value Fail() {
    failed_ = true;
    return std::nullopt;
  }

  std::string_view text_;
  const std::function<std::optional<int64_t>(std::string_view)>& lookup_;
  std::vector<std::string>& unbound_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

DimExpressionResult EvaluateDimExpression(
    std::string_view text, const std::function<std::optional<int64_t>(std::string_view)>& lookup) {
  DimExpressionResult result;
  if (text.size() > kLongestExpression) return result;
  Parser parser(text, lookup, result.unbound);
  std::optional<int64_t> value;
  if (!parser.ParseAll(value)) {
    result.unbound.clear();
    return result;
  }
  result.parsed = true;
  if (result.unbound.empty()) result.value = value;
  return result;
}

}  // namespace hyperplan::onnx_import
