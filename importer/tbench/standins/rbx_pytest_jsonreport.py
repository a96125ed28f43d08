"""rbx stand-in for the pytest-json-report plugin (not packaged by Debian).

Supports --json-report and --json-report-file=PATH (default .report.json) and
writes the fields test scripts read: created, duration, exitcode, root,
summary (outcome counts and total) and tests (nodeid, outcome). Installed
by rbx's offline pip/uv stand-in; see docs/terminal-bench.md.
"""
import json
import time


def pytest_addoption(parser):
    group = parser.getgroup("jsonreport", "rbx stand-in for pytest-json-report")
    group.addoption("--json-report", action="store_true", default=False, help="write a JSON report")
    group.addoption("--json-report-file", default=".report.json", help="where to write it")
    group.addoption("--json-report-indent", type=int, default=None)
    group.addoption("--json-report-omit", nargs="*", default=[])
    group.addoption("--json-report-summary", action="store_true", default=False)


class _Report:
    def __init__(self, config):
        self.config = config
        self.start = time.time()
        self.tests = {}

    def pytest_runtest_logreport(self, report):
        t = self.tests.setdefault(report.nodeid, {"nodeid": report.nodeid, "outcome": "passed"})
        if report.failed:
            t["outcome"] = "failed" if report.when == "call" else "error"
        elif report.skipped and t["outcome"] == "passed":
            t["outcome"] = "skipped"

    def pytest_collectreport(self, report):
        if report.failed:
            self.tests[report.nodeid] = {"nodeid": report.nodeid, "outcome": "error"}

    def pytest_sessionfinish(self, session, exitstatus):
        summary = {}
        for t in self.tests.values():
            summary[t["outcome"]] = summary.get(t["outcome"], 0) + 1
        summary["total"] = len(self.tests)
        summary["collected"] = len(self.tests)
        doc = {"created": time.time(), "duration": time.time() - self.start, "exitcode": int(exitstatus),
               "root": str(session.config.rootpath), "summary": summary, "tests": list(self.tests.values())}
        with open(self.config.getoption("json_report_file"), "w") as f:
            json.dump(doc, f, indent=self.config.getoption("json_report_indent"))


def pytest_configure(config):
    if config.getoption("json_report"):
        config.pluginmanager.register(_Report(config), "rbx_json_report")
