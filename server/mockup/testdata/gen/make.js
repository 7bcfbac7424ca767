// Writes the PSD templates of server/mockup's tests and benchmark with
// ag-psd, an independent writer (run by `make mockup-fixtures`):
//   mockup.psd  600x600: a background, a solid-colour fill "Shirt" under a
//               mask, a smart object "Design" in a perspective quad with a
//               multiply "Shading" clipped to it, a second smart object
//               "Back", a layer "Other" to hide and a text layer.
//   adjusted.psd an adjustment clipped to a smart object, a layer effect.
//   bench.psd   3000x3000: a background, one smart object in a perspective
//               quad (content 2000x2000) and a multiply shading clipped to it.
//   bench-fx.psd 3000x3000: bench.psd's smart object with a drop shadow, a
//               Gaussian blur smart filter (radius 3 px) and a curves
//               adjustment clipped to it: the speed target.
//   filtered.psd 200x200: a smart object with a Gaussian blur smart filter
//               at half opacity and a motion blur (not drawn): a fuzz seed.
//   screen.psd  1280x720: a desk, a smart object "Screen" (content 1280x720)
//               in a perspective quad with a multiply shading and a hidden
//               overlay glare clipped to it, under a bezel: the template of
//               the mockup layer's tests and benchmark.
'use strict';
const fs = require('fs');
const path = require('path');
const { writePsdBuffer } = require('ag-psd');

const out = path.join(__dirname, '..');

function image(w, h, fn) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const p = fn(x, y), i = (y * w + x) * 4;
    data[i] = p[0]; data[i + 1] = p[1]; data[i + 2] = p[2]; data[i + 3] = p[3];
  }
  return { width: w, height: h, data };
}

const flat = (q) => q.flatMap((p) => p);
const bbox = (q) => {
  const xs = q.map((p) => p[0]), ys = q.map((p) => p[1]);
  return [Math.floor(Math.min(...xs)), Math.floor(Math.min(...ys)), Math.ceil(Math.max(...xs)), Math.ceil(Math.max(...ys))];
};

// smart makes a smart object layer whose content (w x h) sits in quad;
// its own pixels are a flat grey, as a placeholder design is.
function smart(name, id, quad, w, h, extra = {}) {
  const r = bbox(quad);
  return Object.assign({
    name, left: r[0], top: r[1], right: r[2], bottom: r[3],
    imageData: image(r[2] - r[0], r[3] - r[1], () => [128, 128, 128, 255]),
    placedLayer: {
      id, type: 'raster', width: w, height: h,
      transform: flat([[r[0], r[1]], [r[2], r[1]], [r[2], r[3]], [r[0], r[3]]]),
      nonAffineTransform: flat(quad),
    },
  }, extra);
}

// shading is a multiply layer in bands of grey, darker to the right: the
// fold of a product.
function shading(r, band) {
  return {
    name: 'Shading', blendMode: 'multiply', clipping: true,
    left: r[0], top: r[1], right: r[2], bottom: r[3],
    imageData: image(r[2] - r[0], r[3] - r[1], (x) => {
      const v = 255 - 16 * Math.floor(x / band) % 128;
      return [v, v, v, 255];
    }),
  };
}

function mockup() {
  const W = 600, H = 600;
  const bg = image(W, H, () => [235, 235, 235, 255]);
  const quad = [[150, 120], [450, 150], [430, 460], [170, 430]];
  const back = [[470, 20], [580, 20], [580, 130], [470, 130]];
  return {
    width: W, height: H, imageData: bg,
    children: [
      { name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: bg },
      {
        name: 'Shirt', vectorFill: { type: 'color', color: { r: 51, g: 102, b: 170 } },
        left: 0, top: 0, right: W, bottom: H, imageData: image(W, H, () => [51, 102, 170, 255]),
        mask: { left: 100, top: 80, right: 500, bottom: 520, defaultColor: 0, imageData: image(400, 440, () => [255, 255, 255, 255]) },
      },
      {
        name: 'Front', opened: true, blendMode: 'pass through',
        children: [
          smart('Design', 'a1c5b7e2-0000-4000-8000-000000000001', quad, 400, 400),
          shading(bbox(quad), 40),
        ],
      },
      smart('Back', 'a1c5b7e2-0000-4000-8000-000000000002', back, 200, 200),
      { name: 'Other', left: 20, top: 520, right: 120, bottom: 580, imageData: image(100, 60, () => [0, 255, 0, 255]) },
      {
        name: 'Caption', left: 200, top: 540, right: 400, bottom: 570,
        text: { text: 'Your design here', transform: [1, 0, 0, 1, 200, 565], style: { fontSize: 24 } },
        imageData: image(200, 30, (x, y) => [0, 0, 0, (x + y) % 4 ? 0 : 255]),
      },
    ],
  };
}

function bench() {
  const W = 3000, H = 3000;
  const bg = image(W, H, (x, y) => { const v = 200 + 10 * Math.floor(y / 750); return [v, v, v - 20, 255]; });
  const quad = [[700, 600], [2300, 700], [2250, 2400], [750, 2300]];
  return {
    width: W, height: H, imageData: bg,
    children: [
      { name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: bg },
      smart('Design', 'b2c5b7e2-0000-4000-8000-000000000001', quad, 2000, 2000),
      shading(bbox(quad), 100),
    ],
  };
}

