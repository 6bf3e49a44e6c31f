// The reference the inspect benchmark compares against: protobuf alone parsing a model file,
// the way the importer reads it (a file stream, no copy of the whole file in memory).
#include "parse_only.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <climits>

namespace hyperplan::bench {

int ParseOnly(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return 3;
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream file_stream(fd);
    google::protobuf::io::CodedInputStream coded(&file_stream);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = model.ParseFromCodedStream(&coded);
  }
  close(fd);
  return parsed && model.graph().node_size() > 0 ? 0 : 4;
}

}  // namespace hyperplan::bench
