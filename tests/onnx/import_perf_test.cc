// Import time against the bare protobuf parse of the same file, on a graph of ~100k nodes.
//
// Hidden ([.perf]): timings mean something only in an optimised build. Run with
//   hyperplan_onnx_tests "[.perf]"
// The model is $HYPERPLAN_PERF_MODEL when set (with --dim-style bindings in
// $HYPERPLAN_PERF_DIMS, "name=value,..."), else hyperplan-gen's deepseek-v3 decode graph
// (123k nodes, weights external and absent), else a synthetic decoder of ~100k nodes.
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>

#include "model_builder.h"

namespace hyperplan::test {
namespace {

double CpuMilliseconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto ms = [](const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// Each run in a fresh child process: a CLI imports once per process, so what counts is the
// cost with a cold heap, not with memory a previous run freed. CPU time (user + system, the
// page faults included) rather than wall time, which on a shared machine mostly measures the
// neighbours.
double BestMilliseconds(int runs, const std::function<void()>& work) {
  double best = std::numeric_limits<double>::max();
  for (int i = 0; i < runs; ++i) {
    int channel[2];
    REQUIRE(pipe(channel) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      const double start = CpuMilliseconds();
      work();
      const double ms = CpuMilliseconds() - start;
      const ssize_t written = write(channel[1], &ms, sizeof ms);
      _exit(written == sizeof ms ? 0 : 1);
    }
    close(channel[1]);
    double ms = 0;
    const bool got = read(channel[0], &ms, sizeof ms) == sizeof ms;
    close(channel[0]);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(got);
    best = std::min(best, ms);
  }
  return best;
}

// What any program reading the file must at least do: a plain protobuf parse.
void BareParse(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    onnx::ModelProto model;
    REQUIRE(model.ParseFromCodedStream(&coded));
  }
  close(fd);
}

// A decoder of `layers` layers of 28 nodes with exporter-style names and external weights.
std::string SyntheticDecoder(int layers) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto& graph = *model.mutable_graph();
  AddInput(graph, "hidden_in", kFloat16, {"batch", "sequence", 4096});
  AddInt64Initializer(graph, "heads_shape", {4}, {0, 0, 32, 128});
  AddInt64Initializer(graph, "merge_shape", {3}, {0, 0, 4096});
  AddInt64Initializer(graph, "last_axis", {1}, {-1});
  std::string hidden = "hidden_in";
  int64_t offset = 0;
  for (int layer = 0; layer < layers; ++layer) {
    const std::string p = "/model/layers." + std::to_string(layer) + "/";
    const auto weight = [&](const std::string& name, std::vector<int64_t> dims) {
      const std::string full = "model.layers." + std::to_string(layer) + "." + name + ".weight";
      AddExternalInitializer(graph, full, kFloat16, dims, "weights.bin", offset);
      offset += dims[0] * dims[1] * 2;
      return full;
    };
    const auto node = [&](const std::string& op, const std::string& name,
                          std::vector<std::string> inputs) {
      const std::string out = p + name + "/output_0";
      AddNode(graph, op, inputs, {out}, p + name);
      return out;
    };
    const std::string sq = node("Mul", "norm/Mul", {hidden, hidden});
    const std::string mean = node("ReduceMean", "norm/ReduceMean", {sq});
    SetAttribute(graph.mutable_node(graph.node_size() - 1), "axes", std::vector<int64_t>{-1});
    const std::string rms = node("Sqrt", "norm/Sqrt", {node("Add", "norm/Add", {mean, mean})});
    const std::string normed = node("Div", "norm/Div", {hidden, rms});
    std::string heads[3];
    const char* projections[] = {"q_proj", "k_proj", "v_proj"};
    for (int i = 0; i < 3; ++i) {
      const std::string name = std::string("attn/") + projections[i];
      const std::string projected =
          node("MatMul", name + "/MatMul",
               {normed, weight(std::string("self_attn.") + projections[i], {4096, 4096})});
      const std::string split = node("Reshape", name + "/Reshape", {projected, "heads_shape"});
      heads[i] = node("Transpose", name + "/Transpose", {split});
      SetAttribute(graph.mutable_node(graph.node_size() - 1), "perm",
                   std::vector<int64_t>{0, 2, 1, 3});
    }
    const std::string keys_t = node("Transpose", "attn/k_t", {heads[1]});
    SetAttribute(graph.mutable_node(graph.node_size() - 1), "perm",
                 std::vector<int64_t>{0, 1, 3, 2});
    const std::string scores = node("MatMul", "attn/scores", {heads[0], keys_t});
    const std::string probs = node("Softmax", "attn/Softmax", {scores});
    const std::string context = node("MatMul", "attn/context", {probs, heads[2]});
    const std::string merged_t = node("Transpose", "attn/merge/Transpose", {context});
    SetAttribute(graph.mutable_node(graph.node_size() - 1), "perm",
                 std::vector<int64_t>{0, 2, 1, 3});
    const std::string merged = node("Reshape", "attn/merge/Reshape", {merged_t, "merge_shape"});
    const std::string attn_out =
        node("MatMul", "attn/o_proj/MatMul", {merged, weight("self_attn.o_proj", {4096, 4096})});
    const std::string residual = node("Add", "attn/residual", {attn_out, hidden});
    const std::string gate =
        node("MatMul", "mlp/gate_proj/MatMul", {residual, weight("mlp.gate_proj", {4096, 14336})});
    const std::string up =
        node("MatMul", "mlp/up_proj/MatMul", {residual, weight("mlp.up_proj", {4096, 14336})});
    const std::string silu =
        node("Mul", "mlp/act/Mul", {gate, node("Sigmoid", "mlp/act/Sigmoid", {gate})});
    const std::string gated = node("Mul", "mlp/Mul", {silu, up});
    const std::string down =
        node("MatMul", "mlp/down_proj/MatMul", {gated, weight("mlp.down_proj", {14336, 4096})});
    hidden = node("Add", "mlp/residual", {down, residual});
  }
  AddUntypedOutput(graph, hidden);
  return WriteModel(model, "synthetic-decoder.onnx");
}

ImportOptions DimsFromEnvironment(const char* text, ImportOptions options) {
  if (text == nullptr) return options;
  std::string list = text;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string item = list.substr(start, end - start);
    const size_t equals = item.find('=');
    if (equals != std::string::npos) {
      options.dims[item.substr(0, equals)] = std::stoll(item.substr(equals + 1));
    }
    start = end + 1;
  }
  return options;
}

