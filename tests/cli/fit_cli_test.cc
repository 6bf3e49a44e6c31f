// End-to-end: `hyperplan fit`. The answer on a generated model against the arithmetic of its
// KV cache, the number of plans the search makes, the sweep's rows, the JSON (parsed by
// protobuf and by nlohmann), ties, and one-line errors with their exit codes.
// Oracles: the arithmetic in the comments, protobuf's own parse of the model (its weight
// bytes), and `hyperplan plan` at the answer and one past it.
#include <google/protobuf/util/json_util.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schemas/fit.pb.h"
#include "support/run_command.h"
#include "support/scratch_dir.h"

using hyperplan::testing::CommandResult;
using hyperplan::testing::Hyperplan;
using hyperplan::testing::LineCount;
using hyperplan::testing::RunCommand;
namespace fs = std::filesystem;
namespace fitpb = hyperplan::fit::v1;

namespace {

const std::string kSource = HYPERPLAN_SOURCE_DIR;
// hyperplan-gen --preset tiny --form decode --ops contrib (models/README.md): 4 layers, hidden
// 64, 4 query heads and 2 KV heads of 16, MLP 192, vocab 512; float32 activations and KV
// cache, 4-bit MatMulNBits projections (block 32). GroupQueryAttention reads the cache in
// place, so no activation grows with past_sequence: only the cache does.
const std::string kContrib = kSource + "/models/llama-tiny-decode-contrib.onnx";

// Files of this test process, in its own scratch directory.
std::string Temp(const std::string& name) {
  static const hyperplan::testing::ScratchDir scratch("fit-cli");
  return scratch.File(name);
}

// A unit-rate machine with one tier: the device, `capacity` bytes, byte-aligned, no links (so
// nothing can leave it); 1 FLOP/ns and 1 byte/ns of memory bandwidth, no launch overhead.
std::string DeviceOnlyProfile(const std::string& capacity) {
  const std::string path = Temp("unit-" + capacity + ".yaml");
  std::ofstream(path) << "name: unit-device-only\n"
                         "tiers:\n"
                         "  - {name: hbm, capacity: "
                      << capacity
                      << ", device: true, alignment: 1B}\n"
                         "compute:\n"
                         "  peak: {float: 1GFLOPS}\n"
                         "  memory_bandwidth: 1GB/s\n"
                         "  efficiency: 1\n"
                         "  kernel_launch_overhead: 0ns\n";
  return path;
}

// The same machine with host memory behind the device at 1 byte/ns each way.
std::string TwoTierProfile() {
  const std::string path = Temp("unit-two-tier.yaml");
  std::ofstream(path) << "name: unit-two-tier\n"
                         "tiers:\n"
                         "  - {name: hbm, capacity: 1MB, device: true, alignment: 1B}\n"
                         "  - {name: ddr, capacity: 1GB, alignment: 1B}\n"
                         "links:\n"
                         "  - {from: ddr, to: hbm, bandwidth: 1GB/s, reverse_bandwidth: 1GB/s}\n"
                         "compute:\n"
                         "  peak: {float: 1GFLOPS}\n"
                         "  memory_bandwidth: 1GB/s\n"
                         "  efficiency: 1\n"
                         "  kernel_launch_overhead: 0ns\n";
  return path;
}

// `hyperplan fit` on the contrib decode model at batch 1, one new token, with `extra` flags.
CommandResult FitContrib(const std::string& profile, std::vector<std::string> extra) {
  std::vector<std::string> args = {"fit",   kContrib,  "--hw",  profile,
                                   "--dim", "batch=1", "--dim", "sequence=1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Hyperplan(args);
}

fitpb::FitReport ParseReport(const CommandResult& result) {
  fitpb::FitReport report;
  INFO(result.stdout_text);
  REQUIRE(google::protobuf::util::JsonStringToMessage(result.stdout_text, &report).ok());
  return report;
}

void CheckOneLineError(const CommandResult& result, int exit_code, const std::string& fragment) {
  INFO(result.stderr_text);
  CHECK(result.exit_code == exit_code);
  CHECK(LineCount(result.stderr_text) == 1);
  CHECK_THAT(result.stderr_text, Catch::StartsWith("hyperplan: error: "));
  CHECK_THAT(result.stderr_text, Catch::Contains(fragment));
}

// Bytes of every initializer, from protobuf's own parse of the model.
int64_t InitializerBytes(const std::string& path) {
  onnx::ModelProto model;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(model.ParseFromIstream(&in));
  int64_t total = 0;
  for (const onnx::TensorProto& tensor : model.graph().initializer()) {
    int64_t elements = 1;
    for (int64_t dim : tensor.dims()) elements *= dim;
    const int32_t type = tensor.data_type();
    const int64_t element_bytes = type == onnx::TensorProto::UINT8   ? 1
                                  : type == onnx::TensorProto::INT64 ? 8
                                                                     : 4;
    REQUIRE((type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT64 ||
             type == onnx::TensorProto::FLOAT));
    total += elements * element_bytes;
  }
  return total;
}

// The arena of the contrib model at past_sequence P on a byte-aligned device with nothing
// offloaded, worked out from the model's shapes:
//   weights 309,512 B: embed_tokens [512, 64] f32 131,072; cos/sin caches 2 x [512, 8] f32
//     32,768; lm_head 4-bit [512, 2, 16] u8 16,384 + scales [512, 2] f32 4,096; final norm
//     256; one int64 constant 8; per layer 31,232 (two norms 512; q and o, N = K = 64: 2 x
//     (2,048 + 512); k and v, N = 32: 2 x (1,024 + 256); gate and up, N = 192, K = 64:
//     2 x (6,144 + 1,536); down, N = 64, K = 192: 6,144 + 1,536), x 4 layers = 124,928;
//   inputs input_ids and position_ids [1, 1] int64: 16;
//   KV cache: a loop plan appends in place (present.N is next token's past_key_values.N), one
//     buffer of P + 1 tokens per layer and key/value: 8 x 2 heads x 16 x 4 B = 1,024 B a token;
//   activations at the peak (layer 0's SwiGLU product): the norm output [1, 1, 64] 256, gate,
//     up, sigmoid and product [1, 1, 192] 4 x 768, seqlens_k and total_sequence_length 2 x 4:
//     3,336.
// arena(P) = 309,512 + 16 + 3,336 + 1,024 (P + 1) = 313,888 + 1,024 P.
int64_t ContribArena(int64_t past_sequence) { return 313'888 + 1'024 * past_sequence; }

}  // namespace

TEST_CASE("fit: the largest past_sequence whose KV cache fits is the arithmetic's") {
  // The oracle's weight bytes agree with the arithmetic above.
  REQUIRE(InitializerBytes(kContrib) == 309'512);
  // A 1 MB device: 313,888 + 1,024 P <= 1,000,000 -> P <= 686,112 / 1,024 = 670.03, so 670
  // (arena 999,968) fits and 671 (arena 1,000,992) does not.
  const std::string profile = DeviceOnlyProfile("1MB");
  const CommandResult result = FitContrib(profile, {"--grow", "past_sequence", "--json"});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const fitpb::FitReport report = ParseReport(result);
  CHECK(report.found());
  CHECK(report.answer() == 670);
  CHECK(report.at_answer().result() == "ok");
  CHECK(report.at_answer().planned());
  CHECK(report.at_answer().arena_bytes() == ContribArena(670));
  CHECK(report.at_answer().arena_bytes() == 999'968);
  CHECK(report.first_failing().value() == 671);
  CHECK(report.first_failing().result() == "over_budget");
  CHECK_FALSE(report.first_failing().fits());
  CHECK(report.budget_bytes() == 1'000'000);
  CHECK(report.budget_is_device());
  // No links: the compute stream is the only one that works, never waits, and its time splits
  // into FLOPs and HBM traffic (the profile has no launch overhead).
  const fitpb::FitPoint& answer = report.at_answer();
  CHECK((answer.bottleneck() == "FLOPs" || answer.bottleneck() == "HBM traffic"));
  CHECK(answer.launch_ns() == 0);
  CHECK(answer.compute_wait_ns() == 0);
  CHECK(answer.flops_ns() + answer.hbm_traffic_ns() == answer.time_per_iteration_ns());
  CHECK(answer.compute_busy_ns() == answer.time_per_iteration_ns());
  CHECK(answer.bottleneck_busy_ns() == std::max(answer.flops_ns(), answer.hbm_traffic_ns()));
  // input_ids [batch = 1, sequence = 1]: one token an iteration.
  CHECK(report.at_answer().tokens_per_iteration() == 1);

  SECTION("plan agrees at the answer and one past it") {
    auto plan = [&](int64_t past) {
      return Hyperplan({"plan", kContrib, "--hw", profile, "--dim", "batch=1", "--dim",
                        "sequence=1", "--dim", "past_sequence=" + std::to_string(past), "--budget",
                        "1MB", "-q"});
    };
    CHECK(plan(670).exit_code == 0);
    CHECK(plan(671).exit_code == 6);
  }
}

TEST_CASE("fit: the search plans few values") {
  const CommandResult result =
      FitContrib(DeviceOnlyProfile("1MB"), {"--grow", "past_sequence", "--json"});
  REQUIRE(result.exit_code == 0);
  const fitpb::FitReport report = ParseReport(result);
  // The scan doubles from 1: 1, 2, ..., 512 pass (arena 313,888 + 1,024 x 512 = 838,176);
  // 1,024 (1,362,464) and 2,048 are over budget, two failures for good in a row, so it stops:
  // 12 values. Bisection of (512, 1024): 768 no, 640 yes, 704 no, 672 no, 656 yes, 664 yes,
  // 668 yes, 670 yes, 671 no: 9 values. Around the flip, 671 + 353 j / 5 for j = 4..1: 953,
  // 882, 812, 741, all over budget: 4. 25 in all, against 670 for a scan.
  const std::vector<int64_t> expected = {1,   2,    4,    8,   16,  32,  64,  128, 256,
                                         512, 1024, 2048, 768, 640, 704, 672, 656, 664,
                                         668, 670,  671,  953, 882, 812, 741};
  REQUIRE(report.points_size() == static_cast<int>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) CHECK(report.points(i).value() == expected[i]);
  CHECK(report.probed() == 25);
  CHECK(report.scan_top() == 2048);
  CHECK(report.neighbourhood_probes() == 4);
  CHECK_FALSE(report.has_failing_below_answer());  // everything below 670 fits
  // The 15 that pass fit with nothing offloaded and need no plan; the 10 that fail are planned
  // (the planner and its contenders try), and the answer is planned for its numbers: 11 plans.
  CHECK(report.unplanned() == 15);
  CHECK(report.plans() == 11);

  SECTION("the text says so") {
    const CommandResult text = FitContrib(DeviceOnlyProfile("1MB"), {"--grow", "past_sequence"});
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.stdout_text, Catch::Contains("largest past_sequence = 670"));
    CHECK_THAT(text.stdout_text,
               Catch::Contains("25 values probed (every doubling from 1 to 2048, then bisection "
                               "and 4 around the flip)"));
    CHECK_THAT(text.stdout_text, Catch::Contains("11 plans made"));
    CHECK_THAT(text.stdout_text, Catch::Contains("  bound at past_sequence=670: "));
    CHECK_THAT(text.stdout_text, Catch::Contains("why not 671: past_sequence=671: no plan fits"));
    // Every weight is on the only tier there is.
    CHECK_THAT(text.stdout_text,
               Catch::Contains("residency at past_sequence=670: layers 0-3 resident;"));
    CHECK_THAT(text.stdout_text, Catch::Contains("kv cache resident"));
  }
}

TEST_CASE("fit: a range that starts above the answer exits 6, and one that ends below it stops") {
  const std::string profile = DeviceOnlyProfile("1MB");
  const CommandResult none = FitContrib(profile, {"--grow", "past_sequence=671..4k"});
  CheckOneLineError(none, 6, "past_sequence=671: no plan fits the budget");
  CHECK_THAT(none.stdout_text, Catch::Contains("nothing fits, not even past_sequence=671"));

  const CommandResult top = FitContrib(profile, {"--grow", "past_sequence=1..600", "--json"});
  REQUIRE(top.exit_code == 0);
  const fitpb::FitReport report = ParseReport(top);
  // 1, 2, ..., 512 pass, then the cap 600 passes (arena 928,288): the top of the range.
  CHECK(report.answer() == 600);
  CHECK_FALSE(report.has_first_failing());
  CHECK(report.probed() == 11);
}

TEST_CASE("fit: an overhead target that even the smallest value misses exits 7") {
  // 2,000 tokens of cache (2,361,888 B) cannot stay on the 1 MB device: the cache streams from
  // ddr at 1 byte/ns, which compute cannot hide within 1%.
  const CommandResult result = FitContrib(
      TwoTierProfile(), {"--grow", "past_sequence=2000..4000", "--max-overhead", "1", "--json"});
  INFO(result.stderr_text);
  CHECK(result.exit_code == 7);
  CHECK(LineCount(result.stderr_text) == 1);
  CHECK_THAT(result.stderr_text, Catch::Contains("above the overhead target of 1%"));
  const fitpb::FitReport report = ParseReport(result);
  CHECK_FALSE(report.found());
  CHECK(report.exit_code() == 7);
  CHECK(report.error_kind() == "gate_failed");
  CHECK(report.first_failing().result() == "over_overhead");
  CHECK(report.first_failing().fits());
  CHECK(report.first_failing().overhead_ppm() > 10'000);  // 1% = 10,000 ppm
  CHECK(report.max_overhead_ppm() == 10'000);
}

TEST_CASE("fit: a context search stops at the model's window unless --beyond-window") {
  const std::string profile = DeviceOnlyProfile("1MB");
  SECTION("hyperplan-gen records the window in metadata_props") {
    // The tiny preset's window is 512 positions; at 512 the arena is 313,888 + 1,024 x 512 =
    // 838,176 B, within 1 MB, so the capped search ends at the window itself.
    const std::string model = Temp("gen-tiny-contrib.onnx");
    REQUIRE(RunCommand({HYPERPLAN_GEN_PATH, "--preset", "tiny", "--form", "decode", "--ops",
                        "contrib", "-o", model})
                .exit_code == 0);
    const CommandResult capped =
        Hyperplan({"fit", model, "--hw", profile, "--dim", "batch=1", "--dim", "sequence=1",
                   "--grow", "past_sequence", "--json"});
    INFO(capped.stderr_text);
    REQUIRE(capped.exit_code == 0);
    const fitpb::FitReport report = ParseReport(capped);
    CHECK(report.window_tokens() == 512);
    CHECK(report.window_source() == "metadata_props hyperplan.max_position_embeddings");
    CHECK(report.capped_at_window());
    CHECK(report.max() == 512);
    CHECK(report.answer() == 512);
    CHECK_FALSE(report.has_first_failing());
    const CommandResult text = Hyperplan({"fit", model, "--hw", profile, "--dim", "batch=1",
                                          "--dim", "sequence=1", "--grow", "past_sequence"});
    CHECK_THAT(text.stdout_text,
               Catch::Contains("largest past_sequence = 512, the model's context window\n"));
    CHECK_THAT(text.stdout_text,
               Catch::Contains("capped at the model's context window, 512 tokens (metadata_props "
                               "hyperplan.max_position_embeddings): --beyond-window looks past"));
    // Past the window the arithmetic's 670 (first test) is the answer again.
    const CommandResult beyond =
        Hyperplan({"fit", model, "--hw", profile, "--dim", "batch=1", "--dim", "sequence=1",
                   "--grow", "past_sequence", "--beyond-window", "--json"});
    REQUIRE(beyond.exit_code == 0);
    const fitpb::FitReport past = ParseReport(beyond);
    CHECK_FALSE(past.capped_at_window());
    CHECK(past.window_tokens() == 512);
    CHECK(past.answer() == 670);
  }
  SECTION("config.json beside the model; a batch search is not capped") {
    const std::string model = Temp("windowed/model.onnx");
    fs::create_directories(fs::path(model).parent_path());
    fs::copy_file(kContrib, model, fs::copy_options::overwrite_existing);
    std::ofstream(Temp("windowed/config.json")) << R"({"max_position_embeddings": 300})";
    const fitpb::FitReport report =
        ParseReport(Hyperplan({"fit", model, "--hw", profile, "--dim", "batch=1", "--dim",
                               "sequence=1", "--grow", "past_sequence", "--json"}));
    CHECK(report.window_source() == "config.json max_position_embeddings");
    CHECK(report.capped_at_window());
    CHECK(report.answer() == 300);
    // batch sizes the kv cache on its first axis only: a larger batch is not a longer context.
    const fitpb::FitReport batch =
        ParseReport(Hyperplan({"fit", model, "--hw", profile, "--dim", "past_sequence=8", "--dim",
                               "sequence=1", "--grow", "batch", "--json"}));
    CHECK(batch.window_tokens() == 300);
    CHECK_FALSE(batch.capped_at_window());
    CHECK(batch.found());
    // A range wholly past the window is a usage error naming the window and the way past it.
    CheckOneLineError(Hyperplan({"fit", model, "--hw", profile, "--dim", "batch=1", "--dim",
                                 "sequence=1", "--grow", "past_sequence=400..800"}),
                      2, "context window is 300 tokens (config.json max_position_embeddings)");
  }
}

TEST_CASE("fit --sweep: one row per value") {
  const std::string profile = DeviceOnlyProfile("1MB");
  const CommandResult result =
      FitContrib(profile, {"--sweep", "past_sequence=512..1024:128", "--json"});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  const fitpb::FitReport report = ParseReport(result);
  REQUIRE(report.points_size() == 5);
  const std::vector<int64_t> values = {512, 640, 768, 896, 1024};
  for (int i = 0; i < 5; ++i) {
    const fitpb::FitPoint& row = report.points(i);
    CHECK(row.value() == values[i]);
    CHECK(row.planned());
    // arena(P) <= 1,000,000 up to P = 670: the first two rows fit.
    CHECK(row.result() == (values[i] <= 670 ? "ok" : "over_budget"));
    CHECK(row.tokens_per_iteration() == 1);
    // tokens/s = batch x new tokens / time per iteration = 1 / time.
    CHECK(row.tokens_per_s() == Approx(1e9 / static_cast<double>(row.time_per_iteration_ns())));
    CHECK(row.overhead_ppm() == 0);  // nothing can move, so nothing waits
  }
  CHECK(report.points(0).arena_bytes() == ContribArena(512));  // 838,176
  CHECK(report.points(1).arena_bytes() == ContribArena(640));  // 969,248
  CHECK(report.plans() == 5);

  SECTION("the text table") {
    const CommandResult text = FitContrib(profile, {"--sweep", "past_sequence=512..1024:128"});
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.stdout_text, Catch::Contains("past_sequence  result"));
    CHECK_THAT(text.stdout_text,
               Catch::Contains("time/iter  tokens/s  cold start  overhead  bottleneck\n"));
    CHECK_THAT(text.stdout_text, Catch::Contains("  over budget  "));
    CHECK_THAT(text.stdout_text, Catch::Contains("first row that fails: past_sequence=768"));
    CHECK_THAT(text.stdout_text, Catch::Contains("5 rows, 5 plans"));
    CHECK_THAT(text.stdout_text, Catch::Contains("  bound at past_sequence=640: "));
    // A header, the targets, the table's header and 5 rows, residency, the bounds at the last
    // row that fits, the failure, the count.
    CHECK(LineCount(text.stdout_text) == 12);
  }

  SECTION("without a step each row doubles the last; the end is always a row") {
    const fitpb::FitReport doubled =
        ParseReport(FitContrib(profile, {"--sweep", "past_sequence=100..1000", "--json"}));
    std::vector<int64_t> rows;
    for (const auto& row : doubled.points()) rows.push_back(row.value());
    CHECK(rows == std::vector<int64_t>{100, 200, 400, 800, 1000});
  }

  SECTION("nothing fits: exit 6 after the table") {
    const CommandResult none = FitContrib(profile, {"--sweep", "past_sequence=1k..2k"});
    CheckOneLineError(none, 6, "past_sequence=1024: no plan fits");
    CHECK_THAT(none.stdout_text, Catch::Contains("over budget"));
  }
}

TEST_CASE("fit --json is one JSON document, byte-identical run to run") {
  const std::vector<std::string> flags = {"--grow", "past_sequence", "--json"};
  const CommandResult first = FitContrib(DeviceOnlyProfile("1MB"), flags);
  const CommandResult second = FitContrib(DeviceOnlyProfile("1MB"), flags);
  REQUIRE(first.exit_code == 0);
  CHECK(first.stdout_text == second.stdout_text);
  const nlohmann::json json = nlohmann::json::parse(first.stdout_text);  // throws if not JSON
  CHECK(json.at("mode") == "grow");
  CHECK(json.at("dim") == "past_sequence");
  CHECK(json.at("answer") == "670");  // protobuf's JSON writes int64 as a string
  CHECK(json.at("fixed_dims").size() == 2);
}

namespace {

// x [n] and y [`y_dim`] (float): out = Concat(x, one) + y, so y must be [n + 1]. With y_dim
// "m" the model names the partner apart; with "n + 1" it records the expression.
std::string PartnerModel(const std::string& y_dim) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("partner");
  auto add_io = [](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                   const std::string& name, const std::string& dim) {
    onnx::ValueInfoProto* info = list->Add();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_param(dim);
  };
  add_io(graph.mutable_input(), "x", "n");
  add_io(graph.mutable_input(), "y", y_dim);
  add_io(graph.mutable_output(), "out", "n + 1");
  onnx::TensorProto* one = graph.add_initializer();
  one->set_name("one");
  one->set_data_type(onnx::TensorProto::FLOAT);
  one->add_dims(1);
  one->add_float_data(1.0f);
  onnx::NodeProto* concat = graph.add_node();
  concat->set_op_type("Concat");
  concat->set_name("concat");
  concat->add_input("x");
  concat->add_input("one");
  concat->add_output("joined");
  onnx::AttributeProto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  onnx::NodeProto* add = graph.add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("joined");
  add->add_input("y");
  add->add_output("out");
  const std::string path = Temp("partner-" + std::to_string(y_dim.size()) + ".onnx");
  std::ofstream out(path, std::ios::binary);
  REQUIRE(model.SerializeToOstream(&out));
  return path;
}

CommandResult FitPartner(const std::string& model, std::vector<std::string> extra) {
  std::vector<std::string> args = {"fit",    model, "--hw",         DeviceOnlyProfile("1000B"),
                                   "--grow", "n",   "--single-run", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Hyperplan(args);
}

}  // namespace

TEST_CASE("fit: a partner dim follows from the model's expression, or from --tie") {
  // Live at the Add, with nothing offloaded: x 4n, y, joined and out 4 (n + 1) each, `one` 4:
  // 16 n + 16 <= 1,000 -> n <= 61.5, so 61 (992 B) fits and 62 (1,008 B) does not.
  SECTION("y declared [n + 1]: no tie needed") {
    const CommandResult result = FitPartner(PartnerModel("n + 1"), {});
    INFO(result.stderr_text);
    REQUIRE(result.exit_code == 0);
    const fitpb::FitReport report = ParseReport(result);
    CHECK(report.answer() == 61);
    CHECK(report.at_answer().arena_bytes() == 992);
  }
  SECTION("y declared [m]: --tie m=n+1 binds it with n") {
    const std::string model = PartnerModel("m");
    CheckOneLineError(FitPartner(model, {}), 4,
                      "dimension 'm' is not bound and decides the size of value 'y'; bind it "
                      "with --dim m=VALUE; or, if it moves with n, tie it: --tie m=EXPRESSION");
    const CommandResult result = FitPartner(model, {"--tie", "m=n+1"});
    INFO(result.stderr_text);
    REQUIRE(result.exit_code == 0);
    const fitpb::FitReport report = ParseReport(result);
    CHECK(report.answer() == 61);
    REQUIRE(report.at_answer().dims_size() == 2);
    CHECK(report.at_answer().dims(0).name() == "m");
    CHECK(report.at_answer().dims(0).value() == 62);
    // A wrong tie breaks the model's shapes from n = 2 on ([3] + [2] does not broadcast):
    // the importer warns, as it does for any model whose inference fails, and says so once.
    const CommandResult wrong = FitPartner(model, {"--tie", "m=n"});
    CHECK_THAT(wrong.stderr_text, Catch::Contains("node 'add' (Add): shape inference failed"));
    CHECK(LineCount(wrong.stderr_text) == 1);
  }
}

TEST_CASE("fit: bad flags are one line and exit 2") {
  const std::string profile = DeviceOnlyProfile("1MB");
  CheckOneLineError(FitContrib(profile, {}), 2, "fit needs --grow NAME");
  CheckOneLineError(
      FitContrib(profile, {"--grow", "past_sequence", "--sweep", "past_sequence=1..2"}), 2,
      "excludes");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence=10..1"}), 2, "runs backwards");
  CheckOneLineError(FitContrib(profile, {"--sweep", "past_sequence"}), 2, "needs its values");
  CheckOneLineError(FitContrib(profile, {"--sweep", "past_sequence=4x..8"}), 2,
                    "'4x' is not a dim value");
  CheckOneLineError(FitContrib(profile, {"--sweep", "past_sequence=1..1000:1"}), 2, "at most 256");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--tie", "=n"}), 2,
                    "not a dim name");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--tie", "t=past_sequence+"}),
                    2, "not an expression");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--dim", "past_sequence=5"}), 2,
                    "--dim past_sequence and --grow past_sequence");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequenc"}), 2,
                    "--grow past_sequenc: the model has no dimension of that name (did you mean "
                    "'past_sequence'?)");
  // total_sequence only names the outputs: inference works it out from past_sequence.
  CheckOneLineError(
      FitContrib(profile, {"--grow", "total_sequence", "--dim", "past_sequence=16", "-q"}), 2,
      "no size in the model changes");
  // ... and without past_sequence, that is what to bind.
  CheckOneLineError(FitContrib(profile, {"--grow", "total_sequence"}), 4,
                    "dimension 'past_sequence' is not bound");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--tie", "t=nope+1"}), 2,
                    "'nope' is not bound");
}

