#!/usr/bin/env python3
"""Time to play on a phone network: a cold load of the game in headless
Chromium with the network throttled like Fast 3G (562.5 ms round trip,
1.44 Mbps down, 675 kbps up) and the CPU 4x slower (CDP, through
chromedriver), until « Jouer » is enabled (the moment it is, noted by a
MutationObserver set before the page's scripts run). Each run is a new browser with
an empty cache: the page, its files, the configuration and a new demo
player all come over the throttled network.
Usage: www/bench/time_to_play.py GAME_URL [RUNS]
  GAME_URL: a running `eldorado serve --demo` (e.g. http://127.0.0.1:8080/).
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
    if (b && !b.disabled && b.dataset.action === 'play') {
      window.__eldPlayableAt = performance.now();
      watch.disconnect();
    }
  });
  watch.observe(document, {subtree: true, childList: true, attributes: true,
                           attributeFilter: ['disabled', 'data-action']});
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

def one_run(base, url):
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
        started = time.monotonic()
        while time.monotonic() - started < 60:
            seen = call(base, "POST", f"/session/{sid}/execute/sync",
                        {"script": PLAYABLE, "args": []})
            if seen is not None:
                return seen
            time.sleep(0.05)
        return None
    finally:
        call(base, "DELETE", f"/session/{sid}")

def main():
    url = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with chromedriver() as base:
        times = []
        for run in range(runs):
            seen = one_run(base, url)
            if seen is None:
                print(f"run {run + 1}: ERROR « Jouer » never enabled within 60 s")
                continue
            times.append(seen["at"])
            files = ", ".join(f"{n} {s}-{e}" for n, s, e in seen["files"])
            print(f"run {run + 1}: playable at {seen['at']:.0f} ms "
                  f"(seen by polling at {seen['polled']:.0f} ms); {files}")
        if times:
            print(f"RESULT time_to_play_ms median={statistics.median(times):.0f} "
                  f"min={min(times):.0f} max={max(times):.0f} runs={len(times)} "
                  "(Fast 3G: 562.5 ms RTT, 1.44 Mbps; CPU 4x slower)")

main()
