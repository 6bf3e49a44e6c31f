// The rewritten ONNX model: a four-node model built here, imported, planned on the unit
// profile, rewritten; every check reads the written bytes back with ONNX's own protobuf and
// checker.
//
// The model (float32):
//   n0 "first":  a = Add(W, x)              x [1] 4 B input, W [256] 1024 B initializer
//   n1 "expand": b = Concat(a, a, a, a)     b [1024] 4096 B
//   n2 "reduce": c = ReduceSum(b)           c [1] 4 B (keepdims)
//   n3 "last":   out = Mul(W, c)            out [256] 1024 B output
// Resident bytes with W kept: step 1 holds x + W + a + b = 4 + 1024 + 1024 + 4096 = 6148.
// With a budget of 5200, W must leave after n0 (home copy in ddr: a Detach, no Store) and come
// back before n3 (step 2 with W holds x + W + b + c = 5128, so the Prefetch may come back as
// early as before step 2).
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "hyperplan/adapters/onnx_import.h"
#include "hyperplan/error.h"
#include "hyperplan/planner/planner.h"
#include "onnx_rewrite/host_marks.h"
#include "onnx_rewrite/rewrite.h"
#include "planio/plan_to_proto.h"
#include "support/tiny_graph.h"

using namespace hyperplan;
namespace fs = std::filesystem;
namespace pb = hyperplan::plan::v1;

namespace {

// One directory per test process, removed when the process ends.
struct ScratchDirectory {
  fs::path path =
      fs::temp_directory_path() / ("hyperplan-rewrite-test-" + std::to_string(::getpid()));
  ScratchDirectory() { fs::create_directories(path / "sub"); }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

fs::path TestDirectory() {
  static const ScratchDirectory directory;
  return directory.path;
}

void AddTensorInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                   const std::string& name, int64_t size) {
  onnx::ValueInfoProto* info = list->Add();
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(size);
}

onnx::NodeProto* AddNode(onnx::GraphProto& graph, const std::string& name, const std::string& op,
                         const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = graph.add_node();
  node->set_name(name);
  node->set_op_type(op);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return node;
}

// The model above; W's 1024 bytes inline, or in `external_location` (never written).
onnx::ModelProto MakeModel(const std::string& external_location = "") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("four");
  AddTensorInfo(graph.mutable_input(), "x", 1);
  AddTensorInfo(graph.mutable_output(), "out", 256);
  onnx::TensorProto* w = graph.add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(256);
  if (external_location.empty()) {
    w->set_raw_data(std::string(1024, '\0'));
  } else {
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* location = w->add_external_data();
    location->set_key("location");
    location->set_value(external_location);
    auto* length = w->add_external_data();
    length->set_key("length");
    length->set_value("1024");
  }
  AddNode(graph, "first", "Add", {"W", "x"}, "a");
  onnx::NodeProto* concat = AddNode(graph, "expand", "Concat", {"a", "a", "a", "a"}, "b");
  onnx::AttributeProto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  AddNode(graph, "reduce", "ReduceSum", {"b"}, "c");
  AddNode(graph, "last", "Mul", {"W", "c"}, "out");
  return model;
}

std::string Write(const onnx::ModelProto& model, const fs::path& path) {
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path.string();
}

struct Rewritten {
  pb::Plan plan;
  onnx_rewrite::RewriteResult result;
  onnx::ModelProto model;
};

Rewritten PlanAndRewrite(const std::string& model_path, const std::string& output_path) {
  const Graph graph = ImportOnnxModel(model_path, {});
  const HardwareProfile profile = testing::UnitProfile();
  PlanOptions options;
  options.budget_bytes = 5200;
  // One run from a preloaded W, so "first" reads W itself (the ort test rewrites periodic plans).
  options.single_run = true;
  const PlanResult planned = PlanOffload(graph, profile, options);
  REQUIRE(planned.status == PlanStatus::kPlanned);
  planio::PlanProvenance provenance;
  provenance.tool_version = "9.9.9";
  provenance.model_path = model_path;
  provenance.model_sha256 = std::string(64, 'c');
  provenance.options = options;
  Rewritten out;
  out.plan = planio::PlanToProto(graph, profile, planned, provenance);
  onnx_rewrite::RewriteOptions rewrite;
  rewrite.model_path = model_path;
  rewrite.output_path = output_path;
  rewrite.plan_sha256 = std::string(64, 'd');
  rewrite.tool_version = "9.9.9";
  out.result = onnx_rewrite::RewriteModel(out.plan, rewrite);
  REQUIRE(out.model.ParseFromString(out.result.model_bytes));
  return out;
}

