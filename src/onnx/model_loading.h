// Model loading: reads a .onnx file into a ModelProto that lives on a caller-owned arena.
//
// Parses straight from the file descriptor (ZeroCopy FileInputStream under a CodedInputStream
// whose total-bytes limit is raised to protobuf's 2 GiB ceiling), so the file is never copied
// into memory and external-data weights are only referenced, never opened. The arena takes its
// blocks from huge-page memory (huge_page_memory.h): a 100k-node graph is millions of small
// objects, and first-touch page faults otherwise cost more than the parse itself.
// Cost: one pass over the file. Limits: one protobuf message cannot exceed 2 GiB, so weights of
// bigger models must be external data (which is what exporters do).
#pragma once

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace hyperplan::onnx_import {

// An arena sized for model graphs; blocks come from huge-page-friendly anonymous mappings.
std::unique_ptr<google::protobuf::Arena> MakeModelArena();

// Throws Error(kInputFile) when the file cannot be opened or read, Error(kModel) when it is not
// an ONNX model (parse failure, truncation, no graph) or is over the 2 GiB message limit.
onnx::ModelProto& LoadModel(const std::string& path, google::protobuf::Arena& arena);

}  // namespace hyperplan::onnx_import
