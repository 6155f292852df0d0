#!/usr/bin/python3
"""Checks deploy/kubernetes/ without a cluster, and renders its Job's pod for
`podman kube play`.

  manifests.py validate DIR
      Every document is parsed with the Kubernetes API models of
      python3-kubernetes, strictly: an unknown field (a typo) or a missing
      required one fails.  The agent-sandbox SandboxTemplate, which those
      models do not know, is checked against its v1beta1 fields, with its pod
      spec, NetworkPolicy rules and claim templates parsed by the same models.
      Then the security shape: the firewall init container adds NET_ADMIN
      and nothing else; the agent container is "restricted"; one image by
      digest; the NetworkPolicies carry the ConfigMap's gateway tuple; the
      SandboxTemplate's pod spec is the Job's.

  manifests.py validate-interactive DIR
      deploy/kubernetes/interactive/: the same strict parse (the native
      sidecar's restartPolicy, newer than Debian's models, is accepted with
      the value Always only), the firewall and agent containers in the Job's
      shape, the resolver sidecar after the firewall with NET_ADMIN and only
      what its start needs, dnsPolicy None with 127.0.0.1 alone, and the
      ConfigMap's pinned settings.

  manifests.py pod-interactive DIR OUTDIR --image IMAGE --name NAME --volume VOLUME
                   --upstream ADDR --allow NAME:PORT... --sh COMMAND
                   [--ordinary-sidecar] [--no-resolver]
      interactive/pod.yaml rendered for kube play (render_interactive says
      what changes).

  manifests.py pod DIR OUTDIR --image IMAGE --url URL --name NAME
                   --volume VOLUME [--no-init] [--args JSON | --sh COMMAND]
                   [--add-cap CAP] [--init-no-net-admin] [--env K=V]...
      Writes OUTDIR/pod.yaml (the Job's pod template as a Pod: kube play
      takes no Job) and OUTDIR/configmap.yaml, with only these test changes:
      the local image; the test gateway's URL; hostNetwork, so the pod uses
      the network namespace podman is started in (podman 4.3 pods cannot
      join a namespace path); a podman annotation that keeps the init
      container after it exits, for its log; the Secret reference replaced
      by a literal (podman has no Kubernetes Secrets); the claim replaced by
      the podman volume VOLUME; and, when given, the agent's args (--sh:
      --verify-only -- sh -c COMMAND), extra environment, a capability added
      to the agent container, an init container without NET_ADMIN, or no
      init container at all.

Needs Debian's python3-kubernetes and python3-yaml (tests/install-deps.sh).
"""

import copy
import ipaddress
import json
import os
import re
import sys
import urllib.parse

import yaml
from kubernetes import client, utils

MODELS = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "Pod"): "V1Pod",
    ("batch/v1", "Job"): "V1Job",
    ("networking.k8s.io/v1", "NetworkPolicy"): "V1NetworkPolicy",
}
SANDBOX_TEMPLATE = ("extensions.agents.x-k8s.io/v1beta1", "SandboxTemplate")
DIGEST_IMAGE = re.compile(r"^[^@\s]+@sha256:[0-9a-f]{64}$")
PRIMITIVES = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,),
              "object": (object,), "datetime": (str,), "date": (str,)}


class Invalid(Exception):
    pass


# Fields newer than Debian's python3-kubernetes models, each with the one
# value these manifests may give it.  A model that knows the field checks it
# itself.
NEWER = {
    # native sidecars (Kubernetes 1.28 behind SidecarContainers, 1.29 on):
    # an init container that keeps running beside the pod's containers
    ("V1Container", "restartPolicy"): (lambda v: v == "Always", "only Always (a native sidecar)"),
}


