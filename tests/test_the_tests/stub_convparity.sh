#!/usr/bin/env bash
# A stand-in for convparity that refuses everything in the right form: one line "convparity: …" on
# stderr, exit 2, nothing on stdout. With $STUB_CONVPARITY=echo the line repeats the command line
# (the file names, flags and values a pattern must not be satisfied by); otherwise it is fixed.
# tests/cli/hostile_input_test.sh run against it must fail every check (tests/README.md).
if [ "${STUB_CONVPARITY:-fixed}" = echo ]; then
  line="$*"
  printf 'convparity: %s\n' "$(head -c 2000 <<<"$line" | tr '\n\r' '  ')" >&2
else
  echo "convparity: error" >&2
fi
exit 2
