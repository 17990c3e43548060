# Exports the sanitizer options of the `asan` test preset (CMakePresets.json, the one place they are
# written) for programs run outside ctest. Usage: source sanitizers/env.sh
_convparity_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(/usr/bin/python3 - "$_convparity_root" <<'PY'
import json, shlex, sys
root = sys.argv[1]
presets = json.load(open(f"{root}/CMakePresets.json"))
env = next(t for t in presets["testPresets"] if t["name"] == "asan")["environment"]
for name, value in env.items():
    print(f"export {name}={shlex.quote(value.replace('${sourceDir}', root))}")
PY
)"
unset _convparity_root
