// Expected distinct experts under top-k routing (see routing.h).
#include "hyperplan/routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hyperplan {

namespace {

// 1 - (1 - p)^T without the cancellation of 1 - pow(...) when p is tiny.
double TouchedProbability(double p, int64_t tokens) {
  const double clamped = std::clamp(p, 0.0, 1.0);
  if (clamped >= 1.0) return 1.0;
  return -std::expm1(static_cast<double>(tokens) * std::log1p(-clamped));
}

}  // namespace

double ExpectedDistinctExperts(int64_t experts, int64_t experts_per_token, int64_t tokens) {
  if (experts < 1 || experts_per_token < 1 || tokens < 1) return 0.0;
  const int64_t k = std::min(experts_per_token, experts);
  const double p = static_cast<double>(k) / static_cast<double>(experts);
  return static_cast<double>(experts) * TouchedProbability(p, tokens);
}

double ExpectedDistinctExperts(const std::vector<double>& selection_probability, int64_t tokens) {
  if (tokens < 1) return 0.0;
  double distinct = 0.0;
  for (double p : selection_probability) distinct += TouchedProbability(p, tokens);
  return distinct;
}

std::vector<double> ScaledSelection(const std::vector<double>& frequency,
                                    int64_t experts_per_token) {
  const double k = static_cast<double>(experts_per_token);
  const double sum = std::accumulate(frequency.begin(), frequency.end(), 0.0);
  std::vector<double> p = frequency;
  for (double& x : p) x = sum > 0 ? std::clamp(x * k / sum, 0.0, 1.0) : 0.0;
  return p;
}

int64_t RoutedBytes(int64_t total_bytes, int64_t experts, double distinct) {
  if (experts < 1 || total_bytes <= 0) return std::max<int64_t>(0, total_bytes);
  const double fraction = std::clamp(distinct / static_cast<double>(experts), 0.0, 1.0);
  // long double keeps a multi-GB tensor's product exact to the byte before rounding.
  const long double bytes = static_cast<long double>(total_bytes) * fraction;
  return std::min<int64_t>(total_bytes, std::llround(bytes));
}

}  // namespace hyperplan
