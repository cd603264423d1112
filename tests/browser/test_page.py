"""The browser page in a real browser (headless Chromium): bytes → field and
field → bytes for every format, a FlatBuffers vtable slot and a string shared
by two products, the five formats side by side, an evolution cell, a user's
document (`serve --data`: a map, a union and nulls) in all five formats, bytes
to its members and back, no console error and no request to another host. Prints the time to first render and to
a selection for 20 products (tests/browser/bench.py holds them to a bound).

    python tests/browser/test_page.py BINARY [RESULTS_DIR]

With UPDATE_SCREENSHOTS=1 it writes docs/screenshots/*.png."""

import base64
import json
import os
import sys
from urllib.parse import urlparse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from common import FORMATS, api, chromium, open_page, render_times, server, wait_ready

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOTS = os.path.join(ROOT, "docs", "screenshots")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def lit_spans(driver, hex_css):
    """Indices of the spans the page highlights in one hex view."""
    return set(
        driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' .s.hl')].map(e => +e.dataset.s)", hex_css
        )
    )


def owned(data, path):
    return {k for k, s in enumerate(data["spans"]) if path in s["fields"]}


def tree_lit(driver, path, tree="#tree"):
    el = driver.find_elements(By.CSS_SELECTOR, f'{tree} .f[data-path="{path}"]')
    return bool(el) and "hl" in el[0].get_attribute("class").split()


