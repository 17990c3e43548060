#!/usr/bin/env python3
"""Imports every benchdnn conv and deconv input file of a oneDNN checkout on its own and prints a
markdown table per file: exit code, problems read, imported, skipped by reason category, and the
seconds it took; then the skip reasons in detail and the options counted as ignored.

usage: benchdnn_import_table.py <convparity> <oneDNN tests/benchdnn/inputs folder> [driver…]

Each file runs `convparity import-benchdnn <file> --driver <driver> --dry-run --json` (nothing is
written), with the driver's folder as the working directory. The oneDNN files are
read from the checkout, never copied here.
"""

import json
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    convparity, inputs = os.path.abspath(sys.argv[1]), sys.argv[2]
    drivers = sys.argv[3:] or ["conv", "deconv"]
    rows, reasons, ignored = [], {}, {}
    categories = set()
    for driver in drivers:
        folder = os.path.join(inputs, driver)
        for name in sorted(os.listdir(folder)):
            start = time.monotonic()
            run = subprocess.run([convparity, "import-benchdnn", name, "--driver", driver,
                                  "--dry-run", "--json"],
                                 cwd=folder, capture_output=True, text=True, timeout=600)
            seconds = time.monotonic() - start
            row = {"file": f"{driver}/{name}", "exit": run.returncode, "seconds": seconds}
            if run.returncode == 0:
                summary = json.loads(run.stdout)
                row.update(read=summary["read"], imported=summary["imported"],
                           problems=summary["problems"], skipped={})
                for entry in summary["skipped_by_reason"]:
                    category = entry["reason"].split(":")[0]
                    categories.add(category)
                    row["skipped"][category] = row["skipped"].get(category, 0) + entry["count"]
                    total = reasons.setdefault(entry["reason"], [0, 0, entry["first"]])
                    total[0] += entry["count"]
                    total[1] += 1
                for entry in summary["ignored_options"]:
                    total = ignored.setdefault(entry["option"], [0, 0, entry["why"]])
                    total[0] += entry["count"]
                    total[1] += 1
            else:
                row["error"] = run.stderr.strip()
            rows.append(row)

    order = sorted(categories)
    print("| file | exit | read | imported | problems | " + " | ".join(
        f"skipped: {c}" for c in order) + " | seconds |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(order) + "---:|")
    for r in rows:
        if r["exit"] != 0:
            print(f"| {r['file']} | {r['exit']} | {r['error']} |")
            continue
        cells = [str(r["skipped"].get(c, "")) for c in order]
        print(f"| {r['file']} | 0 | {r['read']} | {r['imported']} | {r['problems']} | " +
              " | ".join(cells) + f" | {r['seconds']:.1f} |")
    ok = [r for r in rows if r["exit"] == 0]
    print(f"\n{len(rows)} files, {len(ok)} with exit 0; in all (included files counted in every "
          f"file that includes them): {sum(r['read'] for r in ok)} problems read, "
          f"{sum(r['imported'] for r in ok)} imported, "
          f"{sum(sum(r['skipped'].values()) for r in ok)} skipped.\n")
    print("| skip reason | problems | files | first |")
    print("|---|---:|---:|---|")
    for reason, (count, files, first) in sorted(reasons.items()):
        print(f"| {reason} | {count} | {files} | {first} |")
    print("\n| ignored option | occurrences | files | why |")
    print("|---|---:|---:|---|")
    for option, (count, files, why) in sorted(ignored.items()):
        print(f"| `{option}` | {count} | {files} | {why} |")
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
