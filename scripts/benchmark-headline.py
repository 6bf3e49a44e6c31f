#!/usr/bin/env python3
"""The headline table of docs/benchmarks.md, from `hyperplan-bench compare`'s full tables.

Reads the Markdown that compare prints (stdin or a file) and prints one row per workload and
profile at one budget: 74% of the no-offload peak where the model fits the device, else the
device.
Each contender column is its best fitting makespan at that budget ("no fit" when none fits);
the hyperplan column names the policy that made its plan and what the planner alone reached.
Where the budget is below the peak lower bound (no plan can fit: the largest working set, or
what the tiers off the device cannot hold), the row says so and has no bound.

Usage: build-bench/tools/hyperplan-bench compare > compare.md
       scripts/benchmark-headline.py compare.md
"""
import re
import sys

SECTION = re.compile(r"^#{3,4} (?P<workload>.+) on (?P<file>\S+)\.yaml \((?P<profile>[^)]+)\)$")
FLOOR = re.compile(r"below the peak lower bound (?P<floor>[0-9.]+ [kMGT]?B)")
WON_BY = re.compile(r"won by (?P<policy>.+?)'s plan; the planner's own: (?P<own>[^)]+)\)")


def sections(lines):
    """Yields (workload, profile file stem, fits without offloading, [rows as cell lists])."""
    workload = profile = None
    fits = True
    rows = []
    for line in lines:
        match = SECTION.match(line.strip())
        if match:
            if workload:
                yield workload, profile, fits, rows
            workload, profile, fits, rows = match["workload"], match["file"], True, []
        elif workload and "No offloading:" in line:
            fits = "**does not fit**" not in line
        elif workload and line.startswith("| ") and not line.startswith("| budget"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) >= 8 and not set(cells[0]) <= set("-:"):
                rows.append(cells)
    if workload:
        yield workload, profile, fits, rows


def headline_budget(rows, fits_without_offloading):
    """74% of the no-offload peak where the model fits the device, else the device."""
    wanted = "74%" if fits_without_offloading else "device"
    return next((cells[0] for cells in rows if cells[0].startswith(wanted)), None)


def seconds(text):
    value, unit = text.split()
    return float(value) * {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def best(rows, prefix):
    fitting = [cells[5] for cells in rows if cells[1].startswith(prefix) and
               cells[2].startswith("yes")]
    return min(fitting, key=seconds) if fitting else "no fit"


def hyperplan_cell(cells):
    if not cells[2].startswith("yes"):
        return "no fit (planner)"
    won = WON_BY.search(cells[2])
    if won:
        return f"{cells[5]} ({won['policy']}; own {won['own']})"
    return f"{cells[5]} (planner)"


def main():
    source = open(sys.argv[1], encoding="utf-8") if len(sys.argv) > 1 else sys.stdin
    print("| workload | profile | budget | reactive LRU | best layer streaming | best op distance "
          "| **hyperplan** (plan made by; the planner's own) | × bound | lower bound |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|")
    for workload, profile, fits, rows in sections(source):
        budget = headline_budget(rows, fits)
        if budget is None:
            continue
        at = [cells for cells in rows if cells[0] == budget]
        below = next((cells for cells in at if cells[1] == "every policy"), None)
        if below:
            # No plan can fit: the peak lower bound (capacity included) is above the budget.
            floor = FLOOR.search(below[2])["floor"]
            print(f"| {workload} | {profile} | {budget} | no fit | no fit | no fit "
                  f"| no fit (none can: peak ≥ {floor}) | — | — |")
            continue
        planned = next(cells for cells in at if cells[1] == "**hyperplan**")
        # With a host unit the ratio is over the bound with host compute (every placement).
        bound = next((cells for cells in at if cells[1] == "lower bound with host compute"),
                     None) or next(cells for cells in at if cells[1].startswith("lower bound"))
        ratio = planned[7] if planned[2].startswith("yes") else "—"
        print(f"| {workload} | {profile} | {budget} | {best(at, 'reactive LRU')} "
              f"| {best(at, 'layer streaming')} | {best(at, 'op distance')} "
              f"| {hyperplan_cell(planned)} | {ratio} | {bound[5]} |")


if __name__ == "__main__":
    main()
