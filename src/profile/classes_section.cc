// The `classes` section: user rules that assign value classes by name.
//
// Each key is a class name (graph.h ValueClassName) and its value one regular expression or a
// list of them; rules keep document order, which is the order classify.h applies them in.
// Every pattern is compiled here (RE2 syntax, classify.h) so a bad one is reported with its
// line instead of failing later during classification. Cost: one compile per pattern.
#include <fmt/format.h>

#include "hyperplan/classify.h"
#include "profile/sections.h"

namespace hyperplan::profile {
namespace {

void ReadPattern(const Field& field, ValueClass value_class, std::vector<ClassRule>& rules,
                 Diagnostics& diagnostics) {
  std::optional<std::string> pattern = ReadString(field, diagnostics);
  if (!pattern) return;
  if (pattern->empty()) {
    diagnostics.Report(field.mark(), field.Blame("empty pattern; it would match no value name"));
    return;
  }
  if (const std::string problem = ClassPatternError(*pattern); !problem.empty()) {
    diagnostics.Report(field.mark(), field.Blame(problem));
    return;
  }
  rules.push_back({value_class, *pattern});
}

std::string ClassNameList() {
  std::string names;
  for (int i = 0; i < kValueClassCount; ++i) {
    if (!names.empty()) names += ", ";
    names += ValueClassName(static_cast<ValueClass>(i));
  }
  return names;
}

}  // namespace

void ReadClasses(const Field& field, std::vector<ClassRule>& rules, Diagnostics& diagnostics) {
  std::optional<std::vector<Entry>> entries = ReadEntries(field, diagnostics);
  if (!entries) return;
  for (const Entry& entry : *entries) {
    const std::optional<ValueClass> value_class = ParseValueClass(entry.key);
    if (!value_class) {
      diagnostics.Report(entry.field.key_mark,
                         field.Blame(fmt::format("unknown value class '{}'; expected one of {}",
                                                 entry.key, ClassNameList())));
      continue;
    }
    if (entry.field.value.IsSequence()) {
      std::optional<std::vector<Field>> patterns = ReadSequence(entry.field, diagnostics);
      for (const Field& pattern : patterns.value_or(std::vector<Field>{})) {
        ReadPattern(pattern, *value_class, rules, diagnostics);
      }
    } else {
      ReadPattern(entry.field, *value_class, rules, diagnostics);
    }
  }
}

}  // namespace hyperplan::profile
