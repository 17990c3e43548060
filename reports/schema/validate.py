#!/usr/bin/env python3
"""Validates JSON files against one of convparity's JSON Schemas.

usage: validate.py SCHEMA FILE...

Prints one line per invalid file: the file, the JSON path of the first error, and what is wrong.
Exit 0: every file is valid; 1: at least one is not (or cannot be read); 2: usage error, a
broken schema, or python3-jsonschema is missing (Debian: apt-get install python3-jsonschema).

The schemas refer to each other by $id (urn:convparity:schema:…); every *.schema.json next to
SCHEMA is loaded, so references resolve offline. Works with jsonschema 4.10 (Debian 12) and later.
"""

import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.stderr.write("validate.py: python3-jsonschema is not installed "
                     "(apt-get install python3-jsonschema)\n")
    sys.exit(2)

MAX_MESSAGE = 300


def load_json(path):
    def reject_constant(name):
        # Python's json reads NaN and Infinity, but they are not JSON; our writers never emit them.
        raise ValueError(f"{name} is not valid JSON (non-finite numbers are written as strings)")

    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=reject_constant)


def absolutize(node, base):
    if isinstance(node, dict):
        return {key: base + value if key == "$ref" and isinstance(value, str) and value.startswith("#")
                else absolutize(value, base) for key, value in node.items()}
    if isinstance(node, list):
        return [absolutize(value, base) for value in node]
    return node


def make_validator(schema_path):
    schema = load_json(schema_path)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    store = {}
    folder = os.path.dirname(os.path.abspath(schema_path))
    for path in sorted(glob.glob(os.path.join(folder, "*.schema.json"))):
        other = load_json(path)
        if isinstance(other, dict) and "$id" in other:
            store[other["$id"]] = other
    store.setdefault(schema.get("$id", ""), schema)
    try:  # jsonschema >= 4.18 resolves references through a `referencing` registry
        from referencing import Registry, Resource
    except ImportError:
        # Older versions join references with urllib, which cannot resolve "#/…" against a URN
        # base: make every local reference absolute first.
        store = {uri: absolutize(contents, uri) for uri, contents in store.items() if uri}
        schema = store.get(schema.get("$id"), schema)
        resolver = jsonschema.RefResolver(schema.get("$id", ""), schema, store=store)
        return cls(schema, resolver=resolver)
    registry = Registry().with_resources(
        [(uri, Resource.from_contents(contents)) for uri, contents in store.items() if uri])
    return cls(schema, registry=registry)


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.isidentifier():
            path += f".{part}"
        else:
            path += "[" + json.dumps(part, ensure_ascii=False) + "]"
    return path


def first_error(validator, instance):
    errors = list(validator.iter_errors(instance))
    if not errors:
        return None
    # The most specific error (best_match descends into anyOf/oneOf), not merely the first found.
    return jsonschema.exceptions.best_match(errors)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    try:
        validator = make_validator(argv[1])
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        sys.stderr.write(f"validate.py: schema {argv[1]}: {e}\n")
        return 2
    invalid = 0
    for path in argv[2:]:
        try:
            instance = load_json(path)
        except (OSError, ValueError) as e:
            print(f"{path}: $: cannot read: {e}")
            invalid += 1
            continue
        error = first_error(validator, instance)
        if error is None:
            continue
        message = " ".join(error.message.split())
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE] + "..."
        print(f"{path}: {json_path(error)}: {message}")
        invalid += 1
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