# ------------------------------------------------------------------ strict parse
def strict(value, type_name, path):
    """Walks value against the python3-kubernetes model type_name; raises
    Invalid at the first unknown field or wrongly typed value."""
    m = re.fullmatch(r"list\[(.+)\]", type_name)
    if m:
        if not isinstance(value, list):
            raise Invalid(f"{path}: expected a list, got {type(value).__name__}")
        for i, v in enumerate(value):
            strict(v, m.group(1), f"{path}[{i}]")
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if m:
        if not isinstance(value, dict):
            raise Invalid(f"{path}: expected a map, got {type(value).__name__}")
        for k, v in value.items():
            # Quantities (cpu: 2) are strings in the models, numbers in YAML.
            if m.group(1) == "str" and isinstance(v, (int, float)) and not isinstance(v, bool) \
                    and path.rsplit(".", 1)[-1] in ("limits", "requests", "capacity"):
                continue
            strict(v, m.group(1), f"{path}.{k}")
        return
    if type_name in PRIMITIVES:
        ok = isinstance(value, PRIMITIVES[type_name])
        if type_name in ("int", "float") and isinstance(value, bool):
            ok = False
        if not ok:
            raise Invalid(f"{path}: expected {type_name}, got {type(value).__name__} {value!r}")
        return
    cls = getattr(client, type_name)
    if not isinstance(value, dict):
        raise Invalid(f"{path}: expected a {type_name} map, got {type(value).__name__}")
    fields = {json_key: cls.openapi_types[attr] for attr, json_key in cls.attribute_map.items()}
    for k, v in value.items():
        if k not in fields and (type_name, k) in NEWER:
            need(NEWER[(type_name, k)][0](v), f"{path}.{k}: {NEWER[(type_name, k)][1]}")
            continue
        if k not in fields:
            raise Invalid(f"{path}.{k}: unknown field of {type_name} (a typo?)")
        strict(v, fields[k], f"{path}.{k}")


def parse(value, type_name, path):
    """strict(), then the models' own constructors (required fields, enums)."""
    strict(value, type_name, path)
    try:
        client.ApiClient()._ApiClient__deserialize(value, type_name)
    except (ValueError, TypeError) as e:
        raise Invalid(f"{path}: {e}") from None


def only_keys(value, allowed, path):
    if not isinstance(value, dict):
        raise Invalid(f"{path}: expected a map")
    for k in value:
        if k not in allowed:
            raise Invalid(f"{path}.{k}: unknown field (a typo?)")


def enum(value, allowed, path):
    if value is not None and value not in allowed:
        raise Invalid(f"{path}: {value!r} is not one of {sorted(allowed)}")


def parse_sandbox_template(doc, path):
    """The v1beta1 SandboxTemplate fields (kubernetes-sigs/agent-sandbox,
    extensions/api/v1beta1/sandboxtemplate_types.go, api/v1beta1/sandbox_types.go)."""
    only_keys(doc, {"apiVersion", "kind", "metadata", "spec"}, path)
    parse(doc.get("metadata", {}), "V1ObjectMeta", f"{path}.metadata")
    spec = doc.get("spec")
    if spec is None:
        raise Invalid(f"{path}.spec: required")
    only_keys(spec, {"podTemplate", "volumeClaimTemplates", "service", "networkPolicy",
                     "networkPolicyManagement", "envVarsInjectionPolicy",
                     "volumeClaimTemplatesPolicy"}, f"{path}.spec")
    enum(spec.get("networkPolicyManagement"), {"Managed", "Unmanaged"}, f"{path}.spec.networkPolicyManagement")
    enum(spec.get("envVarsInjectionPolicy"), {"Allowed", "Overrides", "Disallowed"}, f"{path}.spec.envVarsInjectionPolicy")
    enum(spec.get("volumeClaimTemplatesPolicy"), {"Allowed", "Overrides", "Disallowed"}, f"{path}.spec.volumeClaimTemplatesPolicy")
    if "service" in spec:
        strict(spec["service"], "bool", f"{path}.spec.service")
    pt = spec.get("podTemplate")
    if pt is None:
        raise Invalid(f"{path}.spec.podTemplate: required")
    only_keys(pt, {"metadata", "spec"}, f"{path}.spec.podTemplate")
    only_keys(pt.get("metadata", {}), {"labels", "annotations"}, f"{path}.spec.podTemplate.metadata")
    for k in ("labels", "annotations"):
        if k in pt.get("metadata", {}):
            strict(pt["metadata"][k], "dict(str, str)", f"{path}.spec.podTemplate.metadata.{k}")
    if "spec" not in pt:
        raise Invalid(f"{path}.spec.podTemplate.spec: required")
    parse(pt["spec"], "V1PodSpec", f"{path}.spec.podTemplate.spec")
    np = spec.get("networkPolicy")
    if np is not None:
        only_keys(np, {"ingress", "egress"}, f"{path}.spec.networkPolicy")
        parse(np.get("ingress", []), "list[V1NetworkPolicyIngressRule]", f"{path}.spec.networkPolicy.ingress")
        parse(np.get("egress", []), "list[V1NetworkPolicyEgressRule]", f"{path}.spec.networkPolicy.egress")
    for i, vct in enumerate(spec.get("volumeClaimTemplates", [])):
        p = f"{path}.spec.volumeClaimTemplates[{i}]"
        only_keys(vct, {"metadata", "spec"}, p)
        only_keys(vct.get("metadata", {}), {"name", "labels", "annotations"}, f"{p}.metadata")
        if not vct.get("metadata", {}).get("name"):
            raise Invalid(f"{p}.metadata.name: required")
        parse(vct.get("spec", {}), "V1PersistentVolumeClaimSpec", f"{p}.spec")


