// One bundle for bench/search-tune.mjs: search and its ranking knobs in one module instance.
export { searchEntries } from '../../src/app/search.js';
export { RANKING } from '../../src/adapters/index/search.js';
export { readSettings } from '../../src/adapters/config/settings.js';
