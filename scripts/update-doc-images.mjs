#!/usr/bin/env node
// Copies the web app's screenshots that docs/web.md shows from .test-artifacts/screenshots/ (made
// by the browser tests) into docs/images/, reduced to a small palette so the repository stays
// light. Run it by hand after the browser tests:
//
//   pnpm exec vitest run packages/server/src/web
//   node scripts/update-doc-images.mjs
//
// docs/web.md decides what is copied: each `images/web-<name>.png` it links comes from
// `<name>.png`. A screenshot that is missing fails the run, naming it, and nothing is written.
// Only Node's own zlib is used: the script reads the PNGs chromium writes (8-bit RGB or RGBA,
// not interlaced) and writes 8-bit indexed PNGs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, inflateSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const screenshots = join(root, '.test-artifacts/screenshots');
const images = join(root, 'docs/images');
/** Colours per image: enough for anti-aliased text on the app's flat colours. */
const PALETTE_SIZE = 64;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function fail(message) {
  process.stderr.write(`update-doc-images: ${message}\n`);
  process.exit(1);
}

/** The RGB pixels of a PNG chromium wrote. */
function decode(file) {
  const data = readFileSync(file);
  if (!data.subarray(0, 8).equals(SIGNATURE)) fail(`${file} is not a PNG`);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  for (let at = 8; at < data.length; ) {
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    const body = data.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = colour === 2 ? 3 : colour === 6 ? 4 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0)
        fail(`${file}: only 8-bit RGB or RGBA PNGs without interlacing are read`);
    } else if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rgb = Buffer.alloc(width * height * 3);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x += 1) {
      const left = x >= channels ? line[x - channels] : 0;
      const up = previous[x];
      const corner = x >= channels ? previous[x - channels] : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - corner;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - corner)];
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
      }
      line[x] = (line[x] + predicted) & 0xff;
    }
    for (let x = 0; x < width; x += 1)
      line.copy(rgb, (y * width + x) * 3, x * channels, x * channels + 3);
    previous = line;
  }
  return { width, height, rgb };
}

/**
 * A palette of the most common colours (counted in 5-bit-per-channel buckets, each bucket's
 * average), and every pixel as the index of its nearest palette colour.
 */
function quantize({ width, height, rgb }) {
  const buckets = new Map();
  for (let i = 0; i < rgb.length; i += 3) {
    const key = ((rgb[i] >> 3) << 10) | ((rgb[i + 1] >> 3) << 5) | (rgb[i + 2] >> 3);
    const bucket = buckets.get(key) ?? { count: 0, r: 0, g: 0, b: 0 };
    bucket.count += 1;
    bucket.r += rgb[i];
    bucket.g += rgb[i + 1];
    bucket.b += rgb[i + 2];
    buckets.set(key, bucket);
  }
  const palette = [...buckets.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, PALETTE_SIZE)
    .map(({ count, r, g, b }) => [r / count, g / count, b / count].map(Math.round));
  const nearest = new Map();
  const indices = Buffer.alloc(width * height);
  for (let i = 0, p = 0; i < rgb.length; i += 3, p += 1) {
    const key = (rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2];
    let index = nearest.get(key);
    if (index === undefined) {
      let best = Number.POSITIVE_INFINITY;
      for (let c = 0; c < palette.length; c += 1) {
        const [r, g, b] = palette[c];
        const distance = (r - rgb[i]) ** 2 + (g - rgb[i + 1]) ** 2 + (b - rgb[i + 2]) ** 2;
        if (distance < best) [best, index] = [distance, c];
      }
      nearest.set(key, index);
    }
    indices[p] = index;
  }
  return { width, height, palette, indices };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function chunk(type, body) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  let crc = 0xffffffff;
  for (const byte of Buffer.concat([head.subarray(4), body]))
    crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE((crc ^ 0xffffffff) >>> 0, 0);
  return Buffer.concat([head, body, tail]);
}

/** An 8-bit indexed PNG. */
function encode({ width, height, palette, indices }) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 3, 0, 0, 0], 8);
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y += 1)
    indices.copy(rows, y * (width + 1) + 1, y * width, (y + 1) * width);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('PLTE', Buffer.from(palette.flat())),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const doc = readFileSync(join(root, 'docs/web.md'), 'utf8');
const names = [...new Set([...doc.matchAll(/images\/web-([a-z0-9-]+)\.png/g)].map((m) => m[1]))];
if (names.length === 0) fail('docs/web.md links no images/web-*.png');
const sources = names.map((name) => ({ name, file: join(screenshots, `${name}.png`) }));
const missing = sources.filter(({ file }) => !existsSync(file));
if (missing.length > 0) {
  fail(
    `no screenshot for ${missing.map(({ name }) => `${name}.png`).join(', ')} in ${screenshots}; run the browser tests first (pnpm exec vitest run packages/server/src/web)`,
  );
}
for (const { name, file } of sources) {
  const png = encode(quantize(decode(file)));
  writeFileSync(join(images, `web-${name}.png`), png);
  process.stdout.write(`docs/images/web-${name}.png  ${Math.round(png.length / 1024)} KB\n`);
}
