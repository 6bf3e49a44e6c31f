// The hardware profile in a plan file, and the plan's tiers and links on another profile.
//
// A plan records the whole profile it was made for (tiers, links, copy streams, compute,
// placement, class rules), so `verify` can re-check it without the YAML and `simulate` can
// replay it elsewhere. Tiers are matched by name and links by their two tiers' names, never by
// position, so a profile that lists its tiers in another order still matches.
// Cost: O(tiers * links). Limits: a link is matched by its ends only; two links with the same
// ends (not allowed by the YAML schema) would match the first.
#pragma once

#include <string>
#include <vector>

#include "hyperplan/hardware.h"
#include "schemas/plan.pb.h"

namespace hyperplan::planio {

// Fills plan.tiers, plan.links, plan.streams (numbered by StreamNumbering, plan.h) and
// plan.provenance.profile (the `used` flags are left for the caller, which knows the plan).
void ProfileToProto(const HardwareProfile& profile, plan::v1::Plan& plan);

// The profile a plan was made for. Error(kPlanFile, "<plan_path>: ...") when its indices are
// out of range.
HardwareProfile ProfileFromProto(const plan::v1::Plan& plan, const std::string& plan_path);

struct ProfileMapping {
  std::vector<TierId> tier;   // plan tier index -> the profile's tier, kNoTier when unused
  std::vector<int32_t> link;  // plan link index -> the profile's link, -1 when unused
};

// Maps the plan's used tiers and links onto `profile`. Error(kProfile, "<profile.source>: ...")
// when the profile lacks a tier or link the plan uses, or its device is another tier.
ProfileMapping MapProfile(const plan::v1::Plan& plan, const std::string& plan_path,
                          const HardwareProfile& profile);

}  // namespace hyperplan::planio
