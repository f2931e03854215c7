"""pytest setup for the warploom package's tests.

CPU tests need only the package (the build tree's, or an installed one). Tests marked `gpu` take
the `cuda` fixture, which skips them without torch or without an sm_90 device: torch is imported
only when such a test runs, so CPU runs never import it.

A test that needs a kernel the build did not prebuild while WARPLOOM_JIT=0 forbids compiling it is
reported as skipped, naming the configuration, not failed: a minimal build runs the GPU tests
without nvcc that way.

WARPLOOM_PYTEST_SKIPPED_EXIT=<code> (set by ctest, python/CMakeLists.txt): exit with <code> when
every selected test was skipped, so ctest reports the run as skipped rather than passed.
"""

import os

import pytest


@pytest.fixture(scope="session")
def cuda():
    """torch, with an sm_90 device current; skips the test otherwise."""
    torch = pytest.importorskip("torch", reason="the GPU tests compare against torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    capability = torch.cuda.get_device_capability()
    if capability != (9, 0):
        pytest.skip(f"this build's kernels are sm_90a; the device is sm_{capability[0]}{capability[1]}")
    return torch


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    error = call.excinfo
    if error is not None and error.errisinstance(RuntimeError) and \
            "WARPLOOM_JIT=0 forbids" in str(error.value):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {error.value}")


def pytest_sessionfinish(session, exitstatus):
    code = os.environ.get("WARPLOOM_PYTEST_SKIPPED_EXIT")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not code or exitstatus != 0 or reporter is None:
        return
    ran = sum(len(reporter.stats.get(k, [])) for k in ("passed", "failed", "xfailed", "xpassed"))
    if ran == 0 and reporter.stats.get("skipped"):
        session.exitstatus = int(code)
