/* Kiln's C API: load a module file, open it on a device, call its functions.
 *
 * A plain C interface for apps (Android NDK, iOS, embedded Linux) over the
 * C++ runtime. No C++ exception crosses it. Every call that can fail returns
 * a kiln_status_t: NULL means success; otherwise it carries a code
 * (kiln_status_code) and a message (kiln_status_message) and must be freed
 * with kiln_status_free.
 *
 * Misuse: every misuse the runtime can detect returns a status with a message
 * (a NULL or out-of-range argument, inputs that do not match the function's
 * signature, a truncated or corrupted module, an unknown device). What it
 * cannot detect is undefined behaviour, as in any C library: using an object
 * after its kiln_*_free (or freeing it twice), a pointer to fewer bytes than
 * the sizes it comes with say, or an object used from two threads at once
 * where the list below says it may not be (kiln_session_free during a call on
 * another thread, two threads freeing one fence).
 *
 * Ownership: every object created by a kiln_*_create / kiln_*_load call is
 * freed by the matching kiln_*_free, which accepts NULL. A session keeps its
 * module alive, so the module may be freed first. Results own their memory
 * until kiln_results_free.
 *
 * Threads:
 *   - module (kiln_module_t): immutable once loaded; any number of threads
 *     may use it and open sessions on it at once.
 *   - device (kiln_device_t): shared; sessions on it may run calls on
 *     different threads at once.
 *   - session (kiln_session_t): runs one call at a time. Synchronous calls
 *     (kiln_session_call[_with_options], _call_values, _call_into) from
 *     several threads at once wait for each other and run one after
 *     another, each as if alone. An asynchronous call, profile_begin and
 *     profile_end made while a call runs are refused with
 *     KILN_STATUS_FAILED_PRECONDITION rather than wait. For calls side by
 *     side, open a session per thread (sessions of one module, on one
 *     shared device or on their own).
 *   - fence (kiln_fence_t): kiln_fence_wait, kiln_fence_cancel and
 *     kiln_fence_is_done from any thread, at once; kiln_fence_free once,
 *     when no other call on it runs.
 *   - results (kiln_results_t): one owner; may be freed on any thread.
 *   - status (kiln_status_t): one owner.
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

/* The version of this header's interface; it grows when calls are added. */
#define KILN_C_API_VERSION 3

typedef struct kiln_status* kiln_status_t;
typedef struct kiln_module kiln_module_t;
typedef struct kiln_session kiln_session_t;
typedef struct kiln_results kiln_results_t;

/* This runtime's version and the module format versions it loads. */
typedef struct kiln_version {
  int32_t major, minor, patch;
  /* Modules of format format_major.0 through format_major.format_minor load;
   * others are refused with a message naming both versions. */
  int32_t format_major, format_minor;
  const char* text; /* "Kiln 0.1.0 (module format 0.2)" */
} kiln_version_t;
/* Static data; never NULL. */
const kiln_version_t* kiln_version(void);

/* What kind of failure a status reports. The numbers are those of the common
 * canonical error space (gRPC, Abseil, IREE) and do not change. */
typedef enum kiln_status_code {
  KILN_STATUS_OK = 0,
  KILN_STATUS_CANCELLED = 1,          /* the call was cancelled (kiln_fence_cancel) */
  KILN_STATUS_INVALID_ARGUMENT = 3,   /* a bad argument or input, a directory given as a file */
  KILN_STATUS_DEADLINE_EXCEEDED = 4,  /* a wait timed out, a call ran past its deadline */
  KILN_STATUS_NOT_FOUND = 5,          /* no such file, no such function */
  KILN_STATUS_RESOURCE_EXHAUSTED = 8, /* out of memory, or threads the system cannot start */
  KILN_STATUS_FAILED_PRECONDITION = 9,
  KILN_STATUS_OUT_OF_RANGE = 11,      /* an index past the end */
  KILN_STATUS_UNIMPLEMENTED = 12,     /* not supported by this runtime or device (yet) */
  KILN_STATUS_INTERNAL = 13,          /* an unexpected error inside the runtime */
  KILN_STATUS_UNAVAILABLE = 14,       /* the device cannot be used now */
  KILN_STATUS_DATA_LOSS = 15,         /* a truncated or corrupted module */
} kiln_status_code_t;

