#!/usr/bin/env python3
"""The README's screenshots, desktop and phone, from a running demo server:
a win, an Extra, the history, the rules at the paytable. Plays tickets as a
player does (headless Chromium through chromedriver) until each shows.
  eldorado serve --demo --addr 127.0.0.1:8080 &   (serving this bundle)
  scripts/screenshots.py http://127.0.0.1:8080/ docs/"""
import base64, json, socket, subprocess, sys, time, urllib.request

def call(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)["value"]

PHONE = {"width": 412, "height": 915, "deviceScaleFactor": 2.625, "mobile": True}

def session(base, size, metrics):
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
        "binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", f"--window-size={size}"]}}}}
    sid = call(base, "POST", "/session", caps)["sessionId"]
    cdp = lambda cmd, params: call(base, "POST", f"/session/{sid}/goog/cdp/execute", {"cmd": cmd, "params": params})
    run = lambda js: call(base, "POST", f"/session/{sid}/execute/sync", {"script": js, "args": []})
    if metrics:
        cdp("Emulation.setDeviceMetricsOverride", metrics)
    return sid, cdp, run

def shoot(cdp, path):
    time.sleep(1.2)  # the window's entrance animation and « Dernier gain » counting up (0.9 s)
    data = cdp("Page.captureScreenshot", {"format": "png"})["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))
    print("saved", path)

def wait(run, js, tries=200):
    for _ in range(tries):
        if run(js):
            return True
        time.sleep(0.1)
    return False

def play_until(run, kind, tickets=95):
    """Plays until the window of `kind` (win, extras) shows."""
    for _ in range(tickets):
        run("const o = document.querySelector('.eld-popup:not([hidden]) .eld-popup-ok'); if (o) o.click();")
        wait(run, "const b = document.querySelector('.eld-play'); return !b.disabled && ['play', 'extra'].includes(b.dataset.action)")
        run("document.querySelector('.eld-play').click()")
        time.sleep(0.3)
        wait(run, "return !['reveal-all', 'buying'].includes(document.querySelector('.eld-play').dataset.action)")
        if run("const p = document.querySelector('.eld-popup'); return p.hidden ? '' : p.dataset.kind") == kind:
            return True
    return False

def main():
    url, out = sys.argv[1], sys.argv[2].rstrip("/")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(50):
            try:
                call(base, "GET", "/status")
                break
            except OSError:
                time.sleep(0.2)
        for name, size, metrics in [("", "1280,1000", None), ("-phone", "412,915", PHONE)]:
            sid, cdp, run = session(base, size, metrics)
            try:
                call(base, "POST", f"/session/{sid}/url", {"url": url})
                wait(run, "const b = document.querySelector('.eld-play'); return !!b && !b.disabled")
                # The smallest stake: the demo balance lasts the most tickets.
                run("document.querySelector('.eld-stake[data-stake=\"50\"]').click()")
                if play_until(run, "extras"):
                    shoot(cdp, f"{out}/screenshot-extra{name}.png")
                if play_until(run, "win"):
                    shoot(cdp, f"{out}/screenshot-win{name}.png")
                run("const o = document.querySelector('.eld-popup:not([hidden]) .eld-popup-ok'); if (o) o.click();")
                run("const h = document.querySelector('.eld-history'); h.open = true;")
                wait(run, "return !!document.querySelector('.eld-history-open')")
                run("document.querySelector('.eld-history-open').click()")
                wait(run, "return !!document.querySelector('.eld-history-grid canvas')")
                run("document.querySelector('.eld-history').scrollIntoView()")
                shoot(cdp, f"{out}/screenshot-history{name}.png")
                run("document.querySelector('.eld-history').open = false; window.scrollTo(0, 0);")
                run("document.querySelector('.eld-help').click()")
                shoot(cdp, f"{out}/screenshot-rules{name}.png")
            finally:
                call(base, "DELETE", f"/session/{sid}")
    finally:
        driver.terminate()
        driver.wait()

main()
