"""An in-tree PEP 517 / PEP 660 build backend for rbx-client, standard
library only.

pip builds a package in an isolated environment into which it first
installs the backend named in pyproject.toml's build-system.requires (for
most packages setuptools, fetched from PyPI). This backend needs nothing
(`requires = []`, loaded from `backend-path`), so `pip install
./clients/python` works with no network and no index: it writes the wheel
(a zip of the rbx package, rbx_client.py and a .dist-info directory), the
sdist (a tar.gz of the sources with PKG-INFO) and an editable wheel (a
.pth file pointing at the sources) itself.

Hooks: get_requires_for_build_{wheel,sdist,editable}, prepare_metadata_for_build_{wheel,editable},
build_wheel, build_sdist, build_editable.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # clients/python
PACKAGES = ["rbx"]
MODULES = ["rbx_client.py"]
SDIST_EXTRA = ["pyproject.toml", "README.md", "_build/rbx_build_backend.py"]
# Fixed timestamps (those of SOURCE_DATE_EPOCH when set): the same sources make the same bytes.
_EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's earliest
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _project():
    """The [project] table of pyproject.toml (and its urls)."""
    path = os.path.join(HERE, "pyproject.toml")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _mini_toml(path)
    with open(path, "rb") as f:
        return tomllib.load(f)["project"]


def _mini_toml(path):
    """The subset of TOML this pyproject.toml uses ([project] and
    [project.urls]: strings, arrays of strings, inline tables of strings),
    for Pythons without tomllib."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out, table = {}, None
    text = re.sub(r"\[\s*\n(.*?)\]", lambda m: "[" + " ".join(m.group(1).split("\n")) + "]", text, flags=re.S)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^\[([\w.-]+)\]$", line)
        if m:
            table = m.group(1)
            if table == "project.urls":
                out["urls"] = {}
            continue
        if table not in ("project", "project.urls"):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip().strip('"'), value.strip()
        if value.startswith("["):
            parsed = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
        elif value.startswith("{"):
            parsed = dict(re.findall(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', value))
        else:
            m = re.match(r'^"((?:[^"\\]|\\.)*)"', value)
            parsed = m.group(1) if m else value.split("#", 1)[0].strip()
        (out["urls"] if table == "project.urls" else out)[key] = parsed
    return out


def _names():
    p = _project()
    name, version = p["name"], p["version"]
    dist = re.sub(r"[-_.]+", "_", name).lower()
    return p, name, version, dist


def _metadata():
    p, name, version, _ = _names()
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version]
    if p.get("description"):
        lines.append("Summary: " + p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    for c in p.get("classifiers", []):
        lines.append("Classifier: " + c)
    for k, v in sorted(p.get("urls", {}).items()):
        lines.append("Project-URL: %s, %s" % (k, v))
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: " + dep)
    body = ""
    readme = p.get("readme")
    if readme:
        with open(os.path.join(HERE, readme), encoding="utf-8") as f:
            body = f.read()
        lines.append("Description-Content-Type: text/markdown")
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def _sources():
    """(archive path, file path) of every file the wheel carries."""
    files = []
    for pkg in PACKAGES:
        for root, dirs, names in os.walk(os.path.join(HERE, pkg)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(names):
                if n.endswith((".py", ".typed")):
                    full = os.path.join(root, n)
                    files.append((os.path.relpath(full, HERE).replace(os.sep, "/"), full))
    files += [(m, os.path.join(HERE, m)) for m in MODULES]
    return files


def _dist_info_files(editable=False):
    p, name, version, dist = _names()
    di = "%s-%s.dist-info" % (dist, version)
    wheel = "Wheel-Version: 1.0\nGenerator: rbx_build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    top = "\n".join(PACKAGES + [m[:-3] for m in MODULES]) + "\n"
    return di, [(di + "/METADATA", _metadata()), (di + "/WHEEL", wheel.encode()), (di + "/top_level.txt", top.encode())]


def _write_wheel(wheel_directory, entries):
    """A wheel of entries [(archive path, bytes)] plus its RECORD."""
    _, name, version, dist = _names()
    di, meta = _dist_info_files()
    entries = list(entries) + meta
    filename = "%s-%s-py3-none-any.whl" % (dist, version)
    record = []
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            _zip_add(z, arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (arc, digest, len(data)))
        record.append(di + "/RECORD,,")
        _zip_add(z, di + "/RECORD", ("\n".join(record) + "\n").encode())
    return filename


def _zip_add(z, arc, data):
    info = zipfile.ZipInfo(arc, date_time=_ZIP_TIME)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# PEP 517 hooks.

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    di, meta = _dist_info_files()
    for arc, data in meta:
        path = os.path.join(metadata_directory, *arc.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return di


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(arc, _read(path)) for arc, path in _sources()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth file puts the source directory on
    sys.path, so edits to clients/python/rbx take effect without a reinstall."""
    _, _, version, dist = _names()
    pth = "__editable__.%s-%s.pth" % (dist, version)
    return _write_wheel(wheel_directory, [(pth, (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    _, _, version, dist = _names()
    base = "%s-%s" % (dist, version)
    files = [(arc, path) for arc, path in _sources()]
    files += [(rel, os.path.join(HERE, *rel.split("/"))) for rel in SDIST_EXTRA]
    filename = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arc, data in [("PKG-INFO", _metadata())] + [(a, _read(p)) for a, p in sorted(set(files))]:
            info = tarfile.TarInfo(base + "/" + arc)
            info.size, info.mtime, info.mode = len(data), _EPOCH, 0o644
            tar.addfile(info, io.BytesIO(data))
    return filename
