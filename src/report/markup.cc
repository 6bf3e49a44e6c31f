// Escaping, decipixel printing and integer scaling (see markup.h).
#include "report/markup.h"

#include <cstdlib>

#include "hyperplan/units.h"
#include "report/utf8.h"

namespace hyperplan::report {
namespace {

__extension__ using Int128 = __int128;

// "12.5" from 125; `sign` is put in front as given.
std::string OneDecimal(int64_t tenths, std::string_view sign) {
  const int64_t magnitude = std::llabs(tenths);
  return std::string(sign) + std::to_string(magnitude / 10) + "." + std::to_string(magnitude % 10);
}

// round(numerator / denominator) half away from zero; denominator > 0.
int64_t RoundedQuotient(Int128 numerator, Int128 denominator) {
  const Int128 twice = numerator * 2 / denominator;
  return static_cast<int64_t>((twice + (twice >= 0 ? 1 : -1)) / 2);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsLetterOrDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// A number right after one of these is part of a name ("layers.12", "x12"), not a quantity.
bool JoinsNumber(char c) { return IsLetterOrDigit(c) || c == '.'; }

// Whether `text` continues at `pos` with the word `unit` (a space before it, no letter or
// digit after it).
bool UnitFollows(std::string_view text, size_t pos, std::string_view unit) {
  if (pos >= text.size() || text[pos] != ' ') return false;
  if (text.substr(pos + 1, unit.size()) != unit) return false;
  const size_t after = pos + 1 + unit.size();
  return after >= text.size() || !IsLetterOrDigit(text[after]);
}

constexpr size_t kMaxDigits = 18;  // fits int64_t

}  // namespace

std::string HumanizeQuantities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const bool starts_number = IsDigit(text[i]) && (i == 0 || !JoinsNumber(text[i - 1]));
    if (!starts_number) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsDigit(text[end])) ++end;
    const std::string_view digits = text.substr(i, end - i);
    const bool fits = digits.size() <= kMaxDigits;
    if (fits && UnitFollows(text, end, "ns")) {
      out += FormatDuration(std::stoll(std::string(digits)));
      i = end + 3;
    } else if (fits && UnitFollows(text, end, "bytes")) {
      out += FormatBytes(std::stoll(std::string(digits)));
      i = end + 6;
    } else {
      out.append(digits);
      i = end;
    }
  }
  return out;
}

std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 && c != '\t' && c != '\n') break;  // XML has no way to write these
        if (byte == 0x7F) break;
        const size_t length = Utf8SequenceLength(text, i);
        if (length == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        } else {
          out.append(text.substr(i, length));
          i += length;
          continue;
        }
      }
    }
    ++i;
  }
  return out;
}

std::string Abbreviate(std::string_view text, size_t max_chars) {
  // Counts code points by their lead bytes so a cut never splits a UTF-8 sequence.
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) {
      if (max_chars < 3) return std::string(text.substr(0, i));
      // Cut back so that the text plus "..." fits in max_chars.
      size_t keep = 0;
      size_t kept_chars = 0;
      while (kept_chars < max_chars - 3) {
        ++keep;
        while (keep < i && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) ++keep;
        ++kept_chars;
      }
      return std::string(text.substr(0, keep)) + "...";
    }
    ++chars;
  }
  return std::string(text);
}

std::string Px(int64_t decipixels) {
  const int64_t magnitude = std::llabs(decipixels);
  std::string text = decipixels < 0 ? "-" : "";
  text += std::to_string(magnitude / 10);
  if (magnitude % 10 != 0) text += "." + std::to_string(magnitude % 10);
  return text;
}

LinearScale::LinearScale(int64_t domain_lo, int64_t domain_hi, int64_t pixel_lo_dp,
                         int64_t pixel_hi_dp)
    : domain_lo_(domain_lo),
      domain_hi_(domain_hi),
      pixel_lo_dp_(pixel_lo_dp),
      pixel_hi_dp_(pixel_hi_dp) {}

int64_t LinearScale::operator()(int64_t value) const {
  if (domain_hi_ <= domain_lo_) return pixel_lo_dp_;
  const Int128 offset = static_cast<Int128>(value - domain_lo_) * (pixel_hi_dp_ - pixel_lo_dp_);
  return pixel_lo_dp_ + RoundedQuotient(offset, static_cast<Int128>(domain_hi_) - domain_lo_);
}

std::string PercentChange(int64_t delta, int64_t base) {
  if (base <= 0) return "n/a";
  // The sign is the change's own, so a tiny cut reads "-0.0%", not "+0.0%".
  return OneDecimal(RoundedQuotient(static_cast<Int128>(delta) * 1000, base),
                    delta < 0 ? "-" : "+") +
         "%";
}

std::string PercentOf(int64_t part, int64_t whole) {
  if (whole <= 0) return "n/a";
  const int64_t tenths = RoundedQuotient(static_cast<Int128>(part) * 1000, whole);
  return OneDecimal(tenths, tenths < 0 ? "-" : "") + "%";
}

}  // namespace hyperplan::report
