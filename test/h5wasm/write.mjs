// write.mjs SPEC.json: writes one HDF5 file with libhdf5 2.0 (h5wasm) as
// the spec says, objects in order:
//
// {"file": "out.h5", "libver": "v200" | ["v110", "v200"] (default "v200"),
//  "track_order": false,
//  "objects": [
//    {"kind": "group", "path": "/g", "track_order": false},
//    {"kind": "dataset", "path": "/g/d", "dtype": "<f4", "shape": [2, 3],
//     "maxshape": [-1, 3] (-1 = unlimited), "chunks": [1, 3],
//     "compression": "gzip" | filter id, "compression_opts": 4 | [cd values],
//     "data": [1, 2, ...] | ["a", "b"] (JSON values, see json.mjs) or
//     "raw": base64 of the little-endian element bytes (numeric dtypes)},
//    {"kind": "attribute", "path": "/g", "name": "a", "data": ..., "raw": ...,
//     "dtype": ..., "shape": ...},
//    {"kind": "resize", "path": "/g/d", "shape": [4, 3]},
//    {"kind": "write_slice", "path": "/g/d", "ranges": [[0, 2], []], "data": ..., "raw": ...},
//    {"kind": "softlink", "path": "/l", "target": "/g/d"},
//    {"kind": "hardlink", "path": "/h", "target": "/g/d"},
//    {"kind": "external", "path": "/e", "filename": "other.h5", "target": "/d"}]}
//
// dtype is numpy-like: <i1 <u1 <i2 <u2 <i4 <u4 <i8 <u8 <f4 <f8 (also >
// for big-endian) or h5wasm's own codes ("S", "<f", ...).
import { readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import h5wasm from "h5wasm/node";
import { install_local_plugins } from "h5wasm-plugins";

// h5wasm-plugins' filters (blosc2, bshuf, bz2, lz4, zfp, zstd, ...) load when a
// dataset needs them, as HDF5_PLUGIN_PATH plugins do.
install_local_plugins(await h5wasm.ready);
const specFile = process.argv[2];
if (!specFile) {
  console.error("usage: node write.mjs SPEC.json");
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specFile, "utf8"));

const arrays = {
  i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array,
  i8: BigInt64Array, u8: BigUint64Array, f4: Float32Array, f8: Float64Array,
};
// struct-module codes h5wasm takes for each numpy-like dtype.
const codes = { i1: "b", u1: "B", i2: "h", u2: "H", i4: "i", u4: "I", i8: "q", u8: "Q", f4: "f", f8: "d" };

function dtypeOf(d) {
  if (typeof d !== "string") return d ?? null;
  const m = /^([<>=|]?)([iuf][1248])$/.exec(d);
  if (!m) return d;
  return (m[1] === ">" ? ">" : "<") + codes[m[2]];
}

function number(x) {
  if (x === "NaN") return NaN;
  if (x === "Infinity") return Infinity;
  if (x === "-Infinity") return -Infinity;
  return x;
}

// Returns the value h5wasm is to write for an object's data/raw/dtype.
function dataOf(o, what) {
  const m = typeof o.dtype === "string" ? /^[<>=|]?([iuf][1248])$/.exec(o.dtype) : null;
  if (o.raw !== undefined) {
    if (!m) throw new Error(`${what}: raw data needs a numeric dtype, not ${JSON.stringify(o.dtype)}`);
    const b = Buffer.from(o.raw, "base64");
    const copy = new Uint8Array(b); // aligned
    return new arrays[m[1]](copy.buffer);
  }
  if (m && Array.isArray(o.data)) {
    const flat = o.data.flat(Infinity);
    if (m[1] === "i8" || m[1] === "u8") return arrays[m[1]].from(flat, (x) => BigInt(x));
    return arrays[m[1]].from(flat, number);
  }
  return o.data;
}

function extent(dims) {
  return dims ? dims.map((d) => (d < 0 ? null : d)) : dims;
}

const f = new h5wasm.File(spec.file, "w", { libver: spec.libver ?? "v200", track_order: !!spec.track_order });
try {
  for (const o of spec.objects ?? []) {
    const what = `${spec.file}: ${o.kind} ${o.path}${o.name ? " " + o.name : ""}`;
    try {
      switch (o.kind) {
        case "group":
          f.create_group(o.path, !!o.track_order);
          break;
        case "dataset": {
          const args = { name: o.path, data: dataOf(o, what) };
          if (o.shape) args.shape = o.shape;
          if (o.dtype) args.dtype = dtypeOf(o.dtype);
          if (o.maxshape) args.maxshape = extent(o.maxshape);
          if (o.chunks) args.chunks = o.chunks;
          if (o.compression !== undefined) args.compression = o.compression;
          if (o.compression_opts !== undefined) args.compression_opts = o.compression_opts;
          if (o.track_order) args.track_order = true;
          f.create_dataset(args);
          break;
        }
        case "attribute":
          f.get(o.path).create_attribute(o.name, dataOf(o, what), o.shape ?? null, o.dtype ? dtypeOf(o.dtype) : null);
          break;
        case "resize":
          f.get(o.path).resize(o.shape);
          break;
        case "write_slice":
          f.get(o.path).write_slice(o.ranges, dataOf(o, what));
          break;
        case "softlink":
          f.create_soft_link(o.target, o.path);
          break;
        case "hardlink":
          f.create_hard_link(o.target, o.path);
          break;
        case "external":
          f.create_external_link(o.filename, o.target, o.path);
          break;
        default:
          throw new Error(`unknown kind ${JSON.stringify(o.kind)}`);
      }
    } catch (e) {
      throw new Error(`${what}: ${e.message ?? e}`);
    }
  }
} finally {
  f.close();
}
