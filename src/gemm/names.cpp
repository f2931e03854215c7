// src/gemm/names.cpp — the names of the GEMM API's enumerations (warploom/gemm.hpp).
#include "warploom/gemm.hpp"

namespace warploom::gemm {

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
  return "?";
}

std::string_view to_string(MatrixLayout l) {
  return l == MatrixLayout::RowMajor ? "row-major" : "column-major";
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
  return 0;
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
  return "?";
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
  return "?";
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
  return "?";
}

std::string_view to_string(Broadcast b) {
  return b == Broadcast::PerRow ? "per-row" : "per-column";
}

}  // namespace warploom::gemm
