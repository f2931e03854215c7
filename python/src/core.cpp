// python/src/core.cpp
//
// warploom._core: the C++ plan API (warploom/ops/) as a Python extension, bound as it is — one
// implementation, two languages. The Python package (python/warploom/) adds what only Python
// knows: dtype objects of torch and NumPy by name, the DLPack and __array_interface__ protocols,
// and which stream a framework's tensors are on. Errors keep the C++ message, which names the
// argument: ops::DtypeError becomes TypeError, every other std::invalid_argument ValueError
// (nanobind's own translation), a CUDA failure RuntimeError.
//
// Importing the module runs no CUDA call: the CUDA runtime is loaded with libwarploom_gemm.so but
// starts only when a plan first asks for a device (python/tests/test_import.py checks it).
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "operands.hpp"
#include "warploom/cuda_check.hpp"
#include "warploom/ops/gemm.hpp"
#include "warploom/ops/grouped_gemm.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace warploom::python {

void bind_verify(nb::module_& m);     // verify.cpp
void bind_attention(nb::module_& m);  // attention.cpp

namespace {

using ops::Activation;
using ops::Gemm;
using ops::GemmOptions;
using ops::TensorView;
using ops::TileDescription;

cudaStream_t as_stream(std::uintptr_t handle) {
  return reinterpret_cast<cudaStream_t>(handle);
}

void bind_enums(nb::module_& m) {
  // Names as the seed's cutlass.DataType, LayoutType and OpcodeClass spell them.
  nb::enum_<gemm::ScalarType>(m, "DataType", "A GEMM element type.")
      .value("f16", gemm::ScalarType::F16)
      .value("bf16", gemm::ScalarType::BF16)
      .value("f32", gemm::ScalarType::F32)
      .value("f64", gemm::ScalarType::F64)
      .value("e4m3", gemm::ScalarType::E4M3, "float8_e4m3fn: finite, max 448")
      .value("e5m2", gemm::ScalarType::E5M2, "float8_e5m2");
  nb::enum_<gemm::MatrixLayout>(m, "LayoutType", "How an operand's matrix lies in memory.")
      .value("RowMajor", gemm::MatrixLayout::RowMajor)
      .value("ColumnMajor", gemm::MatrixLayout::ColMajor);
  nb::enum_<ops::OperatorClass>(m, "OpcodeClass", "Which units compute the products.")
      .value("Auto", ops::OperatorClass::Auto, "TensorOp where the types allow it, else Simt")
      .value("TensorOp", ops::OperatorClass::TensorOp, "the sm90 TS GEMM: TMA and wgmma")
      .value("Simt", ops::OperatorClass::Simt, "the SIMT TS GEMM: FMA on the CUDA cores");
  nb::enum_<gemm::ConsumerDesign>(m, "ConsumerDesign",
                                  "How the tensor-core GEMM's consumer warpgroups share tiles.")
      .value("Auto", gemm::ConsumerDesign::Auto)
      .value("Cooperative", gemm::ConsumerDesign::Cooperative)
      .value("PingPong", gemm::ConsumerDesign::PingPong);
  nb::enum_<gemm::TileScheduling>(m, "TileScheduling",
                                  "How a grouped GEMM's persistent CTAs take their tiles.")
      .value("Auto", gemm::TileScheduling::Auto,
             "Dynamic for 16-bit plain plans, else Static (gemm::selected_grouped_tuning)")
      .value("Static", gemm::TileScheduling::Static, "CTA b walks tiles b, b + grid, ...")
      .value("Dynamic", gemm::TileScheduling::Dynamic,
             "a scheduler warp per CTA takes the next tile from a counter (cooperative design)")
      .value("StreamK", gemm::TileScheduling::StreamK,
             "the dense GEMM's tiles past the last whole wave cut along K (cooperative design)");
  nb::enum_<ops::TileScheduler>(m, "TileSchedulerType", "How output tiles are shared among CTAs.")
      .value("Persistent", ops::TileScheduler::Persistent)
      .value("StreamK", ops::TileScheduler::StreamK,
             "the tiles past the last whole wave cut along K, their pieces added before the "
             "epilogue (cooperative design, 1x1 clusters)")
      .value("SplitK", ops::TileScheduler::SplitK,
             "K cut into slices into an fp32 workspace, added in a fixed order (plain epilogue)");
  nb::enum_<Activation>(m, "Activation", "The activation a GEMM's epilogue applies.")
      .value("identity", Activation::Identity)
      .value("relu", Activation::ReLU)
      .value("leaky_relu", Activation::LeakyReLU)
      .value("gelu", Activation::GELU, "z * Phi(z), the exact normal CDF (erf)")
      .value("gelu_tanh", Activation::GELUTanh, "GELU's tanh approximation")
      .value("hardswish", Activation::HardSwish)
      .value("sigmoid", Activation::Sigmoid)
      .value("silu", Activation::SiLU)
      .value("tanh", Activation::Tanh);
  nb::enum_<gemm::Broadcast>(m, "Broadcast", "What an epilogue vector (bias, scale) runs along.")
      .value("PerRow", gemm::Broadcast::PerRow, "M values, one per row of D")
      .value("PerColumn", gemm::Broadcast::PerColumn,
             "N values, one per column of D (a Linear layer's bias)");
  nb::enum_<ops::Arch>(m, "Arch", "A GPU architecture, by compute capability.")
      .value("Sm80", ops::Arch::Sm80)
      .value("Sm90", ops::Arch::Sm90)
      .value("Sm100", ops::Arch::Sm100);
}

void bind_tile_description(nb::module_& m) {
  nb::class_<TileDescription>(m, "TileDescription",
                              "One configuration of a GEMM kernel (Gemm.tile_descriptions()). "
                              "Tile and cluster are in D's terms.")
      .def(nb::init<>())
      .def("__init__", [](TileDescription* td,
                          TileDescription const& other) { new (td) TileDescription(other); })
      .def_rw("opclass", &TileDescription::opclass)
      .def_rw("design", &TileDescription::design)
      .def_rw("tile_m", &TileDescription::tile_m)
      .def_rw("tile_n", &TileDescription::tile_n)
      .def_rw("tile_k", &TileDescription::tile_k)
      .def_rw("cluster_m", &TileDescription::cluster_m)
      .def_rw("cluster_n", &TileDescription::cluster_n)
      .def_rw("stages", &TileDescription::stages)
      .def_rw("staging_buffers", &TileDescription::staging_buffers)
      .def_rw("raster_panel", &TileDescription::raster_panel)
      .def_rw("max_ctas", &TileDescription::max_ctas)
      .def_rw("scheduler", &TileDescription::scheduler)
      .def_rw("split_k", &TileDescription::split_k)
      // The seed's names for the shapes, read-only (set tile_m ... or cluster_m ... instead).
      .def_prop_ro("threadblock_shape",
                   [](TileDescription const& td) {
                     return std::vector<int>{td.tile_m, td.tile_n, td.tile_k};
                   })
      .def_prop_ro("cluster_shape",
                   [](TileDescription const& td) {
                     return std::vector<int>{td.cluster_m, td.cluster_n, 1};
                   })
      .def("__str__", [](TileDescription const& td) { return ops::to_string(td); })
      .def("__repr__",
           [](TileDescription const& td) { return "TileDescription(" + ops::to_string(td) + ")"; })
      .def("__copy__", [](TileDescription const& td) { return td; })
      .def("__eq__", [](TileDescription const& x, TileDescription const& y) { return x == y; })
      .def("__ne__", [](TileDescription const& x, TileDescription const& y) { return x != y; });
}

void bind_views(nb::module_& m) {
  nb::class_<TensorView>(m, "TensorView",
                         "A strided matrix or batch of matrices as a plan sees it (no data of "
                         "its own).")
      .def_ro("dtype", &TensorView::dtype)
      .def_ro("batch", &TensorView::batch)
      .def_ro("rows", &TensorView::rows)
      .def_ro("cols", &TensorView::cols)
      .def_ro("batch_stride", &TensorView::batch_stride)
      .def_ro("row_stride", &TensorView::row_stride)
      .def_ro("col_stride", &TensorView::col_stride)
      .def_ro("device", &TensorView::device)
      .def("__str__", [](TensorView const& v) { return ops::to_string(v); });
  m.def("register_torch", &register_torch, "dtypes"_a, "strided"_a.none(), "fallback"_a,
        "tensor"_a.none(), "current_stream"_a.none(),
        "torch's {dtype: (DLPack code, bits)}, torch.strided, the DLPack export to fall back on, "
        "torch.Tensor and its current-stream query (device -> handle, or None): after it, "
        "(tensor, TORCH_VIEW) operands are read attribute by attribute, and run_torch takes torch "
        "CUDA tensors as they are.");
  m.attr("TORCH_VIEW") = torch_view_tag();
  m.def(
      "example_view",
      [](nb::handle operand, std::string const& name) {
        return example_view(operand, name.c_str());
      },
      "operand"_a, "name"_a,
      "The view of an (owner, DLPack capsule or __array_interface__) pair, for a plan's example "
      "tensors: dtype and strides only.");

  nb::class_<RunOperands>(m, "GemmRun",
                          "A run launched with sync=False: sync() waits for it (and copies host "
                          "outputs back).")
      .def("sync", &RunOperands::wait, "Waits for the run; copies host outputs back.")
      .def_prop_ro("done", &RunOperands::waited, "Whether sync() has returned.");
}

// A run on `stream`: `launch` adds its operands and enqueues it. A run that sync=False leaves
// running is handed back as its operands (a GemmRun, whose sync() waits); a refused one frees what
// it copied before the error goes on.
template <class Launch>
std::unique_ptr<RunOperands> run_with(std::uintptr_t stream, bool sync, Launch&& launch) {
  auto operands = std::make_unique<RunOperands>(as_stream(stream));
  try {
    launch(*operands);
  } catch (...) {
    operands->discard();
    throw;
  }
  if (!sync) return operands;
  operands->wait();
  return nullptr;
}

// A run's operands used without a run of them: `check` adds them and checks them (or prepares on
// them: GroupedGemm.prepare, which refuses host copies); whatever it copied is freed, nothing
// copied back, whether it passes or not.
template <class Check>
void check_with(Check&& check) {
  RunOperands operands(nullptr);
  try {
    check(operands);
  } catch (...) {
    operands.discard();
    throw;
  }
  operands.discard();
}

// The groups of a grouped run, from (a, b, c, d) tuples of (owner, descriptor) operands or None,
// each named by its group (`groups[3].b`).
std::vector<ops::GemmGroup> group_views(RunOperands& operands, nb::list groups) {
  std::vector<ops::GemmGroup> views;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    nb::tuple const g = nb::cast<nb::tuple>(groups[i]);
    std::string const at = fmt::format("groups[{}].", i);
    auto const view = [&](int k, char arg, bool output) {
      std::string const name = at + arg;
      return g[k].is_none() ? TensorView{} : operands.add(g[k], name.c_str(), output);
    };
    views.push_back(
        {view(0, 'a', false), view(1, 'b', false), view(2, 'c', false), view(3, 'd', true)});
  }
  return views;
}

