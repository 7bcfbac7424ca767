// jsonpath.js: where a JSON path such as composition.layers[2].src sits in
// JSON text, so that an error kino reports at a path can be shown at its
// line in the editor.

// spans maps every path of the document to the offsets of its value (from
// its key, for object members). The text must be valid JSON.
export function spans(text) {
  const out = new Map();
  let i = 0;
  const ws = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  const str = () => {
    const s = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(s, i));
  };
  const value = (path, from) => {
    ws();
    const start = from ?? i;
    if (text[i] === "{") {
      i++; ws();
      while (text[i] !== "}") {
        ws();
        const keyAt = i;
        const key = str();
        ws(); i++; // the colon
        value(path ? `${path}.${key}` : key, keyAt);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (text[i] === "[") {
      i++; ws();
      let n = 0;
      while (text[i] !== "]") {
        value(`${path}[${n++}]`);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (text[i] === '"') {
      str();
    } else {
      while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
    }
    out.set(path, [start, i]);
  };
  value("");
  return out;
}

// locate finds the span of path, or of its nearest enclosing path that the
// text has (a missing field is reported at its parent).
export function locate(text, path) {
  let map;
  try { map = spans(text); } catch { return null; }
  for (let p = path; ; ) {
    if (map.has(p)) return { path: p, span: map.get(p) };
    const cut = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    if (cut <= 0) return map.has("") ? { path: "", span: map.get("") } : null;
    p = p.slice(0, cut);
  }
}

// lineOf is the 1-based line of an offset.
export const lineOf = (text, at) => text.slice(0, at).split("\n").length;

// errorPaths splits a validation message into its problems: "a: x; b: y".
export function errorPaths(message) {
  return message.split(/; (?=[A-Za-z_][\w.\[\]-]*: )/).map((part) => {
    const m = /^([A-Za-z_][\w.\[\]-]*): (.*)$/s.exec(part);
    return m ? { path: m[1], message: m[2] } : { path: "", message: part };
  });
}
