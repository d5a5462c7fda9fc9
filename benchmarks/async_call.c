/* The cost of an asynchronous call (vm/kiln.h, version 3) beside a
 * synchronous one, in one run on one session: kiln_session_call +
 * kiln_results_free against kiln_session_call_async + kiln_fence_wait +
 * kiln_fence_free + kiln_results_free, alternating in rounds so load on the
 * machine falls on both alike. The difference is the hand-off to the
 * session's call thread and back. Prints the median per call of each.
 *   async_call MODULE.kiln FUNCTION N_ELEMENTS [ROUNDS [CALLS]]
 * FUNCTION takes N_ELEMENTS f32 twice (benchmarks/async_call.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm/kiln.h"

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int Check(kiln_status_t s) {
  if (!s) return 0;
  fprintf(stderr, "async_call: %s\n", kiln_status_message(s));
  kiln_status_free(s);
  return 1;
}

static int Cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: async_call MODULE.kiln FUNCTION N_ELEMENTS [ROUNDS [CALLS]]\n");
    return 2;
  }
  const char* function = argv[2];
  const int64_t n = atoll(argv[3]);
  const int rounds = argc > 4 ? atoi(argv[4]) : 21, calls = argc > 5 ? atoi(argv[5]) : 2000;
  kiln_module_t* module = NULL;
  kiln_session_t* session = NULL;
  if (Check(kiln_module_load_file(argv[1], &module)) || Check(kiln_session_create(module, "cpu", &session))) return 1;
  float* x = calloc((size_t)n, sizeof(float));
  for (int64_t i = 0; i < n; ++i) x[i] = (float)(i % 17) * 0.5f;
  kiln_tensor_t in[2] = {{KILN_TYPE_F32, 1, &n, x, (size_t)n * sizeof(float)},
                         {KILN_TYPE_F32, 1, &n, x, (size_t)n * sizeof(float)}};
  double* sync_us = calloc((size_t)rounds, sizeof(double));
  double* async_us = calloc((size_t)rounds, sizeof(double));
  for (int r = -1; r < rounds; ++r) { /* round -1 warms up */
    double t0 = Now();
    for (int i = 0; i < calls; ++i) {
      kiln_results_t* results = NULL;
      if (Check(kiln_session_call(session, function, in, 2, &results))) return 1;
      kiln_results_free(results);
    }
    double t1 = Now();
    for (int i = 0; i < calls; ++i) {
      kiln_fence_t* fence = NULL;
      kiln_results_t* results = NULL;
      if (Check(kiln_session_call_async(session, function, in, 2, NULL, &fence)) ||
          Check(kiln_fence_wait(fence, KILN_WAIT_FOREVER, &results)))
        return 1;
      kiln_fence_free(fence);
      kiln_results_free(results);
    }
    double t2 = Now();
    if (r >= 0) {
      sync_us[r] = (t1 - t0) * 1e6 / calls;
      async_us[r] = (t2 - t1) * 1e6 / calls;
    }
  }
  qsort(sync_us, (size_t)rounds, sizeof(double), Cmp);
  qsort(async_us, (size_t)rounds, sizeof(double), Cmp);
  const double s = sync_us[rounds / 2], a = async_us[rounds / 2];
  printf("%s, %lld f32: sync %.2f us/call, async %.2f us/call (medians of %d rounds of %d calls); async - sync %.2f us, "
         "async / sync %.2fx\n",
         function, (long long)n, s, a, rounds, calls, a - s, a / s);
  free(sync_us);
  free(async_us);
  free(x);
  kiln_session_free(session);
  kiln_module_free(module);
  return 0;
}
