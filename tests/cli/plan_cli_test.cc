// End-to-end: `hyperplan plan`, `verify` and `simulate` through the built executable: the
// files they write, their CI gates, and one-line errors with their exit codes for bad input.
// Oracles: coreutils' sha256sum for digests, protobuf's own parse of the files, `inspect`
// for the model's totals, and the arithmetic in the comments.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <onnx/onnx_pb.h>
#include <re2/re2.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "hyperplan/units.h"
#include "schemas/plan.pb.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::LineCount;
using hyperplan::testing::ReadWholeFile;
using hyperplan::testing::RunCommand;
namespace fs = std::filesystem;
namespace pb = hyperplan::plan::v1;

namespace {

const std::string kSource = HYPERPLAN_SOURCE_DIR;
const std::string kDecode = kSource + "/models/llama-tiny-decode.onnx";
const std::string kPrefill = kSource + "/models/llama-tiny-prefill.onnx";
const std::vector<std::string> kDecodeDims = {"--dim",      "batch=1", "--dim",
                                              "sequence=1", "--dim",   "past_sequence=16"};

// Files of this test process, in its own scratch directory.
std::string Temp(const std::string& name) {
  static const hyperplan::testing::ScratchDir scratch("plan-cli");
  return scratch.File(name);
}

// `hyperplan plan` on the decode model with `extra` flags.
CommandResult PlanDecode(std::vector<std::string> extra) {
  std::vector<std::string> args = {"plan", kDecode};
  args.insert(args.end(), kDecodeDims.begin(), kDecodeDims.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return Hyperplan(args);
}

std::string Sha256Sum(const std::string& path) {
  const CommandResult result = RunCommand({"/usr/bin/sha256sum", path});
  REQUIRE(result.exit_code == 0);
  return result.stdout_text.substr(0, 64);
}

// plan_sha256's definition, computed independently: protobuf's own parse of the .pb, the two
// path fields cleared, protobuf's deterministic serialisation, coreutils' sha256sum.
std::string ContentSha256(const std::string& plan_pb) {
  pb::Plan plan;
  REQUIRE(plan.ParseFromString(ReadWholeFile(plan_pb)));
  plan.mutable_provenance()->clear_model_path();
  plan.mutable_provenance()->mutable_profile()->clear_source();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    REQUIRE(plan.SerializeToCodedStream(&coded));
  }
  const std::string content = plan_pb + ".content";
  std::ofstream(content, std::ios::binary) << bytes;
  return Sha256Sum(content);
}

pb::Plan ParsePlanJson(const std::string& path) {
  pb::Plan plan;
  REQUIRE(google::protobuf::util::JsonStringToMessage(ReadWholeFile(path), &plan).ok());
  return plan;
}

// One line on stderr, prefixed, with the exit code and the fragment.
void CheckOneLineError(const CommandResult& result, int exit_code, const std::string& fragment) {
  INFO(result.stderr_text);
  CHECK(result.exit_code == exit_code);
  CHECK(LineCount(result.stderr_text) == 1);
  CHECK_THAT(result.stderr_text, Catch::StartsWith("hyperplan: error: "));
  CHECK_THAT(result.stderr_text, Catch::Contains(fragment));
}

// The supernode profile with its pool link 10'000x slower: 39.2 MB/s each way.
std::string SlowLinkProfile() {
  const std::string path = Temp("slow-link.yaml");
  if (!fs::exists(path)) {
    std::string yaml = ReadWholeFile(kSource + "/configs/supernode.yaml");
    RE2::GlobalReplace(&yaml, "bandwidth: 392GB/s", "bandwidth: 39.2MB/s");
    REQUIRE(yaml.find("39.2MB/s") != std::string::npos);
    std::ofstream(path) << yaml;
  }
  return path;
}

// A plan of the decode model (default mode), written once per process as .pb and .json.
const std::string& DecodePlanFile(const std::string& extension) {
  static const std::string pb = Temp("decode.pb");
  static const std::string json = Temp("decode.json");
  static const bool made = [] {
    REQUIRE(PlanDecode({"-o", pb}).exit_code == 0);
    REQUIRE(PlanDecode({"-o", json}).exit_code == 0);
    return true;
  }();
  (void)made;
  return extension == ".pb" ? pb : json;
}

}  // namespace

