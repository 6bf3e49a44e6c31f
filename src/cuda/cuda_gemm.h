// GEMMs through cuBLASLt, loaded at run time (dlopen "libcublasLt.so.13", then ".so"): the
// binary links no cuBLAS, so it runs where only the driver is (the library's 500 MB would not
// travel), and GEMMs are measured only where the library is found on LD_LIBRARY_PATH.
// D (m x n, bf16) = A^T (m x k) B (k x n), A and B bf16 or fp8 e4m3 (fp8 needs A transposed,
// so both are "TN"), fp32 accumulation, the first algorithm cuBLASLt's heuristic returns.
// Cost: one heuristic query per shape (cached). Limits: no batching, no scaling factors.
#pragma once

#include <cuda_runtime.h>
#include <library_types.h>

#include <cstdint>
#include <memory>
#include <string>

namespace hyperplan::cuda {

class LtGemm {
 public:
  // nullptr, with `why_not` set, when the library or a symbol is missing or init fails.
  static std::unique_ptr<LtGemm> Load(std::string& why_not);
  virtual ~LtGemm() = default;
  // Enqueues one GEMM on `stream`; false, with `why_not` set, when cuBLASLt refuses it.
  virtual bool Run(cudaDataType_t input_type, int64_t m, int64_t n, int64_t k, const void* a,
                   const void* b, void* d, cudaStream_t stream, std::string& why_not) = 0;
};

}  // namespace hyperplan::cuda
