// Profiles in plan files, and matching a plan to another profile (see profile_proto.h).
#include "planio/profile_proto.h"

#include <algorithm>

#include "hyperplan/error.h"
#include "hyperplan/plan/plan.h"
#include "planio/proto_enums.h"

namespace hyperplan::planio {
namespace {

bool InRange(int32_t index, int size) { return index >= 0 && index < size; }

std::string LinkName(const pb::Plan& plan, const pb::Link& link) {
  auto tier = [&](int32_t index) {
    return InRange(index, plan.tiers_size()) ? plan.tiers(index).name() : std::string("?");
  };
  return tier(link.from_tier()) + "->" + tier(link.to_tier());
}

}  // namespace

void ProfileToProto(const HardwareProfile& profile, pb::Plan& plan) {
  for (const Tier& tier : profile.tiers) {
    pb::Tier* out = plan.add_tiers();
    out->set_name(tier.name);
    out->set_capacity_bytes(tier.capacity_bytes);
    out->set_is_device(tier.is_device);
    out->set_alignment_bytes(tier.alignment_bytes);
  }
  const StreamNumbering streams(profile);
  for (size_t l = 0; l < profile.links.size(); ++l) {
    const Link& link = profile.links[l];
    pb::Link* out = plan.add_links();
    out->set_from_tier(link.from);
    out->set_to_tier(link.to);
    out->set_bandwidth_bytes_per_s(link.bandwidth_bytes_per_s);
    out->set_latency_ns(link.latency_ns);
    out->set_channels(link.channels);
    for (int32_t c = 0; c < streams.channel_count(static_cast<int32_t>(l)); ++c) {
      pb::CopyStream* stream = plan.add_streams();
      stream->set_id(streams.Of(static_cast<int32_t>(l), c));
      stream->set_link(static_cast<int32_t>(l));
      stream->set_channel(c);
      stream->set_name(profile.tiers[link.from].name + "->" + profile.tiers[link.to].name + "#" +
                       std::to_string(c));
    }
  }
  pb::Profile* out = plan.mutable_provenance()->mutable_profile();
  out->set_name(profile.name);
  out->set_source(profile.source);
  out->set_device_tier(profile.device_tier);
  out->set_weight_home_tier(profile.weight_home_tier);
  pb::Compute* compute = out->mutable_compute();
  for (const auto& [dtype, flops_per_s] : profile.compute.peak_flops_per_s) {
    pb::PeakFlops* peak = compute->add_peak();
    peak->set_dtype(std::string(DTypeName(dtype)));
    peak->set_flops_per_s(flops_per_s);
  }
  compute->set_memory_bandwidth_bytes_per_s(profile.compute.memory_bandwidth_bytes_per_s);
  compute->set_efficiency_ppm(profile.compute.efficiency_ppm);
  compute->set_kernel_launch_overhead_ns(profile.compute.kernel_launch_overhead_ns);
  compute->set_fuse_attention(profile.compute.fuse_attention);
  compute->set_memory_efficiency_ppm(profile.compute.memory_efficiency_ppm);
  compute->set_graph_launch(profile.compute.launch_mode == LaunchMode::kGraph);
  compute->set_graph_kernel_overhead_ns(profile.compute.graph_kernel_overhead_ns);
  for (const ClassRule& rule : profile.class_rules) {
    pb::ClassRule* entry = out->add_class_rules();
    entry->set_value_class(ToProto(rule.value_class));
    entry->set_regex(rule.regex);
  }
}

namespace {

// The host unit a plan that runs steps on the host recorded (plan.proto HostLane).
template <typename Fail>
HostComputeSpec HostFromProto(const pb::Plan& plan, const Fail& fail) {
  const pb::HostLane& lane = plan.host_lane();
  if (!InRange(lane.memory_tier(), plan.tiers_size()) ||
      plan.tiers(lane.memory_tier()).is_device()) {
    fail("host_lane.memory_tier does not name a tier off the device");
  }
  if (lane.sockets() < 1) fail("host_lane.sockets must be at least 1");
  HostComputeSpec host;
  host.memory_tier = lane.memory_tier();
  host.sockets = lane.sockets();
  host.cores_per_socket = lane.cores_per_socket();
  for (const pb::PeakFlops& peak : lane.peak()) {
    const std::optional<DType> dtype = ParseDType(peak.dtype());
    if (!dtype) fail("host_lane.peak: unknown element type '" + peak.dtype() + "'");
    host.peak_flops_per_s[*dtype] = peak.flops_per_s();
  }
  host.memory_bandwidth_bytes_per_s = lane.memory_bandwidth_bytes_per_s();
  host.efficiency_ppm = lane.efficiency_ppm();
  host.memory_efficiency_ppm = lane.memory_efficiency_ppm();
  host.share_ppm = lane.share_ppm();
  host.op_overhead_ns = lane.op_overhead_ns();
  return host;
}

}  // namespace

HardwareProfile ProfileFromProto(const pb::Plan& plan, const std::string& plan_path) {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::kPlanFile, plan_path + ": " + what);
  };
  const pb::Profile& in = plan.provenance().profile();
  HardwareProfile profile;
  profile.name = in.name();
  profile.source = in.source() + " (as recorded in " + plan_path + ")";
  for (const pb::Tier& tier : plan.tiers()) {
    profile.tiers.push_back({tier.name(), tier.capacity_bytes(), tier.is_device(),
                             std::max<int64_t>(1, tier.alignment_bytes())});
  }
  const int tier_count = plan.tiers_size();
  for (int l = 0; l < plan.links_size(); ++l) {
    const pb::Link& link = plan.links(l);
    if (!InRange(link.from_tier(), tier_count) || !InRange(link.to_tier(), tier_count)) {
      fail("links[" + std::to_string(l) + "] names a tier that is not in tiers");
    }
    profile.links.push_back({link.from_tier(), link.to_tier(), link.bandwidth_bytes_per_s(),
                             link.latency_ns(), link.channels()});
  }
  if (!InRange(in.device_tier(), tier_count) || !plan.tiers(in.device_tier()).is_device()) {
    fail("provenance.profile.device_tier does not name the device tier");
  }
  profile.device_tier = in.device_tier();
  if (in.weight_home_tier() != kNoTier && !InRange(in.weight_home_tier(), tier_count)) {
    fail("provenance.profile.weight_home_tier is not in tiers");
  }
  profile.weight_home_tier = in.weight_home_tier();
  for (const pb::PeakFlops& peak : in.compute().peak()) {
    const std::optional<DType> dtype = ParseDType(peak.dtype());
    if (!dtype)
      fail("provenance.profile.compute.peak: unknown element type '" + peak.dtype() + "'");
    profile.compute.peak_flops_per_s[*dtype] = peak.flops_per_s();
  }
  if (plan.has_host_lane()) profile.host_compute = HostFromProto(plan, fail);
  profile.compute.memory_bandwidth_bytes_per_s = in.compute().memory_bandwidth_bytes_per_s();
  profile.compute.efficiency_ppm = in.compute().efficiency_ppm();
  profile.compute.kernel_launch_overhead_ns = in.compute().kernel_launch_overhead_ns();
  profile.compute.fuse_attention = in.compute().fuse_attention();
  if (in.compute().memory_efficiency_ppm() > 0) {
    profile.compute.memory_efficiency_ppm = in.compute().memory_efficiency_ppm();
  }
  profile.compute.launch_mode =
      in.compute().graph_launch() ? LaunchMode::kGraph : LaunchMode::kEager;
  profile.compute.graph_kernel_overhead_ns = in.compute().graph_kernel_overhead_ns();
  for (const pb::ClassRule& rule : in.class_rules()) {
    const std::optional<ValueClass> value_class = FromProto(rule.value_class());
    if (!value_class) fail("provenance.profile.class_rules: unknown value class");
    profile.class_rules.push_back({*value_class, rule.regex()});
  }
  return profile;
}