/* KILN_STATUS_OK for NULL (success). */
kiln_status_code_t kiln_status_code(kiln_status_t status);
/* The error's text ("ok" for NULL); valid until kiln_status_free. */
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
 * version, or one whose metadata checksum does not match (format 0.3: any
 * damaged byte; KILN_VERIFY_CHECKSUMS=0 in the environment skips the
 * checksums, for trusted files only) is refused with a message; so is a
 * structurally invalid one (schema/README.md says exactly what is checked).
 * A constant's data are checked against its checksum on its first use: a
 * damaged constant fails the calls that use it (KILN_STATUS_DATA_LOSS), and
 * the session stays usable for the others.
 *
 * load_file maps the file read-only (KILN_MAP_MODULES=0 in the environment
 * reads it instead): opening reads only the metadata, and the CPU device
 * uses uncompressed constants in place. The file must not be truncated or
 * rewritten while the module or a session of it lives: touching a constant
 * in a cut-off part of a mapping kills the process with SIGBUS (replace a
 * module file by renaming a new one over it). load_memory copies the bytes;
 * load_memory_borrowed uses them in place. */
kiln_status_t kiln_module_load_file(const char* path, kiln_module_t** out_module);
kiln_status_t kiln_module_load_memory(const void* data, size_t size, kiln_module_t** out_module);

/* How a module is loaded. Initialize with kiln_load_options_init (the
 * struct_size and the defaults, which follow the environment variables
 * above), then change fields; a struct not so initialized is refused. */
typedef struct kiln_load_options {
  size_t struct_size; /* sizeof(kiln_load_options_t) */
  /* 1: check the checksums (the default unless KILN_VERIFY_CHECKSUMS=0);
   * 0: skip them, for a file you trust. */
  int32_t verify_checksums;
  /* 1: map the file (the default unless KILN_MAP_MODULES=0); 0: read it
   * into memory the module owns. Only kiln_module_load_file_with_options
   * reads it. */
  int32_t map_file;
} kiln_load_options_t;
void kiln_load_options_init(kiln_load_options_t* options);
/* load_file with options (NULL: the defaults). */
kiln_status_t kiln_module_load_file_with_options(const char* path, const kiln_load_options_t* options,
                                                 kiln_module_t** out_module);
/* Loads the caller's `size` bytes at `data` in place, without copying them.
 * They must stay alive and unchanged until `release(user_data)` is called
 * (it may be NULL): once, when the module and every session of it are
 * freed, or before this returns when the load fails. Constants at an address
 * that is not a multiple of 16 (bytes lent at an odd address) are copied
 * per session; a file's bytes keep them 64-byte aligned. */
typedef void (*kiln_release_fn)(void* user_data);
kiln_status_t kiln_module_load_memory_borrowed(const void* data, size_t size, kiln_release_fn release,
                                               void* user_data, const kiln_load_options_t* options,
                                               kiln_module_t** out_module);

/* The same as load_file, binding the module's external weights (format 0.4,
 * kiln-compile --externalize; docs/parameters.md): `parameters` holds
 * `count` strings "[scope=]FILE", each a safetensors file, mapped read-only
 * and read in place by the CPU device. A parameter missing from its scope's
 * files, or of another type or shape, is refused here naming it; one whose
 * bytes do not match the module's checksum of them fails the first call
 * that uses it, naming it; a module whose parameters stay unbound loads,
 * but a session on it is refused naming the first. */
kiln_status_t kiln_module_load_file_with_parameters(const char* path, const char* const* parameters, size_t count,
                                                    kiln_module_t** out_module);
void kiln_module_free(kiln_module_t* module);

/* The module's public functions, by index. */
size_t kiln_module_function_count(const kiln_module_t* module);
const char* kiln_module_function_name(const kiln_module_t* module, size_t index);

