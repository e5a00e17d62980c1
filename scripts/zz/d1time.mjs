// Times statements in workerd's D1 (miniflare) on the million-site database: meta.duration and wall.
import { getPlatformProxy } from "wrangler";
import { readFileSync } from "node:fs";
const { env, dispose } = await getPlatformProxy({ configPath: "/work/main/wrangler.toml", persist: { path: "/tmp/db1m/v3" } });
const db = env.DB;
const names = process.argv.slice(2);
const N = Number(process.env.N ?? 60);
for (const name of names) {
  const { sql, params } = name.endsWith(".json") ? JSON.parse(readFileSync(name, "utf8")) : { sql: name, params: [] };
  const d = [], w = [];
  for (let i = 0; i < N; i++) { const s = performance.now(); const r = await db.prepare(sql).bind(...params).all(); w.push(performance.now() - s); d.push(r.meta.duration); }
  if (process.env.PRINT) console.log(JSON.stringify((await db.prepare(sql).bind(...params).all()).results));
  d.sort((a, b) => a - b); w.sort((a, b) => a - b);
  console.log(name.split("/").pop().slice(0, 40).padEnd(40), "sql med", d[N >> 1].toFixed(2), "p25", d[N >> 2].toFixed(2), "wall med", w[N >> 1].toFixed(2));
}
await dispose();
