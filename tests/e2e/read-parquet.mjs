// SPDX-License-Identifier: MIT
// An independent Parquet reader for the tests (hyparquet from npm): prints one JSON object
// per file with its row count, key/value metadata, column types and rows.
// usage: node read-parquet.mjs FILE...   (run from a directory with hyparquet installed)
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

for (const path of process.argv.slice(2)) {
  const file = await asyncBufferFromFile(path);
  const md = await parquetMetadataAsync(file);
  const rows = await parquetReadObjects({ file, compressors });
  const out = {
    path,
    num_rows: Number(md.num_rows),
    created_by: md.created_by,
    kv: Object.fromEntries((md.key_value_metadata || []).map(kv => [kv.key, kv.value])),
    columns: md.schema.slice(1).map(s => ({
      name: s.name, type: s.type, repetition: s.repetition_type,
      logical: s.logical_type ? s.logical_type.type : null,
      unsigned: s.logical_type && s.logical_type.type === 'INTEGER' ? !s.logical_type.isSigned : null,
    })),
    rows,
  };
  console.log(JSON.stringify(out, (k, v) => typeof v === 'bigint' ? v.toString() : v));
}