TEST_CASE("plan: writes the plan and the rewritten model, byte-identical run to run") {
  const std::string pb_a = Temp("a.pb"), pb_b = Temp("b.pb");
  const std::string onnx_a = Temp("a.onnx"), onnx_b = Temp("b.onnx");
  const CommandResult first = PlanDecode({"-o", pb_a, "--emit-onnx", onnx_a});
  const CommandResult second = PlanDecode({"-o", pb_b, "--emit-onnx", onnx_b});
  INFO(first.stderr_text);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(ReadWholeFile(pb_a) == ReadWholeFile(pb_b));
  CHECK(ReadWholeFile(onnx_a) == ReadWholeFile(onnx_b));
  // The human summary, with the digest of the plan's content (plan_digest.h).
  const std::string plan_sha = ContentSha256(pb_a);
  CHECK_THAT(first.stdout_text, Catch::Contains("plan for 'tiny' on 'ascend-910c-supernode'"));
  CHECK_THAT(first.stdout_text, Catch::Contains("plan sha256: " + plan_sha));

  pb::Plan plan;
  REQUIRE(plan.ParseFromString(ReadWholeFile(pb_a)));
  CHECK(plan.provenance().model_sha256() == Sha256Sum(kDecode));
  CHECK(plan.provenance().model_path() == kDecode);
  CHECK(plan.provenance().bound_dims_size() == 3);  // batch, past_sequence, sequence

  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(ReadWholeFile(onnx_a)));
  std::string recorded_sha;
  for (const auto& entry : model.metadata_props()) {
    if (entry.key() == "hyperplan.plan_sha256") recorded_sha = entry.value();
  }
  CHECK(recorded_sha == plan_sha);
  int cache_nodes = 0;
  for (const auto& node : model.graph().node()) cache_nodes += node.domain() == "ai.hyperplan";
  CHECK(cache_nodes == plan.summary().prefetch_steps() + plan.summary().store_steps() +
                           plan.summary().detach_steps());
  CHECK(cache_nodes > 0);
}

TEST_CASE("plan: -o plan.json and -o plan.pb hold the same plan") {
  pb::Plan binary;
  REQUIRE(binary.ParseFromString(ReadWholeFile(DecodePlanFile(".pb"))));
  const pb::Plan json = ParsePlanJson(DecodePlanFile(".json"));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(binary, json));
}

