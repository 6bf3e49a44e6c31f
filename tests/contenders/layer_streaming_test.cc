// Layer streaming: the layer rule, lookahead 0 / 1, resident layers chosen by the budget.
#include "contenders/layer_streaming.h"

#include <algorithm>
#include <string>
#include <vector>

#include "contender_support.h"
#include "hyperplan/layers.h"

namespace hyperplan::contenders_test {
namespace {

using contenders::BuildContenderContext;
using contenders::LayerStreamingOptions;
using contenders::LayerStreamingPlan;
using hyperplan::LayerOfWeight;

TEST_CASE("layer rule: layers.N. at the start or after a separator") {
  CHECK(LayerOfWeight("model.layers.12.self_attn.q_proj.weight") == 12);
  CHECK(LayerOfWeight("layers.3.attention.wq.weight") == 3);
  CHECK(LayerOfWeight("model.layers.7.mlp.experts.5.up_proj.weight") == 7);
  CHECK(LayerOfWeight("/model/layers.0/x") == -1);  // needs the '.' after the number
  CHECK(LayerOfWeight("model.embed_tokens.weight") == -1);
  CHECK(LayerOfWeight("sublayers.2.w") == -1);  // "layers." inside a word
  CHECK(LayerOfWeight("transformer.h.3.attn.c_attn.weight") == -1);
  CHECK(LayerOfWeight("model.layers.x.w") == -1);
}

TEST_CASE("streaming, lookahead 0: each layer is fetched when it starts") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(t.graph, profile, t.times);
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  options.resident_layers = 0;
  const auto result = LayerStreamingPlan(context, std::nullopt, options);
  RequireVerified(t.graph, profile, result.plan, result.evaluation);
  CHECK(result.layer_count == 2);
  // Fetch w0 0..100; n0 100..250; Detach w0; fetch w1 250..350; n1 350..500.
  CHECK(Kinds(result.plan) == std::vector<StepKind>{StepKind::kPrefetch, StepKind::kCompute,
                                                    StepKind::kDetach, StepKind::kPrefetch,
                                                    StepKind::kCompute});
  CHECK(result.evaluation.timeline.makespan_ns == 500);
  // Step 0: x + w0 + a = 120; step 1: x + a + w1 + b = 130.
  CHECK(result.plan.layout.live_peak_bytes == 130);
}

TEST_CASE("streaming, lookahead 1: the next layer's fetch hides behind compute") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(t.graph, profile, t.times);
  LayerStreamingOptions options;
  options.lookahead_layers = 1;
  options.resident_layers = 0;
  const auto result = LayerStreamingPlan(context, std::nullopt, options);
  RequireVerified(t.graph, profile, result.plan, result.evaluation);
  // Both fetched at boundary 0 on the one ddr->hbm channel: w0 0..100, w1 100..200; n0
  // 100..250; n1 250..400 (w1 arrived at 200).
  CHECK(Kinds(result.plan) == std::vector<StepKind>{StepKind::kPrefetch, StepKind::kPrefetch,
                                                    StepKind::kCompute, StepKind::kDetach,
                                                    StepKind::kCompute});
  CHECK(result.evaluation.timeline.makespan_ns == 400);
  // Step 0 holds both layers: x + w0 + w1 + a = 220.
  CHECK(result.plan.layout.live_peak_bytes == 220);
}

TEST_CASE("streaming with a budget keeps as many leading layers as fit") {
  const TwoLayers t = MakeTwoLayers(150);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(t.graph, profile, t.times);
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  SECTION("room for everything: nothing streams") {
    const auto result = LayerStreamingPlan(context, 1000, options);
    RequireVerified(t.graph, profile, result.plan, result.evaluation);
    CHECK(result.resident_layers == 2);
    CHECK(result.evaluation.timeline.makespan_ns == 300);
  }
  SECTION("room for layer 0 kept plus layer 1 streamed") {
    // Layer 0 resident all run: step 0 x + w0 + a = 120, step 1 x + w0 + a + w1 + b = 230;
    // too much for 200. Streaming both: 130 fits. So one resident layer does not fit: 0.
    const auto result = LayerStreamingPlan(context, 200, options);
    RequireVerified(t.graph, profile, result.plan, result.evaluation);
    CHECK(result.resident_layers == 0);
    CHECK(result.evaluation.fits);
    CHECK(result.plan.layout.live_peak_bytes == 130);
  }
  SECTION("below the floor nothing fits") {
    const auto result = LayerStreamingPlan(context, 100, options);
    RequireVerified(t.graph, profile, result.plan, result.evaluation);
    CHECK_FALSE(result.evaluation.fits);
  }
}

