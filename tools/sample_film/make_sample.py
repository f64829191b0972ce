#!/usr/bin/env python3
"""Generate every derived file of moviegraph's bundled sample film, "The Second Key".

The hand-written source of truth is ``screenplays/the-second-key/script.fountain``.
This script parses it with a small Fountain parser (enough for the features the script
uses) and writes, deterministically (fixed seeds, no clock, no network):

  screenplays/the-second-key/script.fdx           the same script as Final Draft XML
  screenplays/the-second-key/script.txt           the same script as IMSDb / pdftotext-style
                                                  plain text, with page noise
  screenplays/the-second-key/subtitles.srt        the film's subtitles (cuts, rewordings,
                                                  splits, merges, ad-libs, one cut scene)
  screenplays/the-second-key/alignment_gold.json  ground truth: dialogue -> cue indices,
                                                  ad-libs, the cut scene, scene times
  keyframes/the-second-key/shot_txt/the-second-key.txt        MovieNet shot list
  keyframes/the-second-key/shot_keyf/the-second-key/*.jpg     3 keyframes per shot
  keyframes/the-second-key/shot_stats/the-second-key.csv      MovieNet-style stats
  keyframes/the-second-key/video_info.json                    fps, frames, duration

Usage (from the repository root, Python 3.11 with Pillow installed):

    python3 tools/sample_film/make_sample.py

Re-running gives byte-identical files (on the same Pillow/libjpeg build; the JPEGs are the
only output that depends on a library). The film-specific editing decisions (which lines
the film cut or reworded, where the actors ad-libbed, which scene was cut) live in the
tables FILM_EDITS, ADLIBS and CUT_SCENE below; the generator checks that every entry
matches exactly one line of the script, so editing the script cannot silently shift them.
The plain-text layout has its own keyed knobs (REVISED, FLUSH_LEFT_TRANSITION, MORE_SPLIT),
and the runtime is set by ACTION_MS_PER_WORD and the scene lead/tail beats. The folder
keyframes/the-second-key/ is emptied before it is rewritten, so no file from an earlier,
longer timeline survives.

Timeline: one film clock in milliseconds. Scene boundaries fall on multiples of 125 ms,
which are whole frames at 24 fps (frame = ms * 24 / 1000), so shot boundaries and scene
boundaries coincide exactly.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

ROOT = Path(__file__).resolve().parents[2]
FILM_ID = "the-second-key"
SP_DIR = ROOT / "screenplays" / FILM_ID
KF_DIR = ROOT / "keyframes" / FILM_ID
FOUNTAIN = SP_DIR / "script.fountain"

FPS = 24
SEED = 20260314

# --------------------------------------------------------------------------------------
# Fountain parsing
# --------------------------------------------------------------------------------------

HEADING_RE = re.compile(r"^(INT\./EXT|INT/EXT|I/E|INT|EXT|EST)[. ]", re.IGNORECASE)
SCENE_NUM_RE = re.compile(r"\s*#([A-Za-z0-9.\-]+)#\s*$")
NOTE_RE = re.compile(r"\s*\[\[(.*?)\]\]")
EXT_RE = re.compile(r"^(.*?)\s*\((V\.O\.|O\.S\.|O\.C\.|CONT'D)\)\s*$")


def is_cue(line: str) -> bool:
    """A character cue: upper case (ignoring a parenthesised extension), has a letter."""
    s = line.rstrip()
    if s.endswith("^"):
        s = s[:-1].rstrip()
    name = re.sub(r"\(.*?\)", "", s).strip()
    return bool(name) and any(c.isalpha() for c in name) and name == name.upper()


def split_runs(text: str) -> list[tuple[str, str]]:
    """Split Fountain emphasis into (text, style) runs; style is '', 'Italic' or 'Bold'."""
    runs: list[tuple[str, str]] = []
    pos = 0
    pat = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*")
    for m in pat.finditer(text):
        if m.start() > pos:
            runs.append((text[pos : m.start()], ""))
        if m.group(1) is not None:
            runs.append((m.group(1), "Bold"))
        else:
            runs.append((m.group(2), "Italic"))
        pos = m.end()
    if pos < len(text):
        runs.append((text[pos:], ""))
    return runs


def plain(text: str) -> str:
    """Text without emphasis markers."""
    return "".join(t for t, _ in split_runs(text))


def parse_fountain(src: str) -> tuple[list[tuple[str, str]], list[dict]]:
    """Return (title page fields, elements). Elements are dicts with a 'type' and 'line'."""
    lines = src.split("\n")
    # Boneyard: blank out /* ... */ (whole lines in this script), keeping line numbers.
    inside = False
    for i, line in enumerate(lines):
        if line.strip().startswith("/*"):
            inside = True
        if inside:
            end = line.strip().endswith("*/")
            lines[i] = ""
            if end:
                inside = False

    # Title page: "Key: value" lines up to the first blank line, indented continuations.
    title: list[tuple[str, str]] = []
    i = 0
    if re.match(r"^[A-Za-z ]+:", lines[0]):
        key = None
        while i < len(lines) and lines[i].strip():
            m = re.match(r"^([A-Za-z ]+):\s*(.*)$", lines[i])
            if m and not lines[i].startswith((" ", "\t")):
                key = m.group(1)
                title.append((key, m.group(2).strip()))
            else:
                k, v = title[-1]
                title[-1] = (k, (v + "\n" + lines[i].strip()).strip())
            i += 1

    # Group the rest into blocks of consecutive non-blank lines.
    blocks: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = 0
    for j in range(i, len(lines)):
        if lines[j].strip():
            if not cur:
                start = j + 1
            cur.append(lines[j])
        elif cur:
            blocks.append((start, cur))
            cur = []
    if cur:
        blocks.append((start, cur))

    els: list[dict] = []
    for lineno, block in blocks:
        first = block[0].strip()
        if re.fullmatch(r"={3,}", first):
            els.append({"type": "page_break", "line": lineno})
        elif first.startswith("#"):
            level = len(first) - len(first.lstrip("#"))
            els.append({"type": "section", "level": level, "text": first[level:].strip(), "line": lineno})
        elif first.startswith("="):
            els.append({"type": "synopsis", "text": first[1:].strip(), "line": lineno})
        elif first.startswith("~"):
            els.append({"type": "lyric", "text": first[1:].strip(), "line": lineno})
        elif first.startswith(">") and first.endswith("<"):
            els.append({"type": "centered", "text": first[1:-1].strip(), "line": lineno})
        elif first.startswith(">"):
            els.append({"type": "transition", "text": first[1:].strip(), "forced": True, "line": lineno})
        elif (first.startswith(".") and not first.startswith("..")) or HEADING_RE.match(first):
            forced = first.startswith(".")
            text = first[1:] if forced else first
            number = None
            m = SCENE_NUM_RE.search(text)
            if m:
                number = m.group(1)
                text = text[: m.start()]
            els.append({"type": "scene_heading", "text": text.strip(), "number": number, "forced": forced, "line": lineno})
        elif first.startswith("!"):
            text_lines = [block[0].strip()[1:]] + [b.strip() for b in block[1:]]
            els.append({"type": "action", "lines": text_lines, "forced": True, "line": lineno, "notes": []})
        elif len(block) == 1 and first == first.upper() and first.endswith("TO:"):
            els.append({"type": "transition", "text": first, "forced": False, "line": lineno})
        elif len(block) > 1 and is_cue(first):
            raw = first
            dual = raw.endswith("^")
            if dual:
                raw = raw[:-1].rstrip()
            m = EXT_RE.match(raw)
            name, ext = (m.group(1), m.group(2)) if m else (raw, None)
            cue = {"type": "character", "text": raw, "name": name.strip(), "ext": ext, "dual": dual, "line": lineno}
            els.append(cue)
            for k, dl in enumerate(block[1:], start=1):
                d = dl.strip()
                if d.startswith("(") and d.endswith(")"):
                    els.append({"type": "parenthetical", "text": d, "line": lineno + k})
                else:
                    els.append({"type": "dialogue", "text": d, "speaker": cue["name"], "ext": ext, "dual": dual, "line": lineno + k})
        else:
            notes: list[str] = []
            text_lines = []
            for b in block:
                notes += NOTE_RE.findall(b)
                text_lines.append(NOTE_RE.sub("", b).strip())
            els.append({"type": "action", "lines": text_lines, "forced": False, "line": lineno, "notes": notes})

    # Post-process: scene index, dual-dialogue pairing, synopsis attached to its heading,
    # page breaks turned into a flag on the next element.
    scene = -1
    pending_break = False
    last_cue_idx = None
    prev_cue_idx = None
    out: list[dict] = []
    for e in els:
        if e["type"] == "page_break":
            pending_break = True
            out.append(e)
            continue
        if pending_break and e["type"] not in ("section", "synopsis"):
            e["new_page"] = True
            pending_break = False
        if e["type"] == "scene_heading":
            scene += 1
        e["scene"] = scene if scene >= 0 else None
        if e["type"] == "character":
            prev_cue_idx, last_cue_idx = last_cue_idx, len(out)
            if e["dual"]:
                left = out[prev_cue_idx]
                left["dual"] = True
                for x in out[prev_cue_idx + 1 :]:
                    if x["type"] == "dialogue":
                        x["dual"], x["dual_side"] = True, "left"
                left["dual_side"], e["dual_side"] = "left", "right"
        if e["type"] == "dialogue" and e.get("dual"):
            e["dual_side"] = out[last_cue_idx].get("dual_side", "right")
        if e["type"] == "synopsis" and out and out[-1]["type"] == "scene_heading":
            out[-1]["synopsis"] = e["text"]
        out.append(e)
    return title, out


def scenes_of(els: list[dict]) -> list[dict]:
    scenes = []
    for k, e in enumerate(els):
        if e["type"] == "scene_heading":
            h = e["text"]
            m = re.match(r"^(INT\./EXT\.|INT/EXT\.?|I/E\.?|INT\.|EXT\.|EST\.)\s*(.*)$", h)
            ie, rest = (m.group(1), m.group(2)) if m else ("", h)
            parts = [p.strip() for p in rest.split(" - ")]
            tod = parts[-1] if len(parts) > 1 else ""
            loc = " - ".join(parts[:-1]) if len(parts) > 1 else rest
            scenes.append({"index": len(scenes), "number": e["number"], "heading": h, "int_ext": ie.rstrip("."),
                           "location": loc, "time": tod, "el_start": k})
    for s, nxt in zip(scenes, scenes[1:] + [None]):
        s["el_end"] = nxt["el_start"] if nxt else len(els)
    return scenes


# --------------------------------------------------------------------------------------
# Final Draft XML
# --------------------------------------------------------------------------------------

def fdx_text_runs(text: str, ind: str) -> list[str]:
    out = []
    for t, style in split_runs(text):
        a = f' Style="{style}"' if style else ""
        out.append(f"{ind}<Text{a}>{xml_escape(t)}</Text>")
    return out


def fdx_paragraph(ptype: str | None, texts: list[str], ind: str, attrs: str = "", inner: list[str] | None = None) -> list[str]:
    t = f' Type="{ptype}"' if ptype else ""
    out = [f"{ind}<Paragraph{attrs}{t}>"]
    out += inner or []
    for k, text in enumerate(texts):
        # Multi-line paragraphs: each line a run, a newline ending every run but the last.
        if k < len(texts) - 1:
            text = text + "\n"
        out += fdx_text_runs(text, ind + "  ")
    out.append(f"{ind}</Paragraph>")
    return out


def write_fdx(title: list[tuple[str, str]], els: list[dict]) -> str:
    ind = "    "
    body: list[str] = []
    note_id = 0
    i = 0
    while i < len(els):
        e = els[i]
        t = e["type"]
        attrs = ' StartsNewPage="Yes"' if e.get("new_page") else ""
        if t in ("page_break", "section", "synopsis"):
            # Sections have no Final Draft equivalent; synopses become the scene's Summary.
            i += 1
            continue
        if t == "scene_heading":
            inner = []
            if e.get("synopsis"):
                inner = [f"{ind}  <SceneProperties>", f"{ind}    <Summary>", f"{ind}      <Paragraph>",
                         f"{ind}        <Text>{xml_escape(e['synopsis'])}</Text>", f"{ind}      </Paragraph>",
                         f"{ind}    </Summary>", f"{ind}  </SceneProperties>"]
            num = f' Number="{e["number"]}"' if e["number"] else ""
            body += fdx_paragraph("Scene Heading", [e["text"]], ind, num + attrs, inner)
        elif t == "action":
            inner = []
            for n in e["notes"]:
                note_id += 1
                inner += [f'{ind}  <ScriptNote ID="{note_id}">', f"{ind}    <Paragraph>",
                          f"{ind}      <Text>{xml_escape(n)}</Text>", f"{ind}    </Paragraph>", f"{ind}  </ScriptNote>"]
            body += fdx_paragraph("Action", e["lines"], ind, attrs, inner)
        elif t == "centered":
            body += fdx_paragraph("Action", [e["text"]], ind, ' Alignment="Center"' + attrs)
        elif t == "lyric":
            body += fdx_paragraph("Lyric", [e["text"]], ind, attrs)
        elif t == "transition":
            body += fdx_paragraph("Transition", [e["text"]], ind, attrs)
        elif t == "character" and e["dual"] and e.get("dual_side") == "left":
            # Gather both speeches of the dual-dialogue pair.
            j = i
            group = []
            sides = 0
            while j < len(els) and els[j]["type"] in ("character", "dialogue", "parenthetical"):
                if els[j]["type"] == "character":
                    sides += 1
                    if sides > 2:
                        break
                group.append(els[j])
                j += 1
            inner = [f"{ind}  <DualDialogue>"]
            for g in group:
                ptype = {"character": "Character", "dialogue": "Dialogue", "parenthetical": "Parenthetical"}[g["type"]]
                inner += fdx_paragraph(ptype, [g["text"]], ind + "    ")
            inner.append(f"{ind}  </DualDialogue>")
            body += [f"{ind}<Paragraph{attrs}>"] + inner + [f"{ind}</Paragraph>"]
            i = j
            continue
        elif t == "character":
            body += fdx_paragraph("Character", [e["text"]], ind, attrs)
        elif t == "parenthetical":
            body += fdx_paragraph("Parenthetical", [e["text"]], ind, attrs)
        elif t == "dialogue":
            body += fdx_paragraph("Dialogue", [e["text"]], ind, attrs)
        else:
            raise ValueError(t)
        i += 1

    tp = dict(title)
    tpar = []

    def tline(text: str, align: str, style: str = "") -> None:
        s = f' Style="{style}"' if style else ""
        tpar.extend([f'{ind}<Paragraph Alignment="{align}">', f"{ind}  <Text{s}>{xml_escape(text)}</Text>", f"{ind}</Paragraph>"])

    for _ in range(3):
        tline("", "Center")
    tline(tp["Title"], "Center", "Bold")
    tline("", "Center")
    tline(tp["Credit"], "Center")
    tline(tp["Author"], "Center")
    tline("", "Center")
    tline(tp["Source"], "Center")
    for _ in range(3):
        tline("", "Left")
    tline(tp["Draft date"], "Left")
    for c in tp["Contact"].split("\n"):
        tline(c, "Left")

    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no" ?>',
           '<FinalDraft DocumentType="Script" Template="No" Version="5">', "", "  <Content>"]
    out += body
    out += ["  </Content>", "", "  <TitlePage>", "    <Content>"]
    out += ["  " + x for x in tpar]
    out += ["    </Content>", "  </TitlePage>", "", "</FinalDraft>", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# Plain text (IMSDb / pdftotext layout)
# --------------------------------------------------------------------------------------

PAGE_LINES = 55          # every page, title page included, is exactly this many lines
BODY_LINES = 50          # story lines available below the running header
COL_NUM_L = 8            # left scene number
COL_HEADING = 15         # scene heading, action, CONTINUED:
COL_NUM_R = 74           # right scene number
WIDTH_ACTION = 60
COL_CUE = 37
COL_PAREN = 31
WIDTH_PAREN = 25
COL_DIAL = 25
WIDTH_DIAL = 35
RIGHT_EDGE = 75          # transitions, page numbers and (CONTINUED) end here
COL_STAR = 79            # revision asterisks
HEADER = "THE SECOND KEY - Blue Revision 03/14/26"
# Dual dialogue is printed side by side, as pdftotext -layout renders it.
DUAL_L_CUE, DUAL_L_DIAL, DUAL_R_CUE, DUAL_R_DIAL, DUAL_WIDTH = 17, 10, 50, 43, 28

# Elements whose printed lines carry a revision asterisk, keyed like FILM_EDITS.
REVISED = [
    ("8", "MARA", "Do what you have to do."),
    ("8", "action", "Quinton stares at her. He hears permission."),
    ("11", "TEO", "Your father never threw his key"),
    ("13", "MARA", "I was giving it to you."),
]
FLUSH_LEFT_TRANSITION = ("6", "CUT TO:")  # the one transition a messy PDF put at column 0
# The speech that is broken across a page with (MORE) / NAME (CONT'D), keyed by one of its
# dialogue elements. The page ends inside it even when it would fit (as late in the speech
# as the two-lines-each-side rule allows), so the feature survives edits to the script;
# keep it a speech of >= 4 dialogue lines that sits near the bottom of a page. Any other
# speech that does not fit at the bottom of a page is split the same way.
MORE_SPLIT = ("14", "MARA", '"If you')


def wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False) or [""]


def scene_num_line(num: str, text: str) -> str:
    left = " " * COL_NUM_L + num
    line = left.ljust(COL_HEADING) + text
    return line.ljust(COL_NUM_R) + num


def element_key(e: dict, scenes: list[dict]) -> tuple[str, str, str] | None:
    sc = scenes[e["scene"]]["number"] if e.get("scene") is not None else ""
    if e["type"] == "dialogue":
        return (sc, e["speaker"], e["text"])
    if e["type"] == "action":
        return (sc, "action", " ".join(e["lines"]))
    if e["type"] == "transition":
        return (sc, e["text"], e["text"])
    return None


def key_matches(key: tuple[str, str, str], e: dict, scenes: list[dict]) -> bool:
    k = element_key(e, scenes)
    return k is not None and k[0] == key[0] and k[1] == key[1] and plain(k[2]).startswith(key[2])


def find_one(key: tuple[str, str, str], els: list[dict], scenes: list[dict]) -> int:
    """The index of the one element that `key` (scene number, speaker or kind, text prefix) names."""
    hits = [k for k, e in enumerate(els) if key_matches(key, e, scenes)]
    if len(hits) != 1:
        raise SystemExit(f"make_sample: key {key} matches {len(hits)} elements of the script, not 1")
    return hits[0]


def write_txt(title: list[tuple[str, str]], els: list[dict], scenes: list[dict]) -> tuple[str, dict]:
    """Render the script; return (text, layout facts for the README/report)."""
    revised_ids = {find_one(key, els, scenes) for key in REVISED}
    more_split_id = find_one(MORE_SPLIT, els, scenes)
    sc, text = FLUSH_LEFT_TRANSITION
    flush_left_id = find_one((sc, text, text), els, scenes)

    # 1. Turn elements into blocks: (kind, lines, meta). Blank lines between blocks are
    #    added by the paginator.
    blocks: list[dict] = []
    i = 0
    while i < len(els):
        e = els[i]
        t = e["type"]
        star = i in revised_ids
        if t in ("section", "synopsis", "page_break"):
            if t == "page_break":
                blocks.append({"kind": "page_break"})
            i += 1
            continue
        if t == "scene_heading":
            num = e["number"] or ""
            blocks.append({"kind": "heading", "lines": [scene_num_line(num, e["text"])], "scene": e["scene"], "star": star})
        elif t == "action":
            lines = []
            for l in e["lines"]:
                lines += [" " * COL_HEADING + w for w in wrap(plain(l), WIDTH_ACTION)]
            blocks.append({"kind": "action", "lines": lines, "scene": e["scene"], "star": star})
        elif t == "centered":
            txt = plain(e["text"])
            pad = (COL_HEADING + RIGHT_EDGE) // 2 - len(txt) // 2
            blocks.append({"kind": "action", "lines": [" " * pad + txt], "scene": e["scene"]})
        elif t == "lyric":
            lines = [" " * COL_DIAL + w for w in wrap(plain(e["text"]), WIDTH_DIAL)]
            blocks.append({"kind": "action", "lines": lines, "scene": e["scene"]})
        elif t == "transition":
            txt = e["text"]
            line = txt if i == flush_left_id else txt.rjust(RIGHT_EDGE)
            blocks.append({"kind": "transition", "lines": [line], "scene": e["scene"]})
        elif t == "character" and e["dual"] and e.get("dual_side") == "left":
            left_cue, left_d = e, els[i + 1]
            right_cue, right_d = els[i + 2], els[i + 3]
            assert left_d["type"] == right_d["type"] == "dialogue" and right_cue["type"] == "character"
            lw = [" " * DUAL_L_DIAL + w for w in wrap(plain(left_d["text"]), DUAL_WIDTH)]
            rw = [" " * DUAL_R_DIAL + w for w in wrap(plain(right_d["text"]), DUAL_WIDTH)]
            lines = [(" " * DUAL_L_CUE + left_cue["text"]).ljust(DUAL_R_CUE) + right_cue["text"]]
            for k in range(max(len(lw), len(rw))):
                l = lw[k] if k < len(lw) else ""
                r = rw[k] if k < len(rw) else ""
                lines.append((l.ljust(DUAL_R_DIAL) + r.strip()).rstrip() if r else l)
            blocks.append({"kind": "action", "lines": lines, "scene": e["scene"]})
            i += 4
            continue
        elif t == "character":
            # A speech: cue, then parentheticals and dialogue runs until the next non-speech.
            parts = []  # (kind, line, star)
            parts.append(("cue", " " * COL_CUE + e["text"], False))
            forced = False
            j = i + 1
            while j < len(els) and els[j]["type"] in ("dialogue", "parenthetical"):
                x = els[j]
                st = j in revised_ids
                forced = forced or j == more_split_id
                if x["type"] == "parenthetical":
                    w = wrap(x["text"], WIDTH_PAREN)
                    parts += [("paren", " " * (COL_PAREN if k == 0 else COL_PAREN + 1) + l, st) for k, l in enumerate(w)]
                else:
                    parts += [("dial", " " * COL_DIAL + l, st) for l in wrap(plain(x["text"]), WIDTH_DIAL)]
                j += 1
            blocks.append({"kind": "speech", "parts": parts, "cue": e["text"], "scene": e["scene"], "force_split": forced})
            i = j
            continue
        else:
            raise ValueError(t)
        i += 1

    # 2. Paginate.
    def star_line(line: str) -> str:
        return line.ljust(COL_STAR) + "*"

    pages: list[list[str]] = []
    page: list[str] = []
    cont_count: dict[int, int] = {}
    facts = {"more_contd": [], "continued": [], "stars": 0}

    def new_page(scene_continues: int | None) -> None:
        nonlocal page
        if page:
            if scene_continues is not None:
                page.append("")
                page.append("(CONTINUED)".rjust(RIGHT_EDGE))
            pages.append(page)
        page = []
        if scene_continues is not None:
            n = cont_count.get(scene_continues, 1) + 1
            cont_count[scene_continues] = n
            label = "CONTINUED:" if n == 2 else f"CONTINUED: ({n - 1})"
            page.append(scene_num_line(scenes[scene_continues]["number"], label))
            page.append("")
            facts["continued"].append(len(pages) + 1)

    def room() -> int:
        return BODY_LINES - 2 - len(page)  # keep 2 lines for a possible (CONTINUED)

    for b in blocks:
        if b["kind"] == "page_break":
            new_page(None)
            continue
        gap = 0 if not page or (page and page[-1] == "") else (2 if b["kind"] == "heading" else 1)
        if b["kind"] == "speech":
            lines = [p[1] for p in b["parts"]]
            stars = [p[2] for p in b["parts"]]
        else:
            lines = b["lines"]
            stars = [b.get("star", False)] * len(lines)
        need = gap + len(lines) + (2 if b["kind"] == "heading" else 0)  # keep a heading with 2 lines
        if need <= room() and not b.get("force_split"):
            page += [""] * gap
            page += [star_line(l) if s else l for l, s in zip(lines, stars)]
            continue
        # Does not fit. Split a speech with >= 2 dialogue lines on each side; else move it.
        if b["kind"] == "speech":
            avail = room() - gap - 1  # one line for (MORE)
            dial_idx = [k for k, p in enumerate(b["parts"]) if p[0] == "dial"]
            cut = None
            for k in range(len(b["parts"]) - 2, 0, -1):
                if k + 1 <= avail and b["parts"][k][0] == "dial" and b["parts"][k + 1][0] == "dial" \
                        and sum(1 for d in dial_idx if d <= k) >= 2 and sum(1 for d in dial_idx if d > k) >= 2:
                    cut = k
                    break
            if cut is not None:
                first = b["parts"][: cut + 1]
                rest = b["parts"][cut + 1 :]
                page += [""] * gap
                page += [star_line(p[1]) if p[2] else p[1] for p in first]
                page.append(" " * COL_PAREN + "(MORE)")
                new_page(b["scene"])
                cue = b["cue"] if b["cue"].endswith("(CONT'D)") else b["cue"] + " (CONT'D)"
                page.append(" " * COL_CUE + cue)
                page += [star_line(p[1]) if p[2] else p[1] for p in rest]
                facts["more_contd"].append(len(pages) + 1)
                continue
        if b.get("force_split"):
            raise SystemExit(f"make_sample: MORE_SPLIT {MORE_SPLIT} names a speech that cannot be split "
                             "(it needs >= 4 dialogue lines and room for 2 of them on its page)")
        cont = b["scene"] if b["kind"] != "heading" and b.get("scene") is not None else None
        new_page(cont)
        page += [star_line(l) if s else l for l, s in zip(lines, stars)]
    pages.append(page)

    # 3. Assemble: a title page, then numbered pages with a running header.
    tp = dict(title)
    out: list[str] = []
    title_page = [""] * 18
    for t in [tp["Title"], "", tp["Credit"], "", tp["Author"], "", tp["Source"]]:
        title_page.append(t.center(80).rstrip() if t else "")
    while len(title_page) < 44:
        title_page.append("")
    title_page.append(" " * 10 + tp["Draft date"])
    title_page.append("")
    for c in tp["Contact"].split("\n"):
        title_page.append(" " * 10 + c)
    title_page += [""] * (PAGE_LINES - len(title_page))
    out += title_page
    for n, pg in enumerate(pages, start=1):
        head = " " * COL_HEADING + HEADER
        if n > 1:
            head = head.ljust(RIGHT_EDGE - len(f"{n}.")) + f"{n}."
        lines = [head, "", ""] + pg
        assert len(lines) <= PAGE_LINES, (n, len(lines))
        lines += [""] * (PAGE_LINES - len(lines))
        out += lines
    facts["stars"] = sum(1 for l in out if l.endswith("*") and len(l) == COL_STAR + 1)
    facts["pages"] = len(pages)
    facts["title_page_lines"] = PAGE_LINES
    return "\n".join(l.rstrip() if not l.endswith("*") else l for l in out) + "\n", facts



# --------------------------------------------------------------------------------------
# The film: editing decisions, subtitle cues and the timeline
# --------------------------------------------------------------------------------------

# The scene the film dropped: none of its dialogue has a cue, its time is absent.
CUT_SCENE = "7"

# Per dialogue element, keyed by (scene number, speaker, first words of the script text):
#   cut        the line is not in the film
#   text       what the actor says instead (the subtitle text)
#   merge_next this line and the next dialogue element share one cue (a speaker-dash cue
#              when the speakers differ)
FILM_EDITS: dict[tuple[str, str, str], dict] = {
    ("2", "JUNE", '"Arrears of eleven'): {"text": '"Arrears of £11,000, payable by the 31st." Mara.'},
    ("2", "MARA", "I know."): {"cut": True},
    ("2", "MARA", "Mum's sapphire"): {"text": "Mum's sapphire is the last thing in here worth anything. A dealer comes up Friday. He'll give me fourteen."},
    ("2", "QUINTON", "I remember the splash."): {"text": "I remember the splash. Threw it like a cricket ball."},
    ("3", "HOLLIS", "Forty thousand, Friday."): {"text": "Forty grand, Friday. Your sister's shop is very pretty, Quinton. All that glass."},
    ("4", "JUNE", "Do you?"): {"merge_next": True},
    ("5", "MARA", "How much?"): {"merge_next": True},
    ("5", "MARA", "Dad bailed you out"): {"text": "Dad bailed you out of everything. Every single time. He never once bailed me out, 'cause I never once asked. I'm not starting with you."},
    ("8", "QUINTON", "How long have you known?"): {"cut": True},
    ("8", "QUINTON", "June."): {"merge_next": True, "text": "June..."},
    # The dual-dialogue pair overlaps on screen; the film keeps it as one dash cue, clipped.
    ("8", "QUINTON", "I didn't want you"): {"text": "I didn't want you to have to choose..."},
    ("8", "MARA", "You never want"): {"text": "You never want anything to be your fault"},
    ("9", "QUINTON", "And she told me"): {"text": "She told me to do what I have to. She's letting me take it, Hollis. She's actually letting me. Midnight, then."},
    ("9", "QUINTON", "You don't need to"): {"cut": True},
    ("10", "MARA", "I'm giving it to Quinton."): {"text": "I'm giving it to Quinton. Tomorrow, before Lyle comes."},
    ("10", "JUNE", "Does he know it's out?"): {"merge_next": True},
    ("11", "TEO", "Your father never threw"): {"text": "Your dad never threw his key off that pier, love. He threw a bolt. Told me so that same night. Said if you two ever wanted what's in that safe, you'd have to want it together."},
    ("11", "MARA", "He lied to us."): {"cut": True},
    ("11", "MARA", "And then I told him"): {"cut": True},
    ("12A", "JUNE", "Should I call the police?"): {"merge_next": True},
    ("13", "QUINTON", "I found it the night"): {"text": "I found it the night we buried him. In his coat. I lied to you and you believed me. You always do."},
    ("13", "MARA", "It's worth more than he owes."): {"text": "It's worth more than he owes. Take it and go. Never come into my shop again."},
    ("14", "MARA", "It's not enough."): {"merge_next": True},
    ("15", "MARA", "The letter stays with me."): {"merge_next": True},
    ("15", "TEO", "Harbour office."): {"text": "Harbour office. Log it: the Patience changed hands at six, Ellis to Barnes. Nothing to report."},
}

# Lines the actors added that are in no version of the script: (where, key, speaker, text),
# where is "before" or "after" the keyed dialogue element.
ADLIBS = [
    ("before", ("2", "QUINTON", "Peace offering."), "QUINTON", "Morning, morning."),
    ("before", ("5", "QUINTON", "I need a loan."), "MARA", "You walk too fast."),
    ("after", ("12", "QUINTON", "Come on, Dad."), "QUINTON", "Come on, come on..."),
    ("before", ("13", "MARA", "Dad's key."), "HOLLIS", "Evening, Ms. Ellis."),
    ("before", ("15", "MARA", "The letter stays with me."), "TEO", "Mind the step, love."),
]

# Characters on screen in each scene (initials are drawn on the keyframes).
INITIALS = {"MARA": "ME", "QUINTON": "QE", "JUNE": "JO", "TEO": "TB", "HOLLIS": "HR"}
ON_SCREEN = {
    "1": ["QUINTON", "TEO"], "2": ["MARA", "JUNE", "QUINTON"], "3": ["QUINTON"], "4": ["MARA", "JUNE"],
    "5": ["MARA", "QUINTON"], "6": ["QUINTON"], "7": ["JUNE", "QUINTON"], "8": ["MARA", "QUINTON", "JUNE"],
    "9": ["QUINTON"], "10": ["MARA", "JUNE"], "11": ["MARA", "TEO"], "12": ["QUINTON", "HOLLIS"],
    "12A": ["JUNE", "MARA"], "13": ["MARA", "QUINTON", "HOLLIS"], "14": ["MARA", "QUINTON", "JUNE"],
    "15": ["MARA", "QUINTON", "TEO"],
}

# Keyframe captions where the location is too long for 160 px.
CAPTIONS = {"ELLIS WATCH & PAWN - WORKSHOP": "ELLIS W&P - WORKSHOP", "HARWICK HARBOUR - THE PATIENCE": "HARBOUR - THE PATIENCE"}

MAX_LINE = 42
TITLE_CARD_MS = 4000
END_CARD_MS = 5000
# Screen time of what is not dialogue: an action paragraph plays for ACTION_MS_PER_WORD per
# word, clamped to [ACTION_MIN_MS, ACTION_MAX_MS]; every scene opens and closes with a beat
# of SCENE_LEAD_MS / SCENE_TAIL_MS (plus up to a second). Together they set the runtime.
ACTION_MS_PER_WORD = 140
ACTION_MIN_MS, ACTION_MAX_MS = 2000, 7000
SCENE_LEAD_MS, SCENE_TAIL_MS = 2500, 2000


def cue_lines(text: str) -> list[str]:
    """Break one subtitle into at most two lines of at most MAX_LINE characters, balanced."""
    if len(text) <= MAX_LINE:
        return [text]
    best = None
    for m in re.finditer(" ", text):
        a, b = text[: m.start()], text[m.start() + 1 :]
        if len(a) <= MAX_LINE and len(b) <= MAX_LINE:
            score = abs(len(a) - len(b)) - {".": 20, "?": 20, "!": 20, ",": 10}.get(a[-1], 0)
            if best is None or score < best[0]:
                best = (score, [a, b])
    assert best is not None, text
    return best[1]


def chunks(text: str) -> list[str]:
    """Split a line of dialogue into subtitle-sized pieces at sentence (or word) boundaries."""
    protected = text.replace("Ms. ", "Ms\u0000 ")
    sentences = [x.replace("\u0000", ".") for x in re.split(r"(?<=[.?!])\s+", protected) if x]
    pieces: list[str] = []
    for s in sentences:
        if len(s) <= 2 * MAX_LINE - 4:
            pieces.append(s)
        else:  # a long sentence: cut at word boundaries into two-line pieces
            words = textwrap.wrap(s, width=2 * MAX_LINE - 8, break_long_words=False)
            pieces += words
    out: list[str] = []
    for p in pieces:
        if out and len(out[-1]) + 1 + len(p) <= 2 * MAX_LINE - 4:
            try:
                cue_lines(out[-1] + " " + p)
                out[-1] = out[-1] + " " + p
                continue
            except AssertionError:
                pass
        out.append(p)
    return out


def cue_duration_ms(text: str, rng: random.Random) -> int:
    words = len(re.findall(r"[\w'£,]+", text))
    secs = words / 2.9 + 0.25 + rng.uniform(0.0, 0.25)
    return int(round(min(6.0, max(1.0, secs)) * 1000))


def ceil125(ms: float) -> int:
    return int(-(-ms // 125) * 125)


def build_film(els: list[dict], scenes: list[dict]) -> dict:
    """Decide every cue, its time and what it came from; and every scene's time range."""
    rng = random.Random(SEED)
    dia = [k for k, e in enumerate(els) if e["type"] == "dialogue"]
    dpos = {k: n for n, k in enumerate(dia)}  # element index -> dialogue index
    edits: dict[int, dict] = {}
    for key, ed in FILM_EDITS.items():
        edits[find_one(key, els, scenes)] = ed
    adl_before: dict[int, list] = {}
    adl_after: dict[int, list] = {}
    for where, key, spk, text in ADLIBS:
        k = find_one(key, els, scenes)
        (adl_before if where == "before" else adl_after).setdefault(k, []).append((spk, text))
    cut_scene = next(s for s in scenes if s["number"] == CUT_SCENE)

    cues: list[dict] = []          # {start, end, text, kind, dialogue: [dialogue indices], speaker}
    dmap: dict[int, list[int]] = {n: [] for n in range(len(dia))}
    scene_times: dict[int, tuple[int, int] | None] = {}
    el_time: dict[int, int] = {}  # element index -> film time when it starts

    def add_cue(t: int, text: str, kind: str, dlist: list[int], italic: bool) -> int:
        lines = text.split("\n") if "\n" in text else cue_lines(text)
        dur = min(6000, cue_duration_ms(text, rng) + (400 if text.startswith("- ") else 0))
        body = "\n".join(lines)
        if italic:
            body = f"<i>{body}</i>"
        cues.append({"start": t, "end": t + dur, "text": body, "kind": kind, "dialogue": dlist})
        for d in dlist:
            dmap[d].append(len(cues))
        return t + dur

    def film_text(k: int) -> str:
        return plain(edits.get(k, {}).get("text", els[k]["text"]))

    t = TITLE_CARD_MS
    for sc in scenes:
        if sc is cut_scene:
            scene_times[sc["index"]] = None
            continue
        start = t
        t += SCENE_LEAD_MS + rng.randint(0, 1000)
        k = sc["el_start"]
        while k < sc["el_end"]:
            e = els[k]
            ty = e["type"]
            el_time[k] = t
            if ty == "action":
                words = sum(len(l.split()) for l in e["lines"])
                t += int(min(ACTION_MAX_MS, max(ACTION_MIN_MS, words * ACTION_MS_PER_WORD)) + rng.randint(0, 500))
            elif ty == "parenthetical":
                t += 350 if e["text"] != "(beat)" else 900
            elif ty in ("transition", "lyric"):
                t += 1200 if ty == "lyric" else 300
            elif ty == "dialogue":
                for spk, text in adl_before.get(k, []):
                    t = add_cue(t, text, "adlib", [], False) + rng.randint(250, 700)
                ed = edits.get(k, {})
                if ed.get("cut"):
                    k += 1
                    continue
                italic = e["ext"] == "V.O."
                group = [k]
                if ed.get("merge_next") or (e.get("dual") and e.get("dual_side") == "left"):
                    nxt = next(j for j in range(k + 1, sc["el_end"]) if els[j]["type"] == "dialogue")
                    group.append(nxt)
                if len(group) == 2:
                    a, b = group
                    if els[a]["speaker"] == els[b]["speaker"]:
                        text = film_text(a) + " " + film_text(b)
                        assert len(chunks(text)) == 1, text
                    else:
                        la, lb = "- " + film_text(a), "- " + film_text(b)
                        assert len(la) <= MAX_LINE and len(lb) <= MAX_LINE, (la, lb)
                        text = la + "\n" + lb
                    t = add_cue(t, text, "dialogue", [dpos[a], dpos[b]], italic)
                    k = b
                else:
                    pieces = chunks(film_text(k))
                    for n, piece in enumerate(pieces):
                        t = add_cue(t, piece, "dialogue", [dpos[k]], italic)
                        if n < len(pieces) - 1:
                            t += rng.randint(90, 220)
                t += rng.randint(200, 650)
                for spk, text in adl_after.get(k, []):
                    t = add_cue(t, text, "adlib", [], False) + rng.randint(250, 700)
            k += 1
        t = ceil125(t + SCENE_TAIL_MS + rng.randint(0, 1000))
        scene_times[sc["index"]] = (start, t)
    end_card = (t, t + END_CARD_MS)
    total = end_card[1]
    for n, c in enumerate(cues, start=1):
        assert 1000 <= c["end"] - c["start"] <= 6000, c
        if n > 1:
            assert c["start"] - cues[n - 2]["end"] >= 80, (n, c)
    return {"cues": cues, "dmap": dmap, "dia": dia, "scene_times": scene_times, "title_card": (0, TITLE_CARD_MS),
            "end_card": end_card, "duration_ms": total, "cut_scene": cut_scene, "edits": edits, "el_time": el_time}


