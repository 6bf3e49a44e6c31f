// Dim ties: symbolic dims whose values follow from others ("total_sequence=past_sequence+1"),
// for a command that moves one dim and must move its partners with it (hyperplan fit --tie).
//
// A model usually records such partners itself, and then needs no tie: a declared dim that is
// an expression ("past_sequence + 1") is evaluated when the dims are bound, and a symbol only
// outputs name (the generator's "total_sequence") is replaced by the size inference works
// out. A tie is for an exporter that named the partner apart on a graph input. The expression
// is dim_expression's grammar (+ - * / // % and parentheses over integers and dim names;
// a '-' between two name characters is part of a name, so space it: "past_sequence - 1").
// Cost: linear in the text. Limits: ties apply in order; a tie may use an earlier one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hyperplan {

// "" when `text` is NAME=EXPRESSION with a dim name and an expression that parses, else the
// problem (a CLI11 validator's message).
std::string DimTieProblem(std::string_view text);

// Adds each tie's value to `dims`, in order. Throws Error(kUsage) naming the tie when its
// expression uses a dim that is not bound, is not exact (a '/' with a remainder) or is
// negative, or when its name is already bound to another value.
void BindTiedDims(const std::vector<std::string>& ties,
                  std::map<std::string, int64_t, std::less<>>& dims);

}  // namespace hyperplan
