// Builds __CRATE__.wasm from app.js and wit/ with componentize-js (npm,
// pinned by package-lock.json), through its Node API. Installs it first
// (`npm ci`) when node_modules does not hold it.
// Usage: npm run build [-- OUTPUT.wasm]   (default: ./__CRATE__.wasm)
//
// `disableFeatures: ["http", "fetch-event"]`: without it the component
// imports wasi:http (for fetch() and a fetch-event handler), which the CRM
// host does not offer, and the host refuses to load it. A component reaches
// the network only through the contract's own `http` import (a provider).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "__CRATE__.wasm"));
if (!existsSync(join(here, "node_modules/@bytecodealliance/componentize-js"))) {
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" });
}
const { componentize } = await import("@bytecodealliance/componentize-js");
const { component } = await componentize({
  sourcePath: join(here, "app.js"),
  witPath: join(here, "wit"),
  worldName: "__WORLD__",
  disableFeatures: ["http", "fetch-event"],
});
await writeFile(out, component);
console.log(`wrote ${out} (${(component.length / 1e6).toFixed(1)} MB)`);
