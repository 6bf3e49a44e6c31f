#include "adam.h"

#include <onnx/onnx_pb.h>

#include <cmath>

namespace hyperplan::gen {

namespace {

constexpr float kLearningRate = 1e-4f;
constexpr float kBeta1 = 0.9f;
constexpr float kBeta2 = 0.999f;
constexpr float kEpsilon = 1e-8f;

std::vector<Dim> Dims(const std::vector<int64_t>& dims) { return {dims.begin(), dims.end()}; }

}  // namespace

void AdamStep(TrainContext& t, const ParamGrad& grad) {
  GraphBuilder& g = t.graph;
  const ElemType f32 = ElemType::kFloat32;
  const bool cast = g.dtype() != f32;
  const std::string p = "/optimizer/" + grad.param;
  const std::string m = grad.param + ".exp_avg";
  const std::string v = grad.param + ".exp_avg_sq";
  g.Input(m, onnx::TensorProto_DataType_FLOAT, Dims(grad.dims));
  g.Input(v, onnx::TensorProto_DataType_FLOAT, Dims(grad.dims));
  const std::string g32 =
      cast ? g.Op("Cast", {grad.grad}, p + "/grad/Cast", {AttrInt("to", OnnxType(f32))})
           : grad.grad;
  const std::string m_kept = g.Op("Mul", {m, g.FloatScalar(kBeta1, f32)}, p + "/exp_avg/Mul");
  const std::string m_new =
      g.Op("Mul", {g32, g.FloatScalar(1 - kBeta1, f32)}, p + "/exp_avg/Mul_1");
  const std::string m1 =
      g.Op("Add", {m_kept, m_new}, p + "/exp_avg/Add", {}, grad.param + ".updated.exp_avg");
  const std::string squared = g.Op("Mul", {g32, g32}, p + "/exp_avg_sq/Mul");
  const std::string v_kept = g.Op("Mul", {v, g.FloatScalar(kBeta2, f32)}, p + "/exp_avg_sq/Mul_1");
  const std::string v_new =
      g.Op("Mul", {squared, g.FloatScalar(1 - kBeta2, f32)}, p + "/exp_avg_sq/Mul_2");
  const std::string v1 =
      g.Op("Add", {v_kept, v_new}, p + "/exp_avg_sq/Add", {}, grad.param + ".updated.exp_avg_sq");
  // Step 1: m_hat = m1 / (1 - beta1), v_hat = v1 / (1 - beta2); folded into the step size.
  const float step_size = kLearningRate * std::sqrt(1 - kBeta2) / (1 - kBeta1);
  const std::string root = g.Op("Sqrt", {v1}, p + "/Sqrt");
  const std::string denominator = g.Op("Add", {root, g.FloatScalar(kEpsilon, f32)}, p + "/Add");
  const std::string ratio = g.Op("Div", {m1, denominator}, p + "/Div");
  const std::string step = g.Op("Mul", {ratio, g.FloatScalar(step_size, f32)}, p + "/Mul");
  const std::string step_typed =
      cast ? g.Op("Cast", {step}, p + "/step/Cast", {AttrInt("to", OnnxType(g.dtype()))}) : step;
  g.Op("Sub", {grad.param, step_typed}, p + "/Sub", {}, grad.param + ".updated");
  g.Output(grad.param + ".updated", OnnxType(g.dtype()), Dims(grad.dims));
  g.Output(m1, onnx::TensorProto_DataType_FLOAT, Dims(grad.dims));
  g.Output(v1, onnx::TensorProto_DataType_FLOAT, Dims(grad.dims));
}

}  // namespace hyperplan::gen
