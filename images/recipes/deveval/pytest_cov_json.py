"""Adds --cov-report=json[:FILE] to Debian's pytest-cov 4.0.0.

DevEval's test scripts ask for JSON coverage reports (pytest-cov >= 4.1 on
the original image); Debian bookworm ships 4.0.0, whose choices stop at lcov,
so pytest exits with a usage error before running any test. coverage.py 6.5
(Debian's) writes JSON itself: this adds the choice and the report call the
way pytest-cov 4.1 does. Run once at image build; fails if the code it edits
is not there (another pytest-cov version needs another look).
"""
import sys

BASE = "/usr/lib/python3/dist-packages/pytest_cov/"

EDITS = [
    ("plugin.py",
     "    file_choices = ['annotate', 'html', 'xml', 'lcov']\n",
     "    file_choices = ['annotate', 'html', 'xml', 'json', 'lcov']\n"),
    ("engine.py",
     "        # Produce lcov report if wanted.\n",
     "        # Produce json report if wanted (rbx: as pytest-cov 4.1).\n"
     "        if 'json' in self.cov_report:\n"
     "            output = self.cov_report['json']\n"
     "            total = self.cov.json_report(ignore_errors=True, outfile=output)\n"
     "            stream.write('Coverage JSON written to file %s\\n' % (self.cov.config.json_output if output is None else output))\n"
     "\n"
     "        # Produce lcov report if wanted.\n"),
]

for name, old, new in EDITS:
    path = BASE + name
    with open(path) as f:
        src = f.read()
    if src.count(old) != 1:
        sys.exit(f"pytest_cov_json: {path}: expected one {old.strip()!r}")
    with open(path, "w") as f:
        f.write(src.replace(old, new))
    print(f"pytest_cov_json: patched {path}")