/* Function signatures. A public function is named by its index
 * (kiln_module_find_function gives the index of a name; NOT_FOUND if the
 * module has no public function of that name). */
typedef enum kiln_value_kind {
  KILN_VALUE_TENSOR = 0,
  KILN_VALUE_TOKEN = 1,
  KILN_VALUE_TUPLE = 2,
} kiln_value_kind_t;

/* The type of one argument or result. */
typedef struct kiln_value_type {
  int32_t kind;         /* kiln_value_kind_t */
  int32_t element_type; /* a tensor's element type code; 0 for a token or tuple */
  int32_t rank;         /* a tensor's rank; 0 for a token or tuple */
  const int64_t* dims;  /* `rank` sizes, -1 where a size is dynamic; valid until kiln_module_free */
} kiln_value_type_t;

kiln_status_t kiln_module_find_function(const kiln_module_t* module, const char* name, size_t* out_index);
/* The number of arguments and results of public function `function`. */
kiln_status_t kiln_module_function_arity(const kiln_module_t* module, size_t function, size_t* out_arg_count,
                                         size_t* out_result_count);
kiln_status_t kiln_module_function_arg(const kiln_module_t* module, size_t function, size_t arg,
                                       kiln_value_type_t* out_type);
kiln_status_t kiln_module_function_result(const kiln_module_t* module, size_t function, size_t result,
                                          kiln_value_type_t* out_type);
/* The name argument `arg` (result `result`) has in the source, as the
 * compiler kept it: an argument's `jax.arg_info` ("x", "params['w']"), else
 * its `tf_saved_model.index_path` (parts joined by '.'), else its entry in
 * the function's `tf.entry_function` inputs; a result's `jax.result_info`
 * ("[0]", "['logits']"), `tf_saved_model.index_path` or `tf.entry_function`
 * outputs. *out_name is never NULL: "" when the value has no name (JAX
 * writes "" for a lone result). Valid until kiln_module_free; UTF-8 without
 * control characters (the loader refuses a module with any other). Since
 * KILN_C_API_VERSION 3. */
kiln_status_t kiln_module_function_arg_name(const kiln_module_t* module, size_t function, size_t arg,
                                            const char** out_name);
kiln_status_t kiln_module_function_result_name(const kiln_module_t* module, size_t function, size_t result,
                                               const char** out_name);

/* A device that several sessions (of one module or of several) share: one
 * CPU thread pool, or one Vulkan device, for all of them. Sessions keep
 * their device alive: kiln_device_free may come before their
 * kiln_session_free. A device may be used by sessions on different threads
 * at once (a session runs one call at a time). */
typedef struct kiln_device kiln_device_t;

/* How the CPU device's idle threads wait for the next job
 * (hal/cpu/thread_pool.h, SpinPolicy). */
typedef enum kiln_spin_policy {
  KILN_SPIN_DEFAULT = 0, /* KILN_SPIN from the environment (spin, yield or block), else spin */
  KILN_SPIN_SPIN = 1,    /* spin up to 100 us, then sleep: fastest on a machine of one's own */
  KILN_SPIN_YIELD = 2,   /* the same, yielding the core between checks: kinder to other processes */
  KILN_SPIN_BLOCK = 3,   /* sleep at once: never burns a core; each dispatch pays a wake-up */
} kiln_spin_policy_t;

/* How a device is made. Initialize with kiln_device_options_init (which
 * sets struct_size and the defaults), then change fields. */
