#!/usr/bin/env python3
"""Unit test of tools/tile_timeline.py on a printout written here (no GPU): two CTAs of one launch,
their parts adding up to the launch's span, the second warpgroup's events merged with the first's.

    python3 tools/tests/test_tile_timeline.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tile_timeline  # noqa: E402  (tools/, put on the path above)


def line(launch, cta, kind, g, k, clk, gt):
    return f"TL {launch} {cta} {kind} {g} 0 {cta} {k} {clk} {gt}"


# Two CTAs at 2 GHz (clock64 ticks twice a globaltimer ns), the second starting 100 ns later. CTA 0:
# one tile of 4 K tiles, its load at 200 ns, first MMA at 1000 ns, epilogue 3000-3500 ns, end at
# 3600 ns (clock64 times from the CTA's start). CTA 1: two tiles of 2 K tiles, the second warpgroup (kinds 12-15) later by 10 ns.
PRINTOUT = [
    "[bench] a line that is not the timeline's",
    line(40, 0, 0, -1, 0, 0, 1000),
    line(40, 0, 1, 0, 4, 400, 1200),
    line(40, 0, 2, 0, 4, 2000, 2000),
    line(40, 0, 3, 0, 4, 5000, 3500),
    line(40, 0, 4, 0, 0, 6000, 4000),
    line(40, 0, 5, 0, 0, 7000, 4500),
    line(40, 0, 9, -1, 0, 7200, 4600),
    line(40, 1, 0, -1, 0, 10000, 1100),
    line(40, 1, 2, 1, 2, 11000, 1600),
    line(40, 1, 12, 1, 2, 11020, 1610),
    line(40, 1, 4, 1, 0, 13000, 2600),
    line(40, 1, 5, 1, 0, 14000, 3100),
    line(40, 1, 15, 1, 0, 14020, 3110),
    line(40, 1, 2, 2, 2, 14400, 3300),
    line(40, 1, 4, 2, 0, 16400, 4300),
    line(40, 1, 5, 2, 0, 17000, 4600),
    line(40, 1, 9, -1, 0, 17200, 4700),
]


class TileTimeline(unittest.TestCase):
    def summary(self):
        launches = tile_timeline.parse(PRINTOUT)
        self.assertEqual(list(launches), [40])
        ctas = {c: tile_timeline.cta_timeline(ev) for c, ev in launches[40].items()}
        return tile_timeline.summarize(ctas, width=40)

    def test_the_parts_add_up_to_the_span(self):
        s = self.summary()
        self.assertEqual(s["ctas"], 2)
        self.assertAlmostEqual(s["span_us"], 3.7)  # CTA 1 ends 3.6 us after its start at +0.1
        self.assertAlmostEqual(s["clock_ghz"], 2.0)
        self.assertAlmostEqual(sum(s["mean_us"].values()), s["span_us"])

    def test_the_warpgroups_merge_first_start_last_end(self):
        s = self.summary()
        # CTA 0: 2.0 us of main loop; CTA 1: 1.0 and 1.0 us (the first starts at warpgroup 0's).
        self.assertAlmostEqual(s["mean_us"]["main loop"], (2.0 + 2.0) / 2)
        # Epilogues: 0.5; 0.51 (warpgroup 1 ends 10 ns later) + 0.3.
        self.assertAlmostEqual(s["mean_us"]["epilogue"], (0.5 + 0.51 + 0.3) / 2)
        self.assertAlmostEqual(s["mean_us"]["between tiles"], (0.19) / 2)

    def test_cycles_per_k_tile_and_first_load_latency(self):
        s = self.summary()
        self.assertEqual(s["cycles_per_k_tile"][4]["median"], 1000)  # 2.0 us at 2 GHz, 4 K tiles
        self.assertEqual(s["cycles_per_k_tile"][2]["tiles"], 2)
        self.assertAlmostEqual(s["first_k_tile_latency_us"]["median"], 0.8)  # CTA 0's load

    def test_a_printout_without_the_timeline_has_no_launch(self):
        self.assertEqual(tile_timeline.parse(["TL x", "nothing"]), {})


if __name__ == "__main__":
    unittest.main()
