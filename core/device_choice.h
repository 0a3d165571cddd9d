#pragma once
// Which GPU a process uses: CUDROP_DEVICE when set, else the node-local rank an MPI launcher
// gives it modulo the visible devices (ranks of a node spread over its GPUs without any
// configuration), else device 0. Pure functions over a variable lookup, so that the rules are
// tested with faked environments (tests/settings/device_choice_test.cpp).
#include <cstdlib>
#include <string>
#include <vector>

namespace cudrop::env {

// The node-local rank and size set by the launchers people use: Open MPI, MVAPICH2, Intel MPI /
// MPICH (Hydra), PMI, Slurm's srun, PALS (Cray). The first variable set, in this order, wins.
struct LauncherVariable {
  const char *rank, *size;
};
constexpr LauncherVariable kLauncherVariables[] = {
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},
    {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
};

struct LocalRank {
  int rank = -1;               // -1: not started by a launcher cudrop knows
  int size = 0;                // ranks on this node, 0 when the launcher does not say
  const char *variable = nullptr;  // the variable the rank came from
};

// A whole number >= 0 that fits an int, else -1.
inline int launcher_number(const char *text) {
  if (text == nullptr || *text == '\0') return -1;
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (*end == '\0' && value >= 0 && value <= 0x7fffffff) ? static_cast<int>(value) : -1;
}

// lookup: getenv, or a fake in tests.
template <class Lookup> LocalRank local_rank(Lookup &&lookup) {
  LocalRank found;
  for (const LauncherVariable &v : kLauncherVariables) {
    const int rank = launcher_number(lookup(v.rank));
    if (rank < 0) continue;
    found.rank = rank;
    found.variable = v.rank;
    const int size = launcher_number(lookup(v.size));
    found.size = size > 0 ? size : 0;
    break;
  }
  return found;
}
// The process's own launcher variables; none in a secure-execution process (secure_getenv).
inline LocalRank local_rank() {
  return local_rank([](const char *name) -> const char * { return secure_getenv(name); });
}

struct DeviceChoice {
  int device = 0;
  std::string rule;  // for the verbose start-up line: why this device
};

// cudrop_device: CUDROP_DEVICE's value, -1 when unset. count: visible devices (> 0).
inline DeviceChoice choose_device(int cudrop_device, int count, const LocalRank &rank) {
  if (cudrop_device >= 0) return {cudrop_device, "CUDROP_DEVICE=" + std::to_string(cudrop_device)};
  if (rank.rank >= 0 && count > 0)
    return {rank.rank % count, std::string(rank.variable) + "=" + std::to_string(rank.rank) + " mod " +
                                   std::to_string(count) + (count == 1 ? " device" : " devices")};
  return {0, "the first device (neither CUDROP_DEVICE nor an MPI launcher's local rank is set)"};
}

// The devices a process uses (CUDROP_DEVICES), the first one the device of every call that runs
// on one (LU, Cholesky, calls too small to split).
struct DeviceSet {
  std::vector<int> devices;
  std::string rule;       // for the verbose start-up line
  std::string expected;   // non-empty: listed indices were dropped; the warning's "is not ..."
  std::string instead;    // and its "using ..."
};

// all / listed: CUDROP_DEVICES ("all", or `listed_count` distinct indices; neither: unset).
// count: visible devices (> 0). chosen: the one device of today's rule (choose_device).
// "all": the chosen device first, then the others in order, so that ranks of a node started
// with CUDROP_DEVICES=all still lead on distinct devices. A list: its indices in its order,
// those beyond the devices there are dropped with a warning; none left: the chosen device.
inline DeviceSet choose_devices(bool all, const int *listed, int listed_count, int count, const DeviceChoice &chosen) {
  DeviceSet set;
  if (all && count > 0 && chosen.device < count) {
    set.devices.push_back(chosen.device);
    for (int d = 0; d < count; ++d)
      if (d != chosen.device) set.devices.push_back(d);
    set.rule = "CUDROP_DEVICES=all, led by " + std::to_string(chosen.device) + " (" + chosen.rule + ")";
    return set;
  }
  std::string kept;
  for (int i = 0; i < listed_count; ++i) {
    if (listed[i] < 0 || listed[i] >= count) continue;
    set.devices.push_back(listed[i]);
    kept += (kept.empty() ? "" : ",") + std::to_string(listed[i]);
  }
  if (listed_count > 0 && int(set.devices.size()) < listed_count) {
    set.expected = "a list of device indices from 0 to " + std::to_string(count - 1);
    set.instead = set.devices.empty() ? "device " + std::to_string(chosen.device) + " (" + chosen.rule + ")" : kept;
  }
  if (set.devices.empty()) {
    set.devices.push_back(chosen.device);
    set.rule = chosen.rule;
  } else {
    set.rule = "CUDROP_DEVICES=" + kept;
  }
  return set;
}

}  // namespace cudrop::env