def load(directory):
    docs = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith((".yaml", ".yml")):
            continue
        with open(os.path.join(directory, name)) as f:
            try:
                for i, doc in enumerate(yaml.safe_load_all(f)):
                    if doc is not None:
                        docs.append((f"{name}#{i}", doc))
            except yaml.YAMLError as e:
                raise Invalid(f"{name}: not YAML: {e}") from None
    if not docs:
        raise Invalid(f"{directory}: no manifests")
    return docs


def parse_all(docs):
    for path, doc in docs:
        if not isinstance(doc, dict):
            raise Invalid(f"{path}: not a map")
        key = (doc.get("apiVersion"), doc.get("kind"))
        if key == SANDBOX_TEMPLATE:
            parse_sandbox_template(doc, path)
        elif key in MODELS:
            parse(doc, MODELS[key], path)
        else:
            raise Invalid(f"{path}: unknown apiVersion/kind {key[0]}/{key[1]}")


# ------------------------------------------------------------------ the shape
def need(cond, msg):
    if not cond:
        raise Invalid(msg)


def one(docs, kind):
    found = [(p, d) for p, d in docs if d.get("kind") == kind]
    need(len(found) == 1, f"expected exactly one {kind}, found {len(found)}")
    return found[0]


def gateway_tuple(url, path):
    u = urllib.parse.urlsplit(url)
    need(u.scheme in ("http", "https") and u.hostname, f"{path}: {url!r} is not an http(s) URL")
    try:
        addr = ipaddress.IPv4Address(u.hostname)
    except ValueError:
        raise Invalid(f"{path}: the managed gateway must be a literal IPv4 address, not {u.hostname!r}") from None
    return str(addr), u.port or (443 if u.scheme == "https" else 80)


def check_egress(rules, addr, port, path):
    need(isinstance(rules, list) and len(rules) == 1, f"{path}: expected exactly one egress rule, the gateway tuple")
    r = rules[0]
    to = r.get("to", [])
    need(len(to) == 1 and set(to[0]) == {"ipBlock"} and to[0]["ipBlock"].get("cidr") == f"{addr}/32"
         and not to[0]["ipBlock"].get("except"),
         f"{path}: egress must go to ipBlock {addr}/32 only (the ConfigMap's gateway)")
    ports = r.get("ports", [])
    need(len(ports) == 1 and ports[0].get("protocol", "TCP") == "TCP" and ports[0].get("port") == port
         and "endPort" not in ports[0], f"{path}: egress must allow TCP port {port} only")


def quantity(q):
    """A Kubernetes quantity (4Gi, 200m, "2") as a number."""
    return utils.parse_quantity(q)