TEST_CASE("plan: --summary-json prints one machine-readable line") {
  const std::string path = Temp("summary.pb");
  const CommandResult result = PlanDecode({"--summary-json", "-o", path});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  CHECK(LineCount(result.stdout_text) == 1);
  pb::RunSummary summary;
  REQUIRE(google::protobuf::util::JsonStringToMessage(result.stdout_text, &summary).ok());
  CHECK(summary.result() == "ok");
  CHECK(summary.exit_code() == 0);
  CHECK(summary.plan_sha256() == ContentSha256(path));
  CHECK(summary.ok());
  CHECK(summary.error_kind().empty());
  CHECK(summary.planned());
  CHECK(summary.plan_file() == path);
  pb::Plan plan;
  REQUIRE(plan.ParseFromString(ReadWholeFile(path)));
  CHECK(summary.makespan_ns() == plan.summary().makespan_ns());
  CHECK(summary.arena_bytes() == plan.summary().arena_bytes());
  // No budget: the overhead target (1% by default) is what the planner aims for.
  CHECK(summary.overhead_ppm() <= 10'000);
}

TEST_CASE("plan: a full home tier is named as the reason nothing fits") {
  // The supernode profile with a 256 KiB pool: the tiny model's weights (about 1 MiB, above
  // 256 KiB) do not fit there, and no other tier takes them, so what is over stays on the
  // device and a 512 KiB budget cannot hold it.
  const std::string profile = Temp("small-pool.yaml");
  std::string yaml = ReadWholeFile(kSource + "/configs/supernode.yaml");
  RE2::GlobalReplace(&yaml, "    capacity: 512GB", "    capacity: 256KiB");
  REQUIRE(yaml.find("256KiB") != std::string::npos);
  std::ofstream(profile) << yaml;
  const CommandResult result = PlanDecode({"--hw", profile, "--budget", "512KiB", "-q"});
  CheckOneLineError(result, 6, "tier 'pool' is full: its 256 KiB cannot hold");
  CHECK_THAT(result.stderr_text, Catch::Contains("must stay on the device"));
}

TEST_CASE("plan: a budget no plan fits exits 6, after writing what it found") {
  // lm_head.weight alone is 512 x 64 float32 = 131072 bytes, far above 1 KiB.
  const std::string path = Temp("over-budget.json");
  const CommandResult result = PlanDecode({"--budget", "1KiB", "-o", path});
  CheckOneLineError(result, 6, "no plan fits the budget of 1.00 KiB");
  CHECK_THAT(result.stderr_text, Catch::Contains(kDecode + ": "));
  const pb::Plan plan = ParsePlanJson(path);
  CHECK(plan.status() == pb::PLAN_STATUS_INFEASIBLE);
  CHECK_FALSE(plan.fits());

  const CommandResult json = PlanDecode({"--budget", "1KiB", "--summary-json"});
  CHECK(json.exit_code == 6);
  pb::RunSummary summary;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.stdout_text, &summary).ok());
  CHECK(summary.result() == "over_budget");
  CHECK(summary.exit_code() == 6);
}

TEST_CASE("plan: a missed overhead target exits 7") {
  // On links of 39.2 MB/s, a 600 KiB arena cannot start with more than 600 KiB of the model's
  // weights on the device, so the rest must be prefetched over pool->hbm; invariant 5 puts the
  // makespan at or above those bytes / 39.2 MB/s. The compute alone takes what inspect reports.
  const CommandResult inspect = Hyperplan({"inspect", kDecode, "--dim", "batch=1", "--dim",
                                           "sequence=1", "--dim", "past_sequence=16", "--json"});
  REQUIRE(inspect.exit_code == 0);
  int64_t weight_bytes = 0;
  REQUIRE(RE2::PartialMatch(inspect.stdout_text,
                            R"re("value_class": "weight",\s*"count": "\d+",\s*"bytes": "(\d+)")re",
                            &weight_bytes));
  int64_t compute_ns = 0;
  REQUIRE(
      RE2::PartialMatch(inspect.stdout_text, R"re("total_compute_ns": "(\d+)")re", &compute_ns));
  const int64_t budget = 600 * 1024;
  const int64_t fetch_floor_ns = (weight_bytes - budget) * 1'000'000'000 / 39'200'000;
  REQUIRE(fetch_floor_ns > compute_ns * 101 / 100);  // so more than 1% over: the gate must fail

  // --device-only: the floor is a streaming plan's (a host unit would read the weights where
  // they live, and no link need carry them).
  const CommandResult result =
      PlanDecode({"--hw", SlowLinkProfile(), "--budget", "200KiB", "--max-overhead", "1%",
                  "--summary-json", "--device-only"});
  CheckOneLineError(result, 7, "above the overhead target of 1%");
  pb::RunSummary summary;
  REQUIRE(google::protobuf::util::JsonStringToMessage(result.stdout_text, &summary).ok());
  CHECK(summary.result() == "over_overhead");
  CHECK(summary.makespan_ns() >= fetch_floor_ns);
  CHECK(summary.baseline_makespan_ns() == compute_ns);

  // The same budget without an overhead target passes: it fits, slowly.
  CHECK(PlanDecode({"--hw", SlowLinkProfile(), "--budget", "600KiB"}).exit_code == 0);
}

