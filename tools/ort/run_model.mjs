// Runs an ONNX model in stock ONNX Runtime (onnxruntime-node, CPU execution provider) on
// deterministic pseudo-random inputs and prints, for each output, its name, type, shape, the sum
// of its elements and a SHA-256 of its bytes, so two models (or two runs) can be compared for
// identical outputs. With --compare it runs a second model on the same inputs and reports the
// largest element-wise difference per output (for models that should agree only closely).
//
// Inputs, from the model's input metadata: input_ids are token ids in [0, vocab) (vocab is the
// last dim of the `logits` output, or --vocab); position_ids are 0..sequence-1 offset by the past
// length (the past_sequence dim, 0 without one); other float inputs (past_key_values.*) are
// uniform in [-0.5, 0.5); int8 inputs (quantized KV caches) uniform in [-64, 64); seqlens_k and
// total_sequence_length are past + sequence (minus 1 for seqlens_k); other integer inputs are
// uniform in [0, --int-max). Each input draws
// from its own stream keyed by (seed, input name), so adding an input never changes another.
// Cost: one model load and run; hashing is linear in output bytes. Limits: tensors of float32,
// float16, int8, int32, int64 and bool only (no bfloat16 inputs: onnxruntime-node cannot feed them);
// symbolic input dims must all be bound with --dim; one thread by default so sums reproduce.
//
// Usage: node tools/ort/run_model.mjs MODEL.onnx --dim batch=1 --dim sequence=8
//          [--dim past_sequence=16] [--seed 1] [--json] [--threads 1] [--vocab N]
//          [--int-max N] [--compare OTHER.onnx]
import { createHash } from 'node:crypto';
import process from 'node:process';

import ort from 'onnxruntime-node';

function usage(message) {
  if (message) console.error(`run_model: ${message}`);
  console.error(
      'usage: node tools/ort/run_model.mjs MODEL.onnx --dim name=N ... [--seed S] [--json] ' +
      '[--threads T] [--vocab V] [--int-max M] [--compare OTHER.onnx]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {dims: {}, seed: 1, json: false, threads: 1, vocab: 0, intMax: 100, model: '', compare: ''};
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--dim') {
      const [name, size] = value().split('=');
      if (!name || !/^\d+$/.test(size ?? '')) usage(`--dim expects name=N`);
      args.dims[name] = Number(size);
    } else if (flag === '--seed') {
      args.seed = Number(value());
    } else if (flag === '--json') {
      args.json = true;
    } else if (flag === '--threads') {
      args.threads = Number(value());
    } else if (flag === '--vocab') {
      args.vocab = Number(value());
    } else if (flag === '--int-max') {
      args.intMax = Number(value());
    } else if (flag === '--compare') {
      args.compare = value();
    } else if (flag === '--help' || flag === '-h') {
      usage();
    } else if (flag.startsWith('--')) {
      usage(`unknown flag ${flag}`);
    } else if (!args.model) {
      args.model = flag;
    } else {
      usage(`unexpected argument ${flag}`);
    }
  }
  if (!args.model) usage('no model given');
  return args;
}

// 32-bit FNV-1a of the key, mixed with the seed: the start of one input's stream.
function streamSeed(seed, key) {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return (hash ^ Math.imul(seed >>> 0, 0x9e3779b9)) >>> 0;
}

// Mulberry32: a small, fast, well-mixed 32-bit generator; deterministic across platforms.
function makeRandom(state) {
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

function floatToHalfBits(value) {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  let abs = bits & 0x7fffffff;
  if (abs > 0x7f800000) return sign | 0x7e00;
  if (abs >= 0x477ff000) return sign | 0x7c00;
  if (abs < 0x38800000) {
    const scaled = new Float32Array(new Uint32Array([abs]).buffer)[0] * 16777216;
    const floor = Math.floor(scaled);
    const diff = scaled - floor;
    const rounded = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
    return sign | rounded;
  }
  abs = (abs + 0xc8000fff + ((abs >>> 13) & 1)) >>> 0;
  return sign | (abs >>> 13);
}

function resolveShape(meta, dims) {
  return meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (typeof d === 'string' && d in dims) return dims[d];
    usage(`input ${meta.name} has dim ${JSON.stringify(d)}: bind it with --dim ${d}=N`);
  });
}

function vocabSize(session, args) {
  if (args.vocab > 0) return args.vocab;
  const logits = session.outputMetadata.find((m) => m.name === 'logits');
  const last = logits?.shape?.[logits.shape.length - 1];
  if (typeof last === 'number' && last > 0) return last;
  usage('cannot tell the vocabulary size: no logits output with a fixed last dim; pass --vocab');
}