def check_pod_spec(spec, path, configmap):
    need(spec.get("restartPolicy") == "Never", f"{path}.restartPolicy: Never (one task, one run)")
    need(spec.get("automountServiceAccountToken") is False, f"{path}.automountServiceAccountToken: false")
    need(spec.get("enableServiceLinks") is False,
         f"{path}.enableServiceLinks: false (Service variables named CLI_SANDBOX_* stop the start)")
    for k in ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace"):
        need(not spec.get(k), f"{path}.{k} must stay off")
    for v in spec.get("volumes", []):
        need("hostPath" not in v, f"{path}.volumes: no hostPath volumes ({v.get('name')})")
    pod_sc = spec.get("securityContext", {})
    inits, ctrs = spec.get("initContainers", []), spec.get("containers", [])
    need(len(inits) == 1 and len(ctrs) == 1, f"{path}: one init container (firewall) and one container (agent)")
    init, agent = inits[0], ctrs[0]
    ip, ap = f"{path}.initContainers[0]", f"{path}.containers[0]"
    need(init.get("image") == agent.get("image") and DIGEST_IMAGE.match(init.get("image", "")),
         f"{path}: both containers run one image, by digest (name@sha256:<64 hex>)")
    for c, p in ((init, ip), (agent, ap)):
        need("command" not in c, f"{p}.command: leave the ENTRYPOINT (the init) alone; use args")
        need({"configMapRef": {"name": configmap}} in c.get("envFrom", []),
             f"{p}.envFrom: the gateway ConfigMap {configmap}, so both sides see one configuration")
        limits = c.get("resources", {}).get("limits", {})
        requests = c.get("resources", {}).get("requests", {})
        for r in ("cpu", "memory", "ephemeral-storage"):
            need(limits.get(r), f"{p}.resources.limits.{r}: set (a runaway agent must not take the node)")
            need(r not in requests or quantity(requests[r]) <= quantity(limits.get(r, requests[r])),
                 f"{p}.resources.requests.{r}: no more than its limit")
    need(init.get("args", [None])[0] == "--firewall-only", f"{ip}.args: start with --firewall-only")
    need(agent.get("args", [None])[0] == "--verify-only" and len(agent["args"]) > 1,
         f"{ap}.args: --verify-only, then the command")
    isc = init.get("securityContext", {})
    caps = isc.get("capabilities", {})
    need(caps.get("drop") == ["ALL"] and caps.get("add") == ["NET_ADMIN"],
         f"{ip}.securityContext.capabilities: drop [ALL], add [NET_ADMIN] and nothing else")
    need(isc.get("allowPrivilegeEscalation") is False and not isc.get("privileged"),
         f"{ip}.securityContext: allowPrivilegeEscalation false, not privileged")
    need(isc.get("readOnlyRootFilesystem") is True, f"{ip}.securityContext.readOnlyRootFilesystem: true")
    asc = agent.get("securityContext", {})
    need(asc.get("runAsNonRoot") is True, f"{ap}.securityContext.runAsNonRoot: true")
    need(isinstance(asc.get("runAsUser"), int) and asc["runAsUser"] > 0
         and isinstance(asc.get("runAsGroup"), int) and asc["runAsGroup"] > 0,
         f"{ap}.securityContext: runAsUser and runAsGroup, both non-zero")
    need(asc.get("allowPrivilegeEscalation") is False and not asc.get("privileged"),
         f"{ap}.securityContext: allowPrivilegeEscalation false, not privileged")
    need(asc.get("capabilities") == {"drop": ["ALL"]}, f"{ap}.securityContext.capabilities: drop [ALL], add nothing")
    need(asc.get("readOnlyRootFilesystem") is True, f"{ap}.securityContext.readOnlyRootFilesystem: true")
    seccomp = asc.get("seccompProfile", pod_sc.get("seccompProfile", {}))
    need(seccomp.get("type") == "RuntimeDefault", f"{ap}: seccompProfile RuntimeDefault")
    # Every emptyDir the agent writes is bounded, and together they fit in its
    # ephemeral-storage limit, which counts them (the root filesystem is read-only).
    vols = {v.get("name"): v for v in spec.get("volumes", [])}
    scratch = 0
    for m in agent.get("volumeMounts", []):
        v = vols.get(m.get("name"), {})
        if "emptyDir" in v:
            size = (v["emptyDir"] or {}).get("sizeLimit")
            need(size, f"{path}.volumes[{v.get('name')}].emptyDir.sizeLimit: set (it is the node's disk)")
            scratch += quantity(size or "0")
    eph = agent.get("resources", {}).get("limits", {}).get("ephemeral-storage")
    need(not eph or scratch <= quantity(eph),
         f"{ap}.resources.limits.ephemeral-storage: at least the emptyDirs' sizeLimits together")
    mounts = {m["mountPath"] for m in agent.get("volumeMounts", [])}
    need({"/workspace", "/home/node", "/tmp"} <= mounts,
         f"{ap}.volumeMounts: /workspace, /home/node and /tmp (the root filesystem is read-only)")


