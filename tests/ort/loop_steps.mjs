// A loop form keeps computing what it computed once hyperplan rewrote it: ORIGINAL and REWRITTEN
// (hyperplan plan --emit-onnx) each run --steps decode steps in stock ONNX Runtime (CPU), every
// step feeding that model's own present outputs back as its next step's past inputs, and every
// output of every step must be bit-identical between the two. Pairs follow the exporters' names
// (present.N.* -> past_key_values.N.*, present* -> past*); past inputs with no present are the
// read-only cross-attention caches (their names say encoder or cross) and are fed unchanged.
// --pairs (the plan's loop_state) must name exactly the pairs found here, so the loop ONNX
// Runtime runs is the loop hyperplan planned.
// Inputs, as tools/ort/run_model.mjs makes them: input_ids uniform in [0, vocab) (a new draw each
// step), position_ids the past length (--dim past_sequence, 0 without) plus the step, float
// inputs uniform in [-0.5, 0.5), each from its own stream keyed by (seed, name, step).
//
// Usage: node tests/ort/loop_steps.mjs ORIGINAL.onnx REWRITTEN.onnx --dim name=N ...
//          [--steps 3] [--seed 1] [--pairs out=in,out=in,...]
// Prints one line per step; exits 1 when an output differs, 2 on bad usage or an unpaired state.
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tools/ort/package.json'));
const ort = require('onnxruntime-node');

function fail(message, code = 2) {
  console.error(`loop_steps: ${message}`);
  process.exit(code);
}

function parse(argv) {
  const args = {dims: {}, steps: 3, seed: 1, pairs: null, models: []};
  for (let i = 0; i < argv.length; ++i) {
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${argv[i]} needs a value`));
    if (argv[i] === '--dim') {
      const [name, size] = value().split('=');
      if (!name || !/^\d+$/.test(size ?? '')) fail('--dim expects name=N');
      args.dims[name] = Number(size);
    } else if (argv[i] === '--steps') {
      args.steps = Number(value());
    } else if (argv[i] === '--seed') {
      args.seed = Number(value());
    } else if (argv[i] === '--pairs') {
      args.pairs = value().split(',').filter((p) => p).sort();
    } else {
      args.models.push(argv[i]);
    }
  }
  if (args.models.length !== 2 || !(args.steps >= 2)) {
    fail('usage: ORIGINAL.onnx REWRITTEN.onnx --dim name=N ... [--steps N>=2] [--pairs ...]');
  }
  return args;
}

// 32-bit FNV-1a of the key mixed with the seed, then Mulberry32 (as run_model.mjs draws).
function makeRandom(seed, key) {
  let state = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) state = Math.imul(state ^ byte, 0x01000193) >>> 0;
  state = (state ^ Math.imul(seed >>> 0, 0x9e3779b9)) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

// The past input an output feeds, by the exporters' names, or '' when the model has none.
function pastFor(output, inputNames) {
  if (!output.startsWith('present')) return '';
  const past = output.startsWith('present.') ? 'past_key_values.' + output.slice(8)
                                             : 'past' + output.slice(7);
  return inputNames.includes(past) ? past : '';
}

// {output: input} for the loop state; fails on a present with no past or an unfed past.
function findPairs(session, expected) {
  const pairs = {};
  for (const output of session.outputNames) {
    if (!output.startsWith('present')) continue;
    const past = pastFor(output, session.inputNames);
    if (!past) fail(`output ${output} has no past input to feed`);
    pairs[output] = past;
  }
  const fed = new Set(Object.values(pairs));
  for (const input of session.inputNames) {
    if (input.startsWith('past') && !fed.has(input) && !/encoder|cross/.test(input)) {
      fail(`input ${input} is loop state no output feeds`);
    }
  }
  const found = Object.entries(pairs).map(([o, i]) => `${o}=${i}`).sort();
  if (found.length === 0) fail('no loop state: nothing to carry between steps');
  if (expected && found.join(',') !== expected.join(',')) {
    fail(`the plan pairs ${expected.join(',')} but the names pair ${found.join(',')}`);
  }
  return pairs;
}

function shapeOf(meta, dims) {
  return meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (typeof d === 'string' && d in dims) return dims[d];
    return fail(`input ${meta.name} has dim ${JSON.stringify(d)}: bind it with --dim`);
  });
}

function tensorFor(meta, shape, args, step, vocab) {
  const count = shape.reduce((a, b) => a * b, 1);
  const random = makeRandom(args.seed, `${meta.name}#${step}`);
  let values;
  if (meta.name === 'position_ids') {
    const position = (args.dims.past_sequence ?? 0) + step;
    values = Array.from({length: count}, (_, i) => position + (i % shape.at(-1)));
  } else if (meta.name === 'input_ids') {
    values = Array.from({length: count}, () => Math.floor(random() * vocab));
  } else if (meta.type === 'float32') {
    return new ort.Tensor('float32', Float32Array.from({length: count}, () => random() - 0.5), shape);
  } else {
    return fail(`input ${meta.name} has type ${meta.type}, which this runner cannot feed`);
  }
  if (meta.type === 'int32') return new ort.Tensor('int32', Int32Array.from(values), shape);
  return new ort.Tensor('int64', BigInt64Array.from(values, BigInt), shape);
}

function sameBytes(a, b) {
  if (a.type !== b.type || a.dims.join(',') !== b.dims.join(',')) return false;
  const bytes = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return bytes(a).equals(bytes(b));
}

async function main() {
  const args = parse(process.argv.slice(2));
  const options = {executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
                   executionMode: 'sequential'};
  const original = await ort.InferenceSession.create(args.models[0], options);
  const rewritten = await ort.InferenceSession.create(args.models[1], options);
  const pairs = findPairs(original, args.pairs);
  const vocab = original.outputMetadata.find((m) => m.name === 'logits').shape.at(-1);
  const fixed = {};  // step 0's inputs; the read-only ones stay for every step
  for (const meta of original.inputMetadata) {
    fixed[meta.name] = tensorFor(meta, shapeOf(meta, args.dims), args, 0, vocab);
  }
  let feeds = [{...fixed}, {...fixed}];
  let differ = 0;
  for (let step = 0; step < args.steps; ++step) {
    const results = [await original.run(feeds[0]), await rewritten.run(feeds[1])];
    const bad = original.outputNames.filter((name) => !sameBytes(results[0][name], results[1][name]));
    const state = Object.keys(pairs).map((o) => `${o} [${results[0][o].dims.join(",")}]`).join(", ");
    console.log(`step ${step}: ${bad.length === 0 ? `${original.outputNames.length} outputs identical`
                                                  : `DIFFER ${bad.join(', ')}`}; ${state}`);
    differ += bad.length;
    // The next step: new token ids and positions, each model's own presents as its pasts.
    feeds = results.map((r) => {
      const next = {...fixed};
      for (const meta of original.inputMetadata) {
        if (meta.name === 'input_ids' || meta.name === 'position_ids') {
          next[meta.name] = tensorFor(meta, shapeOf(meta, args.dims), args, step + 1, vocab);
        }
      }
      for (const [output, input] of Object.entries(pairs)) next[input] = r[output];
      return next;
    });
  }
  if (differ > 0) process.exit(1);
}

main().catch((error) => fail(error?.message ?? String(error)));