// A run's views, from the (owner, descriptor) operands the Python side hands over.
struct RunViews {
  TensorView a, b, c, d;
  ops::EpilogueTensors epilogue;
};

RunViews views_of(RunOperands& operands, nb::handle a, nb::handle b, nb::handle c, nb::handle d,
                  EpilogueOperands const& epilogue) {
  RunViews v;
  v.a = operands.add(a, "a", false);
  v.b = operands.add(b, "b", false);
  v.c = c.is_none() ? TensorView{} : operands.add(c, "c", false);
  v.d = operands.add(d, "d", true);
  v.epilogue = epilogue.views(operands);
  return v;
}

// The binding of an MoE layout's run (GroupedGemm::run_masked, run_contiguous): its operands as
// (owner, descriptor) pairs, `rows` the device address of its int32 array, the run on `stream`.
template <auto kRun>
auto layout_run() {
  return [](ops::GroupedGemm const& grouped, nb::handle a, nb::handle b, nb::handle c, nb::handle d,
            std::uintptr_t rows, float alpha, float beta, std::uintptr_t stream, bool sync,
            std::uintptr_t workspace, std::size_t workspace_bytes) -> std::unique_ptr<RunOperands> {
    return run_with(stream, sync, [&](RunOperands& operands) {
      RunViews const v = views_of(operands, a, b, c, d, EpilogueOperands{});
      nb::gil_scoped_release unlocked;
      (grouped.*kRun)(v.a, v.b, v.c, v.d, reinterpret_cast<int const*>(rows), alpha, beta,
                      as_stream(stream), {reinterpret_cast<void*>(workspace), workspace_bytes});
    });
  };
}

