// The sections of a profile document (schemas/profile.md), each read into the profile being
// built. Every reader reports all it finds wrong and fills in what it could read, so later
// sections still get checked; the caller throws once at the end if anything was reported.
//
// Order matters: links and placement look tiers up by name, so tiers are read first.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "hyperplan/hardware.h"
#include "profile/diagnostics.h"
#include "profile/yaml_fields.h"

namespace hyperplan::profile {

// The whole document: top-level keys, then each section in order. Sets everything but
// `source`.
HardwareProfile ReadProfileDocument(const Field& root, Diagnostics& diagnostics);

// tiers: fills profile.tiers and, when exactly one tier is the device, profile.device_tier.
// Returns false when some tier could not be read completely, so that checks depending on the
// whole table (how many device tiers) would only guess.
bool ReadTiers(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics);

// links: appends to profile.links (two links for an entry with reverse_bandwidth). Returns
// false when some entry's endpoints could not be resolved.
bool ReadLinks(const Field& field, HardwareProfile& profile, Diagnostics& diagnostics);

// compute: peaks per element type, memory bandwidth, efficiency and launch overhead.
void ReadCompute(const Field& field, ComputeSpec& compute, Diagnostics& diagnostics);

// host_compute (nullptr when absent: profile.host_compute stays empty, sockets 0): the host's
// CPUs as a compute unit, their figures per socket and the tier they compute from.
void ReadHostCompute(const Field* field, HardwareProfile& profile, Diagnostics& diagnostics);

// A peak table (`compute.peak`, `host_compute.peak`): element type -> positive FLOP/s, each
// type once (aliases count as the type they name), at least one entry.
void ReadPeakTable(const Field& field, std::map<DType, int64_t>& peaks, Diagnostics& diagnostics);

// A fraction in (0, 1], exactly, in parts per million; nullopt (reported) otherwise.
std::optional<int64_t> ReadFraction(const Field& field, Diagnostics& diagnostics);

// placement (nullptr when absent): sets profile.weight_home_tier, explicitly or by default.
// `topology_complete` says whether tiers and links were read without problems; when not, the
// checks that need the full link table are skipped rather than guessed.
void ReadPlacement(const Field* field, bool topology_complete, HardwareProfile& profile,
                   Diagnostics& diagnostics);

// classes: user classification rules in document order.
void ReadClasses(const Field& field, std::vector<ClassRule>& rules, Diagnostics& diagnostics);

// "hbm, ddr, nvme": the tier names, for "unknown tier" messages.
std::string TierNameList(const HardwareProfile& profile);

}  // namespace hyperplan::profile
