import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{createRequire as r}from"node:module";var n=r(import.meta.url);function o(t){let e;return()=>e??=n(t)}var c=o("node:crypto"),i=o("node:child_process"),d=o("node:tty"),s=o("node:zlib");export{c as a,i as b,d as c,s as d};
