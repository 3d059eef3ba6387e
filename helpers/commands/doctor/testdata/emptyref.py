"""emptyref: a small launcher for the doctor's own tests (emptyref.yaml). It reads the class and
ignores it. Its last arguments choose what it does with an empty reference result (unset: the
next source decides; refuse; profile: taken, and named as the profile's) and with a config write
that fails (fail: a non-zero exit naming the folder; swallow: success, silently), so that the
doctor is seen to tell each way apart before a run would."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

CLASS = "ER_CPU_CLASS"
REF = re.compile(r"^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$")
CLASSES = ("normal", "background")


def die(msg):
    sys.stderr.write("emptyref: " + msg + "\n")
    sys.exit(1)


def load(path, missing):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return missing


def daemon(envfile):
    with open(envfile + ".new", "w") as f:
        json.dump(dict(os.environ), f)
    os.rename(envfile + ".new", envfile)  # the kit's ready path: there once it is whole
    while True:
        time.sleep(3600)


def check(v, where):
    if v not in CLASSES:
        die("%s: %r is not a CPU class; accepted: normal, background" % (where, v))
    return v


def profile_value(p, denv, empty_ref):
    """The profile's class and source, or None when it leaves the class unset."""
    where = "profile %s: %s=%r" % (p["name"], CLASS, p["env"].get(CLASS))
    v = p["env"].get(CLASS)
    if v is None:
        return None
    m = REF.match(v)
    if v.startswith("${") and not m:
        die(where + ": a malformed reference")
    if m:
        if m.group(1) not in denv:
            die(where + ": $%s is not set in the daemon env" % m.group(1))
        v = denv[m.group(1)]
        if v == "" and empty_ref == "refuse":
            die(where + ": the reference resolves to an empty value; accepted: normal, background")
        if v == "" and empty_ref == "profile":
            return "background", "profile"
    return (check(v, where), "profile") if v != "" else None


def resolve(envfile, profile, empty_ref, config):
    denv = load(envfile, {})
    p = load(profile, {})
    p.setdefault("env", {})
    got = profile_value(p, denv, empty_ref)
    if got is None and denv.get(CLASS, "") != "":
        got = check(denv[CLASS], "daemon env %s" % CLASS), "daemon"
    if got is None and load(config, {}).get("session", {}).get("cpuClass", "") != "":
        got = check(load(config, {})["session"]["cpuClass"], "config " + config), "config"
    return p, got or ("background", "default")


def write(config, doc, how):
    folder = os.path.dirname(config)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, config)
    except OSError as e:
        if how == "swallow":
            sys.exit(0)
        die("cannot write config folder %s: %s; the file was left as it is" % (folder, e.strerror))


def config(op, path, key, *rest):
    if key not in ("session.cpu_class", "session.cpuClass"):
        die("config: unknown key %r" % key)
    doc = load(path, {})
    if op == "get":
        v = doc.get("session", {}).get("cpuClass")
        if v is None:
            die("config: %s is not set" % key)
        print(v)
    elif op == "set":
        doc.setdefault("session", {})["cpuClass"] = check(rest[0], "config --set " + key)
        write(path, doc, rest[1])
    else:
        doc.get("session", {}).pop("cpuClass", None)
        write(path, doc, rest[0])


def main(cmd, *a):
    if cmd == "daemon":
        daemon(*a)
    elif cmd == "session":
        p, _ = resolve(*a)
        subprocess.Popen(p["command"], cwd=p.get("cwd"), env=dict(os.environ, **p["env"]), start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif cmd == "explain":
        _, (c, source) = resolve(*a)
        print("class=%s source=%s" % (c, source))
    elif cmd == "config":
        config(*a)
    else:
        die("usage: emptyref daemon|session|explain|config ...")


main(*sys.argv[1:])
