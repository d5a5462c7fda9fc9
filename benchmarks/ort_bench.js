// Times one ONNX model in ONNX Runtime (npm onnxruntime-node), for
// benchmarks/compare_models.py:
//   node ort_bench.js SPEC.json
// SPEC: {model, threads, warmup, iterations, output, inputs: [{name, type,
// dims, path}]}, each input's raw little-endian bytes in its file. Writes the
// first output's raw f32 bytes to SPEC.output and prints one JSON line:
// {"median_ms": ..., "min_ms": ...}. Each run is an awaited session.run, so
// the time includes the binding's per-call cost, as a Node user would see it.
const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const session = await ort.InferenceSession.create(spec.model, {
    intraOpNumThreads: spec.threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const inp of spec.inputs) {
    const b = fs.readFileSync(inp.path);
    const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    const data = inp.type === 'int64' ? new BigInt64Array(ab) : new Float32Array(ab);
    feeds[inp.name] = new ort.Tensor(inp.type, data, inp.dims);
  }
  let out = null;
  for (let i = 0; i < spec.warmup; i++) out = await session.run(feeds);
  const ts = [];
  for (let i = 0; i < spec.iterations; i++) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ts.sort((a, b) => a - b);
  const first = out[session.outputNames[0]].data;
  fs.writeFileSync(spec.output, Buffer.from(first.buffer, first.byteOffset, first.byteLength));
  console.log(JSON.stringify({median_ms: ts[Math.floor(ts.length / 2)], min_ms: ts[0]}));
}
main().catch((e) => { console.error(e); process.exit(1); });
