#!/usr/bin/env python3
"""Builds the scenario x provider matrix of docs/conformance.md from conformance-tests' surefire reports.

Usage: scripts/conformance-matrix.py [reports-dir] > matrix.md
Each cell is "pass", "not run" (with the assumption's reason, numbered below the table) or "FAIL". The case a
test ran on comes from the "[conformance] Class.method case" line StateDump prints before every test.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

reports = sys.argv[1] if len(sys.argv) > 1 else "conformance-tests/target/surefire-reports"
cells = {}      # (scenario, case) -> (status, reason)
cases = []
scenarios = []
others = {}     # scenario -> statuses of its runs that are not per case
for path in sorted(glob.glob(os.path.join(reports, "TEST-*.xml"))):
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        cls = tc.get("classname").rsplit(".", 1)[-1]
        method = re.sub(r"\(.*", "", tc.get("name"))
        err = tc.findtext("system-err") or ""
        m = re.search(r"\[conformance\] \S+ (\S+)", err)
        status, reason = "pass", ""
        skipped = tc.find("skipped")
        failed = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
        if skipped is not None:
            text = (skipped.text or skipped.get("message") or "")
            r = re.search(r"not run: (.*)", text)
            reason = r.group(1).strip() if r else text.strip().splitlines()[0] if text.strip() else "skipped"
            status = "not run"
        elif failed is not None:
            status = "FAIL"
            reason = (failed.get("message") or "").splitlines()[0][:200] if failed.get("message") else ""
        case = m.group(1) if m else None
        if case is None:
            r = re.match(r"(\S+) ", reason)
            case = r.group(1) if r else tc.get("name")
        if reason.startswith(case + " "):
            reason = reason[len(case) + 1:]
        scenario = cls + "." + method
        if not re.match(r"^\S+/FI_EP_\w+$", case):
            # not run per case (discovery checks, the C interop runs): listed under the tables
            others.setdefault(scenario, []).append(status)
            continue
        if scenario not in scenarios:
            scenarios.append(scenario)
        if case not in cases:
            cases.append(case)
        cells[(scenario, case)] = (status, reason)

java = [c for c in cases if not c.startswith("libfabric:")]
native = [c for c in cases if c.startswith("libfabric:")]
notes = []

def cell(s, c):
    st, why = cells.get((s, c), ("-", ""))
    if st == "pass" or st == "-":
        return st
    if why not in notes:
        notes.append(why)
    return "%s [%d]" % (st, notes.index(why) + 1)

for title, cols in (("jfabric providers", java), ("native libfabric through the bridge", native)):
    if not cols:
        continue
    print("### " + title + "\n")
    print("| scenario | " + " | ".join("`%s`" % c for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for s in scenarios:
        print("| %s | %s |" % (s, " | ".join(cell(s, c) for c in cols)))
    print()
if others:
    print("Tests that do not run per case (count of runs by outcome):\n")
    for s, sts in others.items():
        print("- %s: %s" % (s, ", ".join("%d %s" % (sts.count(x), x) for x in sorted(set(sts)))))
    print()
print("Reasons:\n")
for i, n in enumerate(notes):
    print("%d. %s" % (i + 1, n))
