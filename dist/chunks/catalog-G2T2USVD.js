import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-GCMW7R6F.js";import"./chunk-3YQXIYPD.js";import"./chunk-2GSBV4MR.js";import"./chunk-32MCBPBP.js";import"./chunk-HBOPAJZA.js";import"./chunk-CTQG6ZJA.js";import"./chunk-ZHHVG47C.js";export{c as catalogProblems,b as loadCatalog,d as newestFirst,a as readItem};
