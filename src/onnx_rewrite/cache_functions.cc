// Identity-bodied functions for the cache operators (see cache_functions.h).
#include "onnx_rewrite/cache_functions.h"

#include <string>
#include <vector>

namespace hyperplan::onnx_rewrite {
namespace {

void AddFunction(onnx::ModelProto& model, const std::string& name, const std::string& doc,
                 const std::vector<const char*>& attributes, int64_t onnx_opset) {
  onnx::FunctionProto* function = model.add_functions();
  function->set_domain(kCacheDomain);
  function->set_name(name);
  function->set_doc_string(doc);
  function->add_input("X");
  function->add_output("Y");
  for (const char* attribute : attributes) function->add_attribute(attribute);
  onnx::NodeProto* body = function->add_node();
  body->set_op_type("Identity");
  body->add_input("X");
  body->add_output("Y");
  onnx::OperatorSetIdProto* opset = function->add_opset_import();
  opset->set_domain("");
  opset->set_version(onnx_opset);
}

}  // namespace

void AddCacheFunctions(onnx::ModelProto& model, int64_t onnx_opset, bool routed, bool chunked) {
  std::vector<const char*> transfer = {kSrcTierAttribute,  kStreamAttribute, kStepAttribute,
                                       kWaitsForAttribute, kBytesAttribute,  kDstTierAttribute};
  if (chunked) transfer.push_back(kChunkOffsetAttribute);
  std::vector<const char*> prefetch = transfer;
  if (routed) prefetch.insert(prefetch.end(), {kRouterAttribute, kReservedBytesAttribute});
  const std::vector<const char*> detach = {kSrcTierAttribute, kStreamAttribute, kStepAttribute,
                                           kWaitsForAttribute, kBytesAttribute};
  AddFunction(model, "Prefetch",
              "hyperplan: copy X from src_tier one hop towards the device on copy stream "
              "`stream`; Y is the copy. Identity for runtimes that do not plan memory. With "
              "`router`: only the experts of X (a stacked [E, ...] weight) that tensor's top k "
              "per row picks.",
              prefetch, onnx_opset);
  AddFunction(model, "Store",
              "hyperplan: copy X from src_tier one hop away from the device on copy stream "
              "`stream`; Y is the copy. Identity for runtimes that do not plan memory.",
              transfer, onnx_opset);
  AddFunction(model, "Detach",
              "hyperplan: drop the device copy X (another copy exists); Y is unused. Identity "
              "for runtimes that do not plan memory.",
              detach, onnx_opset);
}

}  // namespace hyperplan::onnx_rewrite
