#!/bin/sh
# The Kubernetes recipe (deploy/k8s, docs/kubernetes.md) checked without a cluster (issue 20
# item 3): Debian's kubectl builds the kustomization offline (kubectl kustomize), a schema
# check (k8s_schema.py) reads every field against the API's names and the recipe's own rules
# (minimal privileges, mounts, the one socket), the real hsaqmd --check reads the ConfigMap's
# configuration, and the pod's priority annotation is one the real hsaqm-run takes. The
# manifests are not deployed here. Skipped (77) without kubectl or python3-yaml.
#
# Usage: k8s-check.sh SOURCE_ROOT HSAQMD HSAQM_RUN
set -eu
src=$1 hsaqmd=$2 run=$3
command -v kubectl >/dev/null 2>&1 || { echo "kubectl is not installed: skipped"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "python3-yaml is not installed: skipped"; exit 77; }
dir=$(mktemp -d /tmp/hsaqm-k8s-XXXXXX)
trap 'rm -rf "$dir"' EXIT

kubectl kustomize "$src/deploy/k8s" >"$dir/rendered.yaml"
echo "ok: kubectl kustomize deploy/k8s: $(grep -c '^kind:' "$dir/rendered.yaml") objects"
K8S_CONF_OUT="$dir/hsaqmd.conf" python3 "$src/tests/hsaqmd/k8s_schema.py" \
  "$dir/rendered.yaml" "$src/deploy/k8s/pod-example.yaml" | tee "$dir/schema.out"
"$hsaqmd" --check --config "$dir/hsaqmd.conf"
prio=$(sed -n 's/^priority annotation: [^=]*=//p' "$dir/schema.out")
"$run" -p "$prio" -- /bin/true
echo "ok: hsaqm-run takes the pod's priority annotation \"$prio\""
echo "k8s-check: 4 checks passed"
