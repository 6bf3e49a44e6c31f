// The MoE forms hyperplan-gen writes (tools/generator/moe_forms.h): ort (com.microsoft MoE, or
// QMoE for int4/int8), gather (experts gathered by index) and the refusals. tiny-moe: hidden 64,
// 8 experts of width 64, top 2, 3 layers of which the first is dense, one shared expert.
// Shapes are worked by hand beside each assertion; tests/ort/moe_forms_ort.sh checks that every
// form computes the dense form's function in ONNX Runtime.
#include "moe_forms.h"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "build_options.h"
#include "decoder.h"
#include "model_config.h"

namespace hyperplan::gen {
namespace {

onnx::ModelProto TinyMoe(MoeForm form, WeightFormat weights = WeightFormat::kPlain) {
  BuildOptions options;
  options.form = Form::kDecode;
  options.moe_form = form;
  options.weights = weights;
  return BuildDecoder(*FindPreset("tiny-moe"), options, nullptr);
}

int64_t CountOps(const onnx::ModelProto& model, const std::string& op_type) {
  int64_t count = 0;
  for (const auto& node : model.graph().node()) count += node.op_type() == op_type ? 1 : 0;
  return count;
}

const onnx::NodeProto* FindNode(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& node : model.graph().node()) {
    if (node.name() == name) return &node;
  }
  return nullptr;
}

std::vector<int64_t> InitializerDims(const onnx::ModelProto& model, const std::string& name) {
  for (const auto& tensor : model.graph().initializer()) {
    if (tensor.name() == name) return {tensor.dims().begin(), tensor.dims().end()};
  }
  return {};
}

int64_t IntAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == name) return attribute.i();
  }
  return -1;
}

TEST_CASE("ort form: one MoE node per MoE layer on stacked expert weights", "[generator][moe]") {
  const onnx::ModelProto model = TinyMoe(MoeForm::kOrt);
  // Layers 1 and 2 are MoE; no dense dispatch is left (no gate scatter, no per-expert MatMul).
  CHECK(CountOps(model, "MoE") == 2);
  CHECK(CountOps(model, "ScatterElements") == 0);
  const onnx::NodeProto* moe = FindNode(model, "/model/layers.1/mlp/MoE");
  REQUIRE(moe != nullptr);
  CHECK(moe->domain() == "com.microsoft");
  CHECK(IntAttribute(*moe, "k") == 2);
  CHECK(IntAttribute(*moe, "swiglu_fusion") == 1);
  CHECK(IntAttribute(*moe, "normalize_routing_weights") == 1);
  // fc1 [E, 2 * inter, hidden] = [8, 128, 64] (gate and up rows interleaved); fc2 [E, hidden,
  // inter] = [8, 64, 64]; the optional fc1 bias is left empty between them.
  REQUIRE(moe->input_size() == 5);
  CHECK(moe->input(3).empty());
  CHECK(InitializerDims(model, "model.layers.1.mlp.experts.fc1.weight") ==
        std::vector<int64_t>{8, 128, 64});
  CHECK(InitializerDims(model, "model.layers.1.mlp.experts.fc2.weight") ==
        std::vector<int64_t>{8, 64, 64});
}

TEST_CASE("ort form with int4 weights: QMoE codes and block scales", "[generator][moe]") {
  const onnx::ModelProto model = TinyMoe(MoeForm::kOrt, WeightFormat::kInt4);
  CHECK(CountOps(model, "QMoE") == 2);
  const onnx::NodeProto* qmoe = FindNode(model, "/model/layers.2/mlp/QMoE");
  REQUIRE(qmoe != nullptr);
  CHECK(IntAttribute(*qmoe, "expert_weight_bits") == 4);
  CHECK(IntAttribute(*qmoe, "block_size") == 32);
  // Two 4-bit codes a byte: fc1 [8, 128, 64 / 2 = 32], fc2 [8, 64, 64 / 2 = 32]; one scale per
  // 32-element block along K: [8, 128, 64 / 32 = 2] and [8, 64, 2].
  CHECK(InitializerDims(model, "model.layers.2.mlp.experts.fc1.weight") ==
        std::vector<int64_t>{8, 128, 32});
  CHECK(InitializerDims(model, "model.layers.2.mlp.experts.fc1.weight_scales") ==
        std::vector<int64_t>{8, 128, 2});
  CHECK(InitializerDims(model, "model.layers.2.mlp.experts.fc2.weight") ==
        std::vector<int64_t>{8, 64, 32});
  CHECK(InitializerDims(model, "model.layers.2.mlp.experts.fc2.weight_scales") ==
        std::vector<int64_t>{8, 64, 2});
}

