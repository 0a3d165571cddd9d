// Which ScaLAPACK calls take the GPU path (capi/distributed_rules.h): each rule that sends a
// call to ScaLAPACK's own routine, one at a time, from a call that takes the GPU path.
#include <cstdio>

#include "capi/distributed_rules.h"
#include "tests/harness/check.h"

using cudrop::Descriptor;
using cudrop::Mode;
using cudrop::capi::DistributedCall;
using cudrop::capi::distributed_candidate;
using cudrop::capi::distributed_fit;
using cudrop::capi::getrf_covered;
using cudrop::capi::potrf_covered;

int main() {
  // n = 8192 in blocks of 256 on a 2 x 2 grid, process (1, 0): 4096 local rows.
  const Descriptor desc{1, 0, 8192, 8192, 256, 256, 0, 0, 4096};
  const DistributedCall gpu{Mode::Auto, 4096, true, 8192, desc, 2, 2, 1, 0};
  CHECK(distributed_candidate(gpu) && distributed_fit(gpu), "the base call takes the GPU path");

  auto with = [&](auto change) {
    DistributedCall c = gpu;
    change(c);
    return c;
  };
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.mode = Mode::Cpu; })), "cpu mode");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.order = 4095; })), "auto mode below the threshold");
  CHECK(distributed_candidate(with([](DistributedCall &c) { c.order = 1, c.mode = Mode::Gpu; })),
        "forced GPU: any order");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.covered = false; })), "arguments not covered");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.myrow = c.mycol = -1; })), "not in the grid");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.desc.dtype = 501; })), "not a dense descriptor");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.desc.mb = 128; })), "MB != NB");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.desc.nb = c.desc.mb = 0; })), "NB = 0");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.desc.rsrc = 2; })), "RSRC outside the grid");
  CHECK(!distributed_candidate(with([](DistributedCall &c) { c.desc.csrc = -1; })), "CSRC outside the grid");
  // LLD is this process's own: it stays a candidate (every process still decides alike), unfit.
  const DistributedCall short_lld = with([](DistributedCall &c) { c.desc.lld = 4095; });
  CHECK(distributed_candidate(short_lld) && !distributed_fit(short_lld), "LLD below the local rows");
  CHECK(distributed_fit(with([](DistributedCall &c) { c.desc.lld = 5000; })), "LLD above the local rows");

  CHECK(potrf_covered('L', 8192, 1, 1, desc) && potrf_covered('U', 100, 1, 1, desc), "p?potrf covered");
  CHECK(!potrf_covered('X', 8192, 1, 1, desc), "p?potrf: UPLO");
  CHECK(!potrf_covered('L', 0, 1, 1, desc), "p?potrf: n = 0 (ScaLAPACK's quick return)");
  CHECK(!potrf_covered('L', 100, 257, 1, desc) && !potrf_covered('L', 100, 1, 2, desc), "p?potrf: IA, JA");
  CHECK(!potrf_covered('L', 8193, 1, 1, desc), "p?potrf: n past the matrix");
  CHECK(getrf_covered(8192, 100, 1, 1, desc) && getrf_covered(7, 8192, 1, 1, desc), "p?getrf covered");
  CHECK(!getrf_covered(0, 5, 1, 1, desc) && !getrf_covered(5, 0, 1, 1, desc), "p?getrf: m or n = 0");
  CHECK(!getrf_covered(8193, 5, 1, 1, desc) && !getrf_covered(5, 8193, 1, 1, desc), "p?getrf: past the matrix");
  CHECK(!getrf_covered(5, 5, 2, 1, desc) && !getrf_covered(5, 5, 1, 3, desc), "p?getrf: IA, JA");
  std::printf("distributed decisions: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
