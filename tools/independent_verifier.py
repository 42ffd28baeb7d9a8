#!/usr/bin/env python3
"""Checks a block's disclosure export from docs/PROTOCOL.md alone.

Written without reading the Rust code, to prove the protocol document is
exact: recomputes every leaf (§1), the Merkle root (§2) and the prize table
digest (§3), and counts the prizes. Signatures are left to a real Ed25519
library (none is assumed installed); everything else uses the standard
library only.

Usage: independent_verifier.py EXPORT.jsonl   (exit 0 when everything matches)
"""
import hashlib
import json
import sys

RANKS = [  # rank, multiple, count, direct, via_extras, decompositions
    (1, 7000, 2, 2, 0, [[7000]]),
    (2, 450, 4, 4, 0, [[450], [150, 150, 150]]),
    (3, 150, 40, 28, 12, [[150], [50, 50, 50]]),
    (4, 50, 94, 52, 42, [[50], [25, 25]]),
    (5, 25, 300, 120, 180, [[25], [10, 10, 5]]),
    (6, 10, 2000, 1000, 1000, [[10], [5, 5]]),
    (7, 7, 8000, 6400, 1600, [[5, 2]]),
    (8, 5, 10000, 6000, 4000, [[5]]),
    (9, 4, 20000, 16000, 4000, [[2, 2]]),
    (10, 2, 20000, 16000, 4000, [[2]]),
]


def u(n, width):
    return n.to_bytes(width, "big")


def prize_table_digest():
    h = hashlib.sha256(b"ELDORADO-PRIZES-V1" + u(400000, 4) + u(len(RANKS), 1))
    for rank, multiple, count, direct, via, decompositions in RANKS:
        h.update(u(rank, 1) + u(multiple, 4) + u(count, 4) + u(direct, 4) + u(via, 4))
        h.update(u(len(decompositions), 1))
        for lines in decompositions:
            h.update(u(len(lines), 1) + b"".join(u(a, 4) for a in lines))
    return h.hexdigest()


def leaf(block, t):
    grids = b"".join(g.replace("/", "").encode("ascii") for g in t["grids"])
    body = (b"\x00" + b"ELDORADO-LEAF-V1" + u(block, 8) + u(t["position"], 4)
            + u(t["stake_cents"], 8) + u(t["prize_cents"], 8) + u(t["extras"], 1)
            + u(len(t["grids"]), 1) + grids + bytes.fromhex(t["salt"]))
    return hashlib.sha256(body).digest()


def root(leaves):
    level = leaves
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            nxt.append(hashlib.sha256(b"\x01" + b"ELDORADO-NODE-V1" + level[i] + level[i + 1]).digest())
        if len(level) % 2:
            nxt.append(level[-1])  # the odd node is carried up unchanged
        level = nxt
    return level[0]


def main(path):
    problems = []
    with open(path) as f:
        header = json.loads(f.readline())
        leaves, prizes, winners = [], 0, {}
        for line in f:
            t = json.loads(line)
            h = leaf(header["block"], t)
            if h.hex() != t["leaf"]:
                problems.append(f"position {t['position']}: leaf differs")
            leaves.append(h)
            prizes += t["prize_cents"]
            if t["prize_cents"]:
                winners[t["prize_cents"]] = winners.get(t["prize_cents"], 0) + 1
    if prize_table_digest() != header["prize_table"]:
        problems.append("prize table digest differs")
    if root(leaves).hex() != header["root"]:
        problems.append("root differs")
    stake = header["stake_cents"]
    expected = {multiple * stake: count for _, multiple, count, *_ in RANKS}
    if winners != expected:
        problems.append(f"prize counts {winners} differ from {expected}")
    if len(leaves) != header["tickets"]:
        problems.append(f"{len(leaves)} tickets, header says {header['tickets']}")
    if problems:
        print("MISMATCH: " + "; ".join(problems[:5]))
        return 1
    print(f"OK: {len(leaves)} leaves, root {header['root']}, prize table digest and counts match, {prizes} cents of prizes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
