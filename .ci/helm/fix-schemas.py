# Copied from shared/tools/k8s-offline/fix-schemas.py (the workplace's offline Kubernetes toolkit) so that the
# project's own checks work in a clone without it; keep the two in step.
#
#   python fix-schemas.py VERSION OUTDIR   e.g. 1.34.0 ~/.cache/location-exchange/kubeconform-schemas
#
# Run with the Python that has the PyPI package kubernetes-validate installed.
# make kubernetes-validate's bundled schemas usable by kubeconform offline:
# drop "$id" (so refs resolve against the local file) and make refs relative.
import json, os, sys, glob, importlib.util
ver = sys.argv[1]; out = sys.argv[2]
src = os.path.join(os.path.dirname(importlib.util.find_spec("kubernetes_validate").origin), "kubernetes-json-schema", f"v{ver}-local-strict")
dst = os.path.join(out, f"v{ver}-local-strict"); os.makedirs(dst, exist_ok=True)
def fix(o):
    if isinstance(o, dict):
        o.pop("$id", None)
        return {k: (v.replace("/api/_definitions.json", "_definitions.json") if k == "$ref" and isinstance(v, str) else fix(v)) for k, v in o.items()}
    if isinstance(o, list): return [fix(x) for x in o]
    return o
n = 0
for f in glob.glob(os.path.join(src, "*.json")):
    json.dump(fix(json.load(open(f))), open(os.path.join(dst, os.path.basename(f)), "w")); n += 1
print(f"{n} schemas -> {dst}")
