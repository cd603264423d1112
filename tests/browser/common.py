"""What the browser test and the browser benchmark share: the server they
start (`wirebench serve` on a free loopback port, read from its first line),
the headless Chromium they drive (Debian's chromium + chromium-driver), and
the page's own hooks (`window.wb`)."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

FORMATS = ["json", "msgpack", "protobuf", "avro", "flatbuffers"]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,900",
]


@contextmanager
def server(binary, results=None, args=()):
    """`wirebench serve --addr 127.0.0.1:0 [ARGS]`: the kernel picks a free
    port, the server prints it on its first line; stopped on exit."""
    cmd = [binary, "serve", "--addr", "127.0.0.1:0", *args]
    if results:
        cmd += ["--results", results]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if not m:
            raise RuntimeError(f"wirebench serve did not start: {line!r}")
        yield m.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def chromium():
    """Headless Chromium with an empty profile; console and network logs on."""
    profile = tempfile.mkdtemp(prefix="wirebench-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # The driver is given: Selenium Manager looks nothing up.
    os.environ.setdefault("SE_OFFLINE", "true")
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=opts, service=service)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def api(base, path):
    """The JSON the page reads, fetched directly (the oracle of the test)."""
    req = urllib.request.Request(base + path, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def open_page(driver, base, **state):
    """Loads the page afresh with `state` in its hash and waits until it has rendered."""
    driver.get("about:blank")
    query = "&".join(f"{k}={v}" for k, v in state.items())
    driver.get(f"{base}/#{query}")
    wait_ready(driver)


def wait_ready(driver, timeout=30):
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script("return window.wb && window.wb.ready === true"))


def timed_click(driver, css):
    """Clicks the element at `css` inside the page and returns the time the
    click's handler and the following style and layout took, in ms."""
    return driver.execute_script(
        """const el = document.querySelector(arguments[0]);
           if (!el) return -1;
           const t = performance.now();
           el.click();
           void document.body.offsetHeight;
           return performance.now() - t;""",
        css,
    )


def render_times(driver, base, fmt, count=20):
    """(first render since navigation start, select) in ms for one format at `count` products."""
    open_page(driver, base, view="explore", format=fmt, count=count)
    first = driver.execute_script("return window.wb.timings.first_render_ms")
    n = driver.execute_script("return window.wb.explorers.explore.spans.length")
    select = timed_click(driver, f'#hex .s[data-s="{n // 2}"]')
    return first, select

