// `hyperplan fit`: how far a dim can grow on a machine, and what each value costs.
//
// --grow NAME[=MIN..MAX]: the largest value of NAME (a context length, a batch) whose plan
// fits the budget (--budget, else the device) and meets --max-overhead when given, found by
// doubling from MIN and then bisection (fit_search.h), each value planned as `plan --budget`
// plans it (fit_point.h). --sweep NAME=FROM..TO[:STEP]: one row per value instead. Dims that
// move with NAME follow from the model's own expressions, or from --tie NAME=EXPRESSION.
// The report is text, or --json (schemas/fit.proto); --report FILE.html also writes it as a
// page with charts (fit_html.h), refused (exit 2) when FILE is an input, exit 9 when unwritable.
// Exit 0 when some value passes; else 6 when even the smallest does not fit, 7 when it fits
// but misses the overhead target; 2 for bad flags, 3-5 for bad inputs, as every command.
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

void AddFitCommand(CLI::App& app);

}  // namespace hyperplan::cli
