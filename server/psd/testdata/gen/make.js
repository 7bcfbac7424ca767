// Writes the PSD fixtures of server/psd's tests (run by `make psd-fixtures`).
// ag-psd writes the 8-bit RGB files, as an independent writer would; the
// 16-bit, greyscale and ZIP-with-prediction files, which ag-psd cannot
// write, come from the small writer at the end of this file.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const crypto = require('crypto');
const { writePsdBuffer } = require('ag-psd');

// expected records, per file, the SHA-256 of each layer's RGBA pixels
// (8 bits, not premultiplied, opaque where a layer has no alpha), of each
// user mask and of the merged image: what the reader must give back.
const expected = {};
const sha = (bytes) => crypto.createHash('sha256').update(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)).digest('hex');
function record(file, psd) {
  const e = { layers: {}, masks: {}, composite: sha(psd.imageData.data) };
  const walk = (ls, prefix) => {
    for (const l of ls) {
      const p = prefix + l.name;
      if (l.children) walk(l.children, p + '/');
      else e.layers[p] = sha(l.imageData.data);
      if (l.mask) e.masks[p] = sha(l.mask.imageData.data.filter((_, i) => i % 4 === 0));
    }
  };
  walk(psd.children, '');
  expected[file] = e;
}

const out = path.join(__dirname, '..');
const W = 300, H = 300;

// image makes RGBA pixels from fn(x, y) -> [r, g, b, a].
function image(w, h, fn) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const p = fn(x, y), i = (y * w + x) * 4;
    data[i] = p[0]; data[i + 1] = p[1]; data[i + 2] = p[2]; data[i + 3] = p[3];
  }
  return { width: w, height: h, data };
}

