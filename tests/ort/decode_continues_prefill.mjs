// Decode continues prefill: for a generated decoder pair (prefill and decode forms of the same
// weights), the logits of the last of N tokens are the same whether the prefill model sees all
// N tokens at once, or sees N-1 and the decode model adds the last one on the caches it wrote.
// Independent of how the graph is written, this holds only when the KV cache layout, the causal
// (and sliding-window) masks, rotary positions and the attention math agree between the forms.
//
// Usage: node decode_continues_prefill.mjs PREFILL.onnx DECODE.onnx [--tokens N] [--batch B]
// Prints the largest absolute logit difference; exits 1 above 1e-4 (float32 models).
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../tools/ort/package.json'));
const ort = require('onnxruntime-node');

function parse(argv) {
  const args = {tokens: 9, batch: 2};
  const rest = [];
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--tokens') args.tokens = Number(argv[++i]);
    else if (argv[i] === '--batch') args.batch = Number(argv[++i]);
    else rest.push(argv[i]);
  }
  if (rest.length !== 2) throw new Error('usage: PREFILL.onnx DECODE.onnx [--tokens N]');
  [args.prefill, args.decode] = rest;
  return args;
}

// Deterministic token ids, different per row.
function tokenIds(batch, length, vocab) {
  return Array.from({length: batch}, (_, b) =>
      Array.from({length}, (_, t) => (7 + 131 * b + 17 * t * t) % vocab));
}

function idsTensor(rows, from, to) {
  const flat = rows.flatMap((row) => row.slice(from, to)).map(BigInt);
  return new ort.Tensor('int64', BigInt64Array.from(flat), [rows.length, to - from]);
}

function positions(batch, from, to) {
  const flat = [];
  for (let b = 0; b < batch; ++b) for (let t = from; t < to; ++t) flat.push(BigInt(t));
  return new ort.Tensor('int64', BigInt64Array.from(flat), [batch, to - from]);
}

// logits[b, position, :] of a [batch, sequence, vocab] tensor.
function logitsAt(tensor, b, position) {
  const [, sequence, vocab] = tensor.dims;
  const start = (b * sequence + position) * vocab;
  return tensor.data.subarray(start, start + vocab);
}

async function main() {
  const args = parse(process.argv.slice(2));
  const options = {executionProviders: ['cpu'], intraOpNumThreads: 1};
  const prefill = await ort.InferenceSession.create(args.prefill, options);
  const decode = await ort.InferenceSession.create(args.decode, options);
  const vocab = prefill.outputMetadata.find((m) => m.name === 'logits').shape.at(-1);
  const n = args.tokens;
  const rows = tokenIds(args.batch, n, vocab);

  const whole = await prefill.run({input_ids: idsTensor(rows, 0, n),
                                   position_ids: positions(args.batch, 0, n)});
  const head = await prefill.run({input_ids: idsTensor(rows, 0, n - 1),
                                  position_ids: positions(args.batch, 0, n - 1)});
  const feeds = {input_ids: idsTensor(rows, n - 1, n), position_ids: positions(args.batch, n - 1, n)};
  for (const name of decode.inputNames) {
    if (!name.startsWith('past_key_values.')) continue;
    const present = head['present.' + name.slice('past_key_values.'.length)];
    if (!present) throw new Error(`prefill has no output for ${name}`);
    feeds[name] = present;
  }
  const step = await decode.run(feeds);

  let worst = 0;
  for (let b = 0; b < args.batch; ++b) {
    // The last of n tokens: position n - 1, or 0 where the model emits the last one only.
    const expected = logitsAt(whole.logits, b, whole.logits.dims[1] - 1);
    const actual = logitsAt(step.logits, b, 0);
    for (let i = 0; i < vocab; ++i) worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
  }
  console.log(`${path.basename(args.decode)}: largest |logit difference| ${worst.toExponential(3)}`);
  if (!(worst <= 1e-4)) process.exit(1);
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(2);
});