def click_span(driver, k, hex_css="#hex"):
    el = driver.find_element(By.CSS_SELECTOR, f'{hex_css} .s[data-s="{k}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    # The element's own click event (a span piece may wrap, so a click at its
    # centre point can land between two pieces).
    driver.execute_script("arguments[0].click()", el)


def click_field(driver, path, tree="#tree"):
    el = driver.find_element(By.CSS_SELECTOR, f'{tree} .f[data-path="{path}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def both_ways(driver, base, label, data, k, paths, reverse_path, other="products[0].id"):
    """Clicking span k lights every field in `paths`; clicking `reverse_path`
    in the tree lights exactly the spans the explainer gives that path (and
    not those of `other`)."""
    click_span(driver, k)
    detail = driver.find_element(By.ID, "detail").text
    lit = [p for p in paths if tree_lit(driver, p)]
    check(lit == paths and data["spans"][k]["meaning"] in detail,
          f"{label}: bytes at {data['spans'][k]['offset']} light {paths} (lit {lit}) and show the meaning")
    click_field(driver, reverse_path)
    want = owned(data, reverse_path)
    got = lit_spans(driver, "#hex")
    check(got == want and want, f"{label}: field {reverse_path} lights its {len(want)} spans (lit {len(got)})")
    # The comparison can fail: another field's spans are not what is lit.
    check(owned(data, other) and owned(data, other) != got, f"{label}: self-test, {other}'s spans differ from those lit")


def explore(driver, base):
    for fmt in FORMATS:
        open_page(driver, base, view="explore", format=fmt, count=2)
        data = api(base, f"/explain/{fmt}?count=2")
        k = next(k for k, s in enumerate(data["spans"]) if s["fields"] == ["products[1].name"] and s["category"] == "value")
        both_ways(driver, base, fmt, data, k, ["products[1].name"], "products[0].price_cents")
    # A long string's whole decoded text is shown, not only the meaning's preview.
    for fmt in ("avro", "flatbuffers"):
        open_page(driver, base, view="explore", format=fmt, count=1)
        data = api(base, f"/explain/{fmt}?count=1")
        k, sp = next((k, sp) for k, sp in enumerate(data["spans"]) if sp["fields"] == ["products[0].description"] and sp["category"] == "value")
        text = base64.b64decode(data["payload"])[sp["offset"]:sp["offset"] + sp["length"]].decode()
        click_span(driver, k)
        check(f"text: {json.dumps(text, ensure_ascii=False)}" in driver.find_element(By.ID, "detail").text, f"{fmt}: the description's {len(text)} characters are shown")
    # A FlatBuffers vtable slot belongs to its field.
    open_page(driver, base, view="explore", format="flatbuffers", count=2)
    data = api(base, "/explain/flatbuffers?count=2")
    k = next(k for k, s in enumerate(data["spans"]) if "vtable slot" in s["meaning"] and "products[0].sku" in s["fields"])
    both_ways(driver, base, "flatbuffers vtable slot", data, k, data["spans"][k]["fields"], "products[0].sku")
    check(any(data["spans"][j]["offset"] == data["spans"][k]["offset"] for j in lit_spans(driver, "#hex")),
          "flatbuffers: the sku field's bytes include its vtable slot")
    # A string two products share (the builder's create_shared_string).
    open_page(driver, base, view="explore", format="flatbuffers-shared", count=2)
    data = api(base, "/explain/flatbuffers?count=2&share=strings")
    k = next(
        k for k, s in enumerate(data["spans"])
        if s["category"] == "value" and {"products[0].tags", "products[1].tags"} <= set(s["fields"])
    )
    both_ways(driver, base, "flatbuffers shared string", data, k, data["spans"][k]["fields"], "products[1].tags")
    check(k in lit_spans(driver, "#hex"), "flatbuffers: product 1's tags include the string product 0 shares")
    # Keyboard: → moves to the next span.
    click_span(driver, 3)
    driver.find_element(By.ID, "hex").send_keys("\ue014")  # ArrowRight
    cur = driver.execute_script("return window.wb.explorers.explore.cur")
    check(cur == 4, f"keyboard: → selects the next span (at {cur})")


def compare(driver, base):
    open_page(driver, base, view="compare", count=1)
    all_data = {f: api(base, f"/explain/{f}?count=1") for f in FORMATS}
    driver.find_element(By.CSS_SELECTOR, '#bars tr[data-field="name"]').click()
    for f in FORMATS:
        want, got = owned(all_data[f], "products[0].name"), lit_spans(driver, f"#hex-{f}")
        check(got == want and want, f"side by side: name selected in {f} ({len(got)} of {len(want)} spans)")
    # A byte in one column selects its field in the other four.
    k = next(k for k, s in enumerate(all_data["json"]["spans"]) if s["fields"] == ["products[0].rating"])
    click_span(driver, k, "#hex-json")
    for f in FORMATS:
        want, got = owned(all_data[f], "products[0].rating"), lit_spans(driver, f"#hex-{f}")
        check(got == want and want, f"side by side: a json byte of rating selects rating in {f}")


# A document with a map (`tags`), a union (`note`: null or a string) and
# nulls, with its schema (inference would make `tags` a record): the one in
# fixtures/orders/ that tests/page.rs serves too.
ORDERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "orders")
DOCUMENT_FILES = (os.path.join(ORDERS, "doc.json"), os.path.join(ORDERS, "doc.avsc"))
with open(DOCUMENT_FILES[0]) as f:
    DOCUMENT = f.read()


def document_files():
    return DOCUMENT_FILES


def document_api(base, fmt):
    return api(base, f"/explain/{fmt}?payload=data")


def below(data, path):
    """The spans of `path` and of every path under it (a root member's row)."""
    return {k for k, s in enumerate(data["spans"])
            if any(f == path or f.startswith(path + ".") or f.startswith(path + "[") for f in s["fields"])}


def says_no_bytes(driver, path, fmt):
    el = driver.find_elements(By.CSS_SELECTOR, f'#tree .f[data-path="{path}"]')
    return bool(el) and f"no bytes in {fmt}" in el[0].text


def document(driver, base):
    """`serve --data`: the page offers the document and shows it in all five
    formats, its nested fields (objects, array items, map entries, a union's
    value, nulls) linked to its bytes both ways."""
    open_page(driver, base, view="explore", payload="data", format="json")
    check(driver.find_element(By.ID, "payload-choice").is_displayed(), "document: the page offers the payload choice")
    for fmt in FORMATS:
        open_page(driver, base, view="explore", payload="data", format=fmt)
        data = document_api(base, fmt)
        check(data["error"] is None and data["document"] == json.loads(DOCUMENT), f"document {fmt}: explained and read back")
        pieces = driver.find_elements(By.CSS_SELECTOR, "#hex .s")
        check(len(pieces) >= len(data["spans"]), f"document {fmt}: {len(pieces)} pieces for {len(data['spans'])} spans")
        k = next(k for k, s in enumerate(data["spans"]) if s["fields"] == ["total"] and s["category"] == "value")
        both_ways(driver, base, f"document {fmt}", data, k, ["total"], "orders[0].id", "orders[1].id")
        # A map entry's value lights its entry; the union's string branch lights its bytes.
        k = next(k for k, s in enumerate(data["spans"]) if s["fields"] == ["orders[0].tags.gift"] and s["category"] == "value")
        both_ways(driver, base, f"document {fmt} map entry", data, k, ["orders[0].tags.gift"], "orders[1].note", "orders[0].tags.rush")
        # The null: its bytes where the format writes any, else the tree says it has none.
        if owned(data, "orders[0].note"):
            click_field(driver, "orders[0].note")
            got = lit_spans(driver, "#hex")
            check(got == owned(data, "orders[0].note"), f"document {fmt}: the null orders[0].note lights its {len(got)} spans")
        else:
            check(says_no_bytes(driver, "orders[0].note", fmt), f"document {fmt}: the null orders[0].note has no bytes in {fmt}, and says so")
        # The check can fail: a field that has bytes does not say it has none.
        check(not says_no_bytes(driver, "orders[1].note", fmt), f"document {fmt}: self-test, orders[1].note does not say it has no bytes")
    open_page(driver, base, view="compare", payload="data")
    all_data = {f: document_api(base, f) for f in FORMATS}
    driver.find_element(By.CSS_SELECTOR, '#bars tr[data-field="orders"]').click()
    for f in FORMATS:
        want, got = below(all_data[f], "orders"), lit_spans(driver, f"#hex-{f}")
        check(got == want and want, f"document side by side: orders selected in {f} ({len(got)} of {len(want)} spans)")
        check(below(all_data[f], "total") != got, f"document side by side: self-test, total's spans in {f} differ from those lit")


def lab(driver, base):
    open_page(driver, base, view="lab")
    cells = driver.find_elements(By.CSS_SELECTOR, "#matrix td.c")
    check(len(cells) > 0, f"evolution: the matrix has {len(cells)} cells")
    target = next((c for c in cells if "drops" in c.get_attribute("class").split()), cells[0])
    cid = target.get_attribute("data-id")
    target.click()
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.wb.timings.cell_opened") == cid)
    outcome = driver.find_element(By.ID, "cell-outcome").text
    spans = driver.find_elements(By.CSS_SELECTOR, "#cell-hex .s")
    cell = api(base, f"/lab/{cid}")
    check(cell["outcome"] in outcome and len(spans) > 0,
          f"evolution: cell {cid} opens with its {len(spans)} annotated pieces and outcome {cell['outcome']!r}")


def screenshots(driver, base):
    os.makedirs(SHOTS, exist_ok=True)
    open_page(driver, base, view="explore", format="flatbuffers", count=3)
    click_field(driver, "products[0].name")
    driver.save_screenshot(os.path.join(SHOTS, "explore.png"))
    open_page(driver, base, view="compare", count=1)
    driver.find_element(By.CSS_SELECTOR, '#bars tr[data-field="tags"]').click()
    driver.save_screenshot(os.path.join(SHOTS, "compare.png"))
    open_page(driver, base, view="lab")
    driver.find_element(By.CSS_SELECTOR, "#matrix td.c.drops").click()
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.wb.timings.cell_opened"))
    driver.save_screenshot(os.path.join(SHOTS, "lab.png"))
    driver.get(base + "/results")
    driver.save_screenshot(os.path.join(SHOTS, "results.png"))
    print(f"screenshots written to {SHOTS}")


def console_errors(entries):
    return [e for e in entries if e["level"] == "SEVERE"]


def requested(entries):
    """Every URL the browser asked for, from the DevTools network events."""
    urls = set()
    for entry in entries:
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.add(msg["params"]["request"]["url"])
    return urls


def foreign(urls, host):
    # chrome:// is the browser's own start page before the first navigation.
    return [u for u in urls if urlparse(u).scheme not in ("about", "data", "chrome") and urlparse(u).netloc != host]


def selftest():
    """The hygiene checks fail on what they look for."""
    def net(url):
        return {"message": json.dumps({"message": {"method": "Network.requestWillBeSent", "params": {"request": {"url": url}}}})}

    urls = requested([net("http://127.0.0.1:9/page/app.js"), net("https://cdn.example/x.js"), net("chrome://newtab/")])
    assert foreign(urls, "127.0.0.1:9") == ["https://cdn.example/x.js"], urls
    favicon_404 = {"level": "SEVERE", "message": "http://127.0.0.1:9/favicon.ico - Failed to load resource: 404"}
    assert console_errors([{"level": "INFO", "message": "x"}, favicon_404]) == [favicon_404]
    print("ok   self-test: the console and network checks catch an error and a foreign request")


def hygiene(driver, base, logs):
    """No console error (a 404 logs one), no request to another host."""
    errors = console_errors(logs["browser"])
    check(not errors, f"console: no errors ({errors[:3]})")
    host = urlparse(base).netloc
    urls = requested(logs["performance"])
    others = foreign(urls, host)
    check(not others and len(urls) > 5, f"network: {len(urls)} URLs, all on {host} (others: {others[:3]})")


def main():
    selftest()
    binary = sys.argv[1]
    results = sys.argv[2] if len(sys.argv) > 2 else None
    with server(binary, results) as base, chromium() as driver:
        logs = {"browser": [], "performance": []}

        def drain():
            for kind in logs:
                logs[kind] += driver.get_log(kind)

        print(f"server at {base}")
        driver.get(base + "/")
        wait_ready(driver)
        check(driver.find_elements(By.CSS_SELECTOR, "#hex .s") != [], "page: / renders the hex view")
        for step in (explore, compare, lab):
            step(driver, base)
            drain()
        for fmt in FORMATS:
            first, select = render_times(driver, base, fmt, 20)
            print(f"timing {fmt:<12} 20 products: first render {first:7.1f} ms, selection {select:6.1f} ms")
        if results:
            driver.get(base + "/results")
            imgs = driver.find_elements(By.CSS_SELECTOR, "#charts img")
            loaded = driver.execute_script(
                "return [...document.querySelectorAll('#charts img')].every(i => i.complete && i.naturalWidth > 0)"
            )
            check(len(imgs) > 0 and loaded, f"results: {len(imgs)} charts load")
        if os.environ.get("UPDATE_SCREENSHOTS") == "1":
            screenshots(driver, base)
        drain()
        hygiene(driver, base, logs)
    doc, schema = document_files()
    with server(binary, None, ["--data", doc, "--schema", schema]) as base, chromium() as driver:
        print(f"server with --data at {base}")
        document(driver, base)
        hygiene(driver, base, {"browser": driver.get_log("browser"), "performance": driver.get_log("performance")})
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("all browser checks passed")


if __name__ == "__main__":
    main()
