// SPDX-License-Identifier: MIT
// Runs one SQL query with DuckDB (npm @duckdb/node-api) and prints its rows as JSON: an
// independent reader of memtap's Parquet for the tests. usage: node duck-query.mjs SQL
import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
const r = await c.runAndReadAll(process.argv[2]);
console.log(JSON.stringify(r.getRowObjectsJson()));