const onnx::AttributeProto* Attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

std::string Metadata(const onnx::ModelProto& model, const std::string& key) {
  for (const auto& entry : model.metadata_props()) {
    if (entry.key() == key) return entry.value();
  }
  return "";
}

}  // namespace

TEST_CASE("onnx rewrite: cache ops are ai.hyperplan nodes in plan order") {
  const fs::path dir = TestDirectory();
  const Rewritten rewritten =
      PlanAndRewrite(Write(MakeModel(), dir / "model.onnx"), (dir / "out.onnx").string());
  const onnx::GraphProto& graph = rewritten.model.graph();
  const pb::Plan& plan = rewritten.plan;
  REQUIRE(graph.node_size() == plan.steps_size());
  int cache_nodes = 0;
  std::string prefetched_w;
  for (int i = 0; i < plan.steps_size(); ++i) {
    INFO("step " << i);
    const pb::Step& step = plan.steps(i);
    const onnx::NodeProto& node = graph.node(i);
    if (step.kind() == pb::STEP_KIND_COMPUTE) {
      CHECK(node.domain().empty());
      CHECK(node.name() == plan.nodes(step.node()).name());
      continue;
    }
    ++cache_nodes;
    CHECK(node.domain() == "ai.hyperplan");
    const char* op = step.kind() == pb::STEP_KIND_PREFETCH ? "Prefetch"
                     : step.kind() == pb::STEP_KIND_STORE  ? "Store"
                                                           : "Detach";
    CHECK(node.op_type() == op);
    REQUIRE(Attribute(node, "step") != nullptr);
    CHECK(Attribute(node, "step")->i() == i);
    CHECK(Attribute(node, "stream")->i() == step.stream());
    CHECK(Attribute(node, "bytes")->i() == step.bytes());
    CHECK(Attribute(node, "src_tier")->s() == plan.tiers(step.src_tier()).name());
    CHECK(Attribute(node, "waits_for")->ints_size() == step.waits_for_size());
    if (step.kind() == pb::STEP_KIND_DETACH) {
      CHECK(Attribute(node, "dst_tier") == nullptr);
    } else {
      CHECK(Attribute(node, "dst_tier")->s() == plan.tiers(step.dst_tier()).name());
    }
    if (plan.values(step.value()).name() == "W" && step.kind() == pb::STEP_KIND_PREFETCH) {
      CHECK(node.input(0) == "W");  // read from W's home copy in ddr
      CHECK(Attribute(node, "src_tier")->s() == "ddr");
      CHECK(Attribute(node, "dst_tier")->s() == "hbm");
      CHECK(Attribute(node, "stream")->i() == 2);  // ddr->hbm is the unit profile's link 1
      prefetched_w = node.output(0);
    }
  }
  CHECK(cache_nodes == rewritten.result.cache_nodes);
  REQUIRE_FALSE(prefetched_w.empty());
  // The consumer after the gap reads the prefetched copy; the one before it the original.
  for (const onnx::NodeProto& node : graph.node()) {
    if (node.name() == "last") CHECK(node.input(0) == prefetched_w);
    if (node.name() == "first") CHECK(node.input(0) == "W");
  }
}

