/* An app's view of Kiln through the C API (vm/kiln.h): loads a compiled
 * examples/mlp.mlir, opens it on a device, checks @main's signature, runs it
 * on one 784-pixel input and prints the ten class probabilities and the
 * best class.
 *
 *   run_mlp MODULE.kiln [DEVICE [CPU_THREADS]]   (DEVICE: cpu, the default;
 *                                                 CPU_THREADS: 0, the default)
 *   run_mlp --version
 *
 * The input is examples/gen_mlp.py's deterministic test input for batch 1,
 * so the output can be compared with `gen_mlp.py --expect 1`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/kiln.h"

static int fail(const char* what, kiln_status_t status) {
  fprintf(stderr, "run_mlp: %s: %s (status %d)\n", what, kiln_status_message(status), (int)kiln_status_code(status));
  kiln_status_free(status);
  return 1;
}

/* @main must take one f32 tensor of 1x784 (a size of -1 is dynamic) and
 * return one result. */
static int check_signature(const kiln_module_t* module) {
  size_t index, args, results;
  kiln_value_type_t arg;
  kiln_status_t status = kiln_module_find_function(module, "main", &index);
  if (!status) status = kiln_module_function_arity(module, index, &args, &results);
  if (status) return fail("reading @main's signature", status);
  if (args != 1 || results != 1) {
    fprintf(stderr, "run_mlp: @main takes %zu arguments and returns %zu results, not 1 and 1\n", args, results);
    return 1;
  }
  status = kiln_module_function_arg(module, index, 0, &arg);
  if (status) return fail("reading @main's argument", status);
  if (arg.kind != KILN_VALUE_TENSOR || arg.element_type != KILN_TYPE_F32 || arg.rank != 2 ||
      (arg.dims[0] != 1 && arg.dims[0] != -1) || (arg.dims[1] != 784 && arg.dims[1] != -1)) {
    fprintf(stderr, "run_mlp: @main's argument is not a 1x784 f32 tensor\n");
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("%s\n", kiln_version()->text);
    return 0;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: run_mlp MODULE.kiln [DEVICE [CPU_THREADS]]\n");
    return 2;
  }
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.device = argc > 2 ? argv[2] : "cpu";
  if (argc > 3) {
    char* end;
    long threads = strtol(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || threads < 0 || threads > 1024) {
      fprintf(stderr, "run_mlp: CPU_THREADS must be a number from 0 to 1024, not '%s'\n", argv[3]);
      return 2;
    }
    options.cpu_threads = (int32_t)threads; /* the runtime checks it against the device */
  }

  kiln_module_t* module = NULL;
  kiln_status_t status = kiln_module_load_file(argv[1], &module);
  if (status) return fail("loading the module", status);

  kiln_session_t* session = NULL;
  status = kiln_session_create_with_options(module, &options, &session);
  if (status) {
    kiln_module_free(module);
    return fail("opening the module on the device", status);
  }
  int bad_signature = check_signature(module);
  kiln_module_free(module); /* the session keeps what it needs */
  if (bad_signature) {
    kiln_session_free(session);
    return 1;
  }

  static float pixels[784];
  for (int i = 0; i < 784; ++i) pixels[i] = (float)((i * 37) % 101) / 100.0f;
  const int64_t dims[2] = {1, 784};
  kiln_tensor_t input = {KILN_TYPE_F32, 2, dims, pixels, sizeof pixels};

  kiln_results_t* results = NULL;
  status = kiln_session_call(session, "main", &input, 1, &results);
  if (status) {
    kiln_session_free(session);
    return fail("calling main", status);
  }
  kiln_tensor_t probs;
  status = kiln_results_get(results, 0, &probs);
  if (status || probs.element_type != KILN_TYPE_F32 || probs.byte_size != 10 * sizeof(float)) {
    kiln_results_free(results);
    kiln_session_free(session);
    return status ? fail("reading the result", status) : (fprintf(stderr, "run_mlp: unexpected result\n"), 1);
  }
  const float* p = (const float*)probs.data;
  int best = 0;
  for (int k = 0; k < 10; ++k) {
    printf("%.9g\n", p[k]);
    if (p[k] > p[best]) best = k;
  }
  printf("class %d\n", best);
  kiln_results_free(results);
  kiln_session_free(session);
  return 0;
}
