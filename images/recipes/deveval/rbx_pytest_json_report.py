"""rbx stand-in for pytest-json-report, which Debian does not ship.

It accepts the plugin's command-line options (--json-report,
--json-report-file, --json-report-indent, --json-report-omit,
--json-report-summary) and writes a report with the same top-level keys
(created, duration, exitcode, root, summary, tests), so test scripts that
pass those options run as they were written.
"""
import json
import os
import time


def pytest_addoption(parser):
    group = parser.getgroup("jsonreport", "rbx stand-in for pytest-json-report")
    group.addoption("--json-report", action="store_true", default=False, help="write a JSON report")
    group.addoption("--json-report-file", default=".report.json", help="report path (default .report.json; 'none' for none)")
    group.addoption("--json-report-indent", type=int, default=None, help="JSON indent")
    group.addoption("--json-report-omit", nargs="+", default=[], help="accepted and ignored")
    group.addoption("--json-report-summary", action="store_true", default=False, help="summary only")
    group.addoption("--json-report-verbosity", type=int, default=None, help="accepted and ignored")


class _Report:
    def __init__(self, config):
        self.config = config
        self.start = time.time()
        self.tests = {}
        self.collected = 0

    def pytest_collection_modifyitems(self, items):
        self.collected = len(items)

    def pytest_runtest_logreport(self, report):
        entry = self.tests.setdefault(report.nodeid, {"nodeid": report.nodeid, "outcome": "passed"})
        entry[report.when] = {"outcome": report.outcome, "duration": report.duration}
        if report.failed:
            entry["outcome"] = "failed" if report.when == "call" else "error"
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"

    def pytest_sessionfinish(self, session, exitstatus):
        path = self.config.getoption("json_report_file")
        if not path or path.lower() == "none":
            return
        summary = {"collected": self.collected, "total": len(self.tests)}
        for t in self.tests.values():
            summary[t["outcome"]] = summary.get(t["outcome"], 0) + 1
        data = {"created": time.time(), "duration": time.time() - self.start,
                "exitcode": int(exitstatus), "root": str(self.config.rootpath),
                "summary": summary}
        if not self.config.getoption("json_report_summary"):
            data["tests"] = list(self.tests.values())
        path = os.path.join(str(self.config.invocation_params.dir), path)
        with open(path, "w") as f:
            json.dump(data, f, indent=self.config.getoption("json_report_indent"))


def pytest_configure(config):
    if config.getoption("json_report"):
        config.pluginmanager.register(_Report(config), "rbx_json_report")
