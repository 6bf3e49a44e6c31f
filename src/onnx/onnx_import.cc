// ONNX import: the stages in order, and the edge where third-party exceptions stop.
//
// load (model_loading) -> bind dims (dim_binding) -> resolve and order (graph_scope) -> shapes
// (shape_propagation with schema_registry's rules) -> Graph (graph_building, control_flow) ->
// ClassifyValues. Each stage is linear in the model but for the sort of an out-of-order graph.
// Every exception from protobuf or ONNX is caught here and rethrown as hyperplan::Error.
#include "hyperplan/adapters/onnx_import.h"

#include "hyperplan/classify.h"
#include "hyperplan/error.h"
#include "onnx/cache_ops.h"
#include "onnx/dim_binding.h"
#include "onnx/graph_building.h"
#include "onnx/graph_scope.h"
#include "onnx/huge_page_memory.h"
#include "onnx/import_context.h"
#include "onnx/model_loading.h"
#include "onnx/shape_propagation.h"

namespace hyperplan {
namespace {

using onnx_import::ImportContext;

ImportContext MakeContext(const std::string& path, const onnx::ModelProto& model,
                          google::protobuf::Arena& arena) {
  ImportContext context;
  context.file = path;
  context.ir_version = model.ir_version();
  context.arena = &arena;
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    const std::string domain =
        onnx_import::IsDefaultDomain(import.domain()) ? std::string() : import.domain();
    context.opset_versions[domain] = static_cast<int>(import.version());
  }
  for (const onnx::FunctionProto& function : model.functions()) {
    context.local_functions[function.domain() + ":" + function.name()] = &function;
  }
  return context;
}

Graph Import(const std::string& path, const ImportOptions& options) {
  onnx_import::DimBinding binding(options.dims);
  std::unique_ptr<google::protobuf::Arena> arena = onnx_import::MakeModelArena();
  onnx::ModelProto& model = onnx_import::LoadModel(path, *arena);
  if (options.read_through_cache_ops) onnx_import::ReadThroughCacheOps(model);
  ImportContext context = MakeContext(path, model, *arena);

  binding.Bind(*model.mutable_graph(), context);
  onnx_import::ImportMemory memory;
  onnx_import::GraphScope scope(*model.mutable_graph(), nullptr, "", memory.resource());
  scope.Resolve(context);

  onnx_import::ShapePropagator propagator(context);
  propagator.Propagate(scope);
  propagator.Finish();

  onnx_import::GraphBuilder builder(context, binding);
  Graph graph = std::move(builder.Build(scope).graph);
  builder.FailOnUnboundSymbols();
  builder.Finish();

  graph.bound_dims = binding.used();
  for (const std::string& name : binding.Unused()) {
    context.Warn("--dim " + name + ": the model has no dimension of that name");
  }
  graph.warnings = std::move(context.warnings);
  ClassifyValues(graph, options.class_rules);
  return graph;
}

std::string FirstLine(const char* text) {
  std::string line(text);
  if (size_t end = line.find('\n'); end != std::string::npos) line.resize(end);
  return line;
}

}  // namespace

Graph ImportOnnxModel(const std::string& path, const ImportOptions& options) {
  try {
    return Import(path, options);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::kModel, path + ": out of memory while importing the model");
  } catch (const std::exception& error) {
    throw Error(ErrorKind::kModel, path + ": " + FirstLine(error.what()));
  } catch (...) {
    throw Error(ErrorKind::kInternal, path + ": unexpected exception while importing the model");
  }
}

}  // namespace hyperplan
