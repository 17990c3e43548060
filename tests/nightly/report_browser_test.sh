#!/usr/bin/env bash
# `convparity report` pages in a real browser: Debian's headless Chromium opens each page this
# test writes, from disk, with every outside request blocked (a proxy on a closed local port and a
# resolver that finds no host: Chromium contacts outside hosts on its own), and the test fails on
#  - a console error or an uncaught exception (the page counts them in data-errors, and Chromium's
#    log is searched too);
#  - a plot that did not render or drew no mark (each plot's data-state and data-marks);
#  - a finding of the campaign missing from the page (every bucket of its summary.json);
# and keeps a screenshot of each page in $CONVPARITY_REPORT_KEEP (default: ./report-screenshots).
# Pages: a default campaign ($CONVPARITY_REPORT_SECONDS, default 10 s; the issue's figures are of
# 60 s), and a campaign with findings reported against a baseline (the comparison in the page).
# Exit 77 (skipped) without chromium or the plotting library, unless CI=true (scripts/setup.sh
# installs both). Usage: report_browser_test.sh <convparity binary> <source dir>
set -u
cp=$(realpath "$1")
src=$(realpath "$2")
py=/usr/bin/python3
chromium=$(command -v chromium || true)
library=${CONVPARITY_PLOT_LIBRARY:-$src/reports/html/node_modules}
skip() {
  echo "$1"
  [ "${CI:-}" = true ] && exit 1
  exit 77
}
[ -n "$chromium" ] || skip "no chromium (scripts/setup.sh installs Debian's)"
[ -f "$library/vega-lite/build/vega-lite.min.js" ] ||
  skip "the plotting library is not installed in $library (scripts/setup.sh installs it)"
keep=$(realpath -m "${CONVPARITY_REPORT_KEEP:-report-screenshots}")
mkdir -p "$keep"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}

run_chromium() {  # page, then Chromium's own flags (what to dump)
  local page=$1 profile
  shift
  profile=$(mktemp -d "$tmp/profile.XXXX")  # a fresh profile every time: nothing remembered
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --proxy-server=http://127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 --virtual-time-budget=20000 \
    "$@" "file://$page"
}

browse() {  # name, run folder: its report.html in the browser
  local name=$1 run=$2 page=$2/report.html
  run_chromium "$page" --dump-dom >"$tmp/$name.dom" 2>"$tmp/$name.log" ||
    fail "$name: chromium could not load the page: $(tail -n 3 "$tmp/$name.log")"
  if grep -E 'CONSOLE.*(Uncaught|[Ee]rror)' "$tmp/$name.log" >"$tmp/$name.errors"; then
    fail "$name: console errors: $(head -c 600 "$tmp/$name.errors")"
  else
    passed=$((passed + 1))
  fi
  $py - "$tmp/$name.dom" "$run/summary.json" "$name" <<'PY'
import html.parser, json, sys
dom = open(sys.argv[1], encoding="utf-8").read()
summary, name = json.load(open(sys.argv[2])), sys.argv[3]
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.plots, self.buckets = {}, {}, set()
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if "data-plot" in a:
            self.plots[a["data-plot"]] = a
        if "data-bucket" in a:
            self.buckets.add(a["data-bucket"])
page = Page()
page.feed(dom)
problems = []
if page.body.get("data-plots") != "done":
    problems.append(f"the plots never finished: data-plots={page.body.get('data-plots')}")
if page.body.get("data-errors") != "0":
    problems.append(f"the page logged {page.body.get('data-errors')} errors")
want = {"coverage", "timeline", "time"} | ({"bound_use"} if summary.get("bound_use") else set())
if set(page.plots) != want:
    problems.append(f"plots {sorted(page.plots)}, expected {sorted(want)}")
for plot, a in page.plots.items():
    if a.get("data-state") != "rendered" or int(a.get("data-marks", "0")) == 0:
        problems.append(f"plot {plot}: {a.get('data-state')} with {a.get('data-marks')} marks")
missing = {b["signature"] for b in summary["buckets"]} - page.buckets
if missing:
    problems.append(f"findings missing from the page: {sorted(missing)}")
for p in problems:
    print(f"{name}: {p}")
marks = ", ".join(k + " " + str(v.get("data-marks")) for k, v in sorted(page.plots.items()))
print(f"{name}: {len(page.plots)} plots (marks: {marks}), "
      f"{len(page.buckets)} findings shown of {len(summary['buckets'])}")
sys.exit(1 if problems else 0)
PY
  if [ $? = 0 ]; then passed=$((passed + 1)); else fail "$name: the page"; fi
  run_chromium "$page" --screenshot="$keep/$name.png" --window-size=1280,6000 \
    >/dev/null 2>"$tmp/$name.shot.log"
  if [ -s "$keep/$name.png" ]; then
    passed=$((passed + 1))
    echo "$name: page $(stat -c %s "$page") bytes," \
      "screenshot $keep/$name.png $(stat -c %s "$keep/$name.png") bytes"
  else
    fail "$name: no screenshot: $(tail -n 3 "$tmp/$name.shot.log")"
  fi
}

report() {  # code name run [flags]: convparity report, expecting exit `code`
  local want=$1 name=$2 run=$3
  shift 3
  "$cp" report "$run" -o "$run/report.html" "$@" >"$tmp/report.out" 2>&1
  local got=$?
  [ "$got" = "$want" ] && passed=$((passed + 1)) ||
    fail "$name: report exit $got, expected $want: $(head -c 400 "$tmp/report.out")"
}

seconds=${CONVPARITY_REPORT_SECONDS:-10}
"$cp" fuzz --time "$seconds" --seed 3 --jobs 2 --out "$tmp/default" --quiet >/dev/null 2>&1
report 0 default "$tmp/default"
browse default "$tmp/default"

findings=(--direction fwd --cases 200 --seed 5 --jobs 2 --quiet)
"$cp" fuzz "${findings[@]}" --sut known-bug:tvm-7912 --out "$tmp/baseline" >/dev/null 2>&1
"$cp" fuzz "${findings[@]}" --sut known-bug:tvm-7912 --sut known-bug:pytorch-19912 --sut direct \
  --out "$tmp/findings" >/dev/null 2>&1
report 0 findings "$tmp/findings" --baseline "$tmp/baseline"
grep -q 'Against the baseline' "$tmp/findings/report.html" && passed=$((passed + 1)) ||
  fail "findings: no comparison in the page"
browse findings "$tmp/findings"

# The test must see a broken page: a plot whose spec Vega-Lite rejects, and a finding left out.
sed 's/"mark": "bar"/"mark": "no-such-mark"/' "$tmp/findings/report.html" >"$tmp/broken.html"
mkdir -p "$tmp/broken" && cp "$tmp/findings/summary.json" "$tmp/broken/" &&
  mv "$tmp/broken.html" "$tmp/broken/report.html"
before=$failed
browse broken "$tmp/broken" >"$tmp/broken.out"
if ((failed > before)); then
  failed=$before
  passed=$((passed + 1))
else
  fail "a page with a broken plot passed: $(cat "$tmp/broken.out")"
fi
rm -f "$keep/broken.png"
echo "$passed passed, $failed failed"
((failed == 0))
