// device_choice: which GPU a process takes (core/device_choice.h), over faked environments and
// device counts: CUDROP_DEVICE wins; else an MPI launcher's node-local rank modulo the visible
// devices, from each launcher cudrop knows; else device 0. No GPU needed.
#include <map>
#include <string>
#include <vector>

#include "core/device_choice.h"
#include "tests/harness/check.h"

namespace {

using Environment = std::map<std::string, std::string>;

cudrop::env::LocalRank rank_in(const Environment &environment) {
  return cudrop::env::local_rank([&](const char *name) -> const char * {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
}

int device_for(int cudrop_device, int count, const Environment &environment) {
  return cudrop::env::choose_device(cudrop_device, count, rank_in(environment)).device;
}

}  // namespace

int main() {
  using cudrop::env::choose_device;
  // Nothing set: device 0, and the rule says why.
  CHECK(device_for(-1, 4, {}) == 0, "no settings: device %d", device_for(-1, 4, {}));
  CHECK(choose_device(-1, 4, rank_in({})).rule.find("neither") != std::string::npos, "rule for the default");

  // Each launcher's variable, rank 5 of 8 on a node with 4 GPUs: device 1; with 1 GPU: 0.
  for (const auto &v : cudrop::env::kLauncherVariables) {
    const Environment environment = {{v.rank, "5"}, {v.size, "8"}};
    CHECK(device_for(-1, 4, environment) == 1, "%s=5, 4 devices: device %d", v.rank, device_for(-1, 4, environment));
    CHECK(device_for(-1, 1, environment) == 0, "%s=5, 1 device: device %d", v.rank, device_for(-1, 1, environment));
    const cudrop::env::LocalRank r = rank_in(environment);
    CHECK(r.rank == 5 && r.size == 8 && std::string(r.variable) == v.rank, "%s: rank %d size %d", v.rank, r.rank,
          r.size);
    const std::string rule = choose_device(-1, 4, r).rule;
    CHECK(rule == std::string(v.rank) + "=5 mod 4 devices", "%s: rule '%s'", v.rank, rule.c_str());
  }
  // Ranks 0..7 of a node with 4 GPUs: two ranks per device, every device used.
  int per_device[4] = {0, 0, 0, 0};
  for (int rank = 0; rank < 8; ++rank)
    ++per_device[device_for(-1, 4, {{"OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(rank)}})];
  CHECK(per_device[0] == 2 && per_device[1] == 2 && per_device[2] == 2 && per_device[3] == 2,
        "8 ranks over 4 devices: %d %d %d %d", per_device[0], per_device[1], per_device[2], per_device[3]);

  // CUDROP_DEVICE wins over any launcher variable (and may name a device that is not there:
  // the caller reports that).
  CHECK(device_for(2, 4, {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}) == 2, "CUDROP_DEVICE=2 with a local rank");
  CHECK(device_for(7, 4, {}) == 7, "CUDROP_DEVICE=7 kept as given");
  CHECK(choose_device(2, 4, rank_in({})).rule == "CUDROP_DEVICE=2", "rule for CUDROP_DEVICE");

  // The first launcher in the list wins when several are set (srun inside mpirun, say); values
  // that are not whole numbers >= 0 are skipped.
  CHECK(device_for(-1, 4, {{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}, {"SLURM_LOCALID", "2"}}) == 3, "Open MPI before Slurm");
  CHECK(device_for(-1, 4, {{"OMPI_COMM_WORLD_LOCAL_RANK", "x"}, {"SLURM_LOCALID", "2"}}) == 2, "a bad value skipped");
  CHECK(device_for(-1, 4, {{"PMI_LOCAL_RANK", "-1"}}) == 0, "negative rank ignored");
  CHECK(device_for(-1, 4, {{"PMI_LOCAL_RANK", ""}}) == 0, "empty rank ignored");
  CHECK(device_for(-1, 4, {{"PMI_LOCAL_RANK", "99999999999"}}) == 0, "rank past INT_MAX ignored");
  CHECK(rank_in({{"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "none"}}).size == 0, "unreadable size: 0");

  // CUDROP_DEVICES (choose_devices): unset keeps the one chosen device.
  using cudrop::env::choose_devices;
  using Set = std::vector<int>;
  const cudrop::env::DeviceChoice rank3 = choose_device(-1, 4, rank_in({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}));
  CHECK(choose_devices(false, nullptr, 0, 4, rank3).devices == Set({3}), "unset: the chosen device only");
  CHECK(choose_devices(false, nullptr, 0, 4, rank3).expected.empty(), "unset: no warning");
  // all: the chosen device leads, the others follow in order.
  CHECK(choose_devices(true, nullptr, 0, 4, rank3).devices == Set({3, 0, 1, 2}), "all, rank 3: 3 0 1 2");
  CHECK(choose_devices(true, nullptr, 0, 2, choose_device(-1, 2, rank_in({}))).devices == Set({0, 1}), "all: 0 1");
  CHECK(choose_devices(true, nullptr, 0, 1, choose_device(-1, 1, rank_in({}))).devices == Set({0}), "all, 1 GPU");
  // A list: in its order, the first one leading (over CUDROP_DEVICE and the local rank).
  const int list10[] = {1, 0};
  CHECK(choose_devices(false, list10, 2, 4, rank3).devices == Set({1, 0}), "1,0: 1 0");
  CHECK(choose_devices(false, list10, 2, 4, rank3).rule == "CUDROP_DEVICES=1,0", "rule for a list");
  // Indices beyond the devices there are: dropped, with the warning's text; none left: the
  // chosen device.
  const int list05[] = {0, 5, 1};
  const cudrop::env::DeviceSet dropped = choose_devices(false, list05, 3, 2, choose_device(-1, 2, rank_in({})));
  CHECK(dropped.devices == Set({0, 1}), "0,5,1 on 2 GPUs: 0 1");
  CHECK(dropped.expected == "a list of device indices from 0 to 1" && dropped.instead == "0,1",
        "0,5,1 on 2 GPUs: warning '%s' / '%s'", dropped.expected.c_str(), dropped.instead.c_str());
  const int list7[] = {7};
  const cudrop::env::DeviceSet none = choose_devices(false, list7, 1, 2, choose_device(-1, 2, rank_in({})));
  CHECK(none.devices == Set({0}) && none.instead.rfind("device 0 (", 0) == 0, "7 on 2 GPUs: device 0, '%s'",
        none.instead.c_str());

  std::printf("device_choice: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