def validate(directory):
    docs = load(directory)
    parse_all(docs)
    ns_path, ns = one(docs, "Namespace")
    name = ns["metadata"]["name"]
    labels = ns["metadata"].get("labels", {})
    need(labels.get("pod-security.kubernetes.io/enforce") == "privileged",
         f"{ns_path}: enforce 'privileged' (the init container adds NET_ADMIN)")
    need(labels.get("pod-security.kubernetes.io/warn") == "restricted"
         and labels.get("pod-security.kubernetes.io/audit") == "restricted",
         f"{ns_path}: warn and audit at 'restricted'")
    for p, d in docs:
        if d["kind"] != "Namespace":
            need(d["metadata"].get("namespace") == name, f"{p}: metadata.namespace {name}")
    cm_path, cm = one(docs, "ConfigMap")
    data = cm.get("data", {})
    need(data.get("CLI_SANDBOX_EGRESS_PROFILE", "managed") == "managed", f"{cm_path}: the managed profile")
    addr, port = gateway_tuple(data.get("TASK_AGENT_MODEL_BASE_URL", ""), f"{cm_path}.data.TASK_AGENT_MODEL_BASE_URL")
    cm_name = cm["metadata"]["name"]

    job_path, job = one(docs, "Job")
    js = job["spec"]
    for k in ("activeDeadlineSeconds", "ttlSecondsAfterFinished", "backoffLimit"):
        need(isinstance(js.get(k), int), f"{job_path}.spec.{k}: set")
    pod = js["template"]["spec"]
    check_pod_spec(pod, f"{job_path}.spec.template.spec", cm_name)
    pod_labels = js["template"].get("metadata", {}).get("labels", {})
    need(any(v["name"] == "workspace" and "persistentVolumeClaim" in v for v in pod.get("volumes", [])),
         f"{job_path}: the workspace is a claim the controller fills")

    np_path, np = one(docs, "NetworkPolicy")
    nps = np["spec"]
    sel = nps.get("podSelector", {}).get("matchLabels", {})
    need(sel and all(pod_labels.get(k) == v for k, v in sel.items()), f"{np_path}: podSelector selects the Job's pod")
    need(set(nps.get("policyTypes", [])) == {"Ingress", "Egress"} and not nps.get("ingress"),
         f"{np_path}: policyTypes Ingress and Egress, no ingress allowed")
    check_egress(nps.get("egress"), addr, port, f"{np_path}.spec.egress")

    st_path, st = one(docs, "SandboxTemplate")
    sts = st["spec"]
    need(sts.get("envVarsInjectionPolicy", "Disallowed") == "Disallowed",
         f"{st_path}: envVarsInjectionPolicy Disallowed (a claim must not move the gateway)")
    need(sts.get("networkPolicyManagement", "Managed") == "Managed" and "networkPolicy" in sts,
         f"{st_path}: a Managed networkPolicy with the gateway tuple (the default one blocks private gateways)")
    need(not sts["networkPolicy"].get("ingress"), f"{st_path}.spec.networkPolicy.ingress: empty")
    check_egress(sts["networkPolicy"].get("egress"), addr, port, f"{st_path}.spec.networkPolicy.egress")
    need(any(v["metadata"]["name"] == "workspace" for v in sts.get("volumeClaimTemplates", [])),
         f"{st_path}: a volumeClaimTemplate named workspace")
    want = copy.deepcopy(pod)
    want["volumes"] = [v for v in want.get("volumes", []) if v["name"] != "workspace"]
    need(sts["podTemplate"]["spec"] == want,
         f"{st_path}: podTemplate.spec differs from {job_path}'s pod spec (the workspace volume aside)")
    need(sts["podTemplate"].get("metadata", {}).get("labels") == pod_labels,
         f"{st_path}: podTemplate labels differ from the Job's")
    return len(docs)