// png encodes an RGBA image (the smart object's embedded file).
function png(img) {
  const crcTable = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crcTable[n] = c >>> 0;
  }
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0); ihdr.writeUInt32BE(img.height, 4);
  ihdr[8] = 8; ihdr[9] = 6;
  const raw = Buffer.alloc((img.width * 4 + 1) * img.height);
  for (let y = 0; y < img.height; y++) {
    raw[y * (img.width * 4 + 1)] = 0;
    Buffer.from(img.data.buffer, y * img.width * 4, img.width * 4).copy(raw, y * (img.width * 4 + 1) + 1);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const background = image(W, H, (x, y) => [200 + (x >> 4), 180, 160 + (y >> 4), 255]);
const design = image(200, 200, (x, y) => ((x >> 5) + (y >> 5)) % 2 ? [220, 40, 40, 255] : [40, 40, 220, 255]);
const designID = '20953ddb-9391-11ec-b4f1-c15674f50bc4';
const px = (v) => ({ units: 'Pixels', value: v });

// flatQuad lists a quad's corners as Photoshop's transforms do.
const flat = (q) => q.flatMap((p) => p);
// The perspective quad of the template's smart object and its bounding box.
const quad = [[60, 50], [240, 70], [230, 250], [70, 230]];

function smartLayer(name, placed, rect, extra = {}) {
  return Object.assign({
    name,
    top: rect[1], left: rect[0], bottom: rect[3], right: rect[2],
    imageData: image(rect[2] - rect[0], rect[3] - rect[1], (x, y) => [x & 0xf0, y & 0xf0, 128, 255]),
    placedLayer: Object.assign({ id: designID, type: 'raster', width: 200, height: 200 }, placed),
  }, extra);
}

function template() {
  return {
    width: W, height: H,
    imageData: background,
    linkedFiles: [{ id: designID, name: 'design.png', data: png(design) }],
    children: [
      { name: 'Background', top: 0, left: 0, bottom: H, right: W, imageData: background },
      {
        name: 'Product', opened: true, blendMode: 'pass through',
        children: [
          smartLayer('Design', {
            transform: flat([[60, 50], [240, 50], [240, 250], [60, 250]]),
            nonAffineTransform: flat(quad),
          }, [60, 50, 240, 250]),
          {
            name: 'Shading', blendMode: 'multiply', clipping: true, opacity: 0.8, fillOpacity: 0.6,
            top: 40, left: 50, bottom: 260, right: 250,
            imageData: image(200, 220, (x, y) => [255 - (x >> 3), 255 - (x >> 3), 255 - (y >> 3), 255]),
          },
          {
            name: 'Hidden', hidden: true, top: 10, left: 10, bottom: 30, right: 40,
            imageData: image(30, 20, () => [0, 255, 0, 255]),
          },
        ],
      },
      {
        name: 'Colour', blendMode: 'color', opacity: 0.5,
        vectorFill: { type: 'color', color: { r: 10, g: 120, b: 200 } },
        top: 0, left: 0, bottom: H, right: W,
        imageData: image(W, H, () => [10, 120, 200, 255]),
        mask: {
          top: 20, left: 30, bottom: 120, right: 280, defaultColor: 0,
          imageData: image(250, 100, (x) => [x, x, x, 255]),
        },
      },
      {
        name: 'Caption', top: 260, left: 20, bottom: 290, right: 120,
        text: { text: 'Hello kino', transform: [1, 0, 0, 1, 20, 280], style: { fontSize: 24 } },
        imageData: image(100, 30, (x, y) => [0, 0, 0, (x + y) % 3 ? 0 : 255]),
      },
      {
        name: 'Étiquette ✓', blendMode: 'screen', top: 5, left: 200, bottom: 25, right: 290,
        imageData: image(90, 20, (x, y) => [x * 2, y * 10, 90, 200]),
      },
    ],
  };
}

function warped(style, warp) {
  return {
    width: W, height: H,
    imageData: background,
    linkedFiles: [{ id: designID, name: 'design.png', data: png(design) }],
    children: [
      { name: 'Background', top: 0, left: 0, bottom: H, right: W, imageData: background },
      smartLayer('Design', {
        transform: flat([[50, 50], [250, 50], [250, 250], [50, 250]]),
        warp: Object.assign({ style, bounds: { top: px(0), left: px(0), bottom: px(200), right: px(200) } }, warp),
      }, [40, 40, 260, 260]),
    ],
  };
}

// grid lists the control points of a rows x cols patch mesh over a 200
// pixel square, bent by bend(x, y) -> [dx, dy].
function grid(rows, cols, bend) {
  const pts = [];
  for (let j = 0; j <= 3 * rows; j++) for (let i = 0; i <= 3 * cols; i++) {
    const x = 200 * i / (3 * cols), y = 200 * j / (3 * rows), d = bend(x, y);
    pts.push({ x: x + d[0], y: y + d[1] });
  }
  return pts;
}

const bulge = (x, y) => [0, 20 * Math.sin(Math.PI * x / 200)];

const files = {
  'template.psd': [template(), {}],
  'template-zip.psd': [template(), { compress: true }],
  'template.psb': [template(), { psb: true }],
  'warp-custom.psd': [warped('custom', { customEnvelopeWarp: { meshPoints: grid(1, 1, bulge) } }), {}],
  'warp-quilt.psd': [warped('custom', {
    deformNumRows: 7, deformNumCols: 7, // control points a way: 3 * 2 patches + 1, as Photoshop counts
    customEnvelopeWarp: { quiltSliceX: [0, 100, 200], quiltSliceY: [0, 100, 200], meshPoints: grid(2, 2, bulge) },
  }), {}],
};
for (const [name, [psd, opts]] of Object.entries(files)) {
  fs.writeFileSync(path.join(out, name), writePsdBuffer(psd, Object.assign({ generateThumbnail: false }, opts)));
  record(name, psd);
}

// --- A small writer of what ag-psd cannot write: 16 bits, greyscale,
// ZIP with prediction. One layer over a background, raw merged image.
function be(n, bytes) {
  const b = Buffer.alloc(bytes);
  if (bytes === 2) b.writeUInt16BE(n & 0xffff); else b.writeUInt32BE(n >>> 0);
  return b;
}
function pascal4(s) {
  const b = Buffer.from(s, 'latin1');
  let n = 1 + b.length; while (n % 4) n++;
  const out = Buffer.alloc(n); out[0] = b.length; b.copy(out, 1); return out;
}

// sample gives channel c of pixel (x, y) of layer l at 16 bits.
function writeSmall(name, { depth, grey, compression }) {
  const bpc = depth / 8;
  const colour = grey ? [0] : [0, 1, 2];
  const layers = [
    { name: 'Background', rect: [0, 0, 64, 48], f: (c, x, y) => ((x * 1000 + y * 300 + c * 7000) % 65536) },
    { name: 'Top', rect: [10, 8, 42, 40], alpha: true, f: (c, x, y) => c < 0 ? (x * 2000) % 65536 : (65535 - x * y * 50 - c * 3000) & 0xffff },
  ];
  const plane = (l, c) => {
    const [L, T, R, B] = l.rect, w = R - L, h = B - T;
    const raw = Buffer.alloc(w * h * bpc);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const v = l.f(c, x, y);
      if (bpc === 2) raw.writeUInt16BE(v, (y * w + x) * 2); else raw[y * w + x] = v >> 8;
    }
    if (compression === 0) return raw;
    // ZIP with prediction: each row as differences, 16-bit ones at 16 bits.
    const pred = Buffer.from(raw);
    for (let y = 0; y < h; y++) for (let x = w - 1; x > 0; x--) {
      const i = (y * w + x) * bpc;
      if (bpc === 2) pred.writeUInt16BE((raw.readUInt16BE(i) - raw.readUInt16BE(i - 2)) & 0xffff, i);
      else pred[i] = (raw[i] - raw[i - 1]) & 0xff;
    }
    return zlib.deflateSync(pred);
  };
  const records = [], data = [];
  for (const l of layers) {
    const ids = (l.alpha ? [-1] : []).concat(colour);
    const chans = ids.map((id) => Buffer.concat([be(compression, 2), plane(l, id)]));
    const extra = Buffer.concat([be(0, 4), be(0, 4), pascal4(l.name)]);
    records.push(Buffer.concat([
      be(l.rect[1], 4), be(l.rect[0], 4), be(l.rect[3], 4), be(l.rect[2], 4), be(ids.length, 2),
      ...ids.map((id, i) => Buffer.concat([be(id, 2), be(chans[i].length, 4)])),
      Buffer.from('8BIMnorm'), Buffer.from([255, 0, 0, 0]), be(extra.length, 4), extra]));
    data.push(...chans);
  }
  let info = Buffer.concat([be(layers.length, 2), ...records, ...data]);
  if (info.length % 2) info = Buffer.concat([info, Buffer.alloc(1)]);
  let layerInfo = Buffer.concat([be(info.length, 4), info]);
  let tail = Buffer.alloc(0);
  if (depth === 16) {
    // As Photoshop does: the layers go in an Lr16 block, the layer info
    // proper stays empty.
    tail = Buffer.concat([Buffer.from('8BIMLr16'), be(info.length, 4), info]);
    layerInfo = be(0, 4);
  }
  const lm = Buffer.concat([layerInfo, be(0, 4), tail]);
  const merged = [be(0, 2)];
  for (const c of colour) merged.push(planeRaw(c));
  function planeRaw(c) {
    const raw = Buffer.alloc(64 * 48 * bpc);
    for (let y = 0; y < 48; y++) for (let x = 0; x < 64; x++) {
      let v = layers[0].f(c, x, y);
      const t = layers[1];
      if (x >= t.rect[0] && x < t.rect[2] && y >= t.rect[1] && y < t.rect[3]) {
        const a = t.f(-1, x - t.rect[0], y - t.rect[1]) / 65535;
        v = Math.round(v * (1 - a) + t.f(c, x - t.rect[0], y - t.rect[1]) * a);
      }
      if (bpc === 2) raw.writeUInt16BE(v, (y * 64 + x) * 2); else raw[y * 64 + x] = v >> 8;
    }
    return raw;
  }
  const file = Buffer.concat([
    Buffer.from('8BPS'), be(1, 2), Buffer.alloc(6), be(colour.length, 2), be(48, 4), be(64, 4),
    be(depth, 2), be(grey ? 1 : 3, 2), be(0, 4), be(0, 4), be(lm.length, 4), lm, ...merged]);
  fs.writeFileSync(path.join(out, name), file);

  const to8 = (v) => bpc === 2 ? Math.floor((v * 255 + 32767) / 65535) : v >> 8;
  const rgba = (w, h, get, alpha) => {
    const b = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      for (let c = 0; c < 3; c++) b[i + c] = to8(get(grey ? 0 : c, x, y));
      b[i + 3] = alpha ? to8(alpha(x, y)) : 255;
    }
    return b;
  };
  const e = { layers: {}, masks: {} };
  for (const l of layers) {
    const [L, T, R, B] = l.rect;
    e.layers[l.name] = sha(rgba(R - L, B - T, l.f, l.alpha && ((x, y) => l.f(-1, x, y))));
  }
  const m = colour.map((c) => planeRaw(c));
  e.composite = sha(rgba(64, 48, (c, x, y) => bpc === 2 ? m[grey ? 0 : c].readUInt16BE((y * 64 + x) * 2) : m[grey ? 0 : c][y * 64 + x] << 8));
  expected[name] = e;
}

writeSmall('rgb16-zip-predict.psd', { depth: 16, grey: false, compression: 3 });
writeSmall('grey8-zip-predict.psd', { depth: 8, grey: true, compression: 3 });
writeSmall('grey16-raw.psd', { depth: 16, grey: true, compression: 0 });

fs.writeFileSync(path.join(out, 'expected.json'), JSON.stringify(expected, null, 1) + '\n');
