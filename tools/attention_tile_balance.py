#!/usr/bin/env python3
"""How evenly the attention kernel's persistent CTAs share the causal tiles: a model.

    tools/attention_tile_balance.py [--sms 132] [--edge 1.0] [BxHxSxD ...]

Walks the tiles in the kernel's order (kernels/attention/sm90/tile.hpp: L2-sized sections of
(sequence, head) pairs, the last query rows of each section first) and gives each CTA its tiles
two ways: the fixed walk (CTA b takes tiles b, b + grid, ...), and a queue (each tile to the CTA
that finishes first, the order kept: what a counter in global memory does when every CTA runs at
one speed). A tile costs the K/V blocks it visits plus `--edge` blocks for its prologue and
epilogue. Prints the busiest CTA's work over the mean (1.00: none idle at the end) for each.

A model, not a measurement: it leaves out the L2's and the clocks' differences between CTAs, which
the queue absorbs and the fixed walk does not. No GPU needed.
"""
import argparse
import heapq


def heads_per_section(seqlen_k, head_dim, element_bytes, heads_batch):
    # tile.hpp, heads_per_section: the (sequence, head) pairs whose K and V fit 32 MiB of L2.
    fits = 32.0 * 1024 * 1024 / (2.0 * seqlen_k * head_dim * element_bytes)
    return 1 if fits < 1 else min(heads_batch, int(fits))


def tile_blocks(batch, heads, seqlen, head_dim, block_m, block_n):
    """Each tile's K/V blocks, causal, in the kernel's order (tile.hpp, tile_slot)."""
    m_blocks = -(-seqlen // block_m)
    heads_batch = batch * heads
    per_section = heads_per_section(seqlen, head_dim, 2, heads_batch)
    out = []
    for t in range(m_blocks * heads_batch):
        section = t // (per_section * m_blocks)
        first = section * per_section
        in_section = min(heads_batch - first, per_section)
        m_block = m_blocks - 1 - (t - first * m_blocks) // in_section
        last_row = min(seqlen, (m_block + 1) * block_m) - 1
        out.append(max(1, last_row // block_n + 1))
    return out


def fixed_walk(costs, ctas):
    load = [0.0] * ctas
    for t, c in enumerate(costs):
        load[t % ctas] += c
    return load


def queue_walk(costs, ctas):
    heap = [(0.0, b) for b in range(ctas)]
    for c in costs:
        done, b = heapq.heappop(heap)
        heapq.heappush(heap, (done + c, b))
    return [done for done, _ in heap]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shapes", nargs="*", default=[
        "32x16x512x128", "16x16x1024x128", "8x16x2048x128", "4x32x4096x128", "4x16x4096x128",
        "2x16x8192x128", "1x16x16384x128"])
    parser.add_argument("--sms", type=int, default=132, help="persistent CTAs (H100/H200: 132)")
    parser.add_argument("--edge", type=float, default=1.0,
                        help="a tile's fixed cost, in K/V blocks (default 1)")
    args = parser.parse_args()
    print(f"{'BxHxSxD':>16}  {'tiles':>6}  {'fixed walk':>10}  {'queue':>6}   (busiest CTA / mean)")
    for shape in args.shapes:
        b, h, s, d = (int(x) for x in shape.split("x"))
        costs = [n + args.edge for n in tile_blocks(b, h, s, d, 128, 128)]
        ctas = min(args.sms, len(costs))
        ratio = {}
        for name, walk in (("fixed", fixed_walk), ("queue", queue_walk)):
            load = walk(costs, ctas)
            ratio[name] = max(load) / (sum(load) / ctas)
        print(f"{shape:>16}  {len(costs):>6}  {ratio['fixed']:>10.3f}  {ratio['queue']:>6.3f}")


if __name__ == "__main__":
    main()
