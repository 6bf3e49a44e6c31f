// `hyperplan run`: executes a plan file with the reference executor (src/executor/executor.h):
// real buffers of the planned sizes in host memory, one thread per stream, every input's bytes
// checked against what its producer wrote. Loads the plan, model and profile as `simulate`
// does (plan_inputs.h). --iterations N runs the loop N times from the cold start; --timed holds
// each step for its planned time (scaled by --time-scale) and prints the measured makespan
// next to the simulated one. Exit 10 when the executor catches the plan breaking a rule (the
// step, the value and the rule on one line), 2 when the buffers exceed --max-memory.
#pragma once

#include <CLI/CLI.hpp>

namespace hyperplan::cli {

void AddRunCommand(CLI::App& app);

}  // namespace hyperplan::cli