typedef struct kiln_device_options {
  size_t struct_size; /* sizeof(kiln_device_options_t) */
  /* "cpu" (the default when NULL), "vulkan" or "vulkan:N". */
  const char* name;
  /* CPU only: kernel threads, the calling thread included (1 to 1024; 0:
   * KILN_THREADS, else one per core). */
  int32_t cpu_threads;
  /* CPU only: a kiln_spin_policy_t. */
  int32_t spin_policy;
  /* CPU only: the CPUs the pool's worker threads are pinned to, worker k on
   * cpu_affinity[(k - 1) % cpu_affinity_count] (the calling thread is the
   * app's and is left alone); NULL/0: not pinned. A CPU this process may
   * not run on is refused. */
  const int32_t* cpu_affinity;
  size_t cpu_affinity_count;
  /* The device memory its buffers may hold at once, in bytes (0: no limit;
   * docs/memory.md, "Memory limits"): a module whose function declares a
   * larger arena is refused when a session opens it, and a call that needs
   * more fails with KILN_STATUS_RESOURCE_EXHAUSTED naming the limit (the
   * session stays usable). A struct of an earlier version, without this
   * field (its struct_size smaller), is accepted as 0. */
  uint64_t max_memory_bytes;
} kiln_device_options_t;

void kiln_device_options_init(kiln_device_options_t* options);
kiln_status_t kiln_device_create(const kiln_device_options_t* options, kiln_device_t** out_device);
void kiln_device_free(kiln_device_t* device);

/* How a session is opened. Initialize with kiln_session_options_init (which
 * sets struct_size and the defaults), then change fields; a struct not so
 * initialized is refused. */
typedef struct kiln_session_options {
  size_t struct_size; /* sizeof(kiln_session_options_t) */
  /* "cpu" (the default when NULL), "vulkan" (the preferred Vulkan device) or
   * "vulkan:N"; "" is refused. */
  const char* device;
  /* The CPU device's kernel threads, the calling thread included: 1 to 1024,
   * or 0 (the default) for the environment variable KILN_THREADS when set,
   * else one per core. Must be 0 for any other device. */
  int32_t cpu_threads;
  /* A device made with kiln_device_create to share (then `device` must be
   * NULL and cpu_threads 0); NULL: the session makes its own. A struct of
   * the runtime's first version, without this field (its struct_size
   * smaller), is accepted as NULL here. */
  kiln_device_t* shared_device;
  /* The session's own device's memory limit, as
   * kiln_device_options_t.max_memory_bytes (0: none; must be 0 with a
   * shared_device, whose own limit applies). Earlier structs: 0. */
  uint64_t max_memory_bytes;
} kiln_session_options_t;

void kiln_session_options_init(kiln_session_options_t* options);

/* Opens the module on a device. Prepares the executables once; each constant
 * comes to the device on its first use (in place on the CPU). A module compiled with --target=cpu is refused on a
 * Vulkan device here, with how to recompile it. */
kiln_status_t kiln_session_create_with_options(kiln_module_t* module, const kiln_session_options_t* options,
                                               kiln_session_t** out_session);
/* The same with the default options and `device` ("cpu" when NULL). */
kiln_status_t kiln_session_create(kiln_module_t* module, const char* device, kiln_session_t** out_session);
void kiln_session_free(kiln_session_t* session);

/* Calls a function. The inputs must match its signature (count, element
 * types and shapes; a mismatch is an error naming the expected type).
 * Their data are read in place during the call, not copied: keep them
 * unchanged until it returns. On success *out_results holds the results.
 * A session keeps the memory of the results last freed with
 * kiln_results_free and puts the next call's results there, so a call
 * repeated in a loop that frees its results allocates nothing for them.
 * One call at a time: while a call on the session runs (on another thread,
 * or kiln_session_call_async's), this returns KILN_STATUS_FAILED_PRECONDITION
 * at once. */
kiln_status_t kiln_session_call(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                size_t input_count, kiln_results_t** out_results);

/* Device-resident buffers and donation (docs/embedding.md, "Device-resident
 * buffers and donation"; vm/c_api_buffers.cc).
 *
 * A kiln_buffer_t is a tensor in a session's device memory: made by
 * kiln_buffer_upload or kept on the device as a call's result, passed to
 * calls of any session on the same device without a transfer, read back
 * with kiln_buffer_download, freed with kiln_buffer_free (it keeps its
 * device alive). A buffer passed for an argument the program donates
 * (tf.aliasing_output = N, jax.buffer_donor = true) is consumed by a call
 * that succeeds: when the result it is donated to is kept on the device
 * with the argument's type and shape, that result is written into the
 * donated buffer's memory (copied on the device after the function's own
 * work, in the same submission) and returned in a new handle to that
 * memory; else the memory is released when the handle is freed. Using a
 * consumed handle again, except to free it, is a FAILED_PRECONDITION
 * status. A buffer is not thread-safe: do not use it in two calls at once. */
