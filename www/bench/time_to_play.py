#!/usr/bin/env python3
"""Time to play on a phone network: a cold load of the game in headless
Chromium with the network throttled like Fast 3G (562.5 ms round trip,
1.44 Mbps down, 675 kbps up) and the CPU 4x slower (CDP, through
chromedriver), until « Jouer » is enabled (the moment it is, noted by a
MutationObserver set before the page's scripts run). Each run is a new browser with
an empty cache: the page, its files, the configuration and a new demo
player all come over the throttled network.
Usage: www/bench/time_to_play.py GAME_URL [RUNS] [--first-ticket]
  GAME_URL: a running `eldorado serve --demo` (e.g. http://127.0.0.1:8080/).
  --first-ticket: then press « Jouer » at once and time until the ticket is
  shown, verified (with a beacon, its round checked by the module the page
  loads after its first download: when that module arrived is printed too).
Prints each run and the median, in ms from navigation start."""
import statistics, sys, time
from webdriver import call, chromedriver

FAST_3G = {"offline": False, "latency": 562.5,
           "downloadThroughput": 1_440_000 / 8, "uploadThroughput": 675_000 / 8}

# Run before the page's own scripts: notes the moment « Jouer » becomes
# enabled, which polling from outside (below) would see up to one poll
# later.
WATCH = """
(() => {
  const watch = new MutationObserver(() => {
    const b = document.querySelector('.eld-play');
    if (window.__eldPlayableAt === undefined && b && !b.disabled && b.dataset.action === 'play') {
      window.__eldPlayableAt = performance.now();
    }
    const badge = document.querySelector('.eld-badge');
    if (badge && !badge.hidden) {
      window.__eldTicketAt = performance.now();
      watch.disconnect();
    }
  });
  watch.observe(document, {subtree: true, childList: true, attributes: true,
                           attributeFilter: ['disabled', 'data-action', 'hidden']});
})();
"""

# When « Jouer » became enabled, and when the page's own requests ended.
PLAYABLE = """
if (window.__eldPlayableAt === undefined) return null;
const nav = performance.getEntriesByType('navigation')[0];
const files = performance.getEntriesByType('resource').map(r =>
  [r.name.replace(location.origin, ''), Math.round(r.startTime), Math.round(r.responseEnd)]);
return {at: window.__eldPlayableAt, polled: performance.now(),
        dom: nav ? nav.domContentLoadedEventEnd : null, files};
"""

# Presses « Jouer » (when enabled), as a player's tap would.
PRESS = """
const b = document.querySelector('.eld-play');
b.click();
return performance.now();
"""

# The ticket shown, verified; when the round check's module arrived.
TICKET = """
if (window.__eldTicketAt === undefined) return null;
const check = performance.getEntriesByType('resource')
  .filter(r => r.name.includes('eldorado_beacon_check'))
  .map(r => Math.round(r.responseEnd));
return {at: window.__eldTicketAt, check: check.length ? Math.max(...check) : null};
"""

def wait_for(base, sid, script, seconds):
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        seen = call(base, "POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})
        if seen is not None:
            return seen
        time.sleep(0.05)
    return None

def one_run(base, url, first_ticket):
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=412,915",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]}}}}
    sid = call(base, "POST", "/session", caps)["sessionId"]
    try:
        cdp = lambda cmd, params: call(base, "POST", f"/session/{sid}/goog/cdp/execute",
                                       {"cmd": cmd, "params": params})
        cdp("Network.enable", {})
        cdp("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp("Network.emulateNetworkConditions", FAST_3G)
        cdp("Emulation.setCPUThrottlingRate", {"rate": 4})
        cdp("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
        cdp("Emulation.setDeviceMetricsOverride",
            {"width": 412, "height": 915, "deviceScaleFactor": 2.625, "mobile": True})
        call(base, "POST", f"/session/{sid}/timeouts", {"pageLoad": 120000})
        call(base, "POST", f"/session/{sid}/url", {"url": url})
        seen = wait_for(base, sid, PLAYABLE, 60)
        if seen is not None and first_ticket:
            pressed = call(base, "POST", f"/session/{sid}/execute/sync", {"script": PRESS, "args": []})
            ticket = wait_for(base, sid, TICKET, 60)
            seen["pressed"] = pressed
            seen["ticket"] = ticket
        return seen
    finally:
        call(base, "DELETE", f"/session/{sid}")

def main():
    args = [a for a in sys.argv[1:] if a != "--first-ticket"]
    first_ticket = len(args) < len(sys.argv) - 1
    url = args[0]
    runs = int(args[1]) if len(args) > 1 else 5
    with chromedriver() as base:
        times, tickets = [], []
        for run in range(runs):
            seen = one_run(base, url, first_ticket)
            if seen is None:
                print(f"run {run + 1}: ERROR « Jouer » never enabled within 60 s")
                continue
            times.append(seen["at"])
            files = ", ".join(f"{n} {s}-{e}" for n, s, e in seen["files"])
            print(f"run {run + 1}: playable at {seen['at']:.0f} ms "
                  f"(seen by polling at {seen['polled']:.0f} ms); {files}")
            if first_ticket:
                ticket = seen["ticket"]
                if ticket is None:
                    print(f"run {run + 1}: ERROR no ticket shown within 60 s of pressing « Jouer »")
                    continue
                tickets.append(ticket["at"] - seen["pressed"])
                print(f"run {run + 1}: pressed at {seen['pressed']:.0f} ms, ticket shown at "
                      f"{ticket['at']:.0f} ms; the round check's module arrived at {ticket['check']} ms")
        if tickets:
            print(f"RESULT first_ticket_ms median={statistics.median(tickets):.0f} "
                  f"min={min(tickets):.0f} max={max(tickets):.0f} runs={len(tickets)} "
                  "(from pressing « Jouer » to the ticket shown, verified)")
        if times:
            print(f"RESULT time_to_play_ms median={statistics.median(times):.0f} "
                  f"min={min(times):.0f} max={max(times):.0f} runs={len(times)} "
                  "(Fast 3G: 562.5 ms RTT, 1.44 Mbps; CPU 4x slower)")

main()
