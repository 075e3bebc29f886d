"""Capture the curation console screenshots in docs/screenshots/ (Debian chromium via Playwright).

Serve the demo tenant first (./dev run, or manage.py runserver 127.0.0.1:8123 after demo_setup),
then: .venv/bin/python docs/screenshots/capture_canonical.py "<decision title>" <record id to supersede>
Set GW_BASE to change the address (default http://demo.localhost:8123).
"""

import os
import sys

from playwright.sync_api import sync_playwright

BASE = os.environ.get("GW_BASE", "http://demo.localhost:8123")
OUT = os.path.dirname(os.path.abspath(__file__))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP demo.localhost 127.0.0.1",
]

with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.goto(f"{BASE}/login/?next=/admin/")
    page.fill("input[name=username]", "demo")
    page.fill("input[name=password]", "demo")
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state()
    print("after login:", page.url)
    page.goto(f"{BASE}/admin/")
    page.screenshot(path=f"{OUT}/canonical-admin-index.png", full_page=True)
    page.goto(f"{BASE}/admin/canonical/canonicalrecord/?canonical_type__exact=decision")
    page.screenshot(path=f"{OUT}/canonical-record-list.png", full_page=True)
    # Open the decision and deprecate it with a reason.
    page.click("text=" + sys.argv[1])
    page.wait_for_load_state()
    page.select_option("select[name=canonical_status]", "deprecated")
    page.fill("textarea[name=reason]", "Primary store moves to the managed Aurora cluster")
    page.click("input[name=_continue]")
    page.wait_for_load_state()
    print("after save:", page.url)
    page.screenshot(path=f"{OUT}/canonical-record-page.png", full_page=True)
    history = page.inner_text("#record-history")
    print(history[:600])
    # Supersede intermediate page.
    page.goto(f"{BASE}/admin/canonical/canonicalrecord/?canonical_type__exact=decision")
    page.check(f"input[name=_selected_action][value='{sys.argv[2]}']")
    page.select_option("select[name=action]", "supersede_records")
    page.click("button[name=index]")
    page.wait_for_load_state()
    page.screenshot(path=f"{OUT}/canonical-supersede.png", full_page=True)
    browser.close()
