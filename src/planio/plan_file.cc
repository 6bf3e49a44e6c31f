// Plan files, binary and JSON (see plan_file.h).
#include "planio/plan_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "files/proto_bytes.h"
#include "hyperplan/error.h"

namespace hyperplan::planio {
namespace {

namespace pb = ::hyperplan::plan::v1;

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::kPlanFile, path + ": " + what);
}

bool LooksLikeJson(std::string_view bytes) {
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && bytes[first] == '{';
}

google::protobuf::util::JsonParseOptions LenientJson() {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // fields a newer minor version added
  return options;
}

// The JSON parser's messages can run long and span lines; keep one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  constexpr size_t kLongest = 200;
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
  return text;
}

void CheckHeader(const pb::PlanHeader& header, const std::string& path) {
  if (!header.has_format() || header.format().schema() != kPlanSchemaName) {
    Fail(path, "not a hyperplan plan (no '" + std::string(kPlanSchemaName) + "' format header)");
  }
  const pb::FormatVersion& format = header.format();
  const std::string version = std::to_string(format.major()) + "." + std::to_string(format.minor());
  if (format.major() > kPlanFormatMajor) {
    Fail(path, "plan format " + version + " is newer than this hyperplan reads (" +
                   std::to_string(kPlanFormatMajor) + ".x); use a newer hyperplan");
  }
  if (format.major() < 1) Fail(path, "plan format " + version + " is not a released format");
}

// The format header of a binary plan. Writers put field 1 first (protobuf serialises in field
// order), so it is read alone: a plan cut short still has it, and says "truncated" below
// rather than "not a plan". Bytes that do not start that way are parsed whole as a header.
pb::PlanHeader BinaryHeader(std::string_view bytes, const std::string& path) {
  pb::PlanHeader header;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  constexpr uint32_t kFormatTag = (1 << 3) | 2;  // field 1, length-delimited
  uint32_t length = 0;
  std::string format;
  if (in.ReadTag() == kFormatTag && in.ReadVarint32(&length) &&
      in.ReadString(&format, static_cast<int>(length)) &&
      header.mutable_format()->ParseFromString(format)) {
    return header;
  }
  header.Clear();
  if (!header.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    Fail(path, "not a hyperplan plan (it does not parse as protobuf)");
  }
  return header;
}

}  // namespace

PlanEncoding EncodingForPath(const std::string& path, const std::string& flag) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".pb") return PlanEncoding::kBinary;
  if (extension == ".json") return PlanEncoding::kJson;
  throw Error(ErrorKind::kUsage, flag + " " + path +
                                     ": the plan's format follows the extension: use .pb "
                                     "(protobuf) or .json");
}

std::string EncodeBinary(const google::protobuf::Message& message) {
  return files::DeterministicBytes(message, "a plan message");
}

std::string EncodeJson(const google::protobuf::Message& message, bool pretty) {
  return files::JsonText(message, pretty, "a plan message");
}

std::string EncodePlan(const pb::Plan& plan, PlanEncoding encoding) {
  return encoding == PlanEncoding::kBinary ? EncodeBinary(plan) : EncodeJson(plan, true);
}

pb::Plan DecodePlan(std::string_view bytes, const std::string& path) {
  if (bytes.empty()) Fail(path, "empty file, not a hyperplan plan");
  pb::Plan plan;
  if (LooksLikeJson(bytes)) {
    pb::PlanHeader header;
    const auto status = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(bytes.data(), bytes.size()), &header, LenientJson());
    if (!status.ok()) {
      Fail(path, "not a hyperplan plan: invalid or truncated JSON (" +
                     OneLine(std::string(status.message())) + ")");
    }
    CheckHeader(header, path);
    const auto full = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(bytes.data(), bytes.size()), &plan, LenientJson());
    if (!full.ok()) {
      Fail(path, "malformed plan: " + OneLine(std::string(full.message())));
    }
  } else {
    if (bytes.size() > static_cast<size_t>(INT_MAX)) Fail(path, "larger than 2 GiB");
    CheckHeader(BinaryHeader(bytes, path), path);
    if (!plan.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      Fail(path, "truncated or corrupt plan (it does not parse as protobuf)");
    }
  }
  if (!plan.complete()) {
    Fail(path, "truncated plan: the end marker ('complete') is missing");
  }
  return plan;
}

pb::Plan ReadPlanFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(ErrorKind::kInputFile, path + ": cannot read: is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::kInputFile, path + ": cannot read: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::kInputFile, path + ": cannot read: " + std::strerror(errno));
  return DecodePlan(bytes.str(), path);
}

}  // namespace hyperplan::planio
