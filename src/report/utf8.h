// UTF-8 validation for the writers that must never emit an invalid byte (HTML and JSON).
// Cost: O(1) per call.
#pragma once

#include <cstddef>
#include <string_view>

namespace hyperplan::report {

// Length of the valid UTF-8 sequence starting at text[i] (1 to 4), or 0 when the bytes there
// are not one: a stray continuation byte, an overlong form, a surrogate, a code point above
// U+10FFFF, or a sequence cut off by the end of the text.
size_t Utf8SequenceLength(std::string_view text, size_t i);

}  // namespace hyperplan::report