# ------------------------------------------------------------------ the interactive pod
def validate_interactive(directory):
    """deploy/kubernetes/interactive/: the ConfigMap and the Pod with the
    firewall init container, the resolver as a native sidecar, the agent."""
    docs = load(directory)
    parse_all(docs)
    need(sorted(d["kind"] for _, d in docs) == ["ConfigMap", "Pod"], f"{directory}: one ConfigMap and one Pod")
    cm_path, cm = one(docs, "ConfigMap")
    data = cm.get("data", {})
    need(data.get("CLI_SANDBOX_EGRESS_PROFILE") == "interactive" and data.get("CLI_SANDBOX_DNS") == "pinned",
         f"{cm_path}: the interactive profile with CLI_SANDBOX_DNS=pinned")
    r_uid = data.get("CLI_SANDBOX_RESOLVER_UID", "")
    need(re.fullmatch(r"[1-9][0-9]*", r_uid) is not None, f"{cm_path}: CLI_SANDBOX_RESOLVER_UID, a uid other than 0")
    try:
        ipaddress.IPv4Address(data.get("CLI_SANDBOX_DNS_UPSTREAM", ""))
    except ValueError:
        raise Invalid(f"{cm_path}: CLI_SANDBOX_DNS_UPSTREAM, one IPv4 address (the resolver's --upstream takes one)") from None
    pod_path, pod = one(docs, "Pod")
    need(cm["metadata"].get("namespace") == pod["metadata"].get("namespace"), f"{pod_path}: the ConfigMap's namespace")
    spec = pod["spec"]
    sp = f"{pod_path}.spec"
    need(spec.get("dnsPolicy") == "None" and spec.get("dnsConfig", {}).get("nameservers") == ["127.0.0.1"]
         and not spec["dnsConfig"].get("searches"),
         f"{sp}: dnsPolicy None, dnsConfig.nameservers [127.0.0.1] alone and no search domains (the resolver answers every lookup)")
    inits = spec.get("initContainers", [])
    need([c.get("name") for c in inits] == ["firewall", "resolver"],
         f"{sp}.initContainers: firewall, then resolver (the sidecar needs the firewall's set)")
    fw, res = inits
    # the firewall and the agent: the Job's own shape, but for the two
    # capabilities the interactive profile's start-time lookups need (their
    # child changes to the agent's user before it parses an answer)
    fw_add = fw.get("securityContext", {}).get("capabilities", {}).get("add", [])
    need("NET_ADMIN" in fw_add and set(fw_add) <= {"NET_ADMIN", "SETUID", "SETGID"},
         f"{sp}.initContainers[0].securityContext.capabilities: add NET_ADMIN, and SETUID and SETGID for the lookups' child, nothing else")
    alone = copy.deepcopy(spec)
    alone["initContainers"] = [copy.deepcopy(fw)]
    alone["initContainers"][0]["securityContext"]["capabilities"]["add"] = ["NET_ADMIN"]
    check_pod_spec(alone, sp, cm["metadata"]["name"])
    agent = spec["containers"][0]
    need(agent["securityContext"]["runAsUser"] != int(r_uid),
         f"{cm_path}: CLI_SANDBOX_RESOLVER_UID must not be the agent's uid")
    need(len(fw.get("args", [])) == 3 and fw["args"][1] == "--" and agent["args"][1:3] == ["--", fw["args"][2]],
         f"{sp}.initContainers[0].args: --firewall-only -- CLI, the agent's CLI (its names are the ones allowed)")
    rp = f"{sp}.initContainers[1]"
    need(res.get("restartPolicy") == "Always", f"{rp}.restartPolicy: Always (a native sidecar)")
    need(res.get("image") == agent.get("image"), f"{rp}.image: the agent's image")
    need(res.get("command") == ["/usr/local/sbin/cli-sandbox-resolver"], f"{rp}.command: the image's resolver")
    need({"configMapRef": {"name": cm["metadata"]["name"]}} in res.get("envFrom", []), f"{rp}.envFrom: the ConfigMap")
    args = res.get("args", [])
    pairs = list(zip(args[::2], args[1::2]))
    need(len(args) % 2 == 0 and ("--upstream", "$(CLI_SANDBOX_DNS_UPSTREAM)") in pairs
         and all(o in ("--upstream", "--names-for") for o, _ in pairs) and [o for o, _ in pairs].count("--names-for") == 1,
         f"{rp}.args: --names-for CLI --upstream $(CLI_SANDBOX_DNS_UPSTREAM) (the names from the profile and the ConfigMap, none by hand)")
    need(dict(pairs)["--names-for"] == fw["args"][2],
         f"{rp}.args: --names-for the agent's CLI ({fw['args'][2]}), whose names the firewall warmed up")
    rsc = res.get("securityContext", {})
    caps = rsc.get("capabilities", {})
    need(caps.get("drop") == ["ALL"] and "NET_ADMIN" in caps.get("add", [])
         and set(caps.get("add", [])) <= {"NET_ADMIN", "NET_BIND_SERVICE", "SETUID", "SETGID", "SETPCAP"},
         f"{rp}.securityContext.capabilities: drop [ALL], add NET_ADMIN and only what binding port 53 and changing uid need")
    need(rsc.get("allowPrivilegeEscalation") is False and not rsc.get("privileged") and rsc.get("readOnlyRootFilesystem") is True,
         f"{rp}.securityContext: allowPrivilegeEscalation false, not privileged, read-only root")
    need(res.get("startupProbe"), f"{rp}.startupProbe: set, so the agent starts after the resolver listens")
    for r in ("cpu", "memory", "ephemeral-storage"):
        need(res.get("resources", {}).get("limits", {}).get(r), f"{rp}.resources.limits.{r}: set")
    return len(docs)