def srt_time(ms: int) -> str:
    h, ms = divmod(ms, 3600000)
    m, ms = divmod(ms, 60000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def write_srt(film: dict) -> str:
    out = []
    for n, c in enumerate(film["cues"], start=1):
        out.append(f"{n}\n{srt_time(c['start'])} --> {srt_time(c['end'])}\n{c['text']}\n")
    return "\n".join(out)


def write_gold(els: list[dict], scenes: list[dict], film: dict, shots_by_scene: dict) -> str:
    dia = film["dia"]
    merged_with = {}
    for c in film["cues"]:
        if len(c["dialogue"]) == 2:
            a, b = c["dialogue"]
            merged_with[a], merged_with[b] = b, a
    dialogue = []
    for n, k in enumerate(dia):
        e = els[k]
        sc = scenes[e["scene"]]
        ed = film["edits"].get(k, {})
        if sc is film["cut_scene"]:
            status = "scene_cut"
        elif ed.get("cut"):
            status = "line_cut"
        elif n in merged_with:
            status = "merged"
        elif ed.get("text"):
            status = "reworded"
        elif len(film["dmap"][n]) > 1:
            status = "split"
        else:
            status = "verbatim"
        if status == "merged" and ed.get("text"):
            status = "merged_reworded"
        dialogue.append({
            "index": n,
            "scene_index": sc["index"],
            "scene_number": sc["number"],
            "speaker": e["speaker"],
            "extension": e["ext"],
            "dual": bool(e.get("dual")),
            "fountain_line": e["line"],
            "first_words": " ".join(plain(e["text"]).split()[:5]),
            "text": plain(e["text"]),
            "status": status,
            "cues": film["dmap"][n],
        })
    adlibs = [n for n, c in enumerate(film["cues"], start=1) if c["kind"] == "adlib"]
    scene_out = []
    for sc in scenes:
        st = film["scene_times"][sc["index"]]
        first, last = shots_by_scene.get(sc["index"], (None, None))
        scene_out.append({
            "index": sc["index"], "number": sc["number"], "heading": sc["heading"],
            "start_ms": st[0] if st else None, "end_ms": st[1] if st else None,
            "first_shot": first, "last_shot": last,
        })
    cues = [{"index": n, "start_ms": c["start"], "end_ms": c["end"], "text": c["text"], "kind": c["kind"],
             "dialogue": c["dialogue"]} for n, c in enumerate(film["cues"], start=1)]
    gold = {
        "film": FILM_ID,
        "notes": [
            "dialogue: one entry per Dialogue element in script order (a parenthetical inside a speech "
            "starts a new element; dual dialogue lists the left speech first). index is 0-based; "
            "cue numbers are the 1-based SRT numbers.",
            "status: verbatim, reworded, split (several cues), merged (shares one cue with its "
            "neighbour), merged_reworded, line_cut, scene_cut.",
            "times are milliseconds on the film clock; end_ms is exclusive; frame = ms * 24 / 1000.",
            "title_card and end_card are shots outside any scene (the title, and the centered THE END).",
        ],
        "fps": float(FPS),
        "duration_ms": film["duration_ms"],
        "title_card": {"start_ms": film["title_card"][0], "end_ms": film["title_card"][1]},
        "end_card": {"start_ms": film["end_card"][0], "end_ms": film["end_card"][1]},
        "cut_scene": {"index": film["cut_scene"]["index"], "number": film["cut_scene"]["number"],
                      "heading": film["cut_scene"]["heading"]},
        "adlib_cues": adlibs,
        "dialogue": dialogue,
        "scenes": scene_out,
        "cues": cues,
    }
    return json.dumps(gold, indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------
# Shots and keyframes (MovieNet layout)
# --------------------------------------------------------------------------------------

W, H = 160, 90
MIN_SHOT, MAX_SHOT = 24, 192  # frames: 1 s .. 8 s
FIG_COLOURS = {"MARA": (196, 48, 48), "QUINTON": (52, 92, 200), "JUNE": (232, 184, 40),
               "TEO": (46, 140, 70), "HOLLIS": (60, 50, 44)}
BRIGHTNESS = {"NIGHT": 0.5, "EVENING": 0.75, "DUSK": 0.8, "DAY": 1.0, "DAWN": 0.95}


def effective_times(scenes: list[dict]) -> dict[int, str]:
    out, prev = {}, "DAY"
    for sc in scenes:
        tod = sc["time"]
        if tod in ("CONTINUOUS", "LATER"):
            tod = prev
        if sc["number"] == "14":
            tod = "DAWN"  # "LATER", but the action says grey dawn at the window
        out[sc["index"]] = tod
        prev = tod
    return out


def split_shots(n_frames: int, rng: random.Random) -> list[int]:
    lens, left = [], n_frames
    while left > MAX_SHOT:
        d = rng.randint(48, min(180, left - MIN_SHOT))
        lens.append(d)
        left -= d
    lens.append(left)
    assert all(MIN_SHOT <= x <= MAX_SHOT for x in lens) and sum(lens) == n_frames
    return lens


def entrances(sc: dict, els: list[dict], film: dict) -> dict[str, int]:
    """When each on-screen character of a scene first appears: the first action line that
    names them, or their first line spoken on screen (not V.O./O.S.)."""
    out = {}
    for name in ON_SCREEN[sc["number"]]:
        when = None
        for k in range(sc["el_start"], sc["el_end"]):
            e = els[k]
            if e["type"] == "action" and re.search(rf"\b({name}|{name.title()})\b", " ".join(e["lines"])):
                when = film["el_time"][k]
            elif e["type"] == "dialogue" and e["speaker"] == name and e["ext"] not in ("V.O.", "O.S."):
                when = film["el_time"][k]
            if when is not None:
                break
        assert when is not None, (sc["number"], name)
        out[name] = when
    return out


def plan_shots(els: list[dict], scenes: list[dict], film: dict) -> tuple[list[dict], dict]:
    """Every shot: frames, keyframe frames, what to draw. Also scene -> (first, last) shot."""
    shots = []

    def add(start_f: int, length: int, draw: dict) -> None:
        end_f = start_f + length - 1
        kfs = [start_f + (length * k) // 4 for k in (1, 2, 3)]
        shots.append({"start": start_f, "end": end_f, "kf": kfs, "draw": draw})

    ms2f = lambda ms: ms * FPS // 1000  # exact: every boundary is a multiple of 125 ms
    a, b = film["title_card"]
    add(ms2f(a), ms2f(b) - ms2f(a), {"card": "THE SECOND KEY"})
    tods = effective_times(scenes)
    by_scene = {}
    for sc in scenes:
        st = film["scene_times"][sc["index"]]
        if st is None:
            continue
        rng = random.Random(f"{SEED}-shots-{sc['number']}")
        f0, f1 = ms2f(st[0]), ms2f(st[1])
        enters = entrances(sc, els, film)
        first = len(shots)
        pos = f0
        for n, length in enumerate(split_shots(f1 - f0, rng)):
            shot_end_ms = (pos + length) * 1000 // FPS
            people = [p for p in ON_SCREEN[sc["number"]] if enters[p] < shot_end_ms]
            if sc["number"] == "12A":  # intercut: alternate the two places
                who = [ON_SCREEN["12A"][n % 2]]
                place = ["JUNE'S FLAT", "MARA'S CAR"][n % 2]
                kind = "single"
            else:
                place = sc["location"]
                if n == 0 or len(people) <= 1:
                    kind = "wide" if n == 0 else rng.choice(["single", "wide"])
                    who = list(people)
                else:
                    kind = rng.choice(["single", "single", "two", "wide"])
                    who = {"single": [rng.choice(people)], "two": rng.sample(people, 2), "wide": list(people)}[kind]
                    if kind == "two":
                        who = [p for p in people if p in who]
            add(pos, length, {"scene": sc["number"], "place": place, "tod": tods[sc["index"]], "kind": kind,
                              "who": who, "seed": f"{SEED}-{sc['number']}-{n}"})
            pos += length
        by_scene[sc["index"]] = (first, len(shots) - 1)
    a, b = film["end_card"]
    add(ms2f(a), ms2f(b) - ms2f(a), {"card": "THE END"})
    for x, y in zip(shots, shots[1:]):
        assert y["start"] == x["end"] + 1
    assert shots[0]["start"] == 0 and shots[-1]["end"] == ms2f(film["duration_ms"]) - 1
    return shots, by_scene


def draw_background(d, place: str, rng: random.Random) -> None:
    p = place.upper()
    if "CABIN" in p:
        d.rectangle([0, 0, W, H], fill=(92, 60, 38))
        for y in range(4, H, 9):
            d.line([0, y, W, y], fill=(70, 45, 28))
        d.ellipse([122, 8, 138, 24], fill=(250, 210, 110))
        d.rectangle([8, 52, 40, 72], fill=(160, 130, 90))  # boxes
        d.rectangle([44, 58, 70, 72], fill=(150, 120, 80))
    elif "WORKSHOP" in p:
        d.rectangle([0, 0, W, H], fill=(150, 138, 100))
        d.rectangle([0, 60, W, 66], fill=(100, 70, 45))  # bench
        d.polygon([(110, 0), (124, 0), (150, 60), (84, 60)], fill=(190, 178, 130))  # lamp cone
        for x in range(10, 70, 12):
            d.rectangle([x, 18, x + 8, 30], outline=(80, 70, 50))  # tool drawers
    elif "WATCH & PAWN" in p:
        d.rectangle([0, 0, W, H], fill=(198, 182, 140))
        for cx, cy, r in [(20, 16, 8), (46, 12, 6), (70, 18, 9), (100, 12, 5)]:
            d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(235, 228, 205), outline=(70, 55, 40))
            d.line([cx, cy, cx, cy - r + 2], fill=(40, 30, 20))
        d.rectangle([0, 62, W, 78], fill=(120, 82, 50))  # counter
        d.rectangle([122, 36, 150, 66], fill=(40, 92, 62), outline=(20, 50, 30))  # the safe
        d.ellipse([134, 48, 138, 52], fill=(200, 170, 60))
    elif "ALLEY" in p:
        d.rectangle([0, 0, W, H], fill=(112, 108, 112))
        for row, y in enumerate(range(0, H, 6)):
            d.line([0, y, W, y], fill=(90, 86, 90))
            for x in range(-6 if row % 2 else 0, W, 14):
                d.line([x, y, x, y + 6], fill=(90, 86, 90))
        d.rectangle([118, 50, 146, 78], fill=(50, 70, 50))  # bins
    elif "PIER" in p:
        for y in range(46):
            c = (int(240 - y * 2.2), int(150 - y * 1.6), int(90 + y * 0.9))
            d.line([0, y, W, y], fill=c)
        d.rectangle([0, 46, W, H], fill=(40, 60, 92))
        d.polygon([(60, H), (100, H), (86, 46), (74, 46)], fill=(110, 80, 55))  # pier
    elif "ROOM" in p:
        for x in range(0, W, 10):
            d.rectangle([x, 0, x + 4, H], fill=(90, 110, 150))
            d.rectangle([x + 5, 0, x + 9, H], fill=(80, 100, 140))
        d.rectangle([110, 10, 150, 40], fill=(60, 90, 130), outline=(230, 230, 230))  # window
        d.rectangle([0, 64, 90, 78], fill=(110, 80, 60))  # desk
    elif "HARBOUR OFFICE" in p:
        d.rectangle([0, 0, W, H], fill=(60, 112, 112))
        d.rectangle([112, 44, 150, 62], fill=(35, 35, 35))  # marine radio
        d.ellipse([138, 48, 146, 56], fill=(200, 60, 40))
        d.rectangle([14, 10, 44, 40], fill=(235, 235, 220))  # tide tables
        for y in range(14, 38, 4):
            d.line([17, y, 41, y], fill=(120, 120, 120))
    elif "JUNE'S FLAT" in p:
        d.rectangle([0, 0, W, H], fill=(92, 72, 112))
        for k in range(6):
            d.rectangle([100 + k * 10, 78 - k * 10, 160, 78 - k * 10 + 10], fill=(70, 52, 86))  # stairs
    elif "MARA'S CAR" in p:
        d.rectangle([0, 0, W, H], fill=(30, 30, 40))
        d.rectangle([10, 6, 150, 40], fill=(60, 72, 95))  # windscreen
        for _ in range(14):
            x, y = rng.randint(12, 146), rng.randint(8, 34)
            d.line([x, y, x - 2, y + 5], fill=(150, 160, 190))  # rain
        d.ellipse([100, 50, 140, 90], outline=(90, 90, 90), width=3)  # steering wheel
    elif "HARWICK HARBOUR" in p:
        for y in range(44):
            c = (int(240 - y * 0.8), int(190 + y * 0.2), int(180 + y * 0.8))
            d.line([0, y, W, y], fill=c)
        d.rectangle([0, 44, W, H], fill=(90, 122, 150))
        d.polygon([(96, 44), (150, 44), (142, 56), (104, 56)], fill=(240, 240, 235))  # the Patience
        d.rectangle([0, 56, 60, 62], fill=(110, 80, 55))  # pier
    else:
        d.rectangle([0, 0, W, H], fill=(128, 128, 128))


def draw_figure(d, font, x: int, base_y: int, scale: float, name: str) -> None:
    col = FIG_COLOURS[name]
    hr = int(5 * scale)
    bw, bh = int(16 * scale), int(20 * scale)
    top = base_y - bh
    d.rounded_rectangle([x - bw // 2, top, x + bw // 2, base_y], radius=max(2, int(3 * scale)), fill=col, outline=(20, 20, 20))
    d.ellipse([x - hr, top - 2 * hr, x + hr, top], fill=(228, 196, 166), outline=(20, 20, 20))
    label = INITIALS[name]
    tw = d.textlength(label, font=font)
    fg = (255, 255, 255) if sum(col) < 450 else (0, 0, 0)
    d.text((x - tw / 2, top + bh // 2 - 6), label, font=font, fill=fg)


def render_keyframe(shot: dict, k: int):
    from PIL import Image, ImageDraw, ImageEnhance, ImageFont

    font = ImageFont.load_default_imagefont() if hasattr(ImageFont, "load_default_imagefont") else ImageFont.load_default()
    dr = shot["draw"]
    img = Image.new("RGB", (W, H), (0, 0, 0))
    d = ImageDraw.Draw(img)
    if "card" in dr:
        tw = d.textlength(dr["card"], font=font)
        shade = 90 + 80 * k  # a slow fade in
        d.text(((W - tw) / 2, H / 2 - 6), dr["card"], font=font, fill=(shade, shade, shade))
        return img
    rng = random.Random(dr["seed"])
    draw_background(d, dr["place"], rng)
    f = BRIGHTNESS.get(dr["tod"], 1.0)
    if f < 1.0:
        img = ImageEnhance.Brightness(img).enhance(f)
        d = ImageDraw.Draw(img)
    who = dr["who"]
    drift = (k - 1) * 3  # the camera drifts a little between the three keyframes
    scale = {"wide": 1.0, "two": 1.5, "single": 2.2}[dr["kind"]]
    base = {"wide": 74, "two": 80, "single": 88}[dr["kind"]]
    n = len(who)
    for j, name in enumerate(who):
        x = int(W * (j + 1) / (n + 1)) + drift + rng.randint(-4, 4)
        draw_figure(d, font, x, base, scale, name)
    # caption: scene number and place
    cap = CAPTIONS.get(dr["place"], dr["place"])[:26]
    d.rectangle([0, H - 11, W, H], fill=(0, 0, 0))
    d.text((2, H - 11), cap, font=font, fill=(255, 255, 255))
    d.rectangle([0, 0, 6 * len(dr["scene"]) + 3, 11], fill=(0, 0, 0))
    d.text((2, 0), dr["scene"], font=font, fill=(255, 220, 120))
    return img


def write_keyframes(shots: list[dict]) -> None:
    kdir = KF_DIR / "shot_keyf" / FILM_ID
    kdir.mkdir(parents=True, exist_ok=True)
    for n, sh in enumerate(shots):
        for k in range(3):
            render_keyframe(sh, k).save(kdir / f"shot_{n:04d}_img_{k}.jpg", "JPEG", quality=70)


def write_shot_txt(shots: list[dict]) -> str:
    return "".join(f"{s['start']} {s['end']} {s['kf'][0]} {s['kf'][1]} {s['kf'][2]}\n" for s in shots)


def write_shot_stats(shots: list[dict]) -> str:
    rng = random.Random(f"{SEED}-stats")
    out = ["Frame Rate:,24.0000000000",
           "Frame Number,Timecode,delta_hsv_hue,delta_hsv_lum,delta_hsv_sat,delta_luv_hue,"
           "delta_luv_lum,delta_luv_sat,hsv_content_val,luv_content_val"]
    for s in shots[1:]:  # one row per cut: the first frame of every shot after the first
        f = s["start"]
        ms = round(f * 1000 / FPS)
        tc = f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"
        v = [round(rng.uniform(8, 60), 6) for _ in range(6)]
        hsv = round((v[0] + v[1] + v[2]) / 3, 6)
        luv = round((v[3] + v[4] + v[5]) / 3, 6)
        out.append(",".join([str(f), tc] + [str(x) for x in v] + [str(hsv), str(luv)]))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------

def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def clear_keyframes_dir() -> None:
    """Empty keyframes/<film>/ (every file in it is generated), so that no keyframe or list
    from an earlier, longer timeline survives a re-run."""
    if KF_DIR.exists():
        shutil.rmtree(KF_DIR)


def main() -> None:
    title, els = parse_fountain(FOUNTAIN.read_text(encoding="utf-8"))
    scenes = scenes_of(els)
    for sc in scenes:
        for e in els[sc["el_start"] : sc["el_end"]]:
            if e["type"] == "character" and e["ext"] not in ("V.O.", "O.S."):
                assert e["name"] in ON_SCREEN[sc["number"]], (sc["number"], e["name"])
    write(SP_DIR / "script.fdx", write_fdx(title, els))
    txt, facts = write_txt(title, els, scenes)
    write(SP_DIR / "script.txt", txt)
    film = build_film(els, scenes)
    shots, by_scene = plan_shots(els, scenes, film)
    write(SP_DIR / "subtitles.srt", write_srt(film))
    write(SP_DIR / "alignment_gold.json", write_gold(els, scenes, film, by_scene))
    clear_keyframes_dir()
    write(KF_DIR / "shot_txt" / f"{FILM_ID}.txt", write_shot_txt(shots))
    write(KF_DIR / "shot_stats" / f"{FILM_ID}.csv", write_shot_stats(shots))
    frames = shots[-1]["end"] + 1
    write(KF_DIR / "video_info.json", json.dumps({"fps": float(FPS), "frames": frames, "duration_ms": film["duration_ms"]}) + "\n")
    write_keyframes(shots)

    n_dia = len(film["dia"])
    cut_lines = sum(1 for n in range(n_dia) if not film["dmap"][n])
    print(f"scenes {len(scenes)} (cut from film: {CUT_SCENE}), dialogue elements {n_dia}, "
          f"cues {len(film['cues'])}, dialogue without a cue {cut_lines}, "
          f"ad-libs {sum(1 for c in film['cues'] if c['kind'] == 'adlib')}")
    print(f"script.txt: {facts['pages']} pages + title page, (MORE)/(CONT'D) on pages {facts['more_contd']}, "
          f"CONTINUED: on pages {facts['continued']}, revision-starred lines {facts['stars']}")
    print(f"film: {film['duration_ms'] / 60000:.2f} min, {frames} frames, {len(shots)} shots, {3 * len(shots)} keyframes")


if __name__ == "__main__":
    main()