TEST_CASE("plan: --no-offload writes the baseline") {
  const std::string path = Temp("baseline.json");
  const CommandResult result = PlanDecode({"--no-offload", "-o", path});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const pb::Plan plan = ParsePlanJson(path);
  CHECK_FALSE(plan.offload_enabled());
  for (const pb::Step& step : plan.steps()) CHECK(step.kind() == pb::STEP_KIND_COMPUTE);
  CHECK(plan.steps_size() == plan.nodes_size());
  CHECK(plan.summary().makespan_ns() == plan.summary().baseline_makespan_ns());
}

TEST_CASE("plan: usage errors exit 2 and write nothing") {
  const std::string model_sha = Sha256Sum(kDecode);
  CheckOneLineError(PlanDecode({"-o", Temp("plan.txt")}), 2, "use .pb (protobuf) or .json");
  CheckOneLineError(PlanDecode({"-o", kDecode}), 2, "refusing to overwrite the model");
  const std::string profile = SlowLinkProfile();
  const std::string profile_text = ReadWholeFile(profile);
  CheckOneLineError(PlanDecode({"--hw", profile, "--emit-onnx", profile}), 2,
                    "refusing to overwrite the hardware profile");
  CheckOneLineError(PlanDecode({"-o", Temp("same.json"), "--emit-onnx", Temp("same.json")}), 2,
                    "refusing to overwrite the plan output");
  CheckOneLineError(PlanDecode({"--budget", "12 parsecs"}), 2, "budget");
  CheckOneLineError(PlanDecode({"--max-overhead", "lots"}), 2, "percent");
  CHECK(Sha256Sum(kDecode) == model_sha);
  CHECK(ReadWholeFile(profile) == profile_text);
  CHECK_FALSE(fs::exists(Temp("plan.txt")));
  CHECK_FALSE(fs::exists(Temp("same.json")));
}

TEST_CASE("plan: an output that cannot be written exits 9") {
  CheckOneLineError(PlanDecode({"-o", "/nonexistent-dir/plan.pb"}), 9,
                    "/nonexistent-dir/plan.pb: cannot write");
  const std::string directory = Temp("a-directory.pb");
  fs::create_directories(directory);
  CheckOneLineError(PlanDecode({"-o", directory}), 9, "cannot write");
}

TEST_CASE("verify: the planner's plans pass, binary and JSON, on their own or a named profile") {
  for (const std::string extension : {".pb", ".json"}) {
    const CommandResult result =
        Hyperplan({"verify", DecodePlanFile(extension), "--model", kDecode});
    INFO(result.stderr_text);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.stdout_text, Catch::Contains(": ok: invariants 1-6 hold"));
  }
  // The embedded default profile is configs/supernode.yaml: the predictions hold there too.
  const CommandResult named = Hyperplan({"verify", DecodePlanFile(".pb"), "--model", kDecode,
                                         "--hw", kSource + "/configs/supernode.yaml"});
  INFO(named.stderr_text);
  CHECK(named.exit_code == 0);
}

TEST_CASE("verify: truncated, foreign and missing plan files") {
  const std::string bytes = ReadWholeFile(DecodePlanFile(".pb"));
  const std::string truncated = Temp("truncated.pb");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CheckOneLineError(Hyperplan({"verify", truncated, "--model", kDecode}), 8,
                    truncated + ": truncated");
  CheckOneLineError(Hyperplan({"verify", kDecode, "--model", kDecode}), 8,
                    kDecode + ": not a hyperplan plan");
  CheckOneLineError(Hyperplan({"verify", Temp("absent.pb"), "--model", kDecode}), 3,
                    Temp("absent.pb"));
}

TEST_CASE("verify: a plan for another model exits 8") {
  CheckOneLineError(Hyperplan({"verify", DecodePlanFile(".pb"), "--model", kPrefill}), 8,
                    "made for another model");
  // Not a model at all: still another model, not a parse error.
  CheckOneLineError(
      Hyperplan({"verify", DecodePlanFile(".pb"), "--model", DecodePlanFile(".json")}), 8,
      "made for another model");
}