TEST_CASE("plan's summary says where the layers are and what binds the iteration") {
  const CommandResult result =
      Hyperplan({"plan", kContrib, "--hw", TwoTierProfile(), "--dim", "batch=1", "--dim",
                 "sequence=1", "--dim", "past_sequence=2000"});
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  // The residency line names the four layers by number from layer 0, and 2,000 tokens of
  // cache (2,361,888 B) cannot stay on the 1 MB device: at least part of it streams from ddr.
  // Which layers stay is the planner's choice, so the line is matched, not spelled out.
  CHECK_THAT(result.stdout_text,
             Catch::Matches("[^]*\n  residency: layers 0[ -][^\n]*3 [^\n]*; kv cache "
                            "(partly )?streamed from ddr[^]*"));
  CHECK_THAT(result.stdout_text, Catch::Contains("  bottleneck: "));
}

TEST_CASE("fit --llama-cpp-flags: the answer's llama.cpp flags instead of the table") {
  // A device-only machine runs nothing on the host: every layer on the GPU, no override.
  const std::string profile = DeviceOnlyProfile("1MB");
  const CommandResult shell =
      FitContrib(profile, {"--sweep", "past_sequence=512..1024:128", "--llama-cpp-flags"});
  INFO(shell.stderr_text);
  REQUIRE(shell.exit_code == 0);
  CHECK(shell.stdout_text == "-ngl 999\n");
  const CommandResult lines =
      FitContrib(profile, {"--grow", "past_sequence=512..1024", "--llama-cpp-flags=lines", "-q"});
  REQUIRE(lines.exit_code == 0);
  CHECK(lines.stdout_text == "-ngl\n999\n");
  // The JSON carries the same arguments on every planned point.
  const fitpb::FitReport report =
      ParseReport(FitContrib(profile, {"--sweep", "past_sequence=512..640:128", "--json"}));
  REQUIRE(report.points_size() == 2);
  CHECK(std::vector<std::string>(report.points(0).llama_cpp_args().begin(),
                                 report.points(0).llama_cpp_args().end()) ==
        std::vector<std::string>{"-ngl", "999"});
  CHECK(report.points(0).host_nodes() == 0);
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--llama-cpp-flags=yaml"}), 2,
                    "yaml not in {shell,lines}");
  CheckOneLineError(FitContrib(profile, {"--grow", "past_sequence", "--llama-cpp-flags", "--json"}),
                    2, "excludes");
}