TEST_CASE("gather form: the picked experts' slices gathered by index", "[generator][moe]") {
  const onnx::ModelProto model = TinyMoe(MoeForm::kGather);
  CHECK(CountOps(model, "MoE") == 0);
  // gate, up and down gathered in each of the 2 MoE layers: 6 Gathers under ".../experts/".
  int64_t expert_gathers = 0;
  for (const auto& node : model.graph().node()) {
    expert_gathers +=
        node.op_type() == "Gather" && node.name().find("/mlp/experts/") != std::string::npos;
  }
  CHECK(expert_gathers == 6);
  CHECK(InitializerDims(model, "model.layers.1.mlp.experts.gate_proj.weight") ==
        std::vector<int64_t>{8, 64, 64});
  CHECK(InitializerDims(model, "model.layers.1.mlp.experts.down_proj.weight") ==
        std::vector<int64_t>{8, 64, 64});
}

TEST_CASE("MoE forms refuse what they cannot write", "[generator][moe]") {
  const ModelConfig tiny = *FindPreset("tiny-moe");
  CHECK(MoeFormProblem(tiny, MoeForm::kOrt, WeightFormat::kInt4, 32).empty());
  CHECK(MoeFormProblem(tiny, MoeForm::kDense, WeightFormat::kFp8, 32).empty());
  // DeepSeek-V3's sigmoid group-limited router reaches ONNX Runtime's MoE as logits of its
  // normalized weights; without norm_topk_prob the op's renormalization would change them.
  // The gather form takes it either way.
  ModelConfig sigmoid = tiny;
  sigmoid.router = Router::kSigmoidGroupLimited;
  CHECK(MoeFormProblem(sigmoid, MoeForm::kOrt, WeightFormat::kInt4, 32).empty());
  sigmoid.normalize_top_k = false;
  CHECK(MoeFormProblem(sigmoid, MoeForm::kOrt, WeightFormat::kPlain, 32).find("norm_topk_prob") !=
        std::string::npos);
  CHECK(MoeFormProblem(sigmoid, MoeForm::kGather, WeightFormat::kPlain, 32).empty());
  CHECK(MoeFormProblem(tiny, MoeForm::kOrt, WeightFormat::kFp8, 32).find("not fp8") !=
        std::string::npos);
  // The gather form stores experts plain, int4, fp8 or MXFP4: not int8.
  CHECK(MoeFormProblem(tiny, MoeForm::kGather, WeightFormat::kInt4, 32).empty());
  CHECK(MoeFormProblem(tiny, MoeForm::kGather, WeightFormat::kInt8, 32).find("int8") !=
        std::string::npos);
  // tiny-moe's hidden 64 is not a multiple of fp8's 128-row block; MXFP4 is gather-only.
  CHECK(MoeFormProblem(tiny, MoeForm::kGather, WeightFormat::kFp8, 32).find("scale block") !=
        std::string::npos);
  CHECK(MoeFormProblem(tiny, MoeForm::kOrt, WeightFormat::kMxfp4, 32).find("not MXFP4") !=
        std::string::npos);
  CHECK(MoeFormProblem(tiny, MoeForm::kDense, WeightFormat::kMxfp4, 32).find("gather form only") !=
        std::string::npos);
  // An expert width of 48 is not a multiple of the 32-element block QMoE quantizes along K.
  ModelConfig narrow = tiny;
  narrow.moe_intermediate = 48;
  CHECK(MoeFormProblem(narrow, MoeForm::kOrt, WeightFormat::kInt4, 32).find("multiples") !=
        std::string::npos);
  CHECK(MoeFormProblem(*FindPreset("tiny"), MoeForm::kOrt, WeightFormat::kPlain, 32)
            .find("no experts") != std::string::npos);
}

}  // namespace
}  // namespace hyperplan::gen
