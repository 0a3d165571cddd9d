#!/usr/bin/env python3
"""Compares two bench.txt files of scripts/gpu-check (a baseline tree and this one, measured in
the same lease) and says which of cudrop's timings moved by more than a tolerance.

    bench-compare.py BEFORE AFTER [--tolerance 0.03]

Each record is matched by its kind and shape (the words of its line and the fields that name a
shape: m, n, k, beta, rows, ...). For each of cudrop's times in it (the fields cudrop_*ms*,
cudrop_us, e2e_ms, or `seconds` on a cudrop_gpu/cudrop_auto line) it prints before, after and
the change, next to the change of the reference timed in the same record (cuBLAS, cuSOLVER,
cuSPARSE, the CPU BLAS): a move that the reference shares is the machine's, not cudrop's.
Exit status 0 always: the verdict is the printed list, read with the noise beside it."""
import re
import sys
from collections import defaultdict

SHAPE_FIELDS = ("m", "n", "k", "beta", "rows", "nnz_per_row", "matrix", "maxit", "mode", "loaded", "n1", "n2")
PEER_PREFIXES = ("cublas_", "cusolver_", "peer_", "direct_")


def parse(path):
    records = defaultdict(list)
    for line in open(path, errors="replace"):
        tokens = line.split()
        if not tokens or tokens[0].startswith("#") or tokens[0] in ("cudrop:", "device:"):
            continue
        fields = dict(re.findall(r"(\w+)=([^\s]+)", line))
        words = [t for t in tokens if "=" not in t]
        key = " ".join(words + [f"{f}={fields[f]}" for f in SHAPE_FIELDS if f in fields])
        records[key].append((words[0] if words else "", fields))
    return records


def is_time(name):
    return name.endswith("_ms") or name.endswith("_ms_per_iter") or name.endswith("_us") or name == "seconds"


def times(head, fields):
    """(cudrop's times, the reference's times) of one record, as name -> seconds-like value."""
    ours, peer = {}, {}
    for name, text in fields.items():
        try:
            value = float(text)
        except ValueError:
            continue
        if not is_time(name) or value <= 0:
            continue
        if name == "seconds":
            (ours if head.startswith("cudrop_") else peer)[name] = value
        elif name.startswith("cudrop_") or name == "e2e_ms":
            ours[name] = value
        elif name.startswith(PEER_PREFIXES) or name == "cpu_ms":
            peer[name] = value
    return ours, peer


def main(argv):
    tolerance = 0.03
    if "--tolerance" in argv:
        i = argv.index("--tolerance")
        tolerance = float(argv[i + 1])
        del argv[i:i + 2]
    before, after = parse(argv[0]), parse(argv[1])
    rows, outside = [], []
    for key in before:
        for index, ((head, fb), (_, fa)) in enumerate(zip(before[key], after.get(key, []))):
            ours_b, peer_b = times(head, fb)
            ours_a, peer_a = times(head, fa)
            peer_changes = [peer_a[p] / peer_b[p] - 1 for p in peer_b if p in peer_a]
            peer = f"{peer_changes[0] * 100:+6.1f}%" if peer_changes else "      -"
            for name in ours_b:
                if name not in ours_a:
                    continue
                change = ours_a[name] / ours_b[name] - 1
                label = f"{key}{' #' + str(index + 1) if len(before[key]) > 1 else ''} {name}"
                flag = "" if abs(change) <= tolerance else "  <-- outside"
                rows.append(f"  {label:<78} {ours_b[name]:>11.4g} {ours_a[name]:>11.4g} {change * 100:+6.1f}%  ref {peer}{flag}")
                if flag:
                    outside.append((label, change, peer_changes[0] if peer_changes else None))
    print(f"cudrop times, before -> after (positive change = slower), tolerance {tolerance * 100:.0f}%:")
    print("\n".join(rows))
    missing = sorted(set(before) ^ set(after))
    if missing:
        print(f"  records in only one of the two files: {len(missing)} ({'; '.join(missing[:6])}{' ...' if len(missing) > 6 else ''})")
    print(f"bench-compare: {len(rows)} times, {len(rows) - len(outside)} within {tolerance * 100:.0f}%, "
          f"{len(outside)} outside" + (":" if outside else ""))
    for label, change, peer in outside:
        print(f"  {label}: {change * 100:+.1f}% (reference in the same record: "
              f"{'-' if peer is None else f'{peer * 100:+.1f}%'})")


if __name__ == "__main__":
    main(sys.argv[1:])
