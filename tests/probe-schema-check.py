#!/usr/bin/env python3
# Validates an hsa-queue-probe JSON report against tools/probe/report-schema.json (the JSON
# Schema subset that file uses: type, enum, required, properties, additionalProperties, items,
# minimum, $ref), checks what a schema cannot say (figure order, model figures marked as such),
# and checks that docs/probe-report.md documents every field and every reason code it meets.
# usage: probe-schema-check.py SCHEMA DOC REPORT.json   (exit 0 valid, 1 not)
import json
import re
import sys

TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
}


def type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def validate(value, schema, root, path, errors):
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return validate(value, root["definitions"][name], root, path, errors)
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(type_ok(value, t) for t in types):
            errors.append(f"{path}: {value!r} is not of type {types}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        errors.append(f"{path}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing '{key}'")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, v in value.items():
            if key in props:
                validate(v, props[key], root, f"{path}.{key}", errors)
            elif extra is False:
                errors.append(f"{path}: unexpected '{key}'")
            elif isinstance(extra, dict):
                validate(v, extra, root, f"{path}.{key}", errors)
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            validate(v, schema["items"], root, f"{path}[{i}]", errors)


def schema_keys(schema, out):
    if isinstance(schema, dict):
        for k, v in schema.get("properties", {}).items():
            out.add(k)
            schema_keys(v, out)
        for v in schema.get("definitions", {}).values():
            schema_keys(v, out)
        for k in ("items", "additionalProperties"):
            if isinstance(schema.get(k), dict):
                schema_keys(schema[k], out)


def main():
    schema = json.load(open(sys.argv[1]))
    doc = open(sys.argv[2]).read()
    report = json.load(open(sys.argv[3]))
    errors = []
    validate(report, schema, schema, "$", errors)

    documented = set(re.findall(r"`([a-z_0-9]+)`", doc))
    keys = set()
    schema_keys(schema, keys)
    for k in sorted(keys - documented):
        errors.append(f"docs/probe-report.md does not document field `{k}`")

    for g in report.get("gpus", []):
        for name, c in g.get("checks", {}).items():
            if c.get("reason_code") and c["reason_code"] not in documented:
                errors.append(f"reason code `{c['reason_code']}` ({name}) is not documented")
            for f in c.get("figures", []):
                if not f["min"] <= f["median"] <= f["p99"] <= f["max"]:
                    errors.append(f"{name}.{f['name']}: min <= median <= p99 <= max broken")
                if f["source"] != report["figures_are"]:
                    errors.append(f"{name}.{f['name']}: source {f['source']} on a "
                                  f"{report['figures_are']} report")
    if (report.get("figures_are") == "model" and not report.get("interrupted")
            and not report.get("failed") and report.get("exit_code") != 3):
        errors.append("a model report must carry exit code 3")

    for e in errors:
        print("schema:", e)
    print(f"schema check: {len(errors)} problem(s) in {sys.argv[3]}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
