"""JSON schemas for kubeconform from CustomResourceDefinitions, strict as kubeconform's -strict is for built-in kinds.

Usage: crd-schemas.py <out-dir> <crd.yaml>...  writes <out-dir>/<group>/<kind, lower case>_<version>.json for each served version
(kubeconform: -schema-location '<out-dir>/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'). Every
object schema that declares properties and says nothing of others refuses undeclared fields (additionalProperties
false), unless the CRD keeps unknown fields there (x-kubernetes-preserve-unknown-fields).
"""
import json
import os
import sys

import yaml


def strict(schema):
    if isinstance(schema, dict):
        if (
            "properties" in schema
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            schema["additionalProperties"] = False
        for value in schema.values():
            strict(value)
    elif isinstance(schema, list):
        for value in schema:
            strict(value)
    return schema


def main(out_dir, paths):
    for path in paths:
        with open(path, encoding="utf-8") as file:
            crd = yaml.safe_load(file)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        os.makedirs(os.path.join(out_dir, group), exist_ok=True)
        for version in crd["spec"]["versions"]:
            if not version.get("served", True):
                continue
            schema = strict(version["schema"]["openAPIV3Schema"])
            target = os.path.join(out_dir, group, f"{kind.lower()}_{version['name']}.json")
            with open(target, "w", encoding="utf-8") as file:
                json.dump(schema, file)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: crd-schemas.py <out-dir> <crd.yaml>...")
    main(sys.argv[1], sys.argv[2:])