// benchFX is bench.psd with what costs most to draw: a drop shadow on the
// smart object, a Gaussian blur smart filter, and a curves adjustment
// clipped to it over the shading.
function benchFX() {
  const psd = bench();
  const so = psd.children[1];
  so.effects = { dropShadow: [{ enabled: true, size: { units: 'Pixels', value: 40 }, distance: { units: 'Pixels', value: 20 }, angle: 120, opacity: 0.6, color: { r: 0, g: 0, b: 0 }, blendMode: 'multiply' }] };
  so.placedLayer.filter = {
    enabled: true, validAtPosition: true, maskEnabled: true, maskLinked: false, maskExtendWithWhite: true,
    list: [{
      name: 'Gaussian Blur', opacity: 1, blendMode: 'normal', enabled: true, hasOptions: true,
      foregroundColor: { r: 0, g: 0, b: 0 }, backgroundColor: { r: 255, g: 255, b: 255 },
      type: 'gaussian blur', filter: { radius: { units: 'Pixels', value: 3 } },
    }],
  };
  psd.children.push({ name: 'Curves', clipping: true, adjustment: { type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 96, output: 80 }, { input: 192, output: 210 }, { input: 255, output: 255 }] } });
  return psd;
}

function filtered() {
  const W = 200, H = 200;
  const bg = image(W, H, () => [235, 235, 235, 255]);
  const so = smart('Design', 'e5c5b7e2-0000-4000-8000-000000000001', [[40, 40], [160, 50], [150, 160], [50, 150]], 100, 100);
  const filter = (name, type, filter, opacity) => ({
    name, opacity, blendMode: 'normal', enabled: true, hasOptions: true,
    foregroundColor: { r: 0, g: 0, b: 0 }, backgroundColor: { r: 255, g: 255, b: 255 }, type, filter,
  });
  so.placedLayer.filter = {
    enabled: true, validAtPosition: true, maskEnabled: true, maskLinked: false, maskExtendWithWhite: true,
    list: [
      filter('Gaussian Blur', 'gaussian blur', { radius: { units: 'Pixels', value: 4 } }, 0.5),
      filter('Motion Blur', 'motion blur', { angle: 30, distance: { units: 'Pixels', value: 10 } }, 1),
    ],
  };
  return { width: W, height: H, imageData: bg, children: [{ name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: bg }, so] };
}

function screen() {
  const W = 1280, H = 720;
  const bg = image(W, H, (x, y) => { const v = 90 + Math.floor(60 * y / H); return [v, v - 10, v - 30, 255]; });
  const quad = [[300, 90], [1000, 130], [980, 600], [320, 620]];
  const r = bbox(quad);
  // The bezel: a dark frame 24 pixels wide around the screen's box, open
  // in the middle.
  const bezel = image(r[2] - r[0] + 48, r[3] - r[1] + 48, (x, y, w = r[2] - r[0] + 48, h = r[3] - r[1] + 48) =>
    (x < 24 || y < 24 || x >= w - 24 || y >= h - 24) ? [30, 30, 34, 255] : [0, 0, 0, 0]);
  return {
    width: W, height: H, imageData: bg,
    children: [
      { name: 'Desk', left: 0, top: 0, right: W, bottom: H, imageData: bg },
      smart('Screen', 'd4c5b7e2-0000-4000-8000-000000000001', quad, 1280, 720),
      shading(r, 60),
      // A warm glare in overlay, hidden: a test shows it to shade in RGB.
      {
        name: 'Glare', blendMode: 'overlay', clipping: true, hidden: true,
        left: r[0], top: r[1], right: r[2], bottom: r[3],
        imageData: image(r[2] - r[0], r[3] - r[1], (x, y) => [255, 200, 120, Math.max(0, 200 - Math.floor((x + y) / 4))]),
      },
      { name: 'Bezel', left: r[0] - 24, top: r[1] - 24, right: r[2] + 24, bottom: r[3] + 24, imageData: bezel },
    ],
  };
}

// adjusted: a hue/saturation adjustment clipped to the smart object (kino
// refuses it: the design's colours would be wrong) and a layer with a drop
// shadow (ignored with a warning).
function adjusted() {
  const W = 200, H = 200;
  const bg = image(W, H, () => [235, 235, 235, 255]);
  return {
    width: W, height: H, imageData: bg,
    children: [
      { name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: bg },
      smart('Design', 'c3c5b7e2-0000-4000-8000-000000000001', [[40, 40], [160, 50], [150, 160], [50, 150]], 100, 100),
      { name: 'Tint', clipping: true, adjustment: { type: 'hue/saturation', master: { hue: 30, saturation: 0, lightness: 0 } } },
      {
        name: 'Glow', left: 10, top: 10, right: 40, bottom: 40, imageData: image(30, 30, () => [255, 0, 0, 255]),
        effects: { dropShadow: [{ enabled: true, size: { units: 'Pixels', value: 5 }, distance: { units: 'Pixels', value: 3 } }] },
      },
    ],
  };
}

for (const [name, psd] of Object.entries({ 'mockup.psd': mockup(), 'bench.psd': bench(), 'bench-fx.psd': benchFX(), 'adjusted.psd': adjusted(), 'filtered.psd': filtered(), 'screen.psd': screen() })) {
  fs.writeFileSync(path.join(out, name), writePsdBuffer(psd, { generateThumbnail: false }));
}
