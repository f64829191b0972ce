#!/usr/bin/env python3
"""Screenshots of both walkers and of the report on the sample film, for the README.

Runs from the repository root after `cargo build --release`:
  python3 tools/walk_screenshots.py [--bin target/release/moviegraph]
Writes docs/walk-web.png (the web walker's test page), docs/walk-web-explore.png
(explore mode) and docs/walk-tui.png (the terminal walker in tmux, its pane captured
with `capture-pane -e -p`, turned into HTML here and screenshotted by chromium).
docs/report-wide.png and docs/report-narrow.png are the HTML report of `moviegraph run`
on the sample film (offline defaults, hashed embedder) at 1280 and 420 pixels wide.
The test run goes to a temporary store, so nothing in the workspace changes.
"""
import argparse
import html
import os
import re
import subprocess
import tempfile
import time

TREES = "trees/the-second-key.jsonl"


def chromium(url, out, size="1200,900"):
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={out}",
             f"--window-size={size}", url],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def web(binary, store):
    # A test walker and an explore walker: one walker never serves both modes.
    for extra, page, out in [([], "test/demo", "docs/walk-web.png"),
                             (["--explore"], "explore/0/n1", "docs/walk-web-explore.png")]:
        server = subprocess.Popen(
            [binary, "walk", "--serve", "--port", "0", TREES, "--store", store] + extra,
            stdout=subprocess.PIPE, text=True)
        try:
            addr = server.stdout.readline().strip().removeprefix("listening on ")
            chromium(addr + page, out)
        finally:
            server.kill()
            server.wait()


SGR = re.compile(r"\x1b\[([0-9;]*)m")
COLORS = ["#000", "#c33", "#3a3", "#cc3", "#36c", "#c3c", "#3cc", "#ccc"]


def xterm256(n):
    """The colour of xterm's 256-colour palette entry `n`, as CSS."""
    if n < 8:
        return COLORS[n]
    if n < 16:
        return COLORS[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        r, g, b = steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    v = 8 + 10 * (n - 232)
    return f"#{v:02x}{v:02x}{v:02x}"


def ansi_to_html(text):
    out, state = [], {"b": False, "r": False, "fg": None, "bg": None}
    pos, open_span = 0, False
    for m in SGR.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        pos = m.end()
        codes = [int(c) if c else 0 for c in m.group(1).split(";")] if m.group(1) else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                state = {"b": False, "r": False, "fg": None, "bg": None}
            elif c == 1:
                state["b"] = True
            elif c == 7:
                state["r"] = True
            elif c == 22:
                state["b"] = False
            elif c == 27:
                state["r"] = False
            elif 30 <= c <= 37:
                state["fg"] = COLORS[c - 30]
            elif 40 <= c <= 47:
                state["bg"] = COLORS[c - 40]
            elif c == 39:
                state["fg"] = None
            elif c == 49:
                state["bg"] = None
            elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                state["fg" if c == 38 else "bg"] = xterm256(codes[i + 2])
                i += 2
            elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                r, g, b = codes[i + 2:i + 5]
                state["fg" if c == 38 else "bg"] = f"#{r:02x}{g:02x}{b:02x}"
                i += 4
            i += 1
        if open_span:
            out.append("</span>")
        fg, bg = state["fg"] or "#ddd", state["bg"] or "#1e1e1e"
        if state["r"]:
            fg, bg = bg, fg
        weight = "bold" if state["b"] else "normal"
        out.append(f'<span style="color:{fg};background:{bg};font-weight:{weight}">')
        open_span = True
    out.append(html.escape(text[pos:]))
    if open_span:
        out.append("</span>")
    return "".join(out)


def tui(binary, store):
    sock = f"walk-shots-{os.getpid()}"
    tmux = ["tmux", "-L", sock]
    cmd = f"{binary} walk {TREES} --annotator demo --store {store} --preview blocks"
    subprocess.run(tmux + ["new-session", "-d", "-x", "120", "-y", "52", "-s", "w", cmd], check=True)
    try:
        for _ in range(100):
            screen = subprocess.run(tmux + ["capture-pane", "-p", "-t", "w"],
                                    capture_output=True, text=True).stdout
            if "node n1" in screen:
                break
            time.sleep(0.1)
        subprocess.run(tmux + ["send-keys", "-t", "w", "a"], check=True)
        time.sleep(0.5)
        pane = subprocess.run(tmux + ["capture-pane", "-e", "-p", "-t", "w"],
                              capture_output=True, text=True, check=True).stdout
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
    page = ("<!DOCTYPE html><meta charset=utf-8><body style='margin:0;background:#1e1e1e'>"
            "<pre style='margin:8px;font:14px/1.17 DejaVu Sans Mono,monospace;color:#ddd'>"
            + ansi_to_html(pane) + "</pre>")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pane.html")
        with open(path, "w") as f:
            f.write(page)
        chromium("file://" + path, "docs/walk-tui.png", "1040,880")


def report(binary, tmp):
    out = os.path.join(tmp, "out")
    subprocess.run(
        [binary, "run", "screenplays/the-second-key", "--store", os.path.join(tmp, "report.db"),
         "--out", out, "--embedder", "hashed", "-q"],
        check=True, stdout=subprocess.DEVNULL, timeout=300)
    page = "file://" + os.path.join(out, "reports", "the-second-key", "report.html")
    chromium(page, "docs/report-wide.png", "1280,2300")
    chromium(page, "docs/report-narrow.png", "420,2000")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/moviegraph")
    binary = os.path.abspath(parser.parse_args().bin)
    with tempfile.TemporaryDirectory() as tmp:
        web(binary, os.path.join(tmp, "web.db"))
        tui(binary, os.path.join(tmp, "tui.db"))
        report(binary, tmp)


if __name__ == "__main__":
    main()
