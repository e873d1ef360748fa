// Stryker's mocha runner (10.0.0) requires mocha's CLI helpers by their names before mocha 12
// (`mocha/lib/cli/run-helpers`, `options`, `collect-files`); mocha 12 ships them as `.cjs`. Preloaded into Stryker's
// processes by scripts/mutation.mjs (NODE_OPTIONS=--require), this resolves those three names to the `.cjs` files.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload (NODE_OPTIONS=--require) patches require itself
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const renamed = /[\\/]mocha[\\/]lib[\\/]cli[\\/](run-helpers|options|collect-files)$/.test(request) ? `${request}.cjs` : request;
  return resolve.call(this, renamed, ...rest);
};
