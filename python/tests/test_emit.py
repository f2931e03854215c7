"""warploom.emit.pytorch: the generated extension's files (CPU: their text, their determinism, the
plan part compiled against the C++ API's headers; the jit path's error without torch), and on the
H200 the extension built, loaded and run against torch."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import warploom

FILES = ("{}_kernel.cu", "{}.cpp", "setup.py")


def _plan(**kwargs):
    options = dict(element="bfloat16", layout=warploom.LayoutType.RowMajor, cc=90)
    options.update(kwargs)
    return warploom.op.Gemm(**options)


def _emit(plan, folder, name="ext"):
    paths = warploom.emit.pytorch(plan, name=name, sourcedir=str(folder))
    assert [os.path.basename(p) for p in paths] == [f.format(name) for f in FILES]
    return {os.path.basename(p): open(p, encoding="utf-8").read() for p in paths}


def _compile_if_prebuilt(plan, td):
    """A tile description compiled where that needs no nvcc (the CPU tests have none)."""
    if plan.is_prebuilt(td):
        plan.compile(td)


def test_files_are_byte_identical_for_the_same_plan(tmp_path):
    plan = _plan()
    plan.activation = (warploom.epilogue.leaky_relu, 0.2)
    first = _emit(plan, tmp_path / "one")
    again = _emit(plan, tmp_path / "two")
    assert first == again
    # No path, date or machine in them: only the plan and the name.
    for text in first.values():
        assert str(tmp_path) not in text
        assert os.path.dirname(warploom.__file__) not in text


def test_files_hold_the_plans_types_layouts_activation_and_tile(tmp_path):
    plan = _plan(element_D="float32", layout_B=warploom.LayoutType.ColumnMajor)
    plan.activation = (warploom.epilogue.leaky_relu, 0.2)
    _compile_if_prebuilt(plan, plan.tile_descriptions()[1])
    files = _emit(plan, tmp_path, name="bf16_gemm")
    kernel = files["bf16_gemm_kernel.cu"]
    assert "o.element_a = ScalarType::BF16;" in kernel
    assert "o.element_d = ScalarType::F32;" in kernel
    assert "o.layout_b = MatrixLayout::ColMajor;" in kernel
    assert "o.layout_a = MatrixLayout::RowMajor;" in kernel
    assert "o.opclass = ops::OperatorClass::TensorOp;" in kernel
    assert "e.activation = gemm::Activation::LeakyReLU;" in kernel
    assert "e.leaky_slope = 0.2f;" in kernel
    assert "at::kFloat" in kernel  # D allocated in D's type
    assert "at::cuda::getCurrentCUDAStream()" in kernel
    if plan.tile_description is not None:
        assert f"// {plan.tile_description}" in kernel
        assert f"td.stages = {plan.tile_description.stages};" in kernel
    assert 'm.def("run", &bf16_gemm_run' in files["bf16_gemm.cpp"]
    assert 'CUDAExtension("bf16_gemm", ["bf16_gemm.cpp", "bf16_gemm_kernel.cu"]' in \
        files["setup.py"]
    compile(files["setup.py"], "setup.py", "exec")


@pytest.mark.parametrize("activation", list(warploom.epilogue.Activation))
def test_every_activation_is_spelled_as_the_cpp_enum(tmp_path, activation):
    plan = _plan()
    plan.activation = activation
    kernel = _emit(plan, tmp_path)["ext_kernel.cu"]
    assert re.search(r"e\.activation = gemm::Activation::\w+;", kernel)
    assert f"//   activation {activation.name}" in kernel


def _cuda_include():
    for folder in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        if folder and os.path.isfile(os.path.join(folder, "include", "cuda_runtime_api.h")):
            return os.path.join(folder, "include")
    return None


def test_generated_plan_compiles_against_the_cpp_api(tmp_path):
    """The ATen parts need torch's headers; the plan part (every enumeration, every field the
    generator spells) is compiled, syntax only, against warploom's own headers."""
    compiler = shutil.which(os.environ.get("CXX", "c++"))
    cuda = _cuda_include()
    if compiler is None or cuda is None:
        pytest.skip("needs a C++ compiler and cuda_runtime_api.h")
    plan = _plan(opclass=warploom.OpcodeClass.Simt, element="float32")
    plan.activation = warploom.epilogue.gelu_tanh
    _compile_if_prebuilt(plan, plan.tile_descriptions()[0])
    kernel = _emit(plan, tmp_path)["ext_kernel.cu"]
    _compile_plan_part(kernel, "gemm.hpp", compiler, cuda, tmp_path)


