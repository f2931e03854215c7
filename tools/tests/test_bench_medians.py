#!/usr/bin/env python3
"""Unit test of tools/bench_medians.py on small benchmark files written here (no GPU): a
`warploom bench` file, a `bench/python/grouped.py` file, and a missing one.

    python3 tools/tests/test_bench_medians.py
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import bench_medians  # noqa: E402  (tools/, put on the path above)


def printed(path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench_medians.print_medians(path)
    return out.getvalue().splitlines()


class BenchMedians(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    def test_a_harness_file_gives_a_line_per_contender(self):
        path = self.write("seed.json", {"shapes": [{"results": [
            {"contender": "warploom_prepared", "median_ms": 0.03576, "p10_ms": 0.03557,
             "check": "ok"},
            {"contender": "cutlass_grouped", "median_ms": 0.04025, "p10_ms": 0.04008,
             "check": "ok"}]}]})
        self.assertEqual(printed(path), [
            "seed.json warploom_prepared 35.76 us p10 35.57 ok",
            "seed.json cutlass_grouped 40.25 us p10 40.08 ok"])

    def test_a_python_file_gives_its_three_regimes_and_the_host_time(self):
        regimes = {"graph_back_to_back_us": 35.444, "graph_us": 52.18, "eager_us": 66.5}
        path = self.write("grouped_python.json", {
            "seed_experiment": {"us": {"prepared": regimes}, "host_us_per_call": {"run": 8.0}},
            "moe": {"us": {"torch._grouped_mm": regimes}}})
        self.assertEqual(printed(path), [
            "seed_experiment prepared 35.44 52.18 66.5",
            "moe torch._grouped_mm 35.44 52.18 66.5",
            "host us per call {'run': 8.0}"])

    def test_a_missing_file_is_reported_and_skipped(self):
        lines = printed(os.path.join(self.dir.name, "moe.json"))
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].startswith("moe.json missing"))


if __name__ == "__main__":
    unittest.main()
