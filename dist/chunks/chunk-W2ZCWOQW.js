import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
function r(n){let t=2166136261;for(let e=0;e<n.length;e++)t^=n.charCodeAt(e),t=Math.imul(t,16777619);return t>>>0}export{r as a};