typedef struct kiln_buffer kiln_buffer_t;
/* Copies `tensor` (checked as a call's input is) to the session's device. */
kiln_status_t kiln_buffer_upload(kiln_session_t* session, const kiln_tensor_t* tensor, kiln_buffer_t** out_buffer);
/* Copies the buffer's contents to `size` bytes at `dst`; `size` must be the
 * tensor's byte size. */
kiln_status_t kiln_buffer_download(const kiln_buffer_t* buffer, void* dst, size_t size);
/* The buffer's element type, rank, dims (valid until kiln_buffer_free) and
 * byte_size; `data` is set to NULL. */
kiln_status_t kiln_buffer_describe(const kiln_buffer_t* buffer, kiln_tensor_t* out_tensor);
void kiln_buffer_free(kiln_buffer_t* buffer);
/* An argument: a host tensor (read in place during the call, as
 * kiln_session_call's inputs) or a buffer; exactly one is non-NULL. */
typedef struct kiln_value {
  const kiln_tensor_t* tensor;
  kiln_buffer_t* buffer;
} kiln_value_t;
/* Where a call puts one result. */
typedef enum kiln_result_placement {
  KILN_RESULT_HOST = 0,   /* in *out_results, as kiln_session_call's */
  KILN_RESULT_BUFFER = 1, /* kept on the device: *buffer receives a new kiln_buffer_t */
  KILN_RESULT_INTO = 2,   /* downloaded into `size` bytes at `data`, exactly the result's byte size */
} kiln_result_placement_t;
typedef struct kiln_output {
  int32_t placement; /* kiln_result_placement_t */
  void* data;        /* KILN_RESULT_INTO */
  size_t size;
  kiln_buffer_t** buffer; /* KILN_RESULT_BUFFER: where the new buffer goes */
} kiln_output_t;
/* Calls a function on values, placing result i as outputs[i] says
 * (output_count: the function's result count, or 0 to return every result
 * in *out_results). out_results may be NULL when no result is placed
 * KILN_RESULT_HOST; there, a result placed elsewhere is a tensor with no
 * data (byte_size 0). Nothing is placed unless the call succeeds. */
kiln_status_t kiln_session_call_values(kiln_session_t* session, const char* function, const kiln_value_t* inputs,
                                       size_t input_count, const kiln_output_t* outputs, size_t output_count,
                                       kiln_results_t** out_results);
/* Calls a function on host tensors (read in place) and writes result i into
 * result_sizes[i] bytes at result_data[i], which must be exactly its byte
 * size: on the CPU device the one copy is from device memory into the
 * caller's. result_count must be the function's result count. */
kiln_status_t kiln_session_call_into(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                     size_t input_count, void* const* result_data, const size_t* result_sizes,
                                     size_t result_count);
/* Transfers between host and device memory since the device was created:
 * on the CPU device the copies the runtime makes between the caller's memory
 * and the device's (uploads of inputs not read in place, downloads of
 * results), on Vulkan the staging copies and writes/reads of mapped memory. */
typedef struct kiln_transfer_stats {
  uint64_t uploads, upload_bytes;
  uint64_t downloads, download_bytes;
} kiln_transfer_stats_t;
kiln_status_t kiln_device_transfer_stats(const kiln_device_t* device, kiln_transfer_stats_t* out_stats);
/* The same for the session's device (shared or its own). */
kiln_status_t kiln_session_transfer_stats(const kiln_session_t* session, kiln_transfer_stats_t* out_stats);
/* Profiling (docs/embedding.md): from profile_begin, the session's calls
 * and each of their dispatches are recorded (with their op, source line,
 * shapes and bytes; dispatches are timed on the CPU device and, with
 * timestamp queries, on a Vulkan device that has them; calls on every
 * device); profile_end stops and, with a path, writes them as Chrome
 * trace-event JSON (Perfetto, chrome://tracing), and with out_table (may be
 * NULL) returns the ops by total time as text, freed with
 * kiln_string_free. Off, profiling costs one check per dispatch. The
 * session's device reports to one profiler at a time: on a shared device,
 * the other sessions' dispatches are recorded too, unlabelled. */