void bind_gemm(nb::module_& m) {
  nb::class_<GemmOptions>(m, "GemmOptions", "How a plan is declared (ops::GemmOptions).")
      .def(nb::init<>())
      .def_rw("element", &GemmOptions::element, nb::arg().none())
      .def_rw("layout", &GemmOptions::layout, nb::arg().none())
      .def_rw("element_a", &GemmOptions::element_a, nb::arg().none())
      .def_rw("element_b", &GemmOptions::element_b, nb::arg().none())
      .def_rw("element_c", &GemmOptions::element_c, nb::arg().none())
      .def_rw("element_d", &GemmOptions::element_d, nb::arg().none())
      .def_rw("layout_a", &GemmOptions::layout_a, nb::arg().none())
      .def_rw("layout_b", &GemmOptions::layout_b, nb::arg().none())
      .def_rw("layout_c", &GemmOptions::layout_c, nb::arg().none())
      .def_rw("layout_d", &GemmOptions::layout_d, nb::arg().none())
      .def_rw("a", &GemmOptions::a, nb::arg().none())
      .def_rw("b", &GemmOptions::b, nb::arg().none())
      .def_rw("c", &GemmOptions::c, nb::arg().none())
      .def_rw("d", &GemmOptions::d, nb::arg().none())
      .def_rw("element_accumulator", &GemmOptions::element_accumulator, nb::arg().none())
      .def_rw("opclass", &GemmOptions::opclass)
      .def_rw("arch", &GemmOptions::arch, nb::arg().none());

  nb::class_<ops::GemmTypes>(m, "GemmTypes", "What a plan was made for, resolved.")
      .def_ro("a", &ops::GemmTypes::a)
      .def_ro("b", &ops::GemmTypes::b)
      .def_ro("c", &ops::GemmTypes::c)
      .def_ro("d", &ops::GemmTypes::d)
      .def_ro("accumulator", &ops::GemmTypes::accumulator)
      .def_ro("layout_a", &ops::GemmTypes::layout_a)
      .def_ro("layout_b", &ops::GemmTypes::layout_b)
      .def_ro("layout_c", &ops::GemmTypes::layout_c)
      .def_ro("layout_d", &ops::GemmTypes::layout_d);

  nb::class_<Gemm>(m, "Gemm", "The GEMM plan, ops::Gemm (warploom.op.Gemm wraps it).")
      .def(nb::init<GemmOptions const&>(), "options"_a)
      .def("__copy__", [](Gemm const& g) { return Gemm(g); })
      .def_prop_ro("arch", &Gemm::arch)
      .def_prop_ro("types", &Gemm::types, nb::rv_policy::copy)
      .def_prop_ro("opclass", &Gemm::opclass)
      .def("set_opclass", &Gemm::set_opclass, "opclass"_a)
      .def("describe", &Gemm::describe)
      .def_prop_ro("activation", &Gemm::activation)
      .def_prop_ro("leaky_slope", [](Gemm const& g) { return g.epilogue().leaky_slope; })
      .def(
          "set_activation",
          [](Gemm& g, Activation a, float leaky_slope) {
            ops::GemmEpilogue e = g.epilogue();
            e.activation = a;
            e.leaky_slope = leaky_slope;
            g.set_epilogue(e);
          },
          "activation"_a, "leaky_slope"_a = 0.01f)
      .def_static("activations", &Gemm::activations)
      .def("tile_descriptions", &Gemm::tile_descriptions)
      .def("is_prebuilt", &Gemm::is_prebuilt, "td"_a)
      // compile() may run nvcc (about 20 s, once per machine): other Python threads go on.
      .def("compile", nb::overload_cast<TileDescription const&>(&Gemm::compile), "td"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("compile", nb::overload_cast<>(&Gemm::compile), nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("tile_description", &Gemm::tile_description)
      .def("source", &Gemm::source, "td"_a)
      .def(
          "run",
          [](Gemm const& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha,
             float beta, std::uintptr_t stream, bool sync, bool print_module,
             EpilogueOperands const& epilogue) -> std::unique_ptr<RunOperands> {
            return run_with(stream, sync, [&](RunOperands& operands) {
              RunViews const v = views_of(operands, a, b, c, d, epilogue);
              if (print_module)
                nb::print(plan.source(plan.description_for(v.a, v.b, v.c, v.d)).c_str());
              // The first run of a configuration may compile it (JIT): the GIL is free meanwhile.
              nb::gil_scoped_release unlocked;
              plan.run(v.a, v.b, v.c, v.d, v.epilogue, alpha, beta, as_stream(stream));
            });
          },
          "a"_a, "b"_a, "c"_a.none(), "d"_a, "alpha"_a, "beta"_a, "stream"_a, "sync"_a,
          "print_module"_a, "epilogue"_a,
          "Runs D = epilogue(alpha * A . B + beta * C) on (owner, descriptor) operands "
          "(warploom.op.Gemm makes them). Returns a GemmRun when sync is False, else None.")
      .def(
          "host_us_of_cpp_runs",
          [](Gemm const& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha,
             float beta, std::uintptr_t stream, int calls) {
            if (calls < 1)
              throw std::invalid_argument("calls = " + std::to_string(calls) +
                                          " must be at least 1");
            RunOperands operands(as_stream(stream));
            RunViews const v = views_of(operands, a, b, c, d, EpilogueOperands{});
            nb::gil_scoped_release unlocked;
            auto const start = std::chrono::steady_clock::now();
            for (int i = 0; i < calls; ++i)
              plan.run(v.a, v.b, v.c, v.d, v.epilogue, alpha, beta, as_stream(stream));
            std::chrono::duration<double, std::micro> const spent =
                std::chrono::steady_clock::now() - start;
            return spent.count() / calls;
          },
          "a"_a, "b"_a, "c"_a.none(), "d"_a, "alpha"_a, "beta"_a, "stream"_a, "calls"_a,
          "Host microseconds per call of `calls` back-to-back ops::Gemm::run on operands described "
          "once (run()'s (owner, descriptor) pairs; device tensors only): the C++ call that "
          "Python's overhead is measured against, in the same process.")
      .def(
          "run_torch",
          [](Gemm const& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha,
             float beta, bool sync) -> nb::object {
            if (a.is_none() || b.is_none() || d.is_none()) return nb::borrow(Py_NotImplemented);
            std::array<nb::handle, 4> const tensors = {a, b, d, c};
            std::optional<std::uintptr_t> const stream = torch_current_stream(tensors);
            if (!stream) return nb::borrow(Py_NotImplemented);
            nb::handle const tag = torch_view_tag();
            auto const operand = [&](nb::handle x) {
              return x.is_none() ? nb::none() : nb::object(nb::make_tuple(x, tag));
            };
            return nb::cast(run_with(*stream, sync, [&](RunOperands& operands) {
              RunViews const v = views_of(operands, operand(a), operand(b), operand(c), operand(d),
                                          EpilogueOperands{});
              nb::gil_scoped_release unlocked;
              plan.run(v.a, v.b, v.c, v.d, v.epilogue, alpha, beta, as_stream(*stream));
            }));
          },
          "a"_a.none(), "b"_a.none(), "c"_a.none(), "d"_a.none(), "alpha"_a, "beta"_a, "sync"_a,
          "run() without an epilogue's tensors on torch CUDA tensors (c may be None), on torch's "
          "current stream: the GemmRun (sync=False) or None, or NotImplemented, touching "
          "nothing, when a tensor is not a torch CUDA tensor (warploom.op.Gemm.run then takes "
          "the general path).")
      .def(
          "check",
          [](Gemm const& plan, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha,
             float beta, EpilogueOperands const& epilogue) {
            check_with([&](RunOperands& operands) {
              RunViews const v = views_of(operands, a, b, c, d, epilogue);
              (void)plan.arguments(v.a, v.b, v.c, v.d, v.epilogue, alpha, beta);
            });
          },
          "a"_a, "b"_a, "c"_a.none(), "d"_a, "alpha"_a, "beta"_a, "epilogue"_a,
          "Checks a run's operands against the plan as run() does, without a device or a launch "
          "(Gemm::arguments).");

  nb::class_<ops::GroupedGemm>(m, "GroupedGemm",
                               "ops::GroupedGemm (warploom.op.GroupedGemm wraps it).")
      .def(nb::init<GemmOptions const&>(), "options"_a)
      .def_prop_ro(
          "plan", [](ops::GroupedGemm& g) -> Gemm& { return g.plan(); },
          nb::rv_policy::reference_internal, "The plan every group runs with.")
      .def("describe", &ops::GroupedGemm::describe)
      .def_prop_rw("tile_scheduling", &ops::GroupedGemm::tile_scheduling,
                   &ops::GroupedGemm::set_tile_scheduling,
                   "How a launch's CTAs take their tiles (GroupedGemm::set_tile_scheduling).")
      .def(
          "run",
          [](ops::GroupedGemm const& grouped, nb::list groups, float alpha, float beta,
             std::uintptr_t stream, bool sync, std::uintptr_t workspace,
             std::size_t workspace_bytes) -> std::unique_ptr<RunOperands> {
            return run_with(stream, sync, [&](RunOperands& operands) {
              std::vector<ops::GemmGroup> const views = group_views(operands, groups);
              // A first run may compile kernels (JIT): the GIL is free meanwhile.
              nb::gil_scoped_release unlocked;
              grouped.run(views, alpha, beta, as_stream(stream),
                          {reinterpret_cast<void*>(workspace), workspace_bytes});
            });
          },
          "groups"_a, "alpha"_a, "beta"_a, "stream"_a, "sync"_a, "workspace"_a = 0,
          "workspace_bytes"_a = 0,
          "Runs every group ((owner, descriptor) or None for a, b, c, d each) with the workspace "
          "at device address `workspace` (0: the library's pool). Returns a GemmRun when sync is "
          "False, else None.")
      .def(
          "prepare",
          [](ops::GroupedGemm const& grouped, nb::list groups, float alpha, float beta,
             std::uintptr_t stream, std::uintptr_t workspace, std::size_t workspace_bytes) {
            // The operands are only described: the prepared GEMM keeps their addresses, and
            // check_with drops their owners after (warploom.op.PreparedGroupedGemm holds them).
            gemm::PreparedGroupedGemm prepared;
            check_with([&](RunOperands& operands) {
              std::vector<ops::GemmGroup> const views = group_views(operands, groups);
              // A host array's device copy lives as long as one run: a prepared GEMM keeps
              // its tensors' addresses for every run.
              if (operands.host_copies() > 0)
                throw std::invalid_argument(
                    "GroupedGemm.prepare: a group's tensor is a host array (NumPy): a prepared "
                    "GEMM runs on its tensors where they are, at every run; give GPU tensors "
                    "(torch, CuPy)");
              nb::gil_scoped_release unlocked;
              prepared = grouped.prepare(views, alpha, beta, as_stream(stream),
                                         {reinterpret_cast<void*>(workspace), workspace_bytes});
            });
            return prepared;
          },
          "groups"_a, "alpha"_a, "beta"_a, "stream"_a, "workspace"_a = 0, "workspace_bytes"_a = 0,
          "Checks every group as run() does and sets them up once on `stream`, waiting for it "
          "(GroupedGemm::prepare): GPU operands only; the workspace at device address "
          "`workspace` (0: one the prepared GEMM allocates).")
      .def_static("workspace_bytes", &ops::GroupedGemm::workspace_bytes, "groups"_a,
                  "The bytes of workspace a run of `groups` groups needs "
                  "(GroupedGemm::workspace_bytes).")
      .def(
          "check",
          [](ops::GroupedGemm const& grouped, nb::list groups, float alpha, float beta) {
            check_with([&](RunOperands& operands) {
              (void)grouped.arguments(group_views(operands, groups), alpha, beta);
            });
          },
          "groups"_a, "alpha"_a, "beta"_a,
          "Checks every group as run() does, without a device or a launch "
          "(GroupedGemm::arguments).")
      .def("run_masked", layout_run<&ops::GroupedGemm::run_masked>(), "a"_a, "b"_a, "c"_a.none(),
           "d"_a, "valid_m"_a, "alpha"_a, "beta"_a, "stream"_a, "sync"_a, "workspace"_a = 0,
           "workspace_bytes"_a = 0,
           "The masked layout: batched (owner, descriptor) operands, valid_m the device address "
           "of one int32 count per batch (GroupedGemm::run_masked). Returns a GemmRun when sync "
           "is False, else None.")
      .def("run_contiguous", layout_run<&ops::GroupedGemm::run_contiguous>(), "a"_a, "b"_a,
           "c"_a.none(), "d"_a, "row_ends"_a, "alpha"_a, "beta"_a, "stream"_a, "sync"_a,
           "workspace"_a = 0, "workspace_bytes"_a = 0,
           "The contiguous layout: stacked a, c, d and batched b as (owner, descriptor) operands, "
           "row_ends the device address of one int32 cumulative row end per expert "
           "(GroupedGemm::run_contiguous). Returns a GemmRun when sync is False, else None.");

  nb::class_<gemm::PreparedGroupedGemm>(
      m, "PreparedGroupedGemm",
      "gemm::PreparedGroupedGemm (warploom.op.PreparedGroupedGemm wraps it): groups set up once, "
      "each run the grouped kernel alone.")
      .def(
          "run",
          [](gemm::PreparedGroupedGemm const& prepared, std::uintptr_t stream, bool sync) {
            nb::gil_scoped_release unlocked;
            prepared.run(as_stream(stream));
            if (sync) WL_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
          },
          "stream"_a, "sync"_a,
          "Enqueues every group on `stream`; sync waits for them (the GIL released).")
      .def_prop_ro("groups", &gemm::PreparedGroupedGemm::groups, "The groups a run computes.")
      .def_prop_ro("grouped_launches", &gemm::PreparedGroupedGemm::grouped_launches,
                   "The grouped-kernel launches a run makes (one per configuration).");

  nb::class_<EpilogueOperands>(m, "EpilogueOperands",
                               "A run's epilogue tensors, as (owner, descriptor) operands or None "
                               "(warploom.op.Gemm.run's keyword arguments).")
      .def(nb::init<>())
      .def_rw("bias", &EpilogueOperands::bias, nb::arg().none())
      .def_rw("bias_broadcast", &EpilogueOperands::bias_broadcast)
      .def_rw("row_scale", &EpilogueOperands::row_scale, nb::arg().none())
      .def_rw("col_scale", &EpilogueOperands::col_scale, nb::arg().none())
      .def_rw("residual", &EpilogueOperands::residual, nb::arg().none())
      .def_rw("pre_activation", &EpilogueOperands::pre_activation, nb::arg().none());
}

}  // namespace
}  // namespace warploom::python

NB_MODULE(_core, m) {
  m.doc() = "warploom's C++ plan API (warploom::ops); use the warploom package, not this module";
  // A plan or tile description a script still holds when the interpreter exits is no leak: with
  // torch imported, module globals outlive this module's teardown, and nanobind printed a
  // "leaked instances" report for each of them at the end of every such script.
  nb::set_leak_warnings(false);
  // Registered after nanobind's defaults, so tried before them: a DtypeError is also a
  // std::invalid_argument, which would otherwise become ValueError.
  nb::register_exception_translator([](std::exception_ptr const& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (warploom::ops::DtypeError const& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
  warploom::python::bind_enums(m);
  warploom::python::bind_tile_description(m);
  warploom::python::bind_views(m);
  warploom::python::bind_gemm(m);
  warploom::python::bind_verify(m);
  warploom::python::bind_attention(m);
}