TEST_CASE("verify and simulate: a profile without a tier the plan uses exits 5") {
  const std::string h100 = kSource + "/configs/h100-sxm.yaml";
  CheckOneLineError(Hyperplan({"verify", DecodePlanFile(".pb"), "--model", kDecode, "--hw", h100}),
                    5, h100 + ": has no tier 'pool', which " + DecodePlanFile(".pb") + " uses");
  CheckOneLineError(
      Hyperplan({"simulate", DecodePlanFile(".pb"), "--model", kDecode, "--hw", h100}), 5,
      "has no tier 'pool'");
}

TEST_CASE("verify: a plan edited so that a consumer runs before its Prefetch exits 8") {
  pb::Plan plan = ParsePlanJson(DecodePlanFile(".json"));
  // The first compute step that waits for a Prefetch to the device: drop that wait.
  int consumer = -1;
  int prefetch = -1;
  for (int i = 0; i < plan.steps_size() && consumer < 0; ++i) {
    const pb::Step& step = plan.steps(i);
    if (step.kind() != pb::STEP_KIND_COMPUTE) continue;
    for (int32_t wait : step.waits_for()) {
      const pb::Step& waited = plan.steps(wait);
      if (waited.kind() == pb::STEP_KIND_PREFETCH && plan.tiers(waited.dst_tier()).is_device()) {
        consumer = i;
        prefetch = wait;
        break;
      }
    }
  }
  REQUIRE(consumer >= 0);
  auto* waits = plan.mutable_steps(consumer)->mutable_waits_for();
  waits->erase(std::find(waits->begin(), waits->end(), prefetch));
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  REQUIRE(google::protobuf::util::MessageToJsonString(plan, &json, options).ok());
  const std::string edited = Temp("edited.json");
  std::ofstream(edited) << json;

  const CommandResult result = Hyperplan({"verify", edited, "--model", kDecode});
  const std::string node = plan.nodes(plan.steps(consumer).node()).name();
  const std::string value = plan.values(plan.steps(prefetch).value()).name();
  CheckOneLineError(result, 8, edited + ": ");
  CHECK_THAT(result.stderr_text,
             Catch::Contains("step " + std::to_string(consumer) + " (compute '" + node + "')"));
  CHECK_THAT(result.stderr_text, Catch::Contains("'" + value + "'"));
  CHECK_THAT(result.stderr_text, Catch::Contains("step " + std::to_string(prefetch)));
}

TEST_CASE("simulate: the plan's own profile reproduces it, and slower links add stalls") {
  pb::Plan plan;
  REQUIRE(plan.ParseFromString(ReadWholeFile(DecodePlanFile(".pb"))));
  const CommandResult same = Hyperplan({"simulate", DecodePlanFile(".pb"), "--model", kDecode,
                                        "--hw", kSource + "/configs/supernode.yaml"});
  INFO(same.stderr_text);
  REQUIRE(same.exit_code == 0);
  CHECK_THAT(
      same.stdout_text,
      Catch::Contains("here: makespan " + hyperplan::FormatDuration(plan.summary().makespan_ns())));

  // 10'000x slower links: the plan's transfers no longer hide behind compute.
  const CommandResult slow =
      Hyperplan({"simulate", DecodePlanFile(".pb"), "--model", kDecode, "--hw", SlowLinkProfile()});
  INFO(slow.stderr_text);
  REQUIRE(slow.exit_code == 0);
  CHECK_THAT(slow.stdout_text, Catch::Contains("stall: "));
  CHECK_THAT(slow.stdout_text, !Catch::Contains("stall: 0 ns"));
}

namespace {

// A plan of the decode model at past_sequence=`past` with its static rewritten model.
std::pair<std::string, std::string> PlanAndStaticModel(const std::string& past) {
  const std::string plan = Temp("past" + past + ".pb");
  const std::string onnx = Temp("past" + past + ".onnx");
  if (!fs::exists(onnx)) {
    const CommandResult result =
        Hyperplan({"plan", kDecode, "--dim", "batch=1", "--dim", "sequence=1", "--dim",
                   "past_sequence=" + past, "-o", plan, "--emit-onnx", onnx, "--emit-onnx-static"});
    INFO(result.stderr_text);
    REQUIRE(result.exit_code == 0);
  }
  return {plan, onnx};
}

}  // namespace