TEST_CASE("onnx rewrite: Identity-bodied functions, opsets, IR version and metadata") {
  const fs::path dir = TestDirectory();
  const Rewritten rewritten =
      PlanAndRewrite(Write(MakeModel(), dir / "model.onnx"), (dir / "out.onnx").string());
  const onnx::ModelProto& model = rewritten.model;
  CHECK(model.ir_version() >= 8);
  bool imports_cache_domain = false;
  for (const auto& opset : model.opset_import()) {
    imports_cache_domain |= opset.domain() == "ai.hyperplan" && opset.version() == 1;
  }
  CHECK(imports_cache_domain);
  REQUIRE(model.functions_size() == 3);
  for (const onnx::FunctionProto& function : model.functions()) {
    INFO(function.name());
    CHECK(function.domain() == "ai.hyperplan");
    REQUIRE(function.node_size() == 1);
    CHECK(function.node(0).op_type() == "Identity");
    CHECK(function.node(0).input(0) == function.input(0));
    CHECK(function.node(0).output(0) == function.output(0));
  }
  CHECK(Metadata(model, "hyperplan.plan_sha256") == std::string(64, 'd'));
  CHECK(Metadata(model, "hyperplan.model_sha256") == std::string(64, 'c'));
  CHECK(Metadata(model, "hyperplan.version") == "9.9.9");
  // ONNX's own checker, run here on the bytes as written.
  CHECK_NOTHROW(onnx::checker::check_model(model));
}

TEST_CASE("onnx rewrite: the same inputs give the same bytes") {
  const fs::path dir = TestDirectory();
  const std::string model = Write(MakeModel(), dir / "model.onnx");
  const std::string first = PlanAndRewrite(model, (dir / "out.onnx").string()).result.model_bytes;
  const std::string second = PlanAndRewrite(model, (dir / "out.onnx").string()).result.model_bytes;
  CHECK(first == second);
}

TEST_CASE("onnx rewrite: external weights keep pointing at the same file, never read") {
  const fs::path dir = TestDirectory();
  // The model sits in sub/ with its (absent) weights file beside it.
  const std::string model = Write(MakeModel("weights.bin"), dir / "sub" / "model.onnx");
  REQUIRE_FALSE(fs::exists(dir / "sub" / "weights.bin"));
  auto location = [](const onnx::ModelProto& rewritten) {
    for (const auto& entry : rewritten.graph().initializer(0).external_data()) {
      if (entry.key() == "location") return entry.value();
    }
    return std::string();
  };
  const Rewritten beside = PlanAndRewrite(model, (dir / "sub" / "out.onnx").string());
  CHECK(location(beside.model) == "weights.bin");
  CHECK(beside.result.external_tensors == 1);
  const Rewritten above = PlanAndRewrite(model, (dir / "out.onnx").string());
  CHECK(location(above.model) == "sub/weights.bin");
  try {
    PlanAndRewrite(model, (dir / "elsewhere" / "out.onnx").string());
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kUsage);
    CHECK_THAT(error.what(), Catch::Contains("would lie outside this file's directory"));
  }
}

TEST_CASE("onnx rewrite: a rewritten model is not rewritten again") {
  const fs::path dir = TestDirectory();
  const std::string model = Write(MakeModel(), dir / "model.onnx");
  const Rewritten once = PlanAndRewrite(model, (dir / "out.onnx").string());
  std::ofstream(dir / "out.onnx", std::ios::binary) << once.result.model_bytes;
  onnx_rewrite::RewriteOptions options;
  options.model_path = (dir / "out.onnx").string();
  options.output_path = (dir / "again.onnx").string();
  try {
    onnx_rewrite::RewriteModel(once.plan, options);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kModel);
    CHECK_THAT(error.what(), Catch::Contains("already has hyperplan cache operators"));
  }
}

TEST_CASE("onnx rewrite: a plan whose nodes are not the model's is refused") {
  const fs::path dir = TestDirectory();
  const Rewritten rewritten =
      PlanAndRewrite(Write(MakeModel(), dir / "model.onnx"), (dir / "out.onnx").string());
  onnx::ModelProto other = MakeModel();
  other.mutable_graph()->mutable_node(3)->set_name("renamed");
  other.mutable_graph()->mutable_node(3)->set_output(0, "out2");
  other.mutable_graph()->mutable_output(0)->set_name("out2");
  onnx_rewrite::RewriteOptions options;
  options.model_path = Write(other, dir / "other.onnx");
  options.output_path = (dir / "out.onnx").string();
  try {
    onnx_rewrite::RewriteModel(rewritten.plan, options);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::kPlanFile);
    CHECK_THAT(error.what(), Catch::Contains("node 'last' is not in the model"));
  }
}

