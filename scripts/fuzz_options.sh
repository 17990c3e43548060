# Sourced by the fuzz scripts: options_flags <target>.options prints the [libfuzzer] section of an
# OSS-Fuzz .options file as libFuzzer flags (-key=value; a dict path is relative to the file).
options_flags() {
  local file=$1
  [ -f "$file" ] || return 0
  sed -n '/^\[libfuzzer\]/,/^\[/p' "$file" | grep -E '^[a-z_]+ *=' | while IFS='=' read -r k v; do
    k=$(echo "$k" | tr -d ' ')
    v=$(echo "$v" | tr -d ' ')
    [ "$k" = dict ] && v=$(dirname "$file")/$v
    echo "-$k=$v"
  done
}