std::string PerfModel(ImportOptions& options) {
  if (const char* path = std::getenv("HYPERPLAN_PERF_MODEL")) {
    options = DimsFromEnvironment(std::getenv("HYPERPLAN_PERF_DIMS"), options);
    return path;
  }
  options.dims = {{"batch", 1}, {"sequence", 1}, {"past_sequence", 1024}};
  const std::string generated = TestPath("deepseek-v3-decode.onnx");
  const std::string command = std::string(HYPERPLAN_GEN_PATH) +
                              " --preset deepseek-v3 --form decode -o " + generated +
                              " > /dev/null 2>&1";
  if (std::filesystem::exists(HYPERPLAN_GEN_PATH) && std::system(command.c_str()) == 0) {
    return generated;
  }
  WARN("hyperplan-gen unavailable; timing a synthetic decoder instead");
  options.dims = {{"batch", 1}, {"sequence", 16}};
  return SyntheticDecoder(3600);
}

TEST_CASE("import of a ~100k-node graph stays close to the bare protobuf parse", "[.perf]") {
  ImportOptions options;
  const std::string path = PerfModel(options);
  const double parse_ms = BestMilliseconds(3, [&] { BareParse(path); });
  const double import_ms = BestMilliseconds(3, [&] { ImportOnnxModel(path, options); });
  const Graph graph = ImportOnnxModel(path, options);
  WARN(path << ": " << graph.nodes.size() << " nodes, " << graph.values.size() << " values, "
            << std::filesystem::file_size(path) << " bytes; CPU time: bare parse " << parse_ms
            << " ms, import " << import_ms << " ms (" << import_ms / parse_ms << "x), "
            << graph.warnings.size() << " warnings");
  for (size_t i = 0; i < graph.warnings.size() && i < 5; ++i) WARN(graph.warnings[i]);
  CHECK(graph.nodes.size() > 50000);
}

}  // namespace
}  // namespace hyperplan::test