namespace {

// The model above with x declared [n] (a symbolic dim) and the Concat left unnamed.
onnx::ModelProto MakeSymbolicModel() {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  auto* dim = graph.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dim->mutable_dim(0)->set_dim_param("n");
  graph.mutable_node(1)->clear_name();
  return model;
}

Rewritten PlanAndRewriteAt(const std::string& model_path, const std::string& output_path,
                           bool static_shapes) {
  ImportOptions import;
  import.dims["n"] = 1;
  const Graph graph = ImportOnnxModel(model_path, import);
  const HardwareProfile profile = testing::UnitProfile();
  PlanOptions options;
  options.budget_bytes = 5200;
  const PlanResult planned = PlanOffload(graph, profile, options);
  REQUIRE(planned.status == PlanStatus::kPlanned);
  planio::PlanProvenance provenance;
  provenance.model_path = model_path;
  provenance.options = options;
  Rewritten out;
  out.plan = planio::PlanToProto(graph, profile, planned, provenance);
  onnx_rewrite::RewriteOptions rewrite;
  rewrite.model_path = model_path;
  rewrite.output_path = output_path;
  rewrite.plan_sha256 = std::string(64, 'd');
  rewrite.static_shapes = static_shapes;
  out.result = onnx_rewrite::RewriteModel(out.plan, rewrite);
  REQUIRE(out.model.ParseFromString(out.result.model_bytes));
  return out;
}

}  // namespace

TEST_CASE("onnx rewrite: bound dims in the metadata, plan names on every node") {
  const fs::path dir = TestDirectory();
  const Rewritten rewritten = PlanAndRewriteAt(Write(MakeSymbolicModel(), dir / "sym.onnx"),
                                               (dir / "out.onnx").string(), false);
  CHECK(Metadata(rewritten.model, "hyperplan.dim.n") == "1");
  // Without --emit-onnx-static the declared shape stays symbolic.
  CHECK(rewritten.model.graph().input(0).type().tensor_type().shape().dim(0).dim_param() == "n");
  // The unnamed Concat (position 1) is named as the importer named it: op type, position.
  std::vector<std::string> names;
  for (const onnx::NodeProto& node : rewritten.model.graph().node()) {
    if (node.domain().empty()) names.push_back(node.name());
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"Concat_1", "first", "last", "reduce"});
  CHECK_NOTHROW(onnx::checker::check_model(rewritten.model));
}

TEST_CASE("onnx rewrite: --emit-onnx-static fixes inputs and outputs at the plan's shapes") {
  const fs::path dir = TestDirectory();
  const Rewritten rewritten = PlanAndRewriteAt(Write(MakeSymbolicModel(), dir / "sym.onnx"),
                                               (dir / "out.onnx").string(), true);
  const onnx::TensorShapeProto& x = rewritten.model.graph().input(0).type().tensor_type().shape();
  REQUIRE(x.dim_size() == 1);
  CHECK(x.dim(0).has_dim_value());
  CHECK(x.dim(0).dim_value() == 1);  // n = 1
  const onnx::TensorShapeProto& out =
      rewritten.model.graph().output(0).type().tensor_type().shape();
  CHECK(out.dim(0).dim_value() == 256);
  CHECK_NOTHROW(onnx::checker::check_model(rewritten.model));
}

