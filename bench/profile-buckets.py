#!/usr/bin/env python3
"""Sums a perf profile's self time by part of the server, in µs per sale.

Usage: bench/profile-buckets.py PERF_DATA CORES PLAYS_PER_SECOND
(CORES and PLAYS_PER_SECOND from the same run's bench log: bench/profile-sale.sh.)
"""
import subprocess
import sys

BUCKETS = [
    ("kernel: scheduling, wake-ups", lambda dso, s: dso.startswith("[kernel") and any(
        k in s for k in ("task_switch", "spin_unlock", "schedule", "futex", "wake", "irqentry", "enqueue", "dequeue"))),
    ("kernel: network and files", lambda dso, s: dso.startswith("[kernel")),
    ("Ed25519 signing (curve25519, SHA-512)", lambda dso, s: "curve25519" in s or "sha512" in s or "ed25519" in s),
    ("SQLite", lambda dso, s: s.startswith(("sqlite3", "pcache", "wal", "btree", "vdbe", "pager")) or "sqlite" in s),
    ("allocator", lambda dso, s: dso.startswith("libc") and any(k in s for k in ("malloc", "free", "unlink_chunk", "realloc", "consolidate"))),
    ("SHA-256 (tree, log)", lambda dso, s: "sha256" in s or "sha2::" in s),
    ("JSON", lambda dso, s: "serde_json" in s or "serde::" in s),
    ("async runtime, HTTP (tokio, hyper, axum, futures)", lambda dso, s: any(k in s for k in ("tokio", "hyper", "axum", "futures", "tower", "h2::", "mio"))),
    ("other libc", lambda dso, s: dso.startswith("libc")),
    ("other (the server's own code)", lambda dso, s: True),
]


def main():
    data, cores, plays = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    out = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio",
         "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    totals = {name: 0.0 for name, _ in BUCKETS}
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 4 or not parts[0].endswith("%"):
            continue
        percent, dso, symbol = float(parts[0][:-1]), parts[1], parts[3]
        for name, test in BUCKETS:
            if test(dso, symbol):
                totals[name] += percent
                break
    per_sale = cores / plays * 1e6
    print(f"{per_sale:.0f} µs of server CPU per sale ({cores:.2f} cores, {plays:.0f} plays/s)")
    for name, _ in BUCKETS:
        print(f"  {totals[name]:5.1f} %  {totals[name] / 100 * per_sale:6.0f} µs  {name}")


main()