TEST_CASE("streaming: a layer visited twice (forward and backward) is fetched twice") {
  // n0(w0) n1(w1) n2(w1) n3(w0): visits layer 0, layer 1, layer 0 again.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId w0 = Weight(graph, "layers.0.w", 100);
  const ValueId w1 = Weight(graph, "layers.1.w", 100);
  const ValueId a = Bytes(graph, "a", 10);
  const ValueId b = Bytes(graph, "b", 10);
  const ValueId c = Bytes(graph, "c", 10);
  const ValueId d = Bytes(graph, "d", 10);
  Op(graph, "n0", "Work", {x, w0}, {a});
  Op(graph, "n1", "Work", {a, w1}, {b});
  Op(graph, "n2", "Work", {b, w1}, {c});
  Op(graph, "n3", "Work", {c, w0}, {d});
  MarkOutput(graph, d);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile, {10, 10, 10, 10});
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  options.resident_layers = 0;
  const auto result = LayerStreamingPlan(context, std::nullopt, options);
  RequireVerified(graph, profile, result.plan, result.evaluation);
  // w0 fetched at 0 and 3, w1 once at 1 (its visit spans steps 1..2).
  int fetches = 0;
  for (const PlanStep& step : result.plan.steps) fetches += step.kind == StepKind::kPrefetch;
  CHECK(fetches == 3);
  // Fetch w0 0..100, n0 100..110, fetch w1 110..210, n1 210..220, n2 220..230, fetch w0
  // 230..330, n3 330..340.
  CHECK(result.evaluation.timeline.makespan_ns == 340);
}

// `layers` layers in a chain: n_i(a_{i-1}, layers.i.w `weight_bytes`) -> a_i (10 B); x (10 B)
// feeds n0 and the last a_i is the output.
Graph LayerChain(int layers, int64_t weight_bytes) {
  Graph graph;
  ValueId previous = Input(graph, "x", 10);
  for (int i = 0; i < layers; ++i) {
    const ValueId weight = Weight(graph, "layers." + std::to_string(i) + ".w", weight_bytes);
    const ValueId out = Bytes(graph, "a" + std::to_string(i), 10);
    Op(graph, "n" + std::to_string(i), "Work", {previous, weight}, {out});
    previous = out;
  }
  MarkOutput(graph, previous);
  return graph;
}