TEST_CASE(
    "onnx rewrite: imported through its cache operators, the rewritten model is the original") {
  const fs::path dir = TestDirectory();
  const std::string source = Write(MakeSymbolicModel(), dir / "sym.onnx");
  const Rewritten rewritten = PlanAndRewriteAt(source, (dir / "out.onnx").string(), true);
  REQUIRE(rewritten.result.cache_nodes > 0);
  std::ofstream(dir / "out.onnx", std::ios::binary) << rewritten.result.model_bytes;
  ImportOptions import;
  import.dims["n"] = 1;
  const Graph original = ImportOnnxModel(source, import);
  import.read_through_cache_ops = true;
  const Graph read = ImportOnnxModel((dir / "out.onnx").string(), import);
  REQUIRE(read.nodes.size() == original.nodes.size());
  REQUIRE(read.values.size() == original.values.size());
  auto by_name = [](const Graph& graph) {
    std::map<std::string, std::pair<int64_t, std::vector<std::string>>> nodes;
    for (const Node& node : graph.nodes) {
      std::vector<std::string> inputs;
      for (const ValueId input : node.inputs) inputs.push_back(graph.values[input].name);
      nodes[node.name] = {static_cast<int64_t>(node.outputs.size()), inputs};
    }
    return nodes;
  };
  CHECK(by_name(read) == by_name(original));
  for (size_t v = 0; v < original.values.size(); ++v) {
    const Value& value = original.values[v];
    const auto match = std::find_if(read.values.begin(), read.values.end(),
                                    [&](const Value& other) { return other.name == value.name; });
    REQUIRE(match != read.values.end());
    CHECK(match->bytes == value.bytes);
  }
}

TEST_CASE("onnx rewrite: a host step reads host copies and is marked for ORT's layer assignment") {
  const fs::path dir = TestDirectory();
  const std::string model_path = Write(MakeModel(), dir / "host.onnx");
  Rewritten rewritten = PlanAndRewrite(model_path, (dir / "host_out.onnx").string());
  // "last" (Mul(W, c)) moved to the host by hand: its lane computes from ddr (tier 1).
  pb::Plan plan = rewritten.plan;
  for (pb::Step& step : *plan.mutable_steps()) {
    if (step.kind() == pb::STEP_KIND_COMPUTE && plan.nodes(step.node()).name() == "last") {
      step.set_unit(pb::COMPUTE_UNIT_HOST);
    }
  }
  plan.mutable_host_lane()->set_memory_tier(1);
  onnx_rewrite::RewriteOptions options;
  options.model_path = model_path;
  options.output_path = (dir / "host_out.onnx").string();
  options.plan_sha256 = std::string(64, 'd');
  options.tool_version = "9.9.9";
  const onnx_rewrite::RewriteResult result = onnx_rewrite::RewriteModel(plan, options);
  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(result.model_bytes));
  int marked = 0;
  for (const onnx::NodeProto& node : model.graph().node()) {
    const bool host = node.name() == "last";
    CHECK(onnx_rewrite::LayerAnnotation(node) == (host ? "hyperplan_host" : ""));
    marked += host;
    if (!host) continue;
    // On the host, W is its home copy in ddr (no Prefetch output) and c the model's tensor.
    CHECK(node.input(0) == "W");
    CHECK(node.input(1) == "c");
    // NodeProto field 9 (metadata_props in ONNX >= 1.16), length-delimited: tag (9 << 3) | 2 =
    // 0x4A, then 27 bytes: key (field 1, 0x0A, 9 bytes "layer_ann") and value (field 2, 0x12,
    // 14 bytes "hyperplan_host") = 2 + 9 + 2 + 14.
    CHECK(node.SerializeAsString().find(
              std::string("\x4a\x1b\x0a\x09layer_ann\x12\x0ehyperplan_host")) != std::string::npos);
  }
  CHECK(marked == 1);
  CHECK(Metadata(model, "hyperplan.host_nodes") == "[\"last\"]");
  CHECK(Metadata(model, "hyperplan.host_tier") == "ddr");
  CHECK_NOTHROW(onnx::checker::check_model(model));
  // A plan without host steps names none.
  CHECK(Metadata(rewritten.model, "hyperplan.host_nodes").empty());
  // A host step needs the lane: without it the plan is refused.
  plan.clear_host_lane();
  CHECK_THROWS_WITH(onnx_rewrite::RewriteModel(plan, options),
                    Catch::Contains("runs on the host, but the plan has no host_lane"));
}

TEST_CASE("onnx rewrite: host node names as a JSON array") {
  // A quote and a backslash escaped, a control character as \u00XX.
  CHECK(onnx_rewrite::JsonStringArray({"a", "b\"c", "d\\e", std::string("f\x01")}) ==
        "[\"a\",\"b\\\"c\",\"d\\\\e\",\"f\\u0001\"]");
  CHECK(onnx_rewrite::JsonStringArray({}) == "[]");
}
