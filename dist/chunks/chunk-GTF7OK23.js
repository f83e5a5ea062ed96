import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
function t(n){return/\.conflict-[0-9a-f]{8}$/.test(n)}export{t as a};
