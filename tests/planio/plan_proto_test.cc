// Core Plan -> schemas/plan.proto: what the message says about the hand-worked chain
// (planio_fixture.h), and that JSON and binary round trips lose nothing.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>

#include "planio/plan_file.h"
#include "planio_fixture.h"

using namespace hyperplan;
using namespace hyperplan::planio_test;
namespace pb = hyperplan::plan::v1;

TEST_CASE("plan proto: the chain's plan as a runtime reads it") {
  const ChainFixture chain;
  const pb::Plan plan = chain.Message();
  CHECK(plan.format().schema() == "hyperplan.plan");
  CHECK(plan.format().major() == 1);
  CHECK(plan.status() == pb::PLAN_STATUS_PLANNED);
  CHECK(plan.fits());
  CHECK(plan.budget_bytes() == 1100);
  CHECK(plan.complete());

  // Tiers and links as the unit profile lists them; copy streams number links in order, one
  // channel each: hbm->ddr is stream 1, ddr->hbm stream 2.
  REQUIRE(plan.tiers_size() == 2);
  CHECK(plan.tiers(0).name() == "hbm");
  CHECK(plan.tiers(0).is_device());
  CHECK(plan.tiers(1).name() == "ddr");
  REQUIRE(plan.streams_size() == 2);
  CHECK(plan.streams(0).id() == 1);
  CHECK(plan.streams(0).name() == "hbm->ddr#0");
  CHECK(plan.streams(1).id() == 2);
  CHECK(plan.streams(1).name() == "ddr->hbm#0");

  // W: 1000 bytes, a weight whose home copy is in ddr and which is on the device at the start.
  const pb::Value& w = plan.values(chain.w);
  CHECK(w.name() == "W");
  CHECK(w.bytes() == 1000);
  CHECK(w.value_class() == pb::VALUE_CLASS_WEIGHT);
  CHECK(w.home_tier() == 1);
  CHECK(w.resident_at_start());
  CHECK(w.offloaded());
  CHECK(plan.values(chain.b).home_tier() == 0);  // an activation lives where it is made
  CHECK_FALSE(plan.values(chain.b).offloaded());

  // W is dropped after n0 (no Store: the home copy exists) and fetched back for n3 on stream 2.
  CHECK(StepIndex(plan, pb::STEP_KIND_STORE, chain.w) == -1);
  const int detach = StepIndex(plan, pb::STEP_KIND_DETACH, chain.w);
  const int prefetch = StepIndex(plan, pb::STEP_KIND_PREFETCH, chain.w);
  REQUIRE(detach >= 0);
  REQUIRE(prefetch >= 0);
  const pb::Step& fetch = plan.steps(prefetch);
  CHECK(fetch.src_tier() == 1);
  CHECK(fetch.dst_tier() == 0);
  CHECK(fetch.stream() == 2);
  CHECK(fetch.bytes() == 1000);
  CHECK(fetch.boundary() == 3);  // W back during step 2 would need 1510 > 1100 bytes
  CHECK(plan.steps(detach).stream() == 0);
  CHECK(plan.steps(detach).boundary() == 1);
  const int n2 = ComputeIndex(plan, chain.n2);
  const int n3 = ComputeIndex(plan, chain.n3);
  CHECK(fetch.start_ns() == 3000);  // n2 ends at 3 x 1000 ns
  CHECK(fetch.end_ns() == 4000);    // + 1000 bytes at 1 byte/ns
  CHECK(plan.steps(n2).end_ns() == 3000);
  CHECK(plan.steps(n3).start_ns() == 4000);
  CHECK(plan.steps(n3).end_ns() == 5000);
  CHECK(std::find(plan.steps(n3).waits_for().begin(), plan.steps(n3).waits_for().end(), prefetch) !=
        plan.steps(n3).waits_for().end());
  CHECK(plan.nodes(chain.n3).stall_ns() == 1000);

  const pb::Summary& summary = plan.summary();
  CHECK(summary.baseline_peak_bytes() == 1510);
  CHECK(summary.makespan_ns() == 5000);
  CHECK(summary.baseline_makespan_ns() == 4000);
  CHECK(summary.stall_ns() == 1000);
  CHECK(summary.compute_ns() == 4000);
  CHECK(summary.prefetch_steps() == 1);
  CHECK(summary.detach_steps() == 1);
  CHECK(summary.store_steps() == 0);
  REQUIRE(summary.links_size() == 2);
  CHECK(summary.links(0).bytes_moved() == 0);
  CHECK(summary.links(1).bytes_moved() == 1000);
  CHECK(summary.peak_bytes() <= 1100);
  CHECK(plan.arena().size_bytes() <= 1100);
  CHECK(plan.arena().live_peak_bytes() == 1020);  // step 3: W + c + out
  CHECK(plan.arena().alignment_bytes() == 1);     // the unit profile states none
  CHECK(plan.format().minor() == 1);

  // W's home copy: the only copy off the device, all run, at the start of ddr's buffer of
  // exactly its 1000 bytes.
  REQUIRE(plan.tier_copies_size() == 1);
  CHECK(plan.tier_copies(0).value() == chain.w);
  CHECK(plan.tier_copies(0).opened_by() == -1);
  CHECK(plan.tier_copies(0).offset_bytes() == 0);
  REQUIRE(plan.tier_buffers_size() == 1);
  CHECK(plan.tier_buffers(0).tier() == 1);
  CHECK(plan.tier_buffers(0).size_bytes() == 1000);
  CHECK(plan.tier_buffers(0).live_peak_bytes() == 1000);
  CHECK(plan.tier_buffers(0).alignment_bytes() == 1);

  // The links a plan moves bytes on, and the tiers holding copies, are marked used.
  CHECK(plan.links(1).used());
  CHECK_FALSE(plan.links(0).used());
  CHECK(plan.tiers(0).used());
  CHECK(plan.tiers(1).used());

  // W's rejected or taken candidates carry a reason; every value the plan left in place
  // with a candidate has one that is not "offloaded".
  bool w_offloaded = false;
  for (const pb::Decision& decision : plan.decisions()) {
    CHECK(decision.reason() != pb::DECISION_REASON_UNSPECIFIED);
    w_offloaded |=
        decision.value() == chain.w && decision.reason() == pb::DECISION_REASON_OFFLOADED;
  }
  CHECK(w_offloaded);
}

