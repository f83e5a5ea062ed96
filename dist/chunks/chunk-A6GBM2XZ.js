import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{createRequire as r}from"node:module";var n=r(import.meta.url);function o(t){let e;return()=>e??=n(t)}var d=o("node:crypto"),c=o("node:child_process"),i=o("node:tty"),s=o("node:zlib"),y=o("node:worker_threads");export{d as a,c as b,i as c,s as d,y as e};
