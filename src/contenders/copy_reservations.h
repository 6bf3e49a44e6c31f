// CopyReservations: room on the tiers off the device for the copies a contender makes, so that
// no contender plans more than a host tier holds (docs/design.md invariant 2 applies to every
// tier).
//
// A value's off-device copy (its home copy, once the value leaves the device; its stored copy
// otherwise) is reserved on its tier for the whole run before the policy relies on it; a
// reservation that would overflow the tier is refused and the policy must keep the value on
// the device (or pick another). Conservative: reservations are never released, so a copy that
// a plan frees early still counts. Staging copies between hops live for one hop; each tier
// that stages keeps room for (channels into it + 1) copies of the largest value staged there,
// which covers the transfers one boundary puts in flight but not an unbounded backlog (the
// benchmark reports a tier that overflows anyway).
// Cost: O(1) per query. Limits: capacity <= 0 means unbounded, as in the verifier.
#pragma once

#include <cstdint>
#include <vector>

#include "contenders/context.h"

namespace hyperplan::contenders {

class CopyReservations {
 public:
  explicit CopyReservations(const ContenderContext& context);

  // Whether `value` has (or now gets) room for its copy off the device.
  bool Reserve(ValueId value);
  bool Reserved(ValueId value) const { return reserved_[value] != 0; }
  // The room left on `tier` once the reservations so far and the staging slack are counted
  // (INT64_MAX when the tier is unbounded).
  int64_t FreeBytes(TierId tier) const;

 private:
  const ContenderContext& context_;
  std::vector<int64_t> used_bytes_;  // by TierId
  std::vector<uint8_t> reserved_;    // by ValueId
};

}  // namespace hyperplan::contenders