TEST_CASE("plan proto: provenance records what the plan was made from") {
  const ChainFixture chain;
  const pb::Plan plan = chain.Message();
  const pb::Provenance& provenance = plan.provenance();
  CHECK(provenance.tool() == "hyperplan");
  CHECK(provenance.model_sha256() == std::string(64, 'a'));
  CHECK(provenance.graph_name() == "chain");
  CHECK(provenance.options().budget_bytes() == 1100);
  CHECK(provenance.options().max_overhead_ppm() == 10'000);
  CHECK(provenance.profile().name() == "unit");
  CHECK(provenance.profile().device_tier() == 0);
  CHECK(provenance.profile().weight_home_tier() == 1);
  REQUIRE(provenance.profile().compute().peak_size() == 1);
  CHECK(provenance.profile().compute().peak(0).dtype() == "float");
  CHECK(provenance.profile().compute().peak(0).flops_per_s() == 1'000'000'000);
  CHECK_FALSE(provenance.options().has_align_bytes());              // --align not given
  CHECK(provenance.options().layout().all_orders_limit() == 1024);  // the defaults
  CHECK(provenance.options().layout().shaken_limit() == 256);
  CHECK(provenance.options().layout().shaken_trials() == 32);
  CHECK(provenance.options().layout().greedy());
}

TEST_CASE("plan proto: proto -> JSON -> proto and proto -> binary -> proto are lossless") {
  const pb::Plan plan = ChainFixture().Message();
  const std::string json = planio::EncodePlan(plan, planio::PlanEncoding::kJson);
  const std::string binary = planio::EncodePlan(plan, planio::PlanEncoding::kBinary);
  pb::Plan from_json;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json, &from_json).ok());
  pb::Plan from_binary;
  REQUIRE(from_binary.ParseFromString(binary));
  std::string difference;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&difference);
  CHECK(differencer.Compare(plan, from_json));
  INFO(difference);
  CHECK(google::protobuf::util::MessageDifferencer::Equals(plan, from_binary));
  // And the reader takes both back.
  CHECK(google::protobuf::util::MessageDifferencer::Equals(plan, planio::DecodePlan(json, "p")));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(plan, planio::DecodePlan(binary, "p")));
}

TEST_CASE("plan proto: the same inputs give the same bytes") {
  const std::string first = planio::EncodeBinary(ChainFixture().Message());
  const std::string second = planio::EncodeBinary(ChainFixture().Message());
  CHECK(first == second);
  CHECK(planio::EncodePlan(ChainFixture().Message(), planio::PlanEncoding::kJson) ==
        planio::EncodePlan(ChainFixture().Message(), planio::PlanEncoding::kJson));
}

TEST_CASE("plan proto: JSON uses the schema's field names and enum names") {
  const std::string json =
      planio::EncodePlan(ChainFixture().Message(), planio::PlanEncoding::kJson);
  CHECK_THAT(json, Catch::Contains("\"waits_for\""));
  CHECK_THAT(json, Catch::Contains("\"STEP_KIND_PREFETCH\""));
  CHECK_THAT(json, Catch::Contains("\"VALUE_CLASS_WEIGHT\""));
  CHECK_THAT(json, Catch::Contains("\"complete\": true"));
}
