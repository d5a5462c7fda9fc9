// AddNumericKernels: collects the numeric family's kernels from its files.
#include <vector>

#include "kernels/reference/registry.h"

namespace kiln::ref {

void AddContractionKernels(std::vector<KernelEntry>& out);    // contraction.cc
void AddReductionKernels(std::vector<KernelEntry>& out);      // reduction.cc
void AddLinalgKernels(std::vector<KernelEntry>& out);         // linalg.cc
void AddFftKernels(std::vector<KernelEntry>& out);            // fft.cc
void AddNormalizationKernels(std::vector<KernelEntry>& out);  // normalization.cc
void AddRandomKernels(std::vector<KernelEntry>& out);         // random.cc
void AddQuantizationKernels(std::vector<KernelEntry>& out);   // quantization.cc
void AddChloNumericKernels(std::vector<KernelEntry>& out);    // chlo_numeric.cc
void AddScanKernels(std::vector<KernelEntry>& out);           // scan.cc

void AddNumericKernels(std::vector<KernelEntry>& out) {
  AddContractionKernels(out);
  AddReductionKernels(out);
  AddLinalgKernels(out);
  AddFftKernels(out);
  AddNormalizationKernels(out);
  AddRandomKernels(out);
  AddQuantizationKernels(out);
  AddChloNumericKernels(out);
  AddScanKernels(out);
}

}  // namespace kiln::ref
