import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
function r(e){let n=/\n---[ \t]*(\n|$)/.exec(e.slice(3));return n?{start:3+n.index,end:3+n.index+n[0].length}:void 0}function s(e){let n=e.replace(/\r\n?/g,`
`);if(!n.startsWith("---"))return n;let t=r(n);return t?n.slice(t.end).replace(/^\n/,""):n}export{r as a,s as b};
