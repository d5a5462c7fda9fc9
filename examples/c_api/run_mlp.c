/* An app's view of Kiln through the C API (vm/kiln.h): loads a compiled
 * examples/mlp.mlir, opens it on a device, runs @main on one 784-pixel
 * input and prints the ten class probabilities and the best class.
 *
 *   run_mlp MODULE.kiln [DEVICE]       (DEVICE: cpu, the default)
 *
 * The input is examples/gen_mlp.py's deterministic test input for batch 1,
 * so the output can be compared with `gen_mlp.py --expect 1`. */
#include <stdio.h>
#include <stdlib.h>

#include "vm/kiln.h"

static int fail(const char* what, kiln_status_t status) {
  fprintf(stderr, "run_mlp: %s: %s\n", what, kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run_mlp MODULE.kiln [DEVICE]\n");
    return 2;
  }
  kiln_module_t* module = NULL;
  kiln_status_t status = kiln_module_load_file(argv[1], &module);
  if (status) return fail("loading the module", status);

  kiln_session_t* session = NULL;
  status = kiln_session_create(module, argc > 2 ? argv[2] : "cpu", &session);
  kiln_module_free(module); /* the session keeps what it needs */
  if (status) return fail("opening the module on the device", status);

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
