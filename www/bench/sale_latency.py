#!/usr/bin/env python3
"""Time from a purchase's request to its sale's answer: what a player waits
between pressing « Jouer » and the page verifying the ticket it is dealt
(the first column turns right after). Each of BUYERS demo players buys N
tickets of 0,50 EUR one after the other, as the page does, pausing 0 to 2 s
between two (the reveal it watches; seeded), so that purchases fall
anywhere in the beacon's period and second; prints the median, p95, p99
and the largest wait over all of them, in ms.

    www/bench/sale_latency.py http://127.0.0.1:8080 [N=40] [BUYERS=1]
"""
import json
import random
import sys
import threading
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


def buyer(base, count, seed, waits, lock):
    token = call(base + "/api/demo/players", "POST", body={})["token"]
    pauses = random.Random(seed)
    for i in range(count):
        time.sleep(pauses.uniform(0, 2))
        started = time.monotonic()
        sale = call(base + "/api/sales", "POST", token,
                    {"stake_cents": 50, "idempotency_key": f"latency-{seed}-{time.time_ns()}-{i}"})
        wait = (time.monotonic() - started) * 1000
        assert sale["sale"]["sale_id"] > 0
        with lock:
            waits.append(wait)


def percentile(sorted_waits, p):
    return sorted_waits[min(len(sorted_waits) - 1, max(0, int(round(p * len(sorted_waits))) - 1))]


def main():
    base = sys.argv[1].rstrip("/")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    buyers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    waits, lock = [], threading.Lock()
    threads = [threading.Thread(target=buyer, args=(base, count, 22 + b, waits, lock))
               for b in range(buyers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    waits.sort()
    assert len(waits) == count * buyers, "a buyer failed"
    dealt = "dealt by the beacon" if call(base + "/api/config").get("dealing") else "dealt in order"
    print(f"RESULT sale latency ({dealt}, {buyers} buyer(s), {len(waits)} sales): "
          f"median {waits[len(waits) // 2]:.0f} ms, p95 {percentile(waits, 0.95):.0f} ms, "
          f"p99 {percentile(waits, 0.99):.0f} ms, max {waits[-1]:.0f} ms")


if __name__ == "__main__":
    main()
