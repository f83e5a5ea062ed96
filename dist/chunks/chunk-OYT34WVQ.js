import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
var t=new Set;function i(n){t.add(n)}function o(){return[...t]}export{i as a,o as b};