TEST_CASE("verify: the rewritten model a runtime loads passes for its own plan") {
  const auto [plan, onnx] = PlanAndStaticModel("16");
  const CommandResult result = Hyperplan({"verify", plan, "--model", onnx});
  INFO(result.stderr_text);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.stdout_text, Catch::Contains(": ok: invariants 1-6 hold"));
  // Its inputs are fixed at the bound dims: past_key_values.0.key is [1, 2, 16, 16].
  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(ReadWholeFile(onnx)));
  bool found = false;
  for (const onnx::ValueInfoProto& input : model.graph().input()) {
    if (input.name() != "past_key_values.0.key") continue;
    found = true;
    std::vector<int64_t> dims;
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      CHECK(dim.has_dim_value());
      dims.push_back(dim.dim_value());
    }
    CHECK(dims == std::vector<int64_t>{1, 2, 16, 16});
  }
  CHECK(found);
}

TEST_CASE("verify: a plan used at other dims exits 8, naming the dim and both values") {
  const auto [plan16, onnx16] = PlanAndStaticModel("16");
  const auto [plan32, onnx32] = PlanAndStaticModel("32");
  // The dims the model will run at, on the command line.
  CheckOneLineError(Hyperplan({"verify", plan16, "--model", kDecode, "--dim", "past_sequence=32"}),
                    8, "dim 'past_sequence': the plan was made for 16, but --dim has 32");
  CheckOneLineError(Hyperplan({"verify", plan16, "--model", kDecode, "--dim", "beam=4"}), 8,
                    "dim 'beam': --dim sets it to 4, but the plan binds no dim of that name");
  // A model rewritten for other dims says so in its metadata.
  CheckOneLineError(
      Hyperplan({"verify", plan16, "--model", onnx32}), 8,
      "dim 'past_sequence': the plan was made for 16, but " + onnx32 + " (its metadata) has 32");
  // A static model edited to another shape: the input, the axis, both values.
  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(ReadWholeFile(onnx16)));
  for (onnx::ValueInfoProto& input : *model.mutable_graph()->mutable_input()) {
    if (input.name() == "past_key_values.0.key") {
      input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(
          64);
    }
  }
  const std::string edited = Temp("edited-shape.onnx");
  std::ofstream(edited, std::ios::binary) << model.SerializeAsString();
  CheckOneLineError(Hyperplan({"verify", plan16, "--model", edited}), 8,
                    "input 'past_key_values.0.key' axis 2: the plan was made for 16, but " +
                        edited + " fixes it at 64");
  // The right dims but another plan's rewrite: the digests differ.
  const std::string other = Temp("past16-other.onnx");
  REQUIRE(PlanDecode({"--emit-onnx", other, "--budget", "64KiB"}).exit_code != 2);
  CheckOneLineError(Hyperplan({"verify", plan16, "--model", other}), 8,
                    "was rewritten from another plan");
}

TEST_CASE("plan: --align sets the arena's alignment, recorded and verified") {
  const std::string plan_path = Temp("aligned.json");
  const CommandResult result = PlanDecode({"-o", plan_path, "--align", "4KiB"});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const pb::Plan plan = ParsePlanJson(plan_path);
  CHECK(plan.arena().alignment_bytes() == 4096);
  CHECK(plan.provenance().options().align_bytes() == 4096);
  CHECK(plan.tiers(plan.provenance().profile().device_tier()).alignment_bytes() == 4096);
  for (const pb::Residency& residency : plan.residency()) {
    CHECK(residency.offset_bytes() % 4096 == 0);
  }
  CHECK(plan.arena().size_bytes() % 4096 == 0);
  // The embedded supernode profile states 256 B for its pool: every copy's offset honours it.
  for (const pb::TierCopy& copy : plan.tier_copies()) CHECK(copy.offset_bytes() % 256 == 0);
  CHECK(Hyperplan({"verify", plan_path, "--model", kDecode}).exit_code == 0);
  CheckOneLineError(PlanDecode({"--align", "100"}), 2, "power of two");
}
