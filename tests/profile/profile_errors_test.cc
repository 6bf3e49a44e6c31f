// ParseProfileYaml on bad documents: each problem is reported as "file:line:column: problem".
// Columns are counted by hand in the comments (1-based; "  - {" puts '{' in column 5).
#include <catch2/catch.hpp>
#include <string>

#include "hyperplan/adapters/profile_yaml.h"
#include "hyperplan/error.h"
#include "profile_problems.h"

namespace hyperplan {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("YAML syntax errors carry yaml-cpp's position", "[profile][errors]") {
  // Line 3 "  - name: hbm: x": the second ':' is column 14 (2 spaces, "- " to 4, "name:" 5-9,
  // " hbm" 10-13).
  CHECK(Problems("name: t\ntiers:\n  - name: hbm: x\n") ==
        "bad.yaml:3:14: YAML syntax error: illegal map value");
  // An alias to an anchor that was never defined: "capacity: *big" puts '*' in column 15.
  CHECK_THAT(Problems("name: t\ntiers:\n  - name: hbm\n    capacity: *big\n"),
             StartsWith("bad.yaml:4:15: YAML syntax error: "));
}

TEST_CASE("Empty and non-mapping documents", "[profile][errors]") {
  const std::string empty =
      "bad.yaml:1:1: the profile is empty; expected a mapping with name, tiers and compute";
  CHECK(Problems("") == empty);
  CHECK(Problems("# only a comment\n") == empty);
  CHECK(Problems("hello\n") == "bad.yaml:1:1: expected a mapping, found a scalar");
  CHECK(Problems("- a\n- b\n") == "bad.yaml:1:1: expected a mapping, found a sequence");
}

TEST_CASE("Missing required keys are blamed on the mapping that lacks them", "[profile][errors]") {
  // The tier mapping starts at "name" (line 3, column 5); the document at 1:1.
  CHECK(Problems(R"yaml(name: t
tiers:
  - name: hbm
    device: true
)yaml") ==
        "bad.yaml:1:1: missing required key 'compute'\n"
        "bad.yaml:3:5: tiers[0]: missing required key 'capacity'");
  // compute present but incomplete; '{' after "compute: " is column 10.
  CHECK(Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}}
)yaml") == "bad.yaml:3:10: compute: missing required key 'memory_bandwidth'");
}

TEST_CASE("Unknown keys: typos get a suggestion, others the list", "[profile][errors]") {
  // "    capcity" is column 5; "  efficency" column 3; "colour" column 1. A typo of a required
  // key is not also reported as missing.
  CHECK(Problems(R"yaml(name: t
tiers:
  - name: hbm
    capcity: 1GB
    device: true
compute:
  peak: {float: 1TFLOPS}
  memory_bandwidth: 1TB/s
  efficency: 0.5
colour: red
)yaml") ==
        "bad.yaml:4:5: tiers[0]: unknown key 'capcity'; did you mean 'capacity'?\n"
        "bad.yaml:9:3: compute: unknown key 'efficency'; did you mean 'efficiency'?\n"
        "bad.yaml:10:1: unknown key 'colour'; expected one of name, description, sources, "
        "tiers, links, compute, host_compute, placement, classes");
}

TEST_CASE("Repeated keys and non-scalar keys", "[profile][errors]") {
  CHECK(Problems(R"yaml(name: a
name: b
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
? [x, y]
: z
)yaml") ==
        "bad.yaml:2:1: key 'name' repeated (first at line 1)\n"
        "bad.yaml:5:3: keys must be plain strings, found a sequence");
}

