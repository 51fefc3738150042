// Shared JSON conventions of dump.mjs and write.mjs: what h5wasm returns
// turned into JSON that keeps every value exactly (the Go side,
// internal/h5wasmtest, decodes the same shapes).
//
//   bigint                    -> decimal string
//   NaN, Infinity, -Infinity  -> "NaN", "Infinity", "-Infinity"
//   typed array               -> array of the above
//   Uint8Array of a reference -> {"ref": base64}
import { Buffer } from "node:buffer";

/** Returns v as a JSON-compatible value (see the module comment). */
export function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (v === Infinity) return "Infinity";
    if (v === -Infinity) return "-Infinity";
    return v;
  }
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  if (Array.isArray(v)) return v.map(plain);
  if (v.ref_data instanceof Uint8Array) return { ref: Buffer.from(v.ref_data).toString("base64") };
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  if (typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return String(v);
}

/** Returns the bytes of a typed array as base64, or undefined for other values. */
export function raw(v) {
  if (!ArrayBuffer.isView(v)) return undefined;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
}

/** Returns an extent list with unlimited (and any size beyond 2^53) as -1. */
export function extent(dims) {
  if (!dims) return dims;
  return dims.map((d) => (typeof d === "number" && d < Number.MAX_SAFE_INTEGER ? d : -1));
}
