#!/usr/bin/env python3
"""Schema check of hsaqm's Kubernetes manifests (deploy/k8s, docs/kubernetes.md).

kubectl's own validation needs an API server; this checks, offline, what the recipe relies
on: the objects and their API versions, every field of a pod spec, container and security
context against the Kubernetes API's names (a field misspelt is an error here, as a server
would say), the DaemonSet's selector, its minimal privileges, volumes and mounts that match,
and that the daemon's socket, the pods' mount and HSAQM_DAEMON name the same place.

Usage: k8s_schema.py RENDERED.yaml POD.yaml  -> prints what it checked; exit 1 on an error;
the ConfigMap's hsaqmd.conf is written to $K8S_CONF_OUT for the caller to check with hsaqmd.
"""
import os
import re
import sys

import yaml

API = {"Namespace": "v1", "ConfigMap": "v1", "DaemonSet": "apps/v1", "Pod": "v1"}
POD_SPEC = {"containers", "initContainers", "volumes", "hostPID", "hostNetwork", "hostIPC",
            "nodeSelector", "priorityClassName", "securityContext", "serviceAccountName",
            "tolerations", "affinity", "restartPolicy", "terminationGracePeriodSeconds"}
CONTAINER = {"name", "image", "command", "args", "env", "resources", "securityContext",
             "volumeMounts", "livenessProbe", "readinessProbe", "ports", "imagePullPolicy",
             "workingDir"}
SEC_CTX = {"privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem", "runAsUser",
           "runAsGroup", "runAsNonRoot", "capabilities", "seccompProfile"}
POD_SEC_CTX = {"runAsUser", "runAsGroup", "runAsNonRoot", "fsGroup", "seccompProfile",
               "supplementalGroups"}
HOSTPATH_TYPES = {"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket",
                  "CharDevice", "BlockDevice"}
DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
errors = []


def err(where, what):
    errors.append(f"{where}: {what}")


def only(where, obj, allowed):
    for k in obj or {}:
        if k not in allowed:
            err(where, f"unknown field {k!r}")


def check_pod_spec(where, spec, minimal):
    only(where, spec, POD_SPEC)
    only(where + ".securityContext", spec.get("securityContext"), POD_SEC_CTX)
    vols = {}
    for v in spec.get("volumes", []):
        vols[v["name"]] = v
        hp = v.get("hostPath")
        if hp is not None:
            if not hp.get("path", "").startswith("/"):
                err(where, f"volume {v['name']}: hostPath needs an absolute path")
            if hp.get("type", "") not in HOSTPATH_TYPES:
                err(where, f"volume {v['name']}: hostPath type {hp.get('type')!r}")
    if spec.get("hostNetwork"):
        err(where, "hostNetwork: the daemon needs no network")
    mounts = {}
    for c in spec.get("containers", []):
        cw = f"{where}.containers[{c.get('name')}]"
        only(cw, c, CONTAINER)
        for key in ("name", "image"):
            if not c.get(key):
                err(cw, f"no {key}")
        if not DNS1123.match(c.get("name", "")):
            err(cw, "the name is not DNS-1123")
        sc = c.get("securityContext", {})
        only(cw + ".securityContext", sc, SEC_CTX)
        only(cw + ".securityContext.capabilities", sc.get("capabilities"), {"add", "drop"})
        if minimal:
            if sc.get("privileged") is not False:
                err(cw, "privileged must be false")
            if sc.get("allowPrivilegeEscalation") is not False:
                err(cw, "allowPrivilegeEscalation must be false")
            if sc.get("readOnlyRootFilesystem") is not True:
                err(cw, "readOnlyRootFilesystem must be true")
            caps = sc.get("capabilities", {})
            if caps.get("drop") != ["ALL"]:
                err(cw, "capabilities must drop ALL")
            if not set(caps.get("add", [])) <= {"SYS_NICE"}:
                err(cw, f"capabilities added beyond SYS_NICE: {caps.get('add')}")
            if "memory" not in c.get("resources", {}).get("limits", {}):
                err(cw, "no memory limit")
        for m in c.get("volumeMounts", []):
            if m["name"] not in vols:
                err(cw, f"mount {m['name']} names no volume")
            if not m.get("mountPath", "").startswith("/"):
                err(cw, f"mount {m['name']}: mountPath must be absolute")
            mounts.setdefault(c["name"], {})[m["mountPath"]] = vols.get(m["name"], {})
        for e in c.get("env", []):
            vf = e.get("valueFrom", {}).get("fieldRef")
            if vf and not re.match(r"^metadata\.(annotations|labels)\['[^']+'\]$|^metadata\.(name|namespace|uid)$|^spec\.nodeName$|^status\.(podIP|hostIP)$",
                                   vf.get("fieldPath", "")):
                err(cw, f"env {e['name']}: fieldPath {vf.get('fieldPath')!r} is not one the "
                        "downward API gives")
    return vols, mounts


def host_path_of(mounts, container, path):
    """The host path behind @path in @container, or None."""
    for mp, vol in mounts.get(container, {}).items():
        if path == mp or path.startswith(mp.rstrip("/") + "/"):
            hp = vol.get("hostPath", {}).get("path")
            return hp + path[len(mp.rstrip("/")):] if hp else None
    return None


