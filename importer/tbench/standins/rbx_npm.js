// rbx stand-in for a bare `npm install` at test time (docs/terminal-bench.md):
// every dependency of ./package.json must already be installed, in
// node_modules or in Debian's global Node.js directories; those found
// globally are linked into node_modules. Exits 1 naming every missing one.
'use strict';
const fs = require('fs');
const path = require('path');
const roots = ['/usr/share/nodejs', '/usr/lib/nodejs', '/usr/local/lib/node_modules', '/usr/lib/node_modules'];
let pkg;
try {
  pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
} catch (e) {
  console.error('rbx-offline: npm install: cannot read package.json: ' + e.message);
  process.exit(1);
}
const deps = Object.keys(Object.assign({}, pkg.dependencies, pkg.devDependencies));
const missing = [];
for (const d of deps) {
  if (fs.existsSync(path.join('node_modules', d))) continue;
  const root = roots.find((r) => fs.existsSync(path.join(r, d)));
  if (!root) { missing.push(d); continue; }
  fs.mkdirSync(path.dirname(path.join('node_modules', d)), { recursive: true });
  fs.symlinkSync(path.join(root, d), path.join('node_modules', d));
}
if (missing.length > 0) {
  console.error('rbx-offline: npm install: not installed in the image (nothing can be downloaded at test time): ' + missing.join(', '));
  process.exit(1);
}
console.error('rbx-offline: npm install: ' + deps.length + ' dependencies found locally');