function makeInputs(session, args) {
  const feeds = {};
  const described = [];
  const past = args.dims.past_sequence ?? 0;
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor) usage(`input ${meta.name} is not a tensor`);
    const shape = resolveShape(meta, args.dims);
    const count = shape.reduce((a, b) => a * b, 1);
    const random = makeRandom(streamSeed(args.seed, meta.name));
    let data;
    if (meta.name === 'position_ids') {
      const sequence = shape[shape.length - 1];
      data = BigInt64Array.from({length: count}, (_, i) => BigInt(past + (i % sequence)));
    } else if (meta.name === 'input_ids') {
      const vocab = vocabSize(session, args);
      data = BigInt64Array.from({length: count}, () => BigInt(Math.floor(random() * vocab)));
    } else if (meta.name === 'seqlens_k' || meta.name === 'total_sequence_length') {
      // GroupQueryAttention's lengths in the shared-buffer form: past + new (- 1 for seqlens_k).
      const sequence = args.dims.sequence ?? 1;
      const total = past + sequence - (meta.name === 'seqlens_k' ? 1 : 0);
      data = Int32Array.from({length: count}, () => total);
    } else if (meta.type === 'int8') {  // a quantized KV cache's codes
      data = Int8Array.from({length: count}, () => Math.floor(random() * 128) - 64);
    } else if (meta.type === 'float32') {
      data = Float32Array.from({length: count}, () => random() - 0.5);
    } else if (meta.type === 'float16') {
      data = Uint16Array.from({length: count}, () => floatToHalfBits(random() - 0.5));
    } else if (meta.type === 'int64') {
      data = BigInt64Array.from({length: count}, () => BigInt(Math.floor(random() * args.intMax)));
    } else if (meta.type === 'int32') {
      data = Int32Array.from({length: count}, () => Math.floor(random() * args.intMax));
    } else if (meta.type === 'bool') {
      data = Uint8Array.from({length: count}, () => (random() < 0.5 ? 1 : 0));
    } else {
      usage(`input ${meta.name} has type ${meta.type}, which this runner cannot feed`);
    }
    // Token and position ids are made as int64; ONNX Runtime's optimizer graphs take int32.
    if (meta.type === 'int32' && data instanceof BigInt64Array) data = Int32Array.from(data, Number);
    feeds[meta.name] = new ort.Tensor(meta.type, data, shape);
    described.push({name: meta.name, type: meta.type, shape});
  }
  return {feeds, described};
}

function summarize(name, tensor) {
  const data = tensor.data;
  let sum = 0;
  for (let i = 0; i < data.length; ++i) sum += Number(data[i]);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return {
    name,
    type: tensor.type,
    shape: Array.from(tensor.dims),
    sum: Number(sum.toPrecision(12)),
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
  };
}

async function run(path, feeds, args) {
  const session = await ort.InferenceSession.create(path, {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  return {session, results: await session.run(feeds)};
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const first = await ort.InferenceSession.create(args.model, {executionProviders: ['cpu']});
  const {feeds, described} = makeInputs(first, args);
  await first.release();

  const {session, results} = await run(args.model, feeds, args);
  const outputs = session.outputNames.map((name) => summarize(name, results[name]));
  const report = {model: args.model, ort: ort.env.versions?.node ?? 'unknown', seed: args.seed,
                  dims: args.dims, inputs: described, outputs};

  if (args.compare) {
    const other = await run(args.compare, feeds, args);
    report.compare = {model: args.compare, outputs: []};
    for (const name of session.outputNames) {
      const a = results[name];
      const b = other.results[name];
      if (!b) {
        report.compare.outputs.push({name, missing: true});
        continue;
      }
      let maxAbs = 0;
      let maxRef = 0;
      const same = a.dims.length === b.dims.length && a.dims.every((d, i) => d === b.dims[i]);
      if (same) {
        for (let i = 0; i < a.data.length; ++i) {
          maxAbs = Math.max(maxAbs, Math.abs(Number(a.data[i]) - Number(b.data[i])));
          maxRef = Math.max(maxRef, Math.abs(Number(a.data[i])));
        }
      }
      report.compare.outputs.push({name, same_shape: same, max_abs_diff: maxAbs, max_abs: maxRef,
                                   identical: same && summarize(name, b).sha256 === summarize(name, a).sha256});
    }
  }

  if (args.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(`model ${report.model} (onnxruntime-node ${report.ort}, seed ${report.seed})`);
  for (const i of described) console.log(`  input  ${i.name} ${i.type} [${i.shape.join(',')}]`);
  for (const o of outputs) {
    console.log(`  output ${o.name} ${o.type} [${o.shape.join(',')}] sum=${o.sum} sha256=${o.sha256}`);
  }
  if (report.compare) {
    console.log(`compared with ${report.compare.model}:`);
    for (const c of report.compare.outputs) {
      if (c.missing) {
        console.log(`  ${c.name}: missing in the other model`);
      } else {
        console.log(`  ${c.name}: ${c.identical ? 'identical' : `max |diff| ${c.max_abs_diff.toExponential(3)}` +
                    ` (max |value| ${c.max_abs.toExponential(3)})`}${c.same_shape ? '' : ', SHAPES DIFFER'}`);
      }
    }
  }
}

main().catch((error) => {
  console.error(`run_model: ${error?.message ?? error}`);
  process.exit(1);
});
