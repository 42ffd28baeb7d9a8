#!/usr/bin/env python3
"""The first download as a browser gets it from a running server: the page,
then everything it loads before the game can start (stylesheet, icon, the
scripts and the wasm module the glue names), each fetched with the given
Accept-Encoding; prints the bytes on the wire per file and the total.
  www/bench/download.py http://127.0.0.1:8080/ gzip
  www/bench/download.py http://127.0.0.1:8080/ br"""
import re
import sys
import urllib.request


def fetch(url, encoding):
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding})
    with urllib.request.urlopen(request, timeout=30) as response:
        # urllib does not decode: these are the bytes on the wire.
        return response.read(), response.headers.get("Content-Encoding", "identity")


def main():
    base, encoding = sys.argv[1].rstrip("/") + "/", sys.argv[2]
    page, page_encoding = fetch(base, encoding)
    plain, _ = fetch(base, "identity")
    html = plain.decode()
    files = [("/", len(page), page_encoding)]
    wanted = re.findall(r'(?:href|src)="([^"]+)"', html)
    for path in wanted:
        body, used = fetch(base + path.lstrip("/"), encoding)
        files.append((path, len(body), used))
        if path.endswith(".js"):
            text, _ = fetch(base + path.lstrip("/"), "identity")
            # The glue names the module; main.js names the glue (preloaded).
            for module in re.findall(r"[\"'](eldorado_web_bg[-\w]*\.wasm)[\"']", text.decode()):
                url = base + path.lstrip("/").rsplit("/", 1)[0] + "/" + module
                body, used = fetch(url, encoding)
                files.append((module, len(body), used))
    total = 0
    for path, size, used in files:
        total += size
        print(f"{path:50} {size:8d} {used}")
    print(f"{'TOTAL (' + encoding + ')':50} {total:8d}  (ceiling 160000 bytes gzip: scripts/check-web-size.sh)")


main()
