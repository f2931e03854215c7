#!/usr/bin/env python3
"""Unit test of tools/resource_usage.py's parsers on captured cuobjdump output (no GPU, no
cuobjdump): the resource usage and SASS of a spilling ping-pong GEMM kernel, a cooperative one
that does not spill and a tutorial copy, the names they print as, and the local memory checks.

    python3 tools/tests/test_resource_usage.py
"""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import resource_usage as ru  # noqa: E402  (tools/, put on the path above)

PINGPONG = ("_ZN8warploom4gemm4sm9014ts_gemm_kernelINS1_14TsGemmPingpongIN7cutlass6half_tES5_S5_"
            "Lb1ELb1ELi1ELi1ELi128ELi128ELi64ELi6ELi1EEEEEvNT_6ParamsE")
COOPERATIVE = ("_ZN8warploom4gemm4sm9014ts_gemm_kernelINS1_6TsGemmIN7cutlass6half_tES5_S5_"
               "Lb1ELb1ELi1ELi1ELi128ELi256ELi64ELi4EEEEEvNT_6ParamsE")
REFERENCE = ("_ZN8warploom4gemm45_GLOBAL__N__f4d48323_12_reference_cu_ff9c81d916reference_kernelEiiii"
             "NS1_7OperandES2_S2_ddPKfS4_Pd")
COPY = ("_ZN8warploom8tutorial55_GLOBAL__N__d83b9668_22_01_grid_stride_copy_cu_0662544926"
        "grid_stride_copy_ts_kernelINS1_14GridStrideCopyILi8ELi8EEEEEvPKsPsi")

# cuobjdump 13.2 --dump-resource-usage of libwarploom_gemm.a / libwarploom_tutorials.a, cut down
RESOURCE_USAGE = f"""
member /work/main/build/release/kernels/libwarploom_gemm.a:gemm.cpp.o:

member /work/main/build/release/kernels/libwarploom_gemm.a:reference.cu.o:

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = /work/main/kernels/gemm/reference.cu

Resource usage:
 Common:
  GLOBAL:0
 Function {REFERENCE}:
  REG:31 STACK:0 SHARED:0 LOCAL:0 CONSTANT[2]:324 CONSTANT[0]:680 TEXTURE:0 SURFACE:0 SAMPLER:0

member /work/main/build/release/kernels/libwarploom_gemm.a:sm90_ts_gemm_f16_f16_tn_pingpong.cu.o:

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = /work/main/build/release/kernels/gemm/sm90_ts_gemm_f16_f16_tn_pingpong.cu

Resource usage:
 Common:
  GLOBAL:11 CONSTANT[4]:88
 Function {PINGPONG}:
  REG:168 STACK:48 SHARED:1024 LOCAL:0 CONSTANT[0]:1408 TEXTURE:0 SURFACE:0 SAMPLER:0

member /work/main/build/release/kernels/libwarploom_gemm.a:sm90_ts_gemm_f16_f16_tn_cooperative.cu.o:

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = /work/main/build/release/kernels/gemm/sm90_ts_gemm_f16_f16_tn_cooperative.cu

Resource usage:
 Common:
  GLOBAL:11 CONSTANT[4]:88
 Function {COOPERATIVE}:
  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1408 TEXTURE:0 SURFACE:0 SAMPLER:0

member /work/main/build/release/kernels/libwarploom_tutorials.a:01_grid_stride_copy.cu.o:

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = /work/main/kernels/tutorial/01_grid_stride_copy.cu

Resource usage:
 Common:
  GLOBAL:9 CONSTANT[4]:72
 Function {COPY}:
  REG:64 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

# --dump-sass of the same binary, cut down. The first three STL and the LDL are the ping-pong
# kernel's own; the predicated and wider ones are made up to cover the widths (ptxas's "bytes
# spill stores" is the sum of these: 22-26 32-bit STL give its 88-104 bytes).
SASS = f"""
member /work/main/build/release/kernels/libwarploom_gemm.a:sm90_ts_gemm_f16_f16_tn_pingpong.cu.o:

Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = /work/main/build/release/kernels/gemm/sm90_ts_gemm_f16_f16_tn_pingpong.cu

