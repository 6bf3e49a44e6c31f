// Model tensors: every TensorProto a model holds, and the files its external-data tensors name.
//
// ONNX tensors live in graph initializers (dense and sparse), in node attributes (Constant
// values, sparse tensors, tensor lists), in control-flow bodies at any depth, and in the nodes
// of model-local functions. The importer lists the external-data files (outputs must never
// land on one) and the ONNX rewrite relocates their references; both walk the same way, here.
// Cost: one pass over the model's nodes and tensors; no file is opened.
// Limits: paths are resolved lexically against the model's directory (the caller compares
// files by identity).
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

namespace hyperplan::onnx_import {

// Calls `visit` on every TensorProto of the model, nested bodies and functions included.
void ForEachTensor(onnx::ModelProto& model, const std::function<void(onnx::TensorProto&)>& visit);

// The `location` entry of an external-data tensor; nullptr when the tensor is not external or
// names no location.
onnx::StringStringEntryProto* ExternalLocation(onnx::TensorProto& tensor);

// The distinct files the model's external-data tensors name, each resolved against the
// directory of `model_path` and normalised, in first-reference order.
std::vector<std::string> ExternalDataFiles(onnx::ModelProto& model, const std::string& model_path);

}  // namespace hyperplan::onnx_import