kiln_status_t kiln_session_profile_begin(kiln_session_t* session);
kiln_status_t kiln_session_profile_end(kiln_session_t* session, const char* trace_path, char** out_table);
void kiln_string_free(char* text);

/* ---- Asynchronous calls, cancellation and deadlines (version 3) ----
 * (docs/embedding.md, "Asynchronous calls, cancellation and deadlines".) */

/* Options of one call. Initialize with kiln_call_options_init (which sets
 * struct_size and the defaults), then change fields; a struct not so
 * initialized is refused. */
typedef struct kiln_call_options {
  size_t struct_size; /* sizeof(kiln_call_options_t) */
  /* The call's deadline, in milliseconds from its start (0, the default:
   * none; so is anything from 2^40, 34 years, up). Past it the call fails with KILN_STATUS_DEADLINE_EXCEEDED, "timed
   * out after S s", naming the source line where it stopped; the session
   * stays usable. It is checked on the program's loops, calls and after
   * each wait for device work, so work already given to the device (one long
   * dispatch) runs to its end first. */
  uint64_t timeout_ms;
} kiln_call_options_t;
void kiln_call_options_init(kiln_call_options_t* options);

/* kiln_session_call with options (NULL: the defaults). */
kiln_status_t kiln_session_call_with_options(kiln_session_t* session, const char* function,
                                             const kiln_tensor_t* inputs, size_t input_count,
                                             const kiln_call_options_t* options, kiln_results_t** out_results);

/* The outcome of an asynchronous call: signalled when the call has ended. */
typedef struct kiln_fence kiln_fence_t;

/* Starts a call and returns at once. The call runs on a thread the session
 * starts on its first asynchronous call and owns (kiln_session_free cancels
 * a call still running and waits for it). A session runs one call at a
 * time: an asynchronous call made while another call runs is refused with
 * KILN_STATUS_FAILED_PRECONDITION, not queued, and a synchronous call made
 * while this one runs waits for it; once the fence has signalled the
 * session takes the next.
 *
 * The inputs are checked before this returns (a bad argument, a byte_size
 * that does not match its dims: a status here, no fence); the `inputs` array
 * itself may be reused at once, but the dims and data its tensors point to
 * are read in place while the call runs: keep them alive and unchanged
 * until the fence signals. The rest of the call's failures (a function the
 * module lacks, inputs that do not match the signature, the deadline, a
 * cancel) are the fence's status. `options` (NULL: the defaults) is read
 * before this returns; the deadline counts from the call's start. */
kiln_status_t kiln_session_call_async(kiln_session_t* session, const char* function, const kiln_tensor_t* inputs,
                                      size_t input_count, const kiln_call_options_t* options,
                                      kiln_fence_t** out_fence);

/* kiln_fence_wait's timeout_ms that waits for as long as the call takes
 * (as does any from 2^40 ms up). */
#define KILN_WAIT_FOREVER UINT64_MAX

/* Waits up to timeout_ms milliseconds (0: only looks) for the call to end.
 * Not ended by then: KILN_STATUS_DEADLINE_EXCEEDED, and the fence stays
 * valid (wait again, cancel it, or free it); kiln_fence_is_done tells this
 * from a call that ran past its own deadline (timeout_ms of its options). Ended: the call's status (NULL
 * on success; a failure is reported to every wait) and, with out_results
 * not NULL, its results, which the caller then owns. The results are handed
 * out once: a later wait, or one on another thread, that asks for them gets
 * KILN_STATUS_FAILED_PRECONDITION; a wait with out_results NULL leaves them
 * in the fence for a later wait to take (kiln_fence_free frees them). */
