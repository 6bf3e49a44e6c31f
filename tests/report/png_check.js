// Reads a PNG (8-bit RGB or RGBA, non-interlaced: what Chromium's --screenshot writes) with
// Node's own zlib, and checks that a screenshot is not blank: enough distinct colours, enough
// pixels off the page background, and each colour asked for on the command line present in
// at least a few pixels (solid fills of the report's palette, so a chart really rendered).
// Usage: node png_check.js FILE.png [RRGGBB ...]   Exit 0 when every check holds.
'use strict';
const fs = require('fs');
const zlib = require('zlib');

function fail(message) {
  console.error(`png_check: ${message}`);
  process.exit(1);
}

function decode(path) {
  const bytes = fs.readFileSync(path);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(signature)) fail(`${path}: not a PNG`);
  let offset = 8;
  let header = null;
  const data = [];
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      header = {
        width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8],
        colour: body[9], interlace: body[12],
      };
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;  // length, type, body, CRC
  }
  if (!header) fail(`${path}: no IHDR`);
  const channels = {2: 3, 6: 4}[header.colour];
  if (header.depth !== 8 || !channels || header.interlace !== 0) {
    fail(`${path}: unsupported PNG (depth ${header.depth}, colour type ${header.colour})`);
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = header.width * channels;
  if (raw.length !== header.height * (stride + 1)) fail(`${path}: wrong image data size`);
  const pixels = Buffer.alloc(header.height * stride);
  // Undo the per-row filters (PNG spec, section 9).
  for (let y = 0; y < header.height; ++y) {
    const filter = raw[y * (stride + 1)];
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; ++x) {
      const left = x >= channels ? pixels[out + x - channels] : 0;
      const up = y > 0 ? pixels[out - stride + x] : 0;
      const upLeft = y > 0 && x >= channels ? pixels[out - stride + x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      } else if (filter !== 0) fail(`${path}: bad filter ${filter}`);
      pixels[out + x] = (row[x] + predictor) & 0xff;
    }
  }
  return {width: header.width, height: header.height, channels, pixels};
}

const [path, ...wanted] = process.argv.slice(2);
if (!path) fail('usage: node png_check.js FILE.png [RRGGBB ...]');
const image = decode(path);
const counts = new Map();
for (let i = 0; i < image.pixels.length; i += image.channels) {
  const rgb = (image.pixels[i] << 16) | (image.pixels[i + 1] << 8) | image.pixels[i + 2];
  counts.set(rgb, (counts.get(rgb) || 0) + 1);
}
const total = image.width * image.height;
let background = 0;
let backgroundCount = 0;
for (const [rgb, count] of counts) {
  if (count > backgroundCount) [background, backgroundCount] = [rgb, count];
}
const inked = 1 - backgroundCount / total;
const hex = (rgb) => rgb.toString(16).padStart(6, '0');
console.log(`${path}: ${image.width}x${image.height}, ${counts.size} colours, ` +
            `background #${hex(background)}, ${(inked * 100).toFixed(1)}% of pixels drawn`);
if (counts.size < 32) fail(`${path}: only ${counts.size} distinct colours: blank?`);
if (inked < 0.05) fail(`${path}: only ${(inked * 100).toFixed(2)}% of pixels off the background`);
for (const colour of wanted) {
  const count = counts.get(parseInt(colour, 16)) || 0;
  if (count < 50) fail(`${path}: colour #${colour} in ${count} pixels, expected a chart's fill`);
}
