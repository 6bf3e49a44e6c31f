// Plan files: schemas/plan.proto as bytes, binary (.pb) or JSON (.json), and back.
//
// Writing is deterministic: binary through protobuf's deterministic serialisation, JSON
// through protobuf's own JSON mapping (field names as in the schema, every primitive field
// printed), and the schema has no maps, so the same plan gives the same bytes on every run.
// Reading checks, in order: that the bytes parse as a plan header (else "not a hyperplan
// plan"), its schema name and major version (a newer major is refused by name before the rest
// is parsed, since it may no longer parse under this schema), the whole message, and the end
// marker a plan cut short lacks. Every failure is Error(kPlanFile, "<path>: ..."). Fields a
// newer minor version added are ignored. Cost: linear in the file.
// Limits: protobuf's 2 GiB message limit (a 100k-node plan is tens of MB).
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "schemas/plan.pb.h"

namespace hyperplan::planio {

inline constexpr const char* kPlanSchemaName = "hyperplan.plan";
inline constexpr int kPlanFormatMajor = 1;
inline constexpr int kPlanFormatMinor = 1;
// The minor a plan with host compute steps is written as (schemas/plan.proto FormatVersion).
inline constexpr int kPlanFormatHostMinor = 2;
// The minor a plan with a chunked Prefetch is written as (Step fields 20-21).
inline constexpr int kPlanFormatChunkMinor = 3;
// The minor a plan with a routed Prefetch is written as (Step fields 18-19).
inline constexpr int kPlanFormatRoutedMinor = 4;

enum class PlanEncoding { kBinary, kJson };

// ".pb" -> binary, ".json" -> JSON; any other extension is Error(kUsage) naming `flag`.
PlanEncoding EncodingForPath(const std::string& path, const std::string& flag);

// Deterministic binary serialisation of any message (also what the plan's sha256 covers).
std::string EncodeBinary(const google::protobuf::Message& message);

// Protobuf's JSON mapping: schema field names, primitive fields always printed. `pretty`
// indents (plan files); without it the text is one line (summaries for CI).
std::string EncodeJson(const google::protobuf::Message& message, bool pretty);

std::string EncodePlan(const plan::v1::Plan& plan, PlanEncoding encoding);

// JSON when the first non-blank byte is '{', else binary. `path` names the file in errors.
plan::v1::Plan DecodePlan(std::string_view bytes, const std::string& path);

// Error(kInputFile) when the file cannot be read, else DecodePlan.
plan::v1::Plan ReadPlanFile(const std::string& path);

}  // namespace hyperplan::planio