// The layers whose weight a Prefetch brings, ascending.
std::vector<std::string> Fetched(const Graph& graph, const Plan& plan) {
  std::vector<std::string> names;
  for (const PlanStep& step : plan.steps) {
    if (step.kind == StepKind::kPrefetch) names.push_back(graph.values[step.value].name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("interleaved streaming spreads the resident layers, so the link works throughout") {
  const Graph graph = LayerChain(6, 250);
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile, std::vector<int64_t>(6, 100));
  LayerStreamingOptions options;
  options.lookahead_layers = 2;
  options.resident_layers = 4;
  SECTION("leading layers resident: the streamed tail binds") {
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(Fetched(graph, result.plan) == std::vector<std::string>{"layers.4.w", "layers.5.w"});
    // Each fetch takes 250 ns and may start when the compute step before its boundary (two
    // layers earlier) has ended. w4 at boundary 2 after n1 (200): 200..450; w5 at boundary 3
    // after n2 (300), behind w4 on the one channel: 450..700. n0-n3 0..400, n4 waits for w4:
    // 450..550, n5 waits for w5: 700..800.
    CHECK(result.evaluation.timeline.makespan_ns == 800);
  }
  SECTION("interleaved: the streamed layers are spread out") {
    options.interleave = true;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    // S = 2 of L = 6 stream: rank r streams when floor((r + 1) 2 / 6) > floor(2 r / 6): r = 2
    // (1 > 0) and r = 5 (2 > 1).
    CHECK(Fetched(graph, result.plan) == std::vector<std::string>{"layers.2.w", "layers.5.w"});
    // w2 at boundary 0: 0..250; n0 0..100, n1 100..200, n2 waits for w2: 250..350; w5 at
    // boundary 3 after n2: 350..600; n3 350..450, n4 450..550, n5 waits for w5: 600..700.
    CHECK(result.evaluation.timeline.makespan_ns == 700);
  }
}

// Three layers and a KV cache read by the middle one: x (10) -> n0(x, w0 100) -> a0 (10) ->
// n1(a0, w1, kv 50) -> a1 (10) -> n2(a1, w2 100) -> y (10, output); w1 as given, kv a KV cache
// fed in (homed in ddr), 150 ns a node. x, a graph input, stays to the end.
struct LayersWithCache {
  Graph graph;
  ValueId kv = kNoValue;
};

LayersWithCache MakeLayersWithCache(int64_t w1_bytes) {
  LayersWithCache t;
  Graph& graph = t.graph;
  const ValueId x = Input(graph, "x", 10);
  const ValueId w0 = Weight(graph, "layers.0.w", 100);
  const ValueId w1 = Weight(graph, "layers.1.w", w1_bytes);
  const ValueId w2 = Weight(graph, "layers.2.w", 100);
  t.kv = Input(graph, "past_key_values.1.key", 50);
  graph.values[t.kv].value_class = ValueClass::kKvCache;
  const ValueId a0 = Bytes(graph, "a0", 10);
  const ValueId a1 = Bytes(graph, "a1", 10);
  const ValueId y = Bytes(graph, "y", 10);
  Op(graph, "n0", "Work", {x, w0}, {a0});
  Op(graph, "n1", "Work", {a0, w1, t.kv}, {a1});
  Op(graph, "n2", "Work", {a1, w2}, {y});
  MarkOutput(graph, y);
  return t;
}

TEST_CASE("streaming with state: a layer's KV cache moves with its weights") {
  // w1 100 B.
  const LayersWithCache t = MakeLayersWithCache(100);
  const Graph& graph = t.graph;
  const ValueId kv = t.kv;
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile, {150, 150, 150});
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  options.resident_layers = 0;
  SECTION("without: the KV cache stays on the device all run") {
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(Fetched(graph, result.plan) ==
          std::vector<std::string>{"layers.0.w", "layers.1.w", "layers.2.w"});
    // Fetch w0 0..100, n0 100..250, w1 250..350, n1 350..500, w2 500..600, n2 600..750.
    CHECK(result.evaluation.timeline.makespan_ns == 750);
  }
  SECTION("with: fetched with layer 1, dropped after it") {
    options.stream_state = true;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(Fetched(graph, result.plan) == std::vector<std::string>{"layers.0.w", "layers.1.w",
                                                                  "layers.2.w",
                                                                  "past_key_values.1.key"});
    // Fetch w0 0..100, n0 100..250; at boundary 1 w1 250..350 then kv 350..400 on the one
    // channel, n1 400..550; w2 550..650, n2 650..800.
    CHECK(result.evaluation.timeline.makespan_ns == 800);
    // kv is resident for step 1 alone (its home copy in ddr makes the drop a Detach).
    int kv_intervals = 0;
    for (const ResidentInterval& interval : result.plan.residency) {
      if (interval.value != kv) continue;
      ++kv_intervals;
      CHECK(interval.first_step == 1);
      CHECK(interval.last_step == 1);
    }
    CHECK(kv_intervals == 1);
    const std::vector<StepKind> kinds = Kinds(result.plan);
    CHECK(std::count(kinds.begin(), kinds.end(), StepKind::kStore) == 0);
  }
}

TEST_CASE("streaming with state and a budget: the KV cache moves only when it must") {
  // w1 20 B.
  const LayersWithCache t = MakeLayersWithCache(20);
  const Graph& graph = t.graph;
  const HardwareProfile profile = UnitProfile();
  const auto context = BuildContenderContext(graph, profile, {150, 150, 150});
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  options.stream_state = true;
  auto kv_fetched = [&](const Plan& plan) {
    const std::vector<std::string> fetched = Fetched(graph, plan);
    return std::count(fetched.begin(), fetched.end(), "past_key_values.1.key") > 0;
  };
  SECTION("the weights alone fit: the cache stays") {
    // Every layer streamed and kv resident: step 0 x + w0 + a0 + kv = 170, step 1 x + a0 + w1
    // + kv + a1 = 100, step 2 x + a1 + w2 + y + kv = 180. 200 holds that (and no more layers).
    const auto result = LayerStreamingPlan(context, 200, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(result.evaluation.fits);
    CHECK_FALSE(kv_fetched(result.plan));
  }
  SECTION("they do not: the cache streams with layer 1") {
    // Weights alone peak at 180 > 150. With kv streamed: 120, 100, 130: fits.
    const auto result = LayerStreamingPlan(context, 150, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(result.evaluation.fits);
    CHECK(kv_fetched(result.plan));
    CHECK(result.plan.layout.live_peak_bytes == 130);
  }
}

TEST_CASE("streaming: staging hops run ahead of the device hop by the stage lead") {
  // Four layers with 100 B weights, 100 ns each; the weights are homed on nvme, behind ddr:
  // nvme -> ddr and ddr -> hbm at 1 byte/ns, one channel each.
  const Graph graph = LayerChain(4, 100);
  const HardwareProfile profile = NvmeBehindDdr();
  const auto context = BuildContenderContext(graph, profile, {100, 100, 100, 100});
  LayerStreamingOptions options;
  options.lookahead_layers = 1;
  options.resident_layers = 0;
  auto nvme_hops_before_compute = [](const Plan& plan) {
    int hops = 0;
    for (const PlanStep& step : plan.steps) {
      if (step.kind == StepKind::kCompute) break;
      hops += step.kind == StepKind::kPrefetch && step.src_tier == 2;
    }
    return hops;
  };
  SECTION("without a lead both hops go at the fetch: the device hop waits for nvme") {
    // Boundary 0: w0 nvme 0..100, ddr 100..200; w1 nvme 100..200, ddr 200..300; n0 200..300.
    // Each later fetch is issued as the compute stream reaches it: w2 at 300 (nvme 300..400,
    // ddr 400..500), w3 at 400 (..600); n1 300..400, n2 500..600, n3 600..700.
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(nvme_hops_before_compute(result.plan) == 2);
    CHECK(result.evaluation.timeline.makespan_ns == 700);
  }
  SECTION("staged two layers ahead: nvme reads run back to back from the start") {
    // Layer j's nvme hop goes at the start of visit j - 1 - 2: all four at boundary 0, nvme
    // 0..100, ..., 300..400. Device hops: w0 100..200, w1 200..300 (boundary 0), w2 300..400
    // (boundary 1: its stage and n0 done at 300), w3 400..500 (boundary 2). n0 200..300, n1
    // 300..400, n2 400..500, n3 500..600.
    options.stage_lead_layers = 2;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(nvme_hops_before_compute(result.plan) == 4);
    CHECK(result.evaluation.timeline.makespan_ns == 600);
  }
  SECTION("staged by room: as far ahead as ddr has room") {
    // Unbounded ddr: every staging hop fits at boundary 0, as with the lead of two (600 ns).
    options.stage_by_room = true;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(nvme_hops_before_compute(result.plan) == 4);
    CHECK(result.evaluation.timeline.makespan_ns == 600);
  }
}

TEST_CASE("streaming staged by room keeps the staged copies within the staging tier's room") {
  // The stage-lead chain above (four layers, 100 B weights homed on nvme behind ddr, 100 ns a
  // layer, lookahead 1) with ddr of 300 B. The reservations keep (1 channel into ddr + 1) x
  // 100 B for staging hops in flight, so the room is 100 B. A staged copy counts from its
  // staging hop's boundary through the step that reads it (the layout's view): w0 [0, 0],
  // w1 [0, 1] (fetched at 0), w2 [., 2] (fetched at 1), w3 [., 3] (fetched at 2).
  const Graph graph = LayerChain(4, 100);
  const HardwareProfile profile = NvmeBehindDdr(300);
  const auto context = BuildContenderContext(graph, profile, {100, 100, 100, 100});
  LayerStreamingOptions options;
  options.lookahead_layers = 1;
  options.resident_layers = 0;
  SECTION("a lead of two stages all four at boundary 0: 400 B of copies overflow ddr") {
    options.stage_lead_layers = 2;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    CHECK_FALSE(result.evaluation.fits);
  }
  SECTION("by room: each staging hop waits until the copies before it are read") {
    // w0 at 0 (100 B waiting). w1 would make 200 > 100; the room frees after step 0 reads
    // w0, but w1's fetch is at 0, which caps it: 0. w2: w1 is read at step 1, so 2, capped
    // by its fetch: 1. w3: w2 is read at step 2, so 3, capped: 2. At most two copies (200 B)
    // at any step: it fits. Times: nvme w0 0..100, w1 100..200; device w0 100..200, w1
    // 200..300; n0 200..300. Boundary 1 at 300: nvme w2 300..400, device 400..500; n1
    // 300..400. Boundary 2 at 400: nvme w3 400..500, device 500..600; n2 500..600; n3
    // 600..700.
    options.stage_by_room = true;
    const auto result = LayerStreamingPlan(context, std::nullopt, options);
    RequireVerified(graph, profile, result.plan, result.evaluation);
    CHECK(result.evaluation.fits);
    std::vector<Step> nvme_hop_boundaries;
    for (const PlanStep& step : result.plan.steps) {
      if (step.kind == StepKind::kPrefetch && step.src_tier == 2) {
        nvme_hop_boundaries.push_back(step.boundary);
      }
    }
    CHECK(nvme_hop_boundaries == std::vector<Step>{0, 0, 1, 2});
    CHECK(result.evaluation.timeline.makespan_ns == 700);
  }
}

TEST_CASE("streaming with a budget: the resident layers are searched on the arena alone") {
  // x (10 B, an input: resident throughout) -> pre -> big (200 B) -> n0(big, layers.0.w) -> a0
  // -> n1(a0, layers.1.w) -> a1 -> n2(a1, layers.2.w) -> a2; activations 10 B, weights 100 B
  // homed on nvme behind ddr of 150 B, 100 ns a node, lookahead 1: w0 fetched at boundary 0,
  // w1 at 1, w2 at 2. Arena: all three resident, step 1 holds x + big + 300 + a0 = 520 > 450;
  // with w2 streamed (or more), at most x + big + 200 + a0 = 420 (step 1).
  // ddr holds each staged copy from its fetch through the step that reads it: streaming all
  // three, w0 [0, 1], w1 [1, 2] and w2 [2, 3] put 200 B on ddr at steps 1 and 2; with w0
  // resident, w1 and w2 still put 200 B there at step 2; with w0 and w1 resident, 100 B: only
  // that plan fits both. Searched on "fits", the search saw none at 0 resident and stopped.
  Graph graph;
  const ValueId x = Input(graph, "x", 10);
  ValueId previous = Bytes(graph, "big", 200);
  Op(graph, "pre", "Work", {x}, {previous});
  for (int i = 0; i < 3; ++i) {
    const ValueId weight = Weight(graph, "layers." + std::to_string(i) + ".w", 100);
    const ValueId out = Bytes(graph, "a" + std::to_string(i), 10);
    Op(graph, "n" + std::to_string(i), "Work", {previous, weight}, {out});
    previous = out;
  }
  MarkOutput(graph, previous);
  const HardwareProfile profile = NvmeBehindDdr(150);
  const auto context = BuildContenderContext(graph, profile, {100, 100, 100, 100});
  LayerStreamingOptions options;
  options.lookahead_layers = 1;
  const auto result = LayerStreamingPlan(context, 450, options);
  RequireVerified(graph, profile, result.plan, result.evaluation);
  CHECK(result.evaluation.fits);
  CHECK(result.resident_layers == 2);
  // w2 alone streams: its two hops, nvme -> ddr and ddr -> hbm.
  CHECK(Fetched(graph, result.plan) == std::vector<std::string>{"layers.2.w", "layers.2.w"});
}

TEST_CASE("home-aware streaming keeps the values homed behind the staging tier first") {
  // Three layers: n_i(a_{i-1}, layers.i.w 100 B, past_key_values.i.key 200 B) -> a_i (10 B),
  // x (10 B) feeding n0, 100 ns a node. The weights are homed on nvme (behind ddr), the KV
  // cache in ddr (its cheapest round trip, one hop).
  Graph graph;
  ValueId previous = Input(graph, "x", 10);
  for (int i = 0; i < 3; ++i) {
    const ValueId weight = Weight(graph, "layers." + std::to_string(i) + ".w", 100);
    const ValueId kv = Input(graph, "past_key_values." + std::to_string(i) + ".key", 200);
    graph.values[kv].value_class = ValueClass::kKvCache;
    const ValueId out = Bytes(graph, "a" + std::to_string(i), 10);
    Op(graph, "n" + std::to_string(i), "Work", {previous, weight, kv}, {out});
    previous = out;
  }
  MarkOutput(graph, previous);
  const HardwareProfile profile = NvmeBehindDdr();
  const auto context = BuildContenderContext(graph, profile, {100, 100, 100});
  LayerStreamingOptions options;
  options.lookahead_layers = 0;
  options.stream_state = true;
  // Streaming everything, step i holds x, a_{i-1}, a_i and layer i (w_i + kv_i = 300):
  // 10 + 10 + 10 + 300 = 330 at most. With the weights alone streamed the 600 B of KV stay
  // and step 1 holds 730, over the 550 B budget, so the KV cache streams too.
  // Leading: layer 0 resident adds w0 + kv0 = 300 at steps 1 and 2: 630 > 550, so no layer
  // stays and every weight crosses nvme each iteration (3 x 100 B).
  // Home-aware keeps w0, w1, w2 (nvme-homed) first, then kv0: the three weights add 200 at
  // each step (the two not read there): 530 <= 550; with kv0 too, step 1 holds 730. Laid out,
  // x and the weights sit under the KV blocks (200, one step each, at offset 0) and the
  // activations (a0 at 200 over steps 0-1, a1 at 210 over 1-2, a2 at 200): 310 + 220 = 530.
  auto nvme_bytes = [&](const EvaluatedPlan& planned) {
    return planned.evaluation.timeline.bytes_moved_per_link[2];
  };
  const auto leading = LayerStreamingPlan(context, 550, options);
  RequireVerified(graph, profile, leading.plan, leading.evaluation);
  REQUIRE(leading.evaluation.fits);
  CHECK(leading.resident_layers == 0);
  CHECK(nvme_bytes(leading) == 300);
  options.slow_homes_resident = true;
  const auto home_aware = LayerStreamingPlan(context, 550, options);
  RequireVerified(graph, profile, home_aware.plan, home_aware.evaluation);
  REQUIRE(home_aware.evaluation.fits);
  CHECK(nvme_bytes(home_aware) == 0);
  CHECK(Fetched(graph, home_aware.plan) == std::vector<std::string>{"past_key_values.0.key",
                                                                    "past_key_values.1.key",
                                                                    "past_key_values.2.key"});
  CHECK(home_aware.plan.layout.arena_bytes == 530);
  CHECK(home_aware.resident_layers == 0);  // every layer streams its KV
}

}  // namespace
}  // namespace hyperplan::contenders_test
