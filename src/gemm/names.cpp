// src/gemm/names.cpp — the names of the GEMM API's enumerations (warploom/gemm.hpp).
//
// Every function here gets its enumeration from the caller, who may have cast any integer to it (a
// binding, a deserialiser): a value outside the enumeration throws, naming the type and the value,
// rather than falling out of the switch (size_of's 0 once became a division by zero: SIGFPE).
#include <stdexcept>
#include <string>

#include "warploom/gemm.hpp"

namespace warploom::gemm {

namespace {

template <class E>
[[noreturn]] void out_of_range(char const* function, char const* type, E value, E last) {
  throw std::invalid_argument(std::string(function) + ": " + type + "(" +
                              std::to_string(static_cast<int>(value)) + ") is out of range (0 to " +
                              std::to_string(static_cast<int>(last)) + ")");
}

}  // namespace

std::string_view to_string(ScalarType t) {
  switch (t) {
    case ScalarType::F16:
      return "fp16";
    case ScalarType::BF16:
      return "bf16";
    case ScalarType::F32:
      return "fp32";
    case ScalarType::F64:
      return "fp64";
    case ScalarType::E4M3:
      return "e4m3";
    case ScalarType::E5M2:
      return "e5m2";
  }
  out_of_range("to_string", "ScalarType", t, ScalarType::E5M2);
}

std::string_view to_string(MatrixLayout l) {
  switch (l) {
    case MatrixLayout::RowMajor:
      return "row-major";
    case MatrixLayout::ColMajor:
      return "column-major";
  }
  out_of_range("to_string", "MatrixLayout", l, MatrixLayout::ColMajor);
}

int size_of(ScalarType t) {
  switch (t) {
    case ScalarType::F16:
    case ScalarType::BF16:
      return 2;
    case ScalarType::F32:
      return 4;
    case ScalarType::F64:
      return 8;
    case ScalarType::E4M3:
    case ScalarType::E5M2:
      return 1;
  }
  out_of_range("size_of", "ScalarType", t, ScalarType::E5M2);
}

std::string_view to_string(GemmKernel k) {
  switch (k) {
    case GemmKernel::Auto:
      return "auto";
    case GemmKernel::TensorCore:
      return "tensor-core";
    case GemmKernel::Simt:
      return "simt";
  }
  out_of_range("to_string", "GemmKernel", k, GemmKernel::Simt);
}

std::string_view to_string(ConsumerDesign d) {
  switch (d) {
    case ConsumerDesign::Auto:
      return "auto";
    case ConsumerDesign::Cooperative:
      return "cooperative";
    case ConsumerDesign::PingPong:
      return "pingpong";
  }
  out_of_range("to_string", "ConsumerDesign", d, ConsumerDesign::PingPong);
}

std::string_view to_string(Activation a) {
  switch (a) {
    case Activation::Identity:
      return "identity";
    case Activation::ReLU:
      return "relu";
    case Activation::LeakyReLU:
      return "leaky_relu";
    case Activation::GELU:
      return "gelu";
    case Activation::GELUTanh:
      return "gelu_tanh";
    case Activation::HardSwish:
      return "hardswish";
    case Activation::Sigmoid:
      return "sigmoid";
    case Activation::SiLU:
      return "silu";
    case Activation::Tanh:
      return "tanh";
  }
  out_of_range("to_string", "Activation", a, Activation::Tanh);
}

std::string_view to_string(TileScheduling s) {
  switch (s) {
    case TileScheduling::Auto:
      return "auto";
    case TileScheduling::Static:
      return "static";
    case TileScheduling::Dynamic:
      return "dynamic";
    case TileScheduling::StreamK:
      return "stream-k";
  }
  out_of_range("to_string", "TileScheduling", s, TileScheduling::StreamK);
}

std::string_view to_string(SplitKReduction r) {
  switch (r) {
    case SplitKReduction::Auto:
      return "auto";
    case SplitKReduction::InKernel:
      return "in-kernel";
    case SplitKReduction::SeparateKernel:
      return "separate-kernel";
  }
  out_of_range("to_string", "SplitKReduction", r, SplitKReduction::SeparateKernel);
}

std::string_view to_string(Broadcast b) {
  switch (b) {
    case Broadcast::PerRow:
      return "per-row";
    case Broadcast::PerColumn:
      return "per-column";
  }
  out_of_range("to_string", "Broadcast", b, Broadcast::PerColumn);
}

}  // namespace warploom::gemm
