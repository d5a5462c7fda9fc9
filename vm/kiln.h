/* Kiln's C API: load a module file, open it on a device, call its functions.
 *
 * A plain C interface for apps (Android NDK, iOS, embedded Linux) over the
 * C++ runtime. No C++ exception crosses it. Every call that can fail returns
 * a kiln_status_t: NULL means success; otherwise it carries a message
 * (kiln_status_message) and must be freed with kiln_status_free.
 *
 * Ownership: every object created by a kiln_*_create / kiln_*_load call is
 * freed by the matching kiln_*_free, which accepts NULL. A session keeps its
 * module alive, so the module may be freed first. Results own their memory
 * until kiln_results_free. Objects are not thread-safe: use one session per
 * thread (sessions of one module may run side by side).
 *
 * Element types are the module format's codes (schema/README.md); the
 * KILN_TYPE_* constants name the common ones, and kiln_element_type_from_name
 * maps any MLIR spelling ("f32", "bf16", "complex<f32>", ...) to its code.
 * Tensor data are dense, row-major, in the type's storage encoding (i1 and
 * sub-byte types one byte each). */
#ifndef KILN_VM_KILN_H_
#define KILN_VM_KILN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_status* kiln_status_t;
typedef struct kiln_module kiln_module_t;
typedef struct kiln_session kiln_session_t;
typedef struct kiln_results kiln_results_t;

/* The error's text; valid until kiln_status_free. */
const char* kiln_status_message(kiln_status_t status);
void kiln_status_free(kiln_status_t status);

enum {
  KILN_TYPE_I1 = 1,
  KILN_TYPE_I8 = 4,
  KILN_TYPE_I16 = 5,
  KILN_TYPE_I32 = 6,
  KILN_TYPE_I64 = 7,
  KILN_TYPE_UI8 = 10,
  KILN_TYPE_UI32 = 12,
  KILN_TYPE_BF16 = 25,
  KILN_TYPE_F16 = 26,
  KILN_TYPE_F32 = 27,
  KILN_TYPE_F64 = 28,
};
/* The code of an MLIR element type name, or 0 if there is none. */
int32_t kiln_element_type_from_name(const char* name);
/* Bytes per element in storage, 0 for an unknown code. */
size_t kiln_element_type_size(int32_t element_type);

/* A tensor handed to or returned from a call. `data` holds `byte_size`
 * bytes (the product of `dims` times the element size). */
typedef struct kiln_tensor {
  int32_t element_type;
  int32_t rank;
  const int64_t* dims;
  const void* data;
  size_t byte_size;
} kiln_tensor_t;

/* Loads and verifies a module. A truncated file, one of a newer format
 * version, or one whose checksums do not match (format 0.3: any damaged
 * byte; KILN_VERIFY_CHECKSUMS=0 in the environment skips them, for trusted
 * files only) is refused with a message; so is a structurally invalid one
 * (schema/README.md says exactly what is checked). load_memory copies the
 * bytes. */
kiln_status_t kiln_module_load_file(const char* path, kiln_module_t** out_module);
kiln_status_t kiln_module_load_memory(const void* data, size_t size, kiln_module_t** out_module);
void kiln_module_free(kiln_module_t* module);

/* The module's public functions, by index. */
size_t kiln_module_function_count(const kiln_module_t* module);
const char* kiln_module_function_name(const kiln_module_t* module, size_t index);

/* Opens the module on a device: "cpu" (the default when NULL), "vulkan" (the
 * preferred Vulkan device) or "vulkan:N". Uploads the constants and prepares
 * the executables once. A module compiled with --target=cpu is refused on a
 * Vulkan device here, with how to recompile it. */
kiln_status_t kiln_session_create(kiln_module_t* module, const char* device, kiln_session_t** out_session);
void kiln_session_free(kiln_session_t* session);

/* Calls a function. The inputs must match its signature (count, element
 * types and shapes; a mismatch is an error naming the expected type).
 * On success *out_results holds the results. */
kiln_status_t kiln_session_call(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                size_t input_count, kiln_results_t** out_results);

size_t kiln_results_count(const kiln_results_t* results);
/* Result `index` as a view into `results` (valid until kiln_results_free). */
kiln_status_t kiln_results_get(const kiln_results_t* results, size_t index, kiln_tensor_t* out_tensor);
void kiln_results_free(kiln_results_t* results);

#ifdef __cplusplus
}
#endif

#endif /* KILN_VM_KILN_H_ */
