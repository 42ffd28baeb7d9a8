#!/usr/bin/env python3
"""Reveal frame times in headless Chromium with the CPU throttled 4x (CDP
Emulation.setCPUThrottlingRate through chromedriver), desktop and phone.
Usage: www/bench/frames.py http://127.0.0.1:PORT/frames.html [GAME_URL]
  frames.html: the board alone (measure.sh serves it);
  GAME_URL: the whole game of a running `eldorado serve --demo` (e.g.
  http://127.0.0.1:8080/): tickets bought and revealed as a player does,
  frames counted while the reveal runs, and the time until Play is enabled."""
import sys, time
from webdriver import call, chromedriver

# Counts requestAnimationFrame intervals while the game's button says the
# reveal runs (data-action="reveal-all").
RECORDER = """
window.__iv = [];
let last = null;
const tick = (now) => {
  const b = document.querySelector('.eld-play');
  if (b && b.dataset.action === 'reveal-all') {
    if (last !== null) window.__iv.push(now - last);
    last = now;
  } else {
    last = null;
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"""

PLAY_ROUND = """
const done = arguments[arguments.length - 1];
const ok = document.querySelector('.eld-popup:not([hidden]) button');
if (ok) ok.click();
const b = document.querySelector('.eld-play');
if (!b || b.disabled || b.dataset.action !== 'play') { done('wait'); return; }
b.click();
const t0 = performance.now();
const poll = () => {
  const a = document.querySelector('.eld-play').dataset.action;
  if (a !== 'reveal-all' && a !== 'buying' || performance.now() - t0 > 20000) { done('played'); return; }
  setTimeout(poll, 100);
};
setTimeout(poll, 100);
"""

def game(base, url, name, size, metrics, rounds=6):
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={size}"]}}}}
    sid = call(base, "POST", "/session", caps)["sessionId"]
    try:
        cdp = lambda cmd, params: call(base, "POST", f"/session/{sid}/goog/cdp/execute",
                                       {"cmd": cmd, "params": params})
        call(base, "POST", f"/session/{sid}/timeouts", {"script": 30000})
        if metrics:
            cdp("Emulation.setDeviceMetricsOverride", metrics)
        cdp("Emulation.setCPUThrottlingRate", {"rate": 4})
        cdp("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        # Unthrottled first, for the time to interactive on this machine.
        cdp("Emulation.setCPUThrottlingRate", {"rate": 1})
        call(base, "POST", f"/session/{sid}/url", {"url": url})
        tti = None
        for _ in range(200):
            tti = call(base, "POST", f"/session/{sid}/execute/sync", {"script": """
                const b = document.querySelector('.eld-play');
                return b && !b.disabled ? performance.now() : null;""", "args": []})
            if tti is not None:
                break
            time.sleep(0.05)
        cdp("Emulation.setCPUThrottlingRate", {"rate": 4})
        played = 0
        for _ in range(rounds * 20):
            if call(base, "POST", f"/session/{sid}/execute/async",
                    {"script": PLAY_ROUND, "args": []}) == "played":
                played += 1
                if played == rounds:
                    break
            else:
                time.sleep(0.2)
        iv = sorted(call(base, "POST", f"/session/{sid}/execute/sync",
                         {"script": "return window.__iv", "args": []}))
        if not iv:
            print(f"{name:8} ERROR no reveal frames")
            return
        p95 = iv[min(len(iv) - 1, int(0.95 * len(iv)))]
        med = iv[len(iv) // 2]
        tti_text = f"{tti:.0f}" if tti is not None else "none"
        print(f"{name:8} RESULT game frame_ms_p95={p95:.2f} frame_ms_median={med:.2f} frames={len(iv)} "
              f"tickets={played} time_to_play_ms={tti_text} (unthrottled)")
    finally:
        call(base, "DELETE", f"/session/{sid}")

def run(base, url, name, size, metrics):
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={size}"]}}}}
    sid = call(base, "POST", "/session", caps)["sessionId"]
    try:
        cdp = lambda cmd, params: call(base, "POST", f"/session/{sid}/goog/cdp/execute",
                                       {"cmd": cmd, "params": params})
        if metrics:
            cdp("Emulation.setDeviceMetricsOverride", metrics)
        cdp("Emulation.setCPUThrottlingRate", {"rate": 4})
        call(base, "POST", f"/session/{sid}/url", {"url": url})
        for _ in range(240):
            text = call(base, "POST", f"/session/{sid}/execute/sync",
                        {"script": "return document.getElementById('out').textContent", "args": []})
            if text.startswith(("RESULT", "ERROR")):
                print(f"{name:8} {text}")
                return
            time.sleep(0.5)
        print(f"{name:8} ERROR timeout")
    finally:
        call(base, "DELETE", f"/session/{sid}")

def main():
    url = sys.argv[1]
    with chromedriver() as base:
        phone = {"width": 412, "height": 915, "deviceScaleFactor": 2.625, "mobile": True}
        run(base, url, "desktop", "1280,900", None)
        run(base, url, "phone", "412,915", phone)
        if len(sys.argv) > 2:
            game(base, sys.argv[2], "desktop", "1280,900", None)
            game(base, sys.argv[2], "phone", "412,915", phone)

main()
