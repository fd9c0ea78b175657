#!/usr/bin/env python3
# json-valid.py SCHEMA FILE... - validates each JSON FILE against the JSON
# Schema SCHEMA; prints the first error of each invalid file and exits 1,
# or exits 77 when python3's jsonschema module is not installed.
import json
import sys

try:
    import jsonschema
except ImportError:
    print("json-valid.py: python3-jsonschema is not installed")
    sys.exit(77)

with open(sys.argv[1]) as f:
    schema = json.load(f)
validator = jsonschema.Draft7Validator(schema)
bad = 0
for name in sys.argv[2:]:
    try:
        with open(name) as f:
            doc = json.load(f)
    except ValueError as e:
        print("%s: not JSON: %s" % (name, e))
        bad = 1
        continue
    for err in validator.iter_errors(doc):
        print("%s: %s at %s" % (name, err.message,
                                "/".join(str(p) for p in err.absolute_path)))
        bad = 1
        break
sys.exit(bad)
