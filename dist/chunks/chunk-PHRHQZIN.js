import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
var e=t=>typeof t=="string"&&t?t:void 0;function o(t,n){return{...t,token:t.token??e(n.token),username:t.username??e(n.username)}}function r(t,n){return t.autoSync??n.auto_sync===!0}export{o as a,r as b};
