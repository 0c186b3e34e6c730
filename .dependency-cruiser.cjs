/**
 * Options for the layering check (test/unit/capas.test.ts): every import counts, type-only ones too (a folder
 * that names another's types depends on it). The check itself folds modules into top-level folders and
 * refuses any cycle between them.
 */
module.exports = {
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|bench|scripts)/' },
  },
};
