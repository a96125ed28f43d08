"""Tests of the rbx-client package: the in-tree build backend's wheel and
sdist, and `pip install ./clients/python` in a fresh virtual environment
with no index reachable (the build needs nothing from PyPI).
Run: python3 -m unittest discover -s clients/python -v
"""

import base64
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_build"))
import rbx  # noqa: E402
import rbx_build_backend as backend  # noqa: E402


class BackendTest(unittest.TestCase):
    def test_wheel(self):
        d = tempfile.mkdtemp(prefix="rbx-wheel-")
        self.addCleanup(shutil.rmtree, d, True)
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        name = backend.build_wheel(d)
        self.assertEqual(name, "rbx_client-%s-py3-none-any.whl" % rbx.__version__)
        with zipfile.ZipFile(os.path.join(d, name)) as z:
            names = set(z.namelist())
            for want in ("rbx/__init__.py", "rbx/aio.py", "rbx/client.py", "rbx/trl.py", "rbx/skyrl.py",
                         "rbx/py.typed", "rbx_client.py"):
                self.assertIn(want, names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.startswith("test_")])
            di = "rbx_client-%s.dist-info/" % rbx.__version__
            meta = z.read(di + "METADATA").decode()
            self.assertIn("Name: rbx-client\n", meta)
            self.assertIn("Version: %s\n" % rbx.__version__, meta)
            self.assertNotIn("Requires-Dist", meta)  # no runtime dependency
            self.assertIn("Root-Is-Purelib: true", z.read(di + "WHEEL").decode())
            for line in z.read(di + "RECORD").decode().splitlines():  # every hash right
                path, digest, size = line.rsplit(",", 2)
                if digest:
                    data = z.read(path)
                    self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(
                        hashlib.sha256(data).digest()).rstrip(b"=").decode(), path)
                    self.assertEqual(int(size), len(data))
        self.assertEqual(backend.build_wheel(d), name)  # reproducible: same bytes again

    def test_sdist_metadata_editable(self):
        d = tempfile.mkdtemp(prefix="rbx-sdist-")
        self.addCleanup(shutil.rmtree, d, True)
        name = backend.build_sdist(d)
        with tarfile.open(os.path.join(d, name)) as t:
            names = set(t.getnames())
        base = "rbx_client-%s/" % rbx.__version__
        for want in ("PKG-INFO", "pyproject.toml", "README.md", "_build/rbx_build_backend.py", "rbx/aio.py"):
            self.assertIn(base + want, names)
        di = backend.prepare_metadata_for_build_wheel(d)
        self.assertTrue(os.path.exists(os.path.join(d, di, "METADATA")))
        ed = backend.build_editable(d)
        with zipfile.ZipFile(os.path.join(d, ed)) as z:
            pth = [n for n in z.namelist() if n.endswith(".pth")]
            self.assertEqual(z.read(pth[0]).decode().strip(), HERE)

    def test_versions_agree(self):
        self.assertEqual(backend._project()["version"], rbx.__version__)
        self.assertEqual(backend._mini_toml(os.path.join(HERE, "pyproject.toml"))["version"], rbx.__version__)

    def test_public_names(self):
        for name in ("Client", "Env", "RbxError", "ResetFailed", "reference_calls", "reset_group",
                     "AsyncClient", "AsyncEnv", "async_reset_group", "GroupReset"):
            self.assertTrue(hasattr(rbx, name), name)
        import rbx_client
        self.assertIs(rbx_client.Env, rbx.Env)
        for mod in ("rbx.trl", "rbx.skyrl"):  # importable without trl / skyrl installed
            importlib.import_module(mod)


class PipInstallTest(unittest.TestCase):
    def test_pip_install_in_fresh_venv_without_index(self):
        """python3 -m venv V && V/bin/pip install ./clients/python, with the
        index pointed at a closed port: any attempt to download (a build
        backend, a dependency) would fail the install."""
        d = tempfile.mkdtemp(prefix="rbx-venv-")
        self.addCleanup(shutil.rmtree, d, True)
        # The venv's own pip (ensurepip) takes long to install: where this
        # Python's pip can install into another environment (--python, pip
        # 22.3+), the venv is made without one. Same build, same result.
        host_pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
        m = re.match(r"pip (\d+)\.(\d+)", host_pip.stdout)
        with_pip = not (m and (int(m.group(1)), int(m.group(2))) >= (22, 3))
        try:
            subprocess.run([sys.executable, "-m", "venv", d] + ([] if with_pip else ["--without-pip"]),
                           check=True, capture_output=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            self.skipTest("no venv/ensurepip here: %s" % e)
        env = dict(os.environ, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_FIND_LINKS="",
                   PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_RETRIES="0", PIP_DEFAULT_TIMEOUT="2")
        pip = [os.path.join(d, "bin", "pip")] if with_pip else [
            sys.executable, "-m", "pip", "--python", os.path.join(d, "bin", "python")]
        out = subprocess.run(pip + ["install", HERE], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        for sign in ("Retrying", "NewConnectionError", "Could not fetch"):  # the index was never asked
            self.assertNotIn(sign, out.stdout + out.stderr)
        out = subprocess.run([os.path.join(d, "bin", "python"), "-c",
                              "import rbx, rbx.trl, rbx.skyrl, rbx_client; print(rbx.__file__, rbx.__version__)"],
                             capture_output=True, text=True, cwd=d, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith(d), out.stdout)
        self.assertIn(rbx.__version__, out.stdout)


if __name__ == "__main__":
    unittest.main()