TEST_CASE("Wrong value types", "[profile][errors]") {
  // name: '[' col 7. capacity: "    capacity: " is 14 chars, value col 15. device: col 13.
  // links: '{' col 8.
  CHECK(Problems(R"yaml(name: [t]
tiers:
  - name: hbm
    capacity: {size: 1GB}
    device: yes
links: {from: hbm}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:1:7: name: expected a string, found a sequence\n"
        "bad.yaml:4:15: tiers[0].capacity: expected a byte count such as 80GiB, found a "
        "mapping\n"
        "bad.yaml:5:13: tiers[0].device: expected true or false, found 'yes'\n"
        "bad.yaml:6:8: links: expected a sequence, found a mapping");
  // tiers given as a scalar: value at column 8. A quoted boolean is a string: in line 3
  // "  - {name: hbm, capacity: 1GB, device: " is 39 chars, so the quote is column 40.
  CHECK(Problems(R"yaml(name: t
tiers: hbm
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:2:8: tiers: expected a sequence, found a scalar");
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: "true"}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:3:40: tiers[0].device: expected true or false, found 'true' (quoted)");
  // "compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s, fuse_attention: " is 75
  // chars, so the value is column 76.
  CHECK(Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s, fuse_attention: 1}
)yaml") == "bad.yaml:3:76: compute.fuse_attention: expected true or false, found '1'");
}

TEST_CASE("Sources: a mapping of tag to citation", "[profile][errors]") {
  // "sources: [a]": '[' is column 10. "  A-DS: {x: 1}": '{' is column 9.
  CHECK(Problems(R"yaml(name: t
sources: [a]
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:2:10: sources: expected a mapping, found a sequence");
  CHECK(Problems(R"yaml(name: t
sources:
  A-DS: {x: 1}
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:3:9: sources.A-DS: expected a string, found a mapping");
}

TEST_CASE("An empty value is blamed on its key", "[profile][errors]") {
  // yaml-cpp marks an empty value at the next token (line 4); the key on line 3 is clearer.
  CHECK(Problems(R"yaml(name: t
tiers:
  - name:
    capacity: 1GB
    device: true
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:3:5: tiers[0].name: expected a string, found nothing");
}

TEST_CASE("Zero and negative quantities", "[profile][errors]") {
  // capacity value col 15; "    bandwidth: " is 15 chars -> col 16; "    reverse_bandwidth: "
  // is 23 -> col 24; on the compute line "0TB/s" starts at col 53 ("compute: {peak: {float:
  // 1TFLOPS}, memory_bandwidth: " is 52 chars).
  CHECK(Problems(R"yaml(name: t
tiers:
  - name: hbm
    capacity: 0GB
    device: true
  - name: ddr
    capacity: 8GB
links:
  - from: ddr
    to: hbm
    bandwidth: -1GB/s
    reverse_bandwidth: 0GB/s
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 0TB/s}
)yaml") ==
        "bad.yaml:4:15: tiers[0].capacity: '0GB': must be greater than 0\n"
        "bad.yaml:11:16: links[0].bandwidth: '-1GB/s': negative values are not allowed\n"
        "bad.yaml:12:24: links[0].reverse_bandwidth: '0GB/s': must be greater than 0\n"
        "bad.yaml:13:53: compute.memory_bandwidth: '0TB/s': must be greater than 0");
}

TEST_CASE("Unknown and mismatched units", "[profile][errors]") {
  // capacity col 15; "    float: " is 11 chars -> col 12; "  memory_bandwidth: " 20 -> 21.
  CHECK(Problems(R"yaml(name: t
tiers:
  - name: hbm
    capacity: 80Gb
    device: true
compute:
  peak:
    float: 1TFLOPs
  memory_bandwidth: 1TB
)yaml") ==
        "bad.yaml:4:15: tiers[0].capacity: '80Gb': unknown unit 'Gb'; expected one of B, kB, "
        "KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB\n"
        "bad.yaml:8:12: compute.peak.float: '1TFLOPs': unknown unit 'TFLOPs'; expected one "
        "of FLOPS, kFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS (or FLOP/s spellings)\n"
        "bad.yaml:9:21: compute.memory_bandwidth: '1TB': 'TB' measures a byte count, but a "
        "bandwidth is expected, such as 35GB/s or 3.35TB/s");
}

TEST_CASE("Tier names: invalid and duplicate", "[profile][errors]") {
  // Line 4 "  - {name: h b m" and line 5 "  - {name: ddr": the name at column 12.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: h b m, capacity: 8GB}
  - {name: hbm, capacity: 16GB}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:4:12: tiers[1].name: 'h b m' is not a valid tier name; use letters, "
        "digits, _ - and .\n"
        "bad.yaml:5:12: tiers[2].name: duplicate tier name 'hbm' (first at line 3)");
}

TEST_CASE("At least one tier", "[profile][errors]") {
  CHECK(Problems(R"yaml(name: t
tiers: []
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:2:8: tiers: at least one tier is required");
}

TEST_CASE("No device tier", "[profile][errors]") {
  // Blamed on the "tiers" key itself, line 2 column 1.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB}
  - {name: ddr, capacity: 8GB}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:2:1: tiers: no tier has 'device: true'; exactly one tier must");
}

TEST_CASE("Two device tiers", "[profile][errors]") {
  // Line 4 "  - {name: hbm2, capacity: 1GB, device: true}": "true" at column 41.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: hbm2, capacity: 1GB, device: true}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:4:41: tiers[1].device: 'hbm2' is a second device tier (the first is "
        "'hbm' at line 3); exactly one tier must have 'device: true'");
}

TEST_CASE("A device flag that cannot be read does not also count as no device",
          "[profile][errors]") {
  // "    device: " is 12 chars -> col 13. Only the bad value is reported.
  CHECK(Problems(R"yaml(name: t
tiers:
  - name: hbm
    capacity: 1GB
    device: 1
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:5:13: tiers[0].device: expected true or false, found '1'");
}

TEST_CASE("A link naming an unknown tier", "[profile][errors]") {
  // Line 6 "  - {from: dram": "dram" at column 12.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: ddr, capacity: 8GB}
links:
  - {from: dram, to: hbm, bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:6:12: links[0].from: unknown tier 'dram'; tiers are hbm, ddr");
}

TEST_CASE("A link from a tier to itself", "[profile][errors]") {
  // Blamed on the entry: '{' at column 5.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
links:
  - {from: hbm, to: hbm, bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:5:5: links[0]: link from 'hbm' to itself; a link joins two different tiers");
}

TEST_CASE("Duplicate links", "[profile][errors]") {
  // The second entry for ddr -> hbm, blamed on its '{' (column 5).
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: ddr, capacity: 8GB}
links:
  - {from: ddr, to: hbm, bandwidth: 1GB/s}
  - {from: hbm, to: ddr, bandwidth: 1GB/s}
  - {from: ddr, to: hbm, bandwidth: 2GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") == "bad.yaml:8:5: links[2]: duplicate link ddr -> hbm (first at line 6)");
  // A reverse_bandwidth that recreates an existing link is blamed on that key: line 7
  // "  - {from: ddr, to: hbm, bandwidth: 1GB/s, " is 43 chars, so the key is column 44.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: ddr, capacity: 8GB}
links:
  - {from: hbm, to: ddr, bandwidth: 1GB/s}
  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:7:44: links[1].reverse_bandwidth: duplicate link hbm -> ddr (first at line "
        "6)");
}

TEST_CASE("Link channels must be a whole number from 1", "[profile][errors]") {
  // "  - {from: ddr, to: hbm, bandwidth: 1GB/s, channels: " is 53 chars -> column 54; "nvme"
  // is one longer -> 55.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true}
  - {name: ddr, capacity: 8GB}
  - {name: nvme, capacity: 1TB}
links:
  - {from: ddr, to: hbm, bandwidth: 1GB/s, channels: 0}
  - {from: hbm, to: ddr, bandwidth: 1GB/s, channels: 2.5}
  - {from: nvme, to: ddr, bandwidth: 1GB/s, channels: "2"}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:7:54: links[0].channels: 0 is out of range; expected 1 to 1024\n"
        "bad.yaml:8:54: links[1].channels: '2.5': not a whole number\n"
        "bad.yaml:9:55: links[2].channels: expected a whole number, found the string '2'");
}

TEST_CASE("Tier alignment must be a power of two of at most 1GiB", "[profile][errors]") {
  // "  - {name: hbm, capacity: 1GB, device: true, alignment: " is 56 chars -> column 57;
  // "  - {name: ddr, capacity: 8GB, alignment: " is 42 -> 43.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 1GB, device: true, alignment: 100B}
  - {name: ddr, capacity: 8GB, alignment: 2GiB}
  - {name: nvme, capacity: 1TB, alignment: 0}
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
)yaml") ==
        "bad.yaml:3:57: tiers[0].alignment: 100 bytes is not a power of two of at most 1GiB\n"
        "bad.yaml:4:43: tiers[1].alignment: 2147483648 bytes is not a power of two of at most "
        "1GiB\n"
        "bad.yaml:5:44: tiers[2].alignment: '0': must be greater than 0");
}

TEST_CASE("Efficiency must be a fraction above 0 and at most 1", "[profile][errors]") {
  // "  efficiency: " is 14 chars -> column 15 on line 6.
  auto with_efficiency = [](const std::string& value) {
    return Problems(
        "name: t\n"
        "tiers: [{name: hbm, capacity: 1GB, device: true}]\n"
        "compute:\n"
        "  peak: {float: 1TFLOPS}\n"
        "  memory_bandwidth: 1TB/s\n"
        "  efficiency: " +
        value + "\n");
  };
  const std::string range = " is out of range; expected a fraction greater than 0 and at most 1";
  CHECK(with_efficiency("1.5") == "bad.yaml:6:15: compute.efficiency: 1.5" + range);
  CHECK(with_efficiency("0") == "bad.yaml:6:15: compute.efficiency: 0" + range);
  CHECK(with_efficiency("-0.5") ==
        "bad.yaml:6:15: compute.efficiency: '-0.5': negative values are not allowed");
  // 10^-7 is finer than parts per million
  CHECK(with_efficiency("0.0000001") ==
        "bad.yaml:6:15: compute.efficiency: '0.0000001': more than 6 decimal places");
  CHECK(with_efficiency("70%") ==
        "bad.yaml:6:15: compute.efficiency: '70%': expected a plain "
        "decimal number such as 0.7, found '%'");
}

TEST_CASE("Memory efficiency and the launch mode are checked", "[profile][errors]") {
  // Line 6 holds the key under test; "  memory_efficiency: " is 21 chars -> column 22,
  // "  launch: " 10 -> column 11.
  auto with = [](const std::string& line) {
    return Problems(
        "name: t\n"
        "tiers: [{name: hbm, capacity: 1GB, device: true}]\n"
        "compute:\n"
        "  peak: {float: 1TFLOPS}\n"
        "  memory_bandwidth: 1TB/s\n" +
        line + "\n");
  };
  CHECK(with("  memory_efficiency: 1.2") ==
        "bad.yaml:6:22: compute.memory_efficiency: 1.2 is out of range; expected a fraction "
        "greater than 0 and at most 1");
  CHECK(with("  launch: graph") ==
        "bad.yaml:6:11: compute.launch: graph needs compute.graph_kernel_overhead, the cost of "
        "one kernel replayed from a captured graph");
  CHECK(with("  launch: lazy") ==
        "bad.yaml:6:11: compute.launch: unknown launch mode 'lazy'; expected eager (one host "
        "launch per kernel) or graph (replayed from a captured graph)");
}

TEST_CASE("Compute peaks: element types known, once each, at least one", "[profile][errors]") {
  // Keys at column 5 ("    bf16"); bf16 names bfloat16, already given on line 5.
  CHECK(Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute:
  peak:
    bfloat16: 1TFLOPS
    bf16: 2TFLOPS
    bfloat: 1TFLOPS
  memory_bandwidth: 1TB/s
)yaml") ==
        "bad.yaml:6:5: compute.peak.bf16: bfloat16 already has a peak (line 5)\n"
        "bad.yaml:7:5: compute.peak: unknown element type 'bfloat'; expected a name such "
        "as float, float16, bfloat16, float8e4m3fn or int8");
  // "  peak: " is 8 chars -> '{' at column 9.
  CHECK(Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute:
  peak: {}
  memory_bandwidth: 1TB/s
)yaml") == "bad.yaml:4:9: compute.peak: at least one element type's peak is required");
}

TEST_CASE("placement.weight_home must be a reachable non-device tier", "[profile][errors]") {
  // "  weight_home: " is 15 chars -> column 16 on line 10.
  auto with_home = [](const std::string& home) {
    return Problems(
        "name: t\n"
        "tiers:\n"
        "  - {name: hbm, capacity: 1GB, device: true}\n"
        "  - {name: ddr, capacity: 8GB}\n"
        "  - {name: nvme, capacity: 1TB}\n"
        "links:\n"
        "  - {from: nvme, to: ddr, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}\n"
        "compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}\n"
        "placement:\n"
        "  weight_home: " +
        home + "\n");
  };
  CHECK(with_home("disk") ==
        "bad.yaml:10:16: placement.weight_home: unknown tier 'disk'; tiers are hbm, ddr, nvme");
  CHECK(with_home("hbm") ==
        "bad.yaml:10:16: placement.weight_home: 'hbm' is the device tier; "
        "weight_home names where weights wait off the device");
  // nvme reaches ddr, but ddr has no link to hbm: no route at all.
  CHECK(with_home("nvme") ==
        "bad.yaml:10:16: placement.weight_home: no route of links from 'nvme' to the device "
        "tier 'hbm', so weights kept there could never be fetched");
}

TEST_CASE("placement.weight_home may be behind another tier (nvme behind ddr)",
          "[profile][errors]") {
  // nvme -> ddr -> hbm is a two-hop route: the planner stages weights through ddr.
  const HardwareProfile profile = ParseProfileYaml(
      "name: t\n"
      "tiers:\n"
      "  - {name: hbm, capacity: 1GB, device: true}\n"
      "  - {name: ddr, capacity: 8GB}\n"
      "  - {name: nvme, capacity: 1TB}\n"
      "links:\n"
      "  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}\n"
      "  - {from: nvme, to: ddr, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}\n"
      "compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}\n"
      "placement:\n"
      "  weight_home: nvme\n",
      "good.yaml");
  CHECK(profile.weight_home_tier == profile.FindTier("nvme"));
}

TEST_CASE("Class rules: unknown class name", "[profile][errors]") {
  CHECK(Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
classes:
  kvcache: ['past\..*']
)yaml") ==
        "bad.yaml:5:3: classes: unknown value class 'kvcache'; expected one of weight, "
        "graph_input, graph_output, activation, kv_cache, optimizer_state");
}

TEST_CASE("Class rules: invalid and empty regular expressions", "[profile][errors]") {
  // Line 5 "  kv_cache: [" is 13 chars -> first pattern at column 14; line 6
  // "  optimizer_state: " is 19 -> column 20; line 7 "  activation: " is 14 -> column 15.
  const std::string problems = Problems(R"yaml(name: t
tiers: [{name: hbm, capacity: 1GB, device: true}]
compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}
classes:
  kv_cache: ['cache\.(', 'ok.*']
  optimizer_state: '['
  activation: ''
)yaml");
  CHECK_THAT(problems, StartsWith("bad.yaml:5:14: classes.kv_cache[0]: invalid regular "
                                  "expression 'cache\\.(' (RE2 syntax): missing ): "));
  CHECK_THAT(problems, Contains("\nbad.yaml:6:20: classes.optimizer_state: invalid regular "
                                "expression '[' (RE2 syntax): missing ]: "));
  CHECK_THAT(problems, Contains("\nbad.yaml:7:15: classes.activation: empty pattern; it would "
                                "match no value name"));
  CHECK_THAT(problems, !Contains("ok.*"));  // the valid pattern is not blamed
}

TEST_CASE("Every problem in a file is reported, sorted by position", "[profile][errors]") {
  // Found in reading order, but the missing device (blamed on "tiers", line 2) is only known
  // after all tiers are read; the message is still sorted by line. Columns: line 3/4
  // "  - {name: hbm, capacity: " is 26 chars -> 27; line 6 "  - {from: ddr, to: " is 20 ->
  // 21; line 10 "  efficiency: " 14 -> 15; line 11 "classes: {" 10 -> 11.
  CHECK(Problems(R"yaml(name: t
tiers:
  - {name: hbm, capacity: 0GB}
  - {name: ddr, capacity: 8Gb}
links:
  - {from: ddr, to: hmb, bandwidth: 1GB/s}
compute:
  peak: {float: 1TFLOPS}
  memory_bandwidth: 1TB/s
  efficiency: 2
classes: {kv: ['x']}
)yaml") ==
        "bad.yaml:2:1: tiers: no tier has 'device: true'; exactly one tier must\n"
        "bad.yaml:3:27: tiers[0].capacity: '0GB': must be greater than 0\n"
        "bad.yaml:4:27: tiers[1].capacity: '8Gb': unknown unit 'Gb'; expected one of B, kB, "
        "KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB\n"
        "bad.yaml:6:21: links[0].to: unknown tier 'hmb'; tiers are hbm, ddr\n"
        "bad.yaml:10:15: compute.efficiency: 2 is out of range; expected a fraction greater "
        "than 0 and at most 1\n"
        "bad.yaml:11:11: classes: unknown value class 'kv'; expected one of weight, "
        "graph_input, graph_output, activation, kv_cache, optimizer_state");
}

TEST_CASE("A second YAML document is a mistake, a trailing separator is not", "[profile][errors]") {
  const std::string profile =
      "name: t\n"
      "tiers: [{name: hbm, capacity: 1GB, device: true}]\n"
      "compute: {peak: {float: 1TFLOPS}, memory_bandwidth: 1TB/s}\n";
  CHECK(Problems(profile + "---\nname: u\n") ==
        "bad.yaml:5:1: a profile is one YAML document; this is a second one");
  CHECK(ParseProfileYaml(profile + "---\n", "ok.yaml").name == "t");
}

TEST_CASE("Malformed input only ever throws a profile Error", "[profile][errors]") {
  // yaml-cpp throws its own exception types for all of these; none may escape.
  const std::string inputs[] = {
      "{",
      "[",
      "\t",
      "name: t\n\tbad: tab\n",
      "a: 'unterminated\n",
      "&a [*a]\n",
      "!!binary x: y\n",
      std::string("name: t\0\x01\xff\xfe", 9),
      "tiers:\n  - name: hbm\n   capacity: 1GB\n",
      "? a\n? a\n",
  };
  for (const std::string& input : inputs) {
    INFO("input: " << input);
    try {
      ParseProfileYaml(input, "bad.yaml");
      FAIL("accepted");
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::kProfile);
      CHECK_THAT(std::string(error.what()), StartsWith("bad.yaml:"));
    }
  }
}

}  // namespace
}  // namespace hyperplan
