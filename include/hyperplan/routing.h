// Mixture-of-experts routing in the model of time and traffic: how many distinct experts of a
// layer one iteration touches, in expectation, when each of T tokens picks its top k of E.
//
// Uniform routing: a token picks a given expert with probability k/E, so the expert stays
// untouched by all T tokens with probability (1 - k/E)^T, and the expected number touched is
// E * (1 - (1 - k/E)^T): k for one token, towards E as T grows (8 experts, top 2, 64 tokens:
// 8 * (1 - 0.75^64), about 8). A measured profile gives each expert e its per-token selection
// probability p_e (its share of the k picks a token makes: sum_e p_e = k); the expectation is
// sum_e 1 - (1 - p_e)^T.
// Approximation: tokens are taken as routed independently of each other. Real routers correlate
// neighbouring tokens (a prompt's tokens favour the same experts), so a prefill touches somewhat
// fewer distinct experts than this predicts; one token (decode at batch 1) is exact.
// Cost: O(E) per call. Limits: expectations only; the spread over routings (a p99) is
// routing_samples.h's and plan/routing_spread.h's.
#pragma once

#include <cstdint>
#include <vector>

namespace hyperplan {

// E * (1 - (1 - k/E)^T) for top-`experts_per_token` of `experts` over `tokens` tokens; 0 when
// any argument is below 1; k is clamped to E.
double ExpectedDistinctExperts(int64_t experts, int64_t experts_per_token, int64_t tokens);

// sum_e 1 - (1 - p_e)^T over per-token selection probabilities (each clamped to [0, 1]).
double ExpectedDistinctExperts(const std::vector<double>& selection_probability, int64_t tokens);

// A profile's frequencies scaled to sum `experts_per_token` (k), each clamped to [0, 1]: the
// per-token selection probabilities of a file whose fractions sum to k within rounding
// (`--expert-stats` accepts 1%); all zeros when they sum to 0. O(E).
std::vector<double> ScaledSelection(const std::vector<double>& frequency,
                                    int64_t experts_per_token);

// Bytes read of a tensor of `total_bytes` that stacks `experts` experts when `distinct` of them
// are read: total_bytes * distinct / experts rounded to the nearest byte (so k whole experts
// cost exactly k experts' bytes despite the last bit of a double), within [0, total_bytes].
int64_t RoutedBytes(int64_t total_bytes, int64_t experts, double distinct);

}  // namespace hyperplan
