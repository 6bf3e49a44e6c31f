// Markup helpers shared by the HTML page and its inline SVG: escaping, exact pixel coordinates
// and a linear scale from integer quantities (ns, bytes) to pixels.
//
// Coordinates are integers in tenths of a pixel ("decipixels") and are printed with one
// decimal, so a report is byte-identical on every compiler (no floating point on the way from
// a plan's integers to the page). Escaping produces text that both HTML and XML parsers read
// back unchanged: the five special characters become entities, control characters other than
// tab and newline are dropped (XML forbids them), and bytes that are not valid UTF-8 become
// U+FFFD. Cost: linear in the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hyperplan::report {

// Text for an element's content or a double-quoted attribute value.
std::string EscapeMarkup(std::string_view text);

// `text` cut to at most `max_chars` code points, with "..." in place of the rest.
std::string Abbreviate(std::string_view text, size_t max_chars);

// A coordinate in decipixels printed as pixels: 1234 -> "123.4", 1230 -> "123", -5 -> "-0.5".
std::string Px(int64_t decipixels);

// Maps [domain_lo, domain_hi] linearly onto [pixel_lo, pixel_hi] (decipixels; pixel_hi may be
// below pixel_lo, as on a y axis that grows upwards). Rounds half away from zero; an empty
// domain maps everything to pixel_lo.
class LinearScale {
 public:
  LinearScale(int64_t domain_lo, int64_t domain_hi, int64_t pixel_lo_dp, int64_t pixel_hi_dp);
  int64_t operator()(int64_t value) const;
  int64_t domain_lo() const { return domain_lo_; }
  int64_t domain_hi() const { return domain_hi_; }

 private:
  int64_t domain_lo_;
  int64_t domain_hi_;
  int64_t pixel_lo_dp_;
  int64_t pixel_hi_dp_;
};

// Signed percentage change with one decimal, rounded half away from zero: "+12.5%", "-3.0%";
// "n/a" when `base` is not positive.
std::string PercentChange(int64_t delta, int64_t base);

// Prose for people: every "<integer> ns" becomes a duration ("4096 ns" -> "4.10 us") and
// every "<integer> bytes" a size ("4096 bytes" -> "4.00 KiB"), through FormatDuration and
// FormatBytes (hyperplan/units.h); other text is kept. For messages written for machines and
// logs (decision details, the gate's message) shown on the page.
std::string HumanizeQuantities(std::string_view text);

// `part` as a share of `whole` with one decimal: "42.0%"; "n/a" when `whole` is not positive.
std::string PercentOf(int64_t part, int64_t whole);

}  // namespace hyperplan::report
