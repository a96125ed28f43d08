#!/usr/bin/env python3
"""Writes docs/corpus.md from the result files of scripts/corpus.sh.

usage: corpus_table.py SELECTION RESULTS_DIR REV COMMAND
"""
import collections
import json
import os
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def language(ds, task):
    if ds == "evoeval":
        return "python"
    if ds == "aider_polyglot":
        return task.split("_")[1]
    return task.split("-")[0]


INCOMPLETE = "task incomplete in dataset"
NOT_RUN = "not run"
UNCOUNTED = (INCOMPLETE, NOT_RUN)


def cell(s):
    return s.replace("|", "\\|").replace("\n", "<br>")


def verdict(base):
    if not os.path.exists(base + ".seconds"):
        return NOT_RUN, "the run ended before this task", []
    extract = text(base + ".extract.log")
    if extract and not os.path.exists(base + ".import.json"):
        # Not a verdict on the task or on rbx: the dataset copy lacks some of
        # the task's files (their blobs), so it cannot be imported at all.
        return INCOMPLETE, "the fetched dataset copy lacks a file of this task: " + extract.splitlines()[0][:200], []
    imp = load(base + ".import.json") or {}
    t = (imp.get("tasks") or [{}])[0]
    replaced = [f"{r['file']}:{r['line']}" for r in t.get("replacements") or []]
    if t.get("not_offline"):
        probs = [f"{p['file']}:{p['line']}: {p['reason']}: `{p['text'].strip()[:80]}`" for p in t["not_offline"]]
        return "rejected", "needs the network: " + "; ".join(probs), replaced
    if t.get("error") or not t.get("dir"):
        err = t.get("error") or text(base + ".import.log")[-400:] or "import produced no task"
        return "rejected", "import: " + err.strip()[:400], replaced
    pf = load(base + ".prefilter.json")
    if not pf or not pf.get("trajectories"):
        return "rejected", "prefilter: " + (text(base + ".prefilter.log")[-400:] or "no report"), replaced
    tr = pf["trajectories"][0]
    if tr.get("status") == "kept":
        return "kept", tr.get("detail", ""), replaced
    reason = ": ".join(x for x in (tr.get("reason", ""), tr.get("detail", "")) if x)
    failure = tr.get("failure") or {}
    failing = failure.get("failing") or failing_in(failure.get("output", ""))
    net = failure.get("network") or next(iter(NETWORK.findall(failure.get("output", ""))), "")
    if net:
        reason += f" (the tests tried the network: \"{net}\")"
    if failing:
        shown = ", ".join(f"`{f}`" for f in failing[:6]) + (f" (+{len(failing) - 6})" if len(failing) > 6 else "")
        reason += ": " + shown
    return tr.get("status", "rejected"), reason[:700], replaced


# The names prefilter.FailingTests finds, for reports written before the
# JSON carried them (`failure.failing`): pytest summary lines and the
# offline stand-ins' missing packages.
FAILING = [(re.compile(r"(?m)^(?:rbx-verify: )?(?:FAILED|ERROR) (\S+)"), ""),
           (re.compile(r"(?m)not installed in the image[^:\n]*: (.+)$"), "missing ")]


NETWORK = re.compile(r"Temporary failure in name resolution|Name or service not known|"
                     r"Could not resolve host|java\.net\.UnknownHostException|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|"
                     r"Network is unreachable")


def failing_in(output):
    out = []
    for rx, prefix in FAILING:
        for m in rx.findall(output or ""):
            name = prefix + m if prefix else m.split(" - ")[0].split("/")[-1]
            if name not in out:
                out.append(name)
    return out


def reason_kind(reason):
    """The reason without lines, quoted text and test output: what groups."""
    k = re.sub(r"\S+:\d+: ", "", reason)
    k = re.sub(r"`[^`]*`", "", k)
    k = re.sub(r"(; )+", "; ", k).strip(" ;:")
    head, sep, rest = k.partition(": ")
    parts = list(dict.fromkeys(x.strip(" :") for x in rest.split(";")))
    return (head + sep + "; ".join(parts))[:240]


def main():
    selection, results, rev, command = sys.argv[1:5]
    rows, counts, reasons = [], collections.Counter(), collections.Counter()
    for line in open(selection):
        ds, task = line.strip().split("/", 1)
        base = os.path.join(results, f"{ds}--{task}")
        v, reason, replaced = verdict(base)
        secs = text(base + ".seconds") or "?"
        counts[(ds, v)] += 1
        if v not in ("kept",) + UNCOUNTED:
            reasons[reason_kind(reason)] += 1
        rows.append((ds, task, language(ds, task), v, reason, ", ".join(replaced), secs))
    out = sys.stdout
    out.write("# Corpus: real terminal-bench tasks through rbx\n\n")
    out.write(f"Produced by `{command}` (dataset rese1f/terminal-bench-datasets at {rev}): each task is\n"
              "imported (`rbx import terminal-bench`, its image built offline from the local toolchain\n"
              "images), then its reference solution is prefiltered with `rbx prefilter --repeats 2`.\n"
              "The selection is documented in the script's header. Time is import + build + prefilter.\n"
              "Offline replacements name the replaced lines (`rbx import --output json` gives each one's\n"
              "replacement and reason).\n\n")
    out.write("| dataset | language | kept | rejected | task incomplete in dataset | not run |\n|---|---|---|---|---|---|\n")
    groups = collections.OrderedDict()
    for ds, task, lang, v, *_ in rows:
        groups.setdefault((ds, lang), collections.Counter())[v] += 1
    total = collections.Counter()
    for (ds, lang), c in groups.items():
        rej = sum(n for v, n in c.items() if v not in ("kept",) + UNCOUNTED)
        total.update({"kept": c["kept"], "rejected": rej, INCOMPLETE: c[INCOMPLETE], NOT_RUN: c[NOT_RUN]})
        out.write(f"| {ds} | {lang} | {c['kept']} | {rej} | {c[INCOMPLETE]} | {c[NOT_RUN]} |\n")
    out.write(f"| **all** | | **{total['kept']}** | **{total['rejected']}** | **{total[INCOMPLETE]}** | **{total[NOT_RUN]}** |\n\n")
    out.write(f"{total['kept'] + total['rejected']} tasks imported and prefiltered; {total[INCOMPLETE]} more are in the\n"
              "selection but cannot be extracted from the fetched copy (missing blobs), so they are not counted.\n\n")
    if reasons:
        out.write("Rejections by reason:\n\n")
        for r, n in reasons.most_common():
            out.write(f"- {n} × {cell(r)}\n")
        out.write("\n")
    out.write("| dataset | task | language | verdict | reason | offline replacements | time (s) |\n")
    out.write("|---|---|---|---|---|---|---|\n")
    for r in rows:
        out.write("| " + " | ".join(cell(str(x)) for x in r) + " |\n")


if __name__ == "__main__":
    main()
