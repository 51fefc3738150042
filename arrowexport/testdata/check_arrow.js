// check_arrow.js FILE.arrow: reads an Arrow IPC file with npm's
// apache-arrow (found through NODE_PATH) and prints, as JSON, the row
// count, the batch count and per column its name, null count and the text
// of every value (null for missing).
const fs = require("fs");
const { tableFromIPC } = require("apache-arrow");
const t = tableFromIPC(fs.readFileSync(process.argv[2]));
const cols = t.schema.fields.map((f, j) => {
  const v = t.getChildAt(j);
  const vals = [];
  for (let i = 0; i < t.numRows; i++) {
    const x = v.get(i);
    vals.push(x === null ? null : String(x));
  }
  return { name: f.name, nulls: v.nullCount, values: vals };
});
console.log(JSON.stringify({ rows: t.numRows, batches: t.batches.length, cols }));
