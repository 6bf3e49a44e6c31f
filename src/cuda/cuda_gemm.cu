// cuBLASLt GEMMs loaded at run time (see cuda_gemm.h).
#include <cublasLt.h>
#include <dlfcn.h>

#include <map>
#include <tuple>

#include "cuda/cuda_common.h"
#include "cuda/cuda_gemm.h"

namespace hyperplan::cuda {
namespace {

constexpr size_t kWorkspaceBytes = 32 << 20;

// The cuBLASLt entry points used, each as X(symbol, field): one list declares the pointers
// (of the header's own types) and binds them (LtGemm::Load).
#define HYPERPLAN_CUBLASLT_ENTRY_POINTS(X)                \
  X(cublasLtCreate, create)                               \
  X(cublasLtDestroy, destroy)                             \
  X(cublasLtMatmulDescCreate, desc_create)                \
  X(cublasLtMatmulDescDestroy, desc_destroy)              \
  X(cublasLtMatmulDescSetAttribute, desc_set)             \
  X(cublasLtMatrixLayoutCreate, layout_create)            \
  X(cublasLtMatrixLayoutDestroy, layout_destroy)          \
  X(cublasLtMatmulPreferenceCreate, preference_create)    \
  X(cublasLtMatmulPreferenceDestroy, preference_destroy)  \
  X(cublasLtMatmulPreferenceSetAttribute, preference_set) \
  X(cublasLtMatmulAlgoGetHeuristic, heuristic)            \
  X(cublasLtMatmul, matmul)

struct Api {
#define HYPERPLAN_DECLARE_ENTRY_POINT(symbol, field) decltype(&symbol) field = nullptr;
  HYPERPLAN_CUBLASLT_ENTRY_POINTS(HYPERPLAN_DECLARE_ENTRY_POINT)
#undef HYPERPLAN_DECLARE_ENTRY_POINT
};

template <typename Function>
bool Bind(void* library, const char* name, Function& function, std::string& why_not) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr) why_not = std::string("libcublasLt has no ") + name;
  return function != nullptr;
}

class Lt : public LtGemm {
 public:
  Lt(void* library, const Api& api, cublasLtHandle_t handle, void* workspace)
      : library_(library), api_(api), handle_(handle), workspace_(workspace) {}
  ~Lt() override {
    for (auto& [shape, plan] : plans_) Destroy(plan);
    api_.destroy(handle_);
    cudaFree(workspace_);
    dlclose(library_);
  }

  bool Run(cudaDataType_t input_type, int64_t m, int64_t n, int64_t k, const void* a, const void* b,
           void* d, cudaStream_t stream, std::string& why_not) override {
    const auto key = std::make_tuple(static_cast<int>(input_type), m, n, k);
    auto found = plans_.find(key);
    if (found == plans_.end()) {
      Plan plan;
      if (!Prepare(input_type, m, n, k, plan, why_not)) {
        Destroy(plan);
        return false;
      }
      found = plans_.emplace(key, plan).first;
    }
    Plan& plan = found->second;
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const cublasStatus_t status =
        api_.matmul(handle_, plan.desc, &alpha, a, plan.a, b, plan.b, &beta, d, plan.d, d, plan.d,
                    &plan.algo, workspace_, kWorkspaceBytes, stream);
    if (status != CUBLAS_STATUS_SUCCESS) {
      why_not = "cublasLtMatmul failed with status " + std::to_string(static_cast<int>(status));
      return false;
    }
    return true;
  }

 private:
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };

  bool Prepare(cudaDataType_t input_type, int64_t m, int64_t n, int64_t k, Plan& plan,
               std::string& why_not) {
    const auto fail = [&](const char* what) {
      why_not = std::string("cuBLASLt refused ") + what + " for a " + std::to_string(m) + "x" +
                std::to_string(n) + "x" + std::to_string(k) + " GEMM";
      return false;
    };
    if (api_.desc_create(&plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) {
      return fail("the matmul descriptor");
    }
    const cublasOperation_t transposed = CUBLAS_OP_T;
    const cublasOperation_t plain = CUBLAS_OP_N;
    api_.desc_set(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof(transposed));
    api_.desc_set(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof(plain));
    // Column-major: A is stored k x m (read transposed), B k x n, D m x n.
    if (api_.layout_create(&plan.a, input_type, k, m, k) != CUBLAS_STATUS_SUCCESS ||
        api_.layout_create(&plan.b, input_type, k, n, k) != CUBLAS_STATUS_SUCCESS ||
        api_.layout_create(&plan.d, CUDA_R_16BF, m, n, m) != CUBLAS_STATUS_SUCCESS) {
      return fail("a matrix layout");
    }
    cublasLtMatmulPreference_t preference = nullptr;
    if (api_.preference_create(&preference) != CUBLAS_STATUS_SUCCESS) return fail("preferences");
    const size_t workspace_bytes = kWorkspaceBytes;
    api_.preference_set(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                        sizeof(workspace_bytes));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status = api_.heuristic(handle_, plan.desc, plan.a, plan.b, plan.d, plan.d,
                                                 preference, 1, &result, &found);
    api_.preference_destroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS || found < 1) return fail("every algorithm");
    plan.algo = result.algo;
    return true;
  }

  void Destroy(Plan& plan) {
    if (plan.a != nullptr) api_.layout_destroy(plan.a);
    if (plan.b != nullptr) api_.layout_destroy(plan.b);
    if (plan.d != nullptr) api_.layout_destroy(plan.d);
    if (plan.desc != nullptr) api_.desc_destroy(plan.desc);
    plan = Plan{};
  }

  void* library_;
  Api api_;
  cublasLtHandle_t handle_;
  void* workspace_;
  std::map<std::tuple<int, int64_t, int64_t, int64_t>, Plan> plans_;
};

}  // namespace

std::unique_ptr<LtGemm> LtGemm::Load(std::string& why_not) {
  void* library = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen("libcublasLt.so", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    why_not = "libcublasLt.so.13 not found (add its folder to LD_LIBRARY_PATH)";
    return nullptr;
  }
  Api api;
  bool bound = true;  // stops at the first missing entry point, which why_not names
#define HYPERPLAN_BIND_ENTRY_POINT(symbol, field) \
  bound = bound && Bind(library, #symbol, api.field, why_not);
  HYPERPLAN_CUBLASLT_ENTRY_POINTS(HYPERPLAN_BIND_ENTRY_POINT)
#undef HYPERPLAN_BIND_ENTRY_POINT
  cublasLtHandle_t handle = nullptr;
  if (bound && api.create(&handle) != CUBLAS_STATUS_SUCCESS) why_not = "cublasLtCreate failed";
  void* workspace = nullptr;
  if (handle != nullptr && cudaMalloc(&workspace, kWorkspaceBytes) != cudaSuccess) {
    why_not = "cudaMalloc of the GEMM workspace failed";
    api.destroy(handle);
    handle = nullptr;
  }
  if (handle == nullptr) {
    dlclose(library);
    return nullptr;
  }
  return std::make_unique<Lt>(library, api, handle, workspace);
}

}  // namespace hyperplan::cuda
