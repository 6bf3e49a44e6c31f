// llama.cpp flags for a fit point's host placement (see fit_llama_cpp.h).
#include "fit_llama_cpp.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

namespace hyperplan::cli {
namespace {

// 10^digits(n), the first number with one more digit than n.
int64_t NextPowerOfTen(int64_t n) {
  int64_t power = 10;
  while (power <= n) power *= 10;
  return power;
}

// "3", "[12]", "[1-5]" or "[0-9]": the digits first .. last.
std::string DigitClass(int64_t first, int64_t last) {
  if (first == last) return std::to_string(first);
  if (first == 0 && last == 9) return "[0-9]";
  if (last == first + 1) return fmt::format("[{}{}]", first, last);
  return fmt::format("[{}-{}]", first, last);
}

// Patterns for low .. high, both of `digits` digits: blocks of step = 10^k numbers aligned on
// step (their last k digits any), as many per pattern as share the digits above them. The
// leading digit is never a wildcard, so no pattern matches a number with a leading zero.
void SameDigitRange(int64_t low, int64_t high, int digits, std::vector<std::string>& out) {
  while (low <= high) {
    int64_t step = 1;
    int digits_below = 0;
    while (digits_below + 1 < digits && low % (step * 10) == 0 && low + step * 10 - 1 <= high) {
      step *= 10;
      ++digits_below;
    }
    const int64_t digit = (low / step) % 10;
    const int64_t blocks = std::min<int64_t>(10 - digit, (high - low + 1) / step);
    const int64_t prefix = low / (step * 10);
    std::string pattern = prefix > 0 ? std::to_string(prefix) : "";
    pattern += DigitClass(digit, digit + blocks - 1);
    for (int d = 0; d < digits_below; ++d) pattern += "[0-9]";
    out.push_back(pattern);
    low += blocks * step;
  }
}

void RangePatterns(int64_t low, int64_t high, std::vector<std::string>& out) {
  while (low <= high) {
    const int64_t end = std::min(high, NextPowerOfTen(low) - 1);
    SameDigitRange(low, end, static_cast<int>(std::to_string(low).size()), out);
    low = end + 1;
  }
}

// One `-ot` entry: `^blk\.(<layers>)\.<tensors>\.weight=CPU`.
std::string LayerEntry(const std::vector<int32_t>& layers, const std::string& tensors) {
  return fmt::format("^blk\\.({})\\.{}\\.weight=CPU", NumberAlternation(layers), tensors);
}

// The -ot value: per part, the layers that run it on the host, then the LM head and the
// embedding; "" when nothing maps.
std::string OverrideValue(const fit::v1::FitPoint& point) {
  std::map<std::string, std::vector<int32_t>> layers_of_part;
  for (const fit::v1::HostLayerParts& layer : point.host_layers()) {
    for (const std::string& part : layer.parts()) layers_of_part[part].push_back(layer.layer());
  }
  std::vector<std::string> entries;
  if (auto it = layers_of_part.find("MLP"); it != layers_of_part.end()) {
    entries.push_back(LayerEntry(it->second, "ffn_(gate|up|down)(_exps|_shexp)?"));
  }
  if (auto it = layers_of_part.find("attention"); it != layers_of_part.end()) {
    entries.push_back(LayerEntry(it->second, "attn_(q|k|v|output)"));
  }
  const auto& parts = point.host_parts();
  if (std::find(parts.begin(), parts.end(), "LM head") != parts.end()) {
    entries.emplace_back("^output\\.weight=CPU");
  }
  if (std::find(parts.begin(), parts.end(), "embedding") != parts.end()) {
    entries.emplace_back("^token_embd\\.weight=CPU");
  }
  return fmt::format("{}", fmt::join(entries, ","));
}

bool ShellSafe(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:=,+-").find(c) != std::string_view::npos;
}

}  // namespace

std::string NumberAlternation(std::vector<int32_t> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<std::string> patterns;
  for (size_t i = 0; i < numbers.size();) {
    size_t last = i;
    while (last + 1 < numbers.size() && numbers[last + 1] == numbers[last] + 1) ++last;
    RangePatterns(numbers[i], numbers[last], patterns);
    i = last + 1;
  }
  return fmt::format("{}", fmt::join(patterns, "|"));
}

std::vector<std::string> LlamaCppArgs(const fit::v1::FitPoint& point) {
  std::vector<std::string> args = {"-ngl", "999"};
  const std::string value = OverrideValue(point);
  if (value.empty()) return args;
  args.insert(args.end(), {"-ot", value, "--no-op-offload"});
  return args;
}

std::string ShellLine(const std::vector<std::string>& args) {
  std::vector<std::string> words;
  for (const std::string& arg : args) {
    if (!arg.empty() && std::all_of(arg.begin(), arg.end(), ShellSafe)) {
      words.push_back(arg);
      continue;
    }
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    words.push_back(quoted + "'");
  }
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace hyperplan::cli
