import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{b as o}from"./chunk-PVP7PZS2.js";import{h as a}from"./chunk-3YQXIYPD.js";function s(t){let e=o({data:t.data});return a(e.dir),e}async function d(t){let e=o({data:t.data}),{ensureDataRepo:r}=await import("./write-D4A3ADLM.js"),i=await r(e.dir);return{...e,created:i}}export{s as a,d as b};
