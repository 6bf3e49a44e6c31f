// Model loading from a file descriptor onto a huge-page-backed arena (see model_loading.h).
#include "onnx/model_loading.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hyperplan/error.h"
#include "onnx/huge_page_memory.h"
#include "onnx/model_structure.h"

namespace hyperplan::onnx_import {
namespace {

constexpr size_t kFirstBlockBytes = size_t{8} << 20;
// Protobuf's default of 100 nested messages would stop a model at about 30 nested bodies
// (graph -> node -> attribute -> graph is 3 levels each), before model_structure.h's limit
// of 64 could name the node. 3 levels per body, plus the model, a function and the deepest
// type (value_info -> type -> sequence -> ... -> shape -> dim) with room to spare.
constexpr int kParseDepthLimit = 3 * kMaxBodyNesting + 64;
constexpr size_t kLargestBlockBytes = size_t{64} << 20;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { close(fd_); }

 private:
  int fd_;
};

[[noreturn]] void FailRead(const std::string& path, const char* verb, int error_number) {
  throw Error(ErrorKind::kInputFile,
              path + ": cannot " + verb + ": " + std::strerror(error_number));
}

}  // namespace

std::unique_ptr<google::protobuf::Arena> MakeModelArena() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = kFirstBlockBytes;
  options.max_block_size = kLargestBlockBytes;
  options.block_alloc = MapHugePageBlock;
  options.block_dealloc = UnmapHugePageBlock;
  return std::make_unique<google::protobuf::Arena>(options);
}

onnx::ModelProto& LoadModel(const std::string& path, google::protobuf::Arena& arena) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) FailRead(path, "open", errno);
  FileDescriptor file(fd);
  struct stat status {};
  if (fstat(fd, &status) != 0) FailRead(path, "read", errno);
  if (S_ISDIR(status.st_mode)) FailRead(path, "read", EISDIR);
  const int64_t file_bytes = status.st_size;
  if (file_bytes > std::numeric_limits<int>::max()) {
    throw Error(ErrorKind::kModel,
                fmt::format("{}: {} bytes is over protobuf's 2 GiB limit for one message (store "
                            "the weights as external data)",
                            path, file_bytes));
  }

  auto* model = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  google::protobuf::io::FileInputStream file_stream(fd);
  bool parsed = false;
  int64_t parsed_bytes = 0;
  {
    google::protobuf::io::CodedInputStream coded(&file_stream);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    coded.SetRecursionLimit(kParseDepthLimit);
    parsed = model->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
    parsed_bytes = coded.CurrentPosition();
  }
  if (file_stream.GetErrno() != 0) FailRead(path, "read", file_stream.GetErrno());
  if (!parsed) {
    // A parse that ran out of input at the very end is a cut-off file; anything else is not a
    // protobuf of this kind at all.
    const bool ran_out = parsed_bytes >= file_bytes && file_bytes > 0;
    throw Error(ErrorKind::kModel,
                ran_out ? fmt::format("{}: not an ONNX model: the protobuf ends mid-message after "
                                      "{} bytes (truncated file?)",
                                      path, file_bytes)
                        : fmt::format("{}: not an ONNX model: protobuf parse failed (malformed, "
                                      "or messages nested over {} deep)",
                                      path, kParseDepthLimit));
  }
  if (!model->has_graph()) {
    throw Error(ErrorKind::kModel, path + ": not an ONNX model: it has no graph");
  }
  return *model;
}

}  // namespace hyperplan::onnx_import