kiln_status_t kiln_fence_wait(kiln_fence_t* fence, uint64_t timeout_ms, kiln_results_t** out_results);

/* 1 once the call has ended (kiln_fence_wait would return at once), else 0
 * (also for NULL). */
int32_t kiln_fence_is_done(const kiln_fence_t* fence);

/* Asks the call to stop, from any thread; returns at once (wait on the fence
 * to know it has). The call fails with KILN_STATUS_CANCELLED, "cancelled",
 * naming the source line where it stopped, unless it ends first: a cancel of
 * a call that has ended, or that ends before its next check (checks are
 * where the deadline is checked, microseconds apart in a loop), changes
 * nothing. Not cancelled: work already given to the device, and a
 * collective's wait for its peers (which has its own timeout). NULL: no-op. */
void kiln_fence_cancel(kiln_fence_t* fence);

/* Frees the fence (NULL: no-op) and results no wait took. If the call has
 * not ended, it is cancelled and this waits for it to end (as above: at most
 * the device work already submitted), so the inputs it borrowed are free to
 * reuse when this returns. */
void kiln_fence_free(kiln_fence_t* fence);

size_t kiln_results_count(const kiln_results_t* results);
/* Result `index` as a view into `results` (valid until kiln_results_free). */
kiln_status_t kiln_results_get(const kiln_results_t* results, size_t index, kiln_tensor_t* out_tensor);
void kiln_results_free(kiln_results_t* results);

/* ---- User ops (custom calls) ----
 * A `stablehlo.custom_call @target` whose target Kiln does not know itself
 * compiles to a call of a host function registered under that target name,
 * for the whole process. Register it before creating a session of such a
 * module: creating one whose targets are not all registered fails with
 * KILN_STATUS_NOT_FOUND naming the first such target. The CPU device runs
 * user ops (the Vulkan device has no shader for them: functions that call
 * one are unavailable there). */

/* A result the function writes: `byte_size` bytes at `data`, laid out
 * row-major as `dims` of `element_type`. */
typedef struct kiln_mutable_tensor {
  int32_t element_type;
  int32_t rank;
  const int64_t* dims;
  void* data;
  size_t byte_size;
} kiln_mutable_tensor_t;

/* Computes `outputs` (their shapes and types fixed by the program) from
 * `inputs` (views valid during the call only); `backend_config` is the op's
 * string backend_config, or "". Returns 0 on success; otherwise writes a
 * message (at most `error_size` bytes with its terminating NUL) into
 * `error` and returns non-zero, which fails the call (KILN_STATUS_INTERNAL).
 * May run on any of Kiln's threads, and concurrently for concurrent calls. */
typedef int32_t (*kiln_custom_call_fn)(void* user_data, const kiln_tensor_t* inputs, size_t input_count,
                                       const kiln_mutable_tensor_t* outputs, size_t output_count,
                                       const char* backend_config, char* error, size_t error_size);

/* Registers `fn` with `user_data` under `target`, replacing an earlier
 * registration. Each call looks the target up: after a replacement calls run
 * the new function; after kiln_unregister_custom_call they fail with
 * KILN_STATUS_NOT_FOUND (and new sessions are refused), while a call
 * already running finishes. `release` (may be NULL) is called with
 * `user_data` once the registration is gone and no call runs it any more;
 * a registration still in place when the process exits is not released.
 * A registration that fails (an error status) never calls `release`:
 * `user_data` stays the caller's. Thread-safe. */
kiln_status_t kiln_register_custom_call(const char* target, kiln_custom_call_fn fn, void* user_data,
                                        kiln_release_fn release);
/* Removes the registration of `target` (KILN_STATUS_NOT_FOUND if there is
 * none). */
kiln_status_t kiln_unregister_custom_call(const char* target);

#ifdef __cplusplus
}
#endif

#endif /* KILN_VM_KILN_H_ */
