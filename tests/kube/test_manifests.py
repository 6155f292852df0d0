#!/usr/bin/python3
"""deploy/kubernetes/ passes manifests.py validate, and every mutation below
(a typo, a missing field, a widened privilege, a drifted tuple) fails it with
its own message, so the check cannot pass by checking nothing."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEPLOY = os.path.join(HERE, "..", "..", "deploy", "kubernetes")
TOOL = os.path.join(HERE, "manifests.py")

# (file, text to replace, replacement, a word the error must contain)
MUTATIONS = [
    ("job.yaml", "activeDeadlineSeconds: 3600", "activeDeadlineSecond: 3600", "unknown field"),
    ("job.yaml", "readOnlyRootFilesystem: true\n            capabilities:\n              drop: [ALL]\n            seccompProfile",
     "readOnlyRootFilesystem: true\n            capabilites:\n              drop: [ALL]\n            seccompProfile", "unknown field"),
    ("job.yaml", "runAsNonRoot: true", "runAsNonRoot: yes please", "expected bool"),
    ("job.yaml", "add: [NET_ADMIN]", "add: [NET_ADMIN, NET_RAW]", "and nothing else"),
    ("job.yaml", "              drop: [ALL]\n            seccompProfile",
     "              drop: [ALL]\n              add: [NET_BIND_SERVICE]\n            seccompProfile", "add nothing"),
    ("job.yaml", "runAsUser: 1000", "runAsUser: 0", "non-zero"),
    ("job.yaml", "allowPrivilegeEscalation: false\n            readOnlyRootFilesystem: true\n            capabilities:\n              drop: [ALL]\n            seccomp",
     "allowPrivilegeEscalation: true\n            readOnlyRootFilesystem: true\n            capabilities:\n              drop: [ALL]\n            seccomp", "allowPrivilegeEscalation"),
    ("job.yaml", 'args: ["--firewall-only"]', 'args: ["--dry-run"]', "--firewall-only"),
    ("job.yaml", "@sha256:0000000000000000000000000000000000000000000000000000000000000000\n          imagePullPolicy: IfNotPresent\n          args: [\"--verify",
     ":latest\n          imagePullPolicy: IfNotPresent\n          args: [\"--verify", "by digest"),
    ("job.yaml", "enableServiceLinks: false", "enableServiceLinks: true", "enableServiceLinks"),
    ("job.yaml", "- name: agent\n", "- nam: agent\n", "unknown field"),
    ("job.yaml", "      containers:\n        - name: agent\n", "      containers:\n        - name: agent\n          command: [sh]\n", "ENTRYPOINT"),
    ("configmap.yaml", "http://10.0.0.5:8080", "http://10.0.0.6:8080", "10.0.0.6/32"),
    ("networkpolicy.yaml", "port: 8080", "port: 8081", "TCP port 8080"),
    ("networkpolicy.yaml", "policyTypes: [Ingress, Egress]", "policyTypes: [Egress]", "Ingress"),
    ("sandboxtemplate.yaml", "cidr: 10.0.0.5/32", "cidr: 10.0.0.0/8", "10.0.0.5/32"),
    ("sandboxtemplate.yaml", "sizeLimit: 2Gi", "sizeLimit: 3Gi", "differs"),
    ("sandboxtemplate.yaml", "envVarsInjectionPolicy: Disallowed", "envVarsInjectionPolicy: Sometimes", "not one of"),
    ("sandboxtemplate.yaml", "  podTemplate:\n", "  podTemplat:\n", "unknown field"),
    ("namespace.yaml", "enforce: privileged", "enforce: restricted", "privileged"),
    ("job.yaml", "limits: {cpu: 200m, memory: 64Mi, ephemeral-storage: 64Mi}", "limits: {cpu: 200m, memory: 64Mi}",
     "limits.ephemeral-storage"),
    ("job.yaml", 'limits: {cpu: "2", memory: 4Gi, ephemeral-storage: 4Gi}', "limits: {memory: 4Gi, ephemeral-storage: 4Gi}",
     "limits.cpu"),
    ("job.yaml", "requests: {cpu: 500m, memory: 1Gi,", "requests: {cpu: 500m, memory: 8Gi,", "no more than its limit"),
    ("job.yaml", 'ephemeral-storage: 4Gi}', 'ephemeral-storage: 3Gi}', "emptyDirs' sizeLimits together"),
    ("job.yaml", "        - name: tmp\n          emptyDir:\n            sizeLimit: 2Gi", "        - name: tmp\n          emptyDir: {}",
     "emptyDir.sizeLimit"),
]

# deploy/kubernetes/interactive/ (the pinned interactive pod, issue 33): the same, with its own check
INTERACTIVE = os.path.join(DEPLOY, "interactive")
INTERACTIVE_MUTATIONS = [
    ("pod.yaml", "      restartPolicy: Always", "      restartPolicy: OnFailure", "only Always"),
    ("pod.yaml", "      restartPolicy: Always", "      restartPolicyy: Always", "unknown field"),
    ("pod.yaml", "add: [NET_ADMIN, NET_BIND_SERVICE, SETUID, SETGID, SETPCAP]", "add: [NET_ADMIN, NET_BIND_SERVICE, SETUID, SETGID, SETPCAP, NET_RAW]",
     "only what binding port 53"),
    ("pod.yaml", "add: [NET_ADMIN, NET_BIND_SERVICE, SETUID, SETGID, SETPCAP]", "add: [NET_BIND_SERVICE, SETUID, SETGID, SETPCAP]", "add NET_ADMIN"),
    ("pod.yaml", "add: [NET_ADMIN, SETUID, SETGID]", "add: [NET_ADMIN, SETUID, SETGID, SYS_ADMIN]", "for the lookups' child"),
    ("pod.yaml", "  dnsPolicy: None", "  dnsPolicy: ClusterFirst", "dnsPolicy None"),
    ("pod.yaml", "nameservers: [127.0.0.1]", "nameservers: [127.0.0.1, 10.96.0.10]", "127.0.0.1] alone"),
    ("pod.yaml", "      startupProbe:\n", "      livenessProbe:\n", "startupProbe"),
    ("pod.yaml", "        - $(CLI_SANDBOX_DNS_UPSTREAM)", "        - 8.8.8.8", "--upstream $(CLI_SANDBOX_DNS_UPSTREAM)"),
    ("pod.yaml", 'args: ["--firewall-only", "--", "claude"]', 'args: ["--firewall-only", "--", "codex"]', "the agent's CLI"),
    ("pod.yaml", "        - --names-for\n        - claude\n", "        - --names-for\n        - codex\n", "--names-for the agent's CLI"),
    ("pod.yaml", "        - --names-for\n        - claude\n", "        - --allow\n        - evil.example:443\n", "none by hand"),
    ("pod.yaml", "    - name: firewall\n", "    - name: firewal\n", "firewall, then resolver"),
    ("pod.yaml", "        allowPrivilegeEscalation: false\n        readOnlyRootFilesystem: true\n        capabilities:\n          drop: [ALL]\n          add: [NET_ADMIN, NET",
     "        allowPrivilegeEscalation: true\n        readOnlyRootFilesystem: true\n        capabilities:\n          drop: [ALL]\n          add: [NET_ADMIN, NET",
     "allowPrivilegeEscalation false"),
    ("pod.yaml", "        limits: {cpu: 200m, memory: 32Mi, ephemeral-storage: 16Mi}", "        limits: {cpu: 200m, ephemeral-storage: 16Mi}",
     "limits.memory"),
    ("configmap.yaml", 'CLI_SANDBOX_RESOLVER_UID: "1053"', 'CLI_SANDBOX_RESOLVER_UID: "1000"', "not be the agent's uid"),
    ("configmap.yaml", "CLI_SANDBOX_DNS_UPSTREAM: 10.96.0.10", "CLI_SANDBOX_DNS_UPSTREAM: 10.96.0.10,10.96.0.11", "one IPv4 address"),
    ("configmap.yaml", "CLI_SANDBOX_DNS: pinned", "CLI_SANDBOX_DNS: resolve-once", "CLI_SANDBOX_DNS=pinned"),
]


def run(directory, mode="validate"):
    p = subprocess.run([sys.executable, TOOL, mode, directory], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    passed = failed = 0

    def ok(desc, cond):
        nonlocal passed, failed
        print(("ok" if cond else "not ok") + f" {passed + failed + 1} - {desc}")
        if cond:
            passed += 1
        else:
            failed += 1

    rc, out = run(DEPLOY)
    ok(f"deploy/kubernetes validates ({out.strip()})", rc == 0)
    for fname, old, new, word in MUTATIONS:
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "k")
            shutil.copytree(DEPLOY, d)
            path = os.path.join(d, fname)
            text = open(path).read()
            if text.count(old) < 1:
                ok(f"{fname}: mutation target {old[:40]!r} exists", False)
                continue
            open(path, "w").write(text.replace(old, new, 1))
            rc, out = run(d)
            ok(f"{fname}: {old.splitlines()[0][:40]!r} -> {new.splitlines()[0][:40]!r} fails naming {word!r}",
               rc != 0 and word in out)
            if rc == 0 or word not in out:
                print("#   " + out.strip().replace("\n", "\n#   "))
    rc, out = run(INTERACTIVE, "validate-interactive")
    ok(f"deploy/kubernetes/interactive validates ({out.strip()})", rc == 0)
    for fname, old, new, word in INTERACTIVE_MUTATIONS:
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "k")
            shutil.copytree(INTERACTIVE, d)
            path = os.path.join(d, fname)
            text = open(path).read()
            if text.count(old) < 1:
                ok(f"interactive/{fname}: mutation target {old[:40]!r} exists", False)
                continue
            open(path, "w").write(text.replace(old, new, 1))
            rc, out = run(d, "validate-interactive")
            ok(f"interactive/{fname}: {old.splitlines()[0][:40]!r} -> {new.splitlines()[0][:40]!r} fails naming {word!r}",
               rc != 0 and word in out)
            if rc == 0 or word not in out:
                print("#   " + out.strip().replace("\n", "\n#   "))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
