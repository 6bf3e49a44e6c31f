// Protobuf messages as the bytes hyperplan writes, one way each: deterministic binary (plan
// files and the digest they carry, rewritten ONNX models, Perfetto traces) and protobuf's own
// JSON mapping (plan files as .json, summaries, the inspect report), so the same message gives
// the same bytes on every run. Header-only: its users link libprotobuf already.
// Cost: linear in the message. Limits: protobuf's 2 GiB message limit.
#pragma once

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/message_lite.h>
#include <google/protobuf/util/json_util.h>

#include <string>

#include "hyperplan/error.h"

namespace hyperplan::files {

// The message's bytes in deterministic serialisation (map entries sorted; fields in number
// order, as always). Error(kInternal, "<what> could not be serialised") should protobuf fail.
inline std::string DeterministicBytes(const google::protobuf::MessageLite& message,
                                      const std::string& what) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message.SerializeToCodedStream(&coded)) {
      throw Error(ErrorKind::kInternal, what + " could not be serialised");
    }
  }
  return bytes;
}

// Protobuf's JSON mapping: schema field names, every primitive field printed (a reader needs
// no defaults); `pretty` indents, else one line. Error(kInternal, "<what> could not be
// converted to JSON") should protobuf fail.
inline std::string JsonText(const google::protobuf::Message& message, bool pretty,
                            const std::string& what) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok()) {
    throw Error(ErrorKind::kInternal, what + " could not be converted to JSON");
  }
  return json;
}

}  // namespace hyperplan::files
