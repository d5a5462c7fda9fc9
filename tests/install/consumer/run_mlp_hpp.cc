// examples/c_api/run_mlp.c through vm/kiln.hpp, the C++17 layer over the C
// API, built against the installed header and libkiln.so: the same input
// and the same output lines, so check_install.sh compares the two.
#include <cstdio>
#include <vector>

#include "vm/kiln.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_mlp_hpp MODULE.kiln\n");
    return 2;
  }
  try {
    kiln_cpp::Module module = kiln_cpp::Module::LoadFile(argv[1]);
    kiln_cpp::Session session(module, "cpu");
    std::vector<float> pixels(784);
    for (int i = 0; i < 784; ++i) pixels[i] = static_cast<float>((i * 37) % 101) / 100.0f;
    const std::vector<int64_t> dims = {1, 784};
    kiln_cpp::Results results = session.Call("main", {kiln_cpp::TensorView(pixels.data(), dims)});
    const float* p = results[0].data<float>();
    int best = 0;
    for (int k = 0; k < 10; ++k) {
      std::printf("%.9g\n", p[k]);
      if (p[k] > p[best]) best = k;
    }
    std::printf("class %d\n", best);
  } catch (const kiln_cpp::Error& e) {
    std::fprintf(stderr, "run_mlp_hpp: %s (status %d)\n", e.what(), static_cast<int>(e.code()));
    return 1;
  }
  return 0;
}
