#!/usr/bin/env python3
"""Convert the OpenSPF RFC 7208 test suite (rfc7208-tests.yml) to JSON.

The Go tests have no YAML library, so they read rfc7208-tests.json, which
this script generates; the JSON records the SHA-256 of the YAML it came
from, and TestOpenSPFSuiteSource checks it against the committed YAML.

Usage (from the repository root; needs python3-yaml):

    python3 spf/testdata/rfc7208tojson.py

The output keeps every scenario and test in file order. A zone record is
{"TYPE": value}; the bare TIMEOUT entry stays the string "TIMEOUT". Values
are written as in the YAML (MX is [preference, exchange]; TXT and SPF a
string or a list of strings).
"""
import hashlib
import json
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "rfc7208-tests.yml")
DST = os.path.join(HERE, "rfc7208-tests.json")


def main():
    with open(SRC, "rb") as f:
        raw = f.read()
    scenarios = []
    for doc in yaml.safe_load_all(raw):
        tests = []
        for name, t in doc["tests"].items():
            res = t["result"]
            tests.append({
                "name": name,
                "spec": str(t.get("spec", "")),
                "helo": t["helo"],
                "host": t["host"],
                "mailfrom": t["mailfrom"],
                "result": res if isinstance(res, list) else [res],
            })
        scenarios.append({
            "description": doc.get("description", ""),
            "zonedata": doc.get("zonedata") or {},
            "tests": tests,
        })
    out = {"source": "rfc7208-tests.yml", "source_sha256": hashlib.sha256(raw).hexdigest(),
           "scenarios": scenarios}
    with open(DST, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=True)
        f.write("\n")


if __name__ == "__main__":
    main()
