// dump.mjs FILE [PATH...]: prints one JSON object describing every object
// of an HDF5 file as libhdf5 2.0 (h5wasm) reads it, or only the given paths.
//
// {"objects": {"/path": {"kind": "group"|"dataset"|"datatype"|"external"|"softlink",
//     "attrs": {name: {"dtype", "shape", "metadata", "values", "raw"}},
//     datasets: "dtype", "shape", "maxshape" (-1 = unlimited), "chunks",
//               "filters": [{"id","name","cd_values"}], "metadata",
//               "virtual_sources", "values" (JSON, see json.mjs),
//               "raw" (base64 of the typed array h5wasm returned, when it did)
//     external links: "filename", "obj_path"; soft links: "target"}}}
// Hard links to one object are listed under each path. External and
// soft links are listed, not followed.
import h5wasm from "h5wasm/node";
import { install_local_plugins } from "h5wasm-plugins";
import { plain, raw, extent } from "./json.mjs";

// h5wasm-plugins' filters (blosc2, bshuf, bz2, lz4, zfp, zstd, ...) load when a
// dataset needs them, as HDF5_PLUGIN_PATH plugins do.
install_local_plugins(await h5wasm.ready);
const [file, ...only] = process.argv.slice(2);
if (!file) {
  console.error("usage: node dump.mjs FILE [PATH...]");
  process.exit(2);
}
const f = new h5wasm.File(file, "r");

function attrs(obj) {
  const out = {};
  for (const [name, a] of Object.entries(obj.attrs)) {
    const v = a.value;
    out[name] = { dtype: plain(a.dtype), shape: a.shape, metadata: plain(a.metadata), values: plain(v), raw: raw(v) };
  }
  return out;
}

function describe(path, e) {
  if (e === null) return { kind: "unknown" };
  if (e instanceof h5wasm.Group) return { kind: "group", attrs: attrs(e) };
  if (e instanceof h5wasm.Dataset) {
    const m = e.metadata;
    const v = e.value;
    return {
      kind: "dataset",
      dtype: plain(e.dtype),
      shape: e.shape,
      maxshape: extent(m.maxshape),
      chunks: m.chunks,
      filters: e.filters.map((x) => ({ id: x.id, name: x.name, cd_values: Array.from(x.cd_values) })),
      metadata: plain({ ...m, maxshape: extent(m.maxshape) }),
      virtual_sources: m.virtual_sources ?? null,
      values: plain(v),
      raw: raw(v),
      attrs: attrs(e),
    };
  }
  if (e instanceof h5wasm.Datatype) return { kind: "datatype", metadata: plain(e.metadata), attrs: attrs(e) };
  if (e.type === "ExternalLink") return { kind: "external", filename: e.filename, obj_path: e.obj_path };
  if (e.type === "BrokenSoftLink") return { kind: "softlink", target: e.target };
  return { kind: String(e.type ?? "unknown") };
}

const objects = {};
if (only.length) {
  for (const p of only) objects[p] = describe(p, f.get(p));
} else {
  objects["/"] = describe("/", f);
  for (const p of f.paths()) {
    const abs = p.startsWith("/") ? p : "/" + p;
    objects[abs] = describe(abs, f.get(abs));
  }
}
console.log(JSON.stringify({ objects }));
f.close();