def main(rendered, pod_file):
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
    pod = yaml.safe_load(open(pod_file))
    kinds = {}
    for d in docs + [pod]:
        kind = d.get("kind")
        if API.get(kind) != d.get("apiVersion"):
            err(kind, f"apiVersion {d.get('apiVersion')!r} (expected {API.get(kind)!r})")
        if not DNS1123.match(d.get("metadata", {}).get("name", "")):
            err(kind, "metadata.name is not DNS-1123")
        kinds.setdefault(kind, []).append(d)
    for kind in ("Namespace", "ConfigMap", "DaemonSet"):
        if len(kinds.get(kind, [])) != 1:
            err("kustomization", f"expected one {kind}")
    if errors:
        return
    ns = kinds["Namespace"][0]["metadata"]["name"]
    ds = kinds["DaemonSet"][0]
    cm = kinds["ConfigMap"][0]
    for d in (ds, cm):
        if d["metadata"].get("namespace") != ns:
            err(d["kind"], f"not in namespace {ns}")
    sel = ds["spec"]["selector"]["matchLabels"]
    tlabels = ds["spec"]["template"]["metadata"]["labels"]
    if any(tlabels.get(k) != v for k, v in sel.items()):
        err("DaemonSet", "the selector does not match the template's labels")
    spec = ds["spec"]["template"]["spec"]
    if not spec.get("hostPID"):
        err("DaemonSet", "hostPID: SO_PEERCRED gives pid 0 for other pods' processes")
    vols, mounts = check_pod_spec("DaemonSet", spec, minimal=True)
    daemon = next((c for c in spec["containers"] if c["name"] == "hsaqmd"), None)
    if not daemon:
        err("DaemonSet", "no hsaqmd container")
        return
    for c in spec["containers"]:
        if ":" not in c["image"] or c["image"] == "hsaqm":
            err("DaemonSet", f"image {c['image']!r}: kustomize's images: did not apply")
    # The configuration the daemon reads is the ConfigMap's key, mounted where it looks.
    cmd = daemon.get("command", [])
    conf_path = cmd[cmd.index("--config") + 1] if "--config" in cmd else None
    conf_dir = os.path.dirname(conf_path or "")
    mounted = [m for m in daemon.get("volumeMounts", []) if m["mountPath"] == conf_dir]
    key = os.path.basename(conf_path or "")
    if not mounted or vols[mounted[0]["name"]].get("configMap", {}).get("name") != cm["metadata"]["name"] \
            or key not in cm["data"]:
        err("DaemonSet", f"--config {conf_path} is not the ConfigMap's key {key!r}")
        return
    conf = cm["data"][key]
    with open(os.environ.get("K8S_CONF_OUT", "/dev/null"), "w") as f:
        f.write(conf)
    m = re.search(r"^socket\s*=\s*(\S+)", conf, re.M)
    sock = m.group(1) if m else "/run/hsaqm/hsaqmd.sock"
    host_sock = host_path_of(mounts, "hsaqmd", sock)
    if not host_sock:
        err("DaemonSet", f"the socket {sock} is not on a hostPath volume")
    # The pod: its HSAQM_DAEMON is that very socket on the host; its tool library is mounted.
    pspec = pod["spec"]
    _, pmounts = check_pod_spec("Pod", pspec, minimal=False)
    env = {}
    for c in pspec["containers"]:
        for e in c.get("env", []):
            env[e["name"]] = e
        if "amd.com/gpu" not in c.get("resources", {}).get("limits", {}):
            err("Pod", f"container {c['name']}: no amd.com/gpu (AMD's device plugin)")
        cname = c["name"]
    dsock = env.get("HSAQM_DAEMON", {}).get("value")
    if not dsock or host_path_of(pmounts, cname, dsock) != host_sock:
        err("Pod", f"HSAQM_DAEMON {dsock} is not the daemon's socket {host_sock} on the host")
    lib = env.get("HSA_TOOLS_LIB", {}).get("value", "")
    if not host_path_of(pmounts, cname, lib):
        err("Pod", f"HSA_TOOLS_LIB {lib} is not on a hostPath mount")
    if env.get("HSA_TOOLS_ROCPROFILER_V1_TOOLS", {}).get("value") != "1":
        err("Pod", "HSA_TOOLS_ROCPROFILER_V1_TOOLS=1 is missing (ROCm >= 6.1 skips the tool)")
    fp = env.get("HSAQM_PRIORITY", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath", "")
    am = re.match(r"^metadata\.annotations\['([^']+)'\]$", fp)
    ann = pod["metadata"].get("annotations", {})
    if not am or am.group(1) not in ann:
        err("Pod", f"HSAQM_PRIORITY comes from {fp!r}, which is not an annotation of the pod")
    else:
        print(f"priority annotation: {am.group(1)}={ann[am.group(1)]}")
    print(f"checked: {len(docs)} objects (namespace {ns}), the DaemonSet's privileges, "
          f"mounts and config, the pod's socket {dsock} -> {host_sock}, its tool {lib}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    for e in errors:
        print("ERROR:", e)
    sys.exit(1 if errors else 0)