\tcode for sm_90a
\t.target\tsm_90a

\t\tFunction : {PINGPONG}
\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*1a70*/                   STL [R1+0x20], R153 ;                                       /* 0x0000209901007387 */
                                                                                               /* 0x000fe20000100800 */
        /*1ab0*/                   STL [R1+0x10], R152 ;                                       /* 0x0000109801007387 */
        /*1b00*/                   STL [R1], R22 ;                                             /* 0x0000001601007387 */
        /*1b10*/              @P0  STL.64 [R1+0x28], R24 ;                                     /* 0x0000281801000387 */
        /*2c40*/                   LDL R22, [R1] ;                                             /* 0x0000000001167983 */
        /*2c50*/             @!P1  LDL.LU.128 R4, [R1+0x10] ;                                  /* 0x0000100001049983 */
        /*2c60*/                   LDL.U8 R5, [R1+0x2f] ;                                      /* 0x00002f0001057983 */
        /*2c70*/                   STS [R3+0x400], R2 ;                                        /* 0x0004000203007388 */
        /*2c80*/                   EXIT ;                                                      /* 0x000000000000794d */

member /work/main/build/release/kernels/libwarploom_gemm.a:sm90_ts_gemm_f16_f16_tn_cooperative.cu.o:

Fatbin elf code:
================
arch = sm_90a

\tcode for sm_90a
\t.target\tsm_90a

\t\tFunction : {COOPERATIVE}
\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                      /* 0x00000a00ff017b82 */
        /*0010*/                   LDS R2, [UR4+0x10] ;                                        /* 0x00001004ff027984 */
        /*0020*/                   EXIT ;                                                      /* 0x000000000000794d */
