// Writes the graph ONNX Runtime actually runs (npm onnxruntime-node, all
// graph optimizations, as benchmarks/ort_bench.js opens it):
//   node ort_optimize.js MODEL.onnx OPTIMIZED.onnx
// benchmarks/count_kernels.py counts its nodes beside Kiln's dispatches.
const ort = require('onnxruntime-node');

async function main() {
  await ort.InferenceSession.create(process.argv[2], {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', optimizedModelFilePath: process.argv[3],
  });
}
main().catch((e) => { console.error(e); process.exit(1); });
