import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{h as s,j as i}from"./chunk-HVSDXC5F.js";function c(e){let n=/\n---[ \t]*(\n|$)/.exec(e.slice(3));return n?{start:3+n.index,end:3+n.index+n[0].length}:void 0}function d(e){let n=e.replace(/\r\n?/g,`
`);if(!n.startsWith("---"))return n;let r=c(n),t=r?n.slice(r.end).replace(/^\n/,""):n;return t.includes(s)?i(t):t}export{c as a,d as b};