def _compile_plan_part(kernel, header, compiler, cuda, folder):
    """Compiles (syntax only) the plan part of a generated kernel file — from its namespace
    aliases to make_plan — against warploom/ops/<header>, without torch's headers."""
    start = kernel.index("namespace gemm = ")
    end = kernel.index("// Made (and its kernel obtained)")
    unit = folder / "plan.cpp"
    unit.write_text(f'#include "warploom/ops/{header}"\nnamespace {{\n' + kernel[start:end] +
                    "}\nvoid* keep = reinterpret_cast<void*>(&make_plan);\n")
    done = subprocess.run(
        [compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Werror",
         f"-I{warploom.emit.include_dir()}", f"-I{cuda}", str(unit)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_grouped_plan_exports_its_groups_and_compiles(tmp_path):
    """A GroupedGemm's extension holds ops::GroupedGemm with the plan configured inside it, and
    takes lists; its plan part compiles (syntax only) against warploom's own headers."""
    plan = warploom.op.GroupedGemm(element="bf16", layout=warploom.LayoutType.RowMajor, cc=90)
    plan.activation = warploom.epilogue.relu
    files = _emit(plan, tmp_path)
    kernel = files["ext_kernel.cu"]
    assert '#include "warploom/ops/grouped_gemm.hpp"' in kernel
    assert "ops::GroupedGemm grouped(o);" in kernel
    assert "std::vector<at::Tensor> ext_run(" in kernel
    assert 'pybind11::arg("As")' in files["ext.cpp"]
    compiler = shutil.which(os.environ.get("CXX", "c++"))
    cuda = _cuda_include()
    if compiler is None or cuda is None:
        pytest.skip("needs a C++ compiler and cuda_runtime_api.h")
    _compile_plan_part(kernel, "grouped_gemm.hpp", compiler, cuda, tmp_path)


def test_build_options_name_the_headers_and_the_loaded_library():
    options = warploom.emit.build_options()
    (include,) = options["include_dirs"]
    assert os.path.isfile(os.path.join(include, "warploom", "ops", "gemm.hpp"))
    library = options["extra_link_args"][0]
    assert os.path.basename(library).startswith("libwarploom_gemm.so")
    assert os.path.isfile(library)


def test_arguments_are_checked_by_name(tmp_path):
    with pytest.raises(TypeError, match="op = "):
        warploom.emit.pytorch("gemm", name="ext", sourcedir=str(tmp_path))
    for bad in ("1ext", "my-ext", "", None):
        with pytest.raises(ValueError, match="name = "):
            warploom.emit.pytorch(_plan(), name=bad, sourcedir=str(tmp_path))
    with pytest.raises(TypeError, match="sourcedir = "):
        warploom.emit.pytorch(_plan(), name="ext", sourcedir=3)
    with pytest.raises(TypeError, match="jit = "):
        warploom.emit.pytorch(_plan(), name="ext", sourcedir=str(tmp_path), jit="yes")
    assert os.listdir(tmp_path) == []


def test_jit_without_torch_is_a_clear_import_error(tmp_path, monkeypatch):
    # Hide torch where it is installed: `import torch` then raises ImportError.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "torch.utils", None)
    monkeypatch.setitem(sys.modules, "torch.utils.cpp_extension", None)
    with pytest.raises(ImportError, match="torch.utils.cpp_extension.*install PyTorch"):
        warploom.emit.pytorch(_plan(), name="ext", sourcedir=str(tmp_path / "out"), jit=True)
    assert not (tmp_path / "out").exists()  # nothing written when it cannot be built


# ---- On the H200: the extension built, loaded and run --------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_jit_extension_runs_on_the_current_stream(cuda, tmp_path, activation):
    torch = cuda
    import torch.nn.functional as F

    plan = warploom.op.Gemm(element=torch.float16, layout=warploom.LayoutType.RowMajor)
    plan.activation = activation
    mod = warploom.emit.pytorch(plan, name=f"gemm_{activation}", sourcedir=str(tmp_path),
                                jit=True)
    A = torch.randn(256, 128, dtype=torch.float16, device="cuda")
    B = torch.randn(128, 192, dtype=torch.float16, device="cuda")
    bias = torch.randn(192, dtype=torch.float32, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        D = mod.run(A, B, bias=bias)
    stream.synchronize()
    z = A.float() @ B.float() + bias
    expected = F.relu(z) if activation == "relu" else F.gelu(z)
    torch.testing.assert_close(D.float(), expected, atol=2e-2, rtol=2e-2)
    # A transposed view is read in place: the plan's own layout check refuses a wrong one.
    with pytest.raises(ValueError, match="`b`|`B`|layout"):
        mod.run(A, B.t().contiguous().t())