# ------------------------------------------------------------------ kube play
def render_pod(directory, outdir, image, url, name, volume, no_init, args, env, add_caps,
               init_no_net_admin):
    docs = load(directory)
    _, job = one(docs, "Job")
    _, cm = one(docs, "ConfigMap")
    tmpl = copy.deepcopy(job["spec"]["template"])
    spec = tmpl["spec"]
    spec["hostNetwork"] = True
    for c in spec.get("initContainers", []) + spec["containers"]:
        c["image"] = image
        for e in c.get("env", []):
            if "secretKeyRef" in e.get("valueFrom", {}):
                del e["valueFrom"]
                e["value"] = "sk-test-not-a-key"
    agent = spec["containers"][0]
    if args is not None:
        agent["args"] = args
    agent.setdefault("env", []).extend({"name": k, "value": v} for k, v in env)
    if add_caps:
        agent["securityContext"]["capabilities"]["add"] = add_caps
    for v in spec["volumes"]:
        if "persistentVolumeClaim" in v:
            v["persistentVolumeClaim"]["claimName"] = volume
    meta = {"name": name, "labels": tmpl.get("metadata", {}).get("labels", {}),
            "annotations": {"io.podman.annotations.init.container.type": "always"}}
    if init_no_net_admin:
        del spec["initContainers"][0]["securityContext"]["capabilities"]["add"]
    if no_init:
        del spec["initContainers"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    parse(pod, "V1Pod", "rendered pod")
    cm = copy.deepcopy(cm)
    cm["data"]["TASK_AGENT_MODEL_BASE_URL"] = url
    del cm["metadata"]["namespace"]
    with open(os.path.join(outdir, "pod.yaml"), "w") as f:
        yaml.safe_dump(pod, f, sort_keys=False)
    with open(os.path.join(outdir, "configmap.yaml"), "w") as f:
        yaml.safe_dump(cm, f, sort_keys=False)


def render_interactive(directory, outdir, image, name, volume, upstream, allow, sh, ordinary_sidecar, no_resolver):
    """interactive/pod.yaml for kube play, with only these test changes: the
    local image; hostNetwork (podman runs inside the test namespace); the
    podman annotation that keeps init containers for their logs; the Secret
    as a literal; the claim as a podman volume; the ConfigMap's upstream set
    to the test upstream and CLI_SANDBOX_ALLOW to the test's names (the
    resolver's --names-for adds them to the profile's); $(VAR) in its args
    expanded here (podman 4.3 does not); the agent's command as --sh, with
    no terminal (nobody attaches).
    With ordinary_sidecar (an engine without native sidecars): the resolver
    becomes the pod's first container, without restartPolicy and
    startupProbe, and the agent's container waits for the resolver with the
    startupProbe's own command before it execs the init (the kubelet's gate,
    by hand).  no_resolver leaves the resolver out."""
    docs = load(directory)
    _, pod = one(docs, "Pod")
    _, cm = one(docs, "ConfigMap")
    pod, cm = copy.deepcopy(pod), copy.deepcopy(cm)
    cm["data"]["CLI_SANDBOX_DNS_UPSTREAM"] = upstream
    cm["data"]["CLI_SANDBOX_ALLOW"] = ",".join(allow)
    del cm["metadata"]["namespace"]
    spec = pod["spec"]
    spec["hostNetwork"] = True
    fw, res = spec["initContainers"]
    agent = spec["containers"][0]
    for c in (fw, res, agent):
        c["image"] = image
        for e in c.get("env", []):
            if "secretKeyRef" in e.get("valueFrom", {}):
                del e["valueFrom"]
                e["value"] = "sk-test-not-a-key"
    res["args"] = [re.sub(r"\$\((\w+)\)", lambda m: cm["data"][m.group(1)], a) for a in res["args"]]
    agent["args"] = ["--verify-only", "--", "sh", "-c", sh]
    agent.pop("stdin", None)  # nobody attaches in a test: a plain log, no terminal
    agent.pop("tty", None)
    for v in spec["volumes"]:
        if "persistentVolumeClaim" in v:
            v["persistentVolumeClaim"]["claimName"] = volume
    probe = res["startupProbe"]["exec"]["command"]
    if no_resolver:
        spec["initContainers"] = [fw]
    elif ordinary_sidecar:
        spec["initContainers"] = [fw]
        del res["restartPolicy"], res["startupProbe"]
        spec["containers"] = [res, agent]
        need(probe[:2] == ["/bin/bash", "-c"], "the startupProbe is a bash -c command")
        agent["command"] = ["/bin/bash", "-c",
                            "i=0; until (" + probe[2] + ") 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.1; done; "
                            "exec /usr/local/sbin/cli-sandbox-init \"$@\"", "agent"]
    meta = {"name": name, "labels": pod["metadata"].get("labels", {}),
            "annotations": {"io.podman.annotations.init.container.type": "always"}}
    out = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    with open(os.path.join(outdir, "pod.yaml"), "w") as f:
        yaml.safe_dump(out, f, sort_keys=False)
    with open(os.path.join(outdir, "configmap.yaml"), "w") as f:
        yaml.safe_dump(cm, f, sort_keys=False)


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "validate-interactive":
            n = validate_interactive(argv[2])
            print(f"{argv[2]}: {n} manifests valid")
            return 0
        if len(argv) == 3 and argv[1] == "validate":
            n = validate(argv[2])
            print(f"{argv[2]}: {n} manifests valid")
            return 0
        if len(argv) >= 4 and argv[1] == "pod-interactive":
            o = {"--image": None, "--name": None, "--volume": None, "--upstream": None, "--sh": None}
            allow, flags, i = [], set(), 4
            while i < len(argv):
                a = argv[i]
                if a in ("--ordinary-sidecar", "--no-resolver"):
                    flags.add(a)
                    i += 1
                elif a == "--allow" and i + 1 < len(argv):
                    allow.append(argv[i + 1])
                    i += 2
                elif a in o and i + 1 < len(argv):
                    o[a], i = argv[i + 1], i + 2
                else:
                    raise Invalid(f"unknown option {a}")
            if None in o.values() or not allow:
                raise Invalid("pod-interactive needs --image, --name, --volume, --upstream, --sh and --allow")
            render_interactive(argv[2], argv[3], o["--image"], o["--name"], o["--volume"], o["--upstream"], allow,
                               o["--sh"], "--ordinary-sidecar" in flags, "--no-resolver" in flags)
            return 0
        if len(argv) >= 4 and argv[1] == "pod":
            opts = {"--image": None, "--url": None, "--name": None, "--volume": None, "--args": None,
                    "--sh": None}
            env, caps, no_init, no_net_admin, i = [], [], False, False, 4
            while i < len(argv):
                a = argv[i]
                if a == "--no-init":
                    no_init, i = True, i + 1
                elif a == "--init-no-net-admin":
                    no_net_admin, i = True, i + 1
                elif a == "--add-cap" and i + 1 < len(argv):
                    caps.append(argv[i + 1])
                    i += 2
                elif a == "--env" and i + 1 < len(argv):
                    k, _, v = argv[i + 1].partition("=")
                    env.append((k, v))
                    i += 2
                elif a in opts and i + 1 < len(argv):
                    opts[a], i = argv[i + 1], i + 2
                else:
                    raise Invalid(f"unknown option {a}")
            if None in (opts["--image"], opts["--url"], opts["--name"], opts["--volume"]):
                raise Invalid("pod needs --image, --url, --name and --volume")
            args = json.loads(opts["--args"]) if opts["--args"] else None
            if opts["--sh"] is not None:
                args = ["--verify-only", "--", "sh", "-c", opts["--sh"]]
            render_pod(argv[2], argv[3], opts["--image"], opts["--url"], opts["--name"],
                       opts["--volume"], no_init, args, env, caps, no_net_admin)
            return 0
    except Invalid as e:
        print(f"manifests.py: {e}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
