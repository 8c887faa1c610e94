// Builds the web table's script (web/table.ts and the SDK it uses) into the
// one file the front door serves, host/web/table.js:
//   npm run bundle              write it
//   npm run bundle -- --check   exit 1 if the committed file is not what the sources make
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, "..", "..", "..", "host", "web", "table.js");
const check = process.argv.includes("--check");
const result = await build({
  entryPoints: [join(here, "..", "web", "table.ts")],
  bundle: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  outfile,
  write: !check,
});
if (check) {
  const fresh = Buffer.from(result.outputFiles[0].contents);
  let committed = Buffer.alloc(0);
  try {
    committed = readFileSync(outfile);
  } catch {
    // missing: stale
  }
  if (!fresh.equals(committed)) {
    console.error("host/web/table.js is stale: run npm run bundle in clients/ts");
    process.exit(1);
  }
  console.log("host/web/table.js is up to date");
}
