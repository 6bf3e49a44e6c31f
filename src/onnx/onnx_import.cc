// ONNX import: the stages in order, and the edge where third-party exceptions stop.
//
// load (model_loading) -> bind dims (dim_binding) -> resolve and order (graph_scope) -> shapes
// (shape_propagation with schema_registry's rules) -> Graph (graph_building, control_flow) ->
// ClassifyValues. Each stage is linear in the model but for the sort of an out-of-order graph.
// Every exception from protobuf or ONNX is caught here and rethrown as hyperplan::Error.
#include "hyperplan/adapters/onnx_import.h"

#include <fmt/format.h>

#include "hyperplan/classify.h"
#include "hyperplan/error.h"
#include "hyperplan/nearest_name.h"
#include "onnx/cache_ops.h"
#include "onnx/dim_binding.h"
#include "onnx/graph_building.h"
#include "onnx/graph_scope.h"
#include "onnx/huge_page_memory.h"
#include "onnx/import_context.h"
#include "onnx/model_loading.h"
#include "onnx/model_structure.h"
#include "onnx/model_tensors.h"
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

// "--dim bach: the model has no dimension of that name (did you mean 'batch'?); its
// dimensions: batch, past_sequence, sequence".
std::string UnusedDimWarning(const std::string& name, const std::vector<std::string>& symbols) {
  if (symbols.empty()) {
    return fmt::format(
        "--dim {}: the model has no dimension of that name (it has no symbolic "
        "dimensions: every size is fixed)",
        name);
  }
  const std::vector<std::string_view> known(symbols.begin(), symbols.end());
  const std::optional<size_t> nearest = NearestName(name, known);
  return fmt::format("--dim {}: the model has no dimension of that name{}; its dimensions: {}",
                     name, nearest ? fmt::format(" (did you mean '{}'?)", symbols[*nearest]) : "",
                     fmt::join(symbols, ", "));
}

// The stages after loading: `model` (on `arena`) is bound in place.
Graph ImportLoaded(const std::string& path, onnx::ModelProto& model, google::protobuf::Arena& arena,
                   const ImportOptions& options) {
  onnx_import::DimBinding binding(options.dims, options.default_dims);
  ImportContext context = MakeContext(path, model, arena);
  onnx_import::CheckModelStructure(model, context);

  binding.Bind(*model.mutable_graph(), context);
  // Warned now, and repeated in an unbound-dim error: a misspelt --dim is the usual reason
  // the real name is still unbound.
  std::vector<std::string> unused_dims;
  for (const std::string& name : binding.Unused()) {
    unused_dims.push_back(UnusedDimWarning(name, binding.DeclaredSymbols()));
  }
  onnx_import::ImportMemory memory;
  onnx_import::GraphScope scope(*model.mutable_graph(), nullptr, "", memory.resource());
  scope.Resolve(context);

  onnx_import::ShapePropagator propagator(context);
  propagator.Propagate(scope);
  propagator.Finish();

  onnx_import::GraphBuilder builder(context, binding);
  Graph graph = std::move(builder.Build(scope).graph);
  graph.unbound_dims = builder.UnboundDims();
  if (!graph.unbound_dims.empty() && !options.allow_unbound_dims) {
    std::string problem = UnboundDimsProblem(graph.unbound_dims);
    for (const std::string& warning : unused_dims) problem += "; " + warning;
    context.Fail(ErrorKind::kModel, problem);
  }
  if (options.refuse_unknown_sizes && builder.unknown_sizes().counted() > 0) {
    context.Fail(ErrorKind::kModel, builder.unknown_sizes().Problem(propagator.NodesWithoutRule()));
  }
  builder.Finish();

  graph.bound_dims = binding.used();
  for (std::string& warning : unused_dims) context.Warn(std::move(warning));
  graph.warnings = std::move(context.warnings);
  graph.notes = std::move(context.notes);
  graph.external_data_files = onnx_import::ExternalDataFiles(model, path);
  ClassifyValues(graph, options.class_rules);
  return graph;
}

Graph Import(const std::string& path, const ImportOptions& options) {
  std::unique_ptr<google::protobuf::Arena> arena = onnx_import::MakeModelArena();
  onnx::ModelProto& model = onnx_import::LoadModel(path, *arena);
  if (options.read_through_cache_ops) onnx_import::ReadThroughCacheOps(model);
  return ImportLoaded(path, model, *arena, options);
}

std::string FirstLine(const char* text) {
  std::string line(text);
  if (size_t end = line.find('\n'); end != std::string::npos) line.resize(end);
  return line;
}

// Runs `stage`; every exception but Error becomes one, naming the file.
template <typename Stage>
auto Guarded(const std::string& path, Stage&& stage) -> decltype(stage()) {
  try {
    return stage();
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

}  // namespace

std::string UnboundDimsProblem(const std::vector<UnboundDim>& unbound) {
  const UnboundDim& first = unbound.front();
  std::string values;
  for (const std::string& name : first.values) {
    values += (values.empty() ? "'" : ", '") + name + "'";
  }
  const auto named = static_cast<int64_t>(first.values.size());
  if (first.value_count > named) values += fmt::format(" and {} more", first.value_count - named);
  std::string others;
  for (size_t i = 1; i < unbound.size(); ++i) {
    others += (others.empty() ? "'" : ", '") + unbound[i].name + "'";
  }
  return fmt::format(
      "dimension '{}' is not bound and decides the size of {} {}; bind it with --dim {}=VALUE{}",
      first.name, first.value_count == 1 ? "value" : "values", values, first.name,
      others.empty() ? "" : " (also unbound: " + others + ")");
}

Graph ImportOnnxModel(const std::string& path, const ImportOptions& options) {
  return Guarded(path, [&] { return Import(path, options); });
}

struct ParsedOnnxModel::Parsed {
  std::string path;
  std::unique_ptr<google::protobuf::Arena> arena;
  const onnx::ModelProto* model = nullptr;  // on `arena`; never changed after parsing
};

ParsedOnnxModel::ParsedOnnxModel(const std::string& path, bool read_through_cache_ops)
    : parsed_(std::make_unique<Parsed>()) {
  parsed_->path = path;
  Guarded(path, [&] {
    parsed_->arena = onnx_import::MakeModelArena();
    onnx::ModelProto& model = onnx_import::LoadModel(path, *parsed_->arena);
    if (read_through_cache_ops) onnx_import::ReadThroughCacheOps(model);
    onnx_import::CheckModelStructure(model, MakeContext(path, model, *parsed_->arena));
    parsed_->model = &model;
    return 0;
  });
}

ParsedOnnxModel::~ParsedOnnxModel() = default;
ParsedOnnxModel::ParsedOnnxModel(ParsedOnnxModel&&) noexcept = default;
ParsedOnnxModel& ParsedOnnxModel::operator=(ParsedOnnxModel&&) noexcept = default;

Graph ParsedOnnxModel::Import(const ImportOptions& options) const {
  return Guarded(parsed_->path, [&] {
    std::unique_ptr<google::protobuf::Arena> arena = onnx_import::MakeModelArena();
    auto* model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena.get());
    model->CopyFrom(*parsed_->model);
    return ImportLoaded(parsed_->path, *model, *arena, options);
  });
}

std::optional<std::string> ParsedOnnxModel::MetadataProp(std::string_view key) const {
  for (const onnx::StringStringEntryProto& entry : parsed_->model->metadata_props()) {
    if (entry.key() == key) return entry.value();
  }
  return std::nullopt;
}

}  // namespace hyperplan