"""


class ResourceUsageTest(unittest.TestCase):
    def setUp(self):
        self.records = ru.parse_resource_usage(RESOURCE_USAGE)
        self.by_name = {r["mangled"]: r for r in self.records}

    def test_every_function_with_its_object_and_arch(self):
        self.assertEqual([r["mangled"] for r in self.records], [REFERENCE, PINGPONG, COOPERATIVE, COPY])
        self.assertEqual(self.by_name[PINGPONG]["member"], "sm90_ts_gemm_f16_f16_tn_pingpong.cu.o")
        self.assertTrue(all(r["arch"] == "sm_90a" for r in self.records))

    def test_fields(self):
        pp = self.by_name[PINGPONG]
        self.assertEqual((pp["regs"], pp["stack"], pp["shared"], pp["local"]), (168, 48, 1024, 0))
        self.assertEqual(pp["constant"], {"0": 1408})
        self.assertEqual(pp["common"], {"global": 11, "constant": {"4": 88}})
        ref = self.by_name[REFERENCE]
        self.assertEqual(ref["constant"], {"2": 324, "0": 680})
        self.assertEqual(ref["common"], {"global": 0, "constant": {}})
        self.assertEqual(self.by_name[COPY]["regs"], 64)

    def test_sass_local_stores_and_loads(self):
        counts = ru.parse_sass(SASS.splitlines())
        pp = counts[("sm90_ts_gemm_f16_f16_tn_pingpong.cu.o", "sm_90a", PINGPONG)]
        self.assertEqual(pp, {"stl": 4, "ldl": 3, "stl_bytes": 4 + 4 + 4 + 8, "ldl_bytes": 4 + 16 + 1})
        coop = counts[("sm90_ts_gemm_f16_f16_tn_cooperative.cu.o", "sm_90a", COOPERATIVE)]
        self.assertEqual(coop, {"stl": 0, "ldl": 0, "stl_bytes": 0, "ldl_bytes": 0})

    def test_sass_of_one_cubin(self):
        # a cubin's own listing (cuobjdump --dump-sass x.cubin) has no member line: given instead
        cubin = SASS.split("member ", 2)[1].split("\n", 1)[1]
        counts = ru.parse_sass(cubin.splitlines(), member="m.o")
        self.assertEqual(counts[("m.o", "sm_90a", PINGPONG)]["stl"], 4)

    def test_short_name(self):
        demangled = ("void warploom::gemm::sm90::ts_gemm_kernel<warploom::gemm::sm90::TsGemmPingpong<cutlass::half_t, "
                     "cutlass::half_t, cutlass::half_t, true, true, 1, 1, 128, 128, 64, 6, 1> >(warploom::gemm::sm90::"
                     "TsGemmPingpong<cutlass::half_t, cutlass::half_t, cutlass::half_t, true, true, 1, 1, 128, 128, 64, "
                     "6, 1>::Params)")
        self.assertEqual(ru.short_name(demangled),
                         "ts_gemm_kernel<TsGemmPingpong<half_t, half_t, half_t, true, true, 1, 1, 128, 128, 64, 6, 1>>")
        self.assertEqual(ru.short_name("warploom::gemm::(anonymous namespace)::reference_kernel(int, int, double*)"),
                         "reference_kernel")
        self.assertEqual(len(ru.short_name(demangled, width=40)), 40)

    @unittest.skipUnless(shutil.which("c++filt") or shutil.which("cu++filt"), "no c++filt")
    def test_demangle(self):
        names = [ru.short_name(d) for d in ru.demangle([PINGPONG, COPY, "not_mangled"])]
        self.assertEqual(names, ["ts_gemm_kernel<TsGemmPingpong<half_t, half_t, half_t, true, true, 1, 1, 128, 128, "
                                 "64, 6, 1>>", "grid_stride_copy_ts_kernel<GridStrideCopy<8, 8>>", "not_mangled"])

    def kernels(self):
        counts = ru.parse_sass(SASS.splitlines())
        kernels = []
        for r in self.records:
            r.update(counts.get((r["member"], r["arch"], r["mangled"]),
                                {"stl": 0, "ldl": 0, "stl_bytes": 0, "ldl_bytes": 0}))
            r["library"] = "lib.a"
            r["demangled"] = r["name"] = {PINGPONG: "ts_gemm_kernel<TsGemmPingpong<half_t>>",
                                          COOPERATIVE: "ts_gemm_kernel<TsGemm<half_t>>",
                                          REFERENCE: "reference_kernel",
                                          COPY: "grid_stride_copy_ts_kernel<GridStrideCopy<8, 8>>"}[r["mangled"]]
            r["uses_local_memory"] = ru.uses_local_memory(r)
            kernels.append(r)
        return kernels

    def test_checks(self):
        ks = self.kernels()
        self.assertEqual([k["name"] for k in ks if k["uses_local_memory"]], ["ts_gemm_kernel<TsGemmPingpong<half_t>>"])
        self.assertEqual(ru.violations(ks, [r"^ts_gemm_kernel<TsGemm<", "_copy_ts_kernel"], None), [])
        bad = ru.violations(ks, [r"^ts_gemm_kernel<"], None)
        self.assertEqual(len(bad), 1)
        self.assertIn("TsGemmPingpong", bad[0])
        self.assertIn("4 STL (20 B) / 3 LDL (21 B)", bad[0])
        self.assertEqual(ru.violations(ks, [], 48), [])
        self.assertEqual(len(ru.violations(ks, [], 32)), 1)
        table = ru.table(ks, sass=True)
        self.assertIn("== lib.a: 4 kernels, 1 touch local memory", table)
        self.assertRegex(table, r"TsGemmPingpong<half_t>> +168 +1024 +48 +0 +4/3 +20/21 +\*")


if __name__ == "__main__":
    unittest.main()
