#!/usr/bin/env python3
"""Time from a purchase's request to its sale's answer: what a player waits
between pressing « Jouer » and the page verifying the ticket it is dealt
(the first column turns right after). A demo player buys N tickets of
0,50 EUR one after the other, as the page does, pausing 0 to 2 s between
two (the reveal it watches; seeded), so that purchases fall anywhere in
the beacon's period and second; prints the median, p95 and the largest
wait, in ms.

    www/bench/sale_latency.py http://127.0.0.1:8080 [N=40]
"""
import json
import random
import sys
import time
import urllib.request


def call(url, method="GET", token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def main():
    base = sys.argv[1].rstrip("/")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    token = call(base + "/api/demo/players", "POST", body={})["token"]
    waits = []
    pauses = random.Random(22)
    for i in range(count):
        time.sleep(pauses.uniform(0, 2))
        started = time.monotonic()
        sale = call(base + "/api/sales", "POST", token,
                    {"stake_cents": 50, "idempotency_key": f"latency-{time.time_ns()}-{i}"})
        waits.append((time.monotonic() - started) * 1000)
        assert sale["sale"]["sale_id"] > 0
    waits.sort()
    p95 = waits[min(len(waits) - 1, int(round(0.95 * len(waits))) - 1)]
    dealt = "dealt by the beacon" if call(base + "/api/config").get("dealing") else "dealt in order"
    print(f"RESULT sale latency ({dealt}, {count} sales): median {waits[len(waits) // 2]:.0f} ms, "
          f"p95 {p95:.0f} ms, max {waits[-1]:.0f} ms")


if __name__ == "__main__":
    main()
