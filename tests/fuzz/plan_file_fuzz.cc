// Fuzz entry: a plan file's bytes (binary protobuf or JSON), read as `hyperplan verify` reads
// one: decoded, its recorded profile and import options rebuilt, mapped onto the fixed model
// (fuzz_support.h) and re-checked (invariants, explicit waits, predictions against a replay).
// A plan whose digest does not match is still checked, since a fuzzer cannot forge a digest.
// Cost per input: linear in the plan, plus one replay and VerifyPlan.
#include "fuzz_support.h"
#include "planio/plan_check.h"
#include "planio/plan_file.h"
#include "planio/plan_from_proto.h"
#include "planio/profile_proto.h"

int FuzzOne(const uint8_t* data, size_t size) {
  using namespace hyperplan;
  const Graph& graph = fuzz::FixedModelGraph();
  return fuzz::RunGuarded([&] {
    const std::string path = "fuzz.plan";
    const plan::v1::Plan message = planio::DecodePlan(fuzz::AsText(data, size), path);
    planio::ImportOptionsFromProto(message, path);
    const HardwareProfile profile = planio::ProfileFromProto(message, path);
    const planio::ProfileMapping mapping = planio::MapProfile(message, path, profile);
    planio::FromProtoOptions options;
    options.fold_channels = size % 2 == 1;  // both replay modes, chosen by the input
    const auto [plan, evaluation] =
        planio::PlanFromProto(message, path, graph, profile, mapping, options);
    planio::CheckLoadedPlan(graph, profile, plan, evaluation);
  });
}
