#!/usr/bin/env python3
"""Writes a SYNTHETIC MoE routing profile (schemas/expert_stats.proto) for tests and examples.

Zipf-like skew: expert e (in rank order, 0-based) of E is selected by a fraction
p_e = k * (e + 1)^-s / sum_j (j + 1)^-s of tokens, so the fractions sum to k (each token selects
k experts) and expert 0 is the hottest. Every listed layer gets the same skew. This is made-up
skew for exercising --expert-stats, not a measurement of any model; the file's "source" says so.
Refuses a skew that would give an expert a fraction above 1 (k too large for s).

Usage: scripts/synthetic-expert-stats.py --experts 8 --top-k 2 --skew 1.0 --layers 1,2 > FILE
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, required=True)
    parser.add_argument("--top-k", type=int, required=True)
    parser.add_argument("--skew", type=float, default=1.0, help="Zipf exponent s (0: uniform)")
    parser.add_argument("--layers", required=True, help="comma-separated layer numbers")
    args = parser.parse_args()
    weights = [(e + 1) ** -args.skew for e in range(args.experts)]
    total = sum(weights)
    fractions = [round(args.top_k * w / total, 6) for w in weights]
    if max(fractions) > 1:
        sys.exit(f"skew {args.skew} gives expert 0 a fraction {fractions[0]} > 1; lower it")
    layers = [int(x) for x in args.layers.split(",")]
    source = (f"synthetic: Zipf s={args.skew:g} over {args.experts} experts, top {args.top_k} "
              f"(scripts/synthetic-expert-stats.py), not a measurement")
    stats = {"source": source,
             "layers": [{"layer": layer, "frequency": fractions} for layer in layers]}
    json.dump(stats, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