ProfileMapping MapProfile(const pb::Plan& plan, const std::string& plan_path,
                          const HardwareProfile& profile) {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::kProfile, profile.source + ": " + what);
  };
  ProfileMapping mapping;
  mapping.tier.assign(plan.tiers_size(), kNoTier);
  mapping.link.assign(plan.links_size(), -1);
  for (int t = 0; t < plan.tiers_size(); ++t) {
    const pb::Tier& tier = plan.tiers(t);
    if (!tier.used() && !tier.is_device()) continue;
    const TierId found = profile.FindTier(tier.name());
    if (found == kNoTier) {
      fail("has no tier '" + tier.name() + "', which " + plan_path + " uses");
    }
    if (tier.is_device() != profile.tiers[found].is_device) {
      const std::string device = profile.device_tier >= 0 ? profile.tiers[profile.device_tier].name
                                                          : std::string("(none)");
      fail("its device tier is '" + device + "', but " + plan_path + " plans for device '" +
           plan.tiers(plan.provenance().profile().device_tier()).name() + "'");
    }
    mapping.tier[t] = found;
  }
  for (int l = 0; l < plan.links_size(); ++l) {
    const pb::Link& link = plan.links(l);
    if (!link.used()) continue;
    const bool ends_known = InRange(link.from_tier(), plan.tiers_size()) &&
                            InRange(link.to_tier(), plan.tiers_size()) &&
                            mapping.tier[link.from_tier()] != kNoTier &&
                            mapping.tier[link.to_tier()] != kNoTier;
    const Link* found =
        ends_known ? profile.FindLink(mapping.tier[link.from_tier()], mapping.tier[link.to_tier()])
                   : nullptr;
    if (found == nullptr) {
      fail("has no link " + LinkName(plan, link) + ", which " + plan_path + " uses");
    }
    mapping.link[l] = static_cast<int32_t>(found - profile.links.data());
  }
  return mapping;
}

}  // namespace hyperplan::planio
