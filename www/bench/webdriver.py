"""The benchmarks' WebDriver: chromedriver started on a free port, and its
commands (CDP ones through `goog/cdp/execute`) as JSON calls."""
import contextlib, json, socket, subprocess, time, urllib.request

def call(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)["value"]

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

@contextlib.contextmanager
def chromedriver():
    """A running chromedriver: its base URL."""
    port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(50):
            try:
                call(base, "GET", "/status")
                break
            except OSError:
                time.sleep(0.2)
        yield base
    finally:
        driver.terminate()
        driver.wait()
